import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { BIN, FS_SERVER, ROOT, fixtureCalls, fixtureServer, tempDir, writeConfig } from '../helpers/gateway.js';
// @ts-expect-error: a plain-JS helper that .ci/run also runs.
import { ensurePythonMcp } from '../helpers/python-mcp.mjs';

/**
 * The official Python SDK (mcp 2.3.0, in the virtual environment test/helpers/python-mcp.mjs
 * makes) in front of the built gateway: `mode="2026-07-28"` (no handshake, the per-request
 * envelope, approvals as input_required) and `mode="legacy"` (initialize, elicitation/create).
 * test/fixtures/python-client.py runs the scenarios in one session and reports what it saw.
 */
const run = promisify(execFile);
const SCRIPT = join(ROOT, 'test/fixtures/python-client.py');
type Outcome = { type: string; text?: string; isError?: boolean; state?: string; requests?: string; prompts?: Array<{ message: string; meta: Record<string, unknown> | null }> };

let python: string;
beforeAll(() => {
  python = ensurePythonMcp() as string;
}, 600_000);

async function drive(mode: string, dir: string, scenarios: string[], extra: Partial<ConfigInput> = {}): Promise<Record<string, any>> {
  const config: ConfigInput = {
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, fix: fixtureServer('fix', join(dir, 'fixture.log')) },
    workspace: [dir],
    ...extra,
  };
  const configPath = writeConfig(dir, config);
  const { stdout } = await run(python, [SCRIPT, mode, process.execPath, BIN, configPath, dir, ...scenarios], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as Record<string, any>;
}

for (const mode of ['2026-07-28', 'legacy']) {
  describe(`Python SDK client, mode ${mode}`, () => {
    const dir = tempDir();
    let report: Record<string, any>;
    beforeAll(async () => {
      report = await drive(mode, dir, ['list', 'allowed', 'approve', 'deny'], { permissions: { allow: ['mcp__fix__echo'] } });
    }, 180_000);

    test('lists the tools of every server, on the protocol revision asked for', () => {
      expect(report.list.tools).toEqual(expect.arrayContaining(['fs__write_file', 'fix__echo']));
      expect(report.list.version).toBe(mode === 'legacy' ? '2025-11-25' : '2026-07-28');
    });

    test('an allowed call runs without a prompt', () => {
      expect(report.allowed).toMatchObject({ type: 'complete', isError: false });
      expect(report.allowed.text).toContain('hi from python');
      expect(fixtureCalls(join(dir, 'fixture.log'))).toHaveLength(1);
    });

    test('ask → Allow once: one prompt with the payload, the file is written', () => {
      const approve = report.approve as Outcome;
      expect(approve).toMatchObject({ type: 'complete', isError: false });
      expect(approve.prompts).toHaveLength(1);
      expect(approve.prompts![0]!.message).toContain('wants to run the tool write_file');
      expect(approve.prompts![0]!.meta?.['mcp-latch/request']).toMatchObject({ server: 'fs', tool: 'write_file' });
      expect(readFileSync(join(dir, 'py-approve.txt'), 'utf8')).toBe('approve');
    });

    test('ask → Deny with a note: nothing is written, the note comes back', () => {
      expect(report.deny).toMatchObject({ type: 'complete', isError: true });
      expect(report.deny.text).toMatch(/^Denied by mcp-latch: the user denied this call/);
      expect(report.deny.text).toContain('use the staging folder');
      expect(existsSync(join(dir, 'py-deny.txt'))).toBe(false);
    });
  });
}

