import { afterEach, describe, expect, test, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  CallToolResultSchema,
  EmptyResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import type { Extra } from '../../src/gateway/ports.js';
import type { CancelSource } from '../../src/cancellation.js';
import { MAX_CALL_VALUES, UpstreamCalls, paramsProblem, wideCallRefusal } from '../../src/gateway/upstream-calls.js';

/** One call's handler, as the tests write it; UpstreamCalls hands calls over in groups. */
type CallHandler = (request: CallToolRequest, extra: Extra, cancel: CancelSource) => Promise<CallToolResult>;

/**
 * tools/call taken off the upstream wire in front of a real SDK Server, with a real SDK Client on
 * the other end of an in-memory pair. What the client sees is what matters: results, error codes,
 * progress, and silence for a call it cancelled. The Server also has its own tools/call handler,
 * which must never run: every call belongs to the UpstreamCalls handler.
 */
interface Peer {
  client: Client;
  server: Server;
  clientTransport: InMemoryTransport;
  /** Every message that reached the client side, in order, including the ones sent raw. */
  received: JSONRPCMessage[];
  calls: Array<{ request: CallToolRequest; extra: Extra; cancel: CancelSource }>;
  /** How many calls each hand-over carried. */
  groups: number[];
  sdkCalls: number;
}

const peers: Peer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) {
    await peer.client.close();
    await peer.server.close();
  }
});

const RAW_PREFIX = 'raw-';

async function connect(handler: CallHandler): Promise<Peer> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = new Server({ name: 'upstream-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  const peer = { server, clientTransport, received: [], calls: [], groups: [], sdkCalls: 0 } as unknown as Peer;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'listed', inputSchema: { type: 'object' as const } }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    peer.sdkCalls += 1;
    return { content: [{ type: 'text', text: 'from the SDK handler' }] };
  });
  await server.connect(serverTransport);
  new UpstreamCalls(server, (calls) => {
    peer.groups.push(calls.length);
    return calls.map(({ request, extra, cancel }) => {
      peer.calls.push({ request, extra, cancel });
      return handler(request, extra, cancel);
    });
  }).attach(serverTransport);
  const client = new Client({ name: 'upstream-test-client', version: '1.0.0' });
  await client.connect(clientTransport);
  // Recorded after the Client connected, so the handshake is not in the list. Answers to raw
  // requests (string ids) stop here: the Client never sent them and would report them as unknown.
  const toClient = clientTransport.onmessage;
  clientTransport.onmessage = (message, extra) => {
    peer.received.push(message);
    if ('id' in message && typeof message.id === 'string' && message.id.startsWith(RAW_PREFIX)) return;
    toClient?.(message, extra);
  };
  peer.client = client;
  peers.push(peer);
  return peer;
}

function responseTo(peer: Peer, id: string | number): JSONRPCMessage | undefined {
  return peer.received.find((message) => 'id' in message && message.id === id && ('result' in message || 'error' in message));
}

async function rawResponse(peer: Peer, id: string, params: unknown): Promise<Record<string, unknown>> {
  await peer.clientTransport.send({ jsonrpc: '2.0', id, method: 'tools/call', params } as JSONRPCMessage);
  return vi.waitFor(
    () => {
      const found = responseTo(peer, id);
      if (!found) throw new Error(`no response to ${id}`);
      return found as unknown as Record<string, unknown>;
    },
    { timeout: 500, interval: 5 },
  );
}

const textResult = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const tick = () => new Promise((done) => setImmediate(done));

