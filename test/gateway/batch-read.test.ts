import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { FS_SERVER, eventually, fixtureCalls, fixtureServer, tempDir, textOf } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness, type InProcessOptions } from '../helpers/in-process.js';

/**
 * The calls of one read from the client are one batch (docs/approval.md#the-latch), whatever their order: an allowed
 * call written in the same read as a call that needs a person must not run before that person has
 * answered. The gateway runs in this process: the SDK Client sends a request synchronously and the
 * in-memory transport delivers it synchronously, so calls started in the same tick reach the
 * gateway as one read does.
 */
let harness: InProcessHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** A fixture server `fix`, and `slow`, the same fixture, which answers nothing until the test opens its gate. */
function fixAndSlow(dir: string, log: string) {
  return { fix: fixtureServer('fix', log), slow: fixtureServer('slow', log, [], { FIXTURE_GATE: join(dir, 'gate') }) };
}

/** A prompt the test answers when it chooses: `shown` resolves with it, `answer` replies. */
function heldPrompt() {
  let show!: (params: ElicitRequest['params']) => void;
  let reply!: (result: ElicitResult) => void;
  const shown = new Promise<ElicitRequest['params']>((done) => (show = done));
  const replied = new Promise<ElicitResult>((done) => (reply = done));
  return {
    shown,
    answer: reply,
    onElicit: (params: ElicitRequest['params']) => {
      show(params);
      return replied;
    },
  };
}

/** A call whose settling the test can look at without awaiting it. */
function watched<T>(call: Promise<T>) {
  const state = { settled: false, result: call };
  void call.finally(() => (state.settled = true)).catch(() => undefined);
  return state;
}

async function gatewayUp(config: ConfigInput, dir: string, onElicit?: InProcessOptions['onElicit']): Promise<InProcessHarness> {
  harness = await inProcessGateway(config, { dir, ...(onElicit ? { onElicit } : {}) });
  return harness;
}

/** The tools the audit file names so far, in order (an allowed call is recorded before it is sent). */
function audited(dir: string): string[] {
  const file = join(dir, 'mcp-latch-audit.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { tool: string; decision: string }).map((record) => `${record.tool} ${record.decision}`);
}

/** Waits until the gateway logged `server` as ready. */
async function ready(h: InProcessHarness, server: string): Promise<void> {
  await eventually(() => expect(h.stderr()).toMatch(new RegExp(`"server":"${server}"[^\\n]*"msg":"server ready"`)), 30_000);
}

describe('calls of one read', () => {
  test('an allowed call before an ask in the same read waits for the answer, then runs', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    const prompt = heldPrompt();
    const h = await gatewayUp({ mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, fix: fixtureServer('fix', log) }, workspace: [dir], permissions: { allow: ['mcp__fix__echo'] } }, dir, prompt.onElicit);
    await h.client.listTools();

    // One read: the allowed echo first, then a write that needs a person.
    const target = join(dir, 'asked.txt');
    const echo = watched(h.client.callTool({ name: 'fix__echo', arguments: { text: 'first in the read' } }));
    const write = h.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'x' } });
    await prompt.shown;
    // The prompt is up: the allowed call of the same read has not been let through, nor reached its server.
    expect(audited(dir)).toEqual([]);
    await new Promise((done) => setTimeout(done, 200));
    expect(fixtureCalls(log)).toEqual([]);
    expect(echo.settled).toBe(false);

    prompt.answer({ action: 'decline' });
    expect(textOf(await echo.result)).toContain('first in the read');
    expect(textOf(await write)).toContain('Denied by mcp-latch');
    expect(existsSync(target)).toBe(false);
    expect(fixtureCalls(log).map((entry) => entry.args)).toEqual([{ text: 'first in the read' }]);
  }, 60_000);

  test('an allowed call does not run before a call of the same read whose server is still starting, and needs a person', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    const prompt = heldPrompt();
    const h = await gatewayUp({ mcpServers: fixAndSlow(dir, log), workspace: [dir], permissions: { allow: ['mcp__fix__echo'] } }, dir, prompt.onElicit);
    // No tools/list first: it would wait for the slow server.
    await ready(h, 'fix');
    const echo = watched(h.client.callTool({ name: 'fix__echo', arguments: { text: 'allowed' } }));
    const whoami = h.client.callTool({ name: 'slow__whoami', arguments: {} });
    // The gateway answers in order: once the ping is answered it holds both calls.
    await h.client.ping();
    writeFileSync(join(dir, 'gate'), '');
    expect(JSON.stringify(await prompt.shown)).toContain('whoami');
    expect(audited(dir)).toEqual([]);
    expect(fixtureCalls(log)).toEqual([]);
    expect(echo.settled).toBe(false);

    prompt.answer({ action: 'decline' });
    expect(textOf(await echo.result)).toContain('allowed');
    expect(textOf(await whoami)).toContain('Denied by mcp-latch');
    expect(fixtureCalls(log).map((entry) => entry.tool)).toEqual(['echo']);
    await eventually(() => expect(audited(dir).sort()).toEqual(['echo allow', 'whoami deny']));
  }, 60_000);

  test('a call decided before such a wait is decided again after it: a rule added meanwhile applies', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    const servers = fixAndSlow(dir, log);
    const h = await gatewayUp({ mcpServers: servers, workspace: [dir], permissions: { allow: ['mcp__fix__echo', 'mcp__slow__whoami'] } }, dir);
    await ready(h, 'fix');
    const echo = h.client.callTool({ name: 'fix__echo', arguments: { text: 'allowed when it came' } });
    const whoami = h.client.callTool({ name: 'slow__whoami', arguments: {} });
    await h.client.ping();
    // While slow starts, the user denies the echo (the same servers, so none restarts).
    writeFileSync(h.configPath, JSON.stringify({ ...JSON.parse(readFileSync(h.configPath, 'utf8')), permissions: { allow: ['mcp__slow__whoami'], deny: ['mcp__fix__echo'] } }));
    await eventually(() => expect(h.stderr()).toContain('config reloaded (file changed)'), 30_000);
    writeFileSync(join(dir, 'gate'), '');
    expect(textOf(await echo)).toContain('Denied by mcp-latch');
    expect(textOf(await whoami)).not.toContain('Denied by mcp-latch');
    expect(fixtureCalls(log).map((entry) => entry.tool)).toEqual(['whoami']);
    await eventually(() => expect(audited(dir).sort()).toEqual(['echo deny', 'whoami allow']));
  }, 60_000);
});
