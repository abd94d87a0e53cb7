import { readFileSync } from 'node:fs';
import { applyEdits, findNodeAtLocation, modify, parse, parseTree, printParseErrorCode, type FormattingOptions, type ParseError } from 'jsonc-parser';
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
  | 'claude-code-local'
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
  /**
   * The project of a project-scoped file: what `${workspaceFolder}` stands for, and the folder the
   * client starts its servers in. mcp-latch resolves a relative `cwd` against its own config file
   * and starts a server without one in its own working directory, so these servers get it as `cwd`.
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

/**
 * One servers block of a client, found or given with `--from`: usually a file's top-level block;
 * `~/.claude.json` also holds one per project (Claude Code's local scope) under `projects[dir]`.
 */
export interface ClientLocation {
  id: ClientId;
  family: ClientFamily;
  /** For people: "Cursor (project)". */
  label: string;
  path: string;
  /** `local`: Claude Code's per-project block in `~/.claude.json` (private to this user). */
  scope: 'user' | 'project' | 'local';
  format: ClientFormat;
  /** The JSON path of the servers block: `["mcpServers"]`, `["projects", "/home/me/app", "mcpServers"]`. */
  blockPath: string[];
  /** The project folder of a project-scoped block (parent of `.vscode`, `.cursor`, or of `.mcp.json`). */
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

/** The value at a JSON path, or undefined. */
export function valueAt(data: unknown, path: readonly string[]): unknown {
  let value = data;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
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
    throw new LatchError('CLIENT_FILE_INVALID', `cannot parse ${path}: ${printParseErrorCode(first.error)} at ${where}`);
  }
  return value;
}

/** Reads a client file; throws CONFIG_INVALID when it is not JSON(C) or not an object. */
export function readClientFile(location: ClientLocation): ClientFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(location.path);
  } catch (error) {
    throw new LatchError('CLIENT_FILE_INVALID', `cannot read ${location.path}: ${(error as Error).message}`, { cause: error });
  }
  const text = bytes.toString('utf8');
  const data = parseJsonc(text, location.path);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new LatchError('CLIENT_FILE_INVALID', `${location.path} is not a JSON object`);
  }
  return clientBlock(location, bytes, data as Record<string, unknown>);
}

/** The block at `location.blockPath` of a parsed file. */
export function clientBlock(location: ClientLocation, bytes: Buffer, data: Record<string, unknown>): ClientFile {
  const block = valueAt(data, location.blockPath);
  let entries: Array<[string, unknown]> = [];
  if (block !== undefined) {
    if (typeof block !== 'object' || block === null || Array.isArray(block)) {
      throw new LatchError('CLIENT_FILE_INVALID', `${location.path}: "${location.blockPath.join('.')}" is not an object`);
    }
    entries = Object.entries(block);
  }
  return { location, bytes, text: bytes.toString('utf8'), data, entries };
}

/**
 * Sets (or, with `undefined`, removes) the value at `path` of a JSONC text, everything else byte
 * for byte. New values are indented like the file (tabs or N spaces, its line ending); a file written
 * on one line gets them on one line too. `first` puts a new property first in its object.
 */
export function editJsonc(text: string, path: string[], value: unknown, first = false): string {
  const bom = text.startsWith(BOM) ? BOM : '';
  const body = bom ? text.slice(1) : text;
  const formatting = detectFormatting(body);
  const edits = modify(body, path, value, { ...(formatting ? { formattingOptions: formatting } : {}), ...(first ? { getInsertionIndex: () => 0 } : {}) });
  return bom + applyEdits(body, edits);
}

/**
 * The text without the properties `names` of the object at `path`, each with its comma and, when it
 * stands on lines of its own, those lines; comments before a neighbouring property stay with it.
 * A comment holding a comma right after a removed value would confuse it; clients do not write those.
 * (jsonc-parser's own removal reformats the neighbours and drops comments between them.)
 */
export function removeProperties(text: string, path: string[], names: string[]): string {
  const shift = text.startsWith(BOM) ? 1 : 0;
  const body = text.slice(shift);
  const root = parseTree(body, [], { allowTrailingComma: true, disallowComments: false });
  const object = root ? findNodeAtLocation(root, path) : undefined;
  if (!object || object.type !== 'object') return text;
  const cuts: Array<[number, number]> = [];
  const properties = object.children ?? [];
  properties.forEach((property, index) => {
    const key = property.children?.[0]?.value;
    if (typeof key !== 'string' || !names.includes(key)) return;
    let start = property.offset;
    let end = property.offset + property.length;
    const after = /^[ \t]*,/.exec(body.slice(end));
    if (after) end += after[0].length;
    else {
      // The last property had no comma: the one after the nearest kept property before it goes.
      const kept = properties.slice(0, index).reverse().find((other) => !names.includes(String(other.children?.[0]?.value)));
      const keptEnd = kept ? kept.offset + kept.length : -1;
      const comma = kept ? /^[ \t]*,/.exec(body.slice(keptEnd)) : null;
      if (comma) cuts.push([keptEnd, keptEnd + comma[0].length]);
    }
    const lineStart = body.lastIndexOf('\n', start - 1) + 1;
    const lineEnd = body.indexOf('\n', end);
    if (/^[ \t]*$/.test(body.slice(lineStart, start)) && lineEnd >= 0 && /^[ \t]*\r?$/.test(body.slice(end, lineEnd))) {
      start = lineStart;
      end = lineEnd + 1;
    }
    cuts.push([start, end]);
  });
  let out = body;
  for (const [start, end] of cuts.sort((x, y) => y[0] - x[0])) out = out.slice(0, start) + out.slice(end);
  return text.slice(0, shift) + out;
}

/** The exact text of the value at `path` and where it is, or undefined when there is none. */
export function valueRange(text: string, path: string[]): { offset: number; length: number; text: string } | undefined {
  const shift = text.startsWith(BOM) ? 1 : 0;
  const body = text.slice(shift);
  const root = parseTree(body, [], { allowTrailingComma: true, disallowComments: false });
  const node = root ? findNodeAtLocation(root, path) : undefined;
  if (!node) return undefined;
  return { offset: node.offset + shift, length: node.length, text: body.slice(node.offset, node.offset + node.length) };
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