/** A promise the test settles by hand, for a handler that must wait. */
function gate<T>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((done) => (open = done));
  return { promise, open };
}

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('calls', () => {
  test('a call reaches the handler with its params, and the result comes back to the client', async () => {
    const peer = await connect(async (request) => ({
      ...textResult(`echo ${String(request.params.arguments?.text)}`),
      structuredContent: { echoed: request.params.arguments?.text },
    }));
    const result = await peer.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'echo hi' }], structuredContent: { echoed: 'hi' } });
    expect(peer.calls).toHaveLength(1);
    const [{ request, extra }] = peer.calls as [Peer['calls'][number]];
    expect(request.method).toBe('tools/call');
    expect(request.params).toMatchObject({ name: 'echo', arguments: { text: 'hi' } });
    // The handler's requestId is the wire id the answer went back under.
    expect(responseTo(peer, extra.requestId)).toMatchObject({ result: { structuredContent: { echoed: 'hi' } } });
    expect(extra.signal.aborted).toBe(false);
    expect(peer.sdkCalls).toBe(0);
  });

  test("a call is one object: its request and the handler's extra are the call itself, each with what the wire carried", async () => {
    const peer = await connect(async () => textResult('ok'));
    await peer.client.request({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta: { trace: 't-2' } } }, CallToolResultSchema);
    const [{ request, extra }] = peer.calls as [Peer['calls'][number]];
    // One object per call where there were three (docs/performance.md, "Round 33: the call path").
    expect(request).toBe(extra);
    expect(request.method).toBe('tools/call');
    expect(request.params).toEqual({ name: 'echo', arguments: { text: 'hi' }, _meta: { trace: 't-2' } });
    expect(extra._meta).toEqual({ trace: 't-2' });
    expect(responseTo(peer, extra.requestId)).toMatchObject({ result: { content: [{ type: 'text', text: 'ok' }] } });
    expect(extra.signal.aborted).toBe(false);
  });

  test('calls in flight together each get their own answer, in whatever order they finish', async () => {
    const first = gate<CallToolResult>();
    const peer = await connect((request) => (request.params.name === 'slow' ? first.promise : Promise.resolve(textResult('fast'))));
    const slow = peer.client.callTool({ name: 'slow' });
    const fast = await peer.client.callTool({ name: 'fast' });
    expect(fast.content).toEqual([{ type: 'text', text: 'fast' }]);
    first.open(textResult('slow'));
    expect((await slow).content).toEqual([{ type: 'text', text: 'slow' }]);
  });

  test("the handler gets the request's _meta, and can send the client requests of its own", async () => {
    const peer = await connect(async (_request, extra) => {
      // A request to the client from inside the call (the latch asks the user this way).
      const pong = await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);
      return textResult(`pong ${JSON.stringify(pong)} ${JSON.stringify(extra._meta)}`);
    });
    const result = await peer.client.request({ method: 'tools/call', params: { name: 'x', _meta: { trace: 't-1' } } }, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'pong {} {"trace":"t-1"}' }]);
  });

  test("progress sent with the client's token reaches the client's onprogress", async () => {
    const peer = await connect(async (_request, extra) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken === undefined) throw new Error('no progress token');
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2, message: 'half' } });
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 2, total: 2 } });
      return textResult('done');
    });
    const updates: Progress[] = [];
    const result = await peer.client.request({ method: 'tools/call', params: { name: 'x' } }, CallToolResultSchema, { onprogress: (update) => updates.push(update) });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(updates).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2 },
    ]);
  });
});

describe('errors from the handler', () => {
  test('an McpError keeps its code and data', async () => {
    const peer = await connect(async () => {
      throw new McpError(ErrorCode.InvalidRequest, 'not now', { why: 'busy' });
    });
    const error = await rejection(peer.client.callTool({ name: 'x' }));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.data).toEqual({ why: 'busy' });
    // The prefix once: McpError put it in front of its message, the client's SDK puts it again.
    expect(error.message).toBe('MCP error -32600: not now');
  });

  test.each([
    ['a plain Error', () => new Error('disk on fire'), 'disk on fire'],
    // Node system errors carry a string code; it is no JSON-RPC code.
    ['an Error with a string code', () => Object.assign(new Error('no such file'), { code: 'ENOENT' }), 'no such file'],
    ['an Error with a fractional code', () => Object.assign(new Error('odd'), { code: 1.5 }), 'odd'],
    ['a thrown string', () => 'just a string', 'Internal error'],
    ['a thrown null', () => null, 'Internal error'],
  ])('%s gives -32603', async (_name, make, message) => {
    const peer = await connect(async () => {
      throw make();
    });
    const error = await rejection(peer.client.callTool({ name: 'x' }));
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toContain(message);
  });
});

