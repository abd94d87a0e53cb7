import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Progress, ProgressToken, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { serversText } from '../latch/escape.js';

/**
 * The most progress updates of a server relayed to the client for one call in a second: past it
 * only the latest is kept, and sent when the next may go (ProgressRelay.relay). A server's
 * 1,000,000 small updates for one call were relayed one for one, and up to limits.messageMB of them
 * waited ahead of every other server's answers, 1–10 s (round 29 review, P29-5; docs/config.md, "limits").
 */
export const PROGRESS_PER_SECOND = 10;
/** The updates of a call relayed at once before PROGRESS_PER_SECOND holds them back: a server's few quick steps all reach the client. */
export const PROGRESS_BURST = 10;

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
  /** The server's updates held back past the rate (made at the first one, so a call without progress makes nothing more). */
  private flow: ProgressFlow | null = null;

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
   *
   * Progress is a latest value: past PROGRESS_BURST at once and PROGRESS_PER_SECOND after, an update
   * replaces the one held and the latest is sent when the next may go, or before the call's answer
   * (`end`), never after it.
   */
  relay(server: string, update: Progress): void {
    if (this.token === undefined) return;
    const flow = (this.flow ??= new ProgressFlow(server, this.release));
    if (flow.held === null && flow.take(performance.now())) this.send(server, update);
    else flow.hold(update);
  }

  /** The call's wait ended: before its answer is passed on (`answered`) the update held is sent; given up (cancelled, timed out, the server gone), it is dropped. */
  end(answered: boolean): void {
    const held = this.flow?.stop();
    if (held && answered) this.send(this.flow!.server, held);
  }

  private readonly release = (): void => {
    const flow = this.flow!;
    const held = flow.held;
    if (held === null) return;
    flow.held = null;
    flow.take(performance.now());
    this.send(flow.server, held);
  };

  private send(server: string, update: Progress): void {
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

/**
 * A call's server updates against the rate: a bucket of PROGRESS_BURST sends, refilled at
 * PROGRESS_PER_SECOND; the latest update that found it empty, and the timer that sends it when one
 * has come back.
 */
class ProgressFlow {
  held: Progress | null = null;
  private sends = PROGRESS_BURST;
  private filled = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly server: string,
    private readonly release: () => void,
  ) {}

  /** One send taken from the bucket, if it has one at `now` (performance.now() ms). */
  take(now: number): boolean {
    if (this.sends < PROGRESS_BURST) this.sends = Math.min(PROGRESS_BURST, this.sends + ((now - this.filled) * PROGRESS_PER_SECOND) / 1000);
    this.filled = now;
    if (this.sends < 1) return false;
    this.sends -= 1;
    return true;
  }

  hold(update: Progress): void {
    this.held = update;
    if (this.timer !== null) return;
    const wait = Math.ceil(((1 - this.sends) * 1000) / PROGRESS_PER_SECOND);
    this.timer = setTimeout(this.fire, Math.max(1, wait));
    this.timer.unref();
  }

  /** The timer and the update held, taken away. */
  stop(): Progress | null {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const held = this.held;
    this.held = null;
    return held;
  }

  private readonly fire = (): void => {
    this.timer = null;
    this.release();
  };
}
