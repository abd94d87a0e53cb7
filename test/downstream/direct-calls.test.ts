import { afterEach, describe, expect, test, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
  type Progress,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { fromSignal } from '../helpers/cancel.js';
import { Cancellation } from '../../src/cancellation.js';
import { ConnectionLost, DirectCalls, ServerReplyError } from '../../src/downstream/direct-calls.js';
import { QUEUED, serializeMessage } from '../../src/downstream/lines.js';

/**
 * tools/call written straight to the transport beside a connected SDK Client, against a real SDK
 * Server on an in-memory pair. The Server's view is the check that matters: what request and id
 * arrived, and whether a notifications/cancelled followed. The Client must not notice the direct
 * calls at all: any response or progress leaking to it would show up as a Client error.
 */
type ServerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type OnCall = (request: CallToolRequest, extra: ServerExtra) => Promise<CallToolResult>;

interface Peer {
  client: Client;
  server: Server;
  direct: DirectCalls;
  calls: Array<{ request: CallToolRequest; extra: ServerExtra }>;
  /** Every message that reached the server side after the handshake, in order. */
  atServer: JSONRPCMessage[];
  /** Errors the Client's Protocol reported (an unknown response id or progress token would land here). */
  clientErrors: Error[];
}

const peers: Peer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) {
    peer.direct.closeAll();
    await peer.client.close();
    await peer.server.close();
  }
});

async function connect(onCall: OnCall): Promise<Peer> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = new Server({ name: 'direct-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  const calls: Peer['calls'] = [];
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    calls.push({ request, extra });
    return onCall(request, extra);
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'listed', inputSchema: { type: 'object' as const } }] }));
  await server.connect(serverTransport);
  const client = new Client({ name: 'direct-test-client', version: '1.0.0' });
  const clientErrors: Error[] = [];
  client.onerror = (error) => clientErrors.push(error);
  await client.connect(clientTransport);
  const atServer: JSONRPCMessage[] = [];
  const toServer = serverTransport.onmessage;
  serverTransport.onmessage = (message, extra) => {
    atServer.push(message);
    toServer?.(message, extra);
  };
  const peer: Peer = { client, server, direct: new DirectCalls(clientTransport), calls, atServer, clientErrors };
  peers.push(peer);
  return peer;
}

const textResult = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

function gate<T>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((done) => (open = done));
  return { promise, open };
}

/** Resolves when the server's signal for the call aborts, with the abort reason. */
const aborted = (signal: AbortSignal) => new Promise<unknown>((done) => signal.addEventListener('abort', () => done(signal.reason), { once: true }));

