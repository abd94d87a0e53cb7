import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ChildTransport } from '../../src/downstream/child-transport.js';
import { StdioUpstream } from '../../src/gateway/stdio-upstream.js';
import { ANSWERING, UpstreamCalls, type IncomingCall } from '../../src/gateway/upstream-calls.js';
import { eventually } from '../helpers/gateway.js';

/**
 * What a read leads to runs as the read's handling returns, not a microtask later (src/read-end.ts;
 * docs/performance.md, "Round 18: the warm path"): the replies made while a server's answers are
 * read are written to the client, and the calls of a client's read are handed over, before any
 * microtask of the turn runs. The order the microtask gave is kept: calls read after a message the
 * SDK Server handles wait for its handler, the calls of one read stay one batch, and what is sent
 * to the client leaves in the order it was sent.
 */

/** An output stream that keeps each write, in order (it is not a pipe: StdioUpstream writes through the stream, synchronously). */
function recordingOutput(): { output: Writable; writes: string[] } {
  const writes: string[] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  return { output, writes };
}

let child: ChildTransport | null = null;
const upstreams: StdioUpstream[] = [];
afterEach(async () => {
  await child?.close();
  child = null;
  for (const upstream of upstreams.splice(0)) await upstream.close();
});

function upstream(): { transport: StdioUpstream; input: PassThrough; writes: string[] } {
  const input = new PassThrough();
  const { output, writes } = recordingOutput();
  const transport = new StdioUpstream(1 << 20, input, output);
  upstreams.push(transport);
  return { transport, input, writes };
}

describe("a server's read", () => {
  test('the replies sent while it is handled are written to the client as it returns, before a microtask queued ahead of them, in the order sent', async () => {
    const { transport: client, writes } = upstream();
    await client.start();
    // A server that writes three lines in one write: one read here.
    const lines = [1, 2, 3].map((n) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: n } }));
    child = new ChildTransport({ command: process.execPath, args: ['-e', `process.stdout.write(${JSON.stringify(`${lines.join('\n')}\n`)}); setTimeout(() => {}, 60000)`], env: {}, maxMessageBytes: 1 << 20 });
    const seenByMicrotask: number[] = [];
    let handled = 0;
    child.onmessage = (message) => {
      handled += 1;
      // Queued before the reply: the reply's microtask would have run after it, and it would have seen no write yet.
      if (handled === 1) queueMicrotask(() => seenByMicrotask.push(writes.length));
      void client.sendLine(`${JSON.stringify({ relayed: (message as unknown as { params: { data: number } }).params.data })}\n`);
    };
    await child.start();
    await eventually(() => expect(handled).toBe(3));
    // One write, at the read's end, with the three replies in order.
    expect(seenByMicrotask).toEqual([1]);
    expect(writes).toEqual(['{"relayed":1}\n{"relayed":2}\n{"relayed":3}\n']);
  });

  test('outside a read, what is sent is written a microtask later, with the rest of the turn', async () => {
    const { transport: client, writes } = upstream();
    await client.start();
    void client.sendLine('{"a":1}\n');
    void client.sendLine('{"a":2}\n');
    expect(writes).toEqual([]);
    await Promise.resolve();
    expect(writes).toEqual(['{"a":1}\n{"a":2}\n']);
  });
});

describe("a request's progress and its answer", () => {
  const progress = (token: number, n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: token, progress: n } });

  const turnEnd = () => new Promise((resolve) => setImmediate(resolve));

  test('a progress notification of a request answered in the same turn is not written: the answer supersedes it (typescript-sdk#2580)', async () => {
    const { transport: client, writes } = upstream();
    await client.start();
    void client.send(progress(7, 1), { relatedRequestId: 7 });
    void client.send(progress(8, 1), { relatedRequestId: 8 });
    void client.sendLine('{"jsonrpc":"2.0","id":7,"result":{}}\n', 7);
    await Promise.resolve();
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":7,"result":{}}\n']);
    // Request 8 still runs: its update is written when the turn ends.
    await turnEnd();
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":7,"result":{}}\n', JSON.stringify(progress(8, 1)) + '\n']);
    // An answer sent as a message (not a line) supersedes its request's update the same way.
    void client.send(progress(8, 2), { relatedRequestId: 8 });
    void client.send({ jsonrpc: '2.0', id: 8, error: { code: -32000, message: 'failed' } });
    await turnEnd();
    expect(writes.slice(2)).toEqual(['{"jsonrpc":"2.0","id":8,"error":{"code":-32000,"message":"failed"}}\n']);
  });

  test('an answer a few microtasks after its update (passed on through a promise) supersedes it too (round 31 review, P31-1)', async () => {
    const { transport: client, writes } = upstream();
    await client.start();
    void client.send(progress(10, 1), { relatedRequestId: 10 });
    // Until round 31 the update was written here, alone, right before its answer.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    void client.sendLine('{"jsonrpc":"2.0","id":10,"result":{}}\n', 10);
    await turnEnd();
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":10,"result":{}}\n']);
  });

  test('an update written in an earlier turn than its answer stays, before it', async () => {
    const { transport: client, writes } = upstream();
    await client.start();
    void client.send(progress(9, 1), { relatedRequestId: 9 });
    await turnEnd();
    void client.sendLine('{"jsonrpc":"2.0","id":9,"result":{}}\n', 9);
    await Promise.resolve();
    expect(writes).toEqual([JSON.stringify(progress(9, 1)) + '\n', '{"jsonrpc":"2.0","id":9,"result":{}}\n']);
  });
});

describe("a client's read", () => {
  async function gateway(): Promise<{ input: PassThrough; events: string[]; writes: string[] }> {
    const { transport, input, writes } = upstream();
    const events: string[] = [];
    const server = new Server({ name: 'read-end-test', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      events.push('roots changed');
    });
    await server.connect(transport);
    new UpstreamCalls(server, (calls: IncomingCall[]) => {
      events.push(`calls ${calls.map((call) => String(call.id)).join(',')}`);
      return calls.map((call) => {
        call.answer({ content: [{ type: 'text', text: `answer ${String(call.id)}` }] } as CallToolResult);
        return ANSWERING;
      });
    }).attach(transport);
    return { input, events, writes };
  }
  const call = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { id } } });

  test('its calls are handed over as one batch as it returns, and their answers written then', async () => {
    const { input, events, writes } = await gateway();
    input.emit('data', Buffer.from(`${call(1)}\n${call(2)}\n`));
    // Nothing has waited for a microtask yet.
    expect(events).toEqual(['calls 1,2']);
    expect(writes).toEqual([`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"answer 1"}]}}\n{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"answer 2"}]}}\n`]);
  });

  test("calls read after a message the SDK Server handles are handed over after that message's handler, as before", async () => {
    const { input, events } = await gateway();
    input.emit('data', Buffer.from(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}\n${call(3)}\n`));
    expect(events).toEqual([]);
    await eventually(() => expect(events).toEqual(['roots changed', 'calls 3']));
    // And a later read whose calls come first goes at its end again.
    input.emit('data', Buffer.from(`${call(4)}\n`));
    expect(events).toEqual(['roots changed', 'calls 3', 'calls 4']);
  });
});
