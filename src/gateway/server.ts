import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type LoggingLevel,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import { parseConfigText, serversToRun, workspaceRoots, type LoadedConfig } from '../config/load.js';
import { messageBytes, type ConfigFile } from '../config/schema.js';
import { PermitBook } from '../downstream/permit.js';
import type { Prespawned } from '../downstream/prespawn.js';
import { ServerRegistry, type PromptRoute, type ToolRoute } from '../downstream/registry.js';
import type { Supervisor } from '../downstream/supervisor.js';
import { errorMessage, RpcError } from '../errors.js';
import { SchemaValidators } from '../schema-validators.js';
import { VERSION } from '../version.js';
import type { Logger } from '../log.js';
import type { PolicyState } from '../policy/decide.js';
import type { MatchEnv } from '../policy/match.js';
import { configIssues, policyFor, ruleIssues } from '../policy/policy.js';
import { auditFile, createAudit, type Audit } from '../store/audit.js';
import { PinStore } from '../store/pins.js';
import { pinsFileFor } from '../config/locate.js';
import { DefinitionReports, type ListedTool } from '../pins/reports.js';
import { definitionRefusal } from '../latch/definition-prompt.js';
import type { DefinitionReport } from '../pins/check.js';
import { RulesFile } from '../store/rules-file.js';
import type { InspectContext } from '../subjects/inspect.js';
import { classifyTool, identifyServer, type ServerIdentity, type ToolClass } from '../subjects/kind.js';
import { profileByName } from '../subjects/profiles.js';
import { analyseCommand, initShellParser, isShellParserReady } from '../subjects/shell/command.js';
import { canonicalRoot, defaultPathEnv, type PathEnv } from '../subjects/paths.js';
import { CallOrder } from './call-order.js';
import type { CallContext } from './ports.js';
import { createRelayHooks } from './relay.js';
import { readResource } from './resource-read.js';
import { ClientSession } from './session.js';
import { UpstreamCalls, type IncomingCall } from './upstream-calls.js';
import { ModernWire } from './era-2026.js';

export interface GatewayOptions {
  config: LoadedConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  pathEnv?: PathEnv;
  /** Server processes `serve` started before the gateway was loaded; claimed when servers start. */
  prespawned?: Prespawned;
}

/**
 * The gateway: one upstream MCP `Server` (stdio, one client session) in front of every configured
 * server. Downstream servers are started once the client has initialized, so the capabilities they
 * see mirror the client's (elicitation, sampling, roots can then be relayed).
 */
export class Gateway implements CallContext {
  readonly server: Server;
  readonly permits = new PermitBook();
  readonly registry: ServerRegistry;
  readonly logger: Logger;
  audit: Audit;

  private loaded: LoadedConfig;
  private policyState!: PolicyState;
  private matchEnv!: MatchEnv;
  private readonly pathEnv: PathEnv;
  private clientRoots: string[] = [];
  private readonly identities = new Map<string, ServerIdentity>();
  private readonly toolClasses = new Map<string, ToolClass>();
  private readonly session: ClientSession;
  private readonly order: CallOrder;
  private readonly rulesFile: RulesFile;
  private toolCallsBypassingProtocol!: UpstreamCalls;
  private readonly definitions: DefinitionReports;
  private started = false;
  private firstListDone = false;
  private listChangeTimer: NodeJS.Timeout | null = null;
  private lastSent = { tools: '', resources: '', prompts: '' };
  private loggingLevel: LoggingLevel | null = null;
  private closed = false;
  /** The shell grammar loading, started once a tool takes shell commands; null before. */
  private shell: Promise<void> | null = null;
  private shellLoaded = false;
  private readonly prespawned: Prespawned | undefined;