function cancellations(peer: Peer): unknown[] {
  return peer.atServer.filter((message) => 'method' in message && message.method === 'notifications/cancelled').map((message) => (message as { params?: unknown }).params);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

const waitOptions = { timeout: 500, interval: 5 };

describe('results', () => {
  test("the server's result object comes back as it was sent", async () => {
    const sent: CallToolResult = { content: [{ type: 'text', text: 'ok' }], structuredContent: { n: 1 }, isError: false, _meta: { server: 'meta' } };
    const peer = await connect(async () => sent);
    const result = await peer.direct.call({ name: 'echo', arguments: { text: 'hi' } }, { timeout: 1000 });
    expect(result).toEqual(sent);
    expect(peer.clientErrors).toEqual([]);
  });

  test('a call whose client asked for progress carries name, arguments and _meta, with the request id as the progress token', async () => {
    const peer = await connect(async () => textResult('ok'));
    const params = { name: 'echo', arguments: { text: 'hi' }, _meta: { trace: 'abc' } };
    await peer.direct.call(params, { timeout: 1000, onprogress: () => undefined });
    const [{ request, extra }] = peer.calls as [Peer['calls'][number]];
    expect(typeof extra.requestId).toBe('number');
    expect(extra.requestId as number).toBeGreaterThanOrEqual(1_000_000_000);
    expect(request.params).toEqual({ name: 'echo', arguments: { text: 'hi' }, _meta: { trace: 'abc', progressToken: extra.requestId } });
    // The caller's object is not written to.
    expect(params._meta).toEqual({ trace: 'abc' });
  });

  // Round 27 (docs/config.md, `timeouts.callSeconds`): the server sees a token only when the client
  // asked for progress, as it would talking to the client directly. Before, every call carried one.
  test('a call whose client asked for no progress carries no progress token, its own _meta unchanged', async () => {
    const peer = await connect(async () => textResult('ok'));
    await peer.direct.call({ name: 'echo', arguments: { text: 'hi' }, _meta: { trace: 'abc' } }, { timeout: 1000 });
    await peer.direct.call({ name: 'echo', arguments: { text: 'bare' } }, { timeout: 1000 });
    const [first, second] = peer.calls as [Peer['calls'][number], Peer['calls'][number]];
    expect(first.request.params).toEqual({ name: 'echo', arguments: { text: 'hi' }, _meta: { trace: 'abc' } });
    expect(second.request.params).toEqual({ name: 'echo', arguments: { text: 'bare' } });
    expect(second.extra._meta).toBeUndefined();
  });

  test("the line made from the arguments' text carries the token only for a client that asked for progress", () => {
    const lines: string[] = [];
    const transport = { start: async () => undefined, close: async () => undefined, send: () => QUEUED, sendLine: (line: string) => (lines.push(line), QUEUED) };
    const direct = new DirectCalls(transport);
    const settle = { resolve: () => undefined, reject: () => undefined };
    direct.send({ name: 'echo', arguments: { text: 'hi' } }, { timeout: 1000 }, settle, '{"text":"hi"}');
    direct.send({ name: 'echo', arguments: { text: 'hi' } }, { timeout: 1000, onprogress: () => undefined }, settle, '{"text":"hi"}');
    const [first, second] = lines.map((line) => JSON.parse(line) as { id: number; params: Record<string, unknown> });
    expect(lines[0]).toBe(`{"jsonrpc":"2.0","id":${first!.id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}\n`);
    expect(lines[1]).toBe(`{"jsonrpc":"2.0","id":${second!.id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":${second!.id}}}}\n`);
    direct.closeAll();
  });

  test('the params are copied with every key in its place, _meta where the caller had it, and an own __proto__ key stays an own key', () => {
    const written: JSONRPCMessage[] = [];
    const transport = { start: async () => undefined, close: async () => undefined, send: (message: JSONRPCMessage) => (written.push(message), QUEUED) };
    const direct = new DirectCalls(transport);
    const settle = { resolve: () => undefined, reject: () => undefined };
    const progress = { timeout: 1000, onprogress: () => undefined };
    direct.send({ name: 'echo', _meta: { trace: 'abc' }, arguments: { text: 'hi' } }, progress, settle);
    direct.send(JSON.parse('{"name":"echo","__proto__":{"polluted":true},"arguments":{}}') as Record<string, unknown>, progress, settle);
    const [first, second] = written.map((message) => (message as { id: number; params: Record<string, unknown> }));
    expect(JSON.stringify(first!.params)).toBe(`{"name":"echo","_meta":{"trace":"abc","progressToken":${first!.id}},"arguments":{"text":"hi"}}`);
    expect(Object.getPrototypeOf(second!.params)).toBe(Object.prototype);
    expect(JSON.stringify(second!.params)).toBe(`{"name":"echo","__proto__":{"polluted":true},"arguments":{},"_meta":{"progressToken":${second!.id}}}`);
  });

  test("direct calls in flight and the Client's own requests do not get in each other's way", async () => {
    const release = gate<void>();
    const peer = await connect(async (request) => {
      if (request.params.name === 'held') await release.promise;
      return textResult(`${request.params.name} ${String(request.params.arguments?.n)}`);
    });
    const held = [1, 2, 3].map((n) => peer.direct.call({ name: 'held', arguments: { n } }, { timeout: 1000 }));
    await vi.waitFor(() => expect(peer.calls).toHaveLength(3), waitOptions);
    // The Client's requests are answered while the direct calls wait.
    expect((await peer.client.listTools()).tools.map((tool) => tool.name)).toEqual(['listed']);
    await expect(peer.client.ping()).resolves.toEqual({});
    const own = await peer.client.callTool({ name: 'own', arguments: { n: 0 } });
    expect(own.content).toEqual([{ type: 'text', text: 'own 0' }]);
    // A direct call answered while others are still held.
    await expect(peer.direct.call({ name: 'quick', arguments: { n: 4 } }, { timeout: 1000 })).resolves.toEqual(textResult('quick 4'));
    release.open();
    expect(await Promise.all(held)).toEqual([textResult('held 1'), textResult('held 2'), textResult('held 3')]);
    await expect(peer.client.ping()).resolves.toEqual({});

    const ids = peer.calls.map((call) => call.extra.requestId as number);
    const direct = peer.calls.filter((call) => call.request.params.name !== 'own').map((call) => call.extra.requestId as number);
    const ownId = peer.calls.find((call) => call.request.params.name === 'own')?.extra.requestId as number;
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of direct) expect(id).toBeGreaterThanOrEqual(1_000_000_000);
    expect(ownId).toBeLessThan(1_000_000_000);
    expect(peer.clientErrors).toEqual([]);
  });
});

describe('errors', () => {
  test("a JSON-RPC error from the server rejects as the server's own error: its code, message and data unchanged", async () => {
    const peer = await connect(async () => {
      throw new McpError(ErrorCode.InvalidParams, 'bad argument', { field: 'path' });
    });
    const error = await rejection(peer.direct.call({ name: 'x' }, { timeout: 1000 }));
    expect(error).toBeInstanceOf(ServerReplyError);
    // The server's SDK put one prefix in its message; none is added here.
    expect((error as Error).message).toBe('MCP error -32602: bad argument');
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, data: { field: 'path' } });
    expect((error as McpError).message).toContain('bad argument');
    expect(peer.clientErrors).toEqual([]);
  });

  test('a call whose write throws is settled once, with that error, and is no longer waiting', () => {
    // Without a promise in between (the hot path), a second settle would be a second answer to the client.
    const transport = {
      send: () => {
        throw new Error('pipe broke');
      },
    } as unknown as InMemoryTransport;
    const direct = new DirectCalls(transport);
    const settled: unknown[] = [];
    direct.send({ name: 'x' }, { timeout: 1000 }, { resolve: (result) => settled.push(['resolve', result]), reject: (error) => settled.push(['reject', (error as Error).message]) });
    direct.closeAll();
    expect(settled).toEqual([['reject', 'pipe broke']]);
  });

  test('a plain Error at the server arrives as -32603', async () => {
    const peer = await connect(async () => {
      throw new Error('crashed');
    });
    const error = await rejection(peer.direct.call({ name: 'x' }, { timeout: 1000 }));
    expect(error).toBeInstanceOf(ServerReplyError);
    expect(error).toMatchObject({ code: ErrorCode.InternalError });
    expect((error as McpError).message).toContain('crashed');
  });
});

