import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StableMap } from '../stable-map.js';
import type { ElicitRequestParams, ElicitResult, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The client request a downstream server is working for: where that server's own requests and log messages go back. */
export interface CallOrigin {
  /** The upstream session's `Server` (its client). */
  client: Server;
  /** The client's tools/call: over Streamable HTTP, messages related to it ride its response stream. */
  requestId: RequestId;
  session: string;
  /** Set for a 2026-07-28 client's call: a 2025 server's elicitation is held for the client's retry (held-calls.ts). */
  hold?: (params: ElicitRequestParams, signal?: AbortSignal) => Promise<ElicitResult>;
}

/**
 * The calls running on each downstream server, with the session that made them. A server's own
 * requests (sampling, elicitation, roots) and log messages carry nothing that links them to the
 * call that caused them (over stdio, nothing on the wire says which), so they can go back only to
 * a session that is alone in having calls running on that server (docs/team.md#what-shared-servers-send-back).
 */
export class RunningCalls {
  /** Each call's origin, by server (a StableMap: it empties after every call when calls come one at a time). */
  private readonly byServer = new Map<string, StableMap<CallOrigin, CallOrigin>>();

  /**
   * Runs `work`, a call forwarded to `server`, with its origin recorded until it settles. Not an
   * async function: it returns `work`'s own promise, one promise and frame fewer on every call
   * (docs/performance.md#the-hot-path); the origin is removed before the caller's await resumes.
   */
  during<T>(server: string, origin: CallOrigin, work: () => Promise<T>): Promise<T> {
    this.add(server, origin);
    const settled = (): void => this.remove(server, origin);
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

  /** Records a call forwarded to `server`; the caller removes it when the call settles (or use `during`). */
  add(server: string, origin: CallOrigin): void {
    let running = this.byServer.get(server);
    // Kept when it empties: the names are the configured servers'.
    if (!running) this.byServer.set(server, (running = new StableMap()));
    running.set(origin, origin);
  }

  remove(server: string, origin: CallOrigin): void {
    this.byServer.get(server)?.delete(origin);
  }

  /** One origin per session with calls running on `server` (its latest call). */
  callers(server: string): CallOrigin[] {
    const bySession = new Map<string, CallOrigin>();
    for (const origin of this.byServer.get(server)?.keys() ?? []) bySession.set(origin.session, origin);
    return [...bySession.values()];
  }
}
