import { existsSync, readFileSync, rmSync } from 'node:fs';
import { LatchError } from '../errors.js';
import { isPlainObject } from '../values.js';
import { writeFileAtomic } from './backup.js';

/**
 * `mcp-latch-init.json` beside the config: what each `init --wrap` changed in each servers block, so
 * `init --undo` can make the same edit in reverse on whatever the file holds by then. It keeps the
 * entries moved into mcp-latch (tokens included), so it is written readable by its owner only.
 *
 *   { "version": 2, "config": "/home/me/.config/mcp-latch/mcp-latch.json",
 *     "wrapped": [{ "client": "cursor", "label": "Cursor", "file": "/home/me/.cursor/mcp.json",
 *                   "blockPath": ["mcpServers"], "scope": "cursor", "entry": "latch",
 *                   "removed": [["fs", { "command": "npx", … }]], "originalBlock": "{\n    \"fs\": …}",
 *                   "written": { "latch": { … } }, "backup": "…/backups/20260314T093005Z_home_me_.cursor_mcp.json",
 *                   "wrappedAt": "2026-03-14T09:30:05.000Z" }] }
 */
export interface WrapRecord {
  client: string;
  label: string;
  file: string;
  /** The JSON path of the servers block in the file. */
  blockPath: string[];
  scope: string;
  /** The name of the gateway entry this wrap put in the block. */
  entry: string;
  /** The entries moved into mcp-latch, as the client wrote them, in file order. */
  removed: Array<[string, unknown]>;
  /** The block's text before this wrap: undo puts it back as it was when the block is still as written. */
  originalBlock: string | null;
  /** The block's value right after this wrap. */
  written: unknown;
  /** A copy of the whole file before this wrap. */
  backup: string;
  wrappedAt: string;
}

export interface InitManifest {
  version: 2;
  config: string;
  wrapped: WrapRecord[];
}

/** The manifest, or undefined when there is none; throws CONFIG_INVALID when it is unreadable. */
export function readManifest(path: string): InitManifest | undefined {
  if (!existsSync(path)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new LatchError('CLIENT_FILE_INVALID', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (isPlainObject(data) && data.version === 1) {
    const backups = Array.isArray(data.wrapped) ? data.wrapped.map((record: unknown) => (isPlainObject(record) ? `${String(record.file)} ← ${String(record.backup)}` : '')).join(', ') : '';
    throw new LatchError('CLIENT_FILE_INVALID', `${path} was written by an earlier mcp-latch that kept whole-file backups; restore by hand if you need to: ${backups}`);
  }
  const valid =
    isPlainObject(data) &&
    data.version === 2 &&
    typeof data.config === 'string' &&
    Array.isArray(data.wrapped) &&
    data.wrapped.every((record: unknown) => isPlainObject(record) && typeof record.file === 'string' && Array.isArray(record.blockPath) && Array.isArray(record.removed) && typeof record.entry === 'string');
  if (!valid) throw new LatchError('CLIENT_FILE_INVALID', `${path} is not an mcp-latch init manifest (expected version 2 with a "wrapped" list)`);
  return data as unknown as InitManifest;
}

/** Writes the manifest atomically (owner-only), or deletes it when nothing is left to undo. */
export function writeManifest(path: string, manifest: InitManifest): void {
  if (manifest.wrapped.length === 0) {
    rmSync(path, { force: true });
    return;
  }
  writeFileAtomic(path, `${JSON.stringify(manifest, null, 2)}\n`, 0o600);
}