describe('invalid params', () => {
  test.each([
    ['arguments a string', { name: 'echo', arguments: 'not an object' }, 'arguments must be an object'],
    ['arguments an array', { name: 'echo', arguments: [1] }, 'arguments must be an object'],
    ['name missing', { arguments: {} }, 'name must be a string'],
    ['name a number', { name: 7 }, 'name must be a string'],
    ['_meta.progressToken an object', { name: 'echo', _meta: { progressToken: { a: 1 } } }, '_meta.progressToken must be a string or an integer'],
    ['_meta an array', { name: 'echo', _meta: [] }, '_meta must be an object'],
    ['params missing', undefined, 'params must be an object'],
    ['params an array', ['echo'], 'params must be an object'],
  ])('%s: -32602 naming the problem, and the handler never runs', async (_name, params, problem) => {
    const peer = await connect(async () => textResult('should not run'));
    const response = await rawResponse(peer, `${RAW_PREFIX}1`, params);
    expect(response).toEqual({ jsonrpc: '2.0', id: `${RAW_PREFIX}1`, error: { code: -32602, message: `Invalid params for tools/call: ${problem}` } });
    await tick();
    expect(peer.calls).toHaveLength(0);
    expect(peer.sdkCalls).toBe(0);
  });

  test('through the SDK Client too: the request rejects with -32602', async () => {
    const peer = await connect(async () => textResult('should not run'));
    const error = await rejection(peer.client.request({ method: 'tools/call', params: { name: 'x', arguments: 'nope' as unknown as Record<string, unknown> } }, CallToolResultSchema));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('arguments must be an object');
    expect(peer.calls).toHaveLength(0);
  });

  test('a bad call does not stop the next good one on the same connection', async () => {
    const peer = await connect(async () => textResult('ok'));
    await rawResponse(peer, `${RAW_PREFIX}bad`, { name: 1 });
    expect(await rawResponse(peer, `${RAW_PREFIX}good`, { name: 'x' })).toMatchObject({ result: textResult('ok') });
  });
});

describe('cancellation', () => {
  test('a call the client cancels aborts the handler signal, and no response is sent for it', async () => {
    const release = gate<CallToolResult>();
    const peer = await connect((request) => (request.params.name === 'wait' ? release.promise : Promise.resolve(textResult('after'))));
    const controller = new AbortController();
    const pending = peer.client.request({ method: 'tools/call', params: { name: 'wait' } }, CallToolResultSchema, { signal: controller.signal });
    await vi.waitFor(() => expect(peer.calls).toHaveLength(1), { timeout: 500, interval: 5 });
    const [{ extra }] = peer.calls as [Peer['calls'][number]];
    expect(extra.signal.aborted).toBe(false);
    controller.abort('user pressed stop');
    await expect(pending).rejects.toThrow('user pressed stop');
    await vi.waitFor(() => expect(extra.signal.aborted).toBe(true), { timeout: 500, interval: 5 });
    expect(extra.signal.reason).toBe('user pressed stop');
    // The handler finishes anyway; its answer must not be written.
    release.open(textResult('too late'));
    await tick();
    await tick();
    expect(responseTo(peer, extra.requestId)).toBeUndefined();
    // A control: the next call's answer is recorded, so the silence above is not a recording gap.
    await peer.client.callTool({ name: 'next' });
    const next = peer.calls[1];
    expect(next && responseTo(peer, next.extra.requestId)).toMatchObject({ result: textResult('after') });
  });

  test('a cancelled call that then throws sends no error either', async () => {
    const fail = gate<void>();
    const peer = await connect(async () => {
      await fail.promise;
      throw new Error('failed after the cancel');
    });
    const controller = new AbortController();
    const pending = peer.client.request({ method: 'tools/call', params: { name: 'x' } }, CallToolResultSchema, { signal: controller.signal });
    await vi.waitFor(() => expect(peer.calls).toHaveLength(1), { timeout: 500, interval: 5 });
    controller.abort('stop');
    await expect(pending).rejects.toThrow('stop');
    const [{ extra }] = peer.calls as [Peer['calls'][number]];
    await vi.waitFor(() => expect(extra.signal.aborted).toBe(true), { timeout: 500, interval: 5 });
    fail.open();
    await tick();
    await tick();
    expect(responseTo(peer, extra.requestId)).toBeUndefined();
  });

  test('the handler\'s CancelSource is cancelled too: its handlers run once, with the reason, and a removed one does not', async () => {
    const release = gate<CallToolResult>();
    const peer = await connect(() => release.promise);
    const controller = new AbortController();
    const pending = peer.client.request({ method: 'tools/call', params: { name: 'x' } }, CallToolResultSchema, { signal: controller.signal });
    await vi.waitFor(() => expect(peer.calls).toHaveLength(1), { timeout: 500, interval: 5 });
    const [{ cancel }] = peer.calls as [Peer['calls'][number]];
    const seen: unknown[] = [];
    cancel.onCancel((reason) => seen.push(reason));
    const removed = cancel.onCancel(() => seen.push('removed handler ran'));
    removed();
    expect(cancel.cancelled).toBe(false);
    controller.abort('stop it');
    await expect(pending).rejects.toThrow('stop it');
    await vi.waitFor(() => expect(cancel.cancelled).toBe(true), { timeout: 500, interval: 5 });
    expect(cancel.reason).toBe('stop it');
    expect(seen).toEqual(['stop it']);
    // Registered after the fact: never called (the caller checks `cancelled` first).
    cancel.onCancel(() => seen.push('late handler ran'));
    release.open(textResult('late'));
    await tick();
    expect(seen).toEqual(['stop it']);
  });

  test('when the client connection closes, every call still waiting is cancelled and nothing is sent for it', async () => {
    const release = gate<CallToolResult>();
    const peer = await connect(() => release.promise);
    void peer.client.request({ method: 'tools/call', params: { name: 'a' } }, CallToolResultSchema).catch(() => undefined);
    void peer.client.request({ method: 'tools/call', params: { name: 'b' } }, CallToolResultSchema).catch(() => undefined);
    await vi.waitFor(() => expect(peer.calls).toHaveLength(2), { timeout: 500, interval: 5 });
    const received = peer.received.length;
    await peer.client.close();
    for (const call of peer.calls) {
      expect(call.cancel.cancelled).toBe(true);
      expect(call.extra.signal.aborted).toBe(true);
    }
    release.open(textResult('after the close'));
    await tick();
    expect(peer.received.length).toBe(received);
  });

  test('cancelling one call leaves another in flight alone', async () => {
    const release = gate<CallToolResult>();
    const peer = await connect(() => release.promise);
    const controller = new AbortController();
    const cancelled = peer.client.request({ method: 'tools/call', params: { name: 'a' } }, CallToolResultSchema, { signal: controller.signal });
    const kept = peer.client.callTool({ name: 'b' });
    await vi.waitFor(() => expect(peer.calls).toHaveLength(2), { timeout: 500, interval: 5 });
    controller.abort('only a');
    await expect(cancelled).rejects.toThrow('only a');
    const [a, b] = peer.calls as [Peer['calls'][number], Peer['calls'][number]];
    await vi.waitFor(() => expect(a.extra.signal.aborted).toBe(true), { timeout: 500, interval: 5 });
    expect(b.extra.signal.aborted).toBe(false);
    release.open(textResult('b done'));
    expect((await kept).content).toEqual([{ type: 'text', text: 'b done' }]);
  });
});

