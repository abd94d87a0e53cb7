import { randomUUID } from '../node-crypto.js';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../values.js';
import { envelopeOf } from '../gateway/era-2026.js';
import { SECURITY_HEADERS, loadPage, type Asset } from '../approval-page/assets.js';
import type { LoadedConfig } from '../config/load.js';
import { httpSecretFile } from '../config/locate.js';
import { messageBytes } from '../config/schema.js';
import { GATEWAY_STOPPING } from '../cancellation.js';
import { GatewayCore } from '../gateway/core.js';
import { createRelayHooks, SHARED_SERVER_CAPABILITIES } from '../gateway/relay.js';
import { UpstreamSession } from '../gateway/upstream-session.js';
import { refusedCallRecord, wideCallRefusal } from '../gateway/upstream-calls.js';
import { errorMessage, LatchError, usage } from '../errors.js';
import type { Logger } from '../log.js';
import { portHolder, portInUseMessage } from './port-holder.js';
import { handleApi } from './api.js';
import { Authenticator } from './identity.js';
import { LocalSecret } from './local-secret.js';
import { StoredSessionGrants } from './session-grants.js';
import type { Identity, TeamStore } from './store.js';
import { UserPolicies, userContext } from './user-context.js';
import { ReadingBudget, ReadingLimit } from './reading-budget.js';
import { WaitingBudget } from './waiting-budget.js';
import { WaitingRoom } from './waiting-room.js';
import { UnprovenConnections } from './unproven-connections.js';
import { MemberConnections } from './member-connections.js';
import { SessionOutput } from './session-output.js';
import { escapingLineSeparators, jsonText } from './json-text.js';
import { HEADER_MISMATCH, RequestStream, StatelessPipe, UNSUPPORTED_PROTOCOL_VERSION, acceptsStream, headerMismatch, modernVersion, speaks } from './stateless.js';
import { acknowledged, listenFilter, onListen } from '../gateway/listen.js';
import { MODERN_VERSIONS } from '../mcp-2026.js';

/**
 * `mcp-latch serve --http` (docs/team.md): one gateway for a team. Clients connect over Streamable
 * HTTP (the SDK's server transport, one per MCP session) to /mcp; every session shares the
 * downstream servers (started once) and has its own latch, batches, grants and waiting calls, under
 * the rules of the user its token names. The same server answers the interactions API (/api) and
 * the protected-resource metadata of the MCP authorization spec.
 *
 * Security: it binds 127.0.0.1 unless told otherwise and refuses any other address without
 * authentication configured; without it, every request must carry the secret this run wrote to a
 * file only the user can read (local-secret.ts), since a loopback port is open to every local user;
 * every request's Host must be one this gateway answers to and an Origin, when a browser sends one,
 * must be allowed (DNS rebinding); a session is bound to the user that opened it, and another
 * user's token gets "session not found"; live sessions are bounded in all and per user
 * (`http.maxSessions`, `http.maxSessionsPerUser`).
 */
export interface TeamGatewayOptions {
  config: LoadedConfig;
  logger: Logger;
  store: TeamStore;
  host: string;
  port: number;
  env?: NodeJS.ProcessEnv;
}

interface LiveSession {
  id: string;
  user: string;
  transport: StreamableHTTPServerTransport;
  upstream: UpstreamSession;
  room: WaitingRoom;
  grants: StoredSessionGrants;
  /** Requests of this session whose response is still open (a call, the client's event stream). */
  open: number;
  idle: NodeJS.Timeout | null;
  /** The `Authorization` of the request that holds its event stream (GET /mcp), checked again later (recheckStreams). */
  stream: { authorization: string | undefined } | null;
  /** The `Authorization` of its latest request: once the config no longer accepts it, the session is closed (recheckStreams). */
  authorization: string | undefined;
  /** Its open responses, and what they hold for the client to read (session-output.ts). */
  output: SessionOutput;
}

/**
 * A member's standing upstream session for their MCP 2026-07-28 requests, which carry no session
 * (team/stateless.ts): one per member (and kind of client credential) on this replica, counted as
 * one of their sessions, closed as a session is after http.sessionIdleSeconds without a request.
 */
interface ModernChannel {
  id: string;
  user: string;
  transport: StatelessPipe;
  /** Its open `subscriptions/listen` streams, each with the `Authorization` that opened it (recheckStreams) and what ends it. */
  listens: Set<{ authorization: string | undefined; end: () => void }>;
  upstream: UpstreamSession;
  room: WaitingRoom;
  grants: StoredSessionGrants;
  open: number;
  idle: NodeJS.Timeout | null;
  /** Its open responses (each request's, each listen's): what they hold unread counts against http.maxUnreadMBPerUser (modernOverUnread). */
  responses: Set<ServerResponse>;
  /** Its open requests' responses, each with the `Authorization` it came with: ended once the config no longer accepts it (recheckStreams). */
  requests: Map<ServerResponse, string | undefined>;
  /** Settles once the upstream session is connected to the pipe. */
  ready: Promise<void>;
}

/** How often the credentials of held event streams are checked again (an OAuth token expires on its own). */
const STREAM_RECHECK_MS = 60_000;
/** How often a quiet `subscriptions/listen` stream gets a comment line. */
const LISTEN_KEEP_ALIVE_MS = 25_000;

const METADATA_PATH = '/.well-known/oauth-protected-resource';
/** The approval page (web/team.html): static, no data in it; the person signs in on it with their token. */
const PAGE_PATH = '/approve';
const MAX_API_BODY = 64 * 1024;
/**
 * The largest `initialize` request body: a session keeps its client's info and capabilities for its
 * life, so one member's http.maxSessionsPerUser sessions each kept up to limits.messageMB (round 33
 * review, T33-6: 30 sessions with a client name of 8 MB took the gateway from 88 to 342 MB). Clients
 * send about a kilobyte.
 */
const MAX_INITIALIZE_BYTES = 64 * 1024;
/**
 * The largest `subscriptions/listen` request body: a listen keeps its filter (up to
 * MAX_LISTEN_RESOURCES uris) for its life, and a member holds up to http.maxSessionsPerUser of them
 * (round 33 review, T33-7: 30 listens naming 100 uris of 80 KB took the gateway from 90 to 347 MB).
 */
const MAX_LISTEN_BYTES = 256 * 1024;
/** Without authentication configured (loopback only) every client with the run's secret is this one user. */
// The run's secret is the client's and the approver's credential at once (docs/team.md#approvers).
const LOCAL_USER: Identity = { user: 'local', role: 'admin', approves: true };

