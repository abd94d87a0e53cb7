import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { faultServer, starts } from '../helpers/faults.js';
import { eventually, isAlive, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * A stdio server that closes one of its pipes and runs on: it can read or answer nothing more, and
 * its calls waited for timeouts.callSeconds (600 s by default). It is stopped as if it had exited
 * and started again; each call is told what is known: not run when it was never written to the
 * server, else that it may have had effects (docs/design.md, "crash handling").
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** The tools the server was called with, in order ($FAULT_CALLS). */
function called(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

describe('a server that closes its stdin and keeps running', () => {
  test('the next call is answered at once as not run, and the server is stopped and started again', async () => {
    const dir = tempDir();
    const file = join(dir, 'starts');
    const calls = join(dir, 'calls');
    harness = await startGateway({ mcpServers: { f: faultServer('closes-stdin', file, { FAULT_CALLS: calls }) }, permissions: { allow: ['mcp__f'] }, timeouts: { callSeconds: 600 } });
    // It closes its stdin, then answers this call.
    const first = await harness.client.callTool({ name: 'f__echo', arguments: { text: 'then deaf' } });
    expect(textOf(first)).toContain('then deaf');
    const [pid] = starts(file);
    const next = await harness.client.callTool({ name: 'f__whoami', arguments: {} }, undefined, { timeout: 600_000 });
    expect(next.isError).toBe(true);
    expect(textOf(next)).toMatch(/^mcp-latch: the call was not run because .*closed its stdin/);
    // The server never read it.
    expect(called(calls)).toEqual(['echo']);
    await eventually(() => expect(isAlive(pid!)).toBe(false), 20_000);
    const second = await eventually(async () => {
      const answer = await harness!.client.callTool({ name: 'f__whoami', arguments: {} });
      expect(answer.isError).toBeFalsy();
      return Number(textOf(answer));
    }, 30_000, 200);
    expect(second).not.toBe(pid);
    expect(starts(file)).toEqual([pid, second]);
  }, 60_000);

  test('a call it was running and never answers is answered at once: it may have had effects', async () => {
    const dir = tempDir();
    const file = join(dir, 'starts');
    harness = await startGateway({ mcpServers: { f: faultServer('closes-stdin', file) }, permissions: { allow: ['mcp__f'] }, timeouts: { callSeconds: 600 } });
    // It closes its stdin and never answers; no other call is written after it.
    const answer = await harness.client.callTool({ name: 'f__echo', arguments: { silent: true } }, undefined, { timeout: 600_000 });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toBe('mcp-latch: server "f" closed its stdin (it reads nothing more) while the call was running, and is stopped and started again: it may have had effects.');
    const [pid] = starts(file);
    await eventually(() => expect(isAlive(pid!)).toBe(false), 20_000);
    // The log says why it is restarted (it reaches the test on stderr, after the answer on stdout).
    await eventually(() => expect(harness!.stderr()).toContain('the server closed its stdin (it reads nothing more) and was stopped'));
  }, 60_000);
});
