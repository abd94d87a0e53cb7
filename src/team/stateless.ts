import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { MODERN_VERSIONS } from '../mcp-2026.js';
import { envelopeOf, LOG_LEVELS, requestedLogLevel } from '../gateway/era-2026.js';
import { ListenedResources, listens, type ListenFilter } from '../gateway/listen.js';
import { isPlainObject } from '../values.js';
import { jsonText } from './json-text.js';

/**
 * MCP 2026-07-28 clients on the team gateway (docs/team.md, "MCP 2026-07-28 clients"). The revision
 * has no sessions over Streamable HTTP (`basic/transports/streamable-http`): each request is its own
 * POST, carrying its version, client info and capabilities in `_meta`, mirrored in headers. The
 * gateway serves them in one standing upstream session per member and replica (team/http.ts
 * `modernChannel`), fed through this transport: each POST's request goes in under an id of the
 * gateway's own (two clients of one member may use the same ids), and its answer comes back on that
 * POST's response. What the session holds between requests is what the stdio gateway holds for a
 * 2026-07-28 client: the request states it signed (bound to this session, so to the member), a 2025
 * server's questions held for a retry, session grants.
 *
 * A request's own notifications (its progress, its servers' log messages) go to its POST's
 * response, which then becomes an event stream (team/http.ts handleModern; the revision's
 * "Receiving Messages"): a log message only when the request named a level in `_meta`
 * (`io.modelcontextprotocol/logLevel`, server/utilities/logging: "The server MUST NOT emit
 * notifications/message for a request that does not include this field"), at or above it. Nothing else goes to the client:
 * the revision forbids requests to it (its questions come as `input_required`,
 * gateway/input-required.ts). Closing a request's HTTP response cancels it, as the revision says
 * ("Cancellation").
 */
export class StatelessPipe implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private next = 0;
  private closed = false;
  /** Requests in flight, by the gateway's id: the client's own id, where its answer and notifications go, and the log level it asked for. */
  private readonly waiting = new Map<string, { id: RequestId; answer: (message: JSONRPCMessage) => void; notify: ((message: JSONRPCMessage) => void) | undefined; logLevel: number | null }>();

  /** Open `subscriptions/listen` streams of the member's clients (team/http.ts serveListen). */
  private readonly listeners = new Set<{ filter: ListenFilter; notify: (message: JSONRPCMessage) => void }>();
  /** The resources open listens name: the standing session is subscribed to each while any does. */
  private readonly watched = new ListenedResources();
  /** Where a subscription the session's server refused is told (the gateway's log). */
  onrefused?: (uri: string, message: string) => void;

  async start(): Promise<void> {}

  /**
   * A `subscriptions/listen` of one of the member's clients: `notify` takes each change the filter
   * opted in to (list changes, updates of the resources it names or of one under them); returns
   * what ends it. The standing session subscribes to each named resource with its first listen and
   * unsubscribes with its last (gateway/subscriptions.ts: the shared server is told only then).
   */
  listen(filter: ListenFilter, notify: (message: JSONRPCMessage) => void): () => void {
    const listener = { filter, notify };
    this.listeners.add(listener);
    for (const uri of this.watched.opened(filter)) this.own('resources/subscribe', uri);
    return () => {
      if (!this.listeners.delete(listener)) return;
      for (const uri of this.watched.ended(filter)) if (!this.closed) this.own('resources/unsubscribe', uri);
    };
  }

  /** A request of the pipe's own to the standing session (its listens' subscriptions). */
  private own(method: 'resources/subscribe' | 'resources/unsubscribe', uri: string): void {
    const id = `l${++this.next}`;
    this.waiting.set(id, {
      id,
      answer: (answer) => {
        const error = (answer as { error?: { message?: unknown } }).error;
        if (error && method === 'resources/subscribe' && !this.closed) this.onrefused?.(uri, String(error.message));
      },
      notify: undefined,
      logLevel: null,
    });
    this.onmessage?.({ jsonrpc: '2.0', id, method, params: { uri } });
  }

  /** One client request; returns what cancels it (its HTTP response closed before the answer). `notify` takes the request's own notifications. */
  request(message: { id: RequestId } & Record<string, unknown>, answer: (message: JSONRPCMessage) => void, notify?: (message: JSONRPCMessage) => void): () => void {
    const id = `h${++this.next}`;
    this.waiting.set(id, { id: message.id, answer, notify, logLevel: requestedLogLevel(message.params) });
    this.onmessage?.({ ...message, id } as JSONRPCMessage);
    return () => {
      if (!this.waiting.delete(id) || this.closed) return;
      this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the client closed its HTTP request' } });
    };
  }

  /** Requests in flight. */
  get inFlight(): number {
    return this.waiting.size;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const record = message as Record<string, unknown>;
    if (typeof record.method === 'string') {
      // A request to the client: the revision has none (a server's questions are held and asked as
      // input_required); answered here at once, so nothing waits for an answer that cannot come.
      if (typeof record.id === 'string' || typeof record.id === 'number') {
        const refusal = { jsonrpc: '2.0' as const, id: record.id, error: { code: -32601, message: 'mcp-latch sends no requests to a 2026-07-28 client over HTTP' } };
        queueMicrotask(() => this.onmessage?.(refusal));
        return;
      }
      // A request's notification goes with it, or nowhere; a change goes to the listens that opted in to it.
      if (options?.relatedRequestId !== undefined) {
        const entry = this.waiting.get(String(options.relatedRequestId));
        if (entry?.notify && wanted(record, entry.logLevel)) entry.notify(message);
        return;
      }
      for (const listener of this.listeners) if (listens(listener.filter, record)) listener.notify(message);
      return;
    }
    const entry = this.waiting.get(String(record.id));
    if (!entry) return;
    this.waiting.delete(String(record.id));
    entry.answer({ ...record, id: entry.id } as JSONRPCMessage);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [, entry] of this.waiting) entry.answer({ jsonrpc: '2.0', id: entry.id, error: { code: -32000, message: 'the gateway closed this member\'s 2026-07-28 session (idle, or stopping)' } });
    this.waiting.clear();
    this.onclose?.();
  }
}

