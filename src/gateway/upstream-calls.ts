/**
 * The client's tools/call requests, taken off the upstream transport before the SDK Server's
 * Protocol sees them; every other message goes to the Server unchanged. Without this, every call
 * pays the Protocol's zod parses and abort controller (docs/performance.md#the-hot-path).
 *
 * The params get a structural check (a bad one is -32602 naming what is wrong). Cancellation
 * (`notifications/cancelled`) cancels the call; a cancelled call gets no response, as the MCP spec
 * asks. The calls of one read from the transport are handed over together, as the read's handling
 * returns (read-end.ts), or a microtask later: they are one batch for the latch
 * (docs/approval.md#the-latch), and a batch of allowed calls can go at once instead of waiting for
 * the event loop to turn.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AnySchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { ErrorCode, type CallToolRequest, type CallToolResult, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { Cancellation, type CancelSource } from '../cancellation.js';
import { ArgsJson, MAX_DEPTH, isPlainObject, jsonString, nestsDeeperThan } from '../values.js';
import { scannedCall } from './call-scan.js';
import type { Extra } from './ports.js';
import { asRpcError, internalError } from '../errors.js';
import { QUEUED, type LineSending } from '../downstream/lines.js';
import { IdSlots } from '../id-slots.js';
import { jsonShape, mostCharsFor } from '../json-shape.js';
import type { AuditRecord } from '../store/audit.js';
import { atReadEnd } from '../read-end.js';

/** One tools/call as the pipeline receives it. */
export interface IncomingCall {
  readonly id: RequestId;
  readonly request: CallToolRequest;
  readonly extra: Extra;
  readonly cancel: CancelSource;
  /** Answers the call without a promise, once, for a handler that returned ANSWERING for it. */
  answer(result: CallToolResult): void;
  /** Answers the call with the error's JSON-RPC error, as a rejected promise would. */
  fail(error: unknown): void;
  /** Answers the call with a result's JSON text, written as JSON.stringify would write it (downstream/answer-scan.ts). */
  answerText?(resultText: string): void;
  /** The arguments' JSON text as the client wrote it, when that is JSON.stringify's text of them (call-scan.ts). */
  readonly argsJson?: ArgsJson;
}

/**
 * What a handler returns for a call it answers through `answer` or `fail` instead of a promise: a
 * call forwarded at once (docs/performance.md, "Round 8").
 */
export const ANSWERING = Symbol('answered through the call');

/** Answers the calls of one read, in order: one promise per call, or ANSWERING. */
export type CallHandler = (calls: IncomingCall[]) => Array<Promise<CallToolResult> | typeof ANSWERING>;

export class UpstreamCalls {
  private readonly running = new IdSlots<Cancellation, RequestId>();
  /** The calls of the read being processed, handed over in one microtask. */
  private group: TakenCall[] = [];

  private transport: Transport | null = null;
  /**
   * A message went to the Server in this turn: its handler runs a microtask later (the SDK's
   * Protocol), and calls read after it are handed over after that handler, as before read ends
   * were used (a roots change is known before the calls that follow it are decided).
   */
  private serverHandling = false;
  private readonly serverHandled = (): void => {
    this.serverHandling = false;
  };
  private firstAnswer: (() => void) | null = null;
  /** Settles once the first call is answered (serve then writes its code cache again, with the call path's code). */
  readonly firstAnswered = new Promise<void>((resolve) => (this.firstAnswer = resolve));

  /** `refused`: told of each call refused here before it is decided, with the reason sent (its audit record). */
  constructor(
    private readonly server: Server,
    private readonly handler: CallHandler,
    private readonly refused: (reason: string) => void = () => undefined,
  ) {}

