import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { BIN, ROOT, fixtureCalls, tempDir, writeConfig } from '../helpers/gateway.js';
// @ts-expect-error: a plain-JS helper that .ci/run also runs.
import { ensurePythonMcp } from '../helpers/python-mcp.mjs';

/**
 * A server's roots/list across the eras (test/gateway/roots-eras.test.ts), with the official Python
 * SDK (mcp 2.3.0) as the client, declaring roots and answering them from its callback:
 * `mode="2026-07-28"` in front of a 2025 server that asks while the call runs (held, asked as
 * input_required, the SDK answers and retries), and `mode="legacy"` in front of a 2026-07-28 server
 * asking in input_required (the gateway asks the client roots/list itself).
 */
const run = promisify(execFile);
const SCRIPT = join(ROOT, 'test/fixtures/python-client.py');

let python: string;
beforeAll(() => {
  python = ensurePythonMcp() as string;
}, 600_000);

function layout() {
  const dir = tempDir();
  const ws = join(dir, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'note.txt'), 'NOTE');
  return { dir, ws, log: join(dir, 'server.log'), script: join(dir, 'mcp-server-filesystem.mjs') };
}

async function drive(mode: string, dir: string, ws: string, server: Record<string, unknown>): Promise<Record<string, any>> {
  const configPath = writeConfig(dir, { mcpServers: { fs: server as never }, workspace: [ws], permissions: { allow: ['mcp__fs__read_text_file'] } });
  const { stdout } = await run(python, [SCRIPT, mode, process.execPath, BIN, configPath, dir, 'roots'], { timeout: 120_000, env: { ...process.env, ROOTS: JSON.stringify([pathToFileURL(ws).href]) } });
  return JSON.parse(stdout) as Record<string, any>;
}

describe('Python SDK client with roots', () => {
  test("mode 2026-07-28, a 2025 server's roots/list while the call runs: answered from the client's roots, the server reads under them", { timeout: 180_000 }, async () => {
    const { dir, ws, log, script } = layout();
    symlinkSync(join(ROOT, 'test/fixtures/roots-server.mjs'), script);
    const report = await drive('2026-07-28', dir, ws, { command: process.execPath, args: [script, ws], env: { FIXTURE_LOG: log } });
    expect(report.roots).toMatchObject({ type: 'complete', text: 'NOTE', isError: false });
    expect(fixtureCalls(log)).toEqual([{ tool: 'read_text_file', roots: [{ uri: pathToFileURL(ws).href }], read: join(ws, 'note.txt') }]);
  });

  test("mode legacy, a 2026-07-28 server's roots/list: the gateway asks the client, the server gets its roots", { timeout: 180_000 }, async () => {
    const { dir, ws, log, script } = layout();
    copyFileSync(join(ROOT, 'test/fixtures/raw-modern-server.mjs'), script);
    const report = await drive('legacy', dir, ws, { command: process.execPath, args: [script, ws], env: { INPUT_REQUESTS: JSON.stringify({ r: { method: 'roots/list' } }), FIXTURE_LOG: log, TOOL_NAME: 'read_text_file' }, protocolVersion: '2026-07-28' });
    expect(report.roots).toMatchObject({ type: 'complete', text: 'done', isError: false });
    expect(fixtureCalls(log)).toEqual([
      { tool: 'read_text_file', answers: null },
      { tool: 'read_text_file', answers: { r: { roots: [{ uri: pathToFileURL(ws).href }] } } },
    ]);
  });
});