  constructor(options: GatewayOptions) {
    this.loaded = options.config;
    this.logger = options.logger;
    this.prespawned = options.prespawned;
    this.pathEnv = options.pathEnv ?? defaultPathEnv();
    this.audit = createAudit(auditFile(this.loaded), (error) => this.logger.error({ err: errorMessage(error) }, 'could not write the audit file'));
    this.rulesFile = new RulesFile(this.loaded.path, configIssues);
    this.definitions = new DefinitionReports(new PinStore(pinsFileFor(this.loaded.path)), this.logger);
    this.applyPolicy();

    this.server = new Server(
      { name: 'mcp-latch', version: VERSION },
      // One validator per prompt schema text (approval prompts and relayed elicitations), not one per prompt.
      { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator: new SchemaValidators() },
    );

    this.registry = new ServerRegistry({
      capabilities: {},
      hooks: createRelayHooks(this),
      logger: this.logger,
      permits: this.permits,
      connectTimeoutMs: this.loaded.file.timeouts.connectSeconds * 1000,
      maxMessageBytes: messageBytes(this.loaded.file),
      version: VERSION,
      onChange: () => {
        this.scheduleListChanged();
        if (!this.shell && this.registry.toolRoutesList().some((route) => takesShellCommands(this.toolClass(route)))) void this.loadShell();
      },
      ...(options.env ? { env: options.env } : {}),
      ...(options.prespawned ? { prespawned: options.prespawned } : {}),
    });

    this.session = new ClientSession(this.server, () => this.loaded.file, this.logger, this.matchEnv, this.loaded.path);
    this.order = new CallOrder(this, this.session);
    this.registerHandlers();
    if (this.shellToolsExpected()) void this.loadShell();
  }

  // -------------------------------------------------------------------------------------------
  // CallContext

  config(): ConfigFile {
    return this.loaded.file;
  }

  policy(): PolicyState {
    return this.policyState;
  }

  inspectContext(): InspectContext {
    return { workspace: this.matchEnv.roots, clientRoots: this.clientRoots, pathEnv: this.pathEnv };
  }

  toolClass(route: ToolRoute): ToolClass {
    const cached = this.toolClasses.get(route.exposed);
    if (cached) return cached;
    const identity = this.identityOf(route.supervisor.name);
    const override = this.loaded.file.tools[route.exposed];
    const toolClass = classifyTool({ identity, tool: route.tool, ...(override ? { override } : {}) });
    this.toolClasses.set(route.exposed, toolClass);
    return toolClass;
  }

  analysisReady(route: ToolRoute): Promise<void> | null {
    if (this.shellLoaded || !takesShellCommands(this.toolClass(route))) return null;
    return this.loadShell();
  }

  /**
   * Loads the shell grammar in the background and parses one command with it, so that the first
   * call finds the parser and its code compiled. A failure leaves every command unanalyzable: asked.
   */
  private loadShell(): Promise<void> {
    this.shell ??= initShellParser()
      .then(() => {
        if (!isShellParserReady()) this.logger.error('the shell parser failed to load; shell commands will need approval');
        else analyseCommand('cd src && FOO=1 npm run test -- --run 2>&1 | tail -n 20 > "out.txt"', { cwd: null });
      })
      .catch((error: unknown) => this.logger.error({ err: errorMessage(error) }, 'the shell parser failed to load; shell commands will need approval'))
      .finally(() => {
        this.shellLoaded = true;
      });
    return this.shell;
  }

  /** Whether the config already says a tool takes shell commands (an override, or a server whose profile has one), before any server lists its tools. */
  private shellToolsExpected(): boolean {
    const overrides = Object.values(this.loaded.file.tools).some((override) => override.kind === 'command' || override.command !== undefined);
    return overrides || Object.keys(serversToRun(this.loaded)).some((server) => profileTakesShellCommands(this.identityOf(server).profile));
  }

  definitionReport(route: ToolRoute): DefinitionReport {
    return this.definitions.forTool(listedTool(route), () => this.registry.toolRoutesList().map(listedTool), this.loaded.file.policy.toolDescriptions);
  }

  templateReport(uri: string): DefinitionReport | null {
    const entry = this.registry.resolveTemplate(uri);
    return entry ? this.templateEntryReport(entry) : null;
  }

  private templateEntryReport(entry: { supervisor: Supervisor; template: ResourceTemplate }): DefinitionReport {
    return this.definitions.forTemplate({ server: entry.supervisor.name, template: entry.template }, () => this.registry.toolRoutesList().map(listedTool), this.loaded.file.policy.toolDescriptions);
  }

  private promptReport(route: PromptRoute): DefinitionReport {
    return this.definitions.forPrompt({ exposed: route.exposed, server: route.supervisor.name, prompt: route.prompt }, () => this.registry.toolRoutesList().map(listedTool), this.loaded.file.policy.toolDescriptions);
  }

