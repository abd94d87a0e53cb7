import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, type ClientCapabilities, type ElicitResult, type ListRootsResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_OPEN_ROOTS, MAX_OPEN_SAMPLING, MAX_SERVER_QUESTIONS } from '../config/limits.js';
import type { RelayHooks } from '../downstream/connect.js';
import { errorMessage, RpcError } from '../errors.js';
import type { Logger } from '../log.js';
import { decide } from '../policy/decide.js';
import { inspectResourceRead, lazyDigest } from '../subjects/inspect.js';
import { escapeStrings, escapeText } from '../latch/escape.js';
import type { GatewayCore } from './core.js';
import type { CallOrigin } from './running-calls.js';
import { LOG_MESSAGES_PER_SECOND, LogRate } from './log-rate.js';
import { markedSampling } from './sampling.js';
import { RESOURCE_UPDATES_PER_SECOND, UpdateRate } from './update-rate.js';
import { shownQuestion, urlQuestionProblem } from './server-input.js';
import { resolvedHostProblem } from './url-host.js';
import { head } from '../code-points.js';

/** What servers shared by many clients (HTTP) may ask: each request goes to the session whose call it serves, if that client can answer it. */
export const SHARED_SERVER_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} } };

/** Where one message of a server goes: a client session (on the response stream of the call it serves; `session` when known), or nowhere, and why. */
type Target = { client: Server; options: RequestOptions; session?: string; hold?: CallOrigin['hold']; holdRoots?: CallOrigin['holdRoots'] } | { refused: string };

/**
 * A server's own requests and notifications, passed up to the client (docs/design.md#the-gateway-as-a-proxy). Its elicitation is
 * shown with the server's name first, because the client shows the gateway as the one asking.
 *
 * A 2026-07-28 client is sent no request: its call's `hold` keeps the elicitation for its retry (input-required.ts).
 *
 * A request or log message goes to the session whose call is running on that server (running-calls.ts).
 * With one client (`client()`, stdio) everything goes to it. With servers shared by many clients
 * (HTTP, `client()` null) a request goes to a session only when it can be placed there
 * (docs/team.md#what-shared-servers-send-back); otherwise an elicitation, sampling or roots
 * request is refused with an error (never a "decline" the person did not give), a log message kept in the gateway's log, as one person's question or data must
 * never reach another:
 * the requests in flight on the server must all be one session's (running-calls.ts), and none of
 * the gateway's own (its lists, logging/setLevel: Supervisor.ownRequestsInFlight) may be among them.
 * Nothing on the wire places a server's request otherwise: the SDK's `relatedRequestId` only picks
 * the HTTP response stream and the SDK client does not pass it on, stdio has one stream, and a
 * server's request carries no progress token of the call (docs/team.md).
 * A log message below the level its session set is not sent (log-levels.ts). A resource update goes to the
 * sessions subscribed to it (subscriptions.ts).
 */
