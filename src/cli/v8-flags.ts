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

/**
 * While serve starts up, TurboFan waits (`--max-opt=2`, which turns `--turbofan` off too): start-up
 * code runs once, optimising the little of it that got hot made the node binary's compiler pages
 * resident (~4 MiB of an idle gateway, docs/performance.md "Memory"), and its compiles of the
 * servers' listings ran on V8's worker threads while the servers booted ("Round 15: the ten-server
 * start"). Set on after the gateway's bundle is compiled, off once the start-up is over (cli/serve.ts).
 */
let startingUp = false;

export function setStartUpFlags(on: boolean): void {
  if (on === startingUp) return;
  startingUp = on;
  if (on) setFlagsFromString('--max-opt=2');
  else {
    setFlagsFromString('--max-opt=999');
    setFlagsFromString('--turbofan');
  }
}

/**
 * Runs `compile` under the flags serve keeps: V8 takes a code cache only under the flags it was made
 * with, and serve writes its caches once the start-up is over (code-cache.ts). The shell model's
 * bundle is compiled while the start-up's are set when a shell tool is expected.
 */
export function underLastingFlags<T>(compile: () => T): T {
  if (!startingUp) return compile();
  setStartUpFlags(false);
  try {
    return compile();
  } finally {
    setStartUpFlags(true);
  }
}