/** Whether a request's notification goes to its client: a log message only at or above the level the request named. */
function wanted(notification: Record<string, unknown>, logLevel: number | null): boolean {
  if (notification.method !== 'notifications/message') return true;
  const level = isPlainObject(notification.params) ? LOG_LEVELS.indexOf(String(notification.params.level)) : -1;
  return logLevel !== null && level >= logLevel;
}

/** JSON-RPC HeaderMismatch of 2026-07-28. */
export const HEADER_MISMATCH = -32020;
/** UnsupportedProtocolVersionError of 2026-07-28. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** The version a POST names in `MCP-Protocol-Version` when it is of the 2026-07-28 era or later; null for another (a handshake-era client's, or none). */
export function modernVersion(req: IncomingMessage): string | null {
  const version = req.headers['mcp-protocol-version'];
  return typeof version === 'string' && version >= '2026-07-28' ? version : null;
}

/**
 * Why a modern POST's headers do not say what its body says, or null (2026-07-28
 * streamable-http, "Server Validation": `MCP-Protocol-Version` against the body's
 * `io.modelcontextprotocol/protocolVersion`, `Mcp-Method` against `method`, `Mcp-Name` against
 * `params.name` or `params.uri`; a load balancer may route by the headers while the gateway acts
 * on the body). An unsupported version is the caller's to answer first.
 */
export function headerMismatch(req: IncomingMessage, body: Record<string, unknown>, version: string): string | null {
  // Without the envelope the request would be served as one of the handshake era in a session that never shook hands.
  const envelope = envelopeOf(body.params);
  if (!envelope) return `MCP-Protocol-Version is ${version} but the request's _meta names no io.modelcontextprotocol/protocolVersion of that era`;
  if (envelope.version !== version) return `MCP-Protocol-Version is ${version} but the request's _meta says ${envelope.version}`;
  const method = req.headers['mcp-method'];
  if (method !== body.method) return typeof method === 'string' ? `Mcp-Method is ${method} but the request's method is ${String(body.method)}` : 'the Mcp-Method header is missing';
  if (body.method === 'tools/call' || body.method === 'prompts/get' || body.method === 'resources/read') {
    const params = isPlainObject(body.params) ? body.params : {};
    const named = body.method === 'resources/read' ? params.uri : params.name;
    const header = req.headers['mcp-name'];
    if (typeof header !== 'string') return 'the Mcp-Name header is missing';
    const decoded = decodedHeader(header);
    if (decoded === null) return 'Mcp-Name carries a Base64 sentinel (=?base64?…?=) whose payload is not canonical Base64 of UTF-8';
    if (decoded !== named) return `Mcp-Name does not match the request's ${body.method === 'resources/read' ? 'params.uri' : 'params.name'}`;
  }
  return null;
}

