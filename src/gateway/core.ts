import { realpathSync, statSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfigText, serversToRun, storeSecretFiles, workspaceRoots, type LoadedConfig } from '../config/load.js';
import { messageBytes, startWaitMs, type ConfigFile } from '../config/schema.js';
import { PermitBook } from '../downstream/permit.js';
import type { Prespawned } from '../downstream/prespawn.js';
import { ServerRegistry, type PromptRoute, type ToolRoute } from '../downstream/registry.js';
import type { Supervisor } from '../downstream/supervisor.js';
import type { RelayHooks } from '../downstream/connect.js';
import { ResourceSubscriptions } from './subscriptions.js';
import { errorMessage, RpcError } from '../errors.js';
import { VERSION } from '../version.js';
import type { Logger } from '../log.js';
import type { PolicyState } from '../policy/decide.js';
import { MAX_ROOTS_OF_RUN, type MatchEnv } from '../policy/match.js';
import { addedRuleIssues, configIssues, policyFor, ruleIssues, type PermissionsInput } from '../policy/policy.js';
import { auditFile, createAudit, type Audit } from '../store/audit.js';
import { PinStore } from '../store/pins.js';
import { watchConfig, type ConfigWatcher } from '../config/watch.js';
import { pinsFileFor } from '../config/locate.js';
import { serverStartFiles } from '../config/servers.js';
import { DefinitionReports, type ListedTool } from '../pins/reports.js';
import { ListingNotes, NAMED_IN_LINE, namedAndCounted, type ListingPass } from './listing-notes.js';
import type { DefinitionReport } from '../pins/check.js';
import { definitionDigest, entryDefinition, legacyDigest, type PinKind } from '../pins/definition.js';
import { RulesFile } from '../store/rules-file.js';
import type { InspectContext } from '../subjects/inspect.js';
import { classifyPrompt, classifyTool, mayTakeCommands, type ToolClass } from '../subjects/kind.js';
import { ProcessBook } from './processes.js';
import { identifyServer, identifyServerEntry, type ServerIdentity } from '../subjects/server-identity.js';
import { shellToolsExpected } from '../subjects/shell-tools.js';
import { analyseCommand, initShellParser, isShellParserReady } from '../subjects/shell/index.js';
import { canonicalRoot, defaultPathEnv, type PathEnv } from '../subjects/paths.js';
import { ErrorCode, type ClientCapabilities, type LoggingLevel, type Prompt, type Resource, type ResourceTemplate, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { megabytes } from '../downstream/lines.js';
import { shownEntry } from './listed-text.js';
import { escapeText } from '../latch/escape.js';
import { afterList, listAnswer, type ListAnswer } from './list-answer.js';
import { LogLevels } from './log-levels.js';
import { emptyYoungGeneration, warmUpCallPipeline, warmUpShellDecisions } from './warm-up.js';
import type { CallContext } from './ports.js';
import { RunningCalls } from './running-calls.js';

export interface GatewayCoreOptions {
  config: LoadedConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  pathEnv?: PathEnv;
  /** Server processes `serve` started before the gateway was loaded; claimed when servers start. */
  prespawned?: Prespawned;
  /** How servers' own requests and notifications reach the client sessions (relay.ts). */
  hooks: (core: GatewayCore) => RelayHooks;
  /** Many people's sessions share the gateway (team/http.ts): its audit holds their calls, so no tool reads it. */
  shared?: boolean;
}

/**
 * What every client session of one gateway shares: the config and its rules, the downstream
 * servers (started once), the audit, the tool classes and pins. Over stdio one session uses it
 * (server.ts); over HTTP many do (team/http.ts), each with its own latch and, per user, its own
 * rules (`permissionsFor`).
 */
/**
 * V8 flags for the first shell warm-up (warmDecision): a function it runs first gets its feedback
 * vector after about one run instead of eight times its bytecode, and its baseline (Sparkplug) code
 * at once instead of in a batch (V8 enqueues a function for Sparkplug when its vector is made). Set
 * back to V8 11.3's defaults (Node 20's): a flag at its default is not in V8's flag hash, which code
 * caches are checked against. Under another V8 nothing is set.
 */
const WARM_UP_TIERS = process.versions.v8.startsWith('11.3.')
  ? {
      warming: '--interrupt-budget-factor-for-feedback-allocation=1 --interrupt-budget-for-feedback-allocation=64 --no-baseline-batch-compilation',
      after: '--interrupt-budget-factor-for-feedback-allocation=8 --interrupt-budget-for-feedback-allocation=940 --baseline-batch-compilation',
    }
  : null;

export class GatewayCore implements CallContext {
  readonly permits = new PermitBook();
  readonly running = new RunningCalls();
  readonly processes = new ProcessBook();
  readonly registry: ServerRegistry;
  readonly logger: Logger;
  audit: Audit;

  private loaded: LoadedConfig;
  /** Built at its first use, not at start (policy()): nothing before the first list decides. */
  private policyState: PolicyState | null = null;
  /** Reloads started so far: a reload in turns another one started after is dropped (reloadInTurns). */
  private reloadsStarted = 0;
  private matchEnv!: MatchEnv;
  private readonly pathEnv: PathEnv;
  private clientRoots: string[] = [];
  /**
   * Every root the client or a server was given in this run, in the order first seen: deny and ask
   * rules stay anchored at each after the client's roots change (MatchEnv.ruleRoots; round 31
   * review F31-2). Only grows, to MAX_ROOTS_OF_RUN: past it `rootsBeyond` (round 32 review F32-4).
   */
  private readonly rootsOfRun: string[] = [];
  /** The run named a root past MAX_ROOTS_OF_RUN: deny and ask rules' relative globs hold below any directory (MatchEnv.rootsBeyond). */
  private rootsBeyond = false;
  /** Counts the client's notifications/roots/list_changed: a server's roots/list answered before one is not answered again from that answer (relay.ts ROOTS_REUSE_MS). */
  clientRootsGeneration = 0;
  /** Per server, the last two lists of roots it was given through the relay (noteServerRoots). */
  private readonly serverRoots = new Map<string, string[][]>();
  private readonly identities = new Map<string, ServerIdentity>();
  private readonly toolClasses = new Map<string, { tool: ToolRoute['tool']; toolClass: ToolClass }>();
  private readonly rulesFile: RulesFile;
  private readonly definitions: DefinitionReports;
  private readonly listeners = new Set<() => void>();
  /** What the lists held back, listed as pinned or left out, told once per server and change (listing-notes.ts). */
  private readonly listingNotes = new ListingNotes();
  /**
   * The entries of each server's first listing in this run, by kind and name; kept across its
   * restarts, made anew for a server a reload replaced (another Supervisor). With nothing recorded
   * in the lock file they are its baseline (addedLater): one listed later under another name, or
   * under one of these with another definition (never allowed, so no pin), is held as added
   * (round 19 review, F-predecl).
   */
  private readonly firstEntries = new WeakMap<Supervisor, Record<PinKind, ReadonlyMap<string, object>>>();
  /**
   * Servers whose record could not be written in this run (the lock file unreadable, its folder
   * read-only): not tried again at each list change, which logged a line each time for every server
   * (round 20, now that every server is recorded); tried again once the lock file changes (pinsChanged).
   */
  private recordRefused = new WeakSet<Supervisor>();
  /** Servers whose lock file record has names without digests, told once (addedLater). */
  private readonly undigestedTold = new Set<string>();
  /** Definition digests of listed entries (addedLater), made once per object its server listed. */
  private readonly entryDigests = new WeakMap<object, string>();
  private readonly policyListeners = new Set<() => void>();
  private started = false;
  /** Each session's log level; `loggingLevel` is what the servers were last set to. */
  readonly logLevels = new LogLevels();
  /** Each session's resource subscriptions, one at each server per resource (subscriptions.ts). */
  readonly subscriptions = new ResourceSubscriptions();
  private loggingLevel: LoggingLevel | null = null;
  private closed = false;
  /** Pins of new definitions waiting for their first call's answer, or being written: close() waits for them. */
  private readonly pendingPins = new Set<Promise<void>>();
  /** Watches the lock file once the servers start (pinsChanged); null before. */
  private pinsWatcher: ConfigWatcher | null = null;
  /** The shell grammar loading, started once a tool takes shell commands; null before. */
  private shell: Promise<void> | null = null;
  private shellLoaded = false;
  /** Each server's tools list as last looked at for shell tools (newListsTakeShellCommands). */
  private readonly shellChecked = new WeakMap<Supervisor, readonly Tool[]>();
  private decisionWarmed = false;
  /** The warm-up's call through the pipeline and the scavenge after it, once started (warmDecision); null before. Never rejects. */
  private warming: Promise<void> | null = null;
  /** No warm-up is running (warmAgain does not start one beside another). */
  private warmedOver = false;
  private readonly prespawned: Prespawned | undefined;
  private readonly shared: boolean;
  /** limits.messageMB, read at start: the largest message, and list answer (list-answer.ts). */
  private readonly maxMessageBytes: number;
  /** By list method, what its last answer left out (`listed leftOut`, '' for nothing): warned once per change. */
  private readonly listsCut = new Map<string, string>();

  constructor(options: GatewayCoreOptions) {
    this.loaded = options.config;
    this.logger = options.logger;
    this.prespawned = options.prespawned;
    this.shared = options.shared === true;
    this.pathEnv = options.pathEnv ?? defaultPathEnv();
    this.maxMessageBytes = messageBytes(this.loaded.file);
    this.audit = createAudit(
      auditFile(this.loaded),
      (error) => this.logger.error({ err: errorMessage(error) }, 'could not write the audit file'),
      (message) => this.logger.warn(message),
    );
    this.rulesFile = new RulesFile(this.loaded.path, configIssues, { text: () => this.loaded.text, rules: addedRuleIssues });
    this.definitions = new DefinitionReports(new PinStore(pinsFileFor(this.loaded.path)), this.logger);
    this.applyPolicy();

    this.registry = new ServerRegistry({
      capabilities: {},
      hooks: options.hooks(this),
      logger: this.logger,
      permits: this.permits,
      records: this.audit,
      connectTimeoutMs: this.loaded.file.timeouts.connectSeconds * 1000,
      maxMessageBytes: this.maxMessageBytes,
      version: VERSION,
      onChange: () => {
        this.listsChanged();
        if (this.newListsTakeShellCommands()) void this.loadShell().then(() => this.warmDecision());
      },
      ...(options.env ? { env: options.env } : {}),
      ...(options.prespawned ? { prespawned: options.prespawned } : {}),
      ...(this.shared ? { stderrToLogOnly: true } : {}),
    });
    if (shellToolsExpected(serversToRun(this.loaded), Object.values(this.loaded.file.tools), process.cwd())) void this.loadShell();
    this.definitions.addedLater = (kind, server, name, entry) => this.addedLater(kind, server, name, entry);
  }

  /**
   * Whether `server` added the tool, prompt or template `name` after its first listing while it has
   * pins: a renamed or slipped-in one, whose description the model or the person would read at once
   * (round 18, hostile servers #4, tools; round 19, prompts and templates; docs/pins.md "A tool
   * added later"). Under policy.addedTools "hold" not listed until a person accepts it. `entry` (as
   * listed now) under a known name is taken as added when its definition differs from the one known:
   * a benign placeholder listed first and changed before any use was allowed is the same rug pull as
   * a rename (round 19 review, F-predecl), in a run or between two starts (round 20: the lock file
   * records digests). A name recorded without a digest (a lock file of before round 20) has no
   * definition known, so it is held too (fail closed).
   */
  private addedLater(kind: PinKind, server: string, name: string, entry: object): boolean {
    const supervisor = this.registry.get(server);
    const first = supervisor ? this.firstEntries.get(supervisor) : undefined;
    if (first === undefined || !this.definitions.serverHasPins(server)) return false;
    const known = this.knownAs(kind, server, name, first[kind]);
    if (known === undefined) return true;
    if (known === null) {
      this.tellUndigested(server);
      return true;
    }
    // The very object first listed (a server that did not list again): nothing to digest.
    if (known === entry) return false;
    const digest = this.entryDigest(kind, entry);
    if (typeof known !== 'string') return digest !== this.entryDigest(kind, known);
    // Recorded before round 24, without icons: the entry listed now without its icons is what was recorded (pins/definition.ts legacyDigest).
    return digest !== known && (this.definitions.recordedWithIcons(server) || this.entryLegacyDigest(kind, entry) !== known);
  }

  /**
   * What `server`'s `name` of `kind` is known to have been listed as: the digest the lock file
   * records for it (null: recorded without one), or with nothing recorded for the server, the entry
   * it first listed in this run. Undefined: not a name it is known to have listed.
   */
  private knownAs(kind: PinKind, server: string, name: string, first: ReadonlyMap<string, object>): string | object | null | undefined {
    const recorded = this.definitions.recordedAs(kind, server, name);
    return recorded === false ? first.get(name) : recorded;
  }

  private tellUndigested(server: string): void {
    if (this.undigestedTold.has(server)) return;
    this.undigestedTold.add(server);
    this.logger.warn({ server, lockFile: this.definitions.path }, `${server}: the lock file records the names this server was listed under but not their definitions (written before round 20), so whether one it lists with no pin changed since cannot be told: each is held as added until accepted (mcp-latch tools --changed; docs/pins.md, "A tool added later")`);
  }

  /** `entry`'s digest as a lock file of before round 24 records it: without its icons (pins/definition.ts legacyDigest). */
  private entryLegacyDigest(kind: PinKind, entry: object): string {
    return (entry as { icons?: unknown }).icons === undefined ? this.entryDigest(kind, entry) : legacyDigest(entryDefinition(kind, entry), this.entryDigest(kind, entry));
  }

  private entryDigest(kind: PinKind, entry: object): string {
    let digest = this.entryDigests.get(entry);
    if (digest === undefined) {
      digest = definitionDigest(entryDefinition(kind, entry));
      this.entryDigests.set(entry, digest);
    }
    return digest;
  }

  /**
   * Records in the lock file, for each listed server, the names it is not taken to have added and
   * the digest each was known with (its baseline and those pinned since), so its next start knows
   * them (store/pins.ts recordListed). Every server, pins or not (round 20): one whose first pin
   * comes in a later run than a rename is checked against what it listed before, not against that
   * run's first listing. Written only when they changed; a failure is logged, and the next start
   * falls back to its first listing (or to the record as it was).
   */
  private recordListings(): void {
    const hasPin = this.definitions.pinLookup();
    for (const supervisor of this.registry.all()) {
      const first = this.firstEntries.get(supervisor);
      if (supervisor.state !== 'ready' || first === undefined || this.recordRefused.has(supervisor)) continue;
      const server = supervisor.name;
      // A server without pins is recorded once a list was answered, not before: at a config's
      // first start its digests (node:crypto) and the lock file's write were ~30 ms of the gateway's
      // CPU before the ten-server list (docs/performance.md, "End of round 20"). A server with pins
      // is recorded as before.
      if (!this.listedOnce && !this.definitions.serverHasPins(server)) continue;
      const { tools, prompts, templates } = supervisor.listing;
      // The common case, at every list change: recorded already, each pinned name with a digest (lookups only, nothing built).
      const current = (kind: PinKind, listed: ReadonlyArray<{ name: string }>) => {
        const digests = this.definitions.recordedDigests(kind, server);
        const names = this.definitions.recordedNames(kind, server);
        return digests !== undefined && names !== undefined && listed.every((entry) => (names.has(entry.name) && digests.has(entry.name)) || !hasPin(kind, server, entry.name));
      };
      // Recorded before round 24 (digests without icons), or pins of then: rewritten once (store/pins.ts recordListed).
      const ofNow = this.definitions.recordedWithIcons(server) && !this.definitions.hasLegacyPins(server);
      if (ofNow && current('tool', tools) && current('prompt', prompts) && current('template', templates)) continue;
      const lists = { tool: tools, prompt: prompts, template: templates } as Record<PinKind, ReadonlyArray<{ name: string }>>;
      const byName = new Map<PinKind, Map<string, object>>();
      const listedNow = (kind: PinKind, name: string): object | undefined => {
        let names = byName.get(kind);
        if (names === undefined) byName.set(kind, (names = new Map(lists[kind].map((entry) => [entry.name, entry]))));
        return names.get(name);
      };
      const withIcons = this.definitions.recordedWithIcons(server);
      const kept = (kind: PinKind, listed: ReadonlyArray<{ name: string }>) => {
        const names = new Set<string>();
        const digests = new Map<string, string>();
        const recordedNames = this.definitions.recordedNames(kind, server);
        const recordedDigests = this.definitions.recordedDigests(kind, server);
        if (recordedNames === undefined && recordedDigests === undefined) {
          for (const [name, entry] of first[kind]) {
            names.add(name);
            digests.set(name, this.entryDigest(kind, entry));
          }
        } else {
          // A name recorded without a digest stays without one (held): this run's listing of it is not known to be what was listed then.
          for (const name of recordedNames ?? []) names.add(name);
          for (const [name, digest] of recordedDigests ?? []) {
            names.add(name);
            // A digest of before round 24 that stands for the entry listed now but for its icons becomes that entry's (its icons taken as they are now).
            const entry = withIcons ? undefined : listedNow(kind, name);
            digests.set(name, entry !== undefined && this.entryLegacyDigest(kind, entry) === digest ? this.entryDigest(kind, entry) : digest);
          }
        }
        for (const entry of listed) {
          const { name } = entry;
          const pinned = hasPin(kind, server, name) ? this.definitions.pinDigest(kind, server, name) : undefined;
          if (pinned === undefined) continue;
          names.add(name);
          // A pin of before round 24 of this entry but for its icons is rewritten as it in the same write (store/pins.ts).
          if (!digests.has(name)) digests.set(name, pinned !== this.entryDigest(kind, entry) && pinned === this.entryLegacyDigest(kind, entry) ? this.entryDigest(kind, entry) : pinned);
        }
        return { names: [...names], digests };
      };
      const each = { tool: kept('tool', tools), prompt: kept('prompt', prompts), template: kept('template', templates) };
      const recorded: Promise<void> = this.definitions
        .recordListed(server, serversToRun(this.loaded)[server] ?? {}, { tool: each.tool.names, prompt: each.prompt.names, template: each.template.names }, { tool: each.tool.digests, prompt: each.prompt.digests, template: each.template.digests }, (kind, name) => {
          const entry = listedNow(kind, name);
          return entry === undefined ? undefined : { digest: this.entryDigest(kind, entry), legacy: this.entryLegacyDigest(kind, entry), definition: entryDefinition(kind, entry) };
        })
        .catch((error: unknown) => {
          // Two listings' records may be in flight when the first fails (a list change answered
          // meanwhile): the failure is logged once (test/gateway/listing-log.test.ts).
          if (this.recordRefused.has(supervisor)) return;
          this.recordRefused.add(supervisor);
          this.logger.warn({ err: errorMessage(error), server }, 'could not record the names a server listed in the lock file (tried again once the file changes); its next start takes the record as it was (or, with none, its first listing) as known');
        })
        .finally(() => this.pendingPins.delete(recorded));
      // Kept until written, as a pin is: a gateway stopped right after still records them.
      this.pendingPins.add(recorded);
    }
  }

  // -------------------------------------------------------------------------------------------
  // CallContext

  config(): ConfigFile {
    return this.loaded.file;
  }

  get configPath(): string {
    return this.loaded.path;
  }

  /**
   * The rules and built-in protections, built when first needed: with ten servers the build was
   * ~4 ms of the gateway's CPU before the first list, while the servers boot on the same cores, and
   * nothing before that list decides a call (docs/performance.md, "Round 18: start"). serve builds it
   * right after the first list (`prepare`); a call that comes first builds it itself.
   */
  policy(): PolicyState {
    return (this.policyState ??= this.policyWith(this.loaded, this.matchEnv, this.loaded.file.permissions));
  }

  /** What the start-up left for later (the policy), done now: called once the first list is answered. */
  prepare(): void {
    this.policy();
  }

  /** The policy of some permissions (a user's: the team's with their overlay), against the same workspace and built-in protections. */
  policyOf(permissions: PermissionsInput): PolicyState {
    return this.policyWith(this.loaded, this.matchEnv, permissions);
  }

  /** The files besides the config that hold secrets no tool may read or write (policy.ts builtInRules). */
  private secretFiles(config: LoadedConfig): string[] {
    const audit = this.shared ? auditFile(config) : null;
    return [...(audit ? [audit] : []), ...storeSecretFiles(config)];
  }

  inspectContext(): InspectContext {
    return { workspace: this.matchEnv.roots, clientRoots: this.clientRoots, serverRoots: this.serverRoots, pathEnv: this.pathEnv };
  }

  toolClass(route: ToolRoute): ToolClass {
    const cached = this.toolClasses.get(route.exposed);
    // Kept for the very definition it was made from: a server that lists again gives new objects.
    if (cached?.tool === route.tool) return cached.toolClass;
    const identity = this.identityOf(route.supervisor.name);
    const override = this.loaded.file.tools[route.exposed];
    const toolClass = classifyTool({ identity, tool: route.tool, ...(override ? { override } : {}) });
    this.toolClasses.set(route.exposed, { tool: route.tool, toolClass });
    return toolClass;
  }

  /** How `server` reads arguments no schema describes (a prompt's, a completion's): as an undescribed tool of it, for the base of a relative path. */
  argumentClass(server: string): ToolClass {
    return classifyTool({ identity: this.identityOf(server), tool: { name: '' } });
  }

  analysisReady(route: ToolRoute): Promise<void> | null {
    return this.commandsReady(this.toolClass(route));
  }

  /** What deciding a call of this class must wait for first (the shell grammar, still loading), or null. */
  commandsReady(toolClass: ToolClass): Promise<void> | null {
    if (this.shellLoaded || !takesShellCommands(toolClass)) return null;
    return this.loadShell();
  }

  /** How a prompts/get of `route` with `args` is decided (subjects/kind.ts classifyPrompt): null for candidates only. */
  promptClass(route: PromptRoute, args: Record<string, unknown>): ToolClass | null {
    const runsCommands = this.registry.toolRoutesList().some((tool) => tool.supervisor === route.supervisor && takesShellCommands(this.toolClass(tool)));
    return classifyPrompt(this.identityOf(route.supervisor.name), route.prompt.name, args, runsCommands);
  }

  /**
   * Loads the shell grammar in the background and parses one command with it, so that the first
   * call finds the parser and its code compiled. A failure leaves every command unanalyzable: asked.
   * Started a turn of the event loop later, once the gateway is built. The shell model's bundle is
   * compiled under the V8 flags serve keeps (its code cache is made under them), also while the
   * start-up's are set (src/cli/v8-flags.ts, code-cache.ts).
   */
  private loadShell(): Promise<void> {
    this.shell ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => initShellParser())
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

  /**
   * Whether a server's tools list, new since the last look, has a tool that takes shell commands:
   * the grammar then loads (and the decision path warms) before a client's first command. Only the
   * lists that changed are looked at, each tool that may take commands (kind.ts mayTakeCommands)
   * classified from its server's identity: classifying
   * through every route at each server's readiness rebuilt the routes once a server, 11 times in a
   * ten-server start, before the first list (docs/performance.md, "Round 19: start"). A tool
   * override is keyed by the exposed name, which only the routes give: with overrides in the
   * config, every route is classified as before.
   */
  private newListsTakeShellCommands(): boolean {
    if (Object.keys(this.loaded.file.tools).length > 0) return this.registry.toolRoutesList().some((route) => takesShellCommands(this.toolClass(route)));
    let found = false;
    for (const supervisor of this.registry.all()) {
      const tools = supervisor.listing.tools;
      if (this.shellChecked.get(supervisor) === tools) continue;
      this.shellChecked.set(supervisor, tools);
      const identity = this.identityOf(supervisor.name);
      if (tools.some((tool) => mayTakeCommands(identity, tool) && takesShellCommands(classifyTool({ identity, tool })))) found = true;
    }
    return found;
  }

  /** The shell grammar's load and first parse, when started (a tool takes shell commands); resolved otherwise. Never rejects. */
  shellReady(): Promise<void> {
    return this.shell ?? Promise.resolve();
  }

  /**
   * Decides a few commands through the first listed shell tool, the results dropped, once, then
   * runs one the user's rules allow through the call pipeline for nothing: the code of both is then
   * compiled and run before a client's first command needs it (warm-up.ts). Started from the
   * server's listing, never from a client's message.
   */
  private warmDecision(): void {
    if (this.decisionWarmed || this.closed || !isShellParserReady()) return;
    const route = this.registry.toolRoutesList().find((candidate) => takesShellCommands(this.toolClass(candidate)));
    if (!route || this.toolClass(route).command?.mode !== 'shell') return;
    this.decisionWarmed = true;
    // The functions the warm-up runs first (the call path's) get their feedback vectors and
    // baseline code in it: without them a client's first ~10 commands ran in V8's interpreter
    // without feedback, 2.3-3.1 M instructions each against 0.8-1.1 M by the 41st (docs/performance.md,
    // "Round 20: first shell command"). Only for the first warm-up: the first lists wait for it
    // (warmedUp), so no code cache is made or used while they are set (V8 takes a cache only under
    // the flags it was made with, cli/v8-flags.ts); set back when it is over.
    if (WARM_UP_TIERS) setFlagsFromString(WARM_UP_TIERS.warming);
    this.warming = this.warm(route).finally(() => WARM_UP_TIERS && setFlagsFromString(WARM_UP_TIERS.after));
  }

  /**
   * The warm-up again, after a full collection the idle collector ran (cli/serve.ts): V8 drops at a
   * full collection what only the warm-up's own objects held (the maps of the shapes a call makes,
   * the inline caches' feedback for them, the compiled regular expressions whose objects died), so
   * a client's next command, typically its first, sent seconds after the list, paid for all of it
   * again: 5.0 M instructions instead of 2.2 M (docs/performance.md, "Round 16: the first shell
   * command"). Only once the first warm-up ran and is over; the same calls on objects of their own.
   */
  warmAgain(): void {
    if (!this.decisionWarmed || this.closed || !this.warmedOver) return;
    const route = this.registry.toolRoutesList().find((candidate) => takesShellCommands(this.toolClass(candidate)));
    if (!route || this.toolClass(route).command?.mode !== 'shell') return;
    this.warming = this.warm(route);
  }

  /** The decisions, then the call through the pipeline, then the scavenge (warmDecision). Never rejects. */
  private warm(route: ToolRoute): Promise<void> {
    this.warmedOver = false;
    const tool = {
      server: route.supervisor.name,
      tool: route.tool.name,
      toolClass: this.toolClass(route),
      inspect: this.inspectContext(),
      policy: this.policy(),
      definition: () => this.definitionReport(route),
      toolDescriptions: this.loaded.file.policy.toolDescriptions,
    };
    let allowed: Record<string, unknown> | null = null;
    try {
      const decisions = warmUpShellDecisions(tool);
      allowed = decisions.allowed;
      this.logger.debug({ tool: route.exposed, decided: decisions.decided }, 'warmed the decision path');
    } catch (error) {
      this.logger.debug({ err: errorMessage(error) }, 'warming the decision path failed');
    }
    // The warm-up's call runs on a context of its own: what the real call asks of this one first is run here once.
    this.registry.resolveTool(route.exposed);
    // What a call reads of the real server's transport first (boot.cjs, no code cache: DirectCalls.overUnreadLimit).
    route.supervisor.warmUpDirect();
    this.analysisReady(route);
    this.policy();
    const args = allowed;
    // A throw of its own (a temporary directory that cannot be made) becomes a rejection, logged, as a failed call does.
    const pipeline = args
      ? new Promise<boolean>((resolve) => resolve(warmUpCallPipeline({ ...tool, route, args, config: () => this.loaded.file, matchEnv: this.matchEnv, configPath: this.loaded.path, maxMessageBytes: this.maxMessageBytes }))).then(
          (answered) => this.logger.debug({ tool: route.exposed, answered }, 'warmed the call pipeline'),
          (error: unknown) => this.logger.debug({ err: errorMessage(error) }, 'warming the call pipeline failed'),
        )
      : Promise.resolve();
    return pipeline
      .then(emptyYoungGeneration)
      .catch(() => undefined)
      .finally(() => (this.warmedOver = true));
  }

  /**
   * The warm-up, when it has started: the first lists wait for it with the grammar, so that it is
   * over before a client's first command arrives (its pipeline call runs in microtasks that would
   * otherwise run on after the list is sent, into the first command's time).
   */
  warmedUp(): Promise<void> {
    return this.warming ?? Promise.resolve();
  }

  /** `user`: a team gateway's member, for whom a definition they accepted is pinned. */
  definitionReport(route: ToolRoute, user?: string): DefinitionReport {
    return this.definitions.toolReport(route.exposed, route.supervisor.name, route.tool, this.listedTools, this.loaded.file.policy.toolDescriptions, user);
  }

  /** Every listed tool, for the description scan: one function, not one per report (a report is made for every call). */
  private readonly listedTools = (): ListedTool[] => this.registry.toolRoutesList().map(listedTool);

  templateReport(uri: string): DefinitionReport | null {
    const entry = this.registry.resolveTemplate(uri);
    return entry ? this.templateEntryReport(entry) : null;
  }

  templateEntryReport(entry: { supervisor: Supervisor; template: ResourceTemplate }): DefinitionReport {
    return this.definitions.forTemplate({ server: entry.supervisor.name, template: entry.template }, this.listedTools, this.loaded.file.policy.toolDescriptions);
  }

  promptReport(route: PromptRoute): DefinitionReport {
    return this.definitions.forPrompt({ exposed: route.exposed, server: route.supervisor.name, prompt: route.prompt }, this.listedTools, this.loaded.file.policy.toolDescriptions);
  }

  async pinDefinition(report: DefinitionReport): Promise<void> {
    await this.definitions.pin(report, serversToRun(this.loaded)[report.server] ?? {});
    // The pinned name is recorded now, not at its next list change (a rename of it before the next start is then caught).
    this.recordListings();
  }

  /** `user`: a team gateway's member; their acceptance is theirs only, the team's pin stays (docs/team.md, "Pins"). */
  async acceptDefinition(report: DefinitionReport, user?: string): Promise<void> {
    await this.definitions.pin(report, serversToRun(this.loaded)[report.server] ?? {}, user, true);
    // The accepted definition is listed from now on: clients are told their list changed.
    this.listsChanged();
  }

  /**
   * Pins a new tool's definition after its first allowed call is answered (the write — lock file
   * read, temp file, fsync, rename — would delay that answer by 5–15 ms of CPU; docs/performance.md,
   * "Cold start"). Kept until written, so a gateway stopped right after the call still pins it.
   */
  pinAfter(report: DefinitionReport, answered: Promise<unknown>): void {
    const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
    const pinned: Promise<void> = answered
      .then(settled, settled)
      .then(() => this.pinDefinition(report))
      .catch((error: unknown) => this.logger.error({ err: errorMessage(error), tool: report.exposed }, 'could not pin the tool definition'))
      .finally(() => this.pendingPins.delete(pinned));
    this.pendingPins.add(pinned);
  }

  private identityOf(server: string): ServerIdentity {
    let identity = this.identities.get(server);
    if (!identity) {
      const config = serversToRun(this.loaded)[server];
      identity = config ? identifyServerEntry(server, config, process.cwd()) : identifyServer({}, process.cwd());
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
    this.reloadsStarted += 1;
    const next = this.checkedConfig(text, why);
    const built = next && this.builtPolicy(next, why);
    if (!next || !built) return false;
    this.replaceConfig(next, built, why);
    return true;
  }

  /**
   * `reload` in two turns of the event loop: the text is read and checked in one, the policy built
   * and put in force in the next, the calls that come in between decided by the old config and
   * policy. What the watcher uses (a change of the file, another gateway's "Always allow"): with
   * thousands of rules each part is 5–15 ms of CPU during which no call is decided, and made one,
   * they were the longest wait of every gateway's calls (docs/performance.md, "Round 18: remembered
   * rules at scale"). Dropped, false, when another reload started meanwhile: its text is the newer.
   */
  async reloadInTurns(text: string, why: string): Promise<boolean> {
    if (text === this.loaded.text) return false;
    const turn = (this.reloadsStarted += 1);
    const next = this.checkedConfig(text, why);
    if (!next) return false;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (turn !== this.reloadsStarted || this.closed) return false;
    const built = this.builtPolicy(next, why);
    if (!built) return false;
    this.replaceConfig(next, built, why);
    return true;
  }

  /** The config of `text`, checked whole; null (logged) when it is invalid. */
  private checkedConfig(text: string, why: string): LoadedConfig | null {
    try {
      return parseConfigText(text, this.loaded.path, ruleIssues, this.loaded.scope);
    } catch (error) {
      this.logger.error({ err: errorMessage(error) }, `config reload refused (${why}); keeping the last good config`);
      return null;
    }
  }

  /**
   * The policy of a checked config, built whole before anything changes: until it is in force the
   * old config and policy answer every call, and a build that fails leaves them in force (fail
   * closed: never a config without its policy, nor a policy partly built). Null (logged) on a failure.
   */
  private builtPolicy(next: LoadedConfig, why: string): { matchEnv: MatchEnv; policy: PolicyState } | null {
    try {
      return this.buildPolicy(next);
    } catch (error) {
      this.logger.error({ err: errorMessage(error) }, `config reload refused (${why}); keeping the last good config`);
      return null;
    }
  }

  /** Puts a checked config and its built policy in force together. */
  private replaceConfig(next: LoadedConfig, built: { matchEnv: MatchEnv; policy: PolicyState }, why: string): void {
    this.loaded = next;
    this.identities.clear();
    this.toolClasses.clear();
    this.usePolicy(built);
    if (this.loaded.file.logLevel) this.logger.level = this.loaded.file.logLevel;
    if (this.started) {
      void this.registry.apply(serversToRun(this.loaded)).then((changes) => this.logger.info(changes, `config reloaded (${why})`));
    }
    this.listsChanged();
  }

  currentText(): string {
    return this.loaded.text;
  }

  /** The client's MCP roots (`file:` URIs) join the workspace (docs/config.md); only a gateway with one client session takes them. */
  setClientRoots(uris: string[]): void {
    this.clientRoots = uris
      .map((uri) => {
        try {
          return canonicalRoot(fileURLToPath(uri), this.pathEnv);
        } catch {
          return null;
        }
      })
      .filter((root): root is string => root !== null);
    // A client naming thousands of roots made every rule that many globs: the first MAX_ROOTS_OF_RUN are the workspace (F32-4).
    this.noteRootsOfRun(this.clientRoots);
    this.clientRoots = this.clientRoots.filter((root) => this.rootsOfRun.includes(root));
    this.applyPolicy();
  }

  /**
   * Adds `roots` to rootsOfRun, to MAX_ROOTS_OF_RUN; one past it sets rootsBeyond (told once): the
   * relative deny and ask rules then hold below any directory, as that root is not kept (docs/rules.md#path-globs).
   * True when the rules' anchors changed.
   */
  private noteRootsOfRun(roots: readonly string[]): boolean {
    let added = false;
    for (const root of roots) {
      if (this.rootsOfRun.includes(root)) continue;
      if (this.rootsOfRun.length < MAX_ROOTS_OF_RUN) {
        this.rootsOfRun.push(root);
        added = true;
      } else if (!this.rootsBeyond) {
        this.rootsBeyond = true;
        added = true;
        this.logger.warn({ limit: MAX_ROOTS_OF_RUN }, `more than ${MAX_ROOTS_OF_RUN} workspace roots named in this run (MAX_ROOTS_OF_RUN): those past it are not the workspace, and each deny and ask rule relative to a root (./x, a/b) now holds below any directory (docs/rules.md#path-globs)`);
      }
    }
    return added;
  }

  /**
   * The roots a server got from the client through the relay (relay.ts). The gateway's own
   * `roots/list` may have failed, timed out, or been answered otherwise (the roots changed between
   * the two requests): relative paths are decided against what the server got too
   * (docs/threat-model.md "A path the server reads otherwise"). As server-filesystem does
   * (roots-utils.js): a `file://` URI or a plain path, `~/` expanded, resolved, kept if it is a
   * directory; an answer with none leaves the server's directories as they were. The list before is
   * kept with the new one: the server takes the answer in a moment after the gateway sees it.
   */
  noteServerRoots(server: string, uris: string[]): void {
    const valid = uris
      .map((uri) => {
        try {
          const raw = uri.startsWith('file://') ? fileURLToPath(uri) : uri;
          const expanded = raw === '~' || raw.startsWith('~/') ? join(this.pathEnv.home, raw.slice(1)) : raw;
          const real = realpathSync(resolve(expanded));
          return statSync(real).isDirectory() ? real : null;
        } catch {
          return null;
        }
      })
      .filter((root): root is string => root !== null);
    if (valid.length === 0) return;
    const before = this.serverRoots.get(server) ?? [];
    this.serverRoots.set(server, [valid, ...before.filter((list) => list.join('\0') !== valid.join('\0'))].slice(0, 2));
    // A server working in a root the gateway's own roots/list did not get (it failed, or the roots changed between the two) meets the deny and ask rules there.
    if (this.noteRootsOfRun(valid)) this.applyPolicy();
  }

  private applyPolicy(): void {
    this.matchEnv = this.matchEnvOf(this.loaded);
    // Built again at its next use, from this config and these roots.
    this.policyState = null;
    for (const listener of this.policyListeners) listener();
  }

  /**
   * The policy of `config` with the current client roots; changes nothing. Throws as policyFor
   * does. A reload builds it before it changes anything (reload), so the new config never waits
   * for its policy on a call's path.
   */
  private buildPolicy(config: LoadedConfig): { matchEnv: MatchEnv; policy: PolicyState } {
    const matchEnv = this.matchEnvOf(config);
    return { matchEnv, policy: this.policyWith(config, matchEnv, config.file.permissions) };
  }

  /** The workspace a config's rules are matched against: its roots and the client's. */
  private matchEnvOf(config: LoadedConfig): MatchEnv {
    const configRoots = workspaceRoots(config).map((root) => canonicalRoot(root, this.pathEnv));
    const roots = [...new Set([...configRoots, ...this.clientRoots])];
    // Deny and ask rules also at the roots of this run the workspace no longer holds (F31-2; docs/rules.md#path-globs).
    const gone = this.rootsOfRun.filter((root) => !roots.includes(root));
    return { home: this.pathEnv.home, roots, platform: this.pathEnv.platform, ...(gone.length > 0 ? { ruleRoots: [...roots, ...gone] } : {}), ...(this.rootsBeyond ? { rootsBeyond: true as const } : {}) };
  }

  /** Some permissions of a config as a policy, with that config's built-in protections. */
  private policyWith(config: LoadedConfig, matchEnv: MatchEnv, permissions: PermissionsInput): PolicyState {
    return policyFor(permissions, config.path, auditFile(config), matchEnv, serverStartFiles(config), this.secretFiles(config));
  }

  private usePolicy(built: { matchEnv: MatchEnv; policy: PolicyState }): void {
    this.matchEnv = built.matchEnv;
    this.policyState = built.policy;
    for (const listener of this.policyListeners) listener();
  }

  matchEnvNow(): MatchEnv {
    return this.matchEnv;
  }

  /** Called after every change of the config or the workspace (session grants re-anchor, per-user policies are rebuilt). */
  onPolicyChange(listener: () => void): () => void {
    this.policyListeners.add(listener);
    return () => this.policyListeners.delete(listener);
  }

  // -------------------------------------------------------------------------------------------
  // Servers

  /** Starts the downstream servers once, with the capabilities they may use of the client. */
  start(capabilities: ClientCapabilities): void {
    if (this.started || this.closed) return;
    this.started = true;
    // `mcp-latch tools --accept` (or another gateway's Accept) changes what is listed: clients are
    // told at once, not at their next list (round 18, hostile servers #3; docs/pins.md "A changed tool").
    this.pinsWatcher = watchConfig(
      this.definitions.path,
      () => this.pinsChanged(),
      (error) => this.logger.debug({ err: errorMessage(error) }, 'could not watch the lock file; an accepted change is listed at the next list'),
      100,
      () => this.pinsChanged(),
    );
    this.registry.setCapabilities(capabilities);
    const applied = this.registry.apply(serversToRun(this.loaded));
    // Every server has claimed its early process by now (synchronously, as it started): close the rest.
    void this.prespawned?.closeAll();
    void applied.then(() => {
      if (this.loggingLevel) for (const supervisor of this.registry.all()) void supervisor.setLoggingLevel(this.loggingLevel);
    });
  }

  /** The prompt an exposed name routes to, waiting (bounded) for servers still starting; its server is up. */
  async promptRoute(name: string): Promise<PromptRoute> {
    const waitMs = startWaitMs(this.loaded.file);
    const route = await this.registry.whenListed(() => this.registry.resolvePrompt(name), waitMs);
    if (!route) throw new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    await route.supervisor.whenUp(waitMs);
    return route;
  }

  /** The server a resource URI routes to, once every server has listed (waiting, bounded, for those still starting); it is up. */
  async resourceServer(uri: string): Promise<Supervisor | undefined> {
    const waitMs = startWaitMs(this.loaded.file);
    const supervisor = await this.registry.whenAllListed(() => this.registry.resolveResource(uri), waitMs, uri);
    if (supervisor) await supervisor.whenUp(waitMs);
    return supervisor;
  }

  /** A session's `logging/setLevel` (null: the session ended): the servers are set to the most detailed level any session asks for. */
  async setLoggingLevel(session: string, level: LoggingLevel | null): Promise<void> {
    const detailed = this.logLevels.set(session, level);
    // A session that ends changes nothing unless it held the most detailed level; with none left the
    // servers keep their last one (MCP cannot unset a level). A setLevel is always passed on (a restarted server lost its level).
    if (detailed === null || (level === null && detailed === this.loggingLevel)) return;
    this.loggingLevel = detailed;
    await Promise.all(this.registry.all().map((supervisor) => supervisor.setLoggingLevel(detailed)));
  }

  /**
   * The tools as listed to clients (policy.toolDescriptions "hide" drops flagged ones), within
   * limits.messageMB of JSON. A pinned tool whose server now lists another definition is listed as
   * pinned until the person accepts the new one: the changed description is what a rug pull
   * instructs the model with, and it reached the model before any call of that tool asked (round 17
   * review of hostile servers, 1; docs/pins.md).
   */
  toolsList(): ListAnswer<Tool> {
    const hide = this.loaded.file.policy.toolDescriptions === 'hide';
    const tools: Tool[] = [];
    const servers: Supervisor[] = [];
    const hasPin = this.definitions.pinLookup();
    const holdAdded = this.loaded.file.policy.addedTools === 'hold';
    const notes = this.listingNotes.pass('tools/list');
    for (const route of this.registry.toolRoutesList()) {
      const pinned = hasPin('tool', route.supervisor.name, route.tool.name);
      if (!pinned && holdAdded && this.definitions.addedLater('tool', route.supervisor.name, route.tool.name, route.tool)) {
        this.noteAdded(notes, route.supervisor.name, route.exposed, () => this.definitionReport(route), 'tool', true);
        continue;
      }
      const report = hide || pinned ? this.definitionReport(route) : null;
      if (hide && report!.findings.length > 0) continue;
      if (report?.pinned) notes.note('changed', route.supervisor.name, route.exposed, `${route.exposed} ${report.digest}`, () => route.exposed);
      const shown = this.shown(notes, route.supervisor.name, route.exposed, report?.pinned ? (report.pinned as Tool) : route.tool);
      if (shown === null) continue;
      tools.push({ ...shown, name: route.exposed });
      servers.push(route.supervisor);
    }
    this.tellNotes(notes);
    this.listAnswered();
    return this.withinLimit('tools/list', tools, servers);
  }

  /**
   * Whether a list (tools, prompts, resources or templates) was answered in this run:
   * recordListings waits for it for servers without pins. Any list, not tools/list only: a run whose
   * client listed prompts or resources only recorded no server without pins, and a rename before
   * the next run was that run's baseline (round 22 review, R22-3; docs/pins.md).
   */
  private listedOnce = false;

  /** The record the first list answered left for later (listAnswered), until it is made. */
  private listingsToRecord: NodeJS.Timeout | null = null;

  /**
   * A list is being answered: a moment after it is written (list-answer.ts afterList, so that a
   * client's first command sent at once is answered first), the servers without pins are recorded
   * (recordListings); at the latest when the gateway closes.
   */
  private listAnswered(): void {
    if (this.listedOnce) return;
    this.listedOnce = true;
    this.listingsToRecord = afterList(() => this.recordListingsLeft());
  }

  private recordListingsLeft(): void {
    if (this.listingsToRecord === null) return;
    clearTimeout(this.listingsToRecord);
    this.listingsToRecord = null;
    if (!this.closed) this.recordListings();
  }

  /**
   * Notes a tool, prompt or template its server added later (or changed before any use was
   * allowed), held back (`hold`) or listed as new (`ask`); its report (a scan, for the digest of the
   * accept command) is made only for the first few of its server, which the log line names.
   */
  private noteAdded(notes: ListingPass, server: string, exposed: string, report: () => DefinitionReport, what: string, held: boolean): void {
    notes.note(`${held ? 'held' : 'listed'} ${what}`, server, exposed, exposed, () => `${exposed}@${report().digest}`);
  }

  /** Logs what a list answer's notes hold that differs from its last (listing-notes.ts): one line per server and kind of note. */
  private tellNotes(notes: ListingPass): void {
    for (const { kind, group } of notes.end()) {
      const count = group.names.length;
      const { server } = group;
      if (kind === 'changed') {
        const message = count === 1
          ? `${group.names[0]}: the server lists a changed definition; clients are listed the pinned one until it is accepted (mcp-latch tools --changed)`
          : `${server}: the server lists changed definitions of ${count.toLocaleString('en-US')} tools (${namedAndCounted(group)}); clients are listed the pinned ones until they are accepted (mcp-latch tools --changed)`;
        this.logger.warn(count === 1 ? { tool: group.names[0] } : { server, tools: count }, message);
      } else if (kind === 'unshowable') {
        const message = count === 1
          ? `${notes.method}: an entry of ${server} is not listed to clients: ${group.details[0]} holds characters that cannot be shown as they are (a control, bidi or invisible character, or a line break), and the client would send it back unchanged`
          : `${notes.method}: ${count.toLocaleString('en-US')} entries of ${server} are not listed to clients (${namedAndCounted(group)}): ${group.details[0]}, and a value of each other, holds characters that cannot be shown as they are (a control, bidi or invisible character, or a line break), and the client would send it back unchanged`;
        this.logger.warn({ server, entry: group.names[0], entries: count }, message);
      } else {
        const held = kind.startsWith('held ');
        const what = kind.slice(kind.indexOf(' ') + 1);
        const accept = group.details.join(', ');
        if (count === 1) {
          const then = held ? 'it is not listed to clients until accepted' : 'it is listed as new (policy.addedTools "ask")';
          this.logger.warn({ [what]: group.names[0], digest: accept.slice(accept.indexOf('@') + 1) }, `${group.names[0]}: the server added this ${what} after its first listing; ${then} (mcp-latch tools --changed, then --accept ${accept})`);
        } else {
          const then = held ? 'they are not listed to clients until accepted' : 'they are listed as new (policy.addedTools "ask")';
          this.logger.warn({ server, [`${what}s`]: count }, `${server}: the server added ${count.toLocaleString('en-US')} ${what}s after its first listing (${namedAndCounted(group)}); ${then} (mcp-latch tools --changed, then --accept NAME@DIGEST for each: ${accept}${count > NAMED_IN_LINE ? ', …' : ''})`);
        }
      }
    }
  }

  /**
   * Whether a prompt or template its server added later is left out of the list (noted either
   * way). The report (a scan) is made only for one with no pin that is not of the first listing.
   */
  private heldAdded(notes: ListingPass, kind: 'prompt' | 'template', server: string, exposed: string, entry: Prompt | ResourceTemplate, hasPin: (kind: PinKind, server: string, name: string) => boolean, report: () => DefinitionReport): boolean {
    if (hasPin(kind, server, entry.name) || !this.definitions.addedLater(kind, server, entry.name, entry)) return false;
    const held = this.loaded.file.policy.addedTools === 'hold';
    this.noteAdded(notes, server, exposed, report, kind === 'prompt' ? 'prompt' : 'resource template', held);
    return held;
  }

  promptsList(): ListAnswer<Prompt> {
    const hide = this.loaded.file.policy.toolDescriptions === 'hide';
    const hasPin = this.definitions.pinLookup();
    const prompts: Prompt[] = [];
    const servers: Supervisor[] = [];
    const notes = this.listingNotes.pass('prompts/list');
    for (const route of this.registry.promptRoutesList()) {
      if (hide && this.promptReport(route).findings.length > 0) continue;
      if (this.heldAdded(notes, 'prompt', route.supervisor.name, route.exposed, route.prompt, hasPin, () => this.promptReport(route))) continue;
      const shown = this.shown(notes, route.supervisor.name, route.exposed, route.prompt);
      if (shown === null) continue;
      prompts.push({ ...shown, name: route.exposed });
      servers.push(route.supervisor);
    }
    this.tellNotes(notes);
    this.listAnswered();
    return this.withinLimit('prompts/list', prompts, servers);
  }

  resourcesList(): ListAnswer<Resource> {
    const resources: Resource[] = [];
    const servers: Supervisor[] = [];
    const notes = this.listingNotes.pass('resources/list');
    for (const entry of this.registry.resources()) {
      const shown = this.shown(notes, entry.supervisor.name, entry.resource.name, entry.resource);
      if (shown === null) continue;
      resources.push(shown);
      servers.push(entry.supervisor);
    }
    this.tellNotes(notes);
    this.listAnswered();
    return this.withinLimit('resources/list', resources, servers);
  }

  templatesList(): ListAnswer<ResourceTemplate> {
    const hide = this.loaded.file.policy.toolDescriptions === 'hide';
    const hasPin = this.definitions.pinLookup();
    const templates: ResourceTemplate[] = [];
    const servers: Supervisor[] = [];
    const notes = this.listingNotes.pass('resources/templates/list');
    for (const entry of this.registry.templates()) {
      if (hide && this.templateEntryReport(entry).findings.length > 0) continue;
      if (this.heldAdded(notes, 'template', entry.supervisor.name, `${entry.supervisor.name}__${entry.template.name}`, entry.template, hasPin, () => this.templateEntryReport(entry))) continue;
      const shown = this.shown(notes, entry.supervisor.name, entry.template.name, entry.template);
      if (shown === null) continue;
      templates.push(shown);
      servers.push(entry.supervisor);
    }
    this.tellNotes(notes);
    this.listAnswered();
    return this.withinLimit('resources/templates/list', templates, servers);
  }

  /**
   * A server's entry as clients are shown it (listed-text.ts: its display text escaped), or null
   * when a value the client sends back cannot be shown as it is: then it is not listed, noted.
   */
  private shown<T extends object>(notes: ListingPass, server: string, name: string, entry: T): T | null {
    const shown = shownEntry(entry);
    if ('entry' in shown) return shown.entry;
    notes.note('unshowable', server, escapeText(name), shown.unshowable, () => shown.unshowable);
    return null;
  }

  /**
   * `entries` (of `servers`, one each) as answered, at most limits.messageMB of JSON
   * (list-answer.ts); what is left out is told in one warning each time it changes, not at each list.
   */
  private withinLimit<T>(method: string, entries: T[], servers: readonly Supervisor[]): ListAnswer<T> {
    const answer = listAnswer(entries, this.maxMessageBytes);
    const cut = answer.leftOut === 0 ? '' : `${answer.entries.length} ${answer.leftOut}`;
    if (cut !== '' && this.listsCut.get(method) !== cut) {
      const left = [...new Set(servers.slice(answer.entries.length).map((supervisor) => supervisor.name))];
      this.logger.warn(
        { listed: answer.entries.length, leftOut: answer.leftOut, servers: left },
        `${method} answers to clients stop at limits.messageMB (${megabytes(this.maxMessageBytes)} MB) of JSON, the servers' lists together: ${answer.leftOut.toLocaleString('en-US')} entries of the servers listed last (${left.join(', ')}) are left out (docs/config.md, "limits")`,
      );
    }
    this.listsCut.set(method, cut);
    return answer;
  }

  /** Called (coalesced by each session) when a server's lists or the config may have changed what is listed. */
  onListsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** How many times what is listed may have changed (listsChanged): a session that answered a list at this count need not compare it again. */
  get listsVersion(): number {
    return this.listsChangedTimes;
  }
  private listsChangedTimes = 0;

  private listsChanged(): void {
    this.listsChangedTimes += 1;
    // Only what is no longer listed as it was is dropped: clearing every class when one server
    // changed made a start with n servers classify every tool again n times (10 servers: 715
    // classifications instead of 130, ~15% of the gateway's CPU between connecting and the first list).
    for (const [exposed, entry] of this.toolClasses) if (this.registry.resolveTool(exposed)?.tool !== entry.tool) this.toolClasses.delete(exposed);
    for (const supervisor of this.registry.all()) {
      if (supervisor.state === 'ready' && !this.firstEntries.has(supervisor)) {
        const { tools, prompts, templates } = supervisor.listing;
        this.firstEntries.set(supervisor, { tool: new Map(tools.map((tool) => [tool.name, tool])), prompt: new Map(prompts.map((prompt) => [prompt.name, prompt])), template: new Map(templates.map((template) => [template.name, template])) });
        // Each tool's shown form (escaped text, kept per entry) is made now, while the other servers
        // boot, not all at the first tools/list after the last server's answer, where every ms is
        // one the client waits for (docs/performance.md, "Round 22: start").
        for (const tool of tools) shownEntry(tool);
      }
    }
    this.definitions.listChanged();
    this.recordListings();
    for (const listener of this.listeners) listener();
  }

  /**
   * The lock file changed: read again, and each session compares what it would list now with what
   * it sent (a notification only if that changed). Whether this gateway had read the change already
   * (a call to the tool reads a pin that differs) does not matter: its clients were not told.
   */
  private pinsChanged(): void {
    if (this.closed) return;
    // Looked at once this gateway's own writes are over: its own record of what its servers listed
    // lists nothing differently, and at each first start made every session compare its lists again.
    void this.definitions.writesSettled().then(() => {
      if (this.closed || !this.definitions.changedForWatcher()) return;
      this.recordRefused = new WeakSet();
      this.definitions.refreshPins();
      this.listsChanged();
    });
  }

  /** Closes every server (process trees included) and flushes the audit. */
  async close(): Promise<void> {
    if (this.closed) return;
    // A run stopped within a second of its first list still records its servers (listAnswered); its servers are still ready here.
    this.recordListingsLeft();
    this.closed = true;
    this.pinsWatcher?.close();
    await Promise.all([this.registry.closeAll(), this.prespawned?.closeAll()]);
    // The servers are closed, so every call has settled and its pin is under way.
    await Promise.all(this.pendingPins);
    await this.audit.close().catch(() => undefined);
  }
}

function listedTool(route: ToolRoute): ListedTool {
  return { exposed: route.exposed, server: route.supervisor.name, tool: route.tool };
}

/** A tool whose calls carry a shell command: deciding them needs the shell grammar. */
function takesShellCommands(toolClass: ToolClass): boolean {
  return toolClass.kind === 'command' || toolClass.command !== null || toolClass.selectCommand !== undefined || Boolean(toolClass.stdin);
}

/** What downstream servers may ask of the client: exactly what the client declared. */
export function mirrorCapabilities(client: ClientCapabilities | undefined): ClientCapabilities {
  const out: ClientCapabilities = {};
  if (client?.elicitation) out.elicitation = client.elicitation;
  // Without `context`: the gateway sends every includeContext as "none" (sampling.ts).
  if (client?.sampling) out.sampling = Object.fromEntries(Object.entries(client.sampling).filter(([key]) => key !== 'context'));
  if (client?.roots) out.roots = { listChanged: true };
  return out;
}
