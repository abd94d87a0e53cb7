import { watchConfig } from '../config/watch.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';

/** What `serve` and `serve --http` keep running: the config is reloaded on change, closed on stop. */
export interface Running {
  reload(text: string, why: string): unknown;
  /** `why`: the signal's name, or what else ended it ("stdin closed"). */
  close(why?: string): Promise<void>;
}

/** The signals that stop the gateway. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Reloads `running` when the config file changes and stops it (every server's process tree
 * closed, then exit) on SIGINT, SIGTERM or SIGHUP, or when the returned function is called; a
 * close that hangs is cut after 10 s. A signal while it is stopping means now: it exits at once, and
 * the exit kills every server's process group (downstream/child-transport.ts) and writes the audit
 * records still queued (store/audit.ts). An MCP client's SDK stops a server by closing its stdin,
 * then SIGTERM 2 s later, then SIGKILL 2 s after that: the gateway took its own 2 + 2 s for a server
 * that ignores EOF and SIGTERM, so the SIGKILL usually came first, and that server ran on (3 runs
 * of 4; review of round 20 faults, F2).
 */
export function runUntilStopped(path: string, running: Running, logger: Logger): (why: string) => void {
  const watcher = watchConfig(
    path,
    (text) => void running.reload(text, 'file changed'),
    (error) => logger.warn({ err: errorMessage(error) }, 'config watch error'),
    undefined,
    () => logger.warn({ path }, 'config file removed; the last good config stays in force until it is back'),
  );
  let closing = false;
  const shutdown = (why: string) => {
    if (closing) return;
    closing = true;
    logger.info({ why }, 'shutting down');
    watcher.close();
    const force = setTimeout(() => process.exit(0), 10_000);
    force.unref();
    void running.close(why).finally(() => {
      logger.flush();
      process.exit(0);
    });
  };
  const now = (signal: string) => {
    logger.info({ signal }, 'a signal while stopping: stopping now, every server process group killed');
    process.exit(0);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => (closing ? now(signal) : shutdown(signal)));
  return shutdown;
}
