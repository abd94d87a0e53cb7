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
  /**
   * onCancel for an object that is its own handler: `listener.whenCancelled(reason)` once when the
   * call is cancelled later (check `cancelled` first); `unlisten(listener)` removes it. Nothing is
   * allocated for the common case, one listener (a forwarded call's entry at its server,
   * downstream/direct-calls.ts), where onCancel made a closure, an array and a remover per call
   * (docs/performance.md, "Round 33: the call path"). Optional: a source without it is told through onCancel.
   */
  listen?(listener: CancelListener): void;
  unlisten?(listener: CancelListener): void;
}

/** What CancelSource.listen tells: a method, so no closure is made per call. */
export interface CancelListener {
  whenCancelled(reason: unknown): void;
}

export class Cancellation implements CancelSource {
  cancelled = false;
  reason: unknown = undefined;
  private controller: AbortController | null = null;
  /**
   * The listeners in the order they came: the first in a field of its own while it is the earliest
   * still listening (nearly always the only one), the rest in a list made for them.
   */
  private first: CancelListener | null = null;
  private rest: CancelListener[] | null = null;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  onCancel(handler: (reason: unknown) => void): () => void {
    if (this.cancelled) return noop;
    const listener: CancelListener = { whenCancelled: handler };
    this.listen(listener);
    return () => this.unlisten(listener);
  }

  listen(listener: CancelListener): void {
    if (this.cancelled) return;
    // In the field only when no later one is listening, so the order they came in is the order they are told.
    if (this.first === null && this.rest === null) this.first = listener;
    else if (this.rest) this.rest.push(listener);
    else this.rest = [listener];
  }

  unlisten(listener: CancelListener): void {
    if (this.first === listener) {
      this.first = null;
      return;
    }
    const index = this.rest?.indexOf(listener) ?? -1;
    if (index < 0) return;
    // Dropped when empty: an answered call's Cancellation may be kept a while longer (id-slots.ts).
    if (this.rest!.length === 1) this.rest = null;
    else this.rest!.splice(index, 1);
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const { first, rest } = this;
    this.first = null;
    this.rest = null;
    first?.whenCancelled(reason);
    if (rest) for (const listener of rest) listener.whenCancelled(reason);
  }
}

function noop(): void {}

/** The reason the calls in flight are cancelled with when the gateway closes (a signal, the client gone): their records say `by: "gateway"`. */
export const GATEWAY_STOPPING = 'the gateway is stopping';
