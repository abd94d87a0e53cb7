import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_MESSAGE_MB, MAX_MESSAGE_MB } from './limits.js';

/**
 * The shape of mcp-latch.json (docs/config.md). Strict objects everywhere so typos are caught; the
 * `mcpServers` entries take exactly what Claude Desktop, Cursor and Claude Code write, plus the
 * few extra keys those clients put there (`type`, `timeout`, `description`).
 */

/** A user id of a team gateway: what tokens map to and what `users` overlays are keyed by. */
export const USER_ID = /^[A-Za-z0-9_.@-]{1,128}$/;

/**
 * Whether the issuer's keys may be fetched from `url`: over https:, or over http: only from this
 * machine. A JWKS fetched over plain http from elsewhere is whatever the network on the way answers:
 * until round 30 such a `oauth.jwksUrl` was taken, and a key served there by someone on the path
 * signed an admin's token the gateway accepted (round 30 review, T30-1; docs/threat-model.md).
 */
export function isTrustedKeysUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'https:') return true;
  if (parsed.protocol !== 'http:') return false;
  const host = parsed.hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** `http.sessionIdleSeconds` unless set. */
export const DEFAULT_SESSION_IDLE_SECONDS = 3600;

/**
 * `http.maxSessions` and `http.maxSessionsPerUser` unless set: a live session costs ~42 KB
 * (docs/team.md), so 1,000 bound them to ~42 MB; 100 leave one user room for many clients.
 */
export const DEFAULT_MAX_SESSIONS = 1000;
export const DEFAULT_MAX_SESSIONS_PER_USER = 100;

/**
 * `http.maxWaitingCallsPerUser` and `http.maxWaitingMBPerUser` unless set: a waiting call keeps
 * ~2.5× its arguments (round 16 review T2: 10 calls of 9 MB, RSS 86 → 339 MiB), so one user's
 * 50 MB hold ~125 MiB; 20 calls are more than a client asks at once.
 */
export const DEFAULT_MAX_WAITING_CALLS_PER_USER = 20;
/** Each remembered rule is in the config's text (embedded store) or the store, read again at every change of the user's rules (round 31 review, T31-4). */
export const DEFAULT_MAX_REMEMBERED_RULES_PER_USER = 500;
export const DEFAULT_MAX_WAITING_MB_PER_USER = 50;

/**
 * `http.maxReadingMBPerUser` unless set: the request bodies one user sends at once, each kept whole
 * until parsed (round 20 review T20-6: +10 MiB of RSS per 10 MB body held one byte short); one body
 * alone may always reach `limits.messageMB`.
 */
export const DEFAULT_MAX_READING_MB_PER_USER = 50;

/**
 * `http.maxUnreadMBPerUser` unless set: what one user's responses hold that their client has not
 * read, all their sessions together (round 27 review P27-6: 80 answers of 8 MB never read took the
 * gateway from 88 to 796 MB); one answer alone may always reach `limits.messageMB`.
 */
export const DEFAULT_MAX_UNREAD_MB_PER_USER = 50;

/**
 * `http.maxUnauthenticatedConnections` unless set: connections that made no authenticated request
 * yet (round 20 review T20-2: 30,000 idle ones took every descriptor); a member's leaves the count
 * with its first request, so this is room for page loads and clients signing in, not for members.
 */
export const DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS = 256;

/**
 * `http.maxConnectionsPerUser` unless set: one member's open connections (round 30 review T30-2: one
 * token's 1,100 unfinished requests took every descriptor of a gateway limited to 1,024). Room for
 * `maxSessionsPerUser` sessions each holding its event stream and a few calls at once.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_USER = 512;

/** How long a request naming what a starting server has not listed yet waits for it, in ms. */
export function startWaitMs(file: ConfigFile): number {
  return file.timeouts.startWaitSeconds * 1000;
}

/** `limits.messageMB` in bytes. */
export function messageBytes(file: ConfigFile): number {
  return file.limits.messageMB * 1024 * 1024;
}

/**
 * One read's parse of a config file. Its schemas are new (configSchemas) and parsed once, so without
 * zod's compiled fast path: it writes and compiles a function for each object schema at its first
 * parse, which only a schema parsed again and again pays back (~2.5 ms of a start's ~5 ms config
 * check; docs/performance.md, "Round 12: the first list").
 */
