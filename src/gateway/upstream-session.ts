import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { LineSending } from '../downstream/lines.js';
import type { Lingers } from '../downstream/direct-calls.js';
import type { Audit } from '../store/audit.js';
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
  type ClientCapabilities,
  type CompleteResult,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, RpcError } from '../errors.js';
import { definitionRefusal } from '../latch/definition-prompt.js';
import { escapeLines, escapeText } from '../latch/escape.js';
import { quoted, uriSpellingProblem } from '../subjects/url-spelling.js';
import { SchemaValidators } from '../schema-validators.js';
import { VERSION } from '../version.js';
import { CallOrder } from './call-order.js';
import { completionShown, linksShown } from './listed-text.js';
import { withheldEmbedded } from './embedded-resources.js';
import type { GatewayCore } from './core.js';
import type { CallContext, Extra } from './ports.js';
import { checkRequestArguments, completionValuesShown } from './request-arguments.js';
import { decideResource, readResource } from './resource-read.js';
import { ClientSession, type SessionOptions } from './session.js';
import { refusedCallRecord, UpstreamCalls, type CallHandler, type IncomingCall } from './upstream-calls.js';
import { StdioUpstream } from './stdio-upstream.js';
import type { UnavailableServer } from '../downstream/registry.js';
import type { ServerState } from '../downstream/supervisor.js';
import { canShowForm, ModernWire } from './era-2026.js';
import type { ListenFilter } from './listen.js';
import { afterList } from './list-answer.js';

export interface UpstreamSessionOptions {
  core: GatewayCore;
  /** What the call pipeline reads: the core itself, or a user's view of it (team/user-context.ts). */
  context: CallContext;
  /** What the downstream servers may ask of a client, from this one's capabilities (or, servers shared by many clients, what the relay can route: relay.ts); null: nothing. */
  mirror: ((client: ClientCapabilities | undefined) => ClientCapabilities) | null;
  /** Whether the client's MCP roots join the workspace (a gateway with one client only). */
  roots: boolean;
  session?: SessionOptions;
}

/**
 * One client session in front of the gateway: its upstream MCP `Server`, its latch and grants
 * (ClientSession), the order of its calls, and what it was last told of the lists (list_changed
 * is sent per session, for what changed since its own last list).
 */
