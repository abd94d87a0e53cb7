import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CompleteResultSchema,
  EmptyResultSchema,
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  ReadResourceResultSchema,
  type ClientCapabilities,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type LoggingLevel,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '../config/schema.js';
import { errorMessage, LatchError } from '../errors.js';
import { SchemaValidators } from '../schema-validators.js';
import type { Logger } from '../log.js';
import { connectServer, stderrOf, type Connected, type RelayHooks } from './connect.js';
import { DirectCalls, type DirectCallOptions } from './direct-calls.js';
import type { Prespawned } from './prespawn.js';
import type { Permit, PermitBook } from './permit.js';

/**
 * One configured server over its lifetime: connect, list, restart with backoff after a failed start
 * or a crash, stop. The last good listing is kept while the server is down, so its tools stay
 * listed and calls to them fail with a clear error instead of "unknown tool".
 */
export type ServerState = 'starting' | 'ready' | 'failed' | 'stopped';

export interface ServerListing {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: Prompt[];
}

export interface SupervisorOptions {
  name: string;
  config: ServerConfig;
  capabilities: ClientCapabilities;
  hooks: RelayHooks;
  logger: Logger;
  permits: PermitBook;
  connectTimeoutMs: number;
  maxMessageBytes: number;
  version: string;
  /** Called whenever the listing or the state changes. */
  onChange: () => void;
  /** An error that stops this server from starting at all (a missing `${env:…}` variable). */
  configError?: string;
  backoff?: { initialMs: number; maxMs: number };
  /** Processes started early; the first attempt takes its own if there is one. */
  prespawned?: Prespawned;
}

/** Every listing compiles each outputSchema again (re-listed on list_changed and restarts): one per schema text. */
const schemaChecker = new SchemaValidators(256);

/** A server that stays up this long has its backoff reset. */
const STABLE_MS = 30_000;

export class Supervisor {
  readonly name: string;
  readonly config: ServerConfig;
  state: ServerState = 'starting';
  lastError: string | null = null;
  listing: ServerListing = { tools: [], resources: [], templates: [], prompts: [] };
  serverCapabilities: ServerCapabilities | undefined;
  pid: number | null = null;
  /** Attempts since the last stable run. */
  restarts = 0;
  nextRestartAt: number | null = null;

  private client: Client | null = null;
  /** tools/call on the same connection, without the Client's per-request bookkeeping. */
  private direct: DirectCalls | null = null;
  private stopping = false;
  /** Which connection attempt is current; see lost(). */
  private generation = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly settledWaiters = new Set<() => void>();
  private firstSettled = false;
  private readonly backoff: { initialMs: number; maxMs: number };
  private delayMs: number;

  constructor(private readonly options: SupervisorOptions) {
    this.name = options.name;
    this.config = options.config;
    this.backoff = options.backoff ?? { initialMs: 1_000, maxMs: 30_000 };
    this.delayMs = this.backoff.initialMs;
  }

  start(): void {
    if (this.options.configError) {
      this.fail(this.options.configError, false);
      return;
    }
    void this.attempt();
  }