/** Canonical Base64 (RFC 4648 §4, padded): one reading only. */
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A header value as sent, or decoded from the revision's Base64 sentinel form (`=?base64?…?=`,
 * "Value Encoding"); null for a sentinel whose payload is not canonical Base64 of UTF-8, which the
 * revision has servers reject. Security: Node's decoder stops at the first `=` and drops what it
 * cannot read, so `Z2V0=ZWNobw==` read "get" here while a proxy deciding on the header may read
 * otherwise (round 31 review, T31-5: taken).
 */
export function decodedHeader(value: string): string | null {
  if (!(value.startsWith('=?base64?') && value.endsWith('?=') && value.length >= '=?base64??='.length)) return value;
  const payload = value.slice('=?base64?'.length, -'?='.length);
  if (!CANONICAL_BASE64.test(payload)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return null;
  }
}

/** Whether the gateway speaks this modern version. */
export function speaks(version: string): boolean {
  return MODERN_VERSIONS.includes(version);
}

/** Whether a POST's `Accept` takes an event stream (the revision's clients send both types). */
export function acceptsStream(req: IncomingMessage): boolean {
  return /\btext\/event-stream\b/i.test(req.headers.accept ?? '');
}

/**
 * One 2026-07-28 request's response: one JSON object, or, once the request has a notification
 * for a client that accepts it, an event stream of its notifications and then its answer (the
 * revision's streamable-http, "Sending Messages" 6 and "Receiving Messages"). What waits for a
 * client that does not read is bounded as a session's stream is (team/session-output.ts): past
 * `limits.messageMB` written and not yet read, the request's notifications are dropped (a progress
 * update is superseded by the next; a log line is kept in the gateway's log), logged once with the
 * count; the answer never is.
 */
export class RequestStream {
  private streaming = false;
  private dropped = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly accepts: boolean,
    /** `limits.messageMB` in bytes. */
    private readonly maxBytes: () => number,
    private readonly log: (text: string) => void,
    /** Before each write: true when the member's unread responses are past http.maxUnreadMBPerUser and this one was ended for it (team/http.ts modernOverUnread). */
    private readonly overUnread: () => boolean = () => false,
  ) {}

  /** A notification of the request: sent on its stream (opened at the first), or dropped when the client takes no stream or has not read. */
  send(message: JSONRPCMessage): void {
    if (!this.accepts || this.res.writableEnded || this.res.destroyed || this.overUnread()) return;
    if (!this.streaming) {
      // X-Accel-Buffering: the revision asks for it, so a proxy does not hold the stream back.
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      this.streaming = true;
    }
    if (this.res.writableLength > this.maxBytes()) {
      if (this.dropped++ === 0) this.log('the client is behind: more than limits.messageMB waits in a 2026-07-28 request\'s response for it to read, so its progress and log notifications are dropped until it has read them (docs/config.md, "limits")');
      return;
    }
    this.res.write(event(message));
  }

  /** Ends the stream with the answer; false when no stream was opened (the answer is then one JSON object). */
  end(answer: JSONRPCMessage): boolean {
    if (!this.streaming) return false;
    if (this.dropped > 0) this.log(`${this.dropped.toLocaleString('en-US')} progress and log notifications of a 2026-07-28 request were dropped while its client was behind`);
    this.res.end(event(answer));
    return true;
  }
}

function event(message: JSONRPCMessage): string {
  return `event: message\ndata: ${jsonText(message)}\n\n`;
}