describe('progress', () => {
  test('progress with the call token reaches onprogress without the token', async () => {
    const peer = await connect(async (_request, extra) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken === undefined) throw new Error('no progress token');
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2, message: 'one' } });
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 2, total: 2 } });
      return textResult('done');
    });
    const updates: Progress[] = [];
    await expect(peer.direct.call({ name: 'x' }, { timeout: 1000, onprogress: (update) => updates.push(update) })).resolves.toEqual(textResult('done'));
    expect(updates).toEqual([
      { progress: 1, total: 2, message: 'one' },
      { progress: 2, total: 2 },
    ]);
    // Taken before the Client: it would have reported a progress notification for an unknown token.
    expect(peer.clientErrors).toEqual([]);
  });

  test('progress for one call goes to that call only', async () => {
    const peer = await connect(async (request, extra) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken === undefined) throw new Error('no progress token');
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1, message: request.params.name } });
      return textResult(request.params.name);
    });
    const a: Progress[] = [];
    const b: Progress[] = [];
    await Promise.all([
      peer.direct.call({ name: 'a' }, { timeout: 1000, onprogress: (update) => a.push(update) }),
      peer.direct.call({ name: 'b' }, { timeout: 1000, onprogress: (update) => b.push(update) }),
    ]);
    expect(a).toEqual([{ progress: 1, message: 'a' }]);
    expect(b).toEqual([{ progress: 1, message: 'b' }]);
  });

  test('progress restarts the timeout: a call that reports while it works outlives it', async () => {
    const peer = await connect(async (_request, extra) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken === undefined) throw new Error('no progress token');
      for (let step = 1; step <= 6; step += 1) {
        await new Promise((done) => setTimeout(done, 250));
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: step } });
      }
      return textResult('slow but alive');
    });
    let updates = 0;
    // Six steps of at least 250 ms run past the 1 s timeout: only the restarts keep the call alive
    // (a step may run 750 ms late on a loaded machine before the test breaks).
    await expect(peer.direct.call({ name: 'x' }, { timeout: 1000, onprogress: () => (updates += 1) })).resolves.toEqual(textResult('slow but alive'));
    expect(updates).toBe(6);
  });
});

describe('progress of a call its client asked no progress for', () => {
  // Round 27 (docs/config.md, `timeouts.callSeconds`): before, every call carried a token and a
  // server's progress kept any call alive; now only a call whose client waits for progress is.
  test("a server's progress under the call's id does not restart its timeout, and reaches neither onprogress nor the Client", async () => {
    const peer = await connect(async (_request, extra) => {
      // Eight steps of at least 50 ms: past the 200 ms timeout unless progress restarted it.
      for (let step = 1; step <= 8; step += 1) {
        await new Promise((done) => setTimeout(done, 50));
        // The token the call would have carried: its own id.
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: extra.requestId, progress: step } });
      }
      return textResult('kept alive');
    });
    const error = await rejection(peer.direct.call({ name: 'x' }, { timeout: 200 }));
    expect(error).toMatchObject({ code: ErrorCode.RequestTimeout, data: { timeout: 200 } });
    expect(peer.clientErrors).toEqual([]);
  });
});

