import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Progress, ProgressToken, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { serversText } from '../latch/escape.js';

/**
 * Progress for one upstream call, under the client's own token. The SDK puts its own token on the
 * downstream request (and would drop updates for a copied one), so downstream progress is re-keyed
 * here; heartbeats while the call waits for approval use the same token and keep `progress`
 * increasing, as the spec requires. Without a client token nothing is sent: tokens may only refer
 * to the client's active requests.
 */
export class ProgressRelay {
  private last = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly token: ProgressToken | undefined;

  constructor(private readonly extra: RequestHandlerExtra<ServerRequest, ServerNotification>) {
    this.token = extra._meta?.progressToken;
  }

  get hasToken(): boolean {
    return this.token !== undefined;
  }

  emit(update: Progress): void {
    if (this.token === undefined) return;
    this.last = Math.max(this.last + 1e-6, update.progress);
    void this.extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: this.token, progress: this.last, ...(update.total !== undefined ? { total: update.total } : {}), ...(update.message !== undefined ? { message: update.message } : {}) },
      })
      .catch(() => undefined);
  }

  /**
   * A server's progress update: its message is the server's text a client shows the person as the
   * call's status, where the gateway's own heartbeats ("Waiting for approval: …") show on the same
   * token, so it is escaped and marked as the server's, `[server] …`, as its questions are (round 23
   * review, F2; docs/approval.md, "What of a server's question is escaped").
   */
  relay(server: string, update: Progress): void {
    const { message, ...rest } = update;
    this.emit(typeof message === 'string' ? { ...rest, message: serversText(server, message) } : rest);
  }

  /** Sends a heartbeat every `intervalMs` until stopped, so clients that reset their timeout on progress wait. */
  startHeartbeat(intervalMs: number, message: string): void {
    if (this.token === undefined || this.timer) return;
    this.timer = setInterval(() => this.emit({ progress: Math.floor(this.last) + 1, message }), intervalMs);
    this.timer.unref();
  }

  stopHeartbeat(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
