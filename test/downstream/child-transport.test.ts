import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ChildTransport } from '../../src/downstream/child-transport.js';
import { KEPT_BACK, NOT_WRITTEN } from '../../src/errors.js';
import { createAudit } from '../../src/store/audit.js';
import type { Digest } from '../../src/policy/digest.js';
import { eventually, isAlive, tempDir } from '../helpers/gateway.js';

/**
 * When the bytes of a message reach a stdio server. The audit's rule (docs/design.md#records) rests
 * on it: the records of the calls forwarded together are written when Audit.together() returns,
 * after the calls were sent, so the transport must write later, and must keep back a call whose
 * record could not be written.
 */
let transport: ChildTransport | null = null;
afterEach(async () => {
  await transport?.close();
  transport = null;
});

/** A child that appends what it reads on stdin to `file`. */
async function recordingChild(file: string): Promise<ChildTransport> {
  transport = new ChildTransport({ command: process.execPath, args: ['-e', `process.stdin.pipe(require('fs').createWriteStream(${JSON.stringify(file)}))`], env: {}, maxMessageBytes: 1 << 20 });
  await transport.start();
  return transport;
}

const received = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
const call = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { id } } });

describe('ChildTransport writes', () => {
  test('a message is written once the code that sent it has ended, never inside send()', async () => {
    const file = join(tempDir(), 'stdin.txt');
    const child = await recordingChild(file);
    void child.send(call(1));
    // The child runs on its own: had send() written, it would have the line within this wait.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    expect(received(file)).toBe('');
    await eventually(() => expect(received(file)).toBe(`${JSON.stringify(call(1))}\n`));
  });

  test("a call sent inside the audit's together() is written as together() returns, after its record, without waiting for the turn to end", async () => {
    const file = join(tempDir(), 'stdin.txt');
    const auditPath = join(tempDir(), 'audit.jsonl');
    const audit = createAudit(auditPath);
    const child = await recordingChild(file);
    child.holdCallsOn(audit);
    audit.together(() => {
      void child.send(call(1));
      audit.record({ session: 's', server: 'x', tool: 'echo', kind: 'all', decision: 'allow', by: 'rule', rule: null, reason: 'r', paths: [], command: null, argsDigest: 'd' as Digest, args: { id: 1 }, waitMs: 0 });
    });
    expect(readFileSync(auditPath, 'utf8')).toContain('"tool":"echo"');
    // The turn does not end while this waits (no microtask runs): the child gets the line only if
    // together() wrote it (docs/performance.md, "Round 17: the warm path").
    const line = `${JSON.stringify(call(1))}\n`;
    for (let waited = 0; waited < 10_000 && received(file) !== line; waited += 50) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    expect(received(file)).toBe(line);
    await audit.close();
  });

  test("inside together(), a call whose record's write failed is withheld all the same", async () => {
    const file = join(tempDir(), 'stdin.txt');
    const child = await recordingChild(file);
    const writers: Array<() => void> = [];
    const records = { failures: 0, lastFailure: null as string | null, afterRecords: (write: () => void) => writers.push(write) > 0 };
    child.holdCallsOn(records);
    const answers: JSONRPCMessage[] = [];
    child.onmessage = (message) => answers.push(message);
    void child.send(call(1));
    expect(writers).toHaveLength(1);
    records.failures += 1;
    records.lastFailure = 'audit log /x/a.jsonl: EIO: i/o error, write';
    writers[0]!();
    expect(answers.map((answer) => (answer as { id: number }).id)).toEqual([1]);
    void child.send(call(2));
    writers[1]!();
    await eventually(() => expect(received(file)).toBe(`${JSON.stringify(call(2))}\n`));
  });

  test('calls queued before a write of audit records failed are answered with the error, not written; the other messages are written', async () => {
    const file = join(tempDir(), 'stdin.txt');
    const child = await recordingChild(file);
    const records: { failures: number; lastFailure: string | null } = { failures: 3, lastFailure: null };
    child.holdCallsOn(records);
    const answers: JSONRPCMessage[] = [];
    child.onmessage = (message) => answers.push(message);
    const note: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'x' } };
    void child.send(call(1));
    void child.send(note);
    void child.send(call(2));
    // The records of these calls are written after they were sent (Audit.together()), and that write fails.
    records.failures += 1;
    records.lastFailure = 'audit log /x/a.jsonl: EIO: i/o error, write';
    await eventually(() => expect(received(file)).toBe(`${JSON.stringify(note)}\n`));
    expect(answers).toEqual([1, 2].map((id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'mcp-latch: the audit record of this call could not be written (audit log /x/a.jsonl: EIO: i/o error, write); the call was not forwarded', data: KEPT_BACK } })));
    // The gateway's own answer, told from any server's by its data's identity (errors.ts KEPT_BACK).
    for (const answer of answers as Array<{ error: { data: unknown } }>) expect(answer.error.data).toBe(KEPT_BACK);
    // A failure before a call was queued is not this call's: it is written.
    void child.send(call(3));
    await eventually(() => expect(received(file)).toBe(`${JSON.stringify(note)}\n${JSON.stringify(call(3))}\n`));
    expect(answers).toHaveLength(2);
  });
});

