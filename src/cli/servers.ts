import { expandServerEnv, serversToRun, type LoadedConfig } from '../config/load.js';
import { messageBytes } from '../config/schema.js';
import type { RelayHooks } from '../downstream/connect.js';
import { PermitBook } from '../downstream/permit.js';
import { ServerRegistry } from '../downstream/registry.js';
import { silentLogger, type Logger } from '../log.js';
import { VERSION } from '../version.js';
import { usage } from '../errors.js';

/**
 * Starts the configured servers for a one-shot CLI command (`tools`, `check`), with no client
 * capabilities: nothing of theirs can be relayed, and no call is forwarded (no permits are issued).
 * `fn` runs once every server has settled its first start, or after `waitMs` (default: the connect bound).
 */
export async function withServers<T>(config: LoadedConfig, only: string[] | null, fn: (registry: ServerRegistry) => Promise<T>, options: { waitMs?: number; logger?: Logger } = {}): Promise<T> {
  const logger = options.logger ?? silentLogger();
  const refuse = async (): Promise<never> => {
    throw usage('a server asked the client for input, which the command line cannot give; run the server through a client to answer it');
  };
  const hooks: RelayHooks = { elicit: refuse, sample: refuse, listRoots: refuse, onLog: () => undefined, onResourceUpdated: () => undefined, onListChanged: () => undefined };
  const registry = new ServerRegistry({
    capabilities: {},
    hooks,
    logger,
    permits: new PermitBook(),
    connectTimeoutMs: config.file.timeouts.connectSeconds * 1000,
    maxMessageBytes: messageBytes(config.file),
    version: VERSION,
    onChange: () => undefined,
  });
  const servers = Object.fromEntries(Object.entries(serversToRun(config)).filter(([name]) => only === null || only.includes(name)));
  for (const [name, server] of Object.entries(servers)) {
    const expanded = expandServerEnv(name, server);
    if (!expanded.ok) logger.warn({ server: name }, expanded.issue.message);
  }
  try {
    await registry.apply(servers);
    await registry.whenSettled(options.waitMs ?? config.file.timeouts.connectSeconds * 1000);
    return await fn(registry);
  } finally {
    await registry.closeAll();
  }
}