export function parseConfigFile(data: unknown): ReturnType<ReturnType<typeof configSchemas>['config']['safeParse']> {
  return configSchemas({ lazySections: true }).config.safeParse(data, { jitless: true });
}

/**
 * The file's schemas, made at each call and not kept: a read of the config (at start, and when it
 * changes) makes them, uses them and drops them. Kept for the life of the gateway, they and what zod
 * adds to them at their first parse were ~0.4 MiB of an idle gateway's memory; making them again
 * costs a few ms (docs/performance.md, "Round 11: idle memory").
 */
export function configSchemas({ lazySections = false }: { lazySections?: boolean } = {}) {
  // A read's sections that a file usually leaves out (each with its default, or optional) are made
  // only when the file has them: zod returns a default without parsing it, and the read made ~120
  // of its ~370 schemas for them at every start, beside the booting servers (docs/performance.md,
  // "Round 26: the ten-server start"). Typed as the section itself: z.lazy parses and infers as it.
  // The JSON Schema, the hints' key lookup and the library's export take the schemas made at once.
  const section = <T extends z.ZodType>(make: () => T): T => (lazySections ? (z.lazy(make) as unknown as T) : make());
  /** `[A-Za-z0-9_-]+` and no `__`, because exposed names are `server__tool`. */
  const ServerNameSchema = z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'server names may only use letters, digits, "_" and "-"')
    .refine((name) => !name.includes('__'), 'server names must not contain "__" (it separates server and tool)');

  const StdioServerSchema = z.strictObject({
    type: z.literal('stdio').optional(),
    command: z.string().min(1, 'command must not be empty'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    /** A dotenv file (`NAME=value` lines) read when the server starts; `env` wins over it. VS Code writes it. */
    envFile: z.string().optional(),
    cwd: z.string().optional(),
    disabled: z.boolean().optional(),
    /** Claude Code writes a per-server call timeout in milliseconds. */
    timeout: z.number().int().positive().optional(),
    description: z.string().optional(),
    /** False: the server's tools and prompts keep their own names instead of `server__name` (one server a client expects by name). */
    prefix: z.boolean().optional().describe('false: expose this server\'s tools and prompts under their own names, not server__name (a name another server also uses gets a hashed suffix).'),
    /** "2026-07-28": the gateway opens the connection with server/discover and speaks that revision to the server (downstream/era-2026.ts). */
    protocolVersion: z.literal('2026-07-28').optional().describe('"2026-07-28": speak MCP 2026-07-28 to this server (server/discover, the per-request envelope, its own input_required relayed to the client). Only for servers that support it: a 2025-era server may fail on a request sent before initialize.'),
  });

  const RemoteServerSchema = z.strictObject({
    /** `http` (Streamable HTTP, with SSE fallback), `sse` (legacy SSE only). Cursor and VS Code spell the first `streamable-http`/`streamableHttp`. */
    type: z.enum(['http', 'sse', 'streamable-http', 'streamableHttp']).optional(),
    url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }),
    headers: z.record(z.string(), z.string()).optional(),
    disabled: z.boolean().optional(),
    timeout: z.number().int().positive().optional(),
    description: z.string().optional(),
    /** False: the server's tools and prompts keep their own names instead of `server__name` (one server a client expects by name). */
    prefix: z.boolean().optional().describe('false: expose this server\'s tools and prompts under their own names, not server__name (a name another server also uses gets a hashed suffix).'),
  });

  const ServerSchema = z.union([StdioServerSchema, RemoteServerSchema]);

  const DefaultModeSchema = z.enum(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']);

  const PermissionsSchema = z.strictObject({
    $schema: z.string().optional(),
    defaultMode: DefaultModeSchema.default('default').describe('What an unmatched subject gets: default (reads in the workspace and read-only commands allowed, the rest asks), acceptEdits, plan, dontAsk, bypassPermissions.'),
    allow: z.array(z.string()).default([]).describe('Rules that allow, e.g. "Bash(npm run test *)", "Read(src/**)", "mcp__fs__list_directory".'),
    ask: z.array(z.string()).default([]).describe('Rules that always ask, even when an allow rule matches, e.g. "Bash(git push *)".'),
    deny: z.array(z.string()).default([]).describe('Rules that deny whatever else matches, e.g. "Read(**/.env)", "Bash(rm *)".'),
  });

  const KindSchema = z.enum(['read', 'write', 'command', 'all']);

  const ToolOverrideSchema = section(() => z.strictObject({
    kind: KindSchema,
    /** Argument names holding paths; a bare name gets `write` access for write tools, `read` otherwise. */
    paths: z
      .array(z.union([z.string().min(1), z.strictObject({ arg: z.string().min(1), access: z.enum(['read', 'write']) })]))
      .optional(),
    /** Argument holding the shell command. */
    command: z.string().min(1).optional(),
    /** Argument holding the command's working directory. */
    cwd: z.string().min(1).optional(),
    /** Argument whose text goes to the command's stdin (code when the command is a shell). */
    stdin: z.string().min(1).optional(),
  }));

  const ApprovalSchema = section(() => z.strictObject({
    /** How long to wait for the human. Below the client's own limit (about 60 s for Claude Desktop). */
    timeoutSeconds: z.number().positive().max(86_400).default(50),
    /** What `ask` becomes when the client cannot show a prompt: the approval page opened in the browser (default), the page without opening it, or a denial. */
    fallback: z.enum(['deny', 'browser', 'browser-manual']).default('browser'),
    ordering: z.enum(['batch', 'none']).default('batch'),
    /** How long an approval given on the local page waits for the model to retry the identical call. */
    retryWindowSeconds: z.number().positive().max(3600).default(120),
    /** Seconds between `notifications/progress` heartbeats while waiting, when the client sent a progress token. */
    heartbeatSeconds: z.number().positive().max(60).default(5),
    /** Local networks ("ADDRESS/LENGTH") a server's URL-mode question may lead to; by default none (docs/threat-model.md, "The 2026-07-28 path"). */
    localUrlNetworks: z
      .array(z.string().refine(isNetwork, 'a network is written ADDRESS/LENGTH, such as "10.20.0.0/16" or "fd12:3456::/48"'))
      .default([]),
  }));

  const AuditSchema = section(() => z.strictObject({
    enabled: z.boolean().default(true),
    /** Defaults to `mcp-latch-audit.jsonl` next to the config file. */
    file: z.string().optional(),
  }));

  const LimitsSchema = section(() => z.strictObject({
    /** The largest message the client or a stdio server may send; a bigger one is answered with an error naming this key. */
    messageMB: z.number().positive().max(MAX_MESSAGE_MB).default(DEFAULT_MESSAGE_MB),
  }));

  const TimeoutsSchema = section(() => z.strictObject({
    /** Bound on one forwarded call; reset whenever the server reports progress. */
    callSeconds: z.number().positive().default(600),
    /** How long a session's first lists wait for servers still starting (clients known to keep only their first list wait startWaitSeconds). */
    firstListSeconds: z.number().nonnegative().default(5),
    /** How long a request naming what a starting server has not listed yet waits for it (and for a remote server's new session). */
    startWaitSeconds: z.number().nonnegative().default(30),
    /** Bound on connecting to one server (first `npx -y` downloads are slow). */
    connectSeconds: z.number().positive().default(120),
  }));

  /** The servers one wrapped client entry starts (`serve --scope NAME`), and that client's workspace. */
  const ScopeSchema = section(() => z.strictObject({
    servers: z.array(ServerNameSchema).describe('Names from mcpServers this scope starts; the others are not started or listed.'),
    workspace: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('Replaces the top-level workspace for this scope (a project file\'s servers get their project).'),
  }));

  const PolicySchema = section(() => z.strictObject({
    toolDescriptions: z
      .enum(['warn', 'hide', 'deny'])
      .default('warn')
      .describe('What a tool whose description or schema the scanner flagged (hidden characters, instructions to the model) gets: warn (listed, findings shown with its calls), hide (dropped from the list, calls denied), deny (listed, calls denied).'),
    addedTools: z
      .enum(['hold', 'ask'])
      .default('hold')
      .describe('A tool, prompt or resource template a server with pins adds after its first listing (a renamed or slipped-in one): hold (not listed until accepted; a call of the tool asks, a prompt or template is refused) or ask (listed at once; the tool\'s first call asks, even under an allow rule; a prompt or template is used as new), for servers that add them as they run.'),
  }));

  const UserIdSchema = z.string().regex(USER_ID, 'user ids may only use letters, digits, "_", ".", "@" and "-" (at most 128)');

  const HttpTokenSchema = section(() => z.strictObject({
    user: UserIdSchema,
    role: z
      .enum(['admin', 'user', 'approver'])
      .default('user')
      .describe('admin: may also read every user\'s pending calls and rules. approver: answers the user\'s waiting calls through /api and /approve and makes no calls; once a user has one, their other tokens no longer answer.'),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'sha256 is the hex SHA-256 of the token (`mcp-latch token` prints it); the token itself is never stored')
      .describe('Hex SHA-256 of the bearer token.'),
  }));

  const OAuthSchema = section(() => z.strictObject({
    issuer: z.url().describe('The authorization server; tokens must name it in "iss".'),
    jwksUrl: z
      .url()
      .refine(isTrustedKeysUrl, 'jwksUrl must be an https: URL (or http: to this machine: localhost, 127.0.0.1, [::1]): whoever answers a plain http: fetch of the issuer\'s keys on the way signs tokens for any user (docs/team.md#identity)')
      .describe("The issuer's JWKS (its public signing keys): https:, or http: to this machine only."),
    audience: z.string().min(1).optional().describe('What "aud" must hold; defaults to this gateway\'s resource URL (http.resource).'),
    userClaim: z.string().min(1).default('sub').describe('The claim holding the user id.'),
    admins: z.array(UserIdSchema).default([]).describe('User ids with the admin role.'),
    approveScope: z
      .string()
      .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'approveScope is one OAuth scope token (no spaces or quotes)')
      .optional()
      .describe('A scope that makes a token an approver credential (it answers calls, makes none); when set, a token without it cannot answer.'),
    tokenTypes: z
      .array(z.string().regex(/^[\x21-\x7e]*$/, 'each token type is a "typ" header value such as "at+jwt", or "" for a token without one'))
      .min(1)
      .default(['at+jwt'])
      .describe('The "typ" header values an access token may carry (case-insensitive, "application/" optional; "" for none). RFC 9068 access tokens are "at+jwt"; an identity provider that issues others ("JWT", none) must be named here.'),
    clients: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('The OAuth clients whose tokens are accepted: the token\'s "client_id" (RFC 9068), else its "azp", must be one of them. Unset: any client the issuer gave a token for this audience.'),
    members: z
      .array(UserIdSchema)
      .min(1)
      .optional()
      .describe('The user ids (values of userClaim) who are members; with groups, a member is named here or carries one of them. Unset with groups unset: every user the issuer gives a token for this audience.'),
    groups: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('A token carrying one of these in its groupsClaim is a member (its user need not be in members). A token without the claim, or with one that is not a list of strings, is no member.'),
    groupsClaim: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .default('groups')
      .describe('Where groups looks: a claim\'s name ("groups", "roles", "https://example.com/groups"), or the path of keys to a nested one (["realm_access", "roles"]). It holds a list of strings, or one string of names separated by spaces.'),
    maxTokenAgeSeconds: z
      .number()
      .int()
      .positive()
      .max(2_592_000)
      .optional()
      .describe('A token is accepted only this long after its "iat" (which it must then carry), whatever its "exp": the longest a user the identity provider no longer lets in (removed from a group of groups, or from the gateway\'s application) keeps access with a token issued before. Unset: until the token\'s "exp".'),
    keysCacheSeconds: z.number().positive().max(86_400).default(600).describe("How long a fetched key set is used before it is fetched again."),
    staleKeysSeconds: z
      .number()
      .min(0)
      .max(86_400)
      .default(3600)
      .describe("How long past keysCacheSeconds the last key set fetched is still used while the issuer cannot be reached (logged); 0 refuses every token then."),
  }));

  const HttpSchema = z.strictObject({
    tokens: z.array(HttpTokenSchema).default([]).describe('Bearer tokens, stored as SHA-256 hashes, each mapped to a user id.'),
    oauth: OAuthSchema.optional().describe('OAuth 2.1 resource-server mode: JWT access tokens checked against the issuer\'s JWKS.'),
    resource: z.url().optional().describe('This gateway\'s MCP URL as clients reach it (behind a proxy); defaults to http://HOST:PORT/mcp.'),
    allowPlainHttp: z
      .boolean()
      .default(false)
      .describe('Listen on an address beyond loopback though http.resource is not an https: URL: every token and call then crosses the network in clear. Only on a network you trust; else put a TLS proxy in front and set http.resource to its https: URL.'),
    allowedHosts: z.array(z.string().min(1)).default([]).describe('Host header values accepted besides the bound address (DNS-rebinding protection).'),
    allowedOrigins: z.array(z.string().min(1)).default([]).describe('Origin header values accepted (browsers); none by default besides the gateway\'s own.'),
    sessionIdleSeconds: z
      .number()
      .positive()
      .max(2_592_000)
      .default(DEFAULT_SESSION_IDLE_SECONDS)
      .describe('An MCP session with no request open for this long is closed (a client that left without DELETE); its waiting calls are withdrawn and never run.'),
    maxSessions: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_MAX_SESSIONS)
      .describe('Live MCP sessions this gateway keeps at most, all users together; an initialize past it is refused (503).'),
    maxSessionsPerUser: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_MAX_SESSIONS_PER_USER)
      .describe('Live MCP sessions one user keeps at most; an initialize past it is refused (429).'),
    maxWaitingCallsPerUser: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_MAX_WAITING_CALLS_PER_USER)
      .describe('Calls of one user waiting for approval (or behind one) at once, all their sessions together; a call past it is denied at once.'),
    maxRememberedRulesPerUser: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_MAX_REMEMBERED_RULES_PER_USER)
      .describe('Rules one user keeps by "Always allow" at most (the team store, or users.<id>.permissions.allow with the embedded store); past it, an "Always allow" holds for the session only.'),
    maxWaitingMBPerUser: z
      .number()
      .positive()
      .default(DEFAULT_MAX_WAITING_MB_PER_USER)
      .describe('MiB of arguments the waiting calls of one user hold together; a call past it is denied at once.'),
    maxReadingMBPerUser: z
      .number()
      .positive()
      .default(DEFAULT_MAX_READING_MB_PER_USER)
      .describe('MiB of request bodies one user sends at once, all their connections together (one body alone may always reach limits.messageMB); a request past it is refused (429).'),
    maxUnreadMBPerUser: z
      .number()
      .positive()
      .default(DEFAULT_MAX_UNREAD_MB_PER_USER)
      .describe('MiB of answers and messages one user\'s responses hold that their client has not read, all their sessions together; past it, the session a message goes to is closed (its open responses ended).'),
    maxUnauthenticatedConnections: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS)
      .describe('Connections that have made no authenticated request yet, kept at most; a new one past it closes the oldest (a member\'s connection leaves the count with its first request).'),
    maxConnectionsPerUser: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_MAX_CONNECTIONS_PER_USER)
      .describe('Open connections of one user (each counted from its first authenticated request until it closes, as the user of its latest request); a request that would make one more is refused (429) and its connection closed.'),
  });

  /** A user's own rules on top of the team's; a team deny or ask still wins over their allow. */
  const UserOverlaySchema = section(() => z.strictObject({
    permissions: z
      .strictObject({
        defaultMode: DefaultModeSchema.optional(),
        allow: z.array(z.string()).default([]),
        ask: z.array(z.string()).default([]),
        deny: z.array(z.string()).default([]),
      })
      .default({ allow: [], ask: [], deny: [] }),
  }));

  const StoreSchema = section(() =>
    z
    .strictObject({
      url: z.string().min(1).optional().describe('A Redis URL shared by the replicas of a team gateway; without it state stays in this process. Keep the password out of it: passwordEnv or passwordFile.'),
      passwordEnv: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'passwordEnv is the name of an environment variable')
        .optional()
        .describe("The environment variable holding the Redis password (it replaces one in url)."),
      passwordFile: z.string().min(1).optional().describe("A file holding the Redis password, relative to this file or ~/…; no tool may read it (it replaces one in url)."),
      signingKeyFile: z
        .string()
        .min(1)
        .optional()
        .describe('A file whose first line (32 characters or more) is the key every replica signs and checks answers, remembered rules and session grants in Redis with; relative to this file or ~/…; no tool may read it. Without it they are not signed: whoever can write to Redis answers every member\'s calls.'),
    })
    .refine((store) => store.passwordEnv === undefined || store.passwordFile === undefined, { message: 'give the Redis password by passwordEnv or by passwordFile, not both' }),
  );

  const ConfigSchema = z.strictObject({
    $schema: z.string().optional(),
    mcpServers: z
      .record(ServerNameSchema, ServerSchema)
      .default({})
      .describe('The servers mcp-latch starts or connects to, in the shape Claude Desktop, Cursor and Claude Code use. Their tools are exposed as <server>__<tool>.'),
    workspace: z
      .union([z.string(), z.array(z.string())])
      .default([])
      .describe('Project roots (relative to this file). Relative rule paths are anchored here; reads inside are allowed by the default mode. The client\'s MCP roots are added.'),
    scopes: z
      .record(z.string().min(1), ScopeSchema)
      .default({})
      .describe('Server selections per client file, written by `mcp-latch init`: `serve --scope NAME` starts only that scope\'s servers. The rules are shared.'),
    permissions: PermissionsSchema.default({ defaultMode: 'default', allow: [], ask: [], deny: [] }).describe('Rules, Claude Code syntax: deny, then ask, then allow, then the mode.'),
    tools: z
      .record(z.string(), ToolOverrideSchema)
      .default({})
      .describe('Per-tool classification by exposed name (server__tool): kind and which arguments hold paths, the command and its working directory. Beats built-in profiles and heuristics.'),
    approval: ApprovalSchema.default({ timeoutSeconds: 50, fallback: 'browser', ordering: 'batch', retryWindowSeconds: 120, heartbeatSeconds: 5, localUrlNetworks: [] }),
    audit: AuditSchema.default({ enabled: true }),
    timeouts: TimeoutsSchema.default({ callSeconds: 600, firstListSeconds: 5, startWaitSeconds: 30, connectSeconds: 120 }),
    limits: LimitsSchema.default({ messageMB: DEFAULT_MESSAGE_MB }).describe('Sizes mcp-latch accepts. Read when it starts.'),
    policy: PolicySchema.default({ toolDescriptions: 'warn', addedTools: 'hold' }).describe('How the gateway treats what servers say about their tools.'),
    // Absent: its defaults (no tokens, the limits), so the schema is the one home of each default.
    http: HttpSchema.prefault({}).describe('`serve --http`: who may connect and as whom (docs/team.md).'),
    users: z.record(UserIdSchema, UserOverlaySchema).default({}).describe('Per-user overlays of a team gateway: their own allow/ask/deny and mode on top of permissions; "Always allow" answers are saved here.'),
    store: StoreSchema.optional().describe('Where a team gateway keeps pending calls, grants and remembered rules (docs/team.md).'),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  });

  return { config: ConfigSchema, stdioServer: StdioServerSchema, remoteServer: RemoteServerSchema, server: ServerSchema, scope: ScopeSchema, http: HttpSchema };
}

