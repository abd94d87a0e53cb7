import type { ClientCapabilities, Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { expandServerEnv } from '../config/load.js';
import type { ServerConfig } from '../config/schema.js';
import { RpcError } from '../errors.js';
import { escapeText } from '../latch/escape.js';
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
export type RegistryOptions = Pick<SupervisorOptions, 'capabilities' | 'hooks' | 'logger' | 'permits' | 'records' | 'connectTimeoutMs' | 'maxMessageBytes' | 'version' | 'onChange' | 'prespawned' | 'stderrToLogOnly'> & {
  env?: NodeJS.ProcessEnv;
};

export class ServerRegistry {
  private readonly supervisors = new Map<string, Supervisor>();
  /** Each running server's entry as written (unexpanded), so a reload compares what the user edited. */
  private readonly written = new Map<string, string>();
  private toolRoutes = new Map<string, ToolRoute>();
  private promptRoutes = new Map<string, PromptRoute>();
  private dirty = true;
  /** Each listed resource URI and the servers listing it, built once per change (resourceIndex). */
  private listedResources: Map<string, Array<{ supervisor: Supervisor; resource: Resource }>> | null = null;
  /** Pairs (or more) of servers already logged as claiming the same resource URIs. */
  private readonly clashesLogged = new Set<string>();
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
      stopping.push(supervisor.stop(next ? 'a config reload changed its entry in mcpServers, and the new one is started' : 'a config reload removed it from mcpServers'));
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
      ...(this.options.stderrToLogOnly ? { stderrToLogOnly: true } : {}),
    });
    this.supervisors.set(name, supervisor);
    this.written.set(name, JSON.stringify(config));
    supervisor.start();
  }

  private changed(): void {
    this.dirty = true;
    this.listedResources = null;
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

  /**
   * `find` for a resource URI, once every server has listed in this run, waiting up to `timeoutMs`
   * for those still starting. Which server a URI is read from depends on every server's listing
   * (resolveResource refuses a URI two claim): routed among those that had listed, a read went to a
   * fast server that claimed a slow one's URI, or to the one server with resources while the other
   * had not said it has any (round 18 review of hostile servers, left by round 18). A server that has
   * not listed after the wait (still starting, or failed before its first listing) refuses the
   * read, naming it: fail closed (docs/threat-model.md, "Round 19").
   */
  async whenAllListed<T>(find: () => T | undefined, timeoutMs: number, uri: string): Promise<T | undefined> {
    if (this.unlisted().length > 0) await this.whenSettled(timeoutMs);
    const unlisted = this.unlisted();
    if (unlisted.length === 0) return find();
    const which = unlisted.map((supervisor) => supervisor.unavailableReason()).join('; ');
    throw new RpcError(
      ErrorCode.InvalidRequest,
      `mcp-latch: the resource ${escapeText(uri)} is not read yet: not every server has listed its resources (${which}), and one of them may claim this URI, so its server cannot be told; try again once it has started (docs/threat-model.md, "Round 19")`,
    );
  }

  /** The servers with no listing in this run (a stopped one, replaced by a reload, is none of them). */
  private unlisted(): Supervisor[] {
    return this.all().filter((supervisor) => !supervisor.hasListed && supervisor.state !== 'stopped');
  }

  private rebuild(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const supervisors = this.all();
    const toolNames = exposeNames(supervisors.flatMap((s) => s.listing.tools.map((tool) => ({ server: s.name, name: tool.name, prefix: s.config.prefix !== false }))));
    const promptNames = exposeNames(supervisors.flatMap((s) => s.listing.prompts.map((prompt) => ({ server: s.name, name: prompt.name, prefix: s.config.prefix !== false }))));
    this.toolRoutes = new Map();
    this.lastTool = undefined;
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
    const last = this.lastTool;
    if (last !== undefined && last.exposed === exposed) return last;
    const route = this.toolRoutes.get(exposed);
    if (route) this.lastTool = route;
    return route;
  }

  /**
   * The route resolveTool gave last (until the routes are made again): a client calls one tool after
   * another, and the name it sent is a new string each call, which the Map hashed anew, where
   * comparing it with this route's name costs a fraction (docs/performance.md, "Round 28: per-call work").
   */
  private lastTool: ToolRoute | undefined = undefined;

  promptRoutesList(): PromptRoute[] {
    this.rebuild();
    return [...this.promptRoutes.values()];
  }

  resolvePrompt(exposed: string): PromptRoute | undefined {
    this.rebuild();
    return this.promptRoutes.get(exposed);
  }

  /**
   * Resources keep their URIs (clients show and reuse them), so nothing on the wire says which
   * server a read is for. A URI listed by two servers is listed by neither (logged once per pair of
   * servers), and reading it is refused (resolveResource): in config order one server received the
   * reads of the other's resource (round 17 review of hostile servers, 3; docs/threat-model.md).
   */
  resources(): Array<{ supervisor: Supervisor; resource: Resource }> {
    const out: Array<{ supervisor: Supervisor; resource: Resource }> = [];
    for (const [uri, entries] of this.resourceIndex()) {
      if (entries.length === 1) out.push(entries[0]!);
      else this.claimedByMany(uri, entries.map((entry) => entry.supervisor));
    }
    return out;
  }

  /** Each listed URI with the servers listing it (the first entry of each), in config order. */
  private resourceIndex(): Map<string, Array<{ supervisor: Supervisor; resource: Resource }>> {
    if (this.listedResources) return this.listedResources;
    const index = new Map<string, Array<{ supervisor: Supervisor; resource: Resource }>>();
    for (const supervisor of this.all()) {
      for (const resource of supervisor.listing.resources) {
        const entries = index.get(resource.uri);
        if (!entries) index.set(resource.uri, [{ supervisor, resource }]);
        else if (!entries.some((entry) => entry.supervisor === supervisor)) entries.push({ supervisor, resource });
      }
    }
    this.listedResources = index;
    return index;
  }

  templates(): Array<{ supervisor: Supervisor; template: ResourceTemplate }> {
    return this.all().flatMap((supervisor) => supervisor.listing.templates.map((template) => ({ supervisor, template })));
  }

  /**
   * The server a resource URI belongs to: the one server that lists it or has a template matching
   * it, else the only resource server. A URI that servers claim together (listed by two, or listed
   * by one and matched by another's template, or matched by two servers' templates) is refused with
   * an error naming them: whichever got it could answer for the other (docs/threat-model.md).
   */
  resolveResource(uri: string): Supervisor | undefined {
    const listed = this.resourceIndex().get(uri);
    const claiming = new Set([...(listed ?? []), ...this.matchingTemplates(uri, listed === undefined)].map((entry) => entry.supervisor));
    const claimants = this.all().filter((supervisor) => claiming.has(supervisor));
    if (claimants.length > 1) {
      this.claimedByMany(uri, claimants);
      const names = claimants.map((supervisor) => `"${supervisor.name}"`).join(' and ');
      throw new RpcError(ErrorCode.InvalidRequest, `mcp-latch: the resource ${escapeText(uri)} is claimed by the servers ${names} (listed or matched by a resource template of each); mcp-latch routes it to none of them, since either could answer for the other (docs/threat-model.md, "What a server sends through the protocol")`);
    }
    if (claimants.length === 1) return claimants[0];
    const withResources = this.all().filter((supervisor) => supervisor.serverCapabilities?.resources);
    return withResources.length === 1 ? withResources[0] : undefined;
  }

  /** Logs, once per pair of servers, that they claim the same resource URIs. */
  private claimedByMany(uri: string, claimants: Supervisor[]): void {
    const key = claimants.map((supervisor) => supervisor.name).join('\u0000');
    if (this.clashesLogged.has(key)) return;
    this.clashesLogged.add(key);
    const servers = claimants.map((supervisor) => supervisor.name);
    this.options.logger.warn({ servers, uri: escapeText(uri) }, `the servers ${servers.join(' and ')} claim the same resource URIs (${escapeText(uri)} the first seen): such a URI is not listed, and its reads are refused (docs/threat-model.md, "What a server sends through the protocol")`);
  }

  /** The template a resource URI is read through: none when a listed resource has that URI. */
  resolveTemplate(uri: string): { supervisor: Supervisor; template: ResourceTemplate } | undefined {
    return this.resourceIndex().has(uri) ? undefined : this.matchingTemplates(uri, true)[0];
  }

  /**
   * The templates matching a URI, in config order. A URI no server lists and longer than the limit
   * is refused, not routed: matched against no template, it could reach a server without its
   * template's checks (docs/config.md, "limits").
   */
  private matchingTemplates(uri: string, limited: boolean): Array<{ supervisor: Supervisor; template: ResourceTemplate }> {
    const templates = this.templates();
    if (templates.length === 0) return [];
    if (uri.length > MAX_TEMPLATE_URI) {
      if (!limited) return [];
      throw new RpcError(ErrorCode.InvalidParams, `mcp-latch: a resource URI of ${uri.length} characters is over the limit of ${MAX_TEMPLATE_URI} for URIs matched against resource templates`);
    }
    return templates.filter(({ supervisor, template }) => this.matcher(supervisor, template)?.matches(uri) === true);
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
    this.listedResources = null;
    this.written.clear();
    await Promise.all(all.map((supervisor) => supervisor.stop()));
  }
}
