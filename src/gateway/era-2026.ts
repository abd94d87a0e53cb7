import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, ElicitRequestFormParams, ElicitResult, Implementation, JSONRPCMessage, RequestId, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { CAPABILITIES_KEY, CLIENT_INFO_KEY, MODERN_VERSIONS, SERVER_INFO_KEY, VERSION_KEY } from '../mcp-2026.js';
import { isPlainObject } from '../values.js';
import type { LineSending } from '../downstream/lines.js';
import { acknowledged, isChange, listenFilter, ListenedResources, listens, onListen, type ListenFilter } from './listen.js';

/**
 * MCP 2026-07-28 ("modern") beside the 2025 era the SDK Server speaks. A modern client sends no
 * `initialize`: every request carries its protocol version, client info and capabilities in
 * `_meta`, it may probe with `server/discover`, and a server must not send it requests (no
 * `elicitation/create` mid-call): a call that needs a person answers `resultType: "input_required"`
 * with the prompt as a named input request and an opaque `requestState`, and the client calls
 * again with the same arguments plus `inputResponses` and the state.
 *
 * `ModernWire` sits on the upstream transport, outside the SDK Server and UpstreamCalls: it answers
 * `server/discover`, refuses a modern version it does not speak (-32022, naming the ones it does),
 * and stamps what this revision requires on the results of modern requests (`resultType`, and
 * `ttlMs`/`cacheScope` on cacheable results: 0 and private, so nothing is cached; a server's own
 * values for these keys are not passed on, completeResult). Requests without
 * the envelope pass untouched: a 2025 client sees the gateway exactly as before.
 */
const FIRST_MODERN_VERSION = '2026-07-28';
/** JSON-RPC's Invalid Request. */
const INVALID_REQUEST = -32600;
/** UnsupportedProtocolVersionError of 2026-07-28. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Results a modern client may cache: they must say for how long. */
const CACHEABLE = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);
/** The `subscriptions/listen` requests a stdio client may hold open at once. */
export const MAX_OPEN_LISTENS = 16;
/** JSON-RPC's Invalid Params. */
const INVALID_PARAMS = -32602;
/** The key of the gateway's approval prompt in `inputRequests` / `inputResponses`. */
const APPROVAL_INPUT = 'mcp-latch/approval';

/** What a modern request says about its client. */
export interface Envelope {
  version: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation | null;
}

/** The `_meta` key of 2026-07-28 naming the least severe log level a request's log messages may have. */
const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';
/** debug (0) … emergency (7), the order of the MCP spec. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The severity a request asked its log messages to have at least; null when it named none (then it is sent none). */
export function requestedLogLevel(params: unknown): number | null {
  const meta = isPlainObject(params) && isPlainObject(params._meta) ? params._meta : {};
  const index = LOG_LEVELS.indexOf(String(meta[LOG_LEVEL_KEY]));
  return index < 0 ? null : index;
}

export interface ModernServerInfo {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
}

function isModernVersion(version: string): boolean {
  return version >= FIRST_MODERN_VERSION;
}

/** The modern envelope of a request's params; null for a 2025-era request (no version claim, or an older one). */
export function envelopeOf(params: unknown): Envelope | null {
  const meta = isPlainObject(params) ? params._meta : undefined;
  if (!isPlainObject(meta) || typeof meta[VERSION_KEY] !== 'string' || !isModernVersion(meta[VERSION_KEY])) return null;
  return {
    version: meta[VERSION_KEY],
    capabilities: isPlainObject(meta[CAPABILITIES_KEY]) ? (meta[CAPABILITIES_KEY] as ClientCapabilities) : {},
    clientInfo: isPlainObject(meta[CLIENT_INFO_KEY]) ? (meta[CLIENT_INFO_KEY] as Implementation) : null,
  };
}

/** `_meta` without the envelope's reserved keys: what is forwarded to a server the gateway speaks 2025 to. */
export function withoutEnvelope(meta: Record<string, unknown>): Record<string, unknown> {
  const { [VERSION_KEY]: _version, [CLIENT_INFO_KEY]: _info, [CAPABILITIES_KEY]: _capabilities, ...rest } = meta;
  return rest;
}

