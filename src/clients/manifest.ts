import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LatchError } from '../errors.js';
import { writeFileAtomic } from './backup.js';

/**
 * `mcp-latch-init.json` beside the config: what `init --wrap` changed, so `init --undo` can put it
 * back. One record per write; a file wrapped twice (init run again after the user added a server)
 * has two, and undo restores the oldest backup, the file as it was before mcp-latch touched it.
 *
 *   { "version": 1, "config": "/home/me/.config/mcp-latch/mcp-latch.json",
 *     "wrapped": [{ "client": "cursor", "file": "/home/me/.cursor/mcp.json",
 *                   "backup": "/home/me/.cursor/mcp.json.mcp-latch-backup-20260314T093005Z",
 *                   "sha256": "<hash of what init wrote>", "wrappedAt": "2026-03-14T09:30:05.000Z" }] }
 */
/** One client file init rewrote: its backup and the hash of the text init wrote. */
export interface WrapRecord {
  client: string;
  label: string;
  file: string;
  backup: string;
  sha256: string;
  wrappedAt: string;
}

/** The whole manifest file. */
export interface InitManifest {
  version: 1;
  config: string;
  wrapped: WrapRecord[];
}

/** `<config stem>-init.json` in the config's folder (`mcp-latch.json` → `mcp-latch-init.json`). */
export function manifestPath(configPath: string): string {
  const stem = basename(configPath).replace(/\.jsonc?$/i, '');
  return join(dirname(configPath), `${stem}-init.json`);
}

/** The manifest, or undefined when there is none; throws CONFIG_INVALID when it is unreadable. */
export function readManifest(path: string): InitManifest | undefined {
  if (!existsSync(path)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new LatchError('CONFIG_INVALID', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const manifest = data as Partial<InitManifest>;
  const valid =
    manifest?.version === 1 &&
    typeof manifest.config === 'string' &&
    Array.isArray(manifest.wrapped) &&
    manifest.wrapped.every((record) => ['client', 'file', 'backup', 'sha256'].every((key) => typeof (record as unknown as Record<string, unknown>)?.[key] === 'string'));
  if (!valid) throw new LatchError('CONFIG_INVALID', `${path} is not an mcp-latch init manifest (expected version 1 with a "wrapped" list)`);
  return manifest as InitManifest;
}

/** Writes the manifest atomically, or deletes it when nothing is left to undo. */
export function writeManifest(path: string, manifest: InitManifest): void {
  if (manifest.wrapped.length === 0) {
    rmSync(path, { force: true });
    return;
  }
  writeFileAtomic(path, `${JSON.stringify(manifest, null, 2)}\n`);
}
