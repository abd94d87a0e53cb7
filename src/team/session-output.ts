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
 * requests never are. A resource's `notifications/resources/updated` meanwhile is kept, once per
 * resource, and sent when no response waits (past `limits.messageMB` of uris, dropped).
 */
export class SessionOutput {
  private readonly open = new Set<ServerResponse>();
  private dropped = 0;
  /** Characters of the progress and log notifications sent since a response of the session began to wait to drain. */
  private waiting = 0;
  /** The resources told updated while a response waits to drain, each told once when none does. */
  private readonly updated = new UpdatesKept();
  private send: Transport['send'] | null = null;

  constructor(
    /** `limits.messageMB` in bytes, read at each notification (a reload applies at once). */
    private readonly maxBytes: () => number,
    /** The log's lines: when the client falls behind, and when it has caught up with the count. */
    private readonly log: (text: string) => void,
  ) {}

  /** A response of the session, counted until it closes. */
  add(res: ServerResponse): void {
    this.open.add(res);
    res.on('drain', this.drained);
    res.once('close', () => {
      this.open.delete(res);
      this.drained();
    });
  }

  private readonly drained = (): void => {
    if (this.stalled()) return;
    this.waiting = 0;
    if (this.updated.lost > 0) this.log(`the client has caught up: ${this.updated.lost.toLocaleString('en-US')} resource update notifications were dropped while it was behind`);
    const uris = this.updated.take();
    if (!this.send) return;
    for (const uri of uris) void this.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } }).catch(() => undefined);
  };

  /** `transport` sends through this: progress and log notifications are dropped while its client is behind. */
  guard(transport: Transport): void {
    const send = transport.send.bind(transport);
    this.send = send;
    transport.send = (message, options) => {
      const uri = updatedUri(message);
      // "Read it again": one per resource says what many did (as over stdio, R1).
      if (uri !== null && this.stalled()) {
        const lost = this.updated.lost;
        this.updated.keep(uri, this.maxBytes());
        if (lost === 0 && this.updated.lost > 0) this.log(`the client is behind: more than limits.messageMB of resources updated meanwhile wait to be told to it, so further resource updates are dropped until it has read (docs/config.md, "limits")`);
        return Promise.resolve();
      }
      if (mayBeDropped(message) && this.stalled()) {
        if (this.waiting > this.maxBytes()) {
          if (this.dropped++ === 0) this.log(`the client is behind: more than limits.messageMB waits in its responses for it to read, so its progress and log notifications are dropped until it has read them (docs/config.md, "limits")`);
          return Promise.resolve();
        }
        this.waiting += JSON.stringify(message).length;
      } else if (this.dropped > 0 && !this.stalled()) {
        this.log(`the client has caught up: ${this.dropped.toLocaleString('en-US')} progress and log notifications were dropped while it was behind`);
        this.dropped = 0;
      }
      return send(message, options);
    };
  }

  /** A response of the session waits to drain: what is sent now waits in the transport's queue. */
  private stalled(): boolean {
    for (const res of this.open) if (res.writableNeedDrain) return true;
    return false;
  }
}
