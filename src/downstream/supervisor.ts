import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ArgsJson } from '../values.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC, type RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CompleteResultSchema,
  EmptyResultSchema,
  ErrorCode,
  BlobResourceContentsSchema,
  GetPromptResultSchema,
  PromptMessageSchema,
  ReadResourceResultSchema,
  TextResourceContentsSchema,
  type ClientCapabilities,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type LoggingLevel,
  type ReadResourceResult,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isRemoteServer, type ServerConfig } from '../config/schema.js';
import { asRpcError, errorMessage, internalError, LatchError, recordUnwritten, RpcError } from '../errors.js';
import { escapeText } from '../latch/escape.js';
import { redactText } from '../redact.js';
import type { Logger } from '../log.js';
import { closedPipeOf, connectServer, remoteFailure, stderrOf, type Connected, type RelayHooks } from './connect.js';
import { ConnectionLost, DirectCalls, type CallSettle, type DirectCallOptions, type Lingers } from './direct-calls.js';
import type { Prespawned } from './prespawn.js';
import type { Permit, PermitBook } from './permit.js';
import type { RecordFailures } from '../store/audit.js';
import { readListing, type ServerListing } from './listing.js';
import { serverError } from './server-error.js';
import { checkEntries, type EntrySchema } from './answer-entries.js';
import { InvalidAnswer, invalidAnswer, schemaProblem } from './invalid-answer.js';
import { made, once } from '../lazy-schema.js';

/**
 * One configured server over its lifetime: connect, list, restart with backoff after a failed start
 * or a crash, stop. The last good listing is kept while the server is down, so its tools stay
 * listed and calls to them fail with a clear error instead of "unknown tool".
 */
export type ServerState = 'starting' | 'ready' | 'failed' | 'stopped';

export interface SupervisorOptions {
  name: string;
  config: ServerConfig;
  capabilities: ClientCapabilities;
  hooks: RelayHooks;
  logger: Logger;
  permits: PermitBook;
  /** The audit's failures: a call whose record could not be written does not leave (store/audit.ts). */
  records?: RecordFailures;
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
  /**
   * The gateway is shared by members (team): a server's stderr lines go to the gateway's log only,
   * never into the reason its callers are shown (docs/team.md, "A shared server's stderr").
   */
  stderrToLogOnly?: boolean;
}

/** A server that stays up this long has its backoff reset. */
const STABLE_MS = 30_000;
/** At most one transport-error warning a server in this time (warnTransportError). */
const TRANSPORT_WARN_MS = 10_000;

/**
 * The answers' schemas with their lists left to checkEntries: zod over a whole list built an issue
 * per refused entry (answer-entries.ts). Made at their first use, not with the bundle: no start
 * reads a resource or gets a prompt before its first list (lazy-schema.ts).
 */
// The list may be missing only so that a 2026-07-28 server's input_required is refused by name (asksForInput).
const answerSchemas = once(() => ({
  readWithoutContents: ReadResourceResultSchema.extend({ contents: z.array(z.unknown()).optional() }),
  promptWithoutMessages: GetPromptResultSchema.extend({ messages: z.array(z.unknown()).optional() }),
  resourceContentsEntry: z.union([made(TextResourceContentsSchema), made(BlobResourceContentsSchema)]),
}));
/**
 * How long stop() waits for a start it aborted. A stdio server's ends with its process (killed within
 * the transport's 2 s grace); a remote transport's start() does not take the signal and may wait on
 * the network, so stopping does not wait for it longer than this.
 */
const ABORTED_START_WAIT_MS = 5_000;
/** The least time between the starts of two re-reads of a server's lists after its list_changed (docs/config.md, "limits"). */
export const MIN_RELIST_MS = 1_000;
/**
 * The most that time grows to while a server keeps saying its lists changed (it doubles with each
 * read a notification asked for within it, and is back to MIN_RELIST_MS after one quiet interval): each
 * read of 10,000 tools cost the gateway ~300 ms of CPU, once a second for as long as the storm went
 * on (docs/performance.md, "Round 18: list_changed storms").
 */
