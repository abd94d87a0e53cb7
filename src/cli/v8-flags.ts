/**
 * node:v8's setFlagsFromString, node:v8 loaded at the first flag set: loading it (its heap
 * snapshot and serializer modules) was ~0.9 M instructions before serve's first spawn, though only
 * the flags need it, and serve sets them after its spawns (serve-boot.ts; docs/performance.md,
 * "Round 24: start").
 */
function setFlagsFromString(flags: string): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(flags);
}

/**
 * The V8 flags `serve` keeps for the life of its process. bin/ sets them before it compiles the
 * serve bundle, and `serve` again (it may be started by the full command line): V8 uses a code
 * cache only under the flags it was made with (code-cache.ts), and the cache is written after
 * `serve` has set these. A flag `serve` sets only for a while is set back before that.
 */
let serveFlagsSet = false;

export function setServeFlags(): void {
  // Set once: serve-boot.ts sets them after its spawns, before it compiles serve's bundle, and serve again.
  if (serveFlagsSet) return;
  serveFlagsSet = true;
  // The young generation stays at its first size (1 MiB a semi-space): V8 doubles it up to 16 MiB
  // under load, which was most of the gateway's growth in resident memory over 10,000 calls, and a
  // call's garbage dies young at any size (docs/performance.md, "Memory"). Read each time V8 would
  // grow the space; set right after the servers are spawned (serve-boot.ts): the first scavenge comes
  // later, while serve's bundle loads.
  setFlagsFromString('--semi-space-growth-factor=1');
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
 * start"). Set on after the gateway's bundle is compiled, off once the first call is answered (cli/serve.ts;
 * "Round 19: start": turned off at the first list, TurboFan compiled inside the first command).
 */
let startingUp = false;

export function setStartUpFlags(on: boolean): void {
  setFlags(on, serving);
}

/**
 * TurboFan sooner once `serve` serves: V8 11.3 optimises a function after three or more ticks of
 * 66 KB of its bytecode run (the interrupt budget), so the gateway's per-call functions were
 * optimised between its ~1,000th and ~9,000th call; at 16 KB, mostly between the ~100th and the
 * ~1,000th (docs/performance.md, "Round 15: the warm path"). Lowered once the first call is
 * answered and the code caches are written (cli/serve.ts), not at start: set from the start, the
 * start-up's own code got optimised (CPU by the first list, and TurboFan's pages resident in an
 * idle gateway, +8 MiB). Put back to V8's default while a cache is used or made
 * (`underLastingFlags`): a flag set back to its default value is not in V8's flag hash. That
 * default is V8 11.3's (Node 20's); under another V8 the budget is left alone.
 */
const BUDGET = process.versions.v8.startsWith('11.3.') ? { serving: '--interrupt-budget=16384', default: '--interrupt-budget=67584' } : null;
let serving = false;

export function setServingFlags(on: boolean): void {
  setFlags(startingUp, on);
}

/**
 * The start-up's flags and the serving budget as asked, in one `setFlagsFromString`: each call
 * costs ~17-20 µs in a serving gateway (V8 processes its flag implications and hashes every
 * flag again), and serve's change at the first call's answer (start-up off, budget on) ran as
 * three, ~60 µs inside the first command (docs/performance.md, "Round 19: the first shell command").
 */
export function setFlags(startUp: boolean, serve: boolean): void {
  const changes: string[] = [];
  if (startUp !== startingUp) {
    startingUp = startUp;
    // With `--max-opt=2`, `--no-turbofan` too: once `--turbofan` was set (below), `--max-opt=2` no
    // longer implies it off (V8 leaves a flag set by hand as it is).
    changes.push(...(startUp ? ['--max-opt=2', '--no-turbofan'] : ['--max-opt=999', '--turbofan']));
  }
  if (BUDGET && serve !== serving) {
    serving = serve;
    changes.push(serve ? BUDGET.serving : BUDGET.default);
  }
  if (changes.length > 0) setFlagsFromString(changes.join(' '));
}

/**
 * Runs `run` under V8's default flags, then sets serve's again: Node compiles its own modules with
 * the code cache built into the node binary only while V8's flag hash is the default one, and
 * compiled from their source, `node:zlib`, `node:module`, `node:vm` and `node:fs/promises` cost
 * ~3.5 ms of CPU more (docs/performance.md, "Round 24: start"). A flag set back to its default value
 * is not in the hash; `--liftoff-only` also turned two other flags off, which are set back with it.
 * Nothing may compile WebAssembly meanwhile (serve loads no grammar before its first list).
 */
export function underDefaultFlags<T>(run: () => T): T {
  if (!SERVE_DEFAULTS || (!serveFlagsSet && !startingUp && !serving)) return run();
  const set: string[] = [];
  const unset: string[] = [];
  if (serveFlagsSet) {
    set.push(...SERVE_FLAGS);
    unset.push(...SERVE_DEFAULTS);
  }
  if (startingUp) {
    set.push('--max-opt=2', '--no-turbofan');
    unset.push('--max-opt=999', '--turbofan');
  }
  if (BUDGET && serving) {
    set.push(BUDGET.serving);
    unset.push(BUDGET.default);
  }
  setFlagsFromString(unset.join(' '));
  try {
    return run();
  } finally {
    setFlagsFromString(set.join(' '));
  }
}

/** setServeFlags's flags, and V8 11.3's defaults for them (Node 20's; under another V8, underDefaultFlags changes nothing). */
const SERVE_FLAGS = ['--semi-space-growth-factor=1', '--liftoff-only', '--heap-growing-percent=10', '--max-inlined-bytecode-size-cumulative=460'];
const SERVE_DEFAULTS = process.versions.v8.startsWith('11.3.')
  ? ['--semi-space-growth-factor=2', '--no-liftoff-only', '--wasm-tier-up', '--wasm-dynamic-tiering', '--heap-growing-percent=0', '--max-inlined-bytecode-size-cumulative=920']
  : null;

/**
 * Runs `run` under the flags serve keeps, without those it sets for a while (the start-up's, the
 * serving budget): V8 takes a code cache only under the flags it was made with (its flag hash
 * counts every flag not at its default, computed again after each change), and serve's caches are
 * made and used under these (code-cache.ts). The shell model's bundle is compiled while the
 * start-up's are set when a shell tool is expected, or after the budget is lowered when a shell
 * tool is first listed later.
 */
export function underLastingFlags<T>(run: () => T): T {
  const [wasStartingUp, wasServing] = [startingUp, serving];
  if (!wasStartingUp && !wasServing) return run();
  setFlags(false, false);
  try {
    return run();
  } finally {
    setFlags(wasStartingUp, wasServing);
  }
}