  async pinDefinition(report: DefinitionReport): Promise<void> {
    await this.definitions.pin(report, serversToRun(this.loaded)[report.server] ?? {});
  }

  private identityOf(server: string): ServerIdentity {
    let identity = this.identities.get(server);
    if (!identity) {
      const config = serversToRun(this.loaded)[server] ?? {};
      identity = identifyServer(config as { command?: string; args?: string[]; cwd?: string; url?: string }, process.cwd());
      this.identities.set(server, identity);
    }
    return identity;
  }

  async rememberAlways(rules: string[]): Promise<void> {
    const written = await this.rulesFile.add('allow', rules);
    // Apply now, from the text we wrote: the call must not be forwarded, nor the next prompt
    // re-checked, before the rule is in force. The watcher then sees the same text and skips it.
    this.reload(written.text, 'remembered rule');
    this.logger.info({ rules: written.added }, 'rules added to permissions.allow');
  }

  // -------------------------------------------------------------------------------------------
  // Config

  /** Applies new config text if it is valid; an invalid file is refused and the last good config stays. */
  reload(text: string, why: string): boolean {
    if (text === this.loaded.text) return false;
    let next: LoadedConfig;
    try {
      next = parseConfigText(text, this.loaded.path, ruleIssues, this.loaded.scope);
    } catch (error) {
      this.logger.error({ err: errorMessage(error) }, `config reload refused (${why}); keeping the last good config`);
      return false;
    }
    this.loaded = next;
    this.identities.clear();
    this.toolClasses.clear();
    this.applyPolicy();
    this.session.latch.setOrdering(this.loaded.file.approval.ordering);
    if (this.loaded.file.logLevel) this.logger.level = this.loaded.file.logLevel;
    if (this.started) {
      void this.registry.apply(serversToRun(this.loaded)).then((changes) => this.logger.info(changes, `config reloaded (${why})`));
    }
    this.scheduleListChanged();
    return true;
  }

  currentText(): string {
    return this.loaded.text;
  }

  private applyPolicy(): void {
    const configRoots = workspaceRoots(this.loaded).map((root) => canonicalRoot(root, this.pathEnv));
    this.matchEnv = { home: this.pathEnv.home, roots: [...new Set([...configRoots, ...this.clientRoots])], platform: this.pathEnv.platform };
    this.policyState = policyFor(this.loaded.file.permissions, this.loaded.path, auditFile(this.loaded), this.matchEnv);
    this.session?.grants.setEnv(this.matchEnv);
  }

  // -------------------------------------------------------------------------------------------
  // Upstream

