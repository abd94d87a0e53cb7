import { fileURLToPath } from 'node:url';
import { readEarlyConfig, type EarlyConfig } from '../config/early.js';
import { findConfig } from '../config/locate.js';
import { Prespawned } from '../downstream/prespawn.js';
import { NOW_GRACE_MS, terminateAll } from '../downstream/child-transport.js';
import { errorMessage, LatchError } from '../errors.js';
import type { Logger } from '../log.js';
import type * as Serve from './serve.js';
import type { ServeOptions } from './serve-options.js';
import { setServeFlags } from './v8-flags.js';

/**
 * What `serve` runs first (dist/serve/boot.cjs, scripts/bundle.js; bin/ and main.ts load it with
 * Node's own loader): it reads the config leniently and spawns the stdio servers, then loads serve's
 * bundle (dist/serve/serve.cjs: the logger, the code-cache loader, the watcher, the gateway's
 * loading) with V8's code cache, as that one loads the gateway's. Compiled by Node's loader,
 * serve.cjs's ~150 KB and the functions its start ran were compiled at every start; this file holds
 * only what the spawns need, so they come no later, and the code cache's modules (vm, zlib) are
 * loaded after them (docs/performance.md, "Round 20: start"). serve.cjs goes into the require cache,
 * where the gateway's bundle finds it (it takes the modules it shares with serve from it).
 */

/** What serve did before its bundle loaded: the servers' processes are starting. */
export interface ServeStart {
  path: string;
  early: EarlyConfig;
  prespawned: Prespawned;
  /** The logger the servers' stderr lines go to, once serve has made it (none comes before: they are read from the event loop). */
  useLogger(logger: Logger): void;
  /** Called once the gateway's own stop handlers are in place (runUntilStopped): the early ones go. */
  endEarlyStop(): void;
  /** A signal came before the gateway's handlers were in place: its servers are being stopped, and serve makes no gateway. */
  stoppedEarly(): boolean;
}

/** Node's modules serve loads after its spawns, before its first list (startServers). */
const LATER_MODULES = ['node:module', 'node:vm', 'node:zlib', 'node:fs/promises', 'node:perf_hooks'];

/** What run-until-stopped.ts's STOP_SIGNALS are (that module is loaded after the servers are spawned). */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Runs `serve`; a failure to start is one line on stderr and exit code 1, after closing what was spawned. */
export function runServe(options: ServeOptions): void {
  let start: ServeStart;
  try {
    start = startServers(options);
  } catch (error) {
    fail(error);
    return;
  }
  loadServe().then(
    ({ serve }) => serve(options, start).catch(fail),
    (error: unknown) => void start.prespawned.closeAll().finally(() => fail(error)),
  );
}

function fail(error: unknown): void {
  process.stderr.write(`mcp-latch: ${error instanceof LatchError ? error.message : errorMessage(error)}\n`);
  process.exit(1);
}

/**
 * The servers' processes start now and boot while the gateway's own code loads and the client
 * initializes; their MCP handshake waits for the client's capabilities. Spawned before anything else
 * is loaded (a fork costs the more, the larger this process is): the CPU before the first spawn is
 * the one no server's boot overlaps (docs/performance.md, "Round 11: the first list").
 */
function startServers(options: ServeOptions): ServeStart {
  // Security: stdout is the MCP channel; a stray console.log from any library would corrupt it.
  console.log = console.error;
  console.info = console.error;
  const path = findConfig(options.config);
  const early = readEarlyConfig(path, process.env, options.scope);
  let logger: Logger | undefined;
  const prespawned = new Prespawned();
  // Until the gateway's own handlers are in place (runUntilStopped), a signal stops the servers
  // started so far as a later one does (runUntilStopped, downstream/child-transport.ts close()):
  // stdin closed, SIGTERM to the group after 2 s, SIGKILL after 2 s more; a second signal sends
  // SIGTERM at once and exits within NOW_GRACE_MS, a third exits at once, the exit killing what is
  // left. Node's default action ended the gateway with its servers running (review of round 20
  // faults, F7); its fix exited at once, and the exit SIGKILLed every server: one that saves its
  // state on SIGTERM or at its input's end lost it at every stop in the gateway's first ~100 ms.
  let stopping = false;
  let hurried = false;
  const stopEarly = (signal: string) => {
    if (stopping) {
      if (hurried) process.exit(0);
      hurried = true;
      void terminateAll(NOW_GRACE_MS).finally(() => process.exit(0));
      return;
    }
    stopping = true;
    process.stderr.write(`mcp-latch: ${signal} while starting: stopping its servers (their input closed, SIGTERM after 2 s, SIGKILL after 2 s more)\n`);
    // A close that hangs is cut, as runUntilStopped's is.
    setTimeout(() => process.exit(0), 10_000).unref();
    // After the spawns under way: a signal handled inside one (test/fixtures/signal-at-spawn.mjs) comes before the rest are started.
    void Promise.resolve()
      .then(() => prespawned.closeAll())
      .finally(() => process.exit(0));
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stopEarly);
  prespawned.spawn(early.servers, () => logger!, early.maxMessageBytes);
  // Node's modules that the code-cache loader and the gateway's bundle load (perf_hooks: the global
  // `performance`, read by each downstream request's deadline), loaded after the spawns and before
  // any V8 flag is set: Node takes them from the node binary's code cache only under V8's default
  // flags (it checks a hash of them), and compiled from their source they cost ~3.5 ms of CPU more
  // beside the booting servers (docs/performance.md, "Round 24: start"). Loaded before the flags,
  // not between flags set back to their defaults: those defaults and what setting a flag implies
  // differ from one V8 to the next ("Round 25: Node 22 and 24"). test/cli/serve.test.ts checks that
  // none of Node's modules is loaded under serve's flags by the first list.
  for (const name of LATER_MODULES) process.getBuiltinModule(name);
  // serve's lasting flags and the start-up's, before any bundle is compiled (V8 uses a code cache
  // only under the flags it was made with; v8-flags.ts).
  setServeFlags();
  return {
    path,
    early,
    prespawned,
    useLogger: (made) => (logger = made),
    endEarlyStop: () => {
      for (const signal of STOP_SIGNALS) process.off(signal, stopEarly);
    },
    stoppedEarly: () => stopping,
  };
}

/** serve's bundle, compiled with its code cache; the loader (vm, zlib) is evaluated only now, after the spawns. */
async function loadServe(): Promise<typeof Serve> {
  const { loadBundle } = await import('./code-cache.js');
  return loadBundle(fileURLToPath(new URL('../serve/serve.cjs', import.meta.url)), process.env, { asModule: true }).exports as typeof Serve;
}
