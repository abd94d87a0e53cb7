import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ElicitRequestParams, ElicitResult, ListRootsResult, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The client request a downstream server is working for: where that server's own requests and log messages go back. */
export interface CallOrigin {
  /** The upstream session's `Server` (its client). */
  client: Server;
  /** The client's tools/call: over Streamable HTTP, messages related to it ride its response stream. */
  requestId: RequestId;
  session: string;
  /** Set for a 2026-07-28 client's call: a 2025 server's elicitation is held for the client's retry (held-calls.ts). */
  hold?: (params: ElicitRequestParams, signal?: AbortSignal) => Promise<ElicitResult>;
  /** The same for a 2025 server's roots/list (held-calls.ts roots). */
  holdRoots?: (signal?: AbortSignal) => Promise<ListRootsResult>;
}

/**
 * The calls running on each downstream server, with the session that made them. A server's own
 * requests (sampling, elicitation, roots) and log messages carry nothing that links them to the
 * call that caused them (over stdio, nothing on the wire says which), so they can go back only to
 * a session that is alone in having calls running on that server (docs/team.md#what-shared-servers-send-back).
 *
 * Each server's calls are a list linked through the calls themselves, not a Map keyed by origin: a
 * long-lived Map whose entries come and go has its hash table replaced in the old generation, and
 * the replaced tables kept every call's origin alive until a full collection (docs/performance.md,
 * "Round 11: the warm path").
 */
export class RunningCalls {
  private readonly byServer = new Map<string, RunningList>();

  /**
   * Runs `work`, a call forwarded to `server`, with its origin recorded until it settles. Not an
   * async function: it returns `work`'s own promise, one promise and frame fewer on every call
   * (docs/performance.md#the-hot-path); the origin is removed before the caller's await resumes.
   */
  during<T>(server: string, origin: CallOrigin, work: () => Promise<T>): Promise<T> {
    const running = this.add(server, origin);
    const settled = (): void => running.end();
    let working: Promise<T>;
    try {
      working = work();
    } catch (error) {
      settled();
      return Promise.reject(error);
    }
    working.then(settled, settled);
    return working;
  }

  /** Records a call forwarded to `server`; the caller ends it when the call settles (or use `during`). */
  add(server: string, origin: CallOrigin): RunningCall {
    let list = this.byServer.get(server);
    // Kept when it empties: the names are the configured servers'.
    if (!list) this.byServer.set(server, (list = new RunningList()));
    return list.append(origin);
  }

  /**
   * What keeps `origin` on `server`'s running calls once its request was given up while the server
   * may work on (direct-calls.ts Lingers): a copy without the call's hold (held-calls.ts), which
   * ended with it. For requests other than tools/call (gateway/call.ts CallWait makes its own).
   */
  lingering(server: string, origin: CallOrigin): { linger(): RunningCall } {
    return { linger: () => this.add(server, { client: origin.client, requestId: origin.requestId, session: origin.session }) };
  }

  /** One origin per session with calls running on `server` (its latest call). */
  callers(server: string): CallOrigin[] {
    const bySession = new Map<string, CallOrigin>();
    for (let call = this.byServer.get(server)?.first ?? null; call; call = call.next) bySession.set(call.origin.session, call.origin);
    return [...bySession.values()];
  }
}

/** A server's running calls, oldest first. */
class RunningList {
  first: RunningCall | null = null;
  last: RunningCall | null = null;

  append(origin: CallOrigin): RunningCall {
    const call = new RunningCall(this, origin, this.last);
    if (this.last) this.last.next = call;
    else this.first = call;
    this.last = call;
    return call;
  }
}

/** One call in its server's list, until `end()` (which may be called again, to no effect). */
export class RunningCall {
  next: RunningCall | null = null;

  constructor(
    private list: RunningList | null,
    readonly origin: CallOrigin,
    private previous: RunningCall | null,
  ) {}

  end(): void {
    const list = this.list;
    if (!list) return;
    if (this.previous) this.previous.next = this.next;
    else list.first = this.next;
    if (this.next) this.next.previous = this.previous;
    else list.last = this.previous;
    // Unlinked both ways: an ended call keeps neither neighbour alive, nor they it.
    this.list = null;
    this.previous = null;
    this.next = null;
  }
}
