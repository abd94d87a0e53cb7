import type { ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { mayBeDropped, UpdatesKept, updatedUri } from '../gateway/client-behind.js';

/**
 * What one team session's open responses (its calls' event streams, its GET stream) hold for its
 * client to read (docs/team.md, "What one user's requests may hold"). Node buffers what a response
 * cannot send yet without bound: a member whose client did not read its call's stream while the
 * server streamed progress grew the shared gateway 86 -> 309 MB for 3,000 updates of 64 KB, every
 * member's gateway (round 21 review, review-diff21 R4; the stdio gateway's F1, round 20). The SDK's
 * transport queues each message in a web stream that is written to the response only as the
 * response drains (@hono/node-server), so what waits is counted here: the progress and log
 * notifications sent while a response of the session waits to drain. Past `limits.messageMB` of
 * them they are dropped until it has drained, as over stdio (gateway/stdio-upstream.ts); answers and
 * requests never are. A resource's `notifications/resources/updated` goes on the session's event
 * stream (GET): while that stream waits to drain it is kept, once per resource, and sent when the
 * stream has drained (past `limits.messageMB` of uris, dropped); what another response holds does
 * not count (round 24: until then one large answer not read yet held every update of a stream the
 * client read as they came; test/team/client-behind.test.ts).
 */
export class SessionOutput {
  private readonly open = new Set<ServerResponse>();
  private dropped = 0;
  /**
   * Bytes of the progress and log notifications sent to each response since it began to wait
   * to drain (null: to a response this does not know, counted while any waits). Only these wait:
   * a notification for a response that drains goes out, whatever another response holds (round 23:
   * one large answer not read yet dropped the progress of another call whose stream was read, as
   * over stdio until be651db; test/team/client-behind.test.ts).
   */
  private readonly waiting = new Map<ServerResponse | null, number>();
  /** The response of each request of the session still open (a POST's event stream), by JSON-RPC id. */
  private readonly byRequest = new Map<string, ServerResponse>();
  /** The session's event stream (GET): where a notification of no request goes. */
  private standalone: ServerResponse | null = null;
  /** The resources told updated while a response waits to drain, each told once when none does. */
  private readonly updated = new UpdatesKept();
  private send: Transport['send'] | null = null;

  constructor(
    /** `limits.messageMB` in bytes, read at each notification (a reload applies at once). */
    private readonly maxBytes: () => number,
    /** The log's lines: when the client falls behind, and when it has caught up with the count. */
    private readonly log: (text: string) => void,
    /**
     * Before any message is sent while this session's responses hold some unread: true when the
     * member's unread responses are past http.maxUnreadMBPerUser, and the session was closed for it
     * (http.ts); the message is then dropped.
     */
    private readonly overUnread: () => boolean = () => false,
  ) {}

  /**
   * What the session's open responses hold that their client has not read yet: Node's buffers of
   * them (@hono/node-server writes each message as the response drains). The answers included: a
   * member whose client never read them held every one in the shared gateway (round 27 review, P27-6).
   */
  unreadBytes(): number {
    let total = 0;
    for (const res of this.open) total += res.writableLength + (this.queued.get(res) ?? 0);
    return total;
  }

  /**
   * The bytes of the messages sent to each response while it waited to drain, less what it has
   * written since (bytes: until round 29 a message counted its characters and a write took off its
   * bytes, so three-byte text was a third of what it held; round 29 review, P29-3): what waits in the SDK transport's stream, which @hono/node-server writes to the
   * response only as it drains, and which Node's `writableLength` does not count. One POST holding a
   * batch of 40 calls of 8 MB answers, never read, held 320 MB past a bound of 16 (round 28 review,
   * P28-1): its response's buffer held one answer, the stream the other 39. A message sent while its
   * response drains goes out at once and is not counted; what one such message writes later takes
   * from the count no further than zero.
   */
  private readonly queued = new Map<ServerResponse, number>();

  /** Ends every open response of the session at once, what they hold unread dropped (the session is closed for it). */
  endAll(): void {
    for (const res of this.open) res.destroy();
  }

  /** A response of the session, counted until it closes: a POST's, answering `requests`, or the event stream (GET). */
  add(res: ServerResponse, requests: ReadonlyArray<string | number> = [], standalone = false): void {
    this.open.add(res);
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      const queued = this.queued.get(res);
      if (queued !== undefined) {
        const left = queued - (typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.length : 0);
        if (left > 0) this.queued.set(res, left);
        else this.queued.delete(res);
      }
      return write(chunk, ...rest);
    }) as ServerResponse['write'];
    for (const id of requests) this.byRequest.set(String(id), res);
    if (standalone) this.standalone = res;
    const drained = () => {
      this.waiting.delete(res);
      this.drained();
    };
    res.on('drain', drained);
    res.once('close', () => {
      this.open.delete(res);
      this.queued.delete(res);
      for (const id of requests) if (this.byRequest.get(String(id)) === res) this.byRequest.delete(String(id));
      if (this.standalone === res) this.standalone = null;
      drained();
    });
  }

  private drained(): void {
    this.tellUpdated();
    if (this.stalled()) return;
    this.waiting.clear();
  }

  /** The resources kept while the event stream waited, told once it no longer does (or is gone: the SDK then drops them, as any update then). */
  private tellUpdated(): void {
    if (this.streamWaits() || (this.updated.size === 0 && this.updated.lost === 0)) return;
    if (this.updated.lost > 0) this.log(`the client has caught up: ${this.updated.lost.toLocaleString('en-US')} resource update notifications were dropped while it was behind`);
    const uris = this.updated.take();
    if (!this.send) return;
    for (const uri of uris) void this.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } }).catch(() => undefined);
  }

  /** The session's event stream, where resource updates go, waits to drain. */
  private streamWaits(): boolean {
    return this.standalone !== null && this.open.has(this.standalone) && this.standalone.writableNeedDrain;
  }

  /** `transport` sends through this: progress and log notifications are dropped while its client is behind. */
  guard(transport: Transport): void {
    const send = transport.send.bind(transport);
    this.send = send;
    transport.send = (message, options) => {
      // Past the member's bound of unread responses: the session is closed, nothing more kept for it.
      const stalled = this.stalled();
      if (stalled && this.overUnread()) return Promise.resolve();
      const uri = updatedUri(message);
      // "Read it again": one per resource says what many did (as over stdio, R1). Only the stream
      // it goes on counts: another response's large answer, not read yet, holds nothing of it.
      if (uri !== null && this.streamWaits()) {
        const lost = this.updated.lost;
        this.updated.keep(uri, this.maxBytes());
        if (lost === 0 && this.updated.lost > 0) this.log(`the client is behind: more than limits.messageMB of resources updated meanwhile wait to be told to it, so further resource updates are dropped until it has read (docs/config.md, "limits")`);
        return Promise.resolve();
      }
      if (mayBeDropped(message)) {
        // The response it goes on (the SDK's transport picks it by relatedRequestId, else the event stream).
        const related = options?.relatedRequestId;
        const known = related === undefined ? this.standalone : this.byRequest.get(String(related));
        const target = known && this.open.has(known) ? known : null;
        if (target ? target.writableNeedDrain : this.stalled()) {
          if (this.waitingTotal() > this.maxBytes()) {
            if (this.dropped++ === 0) this.log(`the client is behind: more than limits.messageMB waits in its responses for it to read, so its progress and log notifications are dropped until it has read them (docs/config.md, "limits")`);
            return Promise.resolve();
          }
          this.waiting.set(target, (this.waiting.get(target) ?? 0) + Buffer.byteLength(JSON.stringify(message)));
          this.countQueued(message, related);
          return send(message, options);
        }
      }
      if (this.dropped > 0 && !this.stalled()) {
        this.log(`the client has caught up: ${this.dropped.toLocaleString('en-US')} progress and log notifications were dropped while it was behind`);
        this.dropped = 0;
      }
      if (stalled) this.countQueued(message, options?.relatedRequestId);
      return send(message, options);
    };
  }

  /**
   * A message that will wait in the transport's stream: its response (where the SDK's transport
   * sends it: an answer by its id, another message by the request it relates to, else the event
   * stream) waits to drain. Counted in that response's `queued` (unreadBytes).
   */
  private countQueued(message: Parameters<Transport['send']>[0], related: string | number | undefined): void {
    const answered = 'id' in message && !('method' in message) ? (message as { id: string | number }).id : related;
    const res = answered === undefined ? this.standalone : this.byRequest.get(String(answered));
    if (!res || !res.writableNeedDrain || !this.open.has(res)) return;
    // The event's frame (`event: message`, `data: `, the blank line) besides the JSON.
    this.queued.set(res, (this.queued.get(res) ?? 0) + Buffer.byteLength(JSON.stringify(message)) + 24);
  }

  /** What waits in all the session's responses, of the notifications counted. */
  private waitingTotal(): number {
    let total = 0;
    for (const chars of this.waiting.values()) total += chars;
    return total;
  }

  /** A response of the session waits to drain: what is sent now waits in the transport's queue. */
  private stalled(): boolean {
    for (const res of this.open) if (res.writableNeedDrain) return true;
    return false;
  }
}