/** Whether the client can show a form prompt (in 2025-06-18 an empty `elicitation` meant form). */
export function canShowForm(capabilities: ClientCapabilities): boolean {
  const elicitation = capabilities.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** The answer to the gateway's prompt (or to the input request under `key`) in a retry's `inputResponses`, if it has the shape of one. */
export function approvalResponse(inputResponses: unknown, key = APPROVAL_INPUT): ElicitResult | null {
  const response = isPlainObject(inputResponses) ? inputResponses[key] : undefined;
  if (!isPlainObject(response) || typeof response.action !== 'string') return null;
  if (response.content !== undefined && !isPlainObject(response.content)) return null;
  return response as ElicitResult;
}

/**
 * The `input_required` results the gateway made. Only these reach a 2026-07-28 client as such: a
 * server's result holding `resultType: "input_required"` would otherwise pass as the gateway's own
 * prompt, unescaped, under its keys (round 19 review of the 2026-07-28 path, F1).
 */
const OWN_INPUT_REQUIRED = new WeakSet<object>();

/** An `input_required` result of the gateway's own: the input requests it built, and its sealed state. */
export function ownInputRequired(inputRequests: Record<string, unknown>, requestState: string): Record<string, unknown> {
  const result = { resultType: 'input_required', inputRequests, requestState };
  OWN_INPUT_REQUIRED.add(result);
  return result;
}

/** The result that pauses a call: the prompt as one input request, the pending call in the state. */
export function inputRequiredResult(prompt: ElicitRequestFormParams, requestState: string): Record<string, unknown> {
  return ownInputRequired({ [APPROVAL_INPUT]: { method: 'elicitation/create', params: prompt } }, requestState);
}

export class ModernWire {
  /** Modern requests not yet answered: id → method. */
  private readonly open = new Map<RequestId, string>();
  /** The log level each open modern request named (`io.modelcontextprotocol/logLevel`), as a severity; absent: it named none. */
  private readonly logLevels = new Map<RequestId, number>();
  /** The last envelope a modern request brought (for what the gateway shows of its client). */
  lastEnvelope: Envelope | null = null;
  /** The transport's own send: an answer that must not end an open request's entry (take). */
  private readonly sendUnstamped: Transport['send'];
  /** The client sent `initialize`: the session is of the handshake era, whatever a request's `_meta` says later (legacyRequest). */
  private legacy = false;
  /** Open `subscriptions/listen` requests (stdio): id → what each opted in to. */
  private readonly listening = new Map<RequestId, ListenFilter>();
  /** The resources open listens name: the session is subscribed to each while any does. */
  private readonly watched = new ListenedResources();
  /**
   * Requests cancelled under the id 0 or "" whose answer may still come: the SDK's Protocol takes no
   * cancel of a falsy id (`_oncancel`: `if (!notification.params.requestId) return`) and answers the
   * request anyway, and with its entry in `open` gone the answer went out unstamped, a server's
   * caching hints in it (round 31 review, P31-2). Its answer is dropped here (a cancelled request
   * gets none); the mark ends with it or with the id's next request. At most two: 0 and "".
   */
  private readonly answerDropped = new Set<RequestId>();
  /** Told of each listen opened, with what it opted in to (upstream-session.ts listening: the lists it follows). */
  onlisten?: (filter: ListenFilter) => void;
  /**
   * Subscribes the session to a resource a listen names (`subscribe`), with its first listen naming
   * it, or unsubscribes it with its last (upstream-session.ts subscribeTo). Called directly, not as a
   * request through the SDK Server: docs/design.md, "The gateway as a proxy".
   */
  onsubscription?: (uri: string, subscribe: boolean, listen: RequestId) => void;

  /** Attach after the SDK Server and UpstreamCalls: it sees each message first and each answer last. */
  constructor(
    private readonly transport: Transport,
    private readonly info: ModernServerInfo,
    /** Whether the SDK Server answered an `initialize` (HTTP: before this wire was attached). */
    initialized: () => boolean = () => false,
    /**
     * Whether this wire serves `subscriptions/listen` and holds back the change notifications no
     * listen asked for (stdio). The team gateway's pipe does both itself (team/stateless.ts).
     */
    private readonly servesListens = false,
  ) {
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ((message as { method?: unknown }).method === 'initialize' || initialized()) this.legacy = true;
      const taken = this.legacy ? legacyRequest(message) : message;
      if (!this.take(taken)) inner?.(taken, extra);
    };
    const send = transport.send.bind(transport);
    this.sendUnstamped = send;
    transport.send = (message, options) => {
      if (this.answerDropped.size > 0 && this.cancelledAnswer(message)) return Promise.resolve();
      if (this.unwanted(message, options?.relatedRequestId)) return Promise.resolve();
      if (this.heldForListens(message)) return this.deliver(message as Record<string, unknown>);
      return send(this.stamp(message), options);
    };
    // An answer sent as a line (upstream-calls.ts, answeredText) to a modern request is stamped as any other.
    const lines = transport as Transport & Partial<LineSending>;
    const sendLine = lines.sendLine?.bind(transport);
    if (sendLine) lines.sendLine = (line, id) => (this.open.has(id) ? transport.send(JSON.parse(line) as JSONRPCMessage) : sendLine(line, id));
  }

  /** True when the message was answered here. */
  private take(message: JSONRPCMessage): boolean {
    const record = message as Record<string, unknown>;
    const id = record.id;
    if (record.method === 'notifications/cancelled' && isPlainObject(record.params)) {
      // A cancelled request gets no answer: forget it. A listen's cancel is how a stdio client ends it.
      const requestId = record.params.requestId as RequestId;
      if ((requestId === 0 || requestId === '') && !this.listening.has(requestId)) this.answerDropped.add(requestId);
      this.open.delete(requestId);
      this.logLevels.delete(requestId);
      return this.endListen(requestId);
    }
    if (typeof record.method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return false;
    // A new request under a cancelled id: the answer that comes for the id is its own.
    if (this.answerDropped.size > 0) this.answerDropped.delete(id);
    const envelope = envelopeOf(record.params);
    if (record.method === 'server/discover') {
      this.open.set(id, record.method);
      void this.transport.send({ jsonrpc: '2.0', id, result: this.discoverResult() }).catch(() => undefined);
      return true;
    }
    if (!envelope) return false;
    if (!MODERN_VERSIONS.includes(envelope.version)) {
      void this.transport
        .send({ jsonrpc: '2.0', id, error: { code: UNSUPPORTED_PROTOCOL_VERSION, message: 'Unsupported protocol version', data: { supported: [...MODERN_VERSIONS], requested: envelope.version } } })
        .catch(() => undefined);
      return true;
    }
    // An id still open is refused here: the refusal sent on would end the first request's entry,
    // and that request's answer would go out unstamped, a server's input_required with it (round
    // 19 review of late commits, F3).
    if (this.open.has(id) || this.listening.has(id)) {
      void this.sendUnstamped({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: `Invalid request: request id ${JSON.stringify(id)} is already in use by a request in flight` } })
        .catch(() => undefined);
      return true;
    }
    this.lastEnvelope = envelope;
    if (record.method === 'subscriptions/listen' && this.servesListens) {
      this.openListen(id, record.params);
      return true;
    }
    this.open.set(id, record.method);
    const level = requestedLogLevel(record.params);
    if (level === null) this.logLevels.delete(id);
    else this.logLevels.set(id, level);
    return false;
  }

  /**
   * A stdio client's `subscriptions/listen` (basic/patterns/subscriptions): acknowledged first with
   * what it will be sent, then each change it opted in to, stamped with its id, until the client
   * cancels it (`notifications/cancelled`) or the process ends. It is never answered while open: the
   * revision answers a listen only when the server ends it. A resource it names is subscribed to for
   * the session with the first listen naming it, as a `resources/subscribe` would (upstream-session.ts).
   */
  private openListen(id: RequestId, params: unknown): void {
    const filter = listenFilter(params);
    const refuse = (code: number, message: string) => void this.sendUnstamped({ jsonrpc: '2.0', id, error: { code, message } }).catch(() => undefined);
    if (typeof filter === 'string') return refuse(INVALID_PARAMS, filter);
    if (this.listening.size >= MAX_OPEN_LISTENS) {
      return refuse(-32000, `too many subscriptions/listen requests open: ${this.listening.size}, the most one client may hold is ${MAX_OPEN_LISTENS} (MAX_OPEN_LISTENS); cancel one, or name more in one listen`);
    }
    void this.sendUnstamped(onListen(acknowledged(filter), id) as JSONRPCMessage).catch(() => undefined);
    this.listening.set(id, filter);
    this.onlisten?.(filter);
    for (const uri of this.watched.opened(filter)) this.onsubscription?.(uri, true, id);
  }

  /** Ends the listen `id` if one is open (true: the cancel was of a listen, and goes no further). */
  private endListen(id: RequestId): boolean {
    const filter = this.listening.get(id);
    if (!filter) return false;
    this.listening.delete(id);
    for (const uri of this.watched.ended(filter)) this.onsubscription?.(uri, false, id);
    return true;
  }

  /** An answer to a request cancelled under the id 0 or "" (answerDropped): not sent, and the mark ended. */
  private cancelledAnswer(message: JSONRPCMessage): boolean {
    const record = message as Record<string, unknown>;
    if (record.method !== undefined || (record.id !== 0 && record.id !== '') || !this.answerDropped.delete(record.id)) return false;
    this.open.delete(record.id);
    this.logLevels.delete(record.id);
    return true;
  }

  /** A change notification for a 2026-07-28 stdio client: it goes only to the listens that asked for it ("MUST NOT send notification types the client has not explicitly requested"). */
  private heldForListens(message: JSONRPCMessage): boolean {
    const record = message as Record<string, unknown>;
    return this.servesListens && !this.legacy && !('id' in record) && isChange(record);
  }

  /** Sends a change to each open listen that opted in to it, stamped with the listen's id; to none when none did. */
  private async deliver(change: Record<string, unknown>): Promise<void> {
    for (const [id, filter] of this.listening) if (listens(filter, change)) await this.sendUnstamped(onListen(change, id) as JSONRPCMessage);
  }

  /**
   * A log message a 2026-07-28 client must not be sent: the revision sends one only to the request
   * it is sent for, and only when that request named `io.modelcontextprotocol/logLevel` in `_meta`,
   * at or above that level (server/utilities/logging: "The server MUST NOT emit notifications/message for a request
   * that does not include this field"; docs/approval.md, "Log messages"). On stdio that is the request whose call
   * the server is running (relay.ts passes it as `relatedRequestId`); a log message of no request
   * (a server idle, the gateway's own) goes to no 2026-07-28 client. A session that did `initialize`
   * keeps `logging/setLevel` (log-levels.ts).
   */
  private unwanted(message: JSONRPCMessage, related: RequestId | undefined): boolean {
    const record = message as Record<string, unknown>;
    if (this.legacy || record.method !== 'notifications/message' || 'id' in record) return false;
    const asked = related === undefined || !this.open.has(related) ? undefined : this.logLevels.get(related);
    const level = isPlainObject(record.params) ? LOG_LEVELS.indexOf(String(record.params.level)) : -1;
    return asked === undefined || level < asked;
  }

  private discoverResult(): Record<string, unknown> {
    return { supportedVersions: [...MODERN_VERSIONS], capabilities: this.info.capabilities, ...(this.info.instructions ? { instructions: this.info.instructions } : {}) };
  }

  /** The answer to a modern request with what 2026-07-28 requires of a result. */
  private stamp(message: JSONRPCMessage): JSONRPCMessage {
    const record = message as Record<string, unknown>;
    if (record.method !== undefined || (typeof record.id !== 'string' && typeof record.id !== 'number')) return message;
    const method = this.open.get(record.id);
    if (method === undefined) return message;
    this.open.delete(record.id);
    this.logLevels.delete(record.id);
    if (!isPlainObject(record.result)) return message;
    const result = OWN_INPUT_REQUIRED.has(record.result) ? { ...record.result } : completeResult(record.result, method);
    result._meta = { ...(isPlainObject(result._meta) ? result._meta : {}), [SERVER_INFO_KEY]: this.info.serverInfo };
    return { ...record, result } as JSONRPCMessage;
  }
}