export class TeamGateway {
  readonly core: GatewayCore;
  private readonly http: HttpServer;
  private readonly sessions = new Map<string, LiveSession>();
  /** Members' sessions of MCP 2026-07-28 requests, by user and whether their client's credential approves (modernChannel). */
  private readonly modern = new Map<string, ModernChannel>();
  /** Each user's waiting calls, all their sessions of this replica together (waiting-budget.ts). */
  private readonly waiting = new Map<string, WaitingBudget>();
  /** Each user's request bodies being read, all their connections together (reading-budget.ts). */
  private readonly reading = new Map<string, ReadingBudget>();
  /** Connections that made no authenticated request yet, bounded (unproven-connections.ts). */
  private readonly unproven: UnprovenConnections;
  /** Each member's open connections, bounded (member-connections.ts). */
  private readonly connections: MemberConnections;
  private readonly policies: UserPolicies;
  private authenticator!: Authenticator;
  private base = '';
  private hosts: string[] = [];
  private closed = false;
  private recheck: NodeJS.Timeout | undefined;
  private page: Promise<Map<string, Asset>> | null = null;
  /** This run's secret, made when no authentication is configured (at start, or at the first request after a reload removed it). */
  private secret: LocalSecret | null = null;
  /**
   * The requests received so far, with a 'data' event at each: what clients send, for the idle
   * collector (cli/serve-http.ts), which reads the count only to tell whether anything came.
   */
  readonly received = Object.assign(new EventEmitter(), { bytesRead: 0 });

  constructor(private readonly options: TeamGatewayOptions) {
    this.core = new GatewayCore({
      config: options.config,
      logger: options.logger,
      ...(options.env ? { env: options.env } : {}),
      hooks: (core) => createRelayHooks(core, () => null),
      shared: true,
    });
    this.policies = new UserPolicies(this.core, options.store);
    options.store.onSessionGrantsChanged((user, session) => {
      const live = this.sessions.get(session) ?? [...this.modern.values()].find((channel) => channel.id === session);
      if (live?.user === user) void live.grants.refresh();
    });
    this.http = createServer((req, res) => {
      this.received.bytesRead += 1;
      this.received.emit('data');
      this.handle(req, res).catch((error: unknown) => {
        this.core.logger.error({ err: errorMessage(error) }, 'HTTP request failed');
        if (!res.headersSent) json(res, 500, { error: 'internal error' });
        else res.end();
      });
    });
    this.unproven = new UnprovenConnections(
      () => this.core.config().http.maxUnauthenticatedConnections,
      (closed, most) => this.core.logger.warn({ closed, limit: 'http.maxUnauthenticatedConnections' }, `${closed} connection(s) that had made no authenticated request were closed: more than ${most} were open (http.maxUnauthenticatedConnections); someone who reaches the port may be flooding it`),
    );
    this.http.on('connection', (socket: Socket) => this.unproven.admit(socket));
    this.connections = new MemberConnections(
      () => this.core.config().http.maxConnectionsPerUser,
      (user, refused, most) => this.core.logger.warn({ user, refused, limit: 'http.maxConnectionsPerUser' }, `${refused} request(s) of user ${user} refused: they hold ${most} connections, the limit (http.maxConnectionsPerUser); a client that opens this many may be flooding the gateway`),
    );
  }