  /** Calls taken and not answered yet. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Call after `server.connect(transport)`: the Server has set `transport.onmessage`, which is wrapped here. */
  attach(transport: Transport): void {
    this.transport = transport;
    // Gone with the client: every call not yet answered is cancelled (never forwarded if it is still
    // waiting, told to stop if it is at a server).
    const closeServer = transport.onclose;
    transport.onclose = () => {
      this.cancelAll('the client connection closed');
      closeServer?.();
    };
    const toServer = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const record = message as Record<string, unknown>;
      if (record.method === 'tools/call' && (typeof record.id === 'string' || typeof record.id === 'number')) {
        this.take(record.id, record.params);
        return;
      }
      if (record.method === 'notifications/cancelled' && this.running.size > 0) {
        const params = record.params as { requestId?: RequestId; reason?: string } | undefined;
        const running = params?.requestId !== undefined ? this.running.get(params.requestId) : undefined;
        running?.cancel(params?.reason ?? 'cancelled by the client');
      }
      if (!this.serverHandling) {
        this.serverHandling = true;
        void QUEUED.then(this.serverHandled);
      }
      toServer?.(message, extra);
    };
  }

  private take(id: RequestId, params: unknown): void {
    // A call the scanner read (call-scan.ts) has the shape paramsProblem checks, proven by the scan,
    // and its arguments' text is kept.
    const scanned = params === scannedCall.params;
    scannedCall.params = null;
    // JSON-RPC ids are unique among a sender's requests in flight: a second call under the id of one
    // still running was a call of its own, and a cancel of that id reached only the second (round 13
    // review R4; docs/design.md, "The gateway as a proxy"). It is refused, never forwarded.
    if (this.running.has(id)) {
      const message = `Invalid request: request id ${typeof id === 'number' ? id : jsonString(id)} is already in use by a call in flight`;
      this.refused(message);
      this.reply({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message } });
      return;
    }
    const problem = scanned ? null : paramsProblem(params);
    if (problem) {
      const message = `Invalid params for tools/call: ${problem}`;
      this.refused(message);
      this.reply({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message } });
      return;
    }
    const cancellation = new Cancellation();
    this.running.set(id, cancellation);
    // Handed over once the transport has handed over every message of the current read: as the
    // read returns (docs/performance.md, "Round 18: the warm path"), or after the Server's handlers
    // of this turn, in a microtask: a settled promise's, as queueMicrotask made an AsyncResource and
    // a bound function for each read (docs/performance.md, "Round 13: the warm path"). dispatch
    // does not throw.
    const callParams = params as CallToolRequest['params'];
    const argsJson = scanned ? new ArgsJson(callParams.arguments!, scannedCall.argsText, scannedCall.argsSorted) : undefined;
    if (this.group.push(new TakenCall(this, this.server, id, callParams, cancellation, argsJson)) === 1 && (this.serverHandling || !atReadEnd(this.dispatch))) void QUEUED.then(this.dispatch);
  }

  private readonly dispatch = (): void => {
    const group = this.group;
    this.group = [];
    let answers: Array<Promise<CallToolResult> | typeof ANSWERING>;
    try {
      answers = this.handler(group);
    } catch (error) {
      answers = group.map(() => Promise.reject(error));
    }
    group.forEach((call, index) => {
      const answer = answers[index] ?? Promise.reject(internalError('a call got no answer'));
      // Not an async function: one `then` per call, where an await cost a frame and a promise more (docs/performance.md#the-hot-path).
      if (answer !== ANSWERING) answer.then((result) => call.answer(result), (error: unknown) => call.fail(error));
    });
  };

  /** A call's answer, sent unless the call was cancelled (a cancelled call gets no response). */
  answered(id: RequestId, cancellation: Cancellation, answer: JSONRPCMessage): void {
    if (this.running.get(id) === cancellation) this.running.delete(id);
    if (!cancellation.cancelled) this.reply(answer);
    this.settleFirst();
  }

  /**
   * `answered` for a result's JSON text: the reply's line is made here, as the transport's
   * JSON.stringify would make it, when the transport takes lines (stdio-upstream.ts); else parsed.
   */
  answeredText(id: RequestId, cancellation: Cancellation, resultText: string): void {
    const transport = this.transport as (Transport & Partial<LineSending>) | null;
    if (!transport?.sendLine) {
      this.answered(id, cancellation, { jsonrpc: '2.0', id, result: JSON.parse(resultText) as CallToolResult });
      return;
    }
    if (this.running.get(id) === cancellation) this.running.delete(id);
    if (cancellation.cancelled) return;
    const sent = transport.sendLine(`{"jsonrpc":"2.0","id":${typeof id === 'number' ? id : jsonString(id)},"result":${resultText}}\n`, id);
    if (sent !== QUEUED) sent.catch(() => undefined);
    this.settleFirst();
  }

  private settleFirst(): void {
    if (!this.firstAnswer) return;
    this.firstAnswer();
    this.firstAnswer = null;
  }

  /** Cancels every call not answered yet: one still waiting is never forwarded, and is recorded cancelled. */
  cancelAll(reason: string): void {
    for (const call of this.group) call.cancel.cancel(reason);
    for (const cancellation of this.running.values()) cancellation.cancel(reason);
  }

  private reply(message: JSONRPCMessage): void {
    // The client may be gone; the gateway is closing then and there is nobody to tell.
    const sent = this.transport?.send(message);
    if (sent !== undefined && sent !== QUEUED) sent.catch(() => undefined);
  }
}