describe('timeout, abort and close', () => {
  test('no answer within the timeout: -32001, and the server is told to cancel', async () => {
    const peer = await connect(async (_request, extra) => {
      await aborted(extra.signal);
      return textResult('never sent');
    });
    const error = await rejection(peer.direct.call({ name: 'x' }, { timeout: 50 }));
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: ErrorCode.RequestTimeout, data: { timeout: 50 } });
    const [{ extra }] = peer.calls as [Peer['calls'][number]];
    expect(cancellations(peer)).toEqual([{ requestId: extra.requestId, reason: 'timeout' }]);
    await vi.waitFor(() => expect(extra.signal.aborted).toBe(true), waitOptions);
    expect(extra.signal.reason).toBe('timeout');
  });

  // A wall clock set back (NTP, a suspended laptop, a person) must not lengthen a call's timeout:
  // with Date.now() the timer, firing on time, found the deadline an hour ahead and waited again.
  test('the timeout holds when the wall clock is set back an hour while the call waits', async () => {
    const peer = await connect(async (_request, extra) => {
      await aborted(extra.signal);
      return textResult('never sent');
    });
    const pending = peer.direct.call({ name: 'x' }, { timeout: 200 });
    await vi.waitFor(() => expect(peer.calls).toHaveLength(1), waitOptions);
    const realNow = Date.now.bind(Date);
    const setBack = vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 3600_000);
    try {
      expect(await rejection(pending)).toMatchObject({ code: ErrorCode.RequestTimeout, data: { timeout: 200 } });
    } finally {
      setBack.mockRestore();
    }
  });

  // A fractional delay (the deadline less performance.now()) made the process's first such timer,
  // in a fresh gateway's first call, turn Node's Timeout objects' delay field into a double: a new
  // shape for every timer and the code made for the old one dropped (docs/performance.md, "Round
  // 28: the start and the first calls"). Rounded up, the timer never fires before the deadline.
  test("the timeout's timer is set in whole milliseconds, not before the deadline", async () => {
    const peer = await connect(async (_request, extra) => {
      await aborted(extra.signal);
      return textResult('never sent');
    });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      const before = performance.now();
      const pending = peer.direct.call({ name: 'x' }, { timeout: 40.5 });
      const delays = timers.mock.calls.map(([, delay]) => delay);
      timers.mockRestore();
      expect(delays).toHaveLength(1);
      expect(Number.isInteger(delays[0])).toBe(true);
      expect(delays[0]).toBeGreaterThanOrEqual(40.5 - (performance.now() - before));
      expect(await rejection(pending)).toMatchObject({ code: ErrorCode.RequestTimeout, data: { timeout: 40.5 } });
      expect(performance.now() - before).toBeGreaterThanOrEqual(40.5);
    } finally {
      timers.mockRestore();
    }
  });

  test('an abort rejects with the signal reason, and the server is told to cancel', async () => {
    const peer = await connect(async (_request, extra) => {
      await aborted(extra.signal);
      return textResult('never sent');
    });
    const controller = new AbortController();
    const pending = peer.direct.call({ name: 'x' }, { timeout: 1000, cancel: fromSignal(controller.signal) });
    await vi.waitFor(() => expect(peer.calls).toHaveLength(1), waitOptions);
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);
    const [{ extra }] = peer.calls as [Peer['calls'][number]];
    expect(cancellations(peer)).toEqual([{ requestId: extra.requestId, reason: 'Error: user pressed stop' }]);
    await vi.waitFor(() => expect(extra.signal.aborted).toBe(true), waitOptions);
    expect(extra.signal.reason).toBe('Error: user pressed stop');
  });

  test('an abort after the answer changes nothing and sends no cancel', async () => {
    const peer = await connect(async () => textResult('done'));
    const controller = new AbortController();
    await expect(peer.direct.call({ name: 'x' }, { timeout: 1000, cancel: fromSignal(controller.signal) })).resolves.toEqual(textResult('done'));
    controller.abort('late');
    expect(cancellations(peer)).toEqual([]);
  });

  test('an answer cancels the timer: a fast call does not time out later', async () => {
    const peer = await connect(async () => textResult('fast'));
    await expect(peer.direct.call({ name: 'x' }, { timeout: 30 })).resolves.toEqual(textResult('fast'));
    await new Promise((done) => setTimeout(done, 60));
    expect(cancellations(peer)).toEqual([]);
  });

  test('closeAll rejects every waiting call with ConnectionLost (the call may have run)', async () => {
    const peer = await connect(() => new Promise<CallToolResult>(() => undefined));
    const pending = [peer.direct.call({ name: 'a' }, { timeout: 1000 }), peer.direct.call({ name: 'b' }, { timeout: 1000 })];
    await vi.waitFor(() => expect(peer.calls).toHaveLength(2), waitOptions);
    peer.direct.closeAll();
    for (const call of pending) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(ConnectionLost);
    }
  });

  test('a call with an already-aborted signal rejects without sending anything', async () => {
    const peer = await connect(async () => textResult('should not run'));
    const reason = new Error('already stopped');
    const error = await rejection(peer.direct.call({ name: 'x' }, { timeout: 1000, cancel: fromSignal(AbortSignal.abort(reason)) }));
    expect(error).toBe(reason);
    await new Promise((done) => setImmediate(done));
    expect(peer.atServer).toEqual([]);
    expect(peer.calls).toHaveLength(0);
  });

  test('a server that sends our id and progress token back as strings is still matched, as the SDK Client would', async () => {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    await ours.start();
    await theirs.start();
    // A raw peer, not the SDK: it answers with the id (and reports progress with the token) as strings.
    theirs.onmessage = (message) => {
      const request = message as { id: number; params: { _meta: { progressToken: number } } };
      void theirs.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: String(request.params._meta.progressToken), progress: 1 } } as JSONRPCMessage);
      void theirs.send({ jsonrpc: '2.0', id: String(request.id), result: textResult('stringly') } as unknown as JSONRPCMessage);
    };
    const seen: unknown[] = [];
    ours.onmessage = (message) => seen.push(message);
    const direct = new DirectCalls(ours);
    const updates: Progress[] = [];
    await expect(direct.call({ name: 'x' }, { timeout: 1000, onprogress: (progress) => updates.push(progress) })).resolves.toEqual(textResult('stringly'));
    expect(updates).toEqual([{ progress: 1 }]);
    // Neither reached the transport's own handler (the SDK Client's, in the gateway).
    expect(seen).toEqual([]);
    await ours.close();
  });

  test('a late answer or progress for a call that timed out is dropped, not handed to the Client', async () => {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    await ours.start();
    await theirs.start();
    // A raw peer that ignores the cancel and answers anyway, late.
    theirs.onmessage = (message) => {
      const request = message as { id?: number; method: string; params: { _meta?: { progressToken: number } } };
      if (request.method !== 'tools/call') return;
      setTimeout(() => {
        void theirs.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: request.params._meta!.progressToken, progress: 1 } } as JSONRPCMessage);
        void theirs.send({ jsonrpc: '2.0', id: request.id!, result: textResult('too late') } as JSONRPCMessage);
      }, 60);
    };
    const seen: unknown[] = [];
    ours.onmessage = (message) => seen.push(message);
    const direct = new DirectCalls(ours);
    const error = await rejection(direct.call({ name: 'x' }, { timeout: 20, onprogress: () => undefined }));
    expect(error).toMatchObject({ code: ErrorCode.RequestTimeout });
    await new Promise((done) => setTimeout(done, 120));
    expect(seen).toEqual([]);
    // A message that is not ours still reaches the Client.
    await theirs.send({ jsonrpc: '2.0', id: 5, result: {} } as JSONRPCMessage);
    expect(seen).toEqual([{ jsonrpc: '2.0', id: 5, result: {} }]);
    await ours.close();
  });
});

