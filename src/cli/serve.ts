import { fileURLToPath } from 'node:url';
import type { CodeCache, CodeCacheStage } from './code-cache.js';
import type * as GatewayBundle from './serve-gateway.js';
import type { ServeStart } from './serve-boot.js';
import { setFlags, setServeFlags } from './v8-flags.js';
import type { ServeOptions } from './serve-options.js';

/**
 * `mcp-latch serve`: the stdio gateway, what every MCP client session starts. It is on the clock
 * (the client waits for the first tools/list), so it starts its servers first and loads the rest
 * while they boot: serve-boot.ts reads the file leniently, spawns the servers and loads this module
 * (dist/serve/serve.cjs, with V8's code cache; scripts/bundle.js); the schema, the policy and the
 * gateway are loaded here, from a bundle of their own compiled with V8's code cache too
 * (serve-gateway.ts). bin/ starts it without the command-line library.
 */

/**
 * Refuses an invalid config like `validate` does. Exits, after closing every server's process tree,
 * on stdin EOF (the client went away; the SDK transport does not notice, https://github.com/modelcontextprotocol/typescript-sdk/issues/2002),
 * SIGINT, SIGTERM or SIGHUP.
 */
export async function serve(options: ServeOptions, { path, early, prespawned, useLogger, endEarlyStop, stoppedEarly }: ServeStart): Promise<void> {
  // Set by serve-boot.ts already (once: v8-flags.ts); here too for whoever calls serve otherwise.
  setServeFlags();
  // The logger (pino), the code-cache loader and the config watcher are evaluated only here, after
  // the spawns (docs/performance.md, "Round 11: the first list"). A server's stderr is read from
  // the event loop, so no line comes before the logger is made.
  const [{ createLogger }, { codeCacheStatusOf, loadBundle, saveCodeCaches }, { runUntilStopped }] = await Promise.all([import('../log.js'), import('./code-cache.js'), import('./run-until-stopped.js')]);
  const logger = createLogger({ level: (options.logLevel ?? early.logLevel ?? process.env.MCP_LATCH_LOG_LEVEL ?? 'info') as 'info' });
  useLogger(logger);
  // A signal came while this loaded: its servers are being stopped (serve-boot.ts), and a gateway
  // made now would start them again. The logger stays for their stderr meanwhile.
  if (stoppedEarly()) return;

  let loaded: { exports: typeof GatewayBundle; codeCache: CodeCache };
  try {
    // Compiled, and its cache made, under serve's flags and the start-up's (TurboFan waits until the
    // start-up is over), set with them (v8-flags.ts).
    const bundle = loadBundle(fileURLToPath(new URL('../serve/gateway.cjs', import.meta.url)), process.env, { notes: true });
    loaded = { exports: bundle.exports as typeof GatewayBundle, codeCache: bundle.codeCache };
  } catch (error) {
    await prespawned.closeAll();
    throw error;
  }
  const { loadConfig, serversToRun, messageBytes, ruleIssues, Gateway, StdioUpstream, IdleCollector, clientInput, noteCompiledSchemas } = loaded.exports;
  let config;
  try {
    config = loadConfig(path, ruleIssues, options.scope);
  } catch (error) {
    // A file the full check refuses starts nothing: what the early read started is stopped.
    await prespawned.closeAll();
    throw error;
  }

  const gateway = new Gateway({ config, logger, prespawned });
  const shutdown = runUntilStopped(path, gateway, logger);
  endEarlyStop();
  // The one reader of fd 0 (client-input.ts): process.stdin is not touched when it is a socket.
  const { input, reusedChunks } = clientInput();
  input.on('end', () => shutdown('stdin closed'));
  input.on('close', () => shutdown('stdin closed'));

  await gateway.connect(new StdioUpstream(messageBytes(config.file), input, process.stdout, reusedChunks));
  // Memory promoted during a burst of calls is given back once the client has been quiet for a second.
  // The start-up counts as in flight until it is over: the client is quiet while the servers boot,
  // and a collection then would take the cores from them.
  let startedUp = false;
  void gateway.whenStartedUp().then(() => (startedUp = true));
  const idle = new IdleCollector({
    input,
    inFlight: () => gateway.callsInFlight() + (startedUp ? 0 : 1),
    // A full collection drops what the warm-up left warm; the client's next command is often its first (core.ts, warmAgain).
    collected: () => gateway.core.warmAgain(),
    report: (outcome, detail) => logger.debug({ ...detail, outcome }, 'idle: heap checked after a burst'),
  });
  input.once('close', () => idle.close());
  const { codeCache } = loaded;
  // serve's own bundle's cache too, when bin/ loaded it with one (serve-boot.ts).
  const serveCodeCache = codeCacheStatusOf(fileURLToPath(new URL('../serve/serve.cjs', import.meta.url)));
  logger.info({ config: path, scope: options.scope, servers: Object.keys(serversToRun(config)), codeCache: codeCache.status, serveCodeCache }, 'mcp-latch serving on stdio');
  // After the answer is on its way: the cache then holds what the start-up compiled, and after the
  // first call's, what the call path compiled too (code-cache.ts).
  // The shell model's bundle has a cache of its own, saved with the gateway's once it is loaded.
  // V8 takes a cache only under the flags it was made with: serve's lasting ones and the start-up's,
  // still on at both saves, so a save changes no flag (v8-flags.ts underCacheFlags).
  // TurboFan waits until the first call is answered, not only the first list: turned on at the
  // list, it compiled what the start-up and the shell warm-up had made hot on the first call's
  // own path, ~2.5 ms of a worker thread's CPU inside the client's first command, beside the
  // server's work on two cores (docs/performance.md, "Round 19: start").
  let callAnswered = false;
  const saveCodeCache = (stage: CodeCacheStage) =>
    setImmediate(() => {
      if (stage === 'call') callAnswered = true;
      saveCodeCaches(stage).forEach(({ file, outcome }) => logger.debug({ file }, `code cache ${outcome}`));
      // Beside them, which outputSchemas compile (downstream/listing.ts).
      const schemas = noteCompiledSchemas();
      if (schemas) logger.debug(`compiled outputSchemas ${schemas}`);
      // The start-up's flags until the first call is answered; then TurboFan may optimise sooner:
      // the start-up is over and the caches are made, one change of the flags (each costs ~20 µs;
      // v8-flags.ts, docs/performance.md "Round 19: the first shell command").
      setFlags(!callAnswered, callAnswered);
      if (stage === 'call') logger.debug('serving flags set');
    });
  void gateway.firstToolsList.then(() => {
    saveCodeCache('list');
    // What the start-up left for later (the policy's build), once the list is on its way: with
    // ten servers booting, the gateway's CPU before the first list is taken from them (core.ts).
    setImmediate(() => gateway.core.prepare());
  });
  void gateway.firstCallAnswered.then(() => saveCodeCache('call'));
}