/**
 * A request of a session that did `initialize`, without the 2026-07-28 envelope its `_meta` may
 * carry: the handshake selected the 2025 era for the whole session (2026-07-28 basic/versioning,
 * "Backward Compatibility": "An initialize request selects legacy semantics, scoped to the stdio
 * process (stdio) or the session (HTTP)"). Kept, one envelope made the call pause as a result the
 * caller could answer itself, past the person's elicitation and `approval.fallback` (round 19
 * review of the 2026-07-28 path, F6; docs/threat-model.md).
 */
function legacyRequest(message: JSONRPCMessage): JSONRPCMessage {
  const params = (message as { params?: unknown }).params;
  if (!isPlainObject(params) || !isPlainObject(params._meta) || !(VERSION_KEY in params._meta || CLIENT_INFO_KEY in params._meta || CAPABILITIES_KEY in params._meta)) return message;
  return { ...message, params: { ...params, _meta: withoutEnvelope(params._meta) } } as JSONRPCMessage;
}

/**
 * A result as complete, whoever made it: what a server wrote under the revision's own keys is not
 * passed on (its `input_required` would be shown as the gateway's prompt), and a cacheable one is
 * cached by nobody, whatever the server said: each read and list is decided per call and per person,
 * and a "public" answer may be served past a later deny rule or to another team member (F1, F8).
 */
function completeResult(answered: Record<string, unknown>, method: string): Record<string, unknown> {
  const { resultType: _type, inputRequests: _requests, requestState: _state, ttlMs: _ttl, cacheScope: _scope, ...rest } = answered;
  return CACHEABLE.has(method) ? { resultType: 'complete', ...rest, ttlMs: 0, cacheScope: 'private' } : { resultType: 'complete', ...rest };
}
