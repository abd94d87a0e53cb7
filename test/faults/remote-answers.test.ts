import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { faultServer } from '../helpers/faults.js';
import { startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';
import { REMOTE_FAULT_SERVER, startHttpServer, stopHttpServers } from '../helpers/http-server.js';
import { freePort } from '../helpers/ports.js';

/**
 * A remote server's answers held to what a stdio server's are (round 16 review H4, H5): an answer
 * over limits.messageMB is not read past the limit, one of too many values is dropped before it is
 * parsed, and one the gateway cannot read (invalid, cut mid-answer) is answered at once; each text
 * says the call was forwarded. Meanwhile another server's calls go on and the gateway stays up.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
  await stopHttpServers();
});

type Mode = 'json' | 'sse' | 'legacy';

async function start(mode: Mode, messageMB = 10): Promise<{ harness: Harness; written: string }> {
  const dir = tempDir();
  const written = join(dir, 'written');
  const port = await freePort();
  await startHttpServer(port, { REMOTE_WRITTEN: written }, [REMOTE_FAULT_SERVER, mode]);
  const url = mode === 'legacy' ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`;
  harness = await startGateway(
    {
      mcpServers: { r: { url, type: mode === 'legacy' ? 'sse' : 'http' }, s: faultServer('works', join(dir, 'starts')) },
      permissions: { allow: ['mcp__r', 'mcp__s'] },
      limits: { messageMB },
    },
    { dir },
  );
  return { harness, written };
}

/** The gateway's peak resident memory so far, in MiB (Linux). */
function peakMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Calls `s__echo` one after another until `until` settles; the longest wait of one, in ms. */
async function echoesDuring(harness: Harness, until: Promise<unknown>): Promise<{ calls: number; longestMs: number }> {
  let settled = false;
  void until.finally(() => (settled = true));
  let calls = 0;
  let longestMs = 0;
  while (!settled) {
    const began = Date.now();
    expect(textOf(await harness.client.callTool({ name: 's__echo', arguments: { text: 'meanwhile' } }))).toContain('meanwhile');
    longestMs = Math.max(longestMs, Date.now() - began);
    calls += 1;
  }
  return { calls, longestMs };
}

const FORWARDED = 'The call was forwarded to the server and may have had effects.';

describe.each(['json', 'sse'] as const)('a remote server answering over Streamable HTTP (%s)', (mode) => {
  test('an answer over limits.messageMB is not read past the limit: a tool error saying so, the gateway up, memory bounded', async () => {
    const { harness, written } = await start(mode);
    const pid = harness.transport.pid!;
    const before = peakMiB(pid);
    const huge = harness.client.callTool({ name: 'r__huge_string', arguments: { mb: 300 } }, undefined, { timeout: 120_000 });
    const meanwhile = await echoesDuring(harness, huge);
    const answer = await huge;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain("the server's message exceeds the limit of 10 MB; raise `limits.messageMB`");
    expect(textOf(answer)).toContain(FORWARDED);
    // The server was stopped near the limit (the rest of its 300 MB never taken), and the gateway held about the limit.
    await eventuallyExists(written);
    expect(Number(readFileSync(written, 'utf8'))).toBeLessThan(60 * 1024 * 1024);
    expect(peakMiB(pid) - before).toBeLessThan(150);
    expect(meanwhile.calls).toBeGreaterThan(0);
    expect(textOf(await harness.client.callTool({ name: 'r__echo', arguments: { text: 'still here' } }))).toBe('still here');
  }, 120_000);

  test("an answer of more values than the gateway checks is dropped before it is parsed; another server's calls go on", async () => {
    const { harness } = await start(mode);
    // 700,000 keys: ~8.7 MB, within the limit.
    const wide = harness.client.callTool({ name: 'r__wide_object', arguments: { keys: 700_000 } }, undefined, { timeout: 120_000 });
    const meanwhile = await echoesDuring(harness, wide);
    const answer = await wide;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/it holds 700,0\d\d values as written, more than the 100,000 mcp-latch checks in one answer/);
    expect(textOf(answer)).toContain(FORWARDED);
    expect(meanwhile.longestMs).toBeLessThan(2_000);
  }, 120_000);

  test('an answer the schema refuses: one line that says the call was forwarded, answered at once', async () => {
    const { harness } = await start(mode);
    const answer = await harness.client.callTool({ name: 'r__garbage', arguments: {} }, undefined, { timeout: 20_000 });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/^mcp-latch: the call to server "r" failed: its answer could not be read: .*expected object, received string\. The call was forwarded/);
    expect(textOf(answer)).not.toContain('\n');
  }, 60_000);

  test('an answer cut midway is answered at once, not after timeouts.callSeconds', async () => {
    const { harness } = await start(mode);
    const answer = await harness.client.callTool({ name: 'r__cut', arguments: {} }, undefined, { timeout: 20_000 });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain(mode === 'json' ? 'failed' : 'the connection to the server was cut before its answer was complete');
    expect(textOf(answer)).toContain(FORWARDED);
    expect(textOf(await harness.client.callTool({ name: 's__echo', arguments: { text: 'still here' } }))).toContain('still here');
  }, 60_000);

  test('a result nested too deep says the call was forwarded', async () => {
    const { harness } = await start(mode);
    const answer = await harness.client.callTool({ name: 'r__deep', arguments: { depth: 150 } });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain('nests deeper than 100 levels');
    expect(textOf(answer)).toContain(FORWARDED);
  }, 60_000);
});

describe('a remote server answering over legacy SSE', () => {
  test('an answer over limits.messageMB on the event stream answers its call with the limit; the stream goes on', async () => {
    const { harness } = await start('legacy');
    const pid = harness.transport.pid!;
    const before = peakMiB(pid);
    const answer = await harness.client.callTool({ name: 'r__huge_string', arguments: { mb: 60 } }, undefined, { timeout: 120_000 });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/the server's message of 60(\.\d)? MB exceeds the limit of 10 MB/);
    expect(textOf(answer)).toContain(FORWARDED);
    expect(peakMiB(pid) - before).toBeLessThan(150);
    expect(textOf(await harness.client.callTool({ name: 'r__echo', arguments: { text: 'still here' } }))).toBe('still here');
  }, 120_000);

  // Round 16's note: on legacy SSE every answer comes on the one GET stream, where the request an
  // event answers is known only by the id it gives; the values were counted only after the parse.
  test('an answer of more values than the gateway checks is dropped before it is parsed; the stream goes on', async () => {
    const { harness } = await start('legacy');
    const wide = harness.client.callTool({ name: 'r__wide_object', arguments: { keys: 700_000 } }, undefined, { timeout: 120_000 });
    const meanwhile = await echoesDuring(harness, wide);
    const answer = await wide;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/it holds 700,0\d\d values as written, more than the 100,000 mcp-latch checks in one answer/);
    expect(textOf(answer)).toContain(FORWARDED);
    expect(meanwhile.calls).toBeGreaterThan(0);
    expect(textOf(await harness.client.callTool({ name: 'r__echo', arguments: { text: 'still here' } }))).toBe('still here');
  }, 120_000);
});

async function eventuallyExists(file: string): Promise<void> {
  for (let waited = 0; waited < 10_000 && !existsSync(file); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
}