/** Blocks this thread (no event, no microtask runs) until `file` exists. */
function blockUntilExists(file: string): void {
  for (let waited = 0; waited < 10_000 && !existsSync(file); waited += 20) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  expect(existsSync(file)).toBe(true);
}

describe('a server that closes its stdin and runs on', () => {
  /** A child that closes its stdin (the descriptor), then writes `marker`, and runs on. */
  async function closingChild(marker: string): Promise<ChildTransport> {
    transport = new ChildTransport({ command: process.execPath, args: ['-e', `const fs = require('fs'); fs.closeSync(0); fs.writeFileSync(${JSON.stringify(marker)}, 'closed'); setInterval(() => {}, 1000)`], env: {}, maxMessageBytes: 1 << 20 });
    await transport.start();
    return transport;
  }

  test('its close is seen without a write: it is stopped for it, and what is sent then is refused as not written', async () => {
    const marker = join(tempDir(), 'closed');
    const child = await closingChild(marker);
    let closed = false;
    child.onclose = () => (closed = true);
    const pid = child.pid!;
    // Nothing is written to it: only its end of the pipe tells.
    await eventually(() => expect(closed).toBe(true), 20_000);
    expect(child.stoppedFor).toBe('stdin');
    expect(isAlive(pid)).toBe(false);
    await expect(child.send(call(1))).rejects.toThrow(/ closed its stdin \(it reads nothing more\): the call was not written to it/);
  });

  test('calls written after it closed meet its closed end (EPIPE): each is answered as not written, with NOT_WRITTEN', async () => {
    const marker = join(tempDir(), 'closed');
    const child = await closingChild(marker);
    const answers: JSONRPCMessage[] = [];
    child.onmessage = (message) => answers.push(message);
    // No event is handled until the send's write (a microtask): the write itself meets the closed end.
    blockUntilExists(marker);
    const note: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'x' } };
    void child.send(call(1));
    void child.send(note);
    void child.send(call(2));
    await Promise.resolve();
    expect(answers.map((answer) => (answer as { id: number }).id)).toEqual([1, 2]);
    for (const answer of answers as Array<{ error: { code: number; message: string; data: unknown } }>) {
      expect(answer.error.data).toBe(NOT_WRITTEN);
      expect(answer.error.message).toMatch(/^the server process \(.*\) closed its stdin \(it reads nothing more\): the call was not written to it; the server is stopped and started again$/);
    }
    await eventually(() => expect(child.stoppedFor).toBe('stdin'), 20_000);
  });

  test('a server that exits is not said to have closed a pipe', async () => {
    transport = new ChildTransport({ command: process.execPath, args: ['-e', 'process.exit(3)'], env: {}, maxMessageBytes: 1 << 20 });
    let closed = false;
    transport.onclose = () => (closed = true);
    await transport.start();
    await eventually(() => expect(closed).toBe(true));
    expect(transport.stoppedFor).toBe(null);
  });
});