  /** Listens; refuses a non-loopback address without authentication. Resolves with the MCP URL. */
  async listen(): Promise<string> {
    const { host, port } = this.options;
    const loopback = isLoopback(host);
    const probe = new Authenticator(() => this.core.config().http, '');
    if (!loopback && !probe.configured()) throw usage(`refusing to listen on ${host}: it is not a loopback address and no authentication is configured (http.tokens or http.oauth; docs/team.md)`);
    // Security: beyond loopback the gateway speaks plain HTTP: whoever is on the network path would read every member's
    // bearer token (their approver token too) and every call (round 32 review, T32-4: nothing said so).
    const http = this.core.config().http;
    const overTls = http.resource !== undefined && new URL(http.resource).protocol === 'https:';
    if (!loopback && !overTls) {
      const why = `the gateway speaks plain HTTP, so every member's token (their approver token too), every call and every answer would cross the network in clear for anyone on it to take`;
      if (!http.allowPlainHttp) throw usage(`refusing to listen on ${host}: ${why}; put a TLS proxy in front and set http.resource to its https: URL (docs/team.md#two-replicas), or set http.allowPlainHttp on a network you trust`);
      this.core.logger.warn({ host, key: 'http.allowPlainHttp' }, `listening on ${host} with http.allowPlainHttp: ${why}`);
    }
    if (!probe.configured()) this.secret = LocalSecret.create(httpSecretFile(this.options.config.path));
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', (error: NodeJS.ErrnoException) => {
        // A taken loopback port may be another user's listener receiving our clients' tokens (round 18 review, L6).
        if (error.code === 'EADDRINUSE' && loopback) reject(usage(portInUseMessage(host, port, portHolder(host, port))));
        else reject(error);
      });
      this.http.listen(port, host, () => resolve());
    });
    const bound = (this.http.address() as AddressInfo).port;
    const shown = host.includes(':') ? `[${host}]` : host;
    this.hosts = [`${shown}:${bound}`, ...(loopback ? [`localhost:${bound}`, `127.0.0.1:${bound}`, `[::1]:${bound}`] : [])];
    const configured = this.core.config().http.resource;
    this.base = configured ? new URL(configured).origin : `http://${shown}:${bound}`;
    const resource = configured ?? `${this.base}/mcp`;
    this.authenticator = new Authenticator(() => this.core.config().http, resource, (fields, text) => this.core.logger.warn(fields, text));
    this.warnClientsThatApprove();
    this.core.start(SHARED_SERVER_CAPABILITIES);
    this.recheck = setInterval(() => void this.recheckStreams().catch((error: unknown) => this.core.logger.warn({ err: errorMessage(error) }, 'could not check the credentials of event streams')), STREAM_RECHECK_MS);
    this.recheck.unref();
    return resource;
  }

  /** Names the users whose client tokens still answer their own calls (no approver token; docs/team.md#approvers), and says when every user of the OAuth issuer is a member. */
  private warnClientsThatApprove(): void {
    // An OAuth client's access token answers too while approveScope is unset, for every user without an approver token (round 30 review, T30-4: said nowhere).
    if (this.core.config().http.oauth && this.core.config().http.oauth?.approveScope === undefined) {
      this.core.logger.warn(
        { key: 'http.oauth.approveScope' },
        'http.oauth has no approveScope, so the OAuth access token a member\'s MCP client sends also answers their waiting calls through /api (a model that reads it can approve its own calls), unless that member has an approver token in http.tokens; set http.oauth.approveScope and have the identity provider give that scope only to the person\'s own sign-in (docs/team.md#approvers)',
      );
    }
    // Without members or groups, the issuer's assignment of users to this audience is the only bound (round 32 review, T32-2).
    const oauth = this.core.config().http.oauth;
    if (oauth && oauth.members === undefined && oauth.groups === undefined) {
      this.core.logger.warn(
        { key: 'http.oauth.members' },
        'http.oauth names neither members nor groups, so every user the identity provider gives an access token for this gateway is a member (their calls run the team\'s servers under the team\'s rules); name them in http.oauth.members, or the groups whose users are, in http.oauth.groups (docs/team.md#identity)',
      );
    }
    const users = this.authenticator.clientsThatApprove();
    if (users.length === 0) return;
    this.core.logger.warn(
      { users },
      `http.tokens: ${users.join(', ')} ${users.length === 1 ? 'has' : 'have'} no approver token, so the token their MCP client sends also answers their waiting calls through /api (a model that reads it can approve its own calls); add one per user with \`mcp-latch token --user ID --role approver\` (docs/team.md#approvers)`,
    );
  }

  /** Every session's tools/call requests not answered yet (a call waiting for a person counts). */
  callsInFlight(): number {
    let calls = 0;
    for (const session of this.sessions.values()) calls += session.upstream.callsInFlight();
    for (const channel of this.modern.values()) calls += channel.upstream.callsInFlight();
    return calls;
  }

  /** Settles when the servers started by `listen` have each listed or failed (bounded by the start wait). */
  whenStartedUp(): Promise<void> {
    return this.core.registry.whenSettled(this.core.config().timeouts.startWaitSeconds * 1000);
  }

  /** The file holding this run's secret, when the gateway made one (no `http.tokens` or `http.oauth`). */
  secretFile(): string | null {
    return this.secret?.file ?? null;
  }

  /** The config file's new text, from its watcher: applied in two turns (GatewayCore.reloadInTurns). */
  async reload(text: string, why: string): Promise<boolean> {
    const reloaded = await this.core.reloadInTurns(text, why);
    if (reloaded && this.authenticator) {
      this.warnClientsThatApprove();
      await this.recheckStreams();
    }
    return reloaded;
  }

  /**
   * Ends each session's event stream whose credential no longer names the session's user (a token
   * removed from http.tokens, an OAuth token past its exp): it was checked once, when the stream
   * opened, and a revoked token's stream kept receiving for as long as its holder kept it (round 20
   * review, T20-4). The client opens it again with the credential it has now, or is refused (401).
   */
  private async recheckStreams(): Promise<void> {
    for (const session of [...this.sessions.values()]) {
      // Security: a credential the config no longer accepts (a leaked token removed, a member removed) closes what it
      // opened: until round 32 only its event stream ended, and the calls its holder had made kept waiting, for the
      // person's approver to allow and run (round 32 review, T32-3). An OAuth token past exp does not: its client
      // renews it and goes on in the same session.
      if (await this.revoked(session.authorization, session.user)) {
        if (this.sessions.get(session.id) !== session) continue;
        this.core.logger.warn({ user: session.user, session: session.id }, 'client session closed: the credential it last used is no longer accepted (removed from the config, or its user no longer a member); its waiting calls are withdrawn and will not run');
        session.output.endAll();
        void session.transport.close();
        continue;
      }
      const stream = session.stream;
      if (!stream) continue;
      if ((await this.currentUser(stream.authorization)) === session.user || session.stream !== stream) continue;
      session.stream = null;
      this.core.logger.info({ user: session.user, session: session.id }, "event stream ended: the credential that opened it is no longer accepted (revoked or expired); the client's next request needs a valid one");
      session.transport.closeStandaloneSSEStream();
    }
    for (const channel of [...this.modern.values()]) {
      for (const [res, authorization] of [...channel.requests]) {
        if (!(await this.revoked(authorization, channel.user)) || !channel.requests.has(res)) continue;
        this.core.logger.warn({ user: channel.user, session: channel.id }, 'an MCP 2026-07-28 request ended: the credential it came with is no longer accepted (removed from the config, or its user no longer a member); its call is withdrawn and will not run');
        // Closing the POST cancels the request (handleModern): a call waiting for a person is withdrawn.
        res.destroy();
      }
      for (const listen of [...channel.listens]) {
        if ((await this.currentUser(listen.authorization)) === channel.user || !channel.listens.has(listen)) continue;
        this.core.logger.info({ user: channel.user, session: channel.id }, "subscriptions/listen stream ended: the credential that opened it is no longer accepted (revoked or expired); the client's next request needs a valid one");
        listen.end();
      }
    }
  }

  /**
   * The issuer's own token for `user` says they are no longer a member (a group the identity
   * provider took away, seen in the token their client renewed): what their earlier tokens opened is
   * closed, as recheckStreams closes what a revoked credential opened. Until round 33 those sessions
   * and requests went on, their waiting calls answerable, since each earlier token still carried the
   * group until its exp (round 33 review, T33-2).
   */
  private closeUser(user: string, why: string): void {
    for (const session of [...this.sessions.values()]) {
      if (session.user !== user) continue;
      this.core.logger.warn({ user, session: session.id, why }, 'client session closed: a token of its user, signed by the issuer, says they are no longer a member; its waiting calls are withdrawn and will not run');
      session.output.endAll();
      void session.transport.close();
    }
    for (const channel of [...this.modern.values()]) {
      if (channel.user !== user) continue;
      if (channel.requests.size + channel.listens.size > 0) this.core.logger.warn({ user, session: channel.id, why }, 'MCP 2026-07-28 requests ended: a token of their user, signed by the issuer, says they are no longer a member; their calls are withdrawn and will not run');
      for (const res of [...channel.requests.keys()]) res.destroy();
      for (const listen of [...channel.listens]) listen.end();
    }
  }

  /**
   * Whether the config no longer accepts `authorization` for `user` at /mcp: removed, its user no
   * longer a member, now another user's or an approver's (identity.ts `revoked`). Not when it lapsed
   * (an OAuth token past exp, the issuer unreachable): that ends streams only.
   */
  private async revoked(authorization: string | undefined, user: string): Promise<boolean> {
    if (!this.authenticator.configured()) return !this.secret?.accepts(authorization);
    const result = await this.authenticator.authenticate(authorization);
    if ('identity' in result) return result.identity.user !== user || result.identity.role === 'approver';
    return result.revoked === true;
  }

  /** The user an Authorization header names now, for a request to /mcp (an approver's credential names none there). */
  private async currentUser(authorization: string | undefined): Promise<string | null> {
    if (!this.authenticator.configured()) return this.secret?.accepts(authorization) ? LOCAL_USER.user : null;
    const result = await this.authenticator.authenticate(authorization);
    return 'identity' in result && result.identity.role !== 'approver' ? result.identity.user : null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const refusal = this.doorProblem(req);
    if (refusal) return json(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: refusal }, id: null });

    if (url.pathname === METADATA_PATH || url.pathname === `${METADATA_PATH}/mcp`) return json(res, 200, this.metadata());
    if (url.pathname === PAGE_PATH || url.pathname.startsWith(`${PAGE_PATH}/`)) return this.servePage(url.pathname, req.method ?? 'GET', res);

    const identity = await this.identify(req, res);
    if (!identity) return;
    this.unproven.proven(req.socket);
    // Security: one member's connections are bounded, so their token cannot take the descriptors every member needs (round 30 review, T30-2).
    if (!this.connections.claim(req.socket, identity.user)) {
      const most = this.core.config().http.maxConnectionsPerUser;
      const message = `too many connections for user ${identity.user}: ${most} are open, the limit (http.maxConnectionsPerUser); close some, or raise http.maxConnectionsPerUser`;
      res.shouldKeepAlive = false;
      return json(res, 429, url.pathname === '/mcp' ? { jsonrpc: '2.0', error: { code: -32000, message }, id: null } : { error: message });
    }
    if (url.pathname === '/mcp') {
      // Security: an approver's credential is the person's, not a client's: a client holding it could answer its own calls.
      if (identity.role === 'approver') return json(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: `this is an approver credential of ${identity.user}: it answers calls through /api and ${PAGE_PATH}, and makes none; the MCP client uses ${identity.user}'s own token (docs/team.md#approvers)` }, id: null });
      return this.handleMcp(req, res, identity);
    }
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
      const method = req.method ?? 'GET';
      let body: unknown;
      if (method !== 'GET') {
        // A browser cannot send JSON cross-site without a preflight this server never grants.
        if (!isJson(req)) return json(res, 415, { error: 'send the body as application/json' });
        try {
          body = parseBody(await this.readBody(req, MAX_API_BODY, identity.user));
        } catch (error) {
          return json(res, bodyStatus(error), { error: errorMessage(error) });
        }
      }
      return handleApi(url.pathname, url.searchParams, method, body, identity, this.options.store, (status, answer) => json(res, status, answer));
    }
    json(res, 404, { error: `not found: the MCP endpoint is /mcp, the interactions API /api, the approval page ${PAGE_PATH}` });
  }

  /** The page's files need no token: they hold no data, and every API request they make carries the person's. */
  private async servePage(path: string, method: string, res: ServerResponse): Promise<void> {
    if (method !== 'GET') return json(res, 405, { error: 'use GET' });
    this.page ??= loadPage('team.html', PAGE_PATH);
    const asset = (await this.page).get(path === `${PAGE_PATH}/` ? PAGE_PATH : path);
    if (!asset) return json(res, 404, { error: 'not found' });
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type });
    res.end(asset.body);
  }

  /** Host must be one this gateway answers to; an Origin, if any, must be its own or allowed (DNS rebinding). */
  private doorProblem(req: IncomingMessage): string | null {
    const http = this.core.config().http;
    const host = req.headers.host;
    const configuredHost = http.resource ? new URL(http.resource).host : null;
    const hosts = [...this.hosts, ...(configuredHost ? [configuredHost] : []), ...http.allowedHosts];
    if (!host || !hosts.includes(host)) return `Invalid Host header: ${host ?? '(none)'}`;
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}` && origin !== this.base && !http.allowedOrigins.includes(origin)) return `Invalid Origin header: ${origin}`;
    return null;
  }

  private metadata(): Record<string, unknown> {
    const oauth = this.core.config().http.oauth;
    return { resource: this.authenticatorResource(), authorization_servers: oauth ? [oauth.issuer] : [], bearer_methods_supported: ['header'], resource_name: 'mcp-latch' };
  }

  private authenticatorResource(): string {
    return this.core.config().http.resource ?? `${this.base}/mcp`;
  }

  /** The caller's identity, or null after answering 401 with where to find how to get a token. */
  private async identify(req: IncomingMessage, res: ServerResponse): Promise<Identity | null> {
    if (!this.authenticator.configured()) return this.identifyLocal(req, res);
    const result = await this.authenticator.authenticate(req.headers.authorization);
    if ('identity' in result) return result.identity;
    if (result.revoked && result.user !== undefined) this.closeUser(result.user, result.detail);
    // The detail may quote a claim of the token: kept to printable ASCII, no quote, as a header allows.
    const challenge = [`resource_metadata="${this.base}${METADATA_PATH}"`, ...(result.refused === 'invalid' ? ['error="invalid_token"', `error_description="${result.detail.replace(/["\\]/g, '').replace(/[^\x20-\x7e]/g, '?')}"`] : [])];
    res.setHeader('WWW-Authenticate', `Bearer ${challenge.join(', ')}`);
    json(res, 401, { error: result.refused === 'missing' ? 'authentication required' : 'invalid token' });
    return null;
  }

  /**
   * Without configured authentication the caller must hold this run's secret: reading its file is
   * what only the user who started the gateway can do (docs/team.md#identity).
   */
  private identifyLocal(req: IncomingMessage, res: ServerResponse): Identity | null {
    try {
      this.secret ??= LocalSecret.create(httpSecretFile(this.options.config.path));
    } catch (error) {
      this.core.logger.error({ err: errorMessage(error) }, 'no http.tokens or http.oauth, and no secret: every request is refused');
      json(res, 503, { error: `no http.tokens or http.oauth is configured and this gateway could not make its secret: ${errorMessage(error)}` });
      return null;
    }
    const authorization = req.headers.authorization;
    if (this.secret.accepts(authorization)) return LOCAL_USER;
    res.setHeader('WWW-Authenticate', `Bearer realm="mcp-latch"${authorization ? ', error="invalid_token"' : ''}`);
    const what = authorization ? 'the Authorization header does not hold this run\'s secret' : 'no Authorization header';
    json(res, 401, { error: `${what}: send "Authorization: Bearer <secret>", the secret being the contents of ${this.secret.file} (readable by the user who started the gateway only, new at each start; docs/team.md#identity)` });
    return null;
  }

  private async handleMcp(req: IncomingMessage, res: ServerResponse, identity: Identity): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    // Security: another user's session is answered as if it did not exist, before its body is read or
    // anything is recorded under its id (round 20 review, T20-1: bob's refused call went to the audit
    // under alice's session id, and any text was taken as one).
    const notFound = () => json(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    const named = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string' && named?.user !== identity.user) return notFound();
    let body: unknown;
    let bodyBytes = 0;
    if (req.method === 'POST') {
      try {
        const text = await this.readBody(req, messageBytes(this.core.config()), identity.user);
        bodyBytes = Buffer.byteLength(text, 'utf8');
        // A call too wide to decide is refused before it is parsed (gateway/upstream-calls.ts).
        const refusal = wideCallRefusal(text);
        if (refusal) {
          // Without a session it is no call of one: answered as a narrow one would be, first (sessionlessRefusal).
          const sessionless = named ? null : sessionlessRefusal(req, refusal);
          if (sessionless) return json(res, sessionless.status, sessionless.body);
          this.core.audit.record(refusedCallRecord(named?.id ?? '', identity.user, (refusal as { error: { message: string } }).error.message));
          return json(res, 200, refusal);
        }
        body = parseBody(text);
      } catch (error) {
        return json(res, bodyStatus(error), { jsonrpc: '2.0', error: { code: bodyStatus(error) === 429 ? -32000 : -32700, message: errorMessage(error) }, id: null });
      }
    }
    if (named) {
      // It may have ended while its body was read.
      if (this.sessions.get(named.id) !== named) return notFound();
      named.authorization = req.headers.authorization;
      this.track(named, res);
      named.output.add(res, requestIds(body), req.method === 'GET');
      if (req.method === 'GET') this.holdsStream(named, req, res);
      // The SDK's transport writes its JSON itself: U+2028 and U+2029 escaped as every other write (json-text.ts).
      return named.transport.handleRequest(req, escapingLineSeparators(res), body);
    }
    // MCP 2026-07-28: a request without a session, its version in MCP-Protocol-Version (round 21; docs/team.md, "MCP 2026-07-28 clients").
    const version = typeof sessionId === 'string' ? null : modernVersion(req);
    if (version !== null && req.method !== 'POST') return json(res, 405, { jsonrpc: '2.0', error: { code: -32000, message: `Method Not Allowed: MCP ${version} over HTTP has no ${req.method ?? ''} on the MCP endpoint, only POST (no sessions, no event stream)` }, id: null });
    if (version !== null && !isInitializeRequest(body)) return this.handleModern(req, res, identity, body, version, bodyBytes);
    if (req.method !== 'POST' || !isInitializeRequest(body)) return json(res, 400, noSession(req, body));
    if (this.closed) return json(res, 503, { error: 'shutting down' });
    // Security: what a session keeps of its initialize for its life is bounded, per session, as sessions are per member (T33-6).
    if (bodyBytes > MAX_INITIALIZE_BYTES) {
      const message = `the initialize request is ${bodyBytes} bytes, more than the ${MAX_INITIALIZE_BYTES} a session keeps of its client's info and capabilities (docs/team.md, "Sessions are bounded")`;
      this.core.logger.warn({ user: identity.user, bytes: bodyBytes }, message);
      return json(res, 413, { jsonrpc: '2.0', error: { code: -32600, message }, id: (body as { id?: string | number }).id ?? null });
    }
    const full = this.sessionLimit(identity.user);
    if (full) {
      this.core.logger.warn({ user: identity.user, limit: full.key }, full.message);
      return json(res, full.status, { jsonrpc: '2.0', error: { code: -32000, message: full.message }, id: (body as { id?: string | number }).id ?? null });
    }
    const session = this.open(identity, req.headers.authorization);
    this.track(session, res);
    session.output.add(res, requestIds(body));
    await session.transport.handleRequest(req, escapingLineSeparators(res), body);
  }

  /**
   * One MCP 2026-07-28 request (team/stateless.ts): its headers checked against its body and its
   * version against the ones spoken (2026-07-28 basic/transports/streamable-http), then run in the
   * member's standing session; its answer is this POST's response, and closing the POST cancels it.
   */
  private async handleModern(req: IncomingMessage, res: ServerResponse, identity: Identity, body: unknown, version: string, bodyBytes: number): Promise<void> {
    const id = isPlainObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
    const refuse = (status: number, code: number, message: string, data?: unknown) => json(res, status, { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
    if (!speaks(version)) return refuse(400, UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', { supported: [...MODERN_VERSIONS], requested: version });
    if (!isPlainObject(body) || typeof body.method !== 'string') return refuse(400, -32600, 'Invalid Request: the body is not one JSON-RPC request');
    const mismatch = headerMismatch(req, body, version);
    if (mismatch) return refuse(400, HEADER_MISMATCH, `Header mismatch: ${mismatch}`);
    // A notification: the revision defines none a client sends over HTTP.
    if (id === null) {
      res.writeHead(202).end();
      return;
    }
    if (this.closed) return json(res, 503, { error: 'shutting down' });
    const channel = this.modernChannel(identity);
    if ('key' in channel) {
      this.core.logger.warn({ user: identity.user, limit: channel.key }, channel.message);
      return refuse(channel.status, -32000, channel.message);
    }
    if (body.method === 'subscriptions/listen') {
      // Security: what a listen keeps for its life is bounded, as listens are per member (T33-7).
      if (bodyBytes > MAX_LISTEN_BYTES) {
        const message = `the subscriptions/listen request is ${bodyBytes} bytes, more than the ${MAX_LISTEN_BYTES} a listen keeps of its filter; name fewer or shorter resources, or open another`;
        this.core.logger.warn({ user: identity.user, bytes: bodyBytes }, message);
        return refuse(413, -32600, message);
      }
      return this.serveListen(req, res, identity, channel, body, id, refuse);
    }
    this.track(channel, res, () => this.modern.get(channelKey(identity)) === channel);
    this.heldUnread(channel, res);
    channel.requests.set(res, req.headers.authorization);
    res.once('close', () => channel.requests.delete(res));
    await channel.ready;
    const stream = new RequestStream(res, acceptsStream(req), () => messageBytes(this.core.config()), (text) => this.core.logger.warn({ user: identity.user, limit: 'limits.messageMB' }, text), () => this.modernOverUnread(channel, res));
    await new Promise<void>((resolve) => {
      const cancel = channel.transport.request(
        { ...body, id },
        (answer) => {
          // Past the member's bound of unread responses: this response is ended, its answer dropped (modernOverUnread).
          if (this.modernOverUnread(channel, res)) return resolve();
          if (stream.end(answer)) return resolve();
          const code = (answer as { error?: { code?: unknown } }).error?.code;
          // The revision's statuses: an unknown method 404, an unsupported version 400 (streamable-http, "Protocol Version Header").
          json(res, code === -32601 ? 404 : code === UNSUPPORTED_PROTOCOL_VERSION ? 400 : 200, answer);
          resolve();
        },
        (notification) => stream.send(notification),
      );
      res.once('close', () => {
        cancel();
        resolve();
      });
    });
  }

  /**
   * A `subscriptions/listen` (2026-07-28 basic/patterns/subscriptions; streamable-http "Receiving
   * Messages"): its response is an event stream that opens with `notifications/subscriptions/acknowledged`
   * and carries the list changes and resource updates it opted in to, each stamped with the listen's id,
   * until the client closes it (or the gateway stops, or the credential that opened it is no longer
   * accepted: recheckStreams). A member's open listens on this replica are at most
   * `http.maxSessionsPerUser`, as their sessions are; past `limits.messageMB` not read, changes are
   * dropped (each says "list again", so the next one tells the same). docs/team.md.
   */
  private async serveListen(req: IncomingMessage, res: ServerResponse, identity: Identity, channel: ModernChannel, body: Record<string, unknown>, id: string | number, refuse: (status: number, code: number, message: string) => void): Promise<void> {
    const filter = listenFilter(body.params);
    if (typeof filter === 'string') return refuse(200, -32602, filter);
    const most = this.core.config().http.maxSessionsPerUser;
    if (channel.listens.size >= most) {
      const message = `too many subscriptions/listen streams for user ${channel.user}: ${channel.listens.size} are open, the limit is ${most} (http.maxSessionsPerUser); close one, or raise http.maxSessionsPerUser`;
      this.core.logger.warn({ user: channel.user, limit: 'http.maxSessionsPerUser' }, message);
      return refuse(429, -32000, message);
    }
    // Counted from here, not once the session is connected: a listen waiting for that is one of the
    // member's (round 22's note: the count must hold whatever the await takes).
    const listen = { authorization: req.headers.authorization, end: () => res.end() };
    channel.listens.add(listen);
    res.once('close', () => channel.listens.delete(listen));
    this.track(channel, res, () => this.modern.get(channelKey(identity)) === channel);
    this.heldUnread(channel, res);
    await channel.ready;
    // A client gone while the session connected would leave its listen (and subscriptions) behind.
    if (res.destroyed || res.writableEnded || req.socket.destroyed) {
      channel.listens.delete(listen);
      return;
    }
    let dropped = 0;
    const write = (message: Record<string, unknown>) => {
      if (res.writableEnded || res.destroyed || this.modernOverUnread(channel, res)) return;
      if (res.writableLength > messageBytes(this.core.config())) {
        if (dropped++ === 0) this.core.logger.warn({ user: channel.user, limit: 'limits.messageMB' }, 'the client is behind: more than limits.messageMB waits in a subscriptions/listen stream for it to read, so its change notifications are dropped until it has read them (docs/config.md, "limits")');
        return;
      }
      if (dropped > 0) {
        this.core.logger.warn({ user: channel.user, dropped }, `the client has caught up: ${dropped.toLocaleString('en-US')} change notifications of a subscriptions/listen were dropped while it was behind`);
        dropped = 0;
      }
      res.write(`event: message\ndata: ${jsonText(onListen(message, id))}\n\n`);
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    write(acknowledged(filter));
    const stop = channel.transport.listen(filter, (message) => write(message as Record<string, unknown>));
    channel.upstream.listening(filter);
    // A comment now and then keeps proxies and clients from closing a quiet stream (the revision's keep-alive note).
    const keepAlive = setInterval(() => {
      if (!res.writableEnded && res.writableLength === 0) res.write(':\n\n');
    }, LISTEN_KEEP_ALIVE_MS);
    keepAlive.unref();
    res.once('close', () => {
      clearInterval(keepAlive);
      stop();
    });
  }

  /** The member's standing session for their MCP 2026-07-28 requests, made at their first; or the session limit that refuses it. */
  private modernChannel(identity: Identity): ModernChannel | { status: number; key: string; message: string } {
    const key = channelKey(identity);
    const have = this.modern.get(key);
    if (have) return have;
    const full = this.sessionLimit(identity.user);
    if (full) return full;
    const id = randomUUID();
    const transport = new StatelessPipe();
    // Security: the channel serves every 2026-07-28 client of the member on this replica; "this session" would be all of them (upstreamFor sessionless).
    const { room, grants, upstream } = this.upstreamFor(identity, id, true);
    transport.onclose = () => {
      if (this.modern.get(key) === channel) this.modern.delete(key);
      for (const listen of [...channel.listens]) listen.end();
      if (channel.idle) clearTimeout(channel.idle);
      void room.close();
      void upstream.close();
      void grants.end();
    };
    transport.onrefused = (uri, message) => this.core.logger.warn({ user: identity.user, uri, error: message }, 'a subscriptions/listen named a resource its server would not subscribe to: its updates will not come');
    const channel: ModernChannel = { id, user: identity.user, transport, listens: new Set(), upstream, room, grants, open: 0, idle: null, responses: new Set(), requests: new Map(), ready: upstream.connect(transport) };
    this.modern.set(key, channel);
    this.core.logger.info({ user: identity.user, session: id }, 'client session opened for MCP 2026-07-28 requests (no initialize)');
    return channel;
  }

  /** Remembers the credential of the session's event stream while it is open (recheckStreams). */
  private holdsStream(session: LiveSession, req: IncomingMessage, res: ServerResponse): void {
    const stream = { authorization: req.headers.authorization };
    session.stream = stream;
    res.once('close', () => {
      if (session.stream === stream) session.stream = null;
    });
  }

  /**
   * A session is idle while none of its requests is open; after `http.sessionIdleSeconds` of that
   * its client is taken to have left without DELETE, and the session is closed as DELETE would.
   */
  private track(session: LiveSession | ModernChannel, res: ServerResponse, live: () => boolean = () => this.sessions.get(session.id) === session): void {
    session.open += 1;
    if (session.idle) clearTimeout(session.idle);
    session.idle = null;
    res.once('close', () => {
      session.open -= 1;
      if (session.open > 0 || !live()) return;
      const seconds = this.core.config().http.sessionIdleSeconds;
      session.idle = setTimeout(() => {
        if (!live() || session.open > 0) return;
        this.core.logger.info({ user: session.user, session: session.id, idleSeconds: seconds }, 'client session closed: no request for http.sessionIdleSeconds; its waiting calls are withdrawn and will not run');
        void session.transport.close();
      }, seconds * 1000);
      session.idle.unref();
    });
  }

  /** Why a new session of `user` is refused, when a limit is reached (a session costs ~42 KB; docs/team.md). */
  private sessionLimit(user: string): { status: number; key: string; message: string } | null {
    const http = this.core.config().http;
    const most = http.maxSessions;
    const mostPerUser = http.maxSessionsPerUser;
    const wait = 'close one (DELETE /mcp), wait for an idle one to end (http.sessionIdleSeconds)';
    // A member's session of 2026-07-28 requests counts as one of theirs (modernChannel).
    const open = this.sessions.size + this.modern.size;
    if (open >= most) return { status: 503, key: 'http.maxSessions', message: `too many MCP sessions: ${open} are open, the limit is ${most} (http.maxSessions); ${wait}, or raise http.maxSessions` };
    let own = 0;
    for (const session of [...this.sessions.values(), ...this.modern.values()]) if (session.user === user) own += 1;
    if (own >= mostPerUser) return { status: 429, key: 'http.maxSessionsPerUser', message: `too many MCP sessions for user ${user}: ${own} are open, the limit is ${mostPerUser} (http.maxSessionsPerUser); ${wait}, or raise http.maxSessionsPerUser` };
    return null;
  }

  /** A request's body, within `limit` and the user's budget of bodies being read (http.maxReadingMBPerUser). */
  private async readBody(req: IncomingMessage, limit: number, user: string): Promise<string> {
    let budget = this.reading.get(user);
    if (!budget) {
      budget = new ReadingBudget(user, () => this.core.config().http.maxReadingMBPerUser * 1024 * 1024);
      this.reading.set(user, budget);
    }
    const body = budget.start();
    try {
      return await readBody(req, limit, (bytes) => body.take(bytes));
    } catch (error) {
      if (error instanceof ReadingLimit) this.core.logger.warn({ user, limit: 'http.maxReadingMBPerUser' }, error.message);
      throw error;
    } finally {
      body.end();
    }
  }

  private waitingBudget(user: string): WaitingBudget {
    let budget = this.waiting.get(user);
    if (!budget) {
      const limits = () => {
        const http = this.core.config().http;
        return { calls: http.maxWaitingCallsPerUser, bytes: http.maxWaitingMBPerUser * 1024 * 1024 };
      };
      budget = new WaitingBudget(user, limits);
      this.waiting.set(user, budget);
    }
    return budget;
  }

  /** A client session's own upstream Server, latch, waiting room and grants (both eras' sessions). */
  private upstreamFor(identity: Identity, id: string, sessionless = false): { room: WaitingRoom; grants: StoredSessionGrants; upstream: UpstreamSession } {
    const store = this.options.store;
    const room = new WaitingRoom(store, { user: identity.user, session: id }, `${this.base}/api/pending`, this.waitingBudget(identity.user));
    const grants = new StoredSessionGrants(store, { user: identity.user, session: id }, this.core.matchEnvNow(), this.core.logger);
    const upstream = new UpstreamSession({
      core: this.core,
      context: userContext(this.core, this.policies, store, identity.user),
      mirror: () => SHARED_SERVER_CAPABILITIES,
      roots: false,
      // Security: the client's token opened the session; once the user has an approver credential, the client is not where they answer (docs/team.md#approvers).
      session: { id, user: identity.user, grants, page: async () => room, waiting: this.waitingBudget(identity.user), answersInClient: () => identity.approves && !this.authenticator.hasApprover(identity.user), sessionless },
    });
    upstream.holdCallsUntil(this.policies.load(identity.user));
    return { room, grants, upstream };
  }

  /** A new MCP session for this user: its own upstream Server, latch and waiting room. */
  private open(identity: Identity, authorization: string | undefined): LiveSession {
    const id = randomUUID();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const { room, grants, upstream } = this.upstreamFor(identity, id);
    const output = new SessionOutput(
      () => messageBytes(this.core.config()),
      (text) => this.core.logger.warn({ user: identity.user, session: id, limit: 'limits.messageMB' }, text),
      () => this.closedForUnread(session),
    );
    // Before the upstream Server connects: every message it sends goes through the guard.
    output.guard(transport);
    const session: LiveSession = { id, user: identity.user, transport, upstream, room, grants, open: 0, idle: null, stream: null, authorization, output };
    this.sessions.set(id, session);
    transport.onclose = () => {
      this.sessions.delete(id);
      if (session.idle) clearTimeout(session.idle);
      void room.close();
      void upstream.close();
      void grants.end();
    };
    void upstream.connect(transport);
    this.core.logger.info({ user: identity.user, session: id }, 'client session opened');
    return session;
  }

  /**
   * What the member's responses hold that their client has not read, on this replica: their
   * sessions' (session-output.ts) and their 2026-07-28 requests' and listens' (ModernChannel.responses).
   */
  private unreadOf(user: string): number {
    let unread = 0;
    for (const each of this.sessions.values()) if (each.user === user) unread += each.output.unreadBytes();
    for (const channel of this.modern.values()) if (channel.user === user) for (const res of channel.responses) unread += res.writableLength;
    return unread;
  }

  /**
   * Whether the member's responses, all their sessions and 2026-07-28 requests together, hold more
   * than http.maxUnreadMBPerUser their client has not read; if so, `session` (the one a message is
   * being sent to) is closed and its responses ended, with a warning naming the key. Other members'
   * sessions are not looked at. docs/team.md, "What waits for a member's client to read".
   */
  private closedForUnread(session: LiveSession): boolean {
    const most = this.core.config().http.maxUnreadMBPerUser * 1024 * 1024;
    const unread = this.unreadOf(session.user);
    if (unread <= most) return false;
    const own = session.output.unreadBytes();
    this.core.logger.warn(
      { user: session.user, session: session.id, limit: 'http.maxUnreadMBPerUser' },
      `user ${session.user}'s responses hold ${mb(unread)} MB their client has not read, past http.maxUnreadMBPerUser (${mb(most)} MB): their session ${session.id} is closed and the ${mb(own)} MB it held dropped; a client must read its responses as they come, or raise http.maxUnreadMBPerUser`,
    );
    session.output.endAll();
    void session.transport.close();
    return true;
  }

  /** `res`, a response of the member's 2026-07-28 channel, counted against http.maxUnreadMBPerUser while it is open. */
  private heldUnread(channel: ModernChannel, res: ServerResponse): void {
    channel.responses.add(res);
    res.once('close', () => channel.responses.delete(res));
  }

  /**
   * Before a message is written to `res`, a response of the member's 2026-07-28 channel (a request's
   * answer or notification, a listen's change): true when the member's responses hold more than
   * http.maxUnreadMBPerUser unread, all their sessions and requests together; then `res` and every
   * response of the channel holding some unread are ended (what they held dropped; a request's end
   * cancels it), with a warning naming the member and the key. Looked at only while a response of
   * the channel holds some unread: a client that reads pays nothing. Until round 28 a request's event
   * stream, and its answer, were not counted: a member's unread answers there grew without bound.
   */
  private modernOverUnread(channel: ModernChannel, res: ServerResponse): boolean {
    let holding = false;
    for (const each of channel.responses) if (each.writableLength > 0) holding = true;
    if (!holding) return false;
    const most = this.core.config().http.maxUnreadMBPerUser * 1024 * 1024;
    const unread = this.unreadOf(channel.user);
    if (unread <= most) return false;
    let own = 0;
    let ended = 0;
    for (const each of [...channel.responses]) {
      if (each !== res && each.writableLength === 0) continue;
      own += each.writableLength;
      ended += 1;
      each.destroy();
    }
    this.core.logger.warn(
      { user: channel.user, session: channel.id, limit: 'http.maxUnreadMBPerUser' },
      `user ${channel.user}'s responses hold ${mb(unread)} MB their client has not read, past http.maxUnreadMBPerUser (${mb(most)} MB): ${ended} response(s) of their MCP 2026-07-28 requests were ended and the ${mb(own)} MB they held dropped (a request ended so is cancelled); a client must read its responses as they come, or raise http.maxUnreadMBPerUser`,
    );
    return true;
  }

  /** `why`: the signal's name, or what else ended it (run-until-stopped.ts). */
  async close(why?: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.recheck);
    // Calls waiting for a person on a signal were recorded cancelled `by: "client"` once the
    // connections closed: they are cancelled through the latch first, as the stdio gateway's are
    // (gateway/server.ts; docs/design.md, "Audited").
    if (why?.startsWith('SIG')) for (const session of [...this.sessions.values(), ...this.modern.values()]) session.upstream.cancelCalls(GATEWAY_STOPPING);
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
    await Promise.all([...this.sessions.values(), ...this.modern.values()].map((session) => Promise.all([session.upstream.close(), session.grants.end()])));
    this.secret?.remove();
    await this.options.store.close();
    await this.core.close();
  }
}

/** 413 for a body past its size limit, 429 past the user's budget of bodies being read, else 400. */
function bodyStatus(error: unknown): number {
  if (error instanceof ReadingLimit) return 429;
  return error instanceof LatchError && error.code === 'MESSAGE_TOO_LARGE' ? 413 : 400;
}

async function readBody(req: IncomingMessage, limit: number, take: (bytes: number) => void): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new LatchError('MESSAGE_TOO_LARGE', `the request body is larger than ${limit} bytes`);
    take(chunk.length);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new LatchError('MESSAGE_INVALID', 'Parse error: the body is not valid JSON');
  }
}