export const MAX_RELIST_MS = 16_000;

/** What a 2026-07-28 server's own `input_required` asked for, answered: sent back with the call again. */
export interface ServerAnswers {
  inputResponses: Record<string, unknown>;
  requestState?: string;
}

export class Supervisor {
  readonly name: string;
  readonly config: ServerConfig;
  state: ServerState = 'starting';
  private transportWarnedAt = Number.NEGATIVE_INFINITY;
  private transportHeldBack = 0;
  lastError: string | null = null;
  listing: ServerListing = { tools: [], resources: [], templates: [], prompts: [] };
  /** Whether a listing was read in this run (a start's or a re-read's): before, what it claims is not known (registry.ts whenAllListed). */
  hasListed = false;
  serverCapabilities: ServerCapabilities | undefined;
  pid: number | null = null;
  /** The gateway speaks MCP 2026-07-28 to it on the current connection (era-2026.ts). */
  modern = false;
  /** Attempts since the last stable run. */
  restarts = 0;
  /** Retried at the slow rate (the longest backoff): failing for a while, not just restarting. */
  slow = false;
  nextRestartAt: number | null = null;

  private client: Client | null = null;
  /** tools/call on the same connection, without the Client's per-request bookkeeping. */
  private direct: DirectCalls | null = null;
  private stopping = false;
  /** Why stop() was called, when a config reload did it: said to the calls it ends and to the ones that come after (unavailableReason). */
  private stoppedFor: string | null = null;
  /** The attempt under way, and how to end its handshake: stop() must not leave a starting process behind. */
  private attempting: Promise<void> = Promise.resolve();
  private handshake: AbortController | null = null;
  /** Which connection attempt is current; see lost(). */
  private generation = 0;

  /** Which connection is current: one made after a restart holds none of the resource subscriptions made before (gateway/subscriptions.ts). */
  get connection(): number {
    return this.generation;
  }
  private restartTimer: NodeJS.Timeout | null = null;
  /** The re-read of the lists under way (refresh()), and whether the server said they changed since it began. */
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  /** When the last read of the lists began, the start's included (0: none yet), so a re-read begins `relistMs` after it at the soonest. */
  private relistedAt = 0;
  /** The least time before the next re-read: MIN_RELIST_MS, doubled with each read asked for within it, to MAX_RELIST_MS; back after a quiet interval. */
  private relistMs = MIN_RELIST_MS;
  /** When the last read of the lists ended (the start's included): a notification a whole `relistMs` after it is not part of a storm. */
  private relistEndedAt = 0;
  /** Notifications since the last re-read began, for the log; whether a storm was logged already (once a supervisor). */
  private changesSinceRead = 0;
  private stormLogged = false;
  /** The server said its lists changed while this connection's first listing was read: read them again once it is ready. */
  private changedWhileStarting = false;
  private readonly settledWaiters = new Set<() => void>();
  /** Waiting for the next attempt to settle (a remote request to send again on a new session). */
  private readonly nextWaiters = new Set<() => void>();
  private firstSettled = false;
  /** Drops the current connection (a remote session that ended); a no-op once it is not current. */
  private dropConnection: ((message: string) => void) | null = null;
  /** Reached over HTTP, not a process of ours: a call may be sent again on a new session. */
  readonly remote: boolean;
  /** A ping is asking a remote server whether it still knows the session. */
  private probing = false;
  /**
   * The gateway's own requests to the server (its lists, logging/setLevel) not answered yet: a
   * request the server makes meanwhile may be for one of them, not for a client's call (gateway/relay.ts).
   */
  ownRequestsInFlight = 0;
  private readonly backoff: { initialMs: number; maxMs: number };
  private delayMs: number;

  constructor(private readonly options: SupervisorOptions) {
    this.name = options.name;
    this.config = options.config;
    this.backoff = options.backoff ?? { initialMs: 1_000, maxMs: 30_000 };
    this.delayMs = this.backoff.initialMs;
    this.remote = isRemoteServer(options.config);
  }

