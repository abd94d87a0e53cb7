/**
 * Local failures of mcp-latch. Expected outcomes (a denial, a decision) are values, not errors;
 * protocol faults use the SDK's McpError. A LatchError's message names the fix.
 */
export type LatchErrorCode =
  /** The config file is not valid JSON, does not match the schema, or holds a bad rule; `issues` lists each problem with its key path. */
  | 'CONFIG_INVALID'
  /** No config file was found in the lookup order of docs/config.md, or the named file does not exist. */
  | 'CONFIG_NOT_FOUND'
  /** A rule string cannot be parsed; the message names the rule and what is wrong. */
  | 'RULE_INVALID'
  /** A downstream server did not start or did not complete its handshake. */
  | 'SERVER_START_FAILED'
  /** A call was made to a server that is not connected (starting, crashed, restarting, stopped). */
  | 'SERVER_UNAVAILABLE'
  /** Writing the config file (remembered rules) or a client config file failed; nothing was changed. */
  | 'STORE_WRITE_FAILED'
  /** The team store (`store.url`, a Redis server) cannot be reached or refused the connection. */
  | 'STORE_UNAVAILABLE'
  /** A message from the client or a server is not JSON-RPC 2.0 (not JSON, a batch, a bad id), or an answer could not be serialised; it was answered with the JSON-RPC error or dropped. */
  | 'MESSAGE_INVALID'
  /** A message from the client or a server was larger than `limits.messageMB`; it was dropped and the request it belonged to answered with an error. */
  | 'MESSAGE_TOO_LARGE'
  /** The connection closed under a call: to a server while the call was there (it may have run), or to the client before an answer could be sent. */
  | 'CONNECTION_CLOSED'
  /** A client's config file (or `init`'s manifest) cannot be read or has an unexpected shape. */
  | 'CLIENT_FILE_INVALID'
  /** The gateway's state key (beside the config file) could not be made, others can read it, or it holds no key; paused calls then end with the process. */
  | 'STATE_KEY_UNUSABLE'
  /** `serve --http` without `http.tokens`/`http.oauth` could not write its secret file (beside the config), or found one there that is a link, another user's, or readable by others. */
  | 'HTTP_SECRET_UNUSABLE'
  /** Bad command-line or API usage; the message names the option and what it takes. */
  | 'USAGE'
  /** An invariant of mcp-latch itself broke (a bug); the call or command was stopped, nothing was forwarded. */
  | 'INTERNAL';

/** One problem in a config file, with the dot path of the key it concerns. */
export interface ConfigIssue {
  path: string;
  message: string;
}

export class LatchError extends Error {
  readonly code: LatchErrorCode;
  readonly issues: ConfigIssue[];

  constructor(code: LatchErrorCode, message: string, options: { cause?: unknown; issues?: ConfigIssue[] } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LatchError';
    this.code = code;
    this.issues = options.issues ?? [];
  }
}

/**
 * An add that would pass a bound of what is kept (a member's remembered rules, a session's grants:
 * docs/team.md): nothing was added. `kept` is how many there are. Checked in the same atomic step
 * as the write, so adds made at once cannot pass it together (round 32).
 */
export class BoundReached extends LatchError {
  constructor(
    readonly kept: number,
    message: string,
  ) {
    super('STORE_WRITE_FAILED', message);
    this.name = 'BoundReached';
  }
}

/**
 * A call its server's transport refused before anything was written (its message could not be
 * serialised: arguments or `_meta` nested past the stack): it was not run (direct-calls.ts send).
 */
export class NotSent extends LatchError {
  constructor(why: string, cause: unknown) {
    super('MESSAGE_INVALID', `its message could not be written for the server (${why})`, { cause });
    this.name = 'NotSent';
  }
}

/**
 * A JSON-RPC error for the client, its message as written. The SDK's McpError puts "MCP error
 * <code>: " before its message, and the client's SDK puts its own before what it receives: thrown
 * as is, every error would reach the person with the prefix twice.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/**
 * The answer of a call whose audit record could not be written (a full disk, an I/O error), which
 * was not forwarded (store/audit.ts): -32603, the same error on every path that keeps a call back,
 * each of which answers it instead of sending the call; `cause`: the audit's `lastFailure`.
 */
export function recordUnwritten(cause: string | null): RpcError {
  const why = cause === null ? '' : ` (${cause})`;
  return new RpcError(-32603, `mcp-latch: the audit record of this call could not be written${why}; the call was not forwarded`);
}

/**
 * The `data` of the error a stdio transport answers in a server's place for a call it kept back
 * (child-transport.ts withholdCalls), compared by identity: no server's answer can carry it, so the
 * gateway's own "not forwarded" is never taken for a server's error, nor a server's for it.
 */
export const KEPT_BACK: object = Object.freeze({});

/**
 * The `data` of the error a stdio transport answers in a server's place for a request it could not
 * write at all: the server had closed its stdin (child-transport.ts). Compared by identity, as
 * KEPT_BACK; a call answered with it was not run.
 */
export const NOT_WRITTEN: object = Object.freeze({});

/** The gateway's own error for a call a transport kept back (data KEPT_BACK, see above), without that data; null for any other error. */
export function keptBack(error: unknown): RpcError | null {
  if (!(error instanceof Error) || (error as { data?: unknown }).data !== KEPT_BACK) return null;
  const rpc = asRpcError(error);
  return rpc instanceof RpcError ? new RpcError(rpc.code, rpc.message) : null;
}

/** An McpError (the SDK's, or a server's error the SDK Client received) as an RpcError with the message as it was sent; anything else unchanged. */
export function asRpcError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof RpcError || error.name !== 'McpError') return error;
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  if (typeof code !== 'number') return error;
  const prefix = `MCP error ${code}: `;
  return new RpcError(code, error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message, data);
}

/** Bad command-line or API usage, with the fix in the message. */
export function usage(message: string): LatchError {
  return new LatchError('USAGE', message);
}

/** A broken invariant of mcp-latch itself. */
export function internalError(what: string): LatchError {
  return new LatchError('INTERNAL', `mcp-latch internal error: ${what}; please report it`);
}

/** The message of anything thrown, for logs and one-line CLI errors. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