describe('Python SDK client, mode 2026-07-28: the requestState', () => {
  const dir = tempDir();
  let report: Record<string, any>;
  beforeAll(async () => {
    report = await drive('2026-07-28', dir, ['replay', 'tamper', 'changed']);
  }, 180_000);

  test('an approval resumes the call once; the same state again is refused and asks again', () => {
    const [once, ...again] = report.replay.rounds as Outcome[];
    expect(report.replay.first.type).toBe('input_required');
    expect(once).toMatchObject({ type: 'complete', isError: false, text: expect.stringContaining('replay') });
    for (const round of again) {
      expect(round.type).toBe('input_required');
      expect(round.requests).toContain('it was already used');
    }
  });

  test('a tampered state is refused and asks again', () => {
    expect(report.tamper.retry.type).toBe('input_required');
    expect(report.tamper.retry.requests).toContain('it was altered');
  });

  test('a retry with changed arguments asks again', () => {
    expect(report.changed.retry.type).toBe('input_required');
    expect(report.changed.retry.requests).toContain('it was issued for another call');
  });

  test('only the one approved call reached the server', () => {
    expect(fixtureCalls(join(dir, 'fixture.log')).map((call) => (call.args as { text: string }).text)).toEqual(['replay']);
  });
});

test('Python SDK client, mode 2026-07-28: an expired state asks again', async () => {
  const dir = tempDir();
  const report = await drive('2026-07-28', dir, ['expired'], { approval: { timeoutSeconds: 0.2 } });
  expect(report.expired.retry.type).toBe('input_required');
  expect(report.expired.retry.requests).toContain('it expired');
  expect(fixtureCalls(join(dir, 'fixture.log'))).toHaveLength(0);
}, 180_000);

/** The fixture 2026-07-28 server (test/fixtures/modern-server.mjs), spoken to in 2026-07-28: its `deploy` asks `confirm` first. */
function withModernServer(dir: string, allowDeploy: boolean): Partial<ConfigInput> {
  return {
    mcpServers: { modern: { command: process.execPath, args: [join(ROOT, 'test/fixtures/modern-server.mjs')], env: { FIXTURE_LOG: join(dir, 'modern.log') }, protocolVersion: '2026-07-28' } },
    ...(allowDeploy ? { permissions: { allow: ['mcp__modern__deploy'] } } : {}),
  };
}

for (const mode of ['2026-07-28', 'legacy']) {
  describe(`Python SDK client, mode ${mode}: a 2026-07-28 server's own question`, () => {
    for (const allowDeploy of [true, false]) {
      test(allowDeploy ? 'the question reaches the client; answering it deploys once' : "the gateway's approval, then the server's question: deploys once", async () => {
        const dir = tempDir();
        const report = await drive(mode, dir, ['deploy'], withModernServer(dir, allowDeploy));
        expect(report.deploy).toMatchObject({ type: 'complete', isError: false, text: 'deployed to py' });
        const messages = (report.deploy.prompts as Array<{ message: string }>).map((prompt) => prompt.message);
        expect(messages.at(-1)).toBe('[modern] Deploy to py?');
        expect(messages).toHaveLength(allowDeploy ? 1 : 2);
        if (!allowDeploy) expect(messages[0]).toContain('wants to run the tool deploy');
        expect(fixtureCalls(join(dir, 'modern.log'))).toEqual([{ tool: 'deploy', env: 'py' }]);
      }, 180_000);
    }
  });
}

test("Python SDK client, mode 2026-07-28: the wrapped state of a server's question is single use and cannot be altered", async () => {
  const dir = tempDir();
  const report = await drive('2026-07-28', dir, ['deploy-replay', 'deploy-tamper'], withModernServer(dir, true));
  const [once, again] = report['deploy-replay'].rounds as Outcome[];
  expect(report['deploy-replay'].first.type).toBe('input_required');
  expect(once).toMatchObject({ type: 'complete', isError: false, text: 'deployed to deploy-replay' });
  // The replay's answer never reaches the server: it asks again.
  expect(again!.type).toBe('input_required');
  expect(again!.requests).toContain('mcp-latch/server/confirm');
  expect(report['deploy-tamper'].retry.type).toBe('input_required');
  expect(fixtureCalls(join(dir, 'modern.log')).map((call) => call.env)).toEqual(['deploy-replay']);
}, 180_000);
