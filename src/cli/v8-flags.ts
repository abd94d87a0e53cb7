import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flags `serve` keeps for the life of its process. bin/ sets them before it compiles the
 * serve bundle, and `serve` again (it may be started by the full command line): V8 uses a code
 * cache only under the flags it was made with (code-cache.ts), and the cache is written after
 * `serve` has set these. A flag `serve` sets only for a while is set back before that.
 */
export function setServeFlags(): void {
  // The shell grammar is WASM: V8's baseline compiler alone spares the optimising recompiles that
  // made the first 60 commands cost ~1.7 s of CPU instead of ~0.2 s, for ~8 µs more per new command
  // text once warm (docs/performance.md). Set before anything compiles WASM; this process only.
  setFlagsFromString('--liftoff-only');
  // The old space may grow by ~8 MiB of promoted garbage between full collections, not by up to 4×
  // the live data (V8's factor when collecting looks cheap): +13.7 instead of +18.4 MiB after 14,500
  // calls, at the same CPU per call (docs/performance.md, "Memory"). Read at each full collection.
  setFlagsFromString('--heap-growing-percent=10');
  // TurboFan inlines at most 460 bytes of bytecode into a function, not 920: its compiles run on
  // V8's worker threads, and what they malloc stays in those threads' glibc arenas (~6.5 MiB after
  // 10,000 calls, none with TurboFan on the main thread, which only node's command line can ask
  // for); smaller graphs leave ~4.6 MiB, at the same CPU per call (docs/performance.md, "Round 8:
  // memory outside V8's heap after a burst"). Read at each TurboFan compile.
  setFlagsFromString('--max-inlined-bytecode-size-cumulative=460');
}