  private registerHandlers(): void {
    const server = this.server;
    server.oninitialized = () => {
      this.start();
      // Calls wait for the first roots answer: a read inside a client root must not ask meanwhile.
      this.order.holdCallsUntil(this.refreshClientRoots());
    };

    // tools/call bypasses the SDK's Protocol layer (upstream-calls.ts): its per-call zod parses are the hot path's largest cost.
    this.toolCallsBypassingProtocol = new UpstreamCalls(server, (calls) => this.callTools(calls));

    server.setRequestHandler(ListToolsRequestSchema, async () => {
      this.start();
      if (!this.firstListDone) {
        // Several clients ignore list_changed: the first list must already be complete.
        await this.registry.whenSettled(this.loaded.file.timeouts.firstListSeconds * 1000);
        this.firstListDone = true;
      }
      const tools = this.exposedTools();
      this.lastSent.tools = JSON.stringify(tools);
      return { tools };
    });

    server.setRequestHandler(ListResourcesRequestSchema, async () => {
      this.start();
      await this.registry.whenSettled(this.loaded.file.timeouts.firstListSeconds * 1000);
      const resources = this.registry.resources().map((entry) => entry.resource);
      this.lastSent.resources = JSON.stringify(resources);
      return { resources };
    });

    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
      this.start();
      await this.registry.whenSettled(this.loaded.file.timeouts.firstListSeconds * 1000);
      const hide = this.loaded.file.policy.toolDescriptions === 'hide';
      const shown = hide ? this.registry.templates().filter((entry) => this.templateEntryReport(entry).findings.length === 0) : this.registry.templates();
      return { resourceTemplates: shown.map((entry) => entry.template) };
    });

    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => readResource(request.params.uri, extra, this, this.session));

    server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      const supervisor = await this.resourceServer(request.params.uri);
      if (!supervisor) throw new RpcError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`);
      await supervisor.subscribe(request.params.uri, true);
      return {};
    });

    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      const supervisor = await this.resourceServer(request.params.uri);
      if (supervisor) await supervisor.subscribe(request.params.uri, false).catch(() => undefined);
      return {};
    });

    server.setRequestHandler(ListPromptsRequestSchema, async () => {
      this.start();
      await this.registry.whenSettled(this.loaded.file.timeouts.firstListSeconds * 1000);
      const prompts = this.exposedPrompts();
      this.lastSent.prompts = JSON.stringify(prompts);
      return { prompts };
    });

    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      const route = await this.promptRoute(request.params.name);
      const report = this.promptReport(route);
      const refusal = definitionRefusal(report, this.loaded.file.policy.toolDescriptions);
      if (refusal) throw new RpcError(ErrorCode.InvalidRequest, refusal);
      const result = await route.supervisor.getPrompt(route.prompt.name, request.params.arguments, { signal: extra.signal });
      // Pinned as listed the first time it is used, as a tool is on its first allowed call.
      if (report.pin.state === 'new') await this.pinDefinition(report).catch((error: unknown) => this.logger.error({ err: errorMessage(error), prompt: report.exposed }, 'could not pin the prompt definition'));
      return result;
    });

    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      const ref = request.params.ref;
      if (ref.type === 'ref/prompt') {
        const route = await this.promptRoute(ref.name);
        return route.supervisor.complete({ ...request.params, ref: { ...ref, name: route.prompt.name } }, { signal: extra.signal });
      }
      const supervisor = await this.resourceServer(ref.uri);
      if (!supervisor) return { completion: { values: [] } };
      return supervisor.complete(request.params, { signal: extra.signal });
    });

    server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      this.loggingLevel = request.params.level;
      await Promise.all(this.registry.all().map((supervisor) => supervisor.setLoggingLevel(request.params.level)));
      return {};
    });

    server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
      await this.refreshClientRoots();
      await Promise.all(this.registry.all().map((supervisor) => supervisor.sendRootsListChanged()));
    });
  }

  /** The prompt an exposed name routes to, waiting (bounded) for servers still starting; its server is up. */
  private async promptRoute(name: string): Promise<PromptRoute> {
    const waitMs = this.loaded.file.timeouts.firstListSeconds * 1000;
    const route = await this.registry.whenListed(() => this.registry.resolvePrompt(name), waitMs);
    if (!route) throw new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    await route.supervisor.whenUp(waitMs);
    return route;
  }

  /** The server a resource URI routes to, waiting (bounded) for servers still starting; it is up. */
  private async resourceServer(uri: string): Promise<Supervisor | undefined> {
    const waitMs = this.loaded.file.timeouts.firstListSeconds * 1000;
    const supervisor = await this.registry.whenListed(() => this.registry.resolveResource(uri), waitMs);
    if (supervisor) await supervisor.whenUp(waitMs);
    return supervisor;
  }

  /** Starts the downstream servers once: capabilities mirrored from the client that just initialized. */
  private start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    const capabilities = mirrorCapabilities(this.server.getClientCapabilities());
    this.registry.setCapabilities(capabilities);
    const applied = this.registry.apply(serversToRun(this.loaded));
    // Every server has claimed its early process by now (synchronously, as it started): close the rest.
    void this.prespawned?.closeAll();
    void applied.then(() => {
      if (this.loggingLevel) for (const supervisor of this.registry.all()) void supervisor.setLoggingLevel(this.loggingLevel);
    });
  }

  /** The client's MCP roots join the workspace (docs/config.md). */
  private async refreshClientRoots(): Promise<void> {
    if (!this.server.getClientCapabilities()?.roots) return;
    try {
      const { roots } = await this.server.listRoots(undefined, { timeout: 10_000 });
      this.clientRoots = roots
        .filter((root) => root.uri.startsWith('file:'))
        .map((root) => {
          try {
            return canonicalRoot(fileURLToPath(root.uri), this.pathEnv);
          } catch {
            return null;
          }
        })
        .filter((root): root is string => root !== null);
      this.applyPolicy();
    } catch (error) {
      // A client that left before answering is no fault.
      if (this.closed) this.logger.debug({ err: errorMessage(error) }, 'the client left before sending its roots');
      else this.logger.warn({ err: errorMessage(error) }, 'could not read the client roots');
    }
  }

  private exposedTools() {
    const routes = this.registry.toolRoutesList();
    // policy.toolDescriptions "hide": a flagged tool is not listed (and its calls are denied).
    const shown = this.loaded.file.policy.toolDescriptions === 'hide' ? routes.filter((route) => this.definitionReport(route).findings.length === 0) : routes;
    return shown.map((route) => ({ ...route.tool, name: route.exposed }));
  }

  private exposedPrompts() {
    const routes = this.registry.promptRoutesList();
    const shown = this.loaded.file.policy.toolDescriptions === 'hide' ? routes.filter((route) => this.promptReport(route).findings.length === 0) : routes;
    return shown.map((route) => ({ ...route.prompt, name: route.exposed }));
  }

  /** Coalesces changes and tells the client only about lists that really changed. */
  private scheduleListChanged(): void {
    this.toolClasses.clear();
    this.definitions.listChanged();
    if (this.listChangeTimer) return;
    this.listChangeTimer = setTimeout(() => {
      this.listChangeTimer = null;
      if (this.closed || !this.server.transport) return;
      // Whole entries are compared: a restarted server whose schema or description changed is a change.
      const tools = JSON.stringify(this.exposedTools());
      const resources = JSON.stringify(this.registry.resources().map((entry) => entry.resource));
      const prompts = JSON.stringify(this.exposedPrompts());
      if (this.firstListDone && tools !== this.lastSent.tools) void this.server.sendToolListChanged().catch(() => undefined);
      if (this.lastSent.resources !== '' && resources !== this.lastSent.resources) void this.server.sendResourceListChanged().catch(() => undefined);
      if (this.lastSent.prompts !== '' && prompts !== this.lastSent.prompts) void this.server.sendPromptListChanged().catch(() => undefined);
    }, 50);
    this.listChangeTimer.unref();
  }

  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
    this.server.onerror = (error) => this.logger.warn({ err: errorMessage(error) }, 'client transport error');
    this.toolCallsBypassingProtocol.attach(transport);
    // MCP 2026-07-28 clients (era-2026.ts): attached last, it sees each message first and each answer last.
    this.session.modernWire = new ModernWire(transport, { serverInfo: { name: 'mcp-latch', version: VERSION }, capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  }

  private callTools(calls: IncomingCall[]): Array<Promise<CallToolResult>> {
    this.start();
    return this.order.callTools(calls);
  }

  /** Closes every server (process trees included) and the upstream connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.listChangeTimer) clearTimeout(this.listChangeTimer);
    await Promise.all([this.registry.closeAll(), this.prespawned?.closeAll()]);
    await this.session.close();
    await this.audit.flush().catch(() => undefined);
    await this.server.close().catch(() => undefined);
  }
}

function listedTool(route: ToolRoute): ListedTool {
  return { exposed: route.exposed, server: route.supervisor.name, tool: route.tool };
}

/** A tool whose calls carry a shell command: deciding them needs the shell grammar. */
function takesShellCommands(toolClass: ToolClass): boolean {
  return toolClass.kind === 'command' || toolClass.command !== null || toolClass.selectCommand !== undefined || Boolean(toolClass.stdin);
}

function profileTakesShellCommands(profile: string | null): boolean {
  const tools = profile === null ? [] : Object.values(profileByName(profile)?.tools ?? {});
  return tools.some((tool) => tool.kind === 'command' || tool.command !== undefined || tool.selectCommand !== undefined);
}

const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};
const INSTRUCTIONS = 'mcp-latch checks every tool call against the user\'s rules. A result starting with "Denied by mcp-latch:" means the call was not run; do not retry it in another form to get around the decision.';

/** What downstream servers may ask of the client: exactly what the client declared. */
export function mirrorCapabilities(client: ClientCapabilities | undefined): ClientCapabilities {
  const out: ClientCapabilities = {};
  if (client?.elicitation) out.elicitation = client.elicitation;
  if (client?.sampling) out.sampling = client.sampling;
  if (client?.roots) out.roots = { listChanged: true };
  return out;
}

