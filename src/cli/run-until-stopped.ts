import { watchConfig } from '../config/watch.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { NOW_GRACE_MS, terminateAll } from '../downstream/child-transport.js';

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
 * close that hangs is cut after 10 s. A signal while it is stopping means now: every server's process
 * group is sent SIGTERM at once, and the gateway exits when they are gone or after NOW_GRACE_MS; the
 * exit kills what is left (downstream/child-transport.ts) and writes the audit records still queued
 * (store/audit.ts). Until round 21 it SIGKILLed them at once, and a server that saves its state on
 * SIGTERM lost it at every such stop (review-diff21 R3). An MCP client's SDK stops a server by closing its stdin,
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
  // A signal while stopping: every server is sent SIGTERM now and the gateway exits once they are
  // gone or after NOW_GRACE_MS, its exit killing what is left; a third signal exits at once.
  let hurried = false;
  const now = (signal: string) => {
    if (hurried) process.exit(0);
    hurried = true;
    logger.info({ signal }, `a signal while stopping: every server is sent SIGTERM now, and its process group killed within ${NOW_GRACE_MS / 1000} s`);
    void terminateAll(NOW_GRACE_MS).finally(() => process.exit(0));
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => (closing ? now(signal) : shutdown(signal)));
  return shutdown;
}
