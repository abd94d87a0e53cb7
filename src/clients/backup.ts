import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The file operations behind "never overwrite anything without a backup": timestamped copies in
 * one private folder (client files hold tokens; a copy next to a project file would land in the
 * project's git repository), atomic replacement that keeps the file's mode and writes through
 * symlinks (a dotfile managed by stow stays a link).
 */

/** `20260314T093005Z`: UTC, sortable, safe in file names on every platform. */
function backupStamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
}

/**
 * The path a backup of `file` taken at `date` gets in `folder`: the stamp and the whole path
 * flattened (`20260314T093005Z_home_me_.cursor_mcp.json`), then `-2`, `-3`… if taken.
 */
function backupPath(folder: string, file: string, date: Date): string {
  const flat = file.replace(/^[A-Za-z]:/, (drive) => drive[0]!).replace(/[\\/:]+/g, '_');
  const base = join(folder, `${backupStamp(date)}${flat.startsWith('_') ? '' : '_'}${flat}`);
  let candidate = base;
  for (let n = 2; existsSync(candidate); n++) candidate = `${base}-${n}`;
  return candidate;
}

/** The names backupPath gives: the stamp first (`20260314T093005Z_…`). */
const BACKUP_NAME = /^\d{8}T\d{6}Z/;

/**
 * The paths in `folder` that are init's copies (named as backupPath names them); null when the folder
 * cannot be read, so the caller protects all of it (fail closed). A folder that is not there holds none.
 */
export function initCopiesIn(folder: string): string[] | null {
  try {
    return readdirSync(folder)
      .filter((name) => BACKUP_NAME.test(name))
      .map((name) => join(folder, name));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? [] : null;
  }
}

/** Copies `file` byte for byte to a new backup in `folder` (made private), readable only by its owner; returns its path. */
export function backupFile(folder: string, file: string, date: Date): string {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const target = backupPath(folder, file, date);
  // Created 0600 from the start: a copy would carry the original's mode until a chmod.
  const bytes = readFileSync(file);
  try {
    writeFileSync(target, bytes, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // A copy cut short (a full disk) is no backup: it is not left to be taken for one.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(target, { force: true });
    throw error;
  }
  return target;
}

/**
 * Replaces `file` with `data` atomically (temp file + rename in the same folder), keeping its mode.
 * A symlinked file is written at its target so the link survives. A new file gets `newFileMode`.
 * With `unchanged`, asked just before the rename, a `false` leaves the file as it is and returns
 * false (someone saved it meanwhile: the caller edits their version).
 */
export function writeFileAtomic(file: string, data: string | Buffer, newFileMode?: number, unchanged?: () => boolean): boolean {
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
    if (unchanged && !unchanged()) {
      rmSync(temp, { force: true });
      return false;
    }
    renameSync(temp, target);
    return true;
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
