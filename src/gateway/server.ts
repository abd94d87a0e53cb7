import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { LoadedConfig } from '../config/load.js';
import type { ConfigFile } from '../config/schema.js';
import type { Prespawned } from '../downstream/prespawn.js';
import type { ServerRegistry } from '../downstream/registry.js';
import type { Logger } from '../log.js';
import type { Audit } from '../store/audit.js';
import type { PathEnv } from '../subjects/paths.js';
import { GatewayCore, mirrorCapabilities } from './core.js';
import { createRelayHooks } from './relay.js';
import { UpstreamSession } from './upstream-session.js';
import { GATEWAY_STOPPING } from '../cancellation.js';


export interface GatewayOptions {
  config: LoadedConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  pathEnv?: PathEnv;
  /** Server processes `serve` started before the gateway was loaded; claimed when servers start. */
  prespawned?: Prespawned;
}

/**
 * The stdio gateway: one upstream MCP `Server` (one client session) in front of every configured
 * server. Downstream servers are started once the client has initialized, so the capabilities they
 * see mirror the client's (elicitation, sampling, roots can then be relayed), and the client's
 * roots join the workspace.
 */
export class Gateway {
  readonly core: GatewayCore;
  private readonly upstream: UpstreamSession;

  constructor(options: GatewayOptions) {
    this.core = new GatewayCore({ ...options, hooks: (core) => createRelayHooks(core, () => this.upstream.server) });
    this.upstream = new UpstreamSession({ core: this.core, context: this.core, mirror: mirrorCapabilities, roots: true });
  }

  get server(): Server {
    return this.upstream.server;
  }

  get registry(): ServerRegistry {
    return this.core.registry;
  }

  get logger(): Logger {
    return this.core.logger;
  }

  get audit(): Audit {
    return this.core.audit;
  }

  config(): ConfigFile {
    return this.core.config();
  }

  /** The config file's new text, from its watcher: applied in two turns (GatewayCore.reloadInTurns). */
  reload(text: string, why: string): Promise<boolean> {
    return this.core.reloadInTurns(text, why);
  }

  currentText(): string {
    return this.core.currentText();
  }

  /** The client's tools/call requests not answered yet. */
  callsInFlight(): number {
    return this.upstream.callsInFlight();
  }

  /** Settles when the client's first tools/list is answered. */
  get firstToolsList(): Promise<void> {
    return this.upstream.firstToolsList;
  }

  /** Settles when the client's first tools/call is answered. */
  get firstCallAnswered(): Promise<void> {
    return this.upstream.firstCallAnswered;
  }

  /**
   * Settles when the start-up is over: the client's first tools/list is answered, or every server
   * has started or failed (waited for at most `timeouts.startWaitSeconds`), for a client that calls
   * without listing.
   */
  whenStartedUp(): Promise<void> {
    const settled = this.upstream.started.then(() => this.core.registry.whenSettled(this.core.config().timeouts.startWaitSeconds * 1000));
    return Promise.race([this.upstream.firstToolsList, settled]);
  }

  connect(transport: Transport): Promise<void> {
    return this.upstream.connect(transport);
  }

  /** Closes every server (process trees included) and the upstream connection. */
  async close(why?: string): Promise<void> {
    // A call waiting for its prompt on a signal got no audit record (round 13 review R2): it is
    // cancelled through the latch, recorded, before the servers and then the audit close. (The
    // client gone cancels them itself, recorded `by: "client"`: upstream-calls.ts.)
    if (why?.startsWith('SIG')) this.upstream.cancelCalls(GATEWAY_STOPPING);
    this.upstream.stop();
    await this.core.close();
    await this.upstream.close();
  }
}
