/**
 * `performance.now()` (milliseconds, monotonic), called on the object itself, which is read from the
 * global once: the global `performance` is a getter on globalThis (Node's lazy attribute) that each
 * read calls, ~0.16k instructions, and a warm call read it twice (its deadline, its server's read:
 * docs/performance.md, "Round 30: the clock's object read once"). Read at the first use, not at
 * import: the global's first read loads node:perf_hooks where no start loaded it before
 * (serve-boot.ts loads it for serve, after its spawns).
 */
let clock: typeof performance | undefined;

export function monotonicNow(): number {
  return (clock ??= performance).now();
}
