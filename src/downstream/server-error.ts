import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { asRpcError, RpcError } from '../errors.js';
import { escapeStrings, escapeText, serversText } from '../latch/escape.js';
import { ServerReplyError } from './direct-calls.js';

/**
 * URLElicitationRequiredError of MCP 2025-11-25 (client/elicitation): an error answer whose
 * `data.elicitations` are URL-mode questions a client shows the person and offers to open.
 */
export const URL_ELICITATION_REQUIRED = -32042;

/** Why a server's URLElicitationRequiredError is not passed on (docs/approval.md, "A server's own questions"). */
export const URL_ERROR_REFUSAL = `it answered with URL-mode questions (URLElicitationRequiredError, ${URL_ELICITATION_REQUIRED}), which mcp-latch does not pass on: their URLs would reach the person without the checks its URL-mode questions get (https, not this machine, not a local network); the server can ask with elicitation/create in URL mode instead`;

/** A server's own JSON-RPC error (its answer, or the SDK Client's McpError made of it) as an RpcError; null for anything else. */
function asServers(error: unknown): RpcError | null {
  if (error instanceof ServerReplyError) return error;
  if (error instanceof Error && !(error instanceof RpcError) && error.name === 'McpError') return asRpcError(error) as RpcError;
  return null;
}

/** Whether `error` is a server's URLElicitationRequiredError. */
export function asksUrls(error: unknown): boolean {
  return asServers(error)?.code === URL_ELICITATION_REQUIRED;
}

/**
 * A server's JSON-RPC error as the gateway passes it on, or null when `error` is not one: its code as
 * sent, its message on one line, escaped and marked as the server's (serversText: `[server] …`, as
 * its progress is, so it cannot pass for the gateway's own "mcp-latch: …" lines; round 24 review
 * F5), every string of its data escaped (clients print it), since a client shows them to the person.
 * A URLElicitationRequiredError is not passed on as one: its questions would skip every check a
 * URL-mode `elicitation/create` gets (server-input.ts urlQuestionProblem, url-host.ts), so it becomes
 * an internal error naming why, its data dropped (round 23 review, F1).
 */
export function serverError(server: string, error: unknown): RpcError | null {
  const servers = asServers(error);
  if (!servers) return null;
  if (servers.code === URL_ELICITATION_REQUIRED) return new RpcError(ErrorCode.InternalError, `mcp-latch: server "${escapeText(server)}" ${URL_ERROR_REFUSAL}`);
  return new RpcError(servers.code, serversText(server, servers.message), escapeStrings(servers.data));
}