function isJson(req: IncomingMessage): boolean {
  return /^application\/json\b/i.test(req.headers['content-type'] ?? '');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(jsonText(body));
}

/** A member's 2026-07-28 session is theirs per kind of client credential: whether it answers their calls is part of the session (answersInClient). */
function channelKey(identity: Identity): string {
  return `${identity.user}\u0000${identity.approves ? 'approves' : 'client'}`;
}

/** The JSON-RPC ids of the requests a POST's body holds (one, or a batch's): its response carries their notifications (session-output.ts). */
function requestIds(body: unknown): Array<string | number> {
  const ids: Array<string | number> = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    if (isPlainObject(message) && typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number')) ids.push(message.id);
  }
  return ids;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The answer to a request without a session that is neither `initialize` nor one of MCP 2026-07-28
 * (those carry `MCP-Protocol-Version: 2026-07-28` and are served, handleModern). A body that claims
 * the revision in its `_meta` without the header is told the header is required (2026-07-28
 * basic/transports/streamable-http, "Protocol Version Header"). The code is no modern error: a
 * dual-era client reads such a 400 as a server of the handshake era and falls back to
 * `initialize`, which works ("Backward Compatibility").
 */
function noSession(req: IncomingMessage, body: unknown): Record<string, unknown> {
  const id = isPlainObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
  const modern = envelopeOf(isPlainObject(body) ? body.params : undefined) !== null;
  const message = modern
    ? 'Bad Request: an MCP 2026-07-28 request (no session, its version in _meta) must carry the header MCP-Protocol-Version: 2026-07-28, and Mcp-Method (2026-07-28 basic/transports/streamable-http); a client of protocol versions up to 2025-11-25 starts with initialize; docs/team.md, "MCP 2026-07-28 clients"'
    : NO_SESSION;
  return { jsonrpc: '2.0', error: { code: -32000, message }, id };
}

const NO_SESSION = 'Bad Request: no Mcp-Session-Id header; every request but initialize must carry the session id its initialize was answered with (MCP 2025-06-18 basic/transports, "Session Management"); start with initialize';

/**
 * The answer to a tools/call too wide to decide (wideCallRefusal) that came without a session,
 * before the refusal of its width: what a narrow one would get first. Of the handshake era
 * (2025-06-18, 2025-11-25: no `MCP-Protocol-Version: 2026-07-28`) it is 400 naming the missing
 * `Mcp-Session-Id`, as noSession answers a narrow one ("Servers that require a session ID SHOULD
 * respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400");
 * until round 23 it was answered 200 with the width, as if a session had sent it. Of 2026-07-28,
 * which has no sessions, the version and the headers that can be checked without parsing the body
 * (MCP-Protocol-Version, Mcp-Method, Mcp-Name present) are checked as handleModern does, each a 400
 * naming what is wrong; then the width's refusal (null here). docs/team.md, "MCP 2026-07-28 clients".
 */
function sessionlessRefusal(req: IncomingMessage, refusal: JSONRPCMessage): { status: number; body: Record<string, unknown> } | null {
  const { id } = refusal as { id: string | number | null };
  const version = modernVersion(req);
  if (version === null) return { status: 400, body: { jsonrpc: '2.0', error: { code: -32000, message: NO_SESSION }, id } };
  const error = (code: number, message: string, data?: unknown) => ({ status: 400, body: { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } } });
  if (!speaks(version)) return error(UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', { supported: [...MODERN_VERSIONS], requested: version });
  // A batch: the revision's POST body is one request (streamable-http, "Sending Messages").
  if (id === null) return error(-32600, 'Invalid Request: the body is not one JSON-RPC request');
  const method = req.headers['mcp-method'];
  if (method !== 'tools/call') return error(HEADER_MISMATCH, typeof method === 'string' ? `Header mismatch: Mcp-Method is ${method} but the request's method is tools/call` : 'Header mismatch: the Mcp-Method header is missing');
  if (typeof req.headers['mcp-name'] !== 'string') return error(HEADER_MISMATCH, 'Header mismatch: the Mcp-Name header is missing');
  return null;
}

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}