export function createRelayHooks(core: GatewayCore, client: () => Server | null): RelayHooks {
  const refused = refusalLog(() => core.logger);
  const logRate = new LogRate();
  const updateRate = new UpdateRate((name, client, kept, held) => {
    core.logger.warn({ server: name, held, limit: RESOURCE_UPDATES_PER_SECOND }, `held back ${held.toLocaleString('en-US')} resource update notifications of server ${escapeText(name)} in the last second, past the ${RESOURCE_UPDATES_PER_SECOND} a second it relays of one server to a client (RESOURCE_UPDATES_PER_SECOND; docs/config.md, "limits"): the ${kept.length.toLocaleString('en-US')} resource(s) subscribed to that they are under are told updated once each`);
    for (const uri of kept) void client.sendResourceUpdated({ uri }).catch(() => undefined);
  });
  /** A second's log messages of `name` dropped past the rate: in the gateway's log, and told to the session they were for, as a warning of mcp-latch's own. */
  const logsDropped = (name: string, to: Exclude<Target, { refused: string }>, dropped: number): void => {
    const text = `mcp-latch dropped ${dropped.toLocaleString('en-US')} log messages of server ${escapeText(name)} in the last second, past the ${LOG_MESSAGES_PER_SECOND} a second it relays of one server (LOG_MESSAGES_PER_SECOND; docs/config.md, "limits")`;
    core.logger.warn({ server: name, dropped, limit: LOG_MESSAGES_PER_SECOND }, text);
    if (to.session !== undefined && !core.logLevels.wants(to.session, 'warning')) return;
    void to.client.notification({ method: 'notifications/message', params: { level: 'warning', logger: 'mcp-latch', data: text } }, to.options).catch(() => undefined);
  };
  const target = (name: string): Target => {
    const one = client();
    const callers = core.running.callers(name);
    const [origin] = callers;
    if (callers.length > 1) return { refused: `calls of ${callers.length} client sessions are running on ${name} and nothing tells which one this is for` };
    if (origin) {
      if (!one && (core.registry.get(name)?.ownRequestsInFlight ?? 0) > 0) return { refused: `a request of the gateway itself is in flight on ${name} besides a client's call, and nothing tells which one this is for` };
      return { client: origin.client, options: { relatedRequestId: origin.requestId }, session: origin.session, ...(origin.hold ? { hold: origin.hold } : {}), ...(origin.holdRoots ? { holdRoots: origin.holdRoots } : {}) };
    }
    return one ? { client: one, options: {} } : { refused: `no call of a client session is running on ${name}, and the server is shared by several clients` };
  };
  /** The session for a sampling or roots request, which its client declared it answers; else the server's request fails, saying why. */
  const reached = (name: string, what: 'sampling' | 'roots'): Exclude<Target, { refused: string }> => {
    const to = target(name);
    if (!('refused' in to) && to.client.getClientCapabilities()?.[what]) return to;
    // A 2026-07-28 client (no initialize) answers a server's requests only inside a call of its own, as input_required (2026-07-28 client/roots, basic/patterns/mrtr): one outside its calls has nowhere to go.
    const why = 'refused' in to ? to.refused : to.client.getClientVersion() === undefined ? modernRefusal(what, name, core.running.callers(name).length > 0) : `the client of this call does not support ${what}`;
    refused(name, `${what === 'roots' ? 'roots/list' : what} requests`, { why }, `refused the ${what} request of a server`);
    throw new RpcError(ErrorCode.InvalidRequest, `mcp-latch cannot relay this request: ${why}`);
  };
  const questions = new Map<string, { turn: Promise<unknown>; waiting: number }>();
  /** Each server's sampling requests open now; the servers whose includeContext was already logged. */
  const sampling = new Map<string, number>();
  const contextLogged = new Set<string>();
  /** Each server's roots/list requests open now; the servers whose refusals were logged since they last had none open. */
  const rootsOpen = new Map<string, number>();
  const rootsRefusalLogged = new Set<string>();
  /**
   * Each server's last roots/list to a client, open or answered (`at`: when; null while open), and
   * the client's roots generation it was asked in: what the server's next ones are answered from
   * (ROOTS_REUSE_MS). While open, `waiting` of the server's requests wait for it, each ended by its
   * own cancellation, and `stop` cancels it when none waits any longer.
   */
  const rootsAsked = new Map<string, { client: Server; generation: number; at: number | null; answer: Promise<ListRootsResult>; waiting: number; stop: AbortController }>();
  /**
   * The client's roots for a server's roots/list: the answer to the server's last one when that is
   * still open or came under ROOTS_REUSE_MS ago, from the same client, its roots unchanged since (no
   * roots/list_changed); else the client is asked. A server asking in a loop had each one relayed to
   * the client, ~1,000 a second (round 28 review, P28-5). The question to the client is not the
   * first asker's: its cancellation ended the question and failed every request answered from it
   * (round 30 review, P30-2).
   */
  const askRoots = (name: string, to: Exclude<Target, { refused: string }>, signal: AbortSignal | undefined): Promise<ListRootsResult> => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const generation = core.clientRootsGeneration;
    const last = rootsAsked.get(name);
    if (last && last.client === to.client && last.generation === generation && !last.stop.signal.aborted) {
      if (last.at !== null && performance.now() - last.at < ROOTS_REUSE_MS) return last.answer;
      if (last.at === null) return waitFor(last, signal);
    }
    const stop = new AbortController();
    const asked = { client: to.client, generation, at: null as number | null, answer: to.client.listRoots(undefined, { ...to.options, signal: stop.signal, timeout: 30_000 }), waiting: 0, stop };
    rootsAsked.set(name, asked);
    asked.answer.then(
      () => (asked.at = performance.now()),
      () => rootsAsked.get(name) === asked && rootsAsked.delete(name),
    );
    return waitFor(asked, signal);
  };
  /** One request's wait for an open roots/list of the client's: its own cancellation ends it, and the question when no other waits. */
  const waitFor = (asked: { answer: Promise<ListRootsResult>; waiting: number; stop: AbortController }, signal: AbortSignal | undefined): Promise<ListRootsResult> => {
    asked.waiting += 1;
    if (!signal) return asked.answer;
    return new Promise((resolve, reject) => {
      const leave = (): void => {
        asked.waiting -= 1;
        reject(signal.reason);
        if (asked.waiting === 0) asked.stop.abort(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      asked.answer.then(
        (answer) => {
          signal.removeEventListener('abort', leave);
          resolve(answer);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', leave);
          reject(error);
        },
      );
    });
  };
  return {
    async elicit(name, params, signal): Promise<ElicitResult> {
      const to = target(name);
      // Refused with an error, not answered "decline": that would tell the server the person said no
      // to a question nobody saw (round 14 review Q1).
      if ('refused' in to) {
        refused(name, 'elicitation requests', { why: to.refused }, 'refused the elicitation request of a server');
        throw new RpcError(ErrorCode.InvalidRequest, `mcp-latch cannot relay this request: ${to.refused}`);
      }
      // A server's questions reach the person one at a time, at most MAX_SERVER_QUESTIONS waiting,
      // per session (round 13 review R15: 2,000 at once were all put before the person); held ones
      // for a 2026-07-28 client count too (round 19 review of the 2026-07-28 path, F3). Counted
      // before anything is checked: a URL-mode question's host lookup is part of its wait, and one
      // past the limit starts none (round 22; before, each started one and was refused only after it).
      const key = `${name}\u0000${to.session ?? ''}`;
      const queue = questions.get(key) ?? { turn: Promise.resolve(), waiting: 0 };
      if (queue.waiting >= MAX_SERVER_QUESTIONS) {
        const why = `${MAX_SERVER_QUESTIONS} of its questions are waiting for the person already (the limit)`;
        refused(name, 'questions past the limit', { limit: MAX_SERVER_QUESTIONS }, `refused a question of a server: ${why}`);
        throw new RpcError(ErrorCode.InvalidRequest, `mcp-latch cannot relay this request: ${why}`);
      }
      queue.waiting += 1;
      questions.set(key, queue);
      try {
        // A value the answer sends back that cannot be shown safely: refused, naming the server (docs/approval.md).
        // A URL-mode question only to https hosts other than this machine: it must not pass as mcp-latch's own page (server-input.ts urlQuestionProblem).
        // Its host resolved too: a name whose addresses are this machine's is refused as 127.0.0.1 is (url-host.ts; round 21).
        const shown = params.mode === 'url' ? (urlQuestionProblem(params) ?? (await resolvedHostProblem(params.url, undefined, core.config().approval.localUrlNetworks, name)) ?? shownQuestion(name, params)) : shownQuestion(name, params);
        if (typeof shown === 'string') {
          refused(name, 'elicitation requests', { why: shown }, 'refused the elicitation request of a server');
          throw new RpcError(ErrorCode.InvalidRequest, `mcp-latch cannot relay this request of ${name}: ${shown}`);
        }
        const ask = (): Promise<ElicitResult> => {
          if (signal?.aborted) return Promise.resolve({ action: 'cancel' });
          return to.client.elicitInput(shown, { ...to.options, signal, timeout: core.config().approval.timeoutSeconds * 1000 });
        };
        // A 2026-07-28 client is sent no request: its call answers input_required with the question (input-required.ts).
        if (to.hold) return await to.hold(shown, signal);
        const asked = queue.turn.then(ask);
        queue.turn = asked.catch(() => undefined);
        return await asked;
      } finally {
        queue.waiting -= 1;
        if (queue.waiting === 0 && questions.get(key) === queue) questions.delete(key);
      }
    },
    async sample(name, params, signal) {
      const to = reached(name, 'sampling');
      // At most MAX_OPEN_SAMPLING open per server (docs/config.md, "limits"; round 17 review of hostile servers, 4: 500 at once).
      const open = sampling.get(name) ?? 0;
      if (open >= MAX_OPEN_SAMPLING) {
        const why = `${open} of its sampling requests are open already (the limit is ${MAX_OPEN_SAMPLING} per server)`;
        refused(name, 'sampling requests past the limit', { limit: MAX_OPEN_SAMPLING }, `refused a sampling request of a server: ${why}`);
        throw new RpcError(ErrorCode.InvalidRequest, `mcp-latch cannot relay this request of ${name}: ${why}`);
      }
      const marked = markedSampling(name, params);
      if (marked.includeContext !== params.includeContext && !contextLogged.has(name)) {
        contextLogged.add(name);
        core.logger.warn({ server: name, includeContext: params.includeContext }, 'a server asked the client to include conversation context in its sampling request; sent as "none" (docs/threat-model.md)');
      }
      sampling.set(name, open + 1);
      try {
        return await to.client.createMessage(marked, { ...to.options, signal, timeout: core.config().timeouts.callSeconds * 1000 });
      } finally {
        const left = (sampling.get(name) ?? 1) - 1;
        if (left === 0) sampling.delete(name);
        else sampling.set(name, left);
      }
    },
    async listRoots(name, signal) {
      // A 2026-07-28 client's call: held for its retry, whose roots are noted before the server gets them (input-required.ts resumeHeld).
      const call = target(name);
      const held = !('refused' in call) && call.holdRoots ? call.holdRoots : null;
      const to = held ? null : reached(name, 'roots');
      // At most MAX_OPEN_ROOTS open per server (docs/config.md, "limits"; round 21 review, review-diff21 R5: 200,000 at once, 1.7 GB),
      // held ones too: each waits in its call for the client's retry (review-proto21 P2: 200,000 held, 53 -> 601 MB).
      const open = rootsOpen.get(name) ?? 0;
      if (open >= MAX_OPEN_ROOTS) {
        const why = `${open} of its roots/list requests are open already (the limit is ${MAX_OPEN_ROOTS} per server)`;
        // Logged once until none is open: a flood is thousands a second.
        if (!rootsRefusalLogged.has(name)) core.logger.warn({ server: name, limit: MAX_OPEN_ROOTS }, `refused roots/list requests of a server: ${why}`);
        rootsRefusalLogged.add(name);
        throw new RpcError(ErrorCode.InvalidRequest, `mcp-latch cannot relay this request of ${name}: ${why}`);
      }
      rootsOpen.set(name, open + 1);
      let answer: ListRootsResult;
      try {
        if (held) return await held(signal);
        answer = await askRoots(name, to!, signal);
      } finally {
        const left = (rootsOpen.get(name) ?? 1) - 1;
        if (left === 0) {
          rootsOpen.delete(name);
          rootsRefusalLogged.delete(name);
        } else rootsOpen.set(name, left);
      }
      // What the server resolves relative paths against from now on, whatever the gateway's own request got (core.ts noteServerRoots).
      core.noteServerRoots(name, answer.roots.map((root) => root.uri));
      return answer;
    },
    onLog(name, params) {
      const to = target(name);
      if ('refused' in to) {
        core.logger.debug({ server: name, level: params.level, data: params.data, why: to.refused }, 'log message of a server');
        return;
      }
      // The server logs at the most detailed level any session asked for; this session gets only what it asked for.
      if (to.session !== undefined && !core.logLevels.wants(to.session, params.level)) return;
      // At most LOG_MESSAGES_PER_SECOND of a server to a session; the rest counted, and the count told (log-rate.ts).
      if (!logRate.takes(name, to.session, (dropped) => logsDropped(name, to, dropped))) return;
      // Clients print log messages beside the gateway's own (logger `mcp-latch`): the server's logger
      // and data escaped, as its errors are (round 25 review R10: `\r` and an erase-line made a logger read `mcp-latch`).
      const logger = escapeText(params.logger ? `${name}/${params.logger}` : name);
      void to.client
        .notification({ method: 'notifications/message', params: { ...params, logger, data: escapeStrings(params.data) } }, to.options)
        .catch((error: unknown) => core.logger.debug({ err: errorMessage(error) }, 'could not relay a log message'));
    },
    onResourceUpdated(name, uri) {
      // A sub-resource is named only when a read of it would be allowed; else the resource subscribed to is told (round 32 review P32-1).
      let readable: boolean | undefined;
      const told = (subscribed: string): string => (uri === subscribed || (readable ??= readAllowed(core, name, uri)) ? uri : subscribed);
      // At most RESOURCE_UPDATES_PER_SECOND of a server to a client; past it, the resource subscribed to is told once when the second ends (update-rate.ts).
      for (const [client, subscribed] of core.subscriptions.subscriptionsOf(name, uri)) if (updateRate.takes(name, client, subscribed)) void client.sendResourceUpdated({ uri: told(subscribed) }).catch(() => undefined);
    },
    onListChanged(name) {
      void core.registry.get(name)?.refresh();
    },
  };
}

/**
 * Whether the rules and the mode allow a read of `uri` on `server` (no session's grants: the update
 * goes to every session subscribed): a server's update of a sub-resource names it to the client only
 * then. Under a subscribed `file:///w/` a server's update named `file:///w/private/key` past
 * `deny: Read(/w/private/**)`, the file a read of which is refused (round 32 review P32-1); the spec
 * lets an update name the resource subscribed to instead. Checked after the rate (update-rate.ts),
 * at most RESOURCE_UPDATES_PER_SECOND a second per client.
 */
function readAllowed(core: GatewayCore, server: string, uri: string): boolean {
  try {
    return decide(inspectResourceRead(server, uri, core.inspectContext(), lazyDigest(server, 'resources/read', { uri })), core.policy()).verdict === 'allow';
  } catch {
    return false; // Fail closed: the resource subscribed to is told.
  }
}

/** Why a 2025 server's sampling or roots request does not reach a 2026-07-28 client (it has no handshake, so it is sent no request; held-calls.ts holds roots within its calls). */
function modernRefusal(what: 'sampling' | 'roots', name: string, during: boolean): string {
  if (!during) return `the client speaks MCP 2026-07-28, which answers ${what} requests only within a call of its own (as input_required), and no call of it is running on ${name}`;
  return what === 'roots' ? 'the client of this call did not declare roots' : 'mcp-latch does not pass a 2025 server\'s sampling requests on to a 2026-07-28 client';
}

/**
 * How long a client's answer to a server's roots/list answers that server's next ones, the client's
 * roots unchanged (it sent no roots/list_changed since): a server asking in a loop had each relayed
 * to the client, ~1,000 a second (round 28 review, P28-5).
 */
export const ROOTS_REUSE_MS = 1_000;

/** How long, after a warning that the relay refused a server's request, more of the same kind go to the log at debug level only (refusalLog). */
export const REFUSAL_WARN_MS = 10_000;

/** The longest `why` a refusal's log record keeps: a form's unshowable value is the server's text, of any length. */
const MAX_LOGGED_WHY = 1_000;

/**
 * The log of the server requests the relay refuses: the first of a kind of a server at warn; the
 * rest of that kind for REFUSAL_WARN_MS at debug, then one warning with their count. A server's
 * flood was one warning each: 20,000 sampling requests past the limit wrote 20,000 lines, 3.9 MB,
 * to the log clients keep (round 26 review P3). Roots' flood has its own (listRoots).
 */
function refusalLog(logger: () => Logger): (server: string, kind: string, fields: { why?: string; limit?: number }, message: string) => void {
  const windows = new Map<string, { more: number }>();
  return (server, kind, fields, message) => {
    const record = { server, ...fields, ...(fields.why !== undefined && fields.why.length > MAX_LOGGED_WHY ? { why: `${head(fields.why, MAX_LOGGED_WHY)}… (${(fields.why.length - head(fields.why, MAX_LOGGED_WHY).length).toLocaleString('en-US')} more characters)` } : {}) };
    const key = `${server}\u0000${kind}`;
    const window = windows.get(key);
    if (window) {
      window.more += 1;
      logger().debug(record, message);
      return;
    }
    logger().warn(record, message);
    const opened = { more: 0 };
    windows.set(key, opened);
    setTimeout(() => {
      windows.delete(key);
      if (opened.more > 0) logger().warn({ server, refused: opened.more }, `refused ${opened.more.toLocaleString('en-US')} more ${kind} of ${server} in the ${REFUSAL_WARN_MS / 1000} s after the warning above (each at debug level)`);
    }, REFUSAL_WARN_MS).unref();
  };
}