  start(): void {
    if (this.options.configError) {
      this.fail(this.options.configError, false);
      return;
    }
    this.attempting = this.attempt();
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
    // A remote server getting a new session is waited for while the backoff is short; a crashed process is not.
    if (this.remote && this.firstSettled && (this.state === 'starting' || (this.state === 'failed' && this.restartTimer !== null && !this.slow))) {
      return this.whenNextSettled(timeoutMs);
    }
    if (this.state !== 'starting') return false;
    await this.whenSettled(timeoutMs);
    return (this.state as ServerState) === 'ready';
  }

  /** Waits up to `timeoutMs` for the server to be ready; a JSON-RPC error saying why when it is not. */
  async whenUp(timeoutMs: number): Promise<void> {
    if (!(await this.whenReady(timeoutMs))) throw new RpcError(ErrorCode.InternalError, this.unavailableReason());
  }

  /** Why the server cannot take calls right now, for the tool error: escaped text. */
  unavailableReason(): string {
    const why = this.lastError ? `: ${this.lastError}` : '';
    const name = escapeText(this.name);
    if (this.state === 'starting') return `server "${name}" is still starting${why}`;
    if (this.state === 'stopped') return `server "${name}" is stopped${this.stoppedFor === null ? '' : `: ${this.stoppedFor}`}`;
    const inSeconds = this.nextRestartAt ? Math.max(1, Math.round((this.nextRestartAt - performance.now()) / 1000)) : null;
    // Failing for a while: tried again at the slow rate, and said so.
    if (this.slow) return `server "${name}" failed${why}; tried again every ${Math.round(this.backoff.maxMs / 1000)} s${inSeconds ? `, next in ${inSeconds} s` : ''}`;
    return `server "${name}" is unavailable${why}${inSeconds ? `; restarting in ${inSeconds} s` : ''}`;
  }

  private async attempt(): Promise<void> {
    if (this.stopping) return;
    // Every report about this attempt's connection carries its number: only the current one counts.
    const generation = ++this.generation;
    this.state = 'starting';
    this.changedWhileStarting = false;
    this.nextRestartAt = null;
    const logger = this.options.logger;
    const startedAt = performance.now();
    let connected: Connected | null = null;
    const handshake = new AbortController();
    this.handshake = handshake;
    try {
      connected = await connectServer({
        signal: handshake.signal,
        name: this.name,
        ...(this.options.records ? { records: this.options.records } : {}),
        config: this.config,
        capabilities: this.options.capabilities,
        hooks: this.options.hooks,
        logger,
        timeoutMs: this.options.connectTimeoutMs,
        maxMessageBytes: this.options.maxMessageBytes,
        version: this.options.version,
        ...(this.options.prespawned ? { prespawned: this.options.prespawned } : {}),
      });
      this.handshake = null;
      if (this.stopping || generation !== this.generation) {
        await connected.client.close().catch(() => undefined);
        return;
      }
      const current = connected;
      this.client = current.client;
      this.direct = new DirectCalls(current.transport, (error) => this.options.logger.error({ server: this.name, err: errorMessage(error) }, 'passing on an answer failed'));
      this.pid = current.pid;
      this.modern = current.modern;
      const drop = (message: string) => this.lost(generation, message, startedAt, current);
      this.dropConnection = drop;
      current.client.onerror = (error) => {
        // Closing (the client left): answers still on their way to a stopped server are no fault.
        if (this.stopping || generation !== this.generation) {
          logger.debug({ err: errorMessage(error) }, 'server transport error after the connection was closed');
          return;
        }
        this.warnTransportError(errorMessage(error));
        const failure = this.remote && generation === this.generation ? remoteFailure(error) : null;
        // Nothing answers: a new session, after the backoff. A 404 may also be a server's answer to
        // the event stream it does not offer: a ping on the session tells whether the session ended.
        // The request that failed is answered first, with its own error (a refused one is sent again).
        if (failure?.kind === 'ended') this.probeSession(current.client, drop);
        else if (failure) setImmediate(() => drop(failure.message));
      };
      current.client.onclose = () => {
        // Stopped by its transport for a pipe it closed while it ran on: said so, in its calls' answers too.
        const why = closedPipeOf(current);
        this.lost(generation, why ? `the server ${why} and was stopped` : 'the server exited', startedAt, current, undefined, why);
      };
      this.serverCapabilities = current.client.getServerCapabilities();
      // The start's listing is a read like any other: a change announced during it (server-everything
      // announces one as soon as it is initialized) is read a second after it began, not while the
      // other servers are still starting (docs/performance.md, "Round 12: the first list").
      this.relistedAt = performance.now();
      const listing = await this.own(readListing(current.client, this.listingOptions(), this.options.logger));
      if (generation !== this.generation) return;
      this.listing = listing;
      this.hasListed = true;
      this.relistEndedAt = performance.now();
      this.state = 'ready';
      this.slow = false;
      this.lastError = null;
      logger.info({ pid: this.pid, tools: this.listing.tools.length }, 'server ready');
      this.settle();
      this.options.onChange();
      if (this.changedWhileStarting) void this.refresh();
    } catch (error) {
      this.lost(generation, `failed to start: ${(this.remote ? remoteFailure(error)?.message : undefined) ?? errorMessage(error)}`, startedAt, connected, error);
    }
  }