/**
 * A call taken off the transport, answered through the UpstreamCalls that took it. It is its own
 * request (`{ method, params }`) and the handler's `extra` too: until round 33 those were two more
 * objects made for every call (docs/performance.md, "Round 33: the call path").
 */
class TakenCall implements IncomingCall, Extra {
  constructor(
    private readonly calls: UpstreamCalls,
    private readonly server: Server,
    readonly id: RequestId,
    readonly params: CallToolRequest['params'],
    readonly cancel: Cancellation,
    readonly argsJson: ArgsJson | undefined,
  ) {}

  get method(): 'tools/call' {
    return 'tools/call';
  }

  /** `{ method, params }`: this call. */
  get request(): CallToolRequest {
    return this as unknown as CallToolRequest;
  }

  /** The handler's `extra` for this call: this call. */
  get extra(): Extra {
    return this;
  }

  get requestId(): RequestId {
    return this.id;
  }

  get _meta(): CallToolRequest['params']['_meta'] {
    return this.params._meta;
  }

  /** Made only if a slow path (a prompt, the approval page) asks for it. */
  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  sendNotification(notification: Parameters<Extra['sendNotification']>[0]): Promise<void> {
    return this.server.notification(notification, { relatedRequestId: this.id });
  }

  sendRequest<U extends AnySchema>(request: Parameters<Extra['sendRequest']>[0], schema: U, options?: Parameters<Extra['sendRequest']>[2]): Promise<SchemaOutput<U>> {
    return this.server.request(request, schema, { ...options, relatedRequestId: this.id });
  }

  answer(result: CallToolResult): void {
    this.calls.answered(this.id, this.cancel, { jsonrpc: '2.0', id: this.id, result });
  }

  answerText(resultText: string): void {
    this.calls.answeredText(this.id, this.cancel, resultText);
  }