describe('calls of one read are handed over together', () => {
  test('calls taken in one synchronous stretch form one group, in order; a later one its own', async () => {
    const peer = await connect(async (request) => textResult(`done ${request.params.name}`));
    const send = (id: string, name: string) => void peer.clientTransport.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } } as JSONRPCMessage);
    // The in-memory transport delivers synchronously: these three arrive as one read would.
    send(`${RAW_PREFIX}a`, 'a');
    send(`${RAW_PREFIX}b`, 'b');
    void peer.clientTransport.send({ jsonrpc: '2.0', id: 'raw-ping', method: 'ping' } as JSONRPCMessage);
    send(`${RAW_PREFIX}c`, 'c');
    await tick();
    send(`${RAW_PREFIX}d`, 'd');
    await vi.waitFor(() => expect(responseTo(peer, `${RAW_PREFIX}d`)).toBeDefined(), { timeout: 500, interval: 5 });
    // The ping went to the Server and is not part of any group.
    expect(peer.groups).toEqual([3, 1]);
    expect(peer.calls.map((call) => call.request.params.name)).toEqual(['a', 'b', 'c', 'd']);
    for (const name of ['a', 'b', 'c', 'd']) expect(responseTo(peer, `${RAW_PREFIX}${name}`)).toMatchObject({ result: textResult(`done ${name}`) });
  });
});

describe('everything else goes to the SDK Server', () => {
  test('ping and tools/list are answered by the Server, before and after calls', async () => {
    const peer = await connect(async () => textResult('called'));
    await expect(peer.client.ping()).resolves.toEqual({});
    expect((await peer.client.listTools()).tools.map((tool) => tool.name)).toEqual(['listed']);
    await peer.client.callTool({ name: 'x' });
    expect((await peer.client.listTools()).tools.map((tool) => tool.name)).toEqual(['listed']);
    await expect(peer.client.ping()).resolves.toEqual({});
    expect(peer.calls).toHaveLength(1);
  });

  test("an unknown method still gets the Server's method-not-found error", async () => {
    const peer = await connect(async () => textResult('called'));
    const error = await rejection(peer.client.request({ method: 'no/such/method' } as never, EmptyResultSchema));
    expect(error.code).toBe(ErrorCode.MethodNotFound);
    expect(peer.calls).toHaveLength(0);
  });
});

