import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type ListRootsResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { isRemoteServer, type ServerConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { ChildTransport, childTransport, closedPipeText } from './child-transport.js';
import { speakModern } from './era-2026.js';
import { MODERN_VERSION } from '../mcp-2026.js';
import { errorMessage, LatchError } from '../errors.js';
import type { Prespawned } from './prespawn.js';
import type { RecordFailures } from '../store/audit.js';
import { SchemaValidators } from '../schema-validators.js';
import { RemoteBounds } from './remote-bounds.js';

/**
 * Connecting one downstream server: stdio child, Streamable HTTP, or legacy SSE (the fallback when
 * Streamable HTTP is refused with 400/404/405, with a fresh Client as the SDK example does).
 */

/** What the gateway does with a server's own requests and notifications. */
export interface RelayHooks {
  elicit(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
  sample(server: string, params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult>;
  listRoots(server: string, signal: AbortSignal): Promise<ListRootsResult>;
  onLog(server: string, params: LoggingMessageNotification['params']): void;
  onResourceUpdated(server: string, uri: string): void;
  onListChanged(server: string, what: 'tools' | 'resources' | 'prompts'): void;
}

export interface Connected {
  client: Client;
  transport: Transport;
  /** Process id of a stdio child (for tests and logs). */
  pid: number | null;
  /** The gateway speaks MCP 2026-07-28 to it (era-2026.ts): its tools/call may answer `input_required`. */
  modern: boolean;
}

export interface ConnectOptions {
  name: string;
  /** The audit's failures: a stdio server's transport holds calls back to them (child-transport.ts). */
  records?: RecordFailures;
  config: ServerConfig;
  /** Mirrored from the client above, so the server's own requests can be relayed. */
  capabilities: ClientCapabilities;
  hooks: RelayHooks;
  logger: Logger;
  timeoutMs: number;
  /** `limits.messageMB` in bytes: the largest message a server may send. */
  maxMessageBytes: number;
  version: string;
  /** Servers whose processes were started before the client initialized (see prespawn.ts). */
  prespawned?: Prespawned;
  /** Ends a handshake under way (the gateway is stopping): the connection is closed, a process with it. */
  signal?: AbortSignal;
}

type RemoteTransports = typeof import('@modelcontextprotocol/sdk/client/sse.js') & typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');

/** The SDK's HTTP and SSE transports load with the first remote server: a stdio-only gateway never needs them (docs/performance.md, "Memory"). */
let remote: RemoteTransports | undefined;

async function remoteTransports(): Promise<RemoteTransports> {
  const [sse, http] = await Promise.all([import('@modelcontextprotocol/sdk/client/sse.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js')]);
  return (remote ??= { ...sse, ...http });
}

/** Whether a remote server has loaded the HTTP and SSE transports (for tests). */
export function remoteTransportsLoaded(): boolean {
  return remote !== undefined;
}

export async function connectServer(options: ConnectOptions): Promise<Connected> {
  const { config } = options;
  const handshake = { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  if (!isRemoteServer(config)) {
    const transport = options.prespawned?.claim(options.name, config) ?? childTransport(config, () => options.logger, options.maxMessageBytes);
    if (options.records) transport.holdCallsOn(options.records);
    const client = newClient(options);
    const era = config.protocolVersion === MODERN_VERSION ? speakModern(transport, options.version, options.timeoutMs, options.logger) : null;
    try {
      await client.connect(transport, handshake);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new StartFailed(error, transport.stderrTail);
    }
    return { client, transport, pid: transport.pid, modern: era?.modern() ?? false };
  }
  const { SSEClientTransport, StreamableHTTPClientTransport, StreamableHTTPError } = await remoteTransports();
  const url = new URL(config.url);
  const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
  // Answers held to limits.messageMB, and a request left unanswered answered (remote-bounds.ts).
  const bounds = new RemoteBounds(options.maxMessageBytes);
  if (config.type !== 'sse') {
    const client = newClient(options);
    const transport = new StreamableHTTPClientTransport(url, { requestInit, fetch: bounds.fetch(fetch) });
    bounds.attach(transport, options.logger);
    try {
      await client.connect(transport, handshake);
      return { client, transport, pid: null, modern: false };
    } catch (error) {
      await client.close().catch(() => undefined);
      const refused = error instanceof StreamableHTTPError && [400, 404, 405].includes(error.code ?? 0);
      if (!refused) throw error;
      options.logger.info({ status: error.code }, 'Streamable HTTP refused; falling back to SSE');
    }
  }
  const client = newClient(options);
  const transport = new SSEClientTransport(url, { requestInit, fetch: bounds.fetch(fetch), eventSourceInit: { fetch: bounds.fetch(config.headers ? withHeaders(config.headers) : fetch) } });
  bounds.attach(transport, options.logger);
  await client.connect(transport, handshake);
  return { client, transport, pid: null, modern: false };
}

/** How a request to a remote server failed, when the connection failed rather than the server answering. */
export interface RemoteFailure {
  /** `ended`: the server does not know the session (HTTP 404); `unreachable`: nothing listens; `broken`: the connection failed midway. */
  kind: 'ended' | 'unreachable' | 'broken';
  message: string;
}

/**
 * A remote server's session is gone (HTTP 404: the transport spec says to start a new session), or
 * the connection failed; null for anything else (the server's own answers, other statuses).
 */
export function remoteFailure(error: unknown): RemoteFailure | null {
  // An error of a remote transport means its module was loaded.
  if (remote && (error instanceof remote.StreamableHTTPError || error instanceof remote.SseError) && error.code === 404) {
    return { kind: 'ended', message: 'the remote session ended (HTTP 404)' };
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const code = (error.cause as { code?: unknown } | undefined)?.code;
    const message = `the connection to the remote server failed (${typeof code === 'string' ? code : errorMessage(error.cause)})`;
    return { kind: code === 'ECONNREFUSED' ? 'unreachable' : 'broken', message };
  }
  return null;
}

/** A stdio server that did not complete its handshake, with what it last wrote to stderr. */
class StartFailed extends LatchError {
  constructor(
    cause: unknown,
    readonly stderr: readonly string[],
  ) {
    super('SERVER_START_FAILED', errorMessage(cause), { cause });
  }
}

/** The last stderr lines of a stdio server, from its connection or its failed start. */
export function stderrOf(connected: Connected | null, error: unknown): readonly string[] {
  if (error instanceof StartFailed) return error.stderr;
  return connected?.transport instanceof ChildTransport ? connected.transport.stderrTail : [];
}

function withHeaders(headers: Record<string, string>): typeof fetch {
  return (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string> | undefined), ...headers } });
}

function newClient(options: ConnectOptions): Client {
  const { name, hooks, capabilities } = options;
  // The SDK's default validator is an Ajv instance built with the Client, used only by Client.listTools
  // and callTool, which the gateway does not use: ours is built at its first schema (schema-validators.ts).
  const client = new Client({ name: 'mcp-latch', version: options.version }, { capabilities, jsonSchemaValidator: new SchemaValidators() });
  // Handlers only for what the client above declared: the SDK refuses the others, and declaring
  // a capability we cannot serve would make servers wait on prompts nobody sees.
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => hooks.elicit(name, request.params, extra.signal));
  }
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => hooks.sample(name, request.params, extra.signal));
  }
  if (capabilities.roots) {
    client.setRequestHandler(ListRootsRequestSchema, (_request, extra) => hooks.listRoots(name, extra.signal));
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => hooks.onLog(name, notification.params));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => hooks.onResourceUpdated(name, notification.params.uri));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.onListChanged(name, 'tools'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => hooks.onListChanged(name, 'resources'));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => hooks.onListChanged(name, 'prompts'));
  return client;
}

/** What a stdio server did that made its transport stop it (it closed its stdin or stdout while it ran on), as text; null: it exited, or it is not a stdio server. */
export function closedPipeOf(connected: Connected): string | null {
  const pipe = connected.transport instanceof ChildTransport ? connected.transport.stoppedFor : null;
  return pipe === null ? null : closedPipeText(pipe);
}