  /**
   * The connection of attempt `generation` is gone (it closed, or its start failed). The first
   * report wins; later ones about the same connection, or about one that is no longer current,
   * change nothing: exactly one restart is scheduled per failure.
   */
  private lost(generation: number, message: string, startedAt: number, connected: Connected | null, error?: unknown, why: string | null = null): void {
    if (generation !== this.generation || this.stopping) return;
    this.generation += 1;
    this.dropConnection = null;
    this.client = null;
    this.dropDirect(why);
    this.pid = null;
    if (connected) {
      connected.client.onclose = undefined;
      void connected.client.close().catch(() => undefined);
    }
    if (performance.now() - startedAt >= STABLE_MS) {
      this.delayMs = this.backoff.initialMs;
      this.restarts = 0;
    }
    const stderr = stderrOf(connected, error);
    const withStderr = stderr.length > 0 ? `${message}; its last stderr lines: ${stderr.join(' | ')}` : message;
    // Shared by members, the server printed those lines while working for one of them (a path, a
    // traceback with their arguments): the others are told only the gateway's sentence, the
    // operator finds the lines in the log (round 27 review, P27-7).
    this.fail(this.options.stderrToLogOnly ? message : withStderr, true, withStderr);
  }

  private fail(reason: string, retry: boolean, logged = reason): void {
    // The reason holds what the server chose (its error message, its stderr): redacted and escaped
    // once here, for the log, the list's _meta and the tool error alike (a server prints the
    // credentials it was given on a failed start; the model reads the tool error).
    const message = escapeText(redactText(reason));
    const loggedMessage = logged === reason ? message : escapeText(redactText(logged));
    this.state = 'failed';
    this.lastError = message;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    if (retry && !this.stopping) {
      const wait = this.delayMs;
      this.slow = wait >= this.backoff.maxMs;
      this.delayMs = Math.min(this.delayMs * 2, this.backoff.maxMs);
      this.restarts += 1;
      this.nextRestartAt = performance.now() + wait;
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        this.attempting = this.attempt();
      }, wait);
      this.restartTimer.unref();
    }
    this.options.logger.error({ err: loggedMessage, restarts: this.restarts, ...(this.nextRestartAt ? { retryInMs: this.nextRestartAt - performance.now() } : {}) }, this.slow ? 'server failed' : 'server unavailable');
    this.settle();
    this.options.onChange();
  }

  private settle(): void {
    this.firstSettled = true;
    for (const waiter of [...this.settledWaiters, ...this.nextWaiters]) waiter();
    this.settledWaiters.clear();
    this.nextWaiters.clear();
  }

  /** Pings a remote session; when the server does not know it (404) or cannot be reached, `drop` starts a new one. */
  private probeSession(client: Client, drop: (message: string) => void): void {
    if (this.probing) return;
    this.probing = true;
    this.own(client.ping({ timeout: this.options.connectTimeoutMs }))
      .catch((error: unknown) => {
        const failure = remoteFailure(error);
        if (failure) drop(failure.message);
      })
      .finally(() => {
        this.probing = false;
      });
  }

  /** Waits, up to `timeoutMs`, for the next connection attempt to settle; true when the server is then ready. */
  private whenNextSettled(timeoutMs: number): Promise<boolean> {
    if (this.stopping) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.nextWaiters.delete(done);
        resolve(this.state === 'ready');
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      this.nextWaiters.add(done);
    });
  }

  /**
   * A remote transport cannot keep a message back once given it (a stdio one holds calls to the
   * audit's rule itself, child-transport.ts): the call waits a microtask, until the records of the
   * calls forwarded with it are written (Audit.together()), and does not leave if a write failed.
   */
  private sendRemote<T>(send: () => Promise<T>, waitMs: number): Promise<T> {
    const records = this.options.records;
    const failures = records?.failures ?? 0;
    return Promise.resolve().then(() => {
      if (records && records.failures !== failures) throw recordUnwritten(records.lastFailure);
      return this.onNewSessionIfGone(send, waitMs);
    });
  }

  /**
   * Sends a request to a remote server; when the server refused it unrun (its session ended: HTTP
   * 404, or nothing listens), the connection is dropped, and once a new session is up (after the
   * backoff, within `waitMs`) the request is sent once more. A failure that may have come after the
   * server received the request is a lost connection: the call may have run.
   */
  private async onNewSessionIfGone<T>(send: () => Promise<T>, waitMs: number): Promise<T> {
    if (this.state !== 'ready') await this.whenReady(waitMs);
    const drop = this.dropConnection;
    try {
      return await send();
    } catch (error) {
      const failure = this.remote ? remoteFailure(error) : null;
      if (!failure) throw error;
      drop?.(failure.message);
      if (failure.kind === 'broken') throw new ConnectionLost();
      if (!(await this.whenNextSettled(waitMs))) throw new LatchError('SERVER_UNAVAILABLE', this.unavailableReason());
      return send();
    }
  }

  /**
   * Re-reads the lists after the server said they changed: one read at a time, and any number of
   * notifications during it lead to one more read after it, so the last one is always followed by
   * a read; a read begins MIN_RELIST_MS after the last one (the start's included) began at the
   * soonest, and the notifications meanwhile are all read by it (docs/config.md, "limits"). While
   * the server keeps asking sooner than that, the time doubles, to MAX_RELIST_MS. Each notification was a
   * read of the four lists: 5,000 of them were 5,000 reads, and 200 from a server of 10,000 tools
   * held every call for seconds; a server that sent one more with each list's answer was read
   * back to back for as long as it ran.
   */
  refresh(): Promise<void> {
    // The listing under way may have been answered before the change: read once it is in.
    if (this.state === 'starting') {
      this.changedWhileStarting = true;
      return Promise.resolve();
    }
    this.changesSinceRead += 1;
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    const reads = async () => {
      // Quiet for a whole interval since the last read ended: back to the least interval.
      if (performance.now() - this.relistEndedAt >= this.relistMs) this.relistMs = MIN_RELIST_MS;
      try {
        do {
          const wait = this.relistedAt + this.relistMs - performance.now();
          if (wait > 0) await new Promise<void>((resolve) => setTimeout(resolve, wait).unref());
          this.refreshAgain = false;
          this.relistedAt = performance.now();
          const changes = this.changesSinceRead;
          this.changesSinceRead = 0;
          await this.readListingAgain();
          this.relistEndedAt = performance.now();
          // It asked again within the interval after the last read, or during this one: the next read waits longer.
          if (wait > 0 || this.refreshAgain) this.slowRelisting(changes);
        } while (this.refreshAgain);
      } finally {
        this.refreshing = null;
      }
    };
    this.refreshing = reads();
    return this.refreshing;
  }

  /** A server whose lists changed again within the interval: the next read waits twice as long (to MAX_RELIST_MS), and a storm is logged once. */
  private slowRelisting(changes: number): void {
    if (this.relistMs >= MAX_RELIST_MS) return;
    this.relistMs = Math.min(this.relistMs * 2, MAX_RELIST_MS);
    if (this.relistMs < 4 * MIN_RELIST_MS || this.stormLogged) return;
    this.stormLogged = true;
    this.options.logger.warn(
      { relistMs: this.relistMs },
      `the server keeps saying its lists changed (list_changed notifications; ${changes.toLocaleString('en-US')} came before the last read): while it goes on its lists are read less often, at most every ${MAX_RELIST_MS / 1000} s, the last change always read (docs/config.md, "limits")`,
    );
  }

  private async readListingAgain(): Promise<void> {
    const client = this.client;
    if (!client || this.state !== 'ready') return;
    try {
      const listing = await this.own(readListing(client, this.listingOptions(), this.options.logger));
      // Restarted meanwhile: the new connection's own listing stands.
      if (client !== this.client) return;
      this.listing = listing;
      this.options.onChange();
    } catch (error) {
      this.options.logger.warn({ err: errorMessage(error) }, 'could not refresh the server listing');
    }
  }

  /** What one list of this server may take (docs/config.md, "limits"). */
  private listingOptions(): { timeoutMs: number; maxBytes: number; server: string } {
    return { timeoutMs: this.options.connectTimeoutMs, maxBytes: this.options.maxMessageBytes, server: this.options.name };
  }

  /** Calls still waiting on a closed connection fail now ("stopped while the call was running"), not at their timeout. */
  private dropDirect(why: string | null = null, stoppedFor: string | null = null): void {
    this.direct?.closeAll(why, stoppedFor);
    this.direct = null;
  }

  private connectedClient(): Client {
    if (!this.client || this.state !== 'ready') throw new LatchError('SERVER_UNAVAILABLE', this.unavailableReason());
    return this.client;
  }

  /** Forwards one tools/call; spends the permit the call pipeline issued for exactly this call. The result is checked upstream. */
  callTool(permit: Permit, name: string, args: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined, options: DirectCallOptions, answers?: ServerAnswers): Promise<unknown> {
    // Not async: this runs on every call.
    try {
      this.options.permits.spend(permit, this.name, name, args);
      const params = callParams(name, args, meta, answers);
      const send = () => this.directCalls().call(params, options);
      return this.remote ? this.sendRemote(send, options.timeout) : send();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * callTool with its answer passed to `settle` instead of a promise (docs/performance.md, "Round 8"),
   * for a server that is not `remote` (a remote one's call may be sent again on a new session).
   */
  callToolNow(permit: Permit, name: string, args: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined, options: DirectCallOptions, settle: CallSettle, argsJson?: ArgsJson): void {
    let direct: DirectCalls;
    try {
      this.options.permits.spend(permit, this.name, name, args);
      if (this.remote) throw internalError('a remote server was called without a promise');
      direct = this.directCalls();
    } catch (error) {
      settle.reject(error);
      return;
    }
    // Without a _meta of the client's to pass on, the call's line is made from the arguments' text (direct-calls.ts).
    direct.send(callParams(name, args, meta, undefined), options, settle, meta === undefined && args !== undefined ? argsJson?.textOf(args) : undefined);
  }

  /** The shell warm-up's read of this server's transport, as a call reads it first (DirectCalls.overUnreadLimit); nothing when it is not ready. */
  warmUpDirect(): void {
    if (this.direct && this.state === 'ready') this.direct.overUnreadLimit();
  }

  private directCalls(): DirectCalls {
    if (!this.direct || this.state !== 'ready') throw new LatchError('SERVER_UNAVAILABLE', this.unavailableReason());
    return this.direct;
  }

  /** Forwards one resources/read; spends its permit. */
  async readResource(permit: Permit, uri: string, options: RequestOptions, lingers?: Lingers): Promise<ReadResourceResult> {
    this.options.permits.spend(permit, this.name, 'resources/read', uri);
    const read = await this.request('resources/read', uri, () => this.lingering(options, lingers, () => this.connectedClient().request({ method: 'resources/read', params: { uri } }, answerSchemas().readWithoutContents, options)), options);
    return { ...read, contents: this.checkedEntries('resources/read', uri, this.listIn(read, 'resources/read', uri, 'contents'), 'contents', answerSchemas().resourceContentsEntry) };
  }

  async getPrompt(name: string, args: Record<string, string> | undefined, options: RequestOptions, lingers?: Lingers): Promise<GetPromptResult> {
    const got = await this.request('prompts/get', name, () => this.lingering(options, lingers, () => this.connectedClient().request({ method: 'prompts/get', params: { name, ...(args ? { arguments: args } : {}) } }, answerSchemas().promptWithoutMessages, options)), options);
    return { ...got, messages: this.checkedEntries('prompts/get', name, this.listIn(got, 'prompts/get', name, 'messages'), 'messages', PromptMessageSchema) };
  }

  /**
   * The answer's list of entries; throws when there is none. A server's `input_required` there is
   * refused by name: the gateway relays a 2026-07-28 server's questions only in tools/call
   * (docs/approval.md, "Not yet"), and passed on it read as the gateway's own prompt (round 19
   * review of the 2026-07-28 path, F1).
   */
  private listIn(answer: Record<string, unknown>, method: string, subject: string, key: string): unknown[] {
    const list = answer[key];
    const asksForInput = answer.resultType === 'input_required';
    if (Array.isArray(list) && !asksForInput) return list;
    const invalid = invalidAnswer(this.name, method, subject, asksForInput ? 'it asked for input (input_required), which mcp-latch relays only in tools/call' : `${key}: expected array, received undefined`);
    this.warnInvalidAnswer(invalid);
    throw invalid;
  }

  /** An answer's list of entries checked one by one (answer-entries.ts); throws the -32603 the client gets when one is refused or the list is past its limits. */
  private checkedEntries<T>(method: string, subject: string, entries: unknown[], key: string, schema: EntrySchema<T>): T[] {
    const checked = checkEntries(entries, key, schema);
    if ('entries' in checked) return checked.entries;
    const invalid = checked.tooMany
      ? new InvalidAnswer(ErrorCode.InternalError, `mcp-latch: the answer of server "${escapeText(this.name)}" to ${method} "${escapeText(subject)}" was dropped: ${checked.problem} (docs/config.md, "limits").`)
      : invalidAnswer(this.name, method, subject, checked.problem);
    this.warnInvalidAnswer(invalid);
    throw invalid;
  }

  async complete(params: CompleteRequest['params'], options: RequestOptions, lingers?: Lingers): Promise<CompleteResult> {
    return this.request('completion/complete', null, () => this.lingering(options, lingers, () => this.connectedClient().request({ method: 'completion/complete', params }, CompleteResultSchema, options)), options);
  }

  /**
   * A request of the SDK Client's whose origin lingers, as a tools/call's does, when it is given up
   * (cancelled, timed out) before the server answered (DirectCalls.clientRequest; docs/team.md, "What
   * shared servers send back").
   */
  private lingering<T>(options: RequestOptions, lingers: Lingers | undefined, send: () => Promise<T>): Promise<T> {
    const direct = this.direct;
    return lingers && direct ? direct.clientRequest(send, options.timeout ?? DEFAULT_REQUEST_TIMEOUT_MSEC, lingers) : send();
  }

  async subscribe(uri: string, subscribe: boolean): Promise<void> {
    const method = subscribe ? 'resources/subscribe' : 'resources/unsubscribe';
    await this.request(method, uri, () => this.connectedClient().request({ method, params: { uri } }, EmptyResultSchema), {});
  }

  /**
   * One request through the SDK Client (`subject`: its resource or prompt, for errors); a remote one
   * is sent again on a new session when its session ended.
   */
  private async request<T>(method: string, subject: string | null, send: () => Promise<T>, options: RequestOptions): Promise<T> {
    try {
      return await (this.remote ? this.onNewSessionIfGone(send, options.timeout ?? DEFAULT_REQUEST_TIMEOUT_MSEC) : send());
    } catch (error) {
      // An answer the SDK Client's schema refused: the server's fault, told in one line.
      const problem = schemaProblem(error);
      if (problem !== null) {
        const invalid = invalidAnswer(this.name, method, subject, problem);
        this.warnInvalidAnswer(invalid);
        throw invalid;
      }
      // The server's own error, passed on escaped; a URLElicitationRequiredError's questions never (server-error.ts).
      throw serverError(this.name, error) ?? asRpcError(error);
    }
  }

  /**
   * One warning a server per TRANSPORT_WARN_MS, the next one counting those held back (debug lines):
   * a server's stray messages (responses to ids it was never sent, progress for tokens it was not
   * given) were one warning each, 66,666 lines and 18 MB on stderr for one call (round 13 review R7).
   */
  private warnTransportError(err: string): void {
    const now = performance.now();
    if (now - this.transportWarnedAt < TRANSPORT_WARN_MS) {
      this.transportHeldBack += 1;
      this.options.logger.debug({ err }, 'server transport error');
      return;
    }
    const more = this.transportHeldBack;
    this.transportWarnedAt = now;
    this.transportHeldBack = 0;
    this.options.logger.warn({ err, ...(more > 0 ? { heldBack: more } : {}) }, `server transport error${more > 0 ? ` (${more.toLocaleString('en-US')} more since the last warning, at debug level)` : ''}`);
  }

  /** The server's answer was refused by the MCP schema: the client gets `error`, and the log says so too. */
  warnInvalidAnswer(error: InvalidAnswer): void {
    this.options.logger.warn({ err: error.message }, 'answer refused by the MCP schema');
  }

  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    if (!this.serverCapabilities?.logging || !this.client) return;
    await this.own(this.client.request({ method: 'logging/setLevel', params: { level } }, EmptyResultSchema)).catch(() => undefined);
  }

  /** Counts `request`, one of the gateway's own, as in flight until it settles. */
  private async own<T>(request: Promise<T>): Promise<T> {
    this.ownRequestsInFlight++;
    try {
      return await request;
    } finally {
      this.ownRequestsInFlight--;
    }
  }

  async sendRootsListChanged(): Promise<void> {
    await this.client?.sendRootsListChanged().catch(() => undefined);
  }

  /**
   * Stops for good: no restart; the process tree is closed. `reason`: why, when a config reload
   * stops it (registry.ts apply), told to the calls it was running and to those that come after:
   * until round 31 they were told only "stopped while the call was running" or "is stopped".
   */
  async stop(reason: string | null = null): Promise<void> {
    this.stopping = true;
    this.stoppedFor = reason;
    this.generation += 1;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const client = this.client;
    this.client = null;
    this.dropDirect(null, reason);
    this.state = 'stopped';
    this.dropConnection = null;
    if (client) client.onclose = undefined;
    this.settle();
    // A server still starting (a slow boot, a handshake never answered) is closed too: nothing else would.
    this.handshake?.abort(new Error(`server "${this.name}" is stopping`));
    await client?.close().catch(() => undefined);
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([this.attempting, new Promise<void>((resolve) => (waited = setTimeout(resolve, ABORTED_START_WAIT_MS).unref()))]);
    clearTimeout(waited);
  }
}

/** A tools/call's params, built without spreads of temporary objects: this runs on every call. */
function callParams(name: string, args: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined, answers: ServerAnswers | undefined): Record<string, unknown> {
  const params: Record<string, unknown> = { name };
  if (args !== undefined) params.arguments = args;
  if (meta) params._meta = meta;
  if (answers) Object.assign(params, answers);
  return params;
}