describe('an answer handler that throws', () => {
  // A CallSettle must not throw; if one does, the loop it runs in goes on, and the error is reported.
  function raw(): { transport: InMemoryTransport; sent: number[] } {
    const sent: number[] = [];
    const transport = { send: (message: { id: number }) => (sent.push(message.id), QUEUED) } as unknown as InMemoryTransport;
    return { transport, sent };
  }

  test('the other answers of the same read still arrive', () => {
    const { transport, sent } = raw();
    const reported: string[] = [];
    const direct = new DirectCalls(transport, (error) => reported.push((error as Error).message));
    const got: unknown[] = [];
    direct.send({ name: 'a' }, { timeout: 60_000 }, { resolve: () => { throw new Error('boom'); }, reject: () => undefined });
    direct.send({ name: 'b' }, { timeout: 60_000 }, { resolve: (result) => got.push(result), reject: () => undefined });
    transport.onmessage!({ jsonrpc: '2.0', id: sent[0]!, result: { a: 1 } } as JSONRPCMessage);
    transport.onmessage!({ jsonrpc: '2.0', id: sent[1]!, result: { b: 1 } } as JSONRPCMessage);
    expect(reported).toEqual(['boom']);
    expect(got).toEqual([{ b: 1 }]);
  });

  test('a timeout sweep and a close go on past it', async () => {
    const reported: string[] = [];
    const direct = new DirectCalls(raw().transport, (error) => reported.push((error as Error).message));
    const timedOut: string[] = [];
    direct.send({ name: 'x' }, { timeout: 1 }, { resolve: () => undefined, reject: () => { throw new Error('boom'); } });
    direct.send({ name: 'y' }, { timeout: 1 }, { resolve: () => undefined, reject: () => timedOut.push('y') });
    await vi.waitFor(() => expect(timedOut).toEqual(['y']));
    expect(reported).toEqual(['boom']);
    const closed: unknown[] = [];
    direct.send({ name: 'z' }, { timeout: 60_000 }, { resolve: () => undefined, reject: () => { throw new Error('boom again'); } });
    direct.send({ name: 'w' }, { timeout: 60_000 }, { resolve: () => undefined, reject: (error) => closed.push(error) });
    direct.closeAll();
    expect(reported).toEqual(['boom', 'boom again']);
    expect(closed).toHaveLength(1);
    expect(closed[0]).toBeInstanceOf(ConnectionLost);
  });
});

test("a server's log line read before its answer is handled before the answer is passed on (the order on the wire)", async () => {
  // The SDK Client handles a notification a microtask after it arrives; the team gateway routes a
  // log line to the session whose call is running, so the call must still be running then.
  const order: string[] = [];
  const sent: number[] = [];
  const transport = {
    send: (message: { id: number }) => (sent.push(message.id), QUEUED),
    onmessage: () => void Promise.resolve().then(() => order.push('log handled')),
  } as unknown as InMemoryTransport;
  const direct = new DirectCalls(transport);
  direct.send({ name: 'x' }, { timeout: 60_000 }, { resolve: () => order.push('answer passed on'), reject: () => undefined });
  transport.onmessage!({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'done' } } as JSONRPCMessage);
  transport.onmessage!({ jsonrpc: '2.0', id: sent[0]!, result: {} } as JSONRPCMessage);
  await vi.waitFor(() => expect(order).toHaveLength(2));
  expect(order).toEqual(['log handled', 'answer passed on']);
});

