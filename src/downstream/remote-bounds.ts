import { randomUUID } from '../node-crypto.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonShape, mostCharsFor } from '../json-shape.js';
import { MAX_CHECKED_VALUES, tooManyValues } from './answer-entries.js';
import { schemaProblem } from './invalid-answer.js';
import { oversizedText, sniffId } from './lines.js';
// The gateway's own answers live in own-answer.ts: child-transport.ts, in boot.cjs, makes them too,
// and this module (zod and the SDK's types through invalid-answer.ts) is not for the code before
// the first spawn (docs/performance.md, "Round 25: ten servers").
import { ownAnswer, type GatewayAnswer } from './own-answer.js';
import { OwnAnswers } from './server-requests.js';
import type { Logger } from '../log.js';
export { gatewayAnswer, ownAnswer, type GatewayAnswer } from './own-answer.js';

/**
 * A remote server's answers held to what a stdio server's are (docs/config.md, "limits"): each
 * message at most `limits.messageMB` (lines.ts), a tools/call answer of more values than
 * answer-entries.ts checks dropped before it is parsed (json-shape.ts). The SDK's HTTP and SSE
 * transports read a whole body, however big, and parse it on the gateway's one thread: a 75 MB
 * answer took 104 s of CPU and 1.5 GiB while every other server's calls waited, and one of 60 MB
 * was passed to the client, whose SDK closed the connection (round 16 review H4).
 *
 * The transports get a fetch (`boundedFetch`) whose answers are read here first: a JSON body whole,
 * an event stream one event at a time, each held until it is complete and within the limit. What
 * is refused, and a request's event stream that ends or is cut without its answer (the SDK then
 * never answered the call: round 16 review H5), becomes a JSON-RPC error answering the request,
 * marked in its `data` (`GatewayAnswer`) so the call's text can say the call was forwarded.
 */

/**
 * The text put into a remote answer's stream, which the SDK parses, carries this process's nonce (`processNonce`),
 * which no server is sent, and `RemoteBounds.filter` makes it an own answer again (own-answer.ts).
 */
let madeNonce: string | undefined;
// Made at its first use, with node:crypto loaded then (node-crypto.ts): made when the module was
// evaluated, node:crypto's 16 modules were loaded before every first list (docs/performance.md,
// "Round 25: ten servers"). A stream's text compared before any was made carried no nonce of ours.
const processNonce = (): string => (madeNonce ??= randomUUID());

/** The data of an answer `answer` put into a remote stream, as the SDK parsed it back, or null. */
function streamedAnswer(data: unknown): GatewayAnswer | null {
  if (typeof data !== 'object' || data === null) return null;
  const { mcpLatch, text, nonce } = data as Record<string, unknown>;
  return nonce === processNonce() && (mcpLatch === 'too-large' || mcpLatch === 'unanswered') && typeof text === 'string' ? { mcpLatch, text } : null;
}

type RequestId = string | number;

/** The gateway's replies to a remote server's own requests being sent at once (each a POST), past which its further requests are dropped (RemoteBounds.takesRequest). */
export const MAX_REPLIES_IN_FLIGHT = 16;

/**
 * The bounds of one remote connection: `fetch` for its transport, and `attach`, which makes the
 * answer for a request whose stream ended without one say why (an unreadable answer, a cut stream).
 */
export class RemoteBounds {
  /** Requests whose event stream is being read, and of those, the ones the SDK delivered an answer to. */
  private readonly open = new Set<RequestId>();
  private readonly answered = new Set<RequestId>();
  /** tools/call requests sent and not yet answered: their answers on a stream not the request's own (legacy SSE, the GET stream) are counted before parse too. */
  private readonly calls = new Set<RequestId>();
  /** The last answer the SDK could not read (its schema refused it), for the text of the call it left unanswered. */
  private unreadable: string | null = null;

  constructor(private readonly maxBytes: number) {}

