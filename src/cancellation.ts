/**
 * Cancellation of one call, without an AbortController unless something needs an AbortSignal.
 *
 * Without this, an AbortController and a listener per call cost about a quarter of the gateway's
 * CPU per call (docs/performance.md#the-hot-path). The hot path uses `cancelled` and `onCancel`; the
 * AbortSignal is made on first use by the slow paths (a prompt, the approval page) and is aborted
 * with the same reason.
 */
export interface CancelSource {
  readonly cancelled: boolean;
  readonly reason: unknown;
  /** Calls `handler` once when the call is cancelled later (check `cancelled` first); the returned function removes it. */
  onCancel(handler: (reason: unknown) => void): () => void;
}

export class Cancellation implements CancelSource {
  cancelled = false;
  reason: unknown = undefined;
  private controller: AbortController | null = null;
  private handlers: Array<(reason: unknown) => void> | null = null;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  onCancel(handler: (reason: unknown) => void): () => void {
    if (this.cancelled) return noop;
    // Nearly always the only handler (the call at its server): `[handler]` is one element, where
    // push() on an empty array reserves room for 17 (this runs for every forwarded call).
    if (this.handlers) this.handlers.push(handler);
    else this.handlers = [handler];
    return () => {
      const index = this.handlers?.indexOf(handler) ?? -1;
      if (index < 0) return;
      // Dropped when empty: an answered call's Cancellation may be kept a while longer (id-slots.ts).
      if (this.handlers!.length === 1) this.handlers = null;
      else this.handlers!.splice(index, 1);
    };
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const handlers = this.handlers;
    this.handlers = null;
    if (handlers) for (const handler of handlers) handler(reason);
  }
}

function noop(): void {}

/** The reason the calls in flight are cancelled with when the gateway closes (a signal, the client gone): their records say `by: "gateway"`. */
export const GATEWAY_STOPPING = 'the gateway is stopping';