  /** Resolves once the first connection attempt has settled (ready or failed), or after `timeoutMs`. */
  whenSettled(timeoutMs: number): Promise<void> {
    if (this.firstSettled || this.state === 'ready') return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      const waiter = done;
      this.settledWaiters.add(waiter);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  /** Waits up to `timeoutMs` for the server to be ready; true when it is. */
  async whenReady(timeoutMs: number): Promise<boolean> {
    if (this.state === 'ready') return true;
    if (this.state !== 'starting') return false;
    await this.whenSettled(timeoutMs);
    return (this.state as ServerState) === 'ready';
  }

  /** Why the server cannot take calls right now, for the tool error. */
  unavailableReason(): string {
    const why = this.lastError ? `: ${this.lastError}` : '';
    if (this.state === 'starting') return `server "${this.name}" is still starting${why}`;
    if (this.state === 'stopped') return `server "${this.name}" is stopped`;
    const retry = this.nextRestartAt ? `; restarting in ${Math.max(1, Math.round((this.nextRestartAt - Date.now()) / 1000))} s` : '';
    return `server "${this.name}" is unavailable${why}${retry}`;
  }

  private async attempt(): Promise<void> {
    if (this.stopping) return;
    // Every report about this attempt's connection carries its number: only the current one counts.
    const generation = ++this.generation;
    this.state = 'starting';
    this.nextRestartAt = null;
    const logger = this.options.logger;
    const startedAt = Date.now();
    let connected: Connected | null = null;
    try {
      connected = await connectServer({
        name: this.name,
        config: this.config,
        capabilities: this.options.capabilities,
        hooks: this.options.hooks,
        logger,
        timeoutMs: this.options.connectTimeoutMs,
        maxMessageBytes: this.options.maxMessageBytes,
        version: this.options.version,
        ...(this.options.prespawned ? { prespawned: this.options.prespawned } : {}),
      });
      if (this.stopping || generation !== this.generation) {
        await connected.client.close().catch(() => undefined);
        return;
      }
      const current = connected;
      this.client = current.client;
      this.direct = new DirectCalls(current.transport);
      this.pid = current.pid;
      current.client.onerror = (error) => logger.warn({ err: errorMessage(error) }, 'server transport error');
      current.client.onclose = () => this.lost(generation, 'the server exited', startedAt, current);
      this.serverCapabilities = current.client.getServerCapabilities();
      const listing = await this.fetchListing(current.client);
      if (generation !== this.generation) return;
      this.listing = listing;
      this.state = 'ready';
      this.lastError = null;
      logger.info({ pid: this.pid, tools: this.listing.tools.length }, 'server ready');
      this.settle();
      this.options.onChange();
    } catch (error) {
      this.lost(generation, `failed to start: ${errorMessage(error)}`, startedAt, connected, error);
    }
  }

  /**
   * The connection of attempt `generation` is gone (it closed, or its start failed). The first
   * report wins; later ones about the same connection, or about one that is no longer current,
   * change nothing: exactly one restart is scheduled per failure.
   */
  private lost(generation: number, message: string, startedAt: number, connected: Connected | null, error?: unknown): void {
    if (generation !== this.generation || this.stopping) return;
    this.generation += 1;
    this.client = null;
    this.dropDirect();
    this.pid = null;
    if (connected) {
      connected.client.onclose = undefined;
      void connected.client.close().catch(() => undefined);
    }
    if (Date.now() - startedAt >= STABLE_MS) {
      this.delayMs = this.backoff.initialMs;
      this.restarts = 0;
    }
    const stderr = stderrOf(connected, error);
    this.fail(stderr.length > 0 ? `${message}; its last stderr lines: ${stderr.join(' | ')}` : message, true);
  }

  private fail(message: string, retry: boolean): void {
    this.state = 'failed';
    this.lastError = message;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    if (retry && !this.stopping) {
      const wait = this.delayMs;
      this.delayMs = Math.min(this.delayMs * 2, this.backoff.maxMs);
      this.restarts += 1;
      this.nextRestartAt = Date.now() + wait;
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        void this.attempt();
      }, wait);
      this.restartTimer.unref();
    }
    this.options.logger.error({ err: message, restarts: this.restarts, ...(this.nextRestartAt ? { retryInMs: this.nextRestartAt - Date.now() } : {}) }, 'server unavailable');
    this.settle();
    this.options.onChange();
  }

  private settle(): void {
    this.firstSettled = true;
    for (const waiter of this.settledWaiters) waiter();
    this.settledWaiters.clear();
  }

  /** Pages through every list the server offers; raw requests, because Client.listTools() throws on one bad outputSchema. */
  private async fetchListing(client: Client): Promise<ServerListing> {
    const caps = client.getServerCapabilities() ?? {};
    const options: RequestOptions = { timeout: this.options.connectTimeoutMs };
    const tools: Tool[] = [];
    const resources: Resource[] = [];
    const templates: ResourceTemplate[] = [];
    const prompts: Prompt[] = [];
    if (caps.tools) {
      let cursor: string | undefined;
      do {
        const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsResultSchema, options);
        tools.push(...page.tools.map((tool) => this.checkedTool(tool)));
        cursor = page.nextCursor || undefined;
      } while (cursor);
    }
    if (caps.resources) {
      let cursor: string | undefined;
      do {
        const page = await client.request({ method: 'resources/list', params: cursor ? { cursor } : {} }, ListResourcesResultSchema, options);
        resources.push(...page.resources);
        cursor = page.nextCursor || undefined;
      } while (cursor);
      cursor = undefined;
      do {
        const page: { resourceTemplates: ResourceTemplate[]; nextCursor?: string | undefined } = await client
          .request({ method: 'resources/templates/list', params: cursor ? { cursor } : {} }, ListResourceTemplatesResultSchema, options)
          .catch(() => ({ resourceTemplates: [] as ResourceTemplate[], nextCursor: undefined }));
        templates.push(...page.resourceTemplates);
        cursor = page.nextCursor || undefined;
      } while (cursor);
    }
    if (caps.prompts) {
      let cursor: string | undefined;
      do {
        const page = await client.request({ method: 'prompts/list', params: cursor ? { cursor } : {} }, ListPromptsResultSchema, options);
        prompts.push(...page.prompts);
        cursor = page.nextCursor || undefined;
      } while (cursor);
    }
    return { tools, resources, templates, prompts };
  }

  /**
   * SDK-based clients compile every outputSchema when listing and throw for the WHOLE list when one
   * does not compile (an unresolvable $ref): such a schema is dropped here, with a warning.
   */
  private checkedTool(tool: Tool): Tool {
    if (!tool.outputSchema) return tool;
    try {
      schemaChecker.getValidator(tool.outputSchema as never);
      return tool;
    } catch (error) {
      this.options.logger.warn({ tool: tool.name, err: errorMessage(error) }, 'dropping an outputSchema that does not compile');
      const { outputSchema: _dropped, ...rest } = tool;
      return rest;
    }
  }

  /** Re-reads the lists after the server said they changed. */
  async refresh(): Promise<void> {
    const client = this.client;
    if (!client || this.state !== 'ready') return;
    try {
      this.listing = await this.fetchListing(client);
      this.options.onChange();
    } catch (error) {
      this.options.logger.warn({ err: errorMessage(error) }, 'could not refresh the server listing');
    }
  }

  /** Calls still waiting on a closed connection fail now ("stopped while the call was running"), not at their timeout. */
  private dropDirect(): void {
    this.direct?.closeAll();
    this.direct = null;
  }

  private connectedClient(): Client {
    if (!this.client || this.state !== 'ready') throw new LatchError('SERVER_UNAVAILABLE', this.unavailableReason());
    return this.client;
  }

  /** Forwards one tools/call; spends the permit the call pipeline issued for exactly this call. The result is checked upstream. */
  async callTool(permit: Permit, name: string, args: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined, options: DirectCallOptions): Promise<unknown> {
    this.options.permits.spend(permit, this.name, name, args);
    const direct = this.direct;
    if (!direct || this.state !== 'ready') throw new LatchError('SERVER_UNAVAILABLE', this.unavailableReason());
    const params = { name, ...(args !== undefined ? { arguments: args } : {}), ...(meta ? { _meta: meta } : {}) };
    return direct.call(params, options);
  }

  /** Forwards one resources/read; spends its permit. */
  async readResource(permit: Permit, uri: string, options: RequestOptions): Promise<ReadResourceResult> {
    this.options.permits.spend(permit, this.name, 'resources/read', uri);
    return this.connectedClient().request({ method: 'resources/read', params: { uri } }, ReadResourceResultSchema, options);
  }

  async getPrompt(name: string, args: Record<string, string> | undefined, options: RequestOptions): Promise<GetPromptResult> {
    return this.connectedClient().request({ method: 'prompts/get', params: { name, ...(args ? { arguments: args } : {}) } }, GetPromptResultSchema, options);
  }

  async complete(params: CompleteRequest['params'], options: RequestOptions): Promise<CompleteResult> {
    return this.connectedClient().request({ method: 'completion/complete', params }, CompleteResultSchema, options);
  }

  async subscribe(uri: string, subscribe: boolean): Promise<void> {
    await this.connectedClient().request({ method: subscribe ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri } }, EmptyResultSchema);
  }

  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    if (!this.serverCapabilities?.logging || !this.client) return;
    await this.client.request({ method: 'logging/setLevel', params: { level } }, EmptyResultSchema).catch(() => undefined);
  }

  async sendRootsListChanged(): Promise<void> {
    await this.client?.sendRootsListChanged().catch(() => undefined);
  }

  /** Stops for good: no restart; the process tree is closed. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.generation += 1;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const client = this.client;
    this.client = null;
    this.dropDirect();
    this.state = 'stopped';
    if (client) client.onclose = undefined;
    this.settle();
    await client?.close().catch(() => undefined);
  }
}

