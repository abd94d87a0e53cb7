import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { formatKeyPath } from '../config/json.js';
import { RpcError } from '../errors.js';
import { escapeText } from '../latch/escape.js';

/**
 * A server's answer that the MCP schema refuses, told in one line. zod's own message is a JSON dump
 * of every branch of every union: a content block of an unknown type made 150 lines.
 *
 *   { content: [{ type: 'nonsense', text: 'x' }] }  →  content[0].type must be one of "text", "image", …
 *   { messages: [{ role: 'robot', … }] }            →  messages[0].role must be one of "user", "assistant"
 *   { contents: [{ uri: 'u', text: 7 }] }           →  contents[0].text: expected string, received number
 */

/** One problem as zod (the SDK's schemas) reports it: only what is read here. */
export interface SchemaIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  values?: unknown[];
  keys?: string[];
  errors?: SchemaIssue[][];
}

/** A server's answer the MCP schema refused, as the client gets it (invalidAnswer). */
export class InvalidAnswer extends RpcError {}

/**
 * The error the client gets for a server's answer the schema refuses: -32603, since the server is at
 * fault, not the client's params (-32602 said the opposite). `subject` is the tool, prompt or
 * resource asked for; a tools/call was forwarded, and the text says so.
 */
export function invalidAnswer(server: string, method: string, subject: string | null, problem: string): InvalidAnswer {
  const asked = subject === null ? method : `${method} "${escapeText(subject)}"`;
  const forwarded = method === 'tools/call' ? '; the call was forwarded to the server and may have had effects' : '';
  return new InvalidAnswer(ErrorCode.InternalError, `mcp-latch: server "${escapeText(server)}" answered ${asked} with an invalid result: ${problem}${forwarded}.`);
}

/** The first of zod's issues in one line, escaped (a server chose the keys and values it names); `base` is where the value checked sits in the answer. */
export function answerProblem(issues: readonly SchemaIssue[], base: PropertyKey[] = []): string {
  const first = issues[0];
  return first ? escapeText(describe(first, base)) : 'it does not match the MCP schema';
}

/**
 * The problem when `error` is the SDK Client's rejection of an answer its schema refused; null for
 * any other error. The Client parses with zod's core, whose errors are named `$ZodError`.
 */
export function schemaProblem(error: unknown): string | null {
  if (!(error instanceof Error) || (error.name !== '$ZodError' && error.name !== 'ZodError')) return null;
  const { issues } = error as Error & { issues?: unknown };
  return Array.isArray(issues) ? answerProblem(issues as SchemaIssue[]) : null;
}

function describe(issue: SchemaIssue, base: PropertyKey[]): string {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors && issue.errors.length > 0) {
    // A union told apart by `type` (content blocks): a type none of its forms has is the problem;
    // otherwise the form the value chose, or the one it misses least, names it.
    const wrongTypes = issue.errors.map((branch) => branch.find((inner) => inner.code === 'invalid_value' && inner.path.length === 1 && inner.path[0] === 'type'));
    if (wrongTypes.every((inner) => inner !== undefined)) return `${where([...path, 'type'])} must be one of ${quoted(wrongTypes.flatMap((inner) => inner.values ?? []))}`;
    const candidates = issue.errors.filter((branch, index) => wrongTypes[index] === undefined && branch.length > 0);
    const closest = candidates.reduce((best, branch) => (branch.length < best.length ? branch : best), candidates[0] ?? []);
    if (closest[0]) return describe(closest[0], path);
  }
  if (issue.code === 'invalid_value' && issue.values && issue.values.length > 0) {
    return `${where(path)} must be ${issue.values.length === 1 ? quoted(issue.values) : `one of ${quoted(issue.values)}`}`;
  }
  if (issue.code === 'unrecognized_keys' && issue.keys) return `${where(path)} has keys the schema does not allow: ${quoted(issue.keys)}`;
  return `${where(path)}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

function where(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'the result' : formatKeyPath(path.map((key) => (typeof key === 'symbol' ? String(key) : key)));
}

function quoted(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value) ?? String(value)).join(', ');
}
