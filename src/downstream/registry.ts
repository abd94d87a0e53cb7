import type { ClientCapabilities, Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { expandServerEnv } from '../config/load.js';
import type { ServerConfig } from '../config/schema.js';
import { RpcError } from '../errors.js';
import { exposeNames, nameKey } from './catalog.js';
import { Supervisor, type ServerState, type SupervisorOptions } from './supervisor.js';
import { compileTemplate, MAX_TEMPLATE_LENGTH, MAX_TEMPLATE_URI, type TemplateMatcher } from './template-match.js';

/**
 * Every configured server and the merged view the client sees: exposed tool and prompt names,
 * resource routing. Hot reload applies a new `mcpServers` block here (added servers start, removed
 * ones stop, changed ones restart, unchanged ones keep running).
 */
export interface ToolRoute {
  exposed: string;
  supervisor: Supervisor;
  tool: Tool;
}

export interface PromptRoute {
  exposed: string;
  supervisor: Supervisor;
  prompt: Prompt;
}

/** A server that is not ready, as the tools/list `_meta` and `mcp-latch tools` report it. */
export interface UnavailableServer {
  server: string;
  state: ServerState;
  reason: string;
}

/** What every server's supervisor gets; `onChange` fires when something the client sees changed (a listing, a server state). */
export type RegistryOptions = Pick<SupervisorOptions, 'capabilities' | 'hooks' | 'logger' | 'permits' | 'records' | 'connectTimeoutMs' | 'maxMessageBytes' | 'version' | 'onChange' | 'prespawned'> & {
  env?: NodeJS.ProcessEnv;
};

export class ServerRegistry {
  private readonly supervisors = new Map<string, Supervisor>();
  /** Each running server's entry as written (unexpanded), so a reload compares what the user edited. */
  private readonly written = new Map<string, string>();
  private toolRoutes = new Map<string, ToolRoute>();
  private promptRoutes = new Map<string, PromptRoute>();
  private dirty = true;
  /** Each listed template's matcher, built once per listing (a refresh lists new objects). */
  private readonly matchers = new WeakMap<ResourceTemplate, TemplateMatcher | null>();

  constructor(private readonly options: RegistryOptions) {}

  /** Capabilities for servers started from now on (set once the client has initialized). */
  setCapabilities(capabilities: ClientCapabilities): void {
    this.options.capabilities = capabilities;
  }

  /** Brings the running servers in line with `servers`; returns what changed, for the log. */
  async apply(servers: Record<string, ServerConfig>): Promise<{ added: string[]; removed: string[]; restarted: string[] }> {
    const added: string[] = [];
    const removed: string[] = [];
    const restarted: string[] = [];
    const wanted = new Map(Object.entries(servers).filter(([, config]) => !config.disabled));
    const stopping: Array<Promise<void>> = [];
    for (const [name, supervisor] of this.supervisors) {
      const next = wanted.get(name);
      if (next && JSON.stringify(next) === this.written.get(name)) continue;
      (next ? restarted : removed).push(name);
      this.supervisors.delete(name);
      this.written.delete(name);
      stopping.push(supervisor.stop());
    }
    // Started before the old ones finish stopping, and synchronously, so a call that arrives
    // right after sees the new servers as starting rather than missing.
    for (const [name, config] of wanted) {
      if (this.supervisors.has(name)) continue;
      if (!restarted.includes(name)) added.push(name);
      this.startServer(name, config);
    }
    this.changed();
    await Promise.all(stopping);
    return { added, removed, restarted };
  }

  private startServer(name: string, config: ServerConfig): void {
    const expanded = expandServerEnv(name, config, this.options.env);
    const supervisor = new Supervisor({
      name,
      config: expanded.ok ? expanded.server : config,
      capabilities: this.options.capabilities,
      hooks: this.options.hooks,
      logger: this.options.logger.child({ server: name }),
      permits: this.options.permits,
      ...(this.options.records ? { records: this.options.records } : {}),
      connectTimeoutMs: this.options.connectTimeoutMs,
      maxMessageBytes: this.options.maxMessageBytes,
      version: this.options.version,
      onChange: () => this.changed(),
      ...(expanded.ok ? {} : { configError: `${expanded.issue.path}: ${expanded.issue.message}` }),
      ...(this.options.prespawned ? { prespawned: this.options.prespawned } : {}),
    });
    this.supervisors.set(name, supervisor);
    this.written.set(name, JSON.stringify(config));
    supervisor.start();
  }

  private changed(): void {
    this.dirty = true;
    this.options.onChange();
  }

  get(name: string): Supervisor | undefined {
    return this.supervisors.get(name);
  }

  all(): Supervisor[] {
    return [...this.supervisors.values()];
  }

  /** The servers that cannot take calls now, each with the reason (docs/config.md#timeouts). */
  unavailable(): UnavailableServer[] {
    return this.all()
      .filter((supervisor) => supervisor.state !== 'ready')
      .map((supervisor) => ({ server: supervisor.name, state: supervisor.state, reason: supervisor.unavailableReason() }));
  }

  /** Waits, up to `timeoutMs`, for every server's first connection attempt to settle. */
  async whenSettled(timeoutMs: number): Promise<void> {
    await Promise.all(this.all().map((supervisor) => supervisor.whenSettled(timeoutMs)));
  }

  /**
   * What `find` finds in the lists; when it finds nothing while servers are still starting, it looks
   * again once they have settled (waiting up to `timeoutMs`): a request can come before any list,
   * and must not be told "unknown" for a name a starting server is about to list.
   */
  async whenListed<T>(find: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
    const found = find();
    if (found !== undefined || !this.all().some((supervisor) => supervisor.state === 'starting')) return found;
    await this.whenSettled(timeoutMs);
    return find();
  }

  private rebuild(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const supervisors = this.all();
    const toolNames = exposeNames(supervisors.flatMap((s) => s.listing.tools.map((tool) => ({ server: s.name, name: tool.name, prefix: s.config.prefix !== false }))));
    const promptNames = exposeNames(supervisors.flatMap((s) => s.listing.prompts.map((prompt) => ({ server: s.name, name: prompt.name, prefix: s.config.prefix !== false }))));
    this.toolRoutes = new Map();
    this.promptRoutes = new Map();
    for (const supervisor of supervisors) {
      for (const tool of supervisor.listing.tools) {
        const exposed = toolNames.get(nameKey(supervisor.name, tool.name))!;
        this.toolRoutes.set(exposed, { exposed, supervisor, tool });
      }
      for (const prompt of supervisor.listing.prompts) {
        const exposed = promptNames.get(nameKey(supervisor.name, prompt.name))!;
        this.promptRoutes.set(exposed, { exposed, supervisor, prompt });
      }
    }
  }

  /** Every tool of every server, under its exposed name, in config order. */
  toolRoutesList(): ToolRoute[] {
    this.rebuild();
    return [...this.toolRoutes.values()];
  }

  resolveTool(exposed: string): ToolRoute | undefined {
    this.rebuild();
    return this.toolRoutes.get(exposed);
  }

  promptRoutesList(): PromptRoute[] {
    this.rebuild();
    return [...this.promptRoutes.values()];
  }

  resolvePrompt(exposed: string): PromptRoute | undefined {
    this.rebuild();
    return this.promptRoutes.get(exposed);
  }

  /** Resources keep their URIs (clients show and reuse them); on a clash the first server in config order wins. */
  resources(): Array<{ supervisor: Supervisor; resource: Resource }> {
    const seen = new Set<string>();
    const out: Array<{ supervisor: Supervisor; resource: Resource }> = [];
    for (const supervisor of this.all()) {
      for (const resource of supervisor.listing.resources) {
        if (seen.has(resource.uri)) continue;
        seen.add(resource.uri);
        out.push({ supervisor, resource });
      }
    }
    return out;
  }

  templates(): Array<{ supervisor: Supervisor; template: ResourceTemplate }> {
    return this.all().flatMap((supervisor) => supervisor.listing.templates.map((template) => ({ supervisor, template })));
  }

  /** The server a resource URI belongs to: a listed resource, then a matching template, then the only resource server. */
  resolveResource(uri: string): Supervisor | undefined {
    const listed = this.resources().find((entry) => entry.resource.uri === uri);
    if (listed) return listed.supervisor;
    const template = this.templateOf(uri);
    if (template) return template.supervisor;
    const withResources = this.all().filter((supervisor) => supervisor.serverCapabilities?.resources);
    return withResources.length === 1 ? withResources[0] : undefined;
  }

  /** The template a resource URI is read through: none when a listed resource has that URI. */
  resolveTemplate(uri: string): { supervisor: Supervisor; template: ResourceTemplate } | undefined {
    return this.resources().some((entry) => entry.resource.uri === uri) ? undefined : this.templateOf(uri);
  }

  /**
   * A URI longer than the limit is refused, not routed: matched against no template, it could reach
   * a server without its template's checks (docs/config.md, "limits").
   */
  private templateOf(uri: string): { supervisor: Supervisor; template: ResourceTemplate } | undefined {
    const templates = this.templates();
    if (templates.length === 0) return undefined;
    if (uri.length > MAX_TEMPLATE_URI) {
      throw new RpcError(ErrorCode.InvalidParams, `mcp-latch: a resource URI of ${uri.length} characters is over the limit of ${MAX_TEMPLATE_URI} for URIs matched against resource templates`);
    }
    return templates.find(({ supervisor, template }) => this.matcher(supervisor, template)?.matches(uri) === true);
  }

  private matcher(supervisor: Supervisor, template: ResourceTemplate): TemplateMatcher | null {
    let matcher = this.matchers.get(template);
    if (matcher === undefined) {
      const tooLong = template.uriTemplate.length > MAX_TEMPLATE_LENGTH;
      if (tooLong) this.options.logger.warn({ server: supervisor.name, template: template.name, length: template.uriTemplate.length }, `a resource template longer than ${MAX_TEMPLATE_LENGTH} characters matches no URI`);
      // A template the SDK cannot parse matches nothing.
      matcher = tooLong ? null : compileTemplate(template.uriTemplate);
      this.matchers.set(template, matcher);
    }
    return matcher;
  }

  async closeAll(): Promise<void> {
    const all = this.all();
    this.supervisors.clear();
    this.written.clear();
    await Promise.all(all.map((supervisor) => supervisor.stop()));
  }
}
