import type { ServerConfig } from '../config/schema.js';
import { isRemoteServer } from '../config/schema.js';
import type { Logger } from '../log.js';
import { childTransport, type ChildTransport } from './child-transport.js';

/**
 * Stdio servers whose processes are started as soon as `serve` has read its config, before the
 * client has initialized. A server's own start (for a Node server, loading its code: about 150 ms)
 * then overlaps the gateway's, instead of following it; the MCP handshake, with capabilities
 * mirrored from the client, still waits until the registry starts the server and claims the
 * process. A process is claimed only for the very entry it was started for; whatever is not
 * claimed when the registry first starts its servers is closed.
 */
export class Prespawned {
  private readonly waiting = new Map<string, { key: string; transport: ChildTransport }>();

  /** Starts the process of each stdio server in `servers` (entries already expanded). */
  spawn(servers: Record<string, ServerConfig>, logger: Logger, maxMessageBytes: number): void {
    for (const [name, config] of Object.entries(servers)) {
      if (isRemoteServer(config) || this.waiting.has(name)) continue;
      const transport = childTransport(config, logger.child({ server: name }), maxMessageBytes);
      // A failed spawn is not reported here: the registry's own attempt meets the same error, says so and retries.
      transport.start().catch(() => undefined);
      this.waiting.set(name, { key: JSON.stringify(config), transport });
    }
  }

  /** The started process for exactly this entry, once; undefined if there is none. */
  claim(name: string, config: ServerConfig): ChildTransport | undefined {
    const entry = this.waiting.get(name);
    if (!entry) return undefined;
    this.waiting.delete(name);
    if (entry.key === JSON.stringify(config)) return entry.transport;
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
