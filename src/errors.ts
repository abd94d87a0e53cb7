/**
 * Local failures of mcp-latch. Expected outcomes (a denial, a decision) are values, not errors;
 * protocol faults use the SDK's McpError. A LatchError's message names the fix.
 */
export type LatchErrorCode =
  /** The config file is not valid JSON or does not match the schema; `issues` lists each problem. */
  | 'CONFIG_INVALID'
  /** No config file was found in the lookup order of docs/config.md. */
  | 'CONFIG_NOT_FOUND'
  /** A rule string cannot be parsed; the message names the rule and what is wrong. */
  | 'RULE_INVALID'
  /** A downstream server could not be started or connected. */
  | 'SERVER_START_FAILED'
  /** A call was made to a server that is not connected (starting, crashed, restarting). */
  | 'SERVER_UNAVAILABLE'
  /** Writing the config file (remembered rules) failed. */
  | 'STORE_WRITE_FAILED'
  /** Bad command-line usage. */
  | 'USAGE';

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

/** The message of anything thrown, for logs and one-line CLI errors. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