export class UpstreamSession {
  readonly server: Server;
  readonly session: ClientSession;
  private readonly core: GatewayCore;
  private readonly context: CallContext;
  private readonly order: CallOrder;
  private readonly toolCallsBypassingProtocol: UpstreamCalls;
  /** The wait of this session's first lists for servers still starting; made by the first list. */
  private firstLists: Promise<void> | null = null;
  /** The states in which each unavailable server was reported to this client; cleared once it is ready. */
  private readonly reported = new Map<string, Set<ServerState>>();
  private listChangeTimer: NodeJS.Timeout | null = null;
  // The answers themselves: each one's digest is made when first read, after the answer is written
  // (list-answer.ts), so the first list does not wait for node:crypto (docs/performance.md, "Round 19: start").
  private lastSent: Record<'tools' | 'resources' | 'templates' | 'prompts', { readonly digest: string } | null> = { tools: null, resources: null, templates: null, prompts: null };
  /**
   * The core's listsVersion at which each list was answered, or found unchanged since: a change
   * that came before the answer (every server's readiness, at a start) is in it already, and
   * comparing again built the whole list and hashed it once more just after the first answer,
   * when a client's first call comes (docs/performance.md, "Round 19: start").
   */
  private readonly sentVersion = { tools: -1, resources: -1, templates: -1, prompts: -1 };
  private toolsListed: () => void = () => undefined;
  /** Settles when this session's first tools/list is answered (serve then writes its code cache). */
  readonly firstToolsList = new Promise<void>((resolve) => (this.toolsListed = resolve));
  private serversStarted: () => void = () => undefined;
  /** Settles when this session has started the servers (the client's `initialized`, or its first request). */
  readonly started = new Promise<void>((resolve) => (this.serversStarted = resolve));
  private startedHere = false;
  private closed = false;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly options: UpstreamSessionOptions) {
    this.core = options.core;
    this.context = options.context;
    // One validator per prompt schema text (approval prompts and relayed elicitations), not one per prompt.
    this.server = new Server({ name: 'mcp-latch', version: VERSION }, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator: new SchemaValidators() });
    this.session = new ClientSession(this.server, () => this.core.config(), this.core.logger, this.core.matchEnvNow(), this.core.configPath, options.session);
    this.order = new CallOrder(this.context, this.session);
    this.toolCallsBypassingProtocol = new UpstreamCalls(this.server, (calls) => this.callTools(calls), (reason) => this.recordRefusal(reason));
    this.unsubscribe.push(
      this.core.onListsChanged(() => this.scheduleListChanged()),
      this.core.onPolicyChange(() => {
        this.session.grants.setEnv(this.core.matchEnvNow());
        this.session.latch.setOrdering(this.core.config().approval.ordering);
      }),
    );
    this.registerHandlers();
  }

  /** Calls wait for `work` before they are decided (a user's rules loading). Must not reject. */
  holdCallsUntil(work: Promise<unknown>): void {
    this.order.holdCallsUntil(work);
  }

  private registerHandlers(): void {
    const server = this.server;
    const core = this.core;
    const settled = () => this.whenFirstListsReady();
    server.oninitialized = () => {
      this.start();
      // Calls wait for the first roots answer: a read inside a client root must not ask meanwhile.
      if (this.options.roots) this.order.holdCallsUntil(this.refreshClientRoots());
    };

    server.setRequestHandler(ListToolsRequestSchema, async () => {
      this.start();
      await settled();
      const version = core.listsVersion;
      const answer = core.toolsList();
      const tools = answer.entries;
      this.lastSent.tools = answer;
      afterList(() => answer.digest);
      this.sentVersion.tools = version;
      this.toolsListed();
      const unavailable = this.reportUnavailable();
      return unavailable.length > 0 ? { tools, _meta: { [UNAVAILABLE_META]: unavailable } } : { tools };
    });

    server.setRequestHandler(ListResourcesRequestSchema, async () => {
      this.start();
      await settled();
      const version = core.listsVersion;
      const answer = core.resourcesList();
      const resources = answer.entries;
      this.lastSent.resources = answer;
      afterList(() => answer.digest);
      this.sentVersion.resources = version;
      return { resources };
    });

    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
      this.start();
      await settled();
      const version = core.listsVersion;
      const answer = core.templatesList();
      const resourceTemplates = answer.entries;
      this.lastSent.templates = answer;
      afterList(() => answer.digest);
      this.sentVersion.templates = version;
      return { resourceTemplates };
    });

    // A read or subscribe can come before any list: it starts the servers, whose listings it waits for (registry.ts whenAllListed).
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
      this.start();
      return readResource(request.params.uri, extra, this.context, this.session);
    });

    server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      await this.subscribeTo(request.params.uri, extra);
      return {};
    });

    server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
      await this.unsubscribeFrom(request.params.uri, extra);
      return {};
    });

    server.setRequestHandler(ListPromptsRequestSchema, async () => {
      this.start();
      await settled();
      const version = core.listsVersion;
      const answer = core.promptsList();
      const prompts = answer.entries;
      this.lastSent.prompts = answer;
      afterList(() => answer.digest);
      this.sentVersion.prompts = version;
      return { prompts };
    });

    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      const route = await core.promptRoute(request.params.name);
      const report = core.promptReport(route);
      const refusal = definitionRefusal(report, core.config().policy);
      if (refusal) throw new RpcError(ErrorCode.InvalidRequest, refusal);
      const args = request.params.arguments ?? {};
      const promptClass = core.promptClass(route, args);
      if (promptClass) await core.commandsReady(promptClass);
      await checkRequestArguments(route.supervisor.name, 'prompts/get', args, { prompt: route.prompt.name, arguments: args }, core.argumentClass(route.supervisor.name), this.context, this.session, extra, promptClass && { name: route.prompt.name, toolClass: promptClass });
      const result = await this.onBehalf(route.supervisor.name, extra, (lingers) => route.supervisor.getPrompt(route.prompt.name, request.params.arguments, { signal: extra.signal }, lingers));
      // Pinned as listed the first time it is used, as a tool is on its first allowed call.
      if (report.pin.state === 'new') await core.pinDefinition(report).catch((error: unknown) => core.logger.error({ err: errorMessage(error), prompt: report.exposed }, 'could not pin the prompt definition'));
      // A message's resource_link as a result's is (listed-text.ts linksShown); the description, shown above the prompt, escaped as a listing's (round 26 review P4).
      // An embedded resource a deny rule refuses to read is withheld, as in a tool's result (embedded-resources.ts; round 32 review P32-5).
      const content = withheldEmbedded(linksShown(result.messages.map((message) => message.content)), route.supervisor.name, this.context);
      const described = typeof result.description === 'string' && escapeLines(result.description) !== result.description ? { ...result, description: escapeLines(result.description) } : result;
      return content.every((block, i) => block === result.messages[i]!.content) ? described : { ...described, messages: result.messages.map((message, i) => ({ ...message, content: content[i]! })) };
    });

    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      const ref = request.params.ref;
      // What the client typed so far, and the arguments already filled in, reach the server's completion code.
      const check = (name: string) => checkRequestArguments(name, 'completion/complete', { value: request.params.argument.value, context: request.params.context?.arguments ?? {} }, request.params, core.argumentClass(name), this.context, this.session, extra);
      // A value the client lists and sends back is dropped when it cannot be shown as it is (listed-text.ts completionShown),
      // and when the rules would refuse it as the argument (request-arguments.ts completionValuesShown; round 33 review P33-1).
      const shown = (name: string, asked: boolean, result: CompleteResult) => completionValuesShown(completionShown(result), name, core.argumentClass(name), this.context, asked);
      if (ref.type === 'ref/prompt') {
        const route = await core.promptRoute(ref.name);
        const asked = await check(route.supervisor.name);
        return shown(route.supervisor.name, asked, await this.onBehalf(route.supervisor.name, extra, (lingers) => route.supervisor.complete({ ...request.params, ref: { ...ref, name: route.prompt.name } }, { signal: extra.signal }, lingers)));
      }
      refuseMisspelledUri(ref.uri, 'complete');
      const supervisor = await core.resourceServer(ref.uri);
      if (!supervisor) return { completion: { values: [] } };
      const asked = await check(supervisor.name);
      return shown(supervisor.name, asked, await this.onBehalf(supervisor.name, extra, (lingers) => supervisor.complete(request.params, { signal: extra.signal }, lingers)));
    });

    server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      await core.setLoggingLevel(this.session.id, request.params.level);
      return {};
    });

    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      // A server's roots/list is no longer answered from the client's last answer (relay.ts ROOTS_REUSE_MS).
      core.clientRootsGeneration += 1;
      return this.options.roots ? this.rootsChanged() : undefined;
    });
  }

  /**
   * Runs `work`, a request this session's client sent on to `server`, with the session recorded as
   * running there, as a tools/call or resources/read is: what the server asks or logs meanwhile goes
   * to this session, or to none when another's calls run there too (relay.ts). Outside it, a
   * prompt's sampling request went to whichever session had a call running on that server
   * (docs/threat-model.md, round 12 review F9).
   */
  /**
   * Subscribes this session to `uri`, for the client's request `on` (a `resources/subscribe`, or a
   * `subscriptions/listen` naming it: era-2026.ts ModernWire). Subscriptions are the session's: the
   * server is sent the first subscribe and the last unsubscribe (subscriptions.ts).
   */
  private async subscribeTo(uri: string, on: Pick<Extra, 'requestId'>): Promise<void> {
    refuseMisspelledUri(uri, 'subscribe to');
    this.start();
    const supervisor = await this.core.resourceServer(uri);
    if (!supervisor) throw new RpcError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
    // Only where a read would be allowed, and audited as one is (resource-read.ts decideResource; round 32 review P32-1).
    decideResource('resources/subscribe', supervisor.name, uri, this.context, this.session);
    await this.core.subscriptions.subscribe(supervisor, uri, this.session.id, this.server, () => this.onBehalf(supervisor.name, on, () => supervisor.subscribe(uri, true)));
  }

  private async unsubscribeFrom(uri: string, on: Pick<Extra, 'requestId'>): Promise<void> {
    const supervisor = await this.core.resourceServer(uri);
    if (supervisor) await this.core.subscriptions.unsubscribe(supervisor.name, uri, this.session.id, () => this.onBehalf(supervisor.name, on, () => supervisor.subscribe(uri, false))).catch(() => undefined);
  }

  /**
   * `work`, a request sent to `server` for this client's request, with its origin on the server's
   * running calls until it settles; given up before the server answered (cancelled, timed out), the
   * origin lingers as a tools/call's does (`lingers`, direct-calls.ts clientRequest; round 28).
   */
  private onBehalf<T>(server: string, extra: Pick<Extra, 'requestId'>, work: (lingers: Lingers) => Promise<T>): Promise<T> {
    const origin = this.session.origin(extra);
    return this.context.running.during(server, origin, () => work(this.context.running.lingering(server, origin)));
  }

  /**
   * Starts the downstream servers (once for the gateway), with what they may ask of the client.
   * Once per session: every read of calls comes here, and resolving `started` again cost each one
   * a call into Node's promise hook and a tick (docs/performance.md, "Round 9: the warm path").
   */
  private start(): void {
    if (this.closed || this.startedHere) return;
    this.startedHere = true;
    // A 2026-07-28 client has no handshake: a 2025 server may ask it forms, held for its retry (input-required.ts), when its first envelope says it shows them;
    // URL-mode questions too when it declares them (each call's own envelope is checked again: held-calls.ts; round 20).
    // Roots too when it declares them: a 2025 server's roots/list during its call is held the same (round 21); one outside its calls is refused, naming why (relay.ts).
    const envelope = this.session.modernWire?.lastEnvelope;
    const url = (envelope?.capabilities.elicitation as Record<string, unknown> | undefined)?.url !== undefined;
    const modern: ClientCapabilities = { ...(envelope && canShowForm(envelope.capabilities) ? { elicitation: { form: {}, ...(url ? { url: {} } : {}) } } : {}), ...(envelope?.capabilities.roots ? { roots: {} } : {}) };
    const client = this.server.getClientCapabilities() ?? (Object.keys(modern).length > 0 ? modern : undefined);
    this.core.start(this.options.mirror ? this.options.mirror(client) : {});
    this.serversStarted();
  }

  /**
   * The first lists wait for servers still starting, once per session: `timeouts.firstListSeconds`,
   * then what is ready goes out and late servers are announced with list_changed. A client known to
   * use only its first list waits `startWaitSeconds`, as long as a call would (docs/config.md#timeouts).
   */
  private whenFirstListsReady(): Promise<void> {
    if (!this.firstLists) {
      const timeouts = this.core.config().timeouts;
      const seconds = this.session.keepsFirstList() ? Math.max(timeouts.firstListSeconds, timeouts.startWaitSeconds) : timeouts.firstListSeconds;
      // So does the shell grammar, when it is loading: a client's first command, often sent as soon
      // as the list comes, then finds it parsed once and the decision path warm (docs/performance.md).
      const grammar = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, seconds * 1000);
        timer.unref();
        void this.core.shellReady().then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      // And the warm-up once the grammar is in (core.ts, warmDecision): its call through the pipeline is then over too.
      this.firstLists = Promise.all([this.core.registry.whenSettled(seconds * 1000), grammar]).then(() => this.core.warmedUp());
    }
    return this.firstLists;
  }

  /**
   * The servers that cannot take calls now. Each is also told to the client once per state (still
   * starting, failed) as a log message, which clients show in their MCP log; once ready, it may be again.
   */
  private reportUnavailable(): UnavailableServer[] {
    const unavailable = this.core.registry.unavailable();
    const names = new Set(unavailable.map((entry) => entry.server));
    for (const server of this.reported.keys()) if (!names.has(server)) this.reported.delete(server);
    for (const entry of unavailable) {
      const states = this.reported.get(entry.server) ?? new Set<ServerState>();
      if (states.has(entry.state)) continue;
      states.add(entry.state);
      this.reported.set(entry.server, states);
      const data = entry.state === 'starting' ? `${entry.reason}; its tools are announced with notifications/tools/list_changed once it is ready` : `${entry.reason}; its tools cannot be called meanwhile`;
      void this.server.sendLoggingMessage({ level: entry.state === 'starting' ? 'info' : 'warning', logger: 'mcp-latch', data }).catch(() => undefined);
    }
    return unavailable;
  }

  /**
   * The client's roots changed: one roots/list at a time, and one more after it when notifications
   * came meanwhile, so the last change is always read (round 13 review R14: 20,000 notifications
   * were 20,000 requests, and a call after them waited 8.6 s). The servers are told after each read.
   */
  private rootsChanged(): Promise<void> {
    if (this.rootsReading) {
      this.rootsAgain = true;
      return this.rootsReading;
    }
    const read = async (): Promise<void> => {
      do {
        this.rootsAgain = false;
        await this.refreshClientRoots();
        await Promise.all(this.core.registry.all().map((supervisor) => supervisor.sendRootsListChanged()));
      } while (this.rootsAgain && !this.closed);
    };
    this.rootsReading = read().finally(() => (this.rootsReading = null));
    return this.rootsReading;
  }
  private rootsReading: Promise<void> | null = null;
  private rootsAgain = false;

  /** The client's MCP roots join the workspace (docs/config.md). */
  private async refreshClientRoots(): Promise<void> {
    if (!this.server.getClientCapabilities()?.roots) return;
    try {
      const { roots } = await this.server.listRoots(undefined, { timeout: 10_000 });
      this.core.setClientRoots(roots.filter((root) => root.uri.startsWith('file:')).map((root) => root.uri));
    } catch (error) {
      // A client that left before answering is no fault.
      if (this.closed) this.core.logger.debug({ err: errorMessage(error) }, 'the client left before sending its roots');
      else this.core.logger.warn({ err: errorMessage(error) }, 'could not read the client roots');
    }
  }

  /**
   * A `subscriptions/listen` opted in to list changes (team/http.ts serveListen, era-2026.ts
   * ModernWire over stdio): a list the session was never sent is followed from now, so a change of
   * it is told. The revision's listen delivers `tools/list_changed` "when tools change"
   * (basic/patterns/subscriptions), not only for a list the client fetched; until round 23 a list
   * never sent was no news (tellListsChanged) and such a listen was told nothing. The list is taken
   * as it is once the first lists are in (the servers' start: what a list the client fetches then
   * would hold), unless the client has been sent one meanwhile.
   */
  listening(filter: ListenFilter): void {
    const kinds: Array<'tools' | 'resources' | 'templates' | 'prompts'> = [
      ...(filter.toolsListChanged ? (['tools'] as const) : []),
      ...(filter.resourcesListChanged ? (['resources', 'templates'] as const) : []),
      ...(filter.promptsListChanged ? (['prompts'] as const) : []),
    ];
    if (kinds.length === 0 || this.closed) return;
    this.start();
    void this.whenFirstListsReady().then(() => {
      if (this.closed) return;
      const version = this.core.listsVersion;
      for (const kind of kinds) {
        if (this.lastSent[kind]) continue;
        this.lastSent[kind] = kind === 'tools' ? this.core.toolsList() : kind === 'resources' ? this.core.resourcesList() : kind === 'templates' ? this.core.templatesList() : this.core.promptsList();
        this.sentVersion[kind] = version;
      }
    });
  }

  /** Coalesces changes and tells the client only about lists that really changed. */
  private scheduleListChanged(): void {
    if (this.listChangeTimer) return;
    this.listChangeTimer = setTimeout(() => {
      this.listChangeTimer = null;
      if (this.closed || !this.server.transport) return;
      // A throw here left the process (an uncaught exception in a timer): one server's list must
      // not end the gateway. The listing bounds what can throw (listing.ts); this is the last guard.
      try {
        this.tellListsChanged();
      } catch (error) {
        this.core.logger.error({ err: errorMessage(error) }, 'could not compare the lists with what the client was sent');
      }
    }, 50);
    this.listChangeTimer.unref();
  }

  private tellListsChanged(): void {
    // Whole entries are compared: a restarted server whose schema or description changed is a change.
    // Only lists the client was sent: while the servers start, before the first lists are answered,
    // every server's listing comes here, and the digests of lists nobody was sent were thrown away
    // (docs/performance.md, "Round 11: the first list").
    const sent = this.lastSent;
    const version = this.core.listsVersion;
    const unchanged = this.sentVersion;
    if (sent.tools && unchanged.tools !== version) {
      if (this.core.toolsList().digest !== sent.tools.digest) void this.server.sendToolListChanged().catch(() => undefined);
      else unchanged.tools = version;
      this.reportUnavailable();
    }
    if (sent.resources && unchanged.resources !== version) {
      if (this.core.resourcesList().digest !== sent.resources.digest) void this.server.sendResourceListChanged().catch(() => undefined);
      else unchanged.resources = version;
    }
    // Templates are told as resources (MCP has one list_changed for both): one accepted is listed from then on.
    if (sent.templates && unchanged.templates !== version) {
      if (this.core.templatesList().digest !== sent.templates.digest) void this.server.sendResourceListChanged().catch(() => undefined);
      else unchanged.templates = version;
    }
    if (sent.prompts && unchanged.prompts !== version) {
      if (this.core.promptsList().digest !== sent.prompts.digest) void this.server.sendPromptListChanged().catch(() => undefined);
      else unchanged.prompts = version;
    }
  }

  /** A tools/call refused before it was decided (upstream-calls.ts refusedCallRecord). */
  recordRefusal(reason: string): void {
    this.core.audit.record(refusedCallRecord(this.session.id, this.session.user, reason));
  }

  async connect(transport: Transport): Promise<void> {
    // A call too wide to parse is refused by the stdio transport itself (stdio-upstream.ts).
    if (transport instanceof StdioUpstream) transport.onrefused = (reason) => this.recordRefusal(reason);
    await this.server.connect(transport);
    this.server.onerror = (error) => this.core.logger.warn({ err: errorMessage(error) }, 'client transport error');
    this.toolCallsBypassingProtocol.attach(transport);
    // MCP 2026-07-28 clients (era-2026.ts): attached last, it sees each message first and each answer last.
    // Over stdio it also serves subscriptions/listen (the team gateway's pipe does, team/stateless.ts).
    const wire = new ModernWire(transport, { serverInfo: { name: 'mcp-latch', version: VERSION }, capabilities: CAPABILITIES, instructions: INSTRUCTIONS }, () => this.server.getClientVersion() !== undefined, transport instanceof StdioUpstream);
    wire.onlisten = (filter) => this.listening(filter);
    // A listen's resources are subscribed to as a resources/subscribe of the client's would be, on behalf of the listen.
    wire.onsubscription = (uri, subscribe, listen) => {
      if (!subscribe) return void this.unsubscribeFrom(uri, { requestId: listen }).catch(() => undefined);
      this.subscribeTo(uri, { requestId: listen }).catch((error: unknown) => this.core.logger.warn({ uri, error: errorMessage(error) }, 'a subscriptions/listen named a resource its server would not subscribe to: its updates will not come'));
    };
    this.session.modernWire = wire;
    flushRecordsBeforeSending(transport, this.core.audit);
  }

  private callTools(calls: IncomingCall[]): ReturnType<CallHandler> {
    this.start();
    return this.order.callTools(calls);
  }

  /** Cancels this client's calls not answered yet (the gateway is stopping on a signal). */
  cancelCalls(reason: string): void {
    this.toolCallsBypassingProtocol.cancelAll(reason);
  }

  /** The session is ending: nothing more is sent or started for it (its servers may still be closing). */
  /** This client's tools/call requests not answered yet. */
  callsInFlight(): number {
    return this.toolCallsBypassingProtocol.inFlight;
  }

  /** Settles when this session's first tools/call is answered. */
  get firstCallAnswered(): Promise<void> {
    return this.toolCallsBypassingProtocol.firstAnswered;
  }

  stop(): void {
    this.closed = true;
    if (this.listChangeTimer) clearTimeout(this.listChangeTimer);
  }

  /** Closes the session's page and its upstream connection; the servers stay (they are the core's). */
  async close(): Promise<void> {
    if (this.unsubscribe.length === 0) return;
    this.stop();
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    void this.core.setLoggingLevel(this.session.id, null);
    this.core.subscriptions.endSession(this.session.id, (server, uri) => this.core.registry.get(server)?.subscribe(uri, false) ?? Promise.resolve());
    await this.session.close();
    await this.server.close().catch(() => undefined);
  }
}

