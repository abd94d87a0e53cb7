import { createHash } from 'node:crypto';
import { chmodSync, constants, copyFileSync, existsSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The file operations behind "never overwrite anything without a backup": timestamped copies next
 * to the original, atomic replacement that keeps the file's mode and writes through symlinks (a
 * dotfile managed by stow stays a link), and the hash that tells our own write from a later edit.
 */

/** `20260314T093005Z`: UTC, sortable, safe in file names on every platform. */
export function backupStamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
}

/** The hex SHA-256 of some bytes. */
export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The path a backup of `file` taken at `date` gets: `<file>.mcp-latch-backup-<stamp>`, then `-2`, `-3`… if taken. */
export function backupPath(file: string, date: Date): string {
  const base = `${file}.mcp-latch-backup-${backupStamp(date)}`;
  let candidate = base;
  for (let n = 2; existsSync(candidate); n++) candidate = `${base}-${n}`;
  return candidate;
}

/** Copies `file` byte for byte to a new backup path and returns it; never replaces an existing file. */
export function backupFile(file: string, date: Date): string {
  const target = backupPath(file, date);
  copyFileSync(file, target, constants.COPYFILE_EXCL);
  return target;
}

/**
 * Replaces `file` with `data` atomically (temp file + rename in the same folder), keeping its mode.
 * A symlinked file is written at its target so the link survives. A new file gets `newFileMode`.
 */
export function writeFileAtomic(file: string, data: string | Buffer, newFileMode?: number): void {
  let target = file;
  let mode: number | undefined = newFileMode;
  if (existsSync(file)) {
    target = realpathSync(file);
    mode = statSync(target).mode & 0o7777;
  } else {
    mkdirSync(dirname(file), { recursive: true });
  }
  const temp = `${target}.mcp-latch-tmp-${process.pid}`;
  try {
    writeFileSync(temp, data, { flag: 'wx', ...(mode === undefined ? {} : { mode }) });
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