describe("a server's line taken before it is parsed (answer-scan.ts)", () => {
  /** A transport that offers its lines to `takeLine` first, as ChildTransport does. */
  function lined() {
    const sent: number[] = [];
    const atClient: unknown[] = [];
    const transport = {
      takeLine: undefined as ((line: string) => boolean) | undefined,
      send: (message: { id: number }) => (sent.push(message.id), QUEUED),
      onmessage: (message: unknown) => atClient.push(message),
    };
    const direct = new DirectCalls(transport as unknown as InMemoryTransport);
    /** What ChildTransport does with a line: offered to takeLine, else parsed. */
    const read = (line: string) => {
      if (!transport.takeLine?.(line)) transport.onmessage!(JSON.parse(line) as JSONRPCMessage);
    };
    return { direct, sent, atClient, read, transport };
  }

  test('an answer written as the full path would write it reaches resolveText as its result text; the Client never sees it', () => {
    const { direct, sent, atClient, read } = lined();
    const texts: string[] = [];
    const values: unknown[] = [];
    direct.send({ name: 'a' }, { timeout: 60_000 }, { resolve: (value) => values.push(value), reject: () => undefined, resolveText: (text) => texts.push(text) });
    read(`{"result":{"content":[{"type":"text","text":"Echo: a"}]},"jsonrpc":"2.0","id":${sent[0]}}`);
    expect(texts).toEqual(['{"content":[{"type":"text","text":"Echo: a"}]}']);
    expect(values).toEqual([]);
    expect(atClient).toEqual([]);
  });

  test('without resolveText, the text is parsed and resolved', () => {
    const { direct, sent, read } = lined();
    const values: unknown[] = [];
    direct.send({ name: 'a' }, { timeout: 60_000 }, { resolve: (value) => values.push(value), reject: () => undefined });
    read(`{"jsonrpc":"2.0","id":${sent[0]},"result":{"content":[],"isError":true}}`);
    expect(values).toEqual([{ content: [], isError: true }]);
  });

  test('an answer the scanner refuses is parsed and resolved as before, never as text', () => {
    const { direct, sent, read } = lined();
    const texts: string[] = [];
    const values: unknown[] = [];
    const settle = { resolve: (value: unknown) => values.push(value), reject: () => undefined, resolveText: (text: string) => texts.push(text) };
    direct.send({ name: 'a' }, { timeout: 60_000 }, settle);
    direct.send({ name: 'b' }, { timeout: 60_000 }, settle);
    read(`{"jsonrpc":"2.0","id":${sent[0]},"result":{ "content":[]}}`);
    read(`{"jsonrpc":"2.0","id":${sent[1]},"result":{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}`);
    expect(texts).toEqual([]);
    expect(values).toEqual([{ content: [] }, { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }]);
  });

  test("a line for no waiting call (late, or the Client's own) is left to the parse: dropped if it was ours, else the Client's", () => {
    const { direct, sent, atClient, read, transport } = lined();
    direct.send({ name: 'a' }, { timeout: 60_000 }, { resolve: () => undefined, reject: () => undefined, resolveText: () => undefined });
    const answer = `{"jsonrpc":"2.0","id":${sent[0]},"result":{"content":[]}}`;
    read(answer);
    expect(transport.takeLine!(answer)).toBe(false);
    read(answer);
    read('{"jsonrpc":"2.0","id":3,"result":{"content":[]}}');
    expect(atClient).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [] } }]);
  });
});

/**
 * Over a transport that tells of its writes (ChildTransport: LineTaking.written), a call's entry is
 * made right after its line is written, so that for a call at a time the bookkeeping is off the path
 * the client waits on (docs/performance.md, "Round 29: the call's critical path"). What must hold:
 * every answer finds its call, at the earliest a transport could give it (right after the write,
 * or answered by the transport itself in the write's place), and nothing sent before the write is lost.
 */
