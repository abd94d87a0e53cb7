import type { IncomingMessage } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { MODERN_VERSIONS } from '../mcp-2026.js';
import { envelopeOf } from '../gateway/era-2026.js';
import { isPlainObject } from '../values.js';

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
 * Nothing else goes to the client: the revision forbids requests to it (its questions come as
 * `input_required`, gateway/input-required.ts), and the notifications of a request (progress, log
 * messages) are not sent (the answer is one JSON object, not an event stream); list changes would
 * need `subscriptions/listen`, not served. Closing a request's HTTP response cancels it, as the
 * revision says ("Cancellation").
 */
export class StatelessPipe implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private next = 0;
  private closed = false;
  /** Requests in flight, by the gateway's id: the client's own id and where its answer goes. */
  private readonly waiting = new Map<string, { id: RequestId; answer: (message: JSONRPCMessage) => void }>();

  async start(): Promise<void> {}

  /** One client request; returns what cancels it (its HTTP response closed before the answer). */
  request(message: { id: RequestId } & Record<string, unknown>, answer: (message: JSONRPCMessage) => void): () => void {
    const id = `h${++this.next}`;
    this.waiting.set(id, { id: message.id, answer });
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

  async send(message: JSONRPCMessage): Promise<void> {
    const record = message as Record<string, unknown>;
    if (typeof record.method === 'string') {
      // A request to the client: the revision has none (a server's questions are held and asked as
      // input_required); answered here at once, so nothing waits for an answer that cannot come.
      if (typeof record.id === 'string' || typeof record.id === 'number') {
        const refusal = { jsonrpc: '2.0' as const, id: record.id, error: { code: -32601, message: 'mcp-latch sends no requests to a 2026-07-28 client over HTTP' } };
        queueMicrotask(() => this.onmessage?.(refusal));
      }
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
    if (decodedHeader(header) !== named) return `Mcp-Name does not match the request's ${body.method === 'resources/read' ? 'params.uri' : 'params.name'}`;
  }
  return null;
}

/** A header value as sent, or decoded from the revision's Base64 sentinel form (`=?base64?…?=`, "Value Encoding"). */
function decodedHeader(value: string): string {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  return sentinel ? Buffer.from(sentinel[1]!, 'base64').toString('utf8') : value;
}

/** Whether the gateway speaks this modern version. */
export function speaks(version: string): boolean {
  return MODERN_VERSIONS.includes(version);
}
