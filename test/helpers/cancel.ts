import type { CancelSource } from '../../src/cancellation.js';

/** A CancelSource that follows an AbortSignal, so tests can cancel with an AbortController. */
export function fromSignal(signal: AbortSignal): CancelSource {
  return {
    get cancelled() {
      return signal.aborted;
    },
    get reason() {
      return signal.reason as unknown;
    },
    onCancel(handler) {
      if (signal.aborted) return () => undefined;
      const listener = () => handler(signal.reason);
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}