describe("a call's entry made after its write", () => {
  /** ChildTransport's order: lines joined until flush(), which writes them, tells `written`, then may read answers. */
  function writing() {
    const queued: string[] = [];
    const writes: string[][] = [];
    /** callsWaiting() as each write was made. */
    const waitingAtWrite: number[] = [];
    const atClient: unknown[] = [];
    const transport = {
      takeLine: undefined as ((line: string) => boolean) | undefined,
      callsWaiting: undefined as (() => number) | undefined,
      written: undefined as (() => void) | undefined,
      send: (message: JSONRPCMessage) => (queued.push(serializeMessage(message)), QUEUED),
      sendLine: (line: string) => (queued.push(line), QUEUED),
      onmessage: (message: unknown) => atClient.push(message),
    };
    const direct = new DirectCalls(transport as unknown as InMemoryTransport);
    const flush = () => {
      waitingAtWrite.push(transport.callsWaiting!());
      writes.push(queued.splice(0).map((line) => line.trimEnd()));
      transport.written!();
    };
    const read = (line: string) => {
      if (!transport.takeLine?.(line)) transport.onmessage(JSON.parse(line) as JSONRPCMessage);
    };
    const ids = () => writes.flat().map((line) => JSON.parse(line) as { id?: number; method: string; params?: { requestId?: number } });
    return { direct, transport, flush, read, writes, ids, waitingAtWrite, atClient };
  }

  function settled() {
    const values: unknown[] = [];
    const errors: unknown[] = [];
    return { values, errors, settle: { resolve: (value: unknown) => void values.push(value), reject: (error: unknown) => void errors.push(error), resolveText: (text: string) => void values.push(`text ${text}`) } };
  }

  test('the entries are made after the write: none waits as the line is written, each after', () => {
    const { direct, flush, waitingAtWrite, transport } = writing();
    const { settle } = settled();
    direct.send({ name: 'a', arguments: {} }, { timeout: 60_000 }, settle, '{}');
    direct.send({ name: 'a', arguments: {} }, { timeout: 60_000 }, settle);
    expect(transport.callsWaiting!()).toBe(0);
    flush();
    expect(waitingAtWrite).toEqual([0]);
    expect(transport.callsWaiting!()).toBe(2);
    direct.closeAll();
  });

  test('answers read right after the write, in another order, each reach their own call', () => {
    const { direct, flush, read, ids } = writing();
    const calls = [settled(), settled(), settled()];
    direct.send({ name: 'a', arguments: { n: 0 } }, { timeout: 60_000 }, calls[0]!.settle, '{"n":0}');
    direct.send({ name: 'a', arguments: { n: 1 } }, { timeout: 60_000 }, calls[1]!.settle);
    direct.send({ name: 'a', arguments: { n: 2 } }, { timeout: 60_000 }, calls[2]!.settle, '{"n":2}');
    flush();
    const [first, second, third] = ids().map((message) => message.id!);
    read(`{"jsonrpc":"2.0","id":${third},"result":{"content":[{"type":"text","text":"2"}]}}`);
    read(`{"jsonrpc":"2.0","id":${first},"result":{"content":[{"type":"text","text":"0"}]}}`);
    read(`{"jsonrpc":"2.0","id":${second},"error":{"code":-32000,"message":"one"}}`);
    expect(calls[0]!.values).toEqual(['text {"content":[{"type":"text","text":"0"}]}']);
    expect(calls[2]!.values).toEqual(['text {"content":[{"type":"text","text":"2"}]}']);
    expect(calls[1]!.errors).toEqual([new ServerReplyError(-32000, 'one')]);
    expect(calls.map((call) => call.values.length + call.errors.length)).toEqual([1, 1, 1]);
  });

  test("an answer the transport gives in the write's place (records that failed, a closed stdin) finds its call", () => {
    const { direct, transport, read } = writing();
    const { errors, settle } = settled();
    direct.send({ name: 'a', arguments: {} }, { timeout: 60_000 }, settle, '{}');
    // ChildTransport's withholdCalls: `written` first, then the call's answer made by the transport.
    transport.written!();
    read(`{"jsonrpc":"2.0","id":1000000000,"error":{"code":-32603,"message":"not written"}}`);
    expect(errors).toHaveLength(1);
  });

  test('a call cancelled between its send and its write is cancelled at the server once written, and rejected with the reason', () => {
    const { direct, flush, ids } = writing();
    const { errors, settle } = settled();
    const cancel = new Cancellation();
    direct.send({ name: 'a', arguments: {} }, { timeout: 60_000, cancel }, settle, '{}');
    cancel.cancel('stop');
    flush();
    expect(errors).toEqual(['stop']);
    flush();
    const [call, cancelled] = ids();
    expect(cancelled).toMatchObject({ method: 'notifications/cancelled', params: { requestId: call!.id } });
  });

  test("a call cancelled while it waits at its server is cancelled there and rejected with the reason; an answered call's cancellation is not listened to", () => {
    const { direct, flush, read, ids } = writing();
    const first = settled();
    const second = settled();
    const waiting = new Cancellation();
    const answered = new Cancellation();
    // Another listener of the same cancellation, before the entry: told first, as it came first.
    const told: string[] = [];
    waiting.onCancel(() => told.push('earlier listener'));
    direct.send({ name: 'a', arguments: {} }, { timeout: 60_000, cancel: waiting }, { ...first.settle, reject: (error) => (told.push('call rejected'), first.settle.reject(error)) }, '{}');
    direct.send({ name: 'a', arguments: {} }, { timeout: 60_000, cancel: answered }, second.settle, '{}');
    flush();
    const [call, other] = ids();
    read(`{"jsonrpc":"2.0","id":${other!.id},"result":{"content":[]}}`);
    expect(second.values).toHaveLength(1);
    waiting.cancel('stop');
    answered.cancel('too late');
    expect(first.errors).toEqual(['stop']);
    expect(told).toEqual(['earlier listener', 'call rejected']);
    expect(second.errors).toEqual([]);
    flush();
    const cancels = ids().filter((message) => message.method === 'notifications/cancelled');
    expect(cancels).toEqual([expect.objectContaining({ params: { requestId: call!.id, reason: 'stop' } })]);
  });

  test('a call still unwritten when the connection closes is failed with the others, and not left waiting', () => {
    const { direct, flush, transport } = writing();
    const first = settled();
    const second = settled();
    direct.send({ name: 'a', arguments: {} }, { timeout: 60_000 }, first.settle, '{}');
    flush();
    direct.send({ name: 'a', arguments: {} }, { timeout: 60_000 }, second.settle, '{}');
    direct.closeAll();
    expect(first.errors[0]).toBeInstanceOf(ConnectionLost);
    expect(second.errors[0]).toBeInstanceOf(ConnectionLost);
    flush();
    expect(transport.callsWaiting!()).toBe(0);
    expect(second.errors).toHaveLength(1);
  });

  test('a call the transport refuses is rejected with its error, and no entry is left', async () => {
    const { direct, transport } = writing();
    const { errors, settle } = settled();
    const refusal = new Error('not running');
    transport.sendLine = () => Promise.reject(refusal);
    direct.send({ name: 'a', arguments: {} }, { timeout: 60_000 }, settle, '{}');
    await Promise.resolve();
    await Promise.resolve();
    expect(errors).toEqual([refusal]);
    expect(transport.callsWaiting!()).toBe(0);
  });
});