type Schemas = ReturnType<typeof configSchemas>;
export type StdioServer = z.infer<Schemas['stdioServer']>;
export type RemoteServer = z.infer<Schemas['remoteServer']>;
export type ServerConfig = z.infer<Schemas['server']>;
export type ScopeConfig = z.infer<Schemas['scope']>;
export type HttpConfig = z.infer<Schemas['http']>;

/** The validated file, defaults applied. */
export type ConfigFile = z.infer<Schemas['config']>;
/** What a user may write (everything optional that has a default). */
export type ConfigInput = z.input<Schemas['config']>;

export function isRemoteServer(server: ServerConfig): server is RemoteServer {
  return 'url' in server;
}

/** The JSON Schema shipped in the package (`schema/mcp-latch.schema.json`) so editors complete and check the file. */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchemas().config, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    ...schema,
    $id: 'https://github.com/mcp-latch/mcp-latch/schema/mcp-latch.schema.json',
    title: 'mcp-latch configuration',
  };
}

/** True when `text` is ADDRESS/LENGTH: an IPv4 or IPv6 address and a prefix length it can have. */
function isNetwork(text: string): boolean {
  const [address = '', length = '', ...rest] = text.split('/');
  const family = isIP(address);
  return rest.length === 0 && family !== 0 && /^\d{1,3}$/.test(length) && Number(length) <= (family === 4 ? 32 : 128);
}
