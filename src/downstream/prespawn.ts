import type { ServerConfig, StdioServer } from '../config/schema.js';
import type { Logger } from '../log.js';
import { childTransport, type ChildTransport } from './child-transport.js';

/**
 * Stdio servers whose processes are started as soon as `serve` has read its config, before the
 * client has initialized. A server's own start (for a Node server, loading its code: about 150 ms)
 * then overlaps the gateway's, instead of following it; the MCP handshake, with capabilities
 * mirrored from the client, still waits until the registry starts the server and claims the
 * process. A process is claimed only for the very entry it was started for; whatever is not
 * claimed when the registry first starts its servers is closed. Free of zod: `serve` uses it before
 * the config is validated.
 */
export class Prespawned {
  private readonly waiting = new Map<string, { key: string; transport: ChildTransport }>();

  /**
   * Starts the process of each stdio server in `servers` (entries already expanded). `logger` is
   * asked for at a server's first stderr line: `serve` spawns before it has loaded its logger.
   */
  spawn(servers: Record<string, StdioServer>, logger: () => Logger, maxMessageBytes: number): void {
    for (const [name, config] of Object.entries(servers)) {
      if (this.waiting.has(name)) continue;
      let serverLogger: Logger | undefined;
      const transport = childTransport(config, () => (serverLogger ??= logger().child({ server: name })), maxMessageBytes);
      // A failed spawn is not reported here: the registry's own attempt meets the same error, says so and retries.
      transport.start().catch(() => undefined);
      this.waiting.set(name, { key: processKey(config), transport });
    }
  }

  /** The started process for exactly this entry, once; undefined if there is none. */
  claim(name: string, config: ServerConfig): ChildTransport | undefined {
    const entry = this.waiting.get(name);
    if (!entry) return undefined;
    this.waiting.delete(name);
    if (entry.key === processKey(config)) return entry.transport;
    void entry.transport.close();
    return undefined;
  }

  /** Closes every process nobody claimed. */
  async closeAll(): Promise<void> {
    const left = [...this.waiting.values()];
    this.waiting.clear();
    await Promise.all(left.map(({ transport }) => transport.close()));
  }
}

/**
 * What decides how a server's process runs, in a fixed order: the early read of the file keeps the
 * user's key order, the validated config the schema's, and both must give the same key.
 */
function processKey(config: ServerConfig): string {
  if (!('command' in config)) return '';
  const env = Object.entries(config.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([config.command, config.args ?? [], env, config.cwd ?? null]);
}