test("a call made from its arguments' text is the line serializeMessage writes for the message", () => {
  const objects: Array<Record<string, unknown>> = [];
  const lines: string[] = [];
  const transport = {
    send: (message: Record<string, unknown>) => (objects.push(message), QUEUED),
    sendLine: (line: string) => (lines.push(line), QUEUED),
  };
  const direct = new DirectCalls(transport as unknown as InMemoryTransport);
  const settle = { resolve: () => undefined, reject: () => undefined };
  const cases: Array<[string, Record<string, unknown>]> = [
    ['echo', { message: 'ping 1' }],
    ['echo', { message: 'ping 2' }],
    ['a "quoted" tool\n', { 'k"': ['é', '\u{1F600}', { deep: null }], __proto__x: 1 }],
    ['\uD800', JSON.parse('{"__proto__":{"a":1},"b":-0}') as Record<string, unknown>],
    ['echo', { message: 'ping 3' }],
  ];
  // A client that asked for no progress, and one that did (the token only then: round 27).
  for (const options of [{ timeout: 60_000 }, { timeout: 60_000, onprogress: () => undefined }]) {
    objects.length = 0;
    lines.length = 0;
    for (const [name, args] of cases) {
      direct.send({ name, arguments: args }, options, settle);
      direct.send({ name, arguments: args }, options, settle, JSON.stringify(args));
    }
    expect(lines).toHaveLength(cases.length);
    // The same message with the id the line has (each text call's id is its object call's + 1).
    objects.forEach((message, index) => {
      const id = (message.id as number) + 1;
      const params = message.params as Record<string, unknown>;
      expect(lines[index]).toBe(serializeMessage({ ...message, id, params: options.onprogress ? { ...params, _meta: { progressToken: id } } : params } as JSONRPCMessage));
    });
  }
  direct.closeAll();
});

/**
 * A call given up (cancelled, timed out) while its server may still work on it: the origin the
 * gateway keeps for it (gateway/running-calls.ts) is ended when the server is done — its late
 * answer, the connection's close, or as long again as the timeout — so what the server asks for
 * it meanwhile goes to no other session (review P27-2).
 */
describe('a call given up lingers until the server is done with it', () => {
  async function rawPeer() {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const atServer: JSONRPCMessage[] = [];
    clientTransport.onmessage = () => undefined;
    serverTransport.onmessage = (message) => void atServer.push(message);
    await clientTransport.start();
    await serverTransport.start();
    const direct = new DirectCalls(clientTransport);
    const lingering: Array<{ ended: number }> = [];
    const linger = () => {
      const held = { ended: 0 };
      lingering.push(held);
      return { end: () => void held.ended++ };
    };
    const callId = () => (atServer.find((message) => 'method' in message && message.method === 'tools/call') as { id: number }).id;
    return { direct, serverTransport, atServer, lingering, linger, callId };
  }

  test("a cancelled call's origin is kept until the server's late answer, then ended once", async () => {
    const peer = await rawPeer();
    const controller = new AbortController();
    const pending = peer.direct.call({ name: 'x' }, { timeout: 60_000, cancel: fromSignal(controller.signal), linger: peer.linger });
    await vi.waitFor(() => expect(peer.atServer).toHaveLength(1), waitOptions);
    controller.abort('stop');
    expect(await rejection(pending)).toBe('stop');
    expect(peer.lingering).toEqual([{ ended: 0 }]);
    await peer.serverTransport.send({ jsonrpc: '2.0', id: peer.callId(), result: { content: [] } });
    await vi.waitFor(() => expect(peer.lingering).toEqual([{ ended: 1 }]), waitOptions);
    peer.direct.closeAll();
    expect(peer.lingering).toEqual([{ ended: 1 }]);
  });

  test('a timed-out call that the server never answers lingers as long again as its timeout', async () => {
    const peer = await rawPeer();
    const error = await rejection(peer.direct.call({ name: 'x' }, { timeout: 40, linger: peer.linger }));
    expect(error).toMatchObject({ code: ErrorCode.RequestTimeout });
    expect(peer.lingering).toEqual([{ ended: 0 }]);
    await vi.waitFor(() => expect(peer.lingering).toEqual([{ ended: 1 }]), { timeout: 2000, interval: 10 });
  });

  test('the connection closing ends every call given up; an answered call never lingers', async () => {
    const peer = await rawPeer();
    const controller = new AbortController();
    const pending = peer.direct.call({ name: 'x' }, { timeout: 60_000, cancel: fromSignal(controller.signal), linger: peer.linger });
    await vi.waitFor(() => expect(peer.atServer).toHaveLength(1), waitOptions);
    controller.abort('stop');
    await rejection(pending);
    const answered = peer.direct.call({ name: 'y' }, { timeout: 60_000, linger: peer.linger });
    await vi.waitFor(() => expect(peer.atServer).toHaveLength(3), waitOptions);
    const second = (peer.atServer[2] as { id: number }).id;
    await peer.serverTransport.send({ jsonrpc: '2.0', id: second, result: { content: [] } });
    await answered;
    expect(peer.lingering).toEqual([{ ended: 0 }]);
    peer.direct.closeAll();
    expect(peer.lingering).toEqual([{ ended: 1 }]);
  });
});