  fail(error: unknown): void {
    const { code, message, data } = (asRpcError(error) ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
    this.calls.answered(this.id, this.cancel, {
      jsonrpc: '2.0',
      id: this.id,
      error: { code: Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError, message: typeof message === 'string' ? message : 'Internal error', ...(data !== undefined ? { data } : {}) },
    });
  }
}

/**
 * The most values one tools/call request may hold as written (each array entry and object value at
 * any depth, its arguments with the rest of the message; docs/config.md, "limits"). The decision
 * walks a call's arguments about ten times (digest, paths, audit, the line to the server…): one
 * object of 300,000 keys took the gateway ~1.4–4 s of CPU while every other call of every client
 * waited (round 13 review R12); 10,000 keys take ~45 ms (docs/performance.md, "Round 14: wide
 * messages").
 */
export const MAX_CALL_VALUES = 10_000;

/**
 * The answer to a message read as `text` (a line of the stdio client, a POST body of the team
 * gateway's) when it is a tools/call, or a batch, holding more than MAX_CALL_VALUES values: counted
 * on the text before it is parsed (json-shape.ts), and refused, never run. Null for anything else.
 */
export function wideCallRefusal(text: string): JSONRPCMessage | null {
  if (text.length <= mostCharsFor(MAX_CALL_VALUES)) return null;
  const shape = jsonShape(text);
  if (shape.values <= MAX_CALL_VALUES) return null;
  const batch = text.trimStart().startsWith('[');
  if (!batch && shape.method !== 'tools/call') return null;
  const what = batch ? 'Invalid Request: the batch' : 'Invalid params for tools/call: the request';
  const message = `${what} holds ${shape.values.toLocaleString('en-US')} values as written, more than the ${MAX_CALL_VALUES.toLocaleString('en-US')} mcp-latch checks in one call (docs/config.md, "limits"); it was not run`;
  return { jsonrpc: '2.0', id: batch ? null : shape.id, error: { code: batch ? ErrorCode.InvalidRequest : ErrorCode.InvalidParams, message } } as unknown as JSONRPCMessage;
}

/**
 * The audit record of a client's tools/call refused before it was decided (wideCallRefusal, its
 * params' shape, an id in use): every refusal is recorded (round 14 left: the wide call's was not).
 * A refused call's text is not parsed, or not trusted: its tool is recorded as `tools/call`, with
 * no server and no arguments.
 */
export function refusedCallRecord(session: string, user: string | undefined, reason: string): AuditRecord {
  return { session, ...(user === undefined ? {} : { user }), server: '', tool: 'tools/call', kind: 'all', decision: 'deny', by: 'gateway', rule: null, reason, paths: [], command: null, argsDigest: '', args: null, waitMs: 0 };
}

/** What is wrong with tools/call params, or null when they have the shape the spec gives. */
export function paramsProblem(params: unknown): string | null {
  if (!isPlainObject(params)) return 'params must be an object';
  if (typeof params.name !== 'string') return 'name must be a string';
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return 'arguments must be an object';
  if (nestsDeeperThan(params.arguments)) return `arguments nest deeper than ${MAX_DEPTH} levels, the most mcp-latch checks`;
  const proto = protoKeyIn(params.arguments, 'arguments');
  if (proto !== null) return `${proto} holds a key named __proto__, which mcp-latch does not forward (a JavaScript server may take it as the object's prototype, and the arguments then hold what no rule saw)`;
  if (params._meta !== undefined) {
    if (!isPlainObject(params._meta)) return '_meta must be an object';
    const token = params._meta.progressToken;
    if (token !== undefined && typeof token !== 'string' && !Number.isSafeInteger(token)) return '_meta.progressToken must be a string or an integer';
  }
  return null;
}

/**
 * Where `value` holds an own key `__proto__` (JSON.parse makes it a plain key; `Object.assign` or
 * `obj[key] =` in a server makes it the prototype, so `args.path` can come from it), or null. The
 * scanner refuses such lines (call-scan.ts); the full parse's calls are checked here (round 19
 * review of the call scanner: the key reached the server and was missing from the audit record).
 * Only called after nestsDeeperThan, so the walk is bounded.
 */
function protoKeyIn(value: unknown, at: string): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = protoKeyIn(value[i], `${at}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (Object.hasOwn(value, '__proto__')) return at;
  for (const key of Object.keys(value)) {
    const found = protoKeyIn((value as Record<string, unknown>)[key], `${at}.${key}`);
    if (found !== null) return found;
  }
  return null;
}