describe('paramsProblem', () => {
  const rows: Array<[name: string, params: unknown, problem: string | null]> = [
    ['name only', { name: 'echo' }, null],
    ['name and arguments', { name: 'echo', arguments: { text: 'x', nested: { a: [1] } } }, null],
    ['empty arguments', { name: 'echo', arguments: {} }, null],
    ['empty name', { name: '' }, null],
    ['string progress token', { name: 'echo', _meta: { progressToken: 'tok' } }, null],
    ['integer progress token', { name: 'echo', _meta: { progressToken: 0 } }, null],
    ['negative integer progress token', { name: 'echo', _meta: { progressToken: -3 } }, null],
    ['_meta with other keys', { name: 'echo', _meta: { trace: 'abc' } }, null],
    ['an unknown params key', { name: 'echo', vendor: true }, null],
    ['undefined', undefined, 'params must be an object'],
    ['null', null, 'params must be an object'],
    ['a string', 'echo', 'params must be an object'],
    ['a number', 1, 'params must be an object'],
    ['an array', [{ name: 'echo' }], 'params must be an object'],
    ['no name', {}, 'name must be a string'],
    ['name null', { name: null }, 'name must be a string'],
    ['name a number', { name: 5 }, 'name must be a string'],
    ['name an object', { name: { first: 'echo' } }, 'name must be a string'],
    ['arguments null', { name: 'echo', arguments: null }, 'arguments must be an object'],
    ['arguments a string', { name: 'echo', arguments: '{}' }, 'arguments must be an object'],
    ['arguments an array', { name: 'echo', arguments: [] }, 'arguments must be an object'],
    ['_meta null', { name: 'echo', _meta: null }, '_meta must be an object'],
    ['_meta a string', { name: 'echo', _meta: 'm' }, '_meta must be an object'],
    ['_meta an array', { name: 'echo', _meta: [] }, '_meta must be an object'],
    ['progress token an object', { name: 'echo', _meta: { progressToken: {} } }, '_meta.progressToken must be a string or an integer'],
    ['progress token null', { name: 'echo', _meta: { progressToken: null } }, '_meta.progressToken must be a string or an integer'],
    ['progress token fractional', { name: 'echo', _meta: { progressToken: 1.5 } }, '_meta.progressToken must be a string or an integer'],
    ['progress token beyond safe integers', { name: 'echo', _meta: { progressToken: 2 ** 60 } }, '_meta.progressToken must be a string or an integer'],
    ['progress token boolean', { name: 'echo', _meta: { progressToken: true } }, '_meta.progressToken must be a string or an integer'],
    ['the first problem is named', { name: 5, arguments: 'x' }, 'name must be a string'],
  ];

  test.each(rows)('%s', (_name, params, problem) => {
    expect(paramsProblem(params)).toBe(problem);
    // The structural check says yes exactly where the SDK's params schema (what the Server used) does.
    expect(CallToolRequestParamsSchema.safeParse(params).success).toBe(problem === null);
  });
});

describe('wideCallRefusal (docs/config.md, "limits")', () => {
  const call = (values: number, id: unknown = 4, method = 'tools/call') => JSON.stringify({ jsonrpc: '2.0', id, method, params: { name: 't', arguments: { list: Array.from({ length: values }, () => 1) } } });
  // The message's own values: the object, jsonrpc, id, method, params, name, arguments and the list.
  const OWN = 8;

  test('a tools/call of more values than the limit is answered -32602 under its id, saying it was not run; one at the limit is not', () => {
    expect(wideCallRefusal(call(MAX_CALL_VALUES - OWN))).toBeNull();
    expect(wideCallRefusal(call(MAX_CALL_VALUES - OWN + 1, 'abc'))).toEqual({
      jsonrpc: '2.0',
      id: 'abc',
      error: { code: -32602, message: 'Invalid params for tools/call: the request holds 10,001 values as written, more than the 10,000 mcp-latch checks in one call (docs/config.md, "limits"); it was not run' },
    });
  });

  test('other methods are left to their own checks; a batch past the limit is refused whole', () => {
    expect(wideCallRefusal(call(20_000, 4, 'prompts/get'))).toBeNull();
    expect(wideCallRefusal(`[${call(6_000)},${call(6_000, 5)}]`)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: the batch holds 12,017 values as written, more than the 10,000/) } });
  });
});
