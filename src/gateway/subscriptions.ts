import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { MAX_SESSION_SUBSCRIPTIONS } from '../config/limits.js';
import { RpcError } from '../errors.js';

/**
 * Which client sessions subscribed to which resource of which server (docs/team.md, "What shared
 * servers send back"). A server is sent `resources/subscribe` for a resource when the first
 * session subscribes to it, and `resources/unsubscribe` when the last one unsubscribes or ends;
 * its `notifications/resources/updated` go to the sessions subscribed to that resource, or to one
 * it is a sub-resource of (the spec allows that). Until round 17 each session's subscribe and
 * unsubscribe went straight to the shared server: one member's unsubscribe ended another's updates,
 * and every session was told of every update, so each member learnt what the others watched
 * (round 16 review T5).
 */

/** What a subscription needs of the server it is made on (a Supervisor). */
export interface SubscribedServer {
  name: string;
  /** Which connection to the server is current: one made after a restart holds none of the subscriptions made before. */
  readonly connection: number;
}

interface Watched {
  /** The subscribed sessions' clients, by session id. */
  sessions: Map<string, Server>;
  /** The connection the server was last sent a subscribe on. */
  connection: number;
  /** The last subscribe or unsubscribe sent for the resource: the next is sent after it, so they reach the server in order. */
  sent: Promise<void>;
}

export class ResourceSubscriptions {
  /** server name → resource URI → who watches it. */
  private readonly watched = new Map<string, Map<string, Watched>>();
  /** How many resources each session is subscribed to (MAX_SESSION_SUBSCRIPTIONS). */
  private readonly counts = new Map<string, number>();

  /**
   * Subscribes `session` (whose client is `client`); `send` sends the server its `resources/subscribe`,
   * on the first subscription (or the first since the server restarted). Rejects when that fails:
   * then no session is subscribed to the resource.
   */
  subscribe(server: SubscribedServer, uri: string, session: string, client: Server, send: () => Promise<void>): Promise<void> {
    let byUri = this.watched.get(server.name);
    let entry = byUri?.get(uri);
    // A session's subscriptions are bounded: each is kept, and every update is matched against all (subscriptionsOf).
    if (!entry?.sessions.has(session) && (this.counts.get(session) ?? 0) >= MAX_SESSION_SUBSCRIPTIONS) {
      return Promise.reject(new RpcError(ErrorCode.InvalidRequest, `mcp-latch: this session is subscribed to ${MAX_SESSION_SUBSCRIPTIONS} resources already (the limit); unsubscribe from one first`));
    }
    if (!byUri) this.watched.set(server.name, (byUri = new Map()));
    if (entry && entry.sessions.size > 0 && entry.connection === server.connection) {
      this.watch(entry, session, client);
      return entry.sent;
    }
    if (!entry) byUri.set(uri, (entry = { sessions: new Map(), connection: server.connection, sent: Promise.resolve() }));
    entry.connection = server.connection;
    this.watch(entry, session, client);
    const watched = entry;
    const sent = this.send(server.name, uri, watched, send);
    sent.catch(() => {
      // Nobody is subscribed: the server refused, or failed, the subscription they all waited for.
      if (watched.sent === sent) for (const each of [...watched.sessions.keys()]) this.unwatch(watched, each);
      this.forgetIdle(server.name, uri, watched);
    });
    return sent;
  }

  private watch(entry: Watched, session: string, client: Server): void {
    if (!entry.sessions.has(session)) this.counts.set(session, (this.counts.get(session) ?? 0) + 1);
    entry.sessions.set(session, client);
  }

  /** Whether `session` watched it (and no longer does). */
  private unwatch(entry: Watched, session: string): boolean {
    if (!entry.sessions.delete(session)) return false;
    const left = (this.counts.get(session) ?? 1) - 1;
    if (left > 0) this.counts.set(session, left);
    else this.counts.delete(session);
    return true;
  }

  /** Unsubscribes `session`; `send` sends the server its `resources/unsubscribe` when no session is left. */
  unsubscribe(server: string, uri: string, session: string, send: () => Promise<void>): Promise<void> {
    const entry = this.watched.get(server)?.get(uri);
    if (!entry || !this.unwatch(entry, session) || entry.sessions.size > 0) return Promise.resolve();
    return this.send(server, uri, entry, send);
  }

  /** A session ended: each resource it alone watched is unsubscribed, by `send(server, uri)`. */
  endSession(session: string, send: (server: string, uri: string) => Promise<void>): void {
    for (const [server, byUri] of this.watched) {
      for (const [uri, entry] of byUri) {
        if (entry.sessions.has(session)) void this.unsubscribe(server, uri, session, () => send(server, uri)).catch(() => undefined);
      }
    }
  }

  /**
   * The clients to tell that `uri` of `server` was updated (its subscribers, and those of a resource
   * it is under), each with the resource it subscribed to that `uri` is (or is under): the one told
   * in its place past the rate (update-rate.ts).
   */
  subscriptionsOf(server: string, uri: string): Map<Server, string> {
    const byUri = this.watched.get(server);
    const found = new Map<Server, string>();
    if (!byUri) return found;
    for (const [watched, entry] of byUri) {
      if (!covers(watched, uri)) continue;
      for (const client of entry.sessions.values()) if (!found.has(client) || watched === uri) found.set(client, watched);
    }
    return found;
  }

  private send(server: string, uri: string, entry: Watched, send: () => Promise<void>): Promise<void> {
    const sent = entry.sent.catch(() => undefined).then(send);
    entry.sent = sent;
    void sent.catch(() => undefined).then(() => this.forgetIdle(server, uri, entry));
    return sent;
  }

  /** Drops a resource nobody watches once nothing more is being sent for it. */
  private forgetIdle(server: string, uri: string, entry: Watched): void {
    const byUri = this.watched.get(server);
    if (entry.sessions.size > 0 || byUri?.get(uri) !== entry) return;
    void entry.sent.catch(() => undefined).then(() => {
      if (entry.sessions.size === 0 && byUri.get(uri) === entry) byUri.delete(uri);
    });
  }
}

/** `uri` is `watched`, or a resource under it (`watched` then ends with `/`, or `uri` goes on with `/`, `?` or `#`). */
export function covers(watched: string, uri: string): boolean {
  if (uri === watched) return true;
  if (!uri.startsWith(watched)) return false;
  return watched.endsWith('/') || '/?#'.includes(uri[watched.length]!);
}
