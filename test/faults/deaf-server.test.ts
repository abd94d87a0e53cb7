import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { faultServer } from '../helpers/faults.js';
import { rawGateway, tempDir, textOf, writeConfig } from '../helpers/gateway.js';

/**
 * A server that stops reading its stdin (stuck): the gateway held every call to it in its own
 * memory without bound (40 calls of 5 MB, 715 MB), each answered after timeouts.callSeconds as
 * "forwarded and then cancelled at the server", though neither had left the gateway (round 20
 * review of faults, F4).
 */
/**
 * Small calls sent one at a time until one is refused as not run because the server does not read:
 * the gateway counts a backlog by its own clock, once it was written and a second passed with too
 * little of it read. A probe written before that waits for the server and times out
 * (timeouts.callSeconds), and the next is sent. Until round 28 the tests slept 1.5 s and sent one
 * call: a gateway on a machine at a load over 20 had not written the backlog half a second after
 * it was sent, and that call was written and timed out (round 28). At most `most` probes.
 */
async function refusedProbe(gateway: ReturnType<typeof rawGateway>, first: number, most = 12): Promise<string> {
  for (let id = first; id < first + most; id++) {
    gateway.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 's__echo', arguments: { text: 'small' } } });
    const text = textOf((await gateway.response(id)).result);
    if (text.startsWith('mcp-latch: the call was not run because')) return text;
  }
  throw new Error(`none of ${most} calls was refused as not run`);
}

describe('a server that stops reading its input', () => {
  test('past limits.messageMB unread, a call is not written to it and says so; one that timed out does not claim it reached the server', async () => {
    const dir = tempDir();
    const calls = join(dir, 'calls');
    const config = writeConfig(dir, { mcpServers: { s: faultServer('deaf', join(dir, 'starts'), { FAULT_CALLS: calls }) }, permissions: { allow: ['mcp__s__echo'] }, limits: { messageMB: 1 }, timeouts: { callSeconds: 2 } });
    const gateway = rawGateway(config);
    try {
      await gateway.initialize();
      gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      await gateway.response(2);
      // Three calls of 0.6 MB: past the pipes' buffers, well over 1 MB waits unread; the next is refused.
      const text = 'x'.repeat(600 * 1024);
      for (const id of [10, 11, 13]) gateway.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 's__echo', arguments: { text } } });
      // A backlog counts once it has not been read for a second (a burst to a server that reads is no sign).
      const refused = await refusedProbe(gateway, 100);
      expect(refused).toMatch(/^mcp-latch: the call was not run because the server is not reading its input: [\d.]+ MB written to it have waited unread for over a second, more than limits\.messageMB \(1 MB\)/);
      const timedOut = textOf((await gateway.response(10)).result);
      expect(timedOut).toContain('it was not reading its input');
      expect(timedOut).not.toContain('cancelled at the server');
    } finally {
      await gateway.close();
    }
  }, 90_000);

  // Round 28: any byte read started the second again, so a server reading a byte at a time (6,400
  // a second: the pipe takes a page from the gateway every 0.64 s) was never counted as not
  // reading, and was sent every call behind a backlog that never drained.
  test('a server that reads a byte at a time counts as not reading: past limits.messageMB, a call is not written to it', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, { mcpServers: { s: faultServer('byte-reader', join(dir, 'starts')) }, permissions: { allow: ['mcp__s__echo'] }, limits: { messageMB: 1 }, timeouts: { callSeconds: 3 } });
    const gateway = rawGateway(config);
    try {
      await gateway.initialize();
      gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      await gateway.response(2);
      // 1,500 calls of 1 KB, each in a write of its own: what waits for the server is many small
      // writes, and the server finishes one every second or less, though it reads 6,400 bytes a second.
      const text = 'x'.repeat(1024);
      for (let id = 10_000; id < 11_500; id++) {
        gateway.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 's__echo', arguments: { text } } });
        await new Promise((done) => setTimeout(done, 2));
      }
      const refused = await refusedProbe(gateway, 100);
      expect(refused).toMatch(/^mcp-latch: the call was not run because the server is not reading its input: [\d.]+ MB written to it have waited unread for over a second, more than limits\.messageMB \(1 MB\)/);
    } finally {
      await gateway.close();
    }
  }, 90_000);

  // Until round 26 a backlog had to empty within the second: a server reading a burst steadily but
  // slower than that (here by design; in CI, a loaded machine) had its later calls refused.
  test('a server that reads its input steadily but slowly is sent every call, however long its backlog waits', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, { mcpServers: { s: faultServer('slow-reader', join(dir, 'starts')) }, permissions: { allow: ['mcp__s__echo'] }, limits: { messageMB: 1 } });
    const gateway = rawGateway(config);
    try {
      await gateway.initialize();
      gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      await gateway.response(2);
      // 8 calls of 0.9 MB: ~2 s of reading for this server (64 KB every 20 ms), well over 1 MB waiting.
      const text = 'z'.repeat(900 * 1024);
      const first = Array.from({ length: 8 }, (_, index) => 10 + index);
      gateway.send(...first.map((id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 's__echo', arguments: { text, id } } })));
      // Past the second: the backlog has waited that long, read all the while.
      await new Promise((done) => setTimeout(done, 1_500));
      gateway.send({ jsonrpc: '2.0', id: 30, method: 'tools/call', params: { name: 's__echo', arguments: { text: 'small', id: 30 } } });
      for (const id of [...first, 30]) expect(JSON.parse(textOf((await gateway.response(id)).result)).id).toBe(id);
    } finally {
      await gateway.close();
    }
  }, 60_000);

  test('a burst of large calls to a server that reads is written whole: none refused', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, { mcpServers: { s: faultServer('works', join(dir, 'starts')) }, permissions: { allow: ['mcp__s__echo'] }, limits: { messageMB: 1 } });
    const gateway = rawGateway(config);
    try {
      await gateway.initialize();
      gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      await gateway.response(2);
      // 16 calls of 0.9 MB in one write: 14 MB go to the server at once, past limits.messageMB.
      const text = 'y'.repeat(900 * 1024);
      const ids = Array.from({ length: 16 }, (_, index) => 10 + index);
      gateway.send(...ids.map((id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 's__echo', arguments: { text, id } } })));
      for (const id of ids) expect(JSON.parse(textOf((await gateway.response(id)).result)).id).toBe(id);
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
