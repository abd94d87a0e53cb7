import { readFileSync } from 'node:fs';
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from 'jsonc-parser';
import { LatchError } from '../errors.js';
import type { ServerConfig } from '../config/schema.js';

/**
 * A client's MCP config file as read by `mcp-latch init`: where it is, which format it uses, its
 * exact bytes, and the servers block. Client files are JSONC (VS Code and Cursor allow comments and
 * trailing commas), so they are read and edited with jsonc-parser, which changes only the byte range
 * of the value it replaces: comments, formatting and every other setting stay as they were.
 */

/** The application a config file belongs to. */
export type ClientFamily = 'claude-desktop' | 'cursor' | 'vscode' | 'claude-code' | 'windsurf' | 'cline' | 'other';

/** One known config file of a client; what `--client` names. `file` is an explicit `--from` file of no known client. */
export type ClientId =
  | 'claude-desktop'
  | 'claude-code-user'
  | 'claude-code'
  | 'cursor'
  | 'cursor-project'
  | 'vscode-user'
  | 'vscode'
  | 'windsurf'
  | 'cline'
  | 'file';

/** What a format needs to translate client variables (`${workspaceFolder}`, `${input:…}`, `${VAR}`). */
export interface EntryContext {
  family: ClientFamily;
  home: string;
  platform: NodeJS.Platform;
  /** The folder `${workspaceFolder}` stands for: the project of a project-scoped file, else the init workspace. */
  workspaceFolder: string;
  /** True when `workspaceFolder` is a guess (user-level file), so the substitution is reported as a warning. */
  workspaceFolderGuessed: boolean;
  /**
   * The folder a project-scoped client starts its servers in. mcp-latch resolves a relative `cwd`
   * against its own config file instead, so relative paths are anchored here while importing.
   */
  projectDir?: string | undefined;
}

/** One client entry converted to mcp-latch's shape, or why it was not. */
export type EntryResult =
  | {
      ok: true;
      server: ServerConfig;
      /** Tools the client hides (Windsurf `disabledTools`); init turns them into `mcp__name__tool` deny rules. */
      disabledTools: string[];
      notes: string[];
      warnings: string[];
    }
  | { ok: false; self: boolean; reason: string };

/** How the entry that starts mcp-latch is launched. */
export interface Launch {
  command: string;
  args: string[];
}

/** One client config format: where its servers live and how its entries map to mcp-latch's. */
export interface ClientFormat {
  name: 'mcpServers' | 'vscode' | 'windsurf';
  /** The top-level key holding the servers. */
  serversKey: 'mcpServers' | 'servers';
  toServer(name: string, raw: unknown, context: EntryContext): EntryResult;
  /** The single entry `--wrap` leaves in the servers block. */
  gatewayEntry(launch: Launch): Record<string, unknown>;
}

/** A config file of a client, found or given with `--from`. */
export interface ClientLocation {
  id: ClientId;
  family: ClientFamily;
  /** For people: "Cursor (project)". */
  label: string;
  path: string;
  scope: 'user' | 'project';
  format: ClientFormat;
  /** The project folder of a project-scoped file (parent of `.vscode`, `.cursor`, or of `.mcp.json`). */
  projectDir?: string;
}

/** A client file read from disk. */
export interface ClientFile {
  location: ClientLocation;
  /** The exact bytes, to back up and to compare against later. */
  bytes: Buffer;
  text: string;
  data: Record<string, unknown>;
  /** The servers block in file order; empty when the key is missing. */
  entries: Array<[string, unknown]>;
}

const BOM = '\uFEFF';

/** Parses JSONC (comments, trailing commas); throws CONFIG_INVALID naming the file, line and column. */
export function parseJsonc(text: string, path: string): unknown {
  const errors: ParseError[] = [];
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  const value: unknown = parse(body, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first) {
    const before = body.slice(0, first.offset).split('\n');
    const where = `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
    throw new LatchError('CONFIG_INVALID', `cannot parse ${path}: ${printParseErrorCode(first.error)} at ${where}`);
  }
  return value;
}

/** Reads a client file; throws CONFIG_INVALID when it is not JSON(C) or not an object. */
export function readClientFile(location: ClientLocation): ClientFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(location.path);
  } catch (error) {
    throw new LatchError('CONFIG_NOT_FOUND', `cannot read ${location.path}: ${(error as Error).message}`, { cause: error });
  }
  const text = bytes.toString('utf8');
  const data = parseJsonc(text, location.path);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new LatchError('CONFIG_INVALID', `${location.path} is not a JSON object`);
  }
  const record = data as Record<string, unknown>;
  const block = record[location.format.serversKey];
  let entries: Array<[string, unknown]> = [];
  if (block !== undefined) {
    if (typeof block !== 'object' || block === null || Array.isArray(block)) {
      throw new LatchError('CONFIG_INVALID', `${location.path}: "${location.format.serversKey}" is not an object`);
    }
    entries = Object.entries(block);
  }
  return { location, bytes, text, data: record, entries };
}

/**
 * The file's text with its servers block replaced by `block`, everything else byte for byte. The
 * new block is indented like the file (tabs or N spaces, its line ending); a file written on one
 * line gets the block on one line too.
 */
export function replaceServersBlock(text: string, key: string, block: Record<string, unknown>): string {
  const bom = text.startsWith(BOM) ? BOM : '';
  const body = bom ? text.slice(1) : text;
  const formatting = detectFormatting(body);
  const edits = modify(body, [key], block, formatting ? { formattingOptions: formatting } : {});
  return bom + applyEdits(body, edits);
}

function detectFormatting(text: string): FormattingOptions | undefined {
  const trimmed = text.trim();
  // A minified file stays minified: no formatting means jsonc-parser inserts compact JSON.
  if (!/\r?\n/.test(trimmed)) return undefined;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indents = [...text.matchAll(/\n([ \t]+)["/}\]]/g)].map((match) => match[1] ?? '');
  if (indents.some((indent) => indent.startsWith('\t'))) return { insertSpaces: false, tabSize: 4, eol };
  const sizes = indents.map((indent) => indent.length).filter((size) => size > 0);
  const tabSize = sizes.length > 0 ? Math.min(...sizes) : 2;
  return { insertSpaces: true, tabSize, eol };
}
