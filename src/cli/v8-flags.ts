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
 * The V8 flags `serve` keeps for the life of its process, and the start-up's (below), set at once
 * after its spawns (serve-boot.ts), and by `serve` again (it may be started otherwise): V8 uses a
 * code cache only under the flags it was made with (code-cache.ts), and serve's caches are made and
 * used under these two sets (`underCacheFlags`). Set once: every cache is compiled after it.
 */
let serveFlagsSet = false;

export function setServeFlags(): void {
  if (serveFlagsSet) return;
  serveFlagsSet = true;
  startingUp = true;
  setFlagsFromString(
    [
      // The young generation stays at its first size (1 MiB a semi-space): V8 doubles it up to 16 MiB
      // under load, which was most of the gateway's growth in resident memory over 10,000 calls, and a
      // call's garbage dies young at any size (docs/performance.md, "Memory"). Read each time V8 would
      // grow the space; set right after the servers are spawned (serve-boot.ts): the first scavenge comes
      // later, while serve's bundle loads.
      '--semi-space-growth-factor=1',
      // The shell grammar is WASM: V8's baseline compiler alone spares the optimising recompiles that
      // made the first 60 commands cost ~1.7 s of CPU instead of ~0.2 s, for ~8 µs more per new command
      // text once warm (docs/performance.md). Set before anything compiles WASM; this process only.
      '--liftoff-only',
      // The old space may grow by ~8 MiB of promoted garbage between full collections, not by up to 4×
      // the live data (V8's factor when collecting looks cheap): +13.7 instead of +18.4 MiB after 14,500
      // calls, at the same CPU per call (docs/performance.md, "Memory"). Read at each full collection.
      '--heap-growing-percent=10',
      // TurboFan inlines at most 460 bytes of bytecode into a function, not 920: its compiles run on
      // V8's worker threads, and what they malloc stays in those threads' glibc arenas (~6.5 MiB after
      // 10,000 calls, none with TurboFan on the main thread, which only node's command line can ask
      // for); smaller graphs leave ~4.6 MiB, at the same CPU per call (docs/performance.md, "Round 8:
      // memory outside V8's heap after a burst"). Read at each TurboFan compile.
      '--max-inlined-bytecode-size-cumulative=460',
      ...START_UP_ON,
    ].join(' '),
  );
}

/**
 * While serve starts up, TurboFan waits (`--max-opt=2`, which turns `--turbofan` off too): start-up
 * code runs once, optimising the little of it that got hot made the node binary's compiler pages
 * resident (~4 MiB of an idle gateway, docs/performance.md "Memory"), and its compiles of the
 * servers' listings ran on V8's worker threads while the servers booted ("Round 15: the ten-server
 * start"). Set on with serve's flags, off once the first call is answered (cli/serve.ts; "Round 19:
 * start": turned off at the first list, TurboFan compiled inside the first command).
 *
 * The code caches are made and used with these on, so that none is made or used after a round trip
 * of them: on V8 12.4 (Node 22) `--no-turbofan` also turns `--osr-from-maglev` off, which
 * `--turbofan` does not set back, and the caches, made with the start-up's flags set off again, were
 * refused by every later start (docs/performance.md, "Round 25: Node 22 and 24"). Set on, they leave
 * the same flags whatever came before.
 */
const START_UP_ON = ['--max-opt=2', '--no-turbofan'];
const START_UP_OFF = ['--max-opt=999', '--turbofan'];
let startingUp = false;

/**
 * TurboFan sooner once `serve` serves: V8 11.3 optimises a function after three or more ticks of
 * 66 KB of its bytecode run (the interrupt budget), so the gateway's per-call functions were
 * optimised between its ~1,000th and ~9,000th call; at 16 KB, mostly between the ~100th and the
 * ~1,000th (docs/performance.md, "Round 15: the warm path"). Lowered once the first call is
 * answered and the code caches are written (cli/serve.ts), not at start: set from the start, the
 * start-up's own code got optimised (CPU by the first list, and TurboFan's pages resident in an
 * idle gateway, +8 MiB). Put back to V8's default while a cache is used or made
 * (`underCacheFlags`): a flag set back to its default value is not in V8's flag hash. That
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
    changes.push(...(startUp ? START_UP_ON : START_UP_OFF));
  }
  if (BUDGET && serve !== serving) {
    serving = serve;
    changes.push(serve ? BUDGET.serving : BUDGET.default);
  }
  if (changes.length > 0) setFlagsFromString(changes.join(' '));
}

/**
 * Runs `run` under the flags serve's code caches are made and used under: its lasting ones and the
 * start-up's, without the serving budget (V8 takes a cache only under the flags it was made with;
 * its flag hash counts every flag not at its default, computed again after each change;
 * code-cache.ts). Nothing changes while the start-up is on, when the gateway's caches are compiled
 * and saved (cli/serve.ts); the shell model's bundle may be compiled later, when a shell tool is
 * first listed after the first call.
 */
export function underCacheFlags<T>(run: () => T): T {
  const [wasStartingUp, wasServing] = [startingUp, serving];
  if (wasStartingUp && !wasServing) return run();
  setFlags(true, false);
  try {
    return run();
  } finally {
    setFlags(wasStartingUp, wasServing);
  }
}
