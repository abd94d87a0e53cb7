import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Progress, ProgressToken, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

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