  readonly fetch = (base: typeof fetch): typeof fetch => async (input, init) => {
    const sent = typeof init?.body === 'string' ? requestOf(init.body) : null;
    if (sent?.call) this.calls.add(sent.id);
    const response = await base(input, init);
    const body = response.body;
    // A redirect is read by the SDK's own fetch wrapper (its url and type would be lost here); 202 has no answer.
    if (!body || response.status === 202 || (response.status >= 300 && response.status < 400)) return response;
    // An error status's body is read by the SDK for its message: over the limit, it fails as a whole.
    const request = response.ok ? sent : null;
    const media = (response.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
    const bounded = media === 'text/event-stream' ? this.events(body, request) : this.whole(body, request);
    try {
      return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch {
      return response;
    }
  };

  /**
   * The server's own requests: those the gateway answers itself at most OWN_ANSWERS_PER_WINDOW a
   * second (server-requests.ts), and none while MAX_REPLIES_IN_FLIGHT of the gateway's replies to
   * it are still being sent. Each reply to a remote server is a POST of its own: a server flooding
   * `ping` on its event stream and holding those POSTs open stalled every server's calls and grew
   * the gateway ~15 MB a second (round 28 review, P28-4).
   */
  private ownAnswers: OwnAnswers | null = null;
  private readonly checked = new WeakSet<object>();
  private repliesInFlight = 0;
  /** The server's requests dropped while its replies were full, since the warning (null: none warned of). */
  private droppedWhileFull: number | null = null;
  private warn: (fields: Record<string, unknown>, message: string) => void = () => undefined;

  /** Wraps the transport's handlers (set by the SDK's Client when it connects, before or after this), and its send, which counts the replies in flight. */
  attach(transport: Transport, logger?: Logger): void {
    if (logger) this.warn = (fields, message) => logger.warn(fields, message);
    this.ownAnswers = new OwnAnswers(this.warn);
    const send = transport.send.bind(transport);
    const replied = (): void => {
      this.repliesInFlight -= 1;
      if (this.droppedWhileFull !== null && this.repliesInFlight < MAX_REPLIES_IN_FLIGHT) {
        this.warn({ dropped: this.droppedWhileFull, limit: MAX_REPLIES_IN_FLIGHT }, `dropped ${this.droppedWhileFull.toLocaleString('en-US')} requests of this server, unanswered, while ${MAX_REPLIES_IN_FLIGHT} of mcp-latch's replies to it were still being sent`);
        this.droppedWhileFull = null;
      }
    };
    transport.send = (message, options) => {
      if (!('id' in message) || 'method' in message) return send(message, options);
      this.repliesInFlight += 1;
      const sent = send(message, options);
      sent.then(replied, replied);
      return sent;
    };
    let onmessage: Transport['onmessage'];
    let onerror: Transport['onerror'];
    Object.defineProperty(transport, 'onmessage', {
      get: () => (onmessage ? this.filter(onmessage) : undefined),
      set: (handler: Transport['onmessage']) => (onmessage = handler),
      configurable: true,
    });
    Object.defineProperty(transport, 'onerror', {
      get: () =>
        onerror &&
        ((error: Error) => {
          this.unreadable = schemaProblem(error) ?? this.unreadable;
          onerror?.(error);
        }),
      set: (handler: Transport['onerror']) => (onerror = handler),
      configurable: true,
    });
  }

  private filter(deliver: NonNullable<Transport['onmessage']>): NonNullable<Transport['onmessage']> {
    return (message, extra) => {
      // Once a message: the Client's handler and DirectCalls' (direct-calls.ts) are both filtered.
      if ('method' in message && 'id' in message && !this.checked.has(message)) {
        if (!this.takesRequest(message.method)) return;
        this.checked.add(message);
      }
      const id = 'id' in message && !('method' in message) ? message.id : undefined;
      if (id === undefined) return deliver(message, extra);
      this.calls.delete(id);
      const ours = 'error' in message ? streamedAnswer(message.error.data) : null;
      const delivered = ours ? answerMessage(id, ours.mcpLatch, ours.text) : message;
      if (!this.open.has(id)) return deliver(delivered, extra);
      if (ours?.mcpLatch !== 'unanswered') {
        this.answered.add(id);
        return deliver(delivered, extra);
      }
      this.open.delete(id);
      if (this.answered.delete(id)) return;
      const text = ours.text === UNREADABLE && this.unreadable ? `${UNREADABLE}: ${this.unreadable}` : ours.text;
      this.unreadable = null;
      return deliver(answerMessage(id, 'unanswered', text), extra);
    };
  }

  /** Whether a request of the server's is passed to the Client (which answers it, or relays it); false: dropped unanswered, and counted. */
  private takesRequest(method: string): boolean {
    if (this.repliesInFlight >= MAX_REPLIES_IN_FLIGHT) {
      if (this.droppedWhileFull === null) {
        this.droppedWhileFull = 0;
        this.warn({ limit: MAX_REPLIES_IN_FLIGHT }, `${MAX_REPLIES_IN_FLIGHT} of mcp-latch's replies to this server's own requests are still being sent (it does not take them): its further requests are dropped, unanswered, until fewer are`);
      }
      this.droppedWhileFull += 1;
      return false;
    }
    return this.ownAnswers === null || this.ownAnswers.takes(method);
  }

  /** A body that is not an event stream: read whole, up to the limit; a tools/call answer's values are counted before it is parsed. */
  private whole(body: ReadableStream<Uint8Array>, request: Request | null): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    const { maxBytes } = this;
    return new ReadableStream({
      async start(controller) {
        const parts: Uint8Array[] = [];
        let bytes = 0;
        for (;;) {
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await reader.read();
          } catch (error) {
            if (request === null) return controller.error(error);
            return finish(controller, answer(request.id, 'unanswered', CUT));
          }
          if (next.done) break;
          bytes += next.value.byteLength;
          if (bytes > maxBytes) {
            void reader.cancel().catch(() => undefined);
            if (request === null) return controller.error(new Error(tooLarge(maxBytes)));
            return finish(controller, answer(request.id, 'too-large', tooLarge(maxBytes)));
          }
          parts.push(next.value);
        }
        const refused = request?.call ? tooMany(parts, bytes, request.id) : null;
        if (refused) return finish(controller, refused);
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }

  /**
   * An event stream, passed on one event at a time once it is complete (a blank line ends it). An
   * event over the limit ends a request's stream with an answer saying so; on a stream not a
   * request's (the GET stream, legacy SSE) it is skipped to its end, and answers the request whose id
   * its ends show, as a stdio line over the limit does (lines.ts).
   */
  private events(body: ReadableStream<Uint8Array>, request: Request | null): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    const { maxBytes, open, calls } = this;
    let held: Uint8Array[] = [];
    let heldBytes = 0;
    let lineStart = true;
    let afterCR = false;
    let skipping: { bytes: number; head: string; tail: Uint8Array } | null = null;
    /** An event gave an id: the stream can be resumed, and the SDK reconnects to get the answer (the Streamable HTTP spec's resumability). */
    let resumable = false;
    if (request) open.add(request.id);
    /** The stream's end: a request's, unless it can be resumed, ends with the marker the filter reads (it is dropped when the answer came). */
    const end = (controller: ReadableStreamDefaultController<Uint8Array>, text: string): void => {
      if (request && !resumable) put(controller, eventOf(answer(request.id, 'unanswered', text)));
      else if (request) open.delete(request.id);
      finished = true;
      controller.close();
    };
    // A pull that passes nothing on is not called again by the stream: it reads on until it passes something.
    let passed = 0;
    let finished = false;
    const put = (controller: ReadableStreamDefaultController<Uint8Array>, bytes: Uint8Array): void => {
      passed += 1;
      controller.enqueue(bytes);
    };
    const step = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> => {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        if (!request || resumable) {
          finished = true;
          return controller.error(error);
        }
        return end(controller, CUT);
      }
      if (next.done) return end(controller, UNREADABLE);
      const chunk = next.value;
      let start = 0;
      for (let index = 0; index < chunk.length; index++) {
        const byte = chunk[index]!;
        if (afterCR && byte === 10) {
          afterCR = false;
          continue;
        }
        afterCR = byte === 13;
        if (byte !== 10 && byte !== 13) {
          lineStart = false;
          continue;
        }
        if (!lineStart) {
          lineStart = true;
          continue;
        }
        // A blank line: the event ends here.
        const piece = chunk.subarray(start, index + 1);
        start = index + 1;
        if (skipping) {
          const over = skipping;
          skipping = null;
          const id = sniffId(dataOf(over.head), dataOf(Buffer.from([...over.tail, ...piece.subarray(-256)]).toString('utf8')));
          if (id !== null) put(controller, eventOf(answer(id, 'too-large', tooLarge(maxBytes, over.bytes + piece.length))));
          continue;
        }
        held.push(piece);
        const event = held.length === 1 ? held[0]! : Buffer.concat(held);
        held = [];
        heldBytes = 0;
        if (!resumable && request && /^id:/m.test(Buffer.from(event.buffer, event.byteOffset, Math.min(event.length, 4096)).toString('utf8'))) resumable = true;
        if (!request) {
          // Not a request's stream: an answer to a call sent on another is counted by the id it gives.
          const id = event.length > mostCharsFor(MAX_CHECKED_VALUES) ? eventId(event) : null;
          const refused = id !== null && calls.has(id) ? tooMany([event], event.length, id) : null;
          put(controller, refused ? eventOf(refused) : event);
          continue;
        }
        const refused = request.call ? tooMany([event], event.length, request.id) : null;
        if (refused) {
          void reader.cancel().catch(() => undefined);
          open.delete(request.id);
          put(controller, eventOf(refused));
          finished = true;
          return controller.close();
        }
        put(controller, event);
      }
      const rest = chunk.subarray(start);
      if (skipping) {
        skipping.bytes += rest.length;
        skipping.tail = rest.length >= 256 ? rest.subarray(-256) : Buffer.concat([skipping.tail, rest]).subarray(-256);
        return;
      }
      held.push(rest);
      heldBytes += rest.length;
      if (heldBytes <= maxBytes) return;
      if (request) {
        void reader.cancel().catch(() => undefined);
        open.delete(request.id);
        put(controller, eventOf(answer(request.id, 'too-large', tooLarge(maxBytes))));
        finished = true;
        return controller.close();
      }
      const whole = Buffer.concat(held);
      skipping = { bytes: whole.length, head: whole.subarray(0, 512).toString('utf8'), tail: Buffer.from(whole.subarray(-256)) };
      held = [];
      heldBytes = 0;
    };
    return new ReadableStream({
      async pull(controller) {
        const before = passed;
        while (passed === before && !finished) await step(controller);
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }
}

/** The request a POST carries: its id, and whether it is a tools/call. */
interface Request {
  id: RequestId;
  call: boolean;
}

/** A request as the SDK's Protocol writes it (`method` first, `id` last) or direct-calls.ts does (`jsonrpc`, `id`, `method`). */
const REQUEST_HEAD = /^\{(?:"jsonrpc":"2\.0","id":(?:-?\d+|"(?:[^"\\]|\\.)*"),)?"method":"([^"\\]*)"/;

function requestOf(body: string): Request | null {
  const method = REQUEST_HEAD.exec(body.slice(0, 256))?.[1];
  if (method === undefined) return null;
  const id = sniffId(body.slice(0, 256), body.slice(-256));
  return id === null ? null : { id, call: method === 'tools/call' };
}

/** The texts of a request left unanswered: its stream was cut, or it ended without an answer the SDK could read (the filter adds why, when the SDK said). */
const CUT = 'the connection to the server was cut before its answer was complete';
const UNREADABLE = 'its answer could not be read';

function tooLarge(maxBytes: number, bytes?: number): string {
  return oversizedText("the server's message", { bytes: bytes ?? null }, maxBytes);
}

/** The answer `parts` hold (`bytes` long) refused for its values, counted on its text as a stdio server's is (direct-calls.ts, takeWide); or null. */
function tooMany(parts: readonly Uint8Array[], bytes: number, id: RequestId): string | null {
  if (bytes <= mostCharsFor(MAX_CHECKED_VALUES)) return null;
  const text = Buffer.concat(parts).toString('utf8');
  const shape = jsonShape(dataOf(text));
  return shape.values > MAX_CHECKED_VALUES ? answer(id, 'too-large', tooManyValues(shape.values)) : null;
}

/** The id an event's message gives, read from its ends as an oversized one's is. */
function eventId(event: Uint8Array): RequestId | null {
  const bytes = Buffer.from(event.buffer, event.byteOffset, event.byteLength);
  return sniffId(dataOf(bytes.subarray(0, 512).toString('utf8')), dataOf(bytes.subarray(-256).toString('utf8')));
}

/** The JSON of an event's data lines (or the text itself when it is not an event). */
function dataOf(text: string): string {
  if (!/^(?:data|event|id|retry|:)/m.test(text.slice(0, 64))) return text;
  return text
    .split(/\r\n|\r|\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
}

/** A JSON-RPC error answering `id` in the server's place. */
function answerMessage(id: RequestId, kind: GatewayAnswer['mcpLatch'], text: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: -32603, message: `mcp-latch: ${text}`, data: ownAnswer(kind, text) } };
}

/** The text of an answer put into a remote stream in the server's place (read back by streamedAnswer). */
function answer(id: RequestId, kind: GatewayAnswer['mcpLatch'], text: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: `mcp-latch: ${text}`, data: { mcpLatch: kind, text, nonce: processNonce() } } });
}

function eventOf(json: string): Uint8Array {
  return Buffer.from(`event: message\ndata: ${json}\n\n`);
}

/** A message the SDK delivers as the answer for an unanswered request (RemoteBounds.filter). */
function finish(controller: ReadableStreamDefaultController<Uint8Array>, json: string): void {
  controller.enqueue(Buffer.from(json));
  controller.close();
}