const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};
/** The servers not ready when a tools/list was answered, on its `_meta` (docs/config.md#timeouts). */
const UNAVAILABLE_META = 'mcp-latch/unavailable';
const INSTRUCTIONS = 'mcp-latch checks every tool call against the user\'s rules. A result starting with "Denied by mcp-latch:" means the call was not run, or, where it says the call had been forwarded, that it was not let go on; do not retry it in another form to get around the decision.';

/**
 * Every message to the client goes out after the audit's queued records are written: a denial's
 * result was sent before its record, which a gateway killed right after lost (round 15 review A9;
 * docs/design.md#records). Wrapped last, so it runs first.
 */
function flushRecordsBeforeSending(transport: Transport & Partial<LineSending>, audit: Audit): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    audit.flush();
    return send(message, options);
  };
  const sendLine = transport.sendLine?.bind(transport);
  if (sendLine) {
    transport.sendLine = (line, id) => {
      audit.flush();
      return sendLine(line, id);
    };
  }
}

/**
 * A resource URI a subscribe or a completion names is refused, as a read's is (subjects/inspect.ts
 * inspectResourceRead), when it is not written as the server's URL parser reads it (url-spelling.ts).
 */
function refuseMisspelledUri(uri: string, what: string): void {
  const problem = uriSpellingProblem(uri);
  if (problem !== null) throw new RpcError(ErrorCode.InvalidParams, `mcp-latch refuses to ${what} the resource URI ${escapeText(quoted(uri))}: ${escapeText(problem)}. Write the URI as a URL parser reads it.`);
}
