import fs from 'node:fs';
import path from 'node:path';
import type { DiskLookups } from './disk-lookups.js';
import { gitDirectoryOfTree } from './git-dir.js';
import { headTree } from './git-objects.js';

/**
 * The files git tracks in a working tree, read from its index (gitformat-index(5); no git process):
 * what `git diff`, `git grep` and `git log -p` print comes from them (docs/threat-model.md#what-git-prints).
 * Versions 2, 3 and 4 (path prefix compression), SHA-1 and SHA-256 entries. An index git splits
 * (`link` extension), a sparse directory entry, or one past `max` entries leaves the list
 * incomplete: the caller then asks when a rule could match below.
 *
 *   W/.git/index holding .env, src/a.ts   → { paths: ['.env', 'src/a.ts'], complete: true }
 */
export interface Tracked {
  paths: string[];
  complete: boolean;
  /**
   * The tree the index would write, when its cache tree (the `TREE` extension) holds it for the
   * whole index: git sets it at a commit, checkout or reset, and drops it at any change of the index
   * (`git add`, `git rm --cached`). Equal to HEAD's tree, the index lists what HEAD holds.
   */
  rootTree?: string;
}

const NONE: Tracked = { paths: [], complete: false };

/** The tracked paths (relative to `top`, the working tree's top), at most `max` of them; `disk`: the decision's lookups. */
export function trackedPaths(top: string, max: number, disk: DiskLookups): Tracked {
  const gitDir = gitDirectoryOfTree(top, disk);
  if (gitDir === null) return NONE;
  const file = path.join(gitDir, 'index');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    // No index yet (a fresh `git init`): nothing is tracked.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { paths: [], complete: true } : NONE;
  }
  // git replaces the index by a rename (a new inode) whenever it writes it: an unchanged stat is the same list.
  const key = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  const known = READ_BEFORE.get(file);
  if (known?.key === key && (known.tracked.complete || known.max >= max)) return cut(known.tracked, max);
  let tracked: Tracked;
  try {
    tracked = parseIndex(fs.readFileSync(file), Math.max(max, 0), sha256(gitDir) ? 32 : 20) ?? NONE;
  } catch {
    return NONE;
  }
  if (READ_BEFORE.size >= 16) READ_BEFORE.delete(READ_BEFORE.keys().next().value!);
  READ_BEFORE.set(file, { key, max, tracked });
  return tracked;
}

/** The last list read from each index file (a few repositories), by the file's stat. */
const READ_BEFORE = new Map<string, { key: string; max: number; tracked: Tracked }>();

function cut(tracked: Tracked, max: number): Tracked {
  return tracked.paths.length <= max ? tracked : { paths: tracked.paths.slice(0, max), complete: false };
}

function sha256(gitDir: string): boolean {
  try {
    return /^\s*objectformat\s*=\s*sha256\s*$/im.test(fs.readFileSync(path.join(gitDir, 'config'), 'utf8'));
  } catch {
    return false;
  }
}

/** The paths of an index file; null when it is not one this parser reads. */
export function parseIndex(data: Buffer, max: number, hashSize: number): Tracked | null {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = data.readUInt32BE(8);
  const paths: string[] = [];
  let complete = true;
  let rootTree: string | undefined;
  let at = 12;
  let previous = '';
  for (let n = 0; n < count; n++) {
    const start = at;
    // ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), the object name, flags (2).
    const mode = data.readUInt32BE(at + 24);
    at += 40 + hashSize;
    if (at + 2 > data.length) return null;
    const flags = data.readUInt16BE(at);
    at += 2;
    if (flags & 0x4000) {
      if (version < 3) return null;
      at += 2; // extended flags
    }
    let name: string;
    if (version === 4) {
      let strip = 0;
      let byte: number;
      // gitformat-index(5): an offset-encoded varint, the bytes taken off the previous path.
      do {
        if (at >= data.length) return null;
        byte = data[at++]!;
        strip = (strip << 7) | (byte & 0x7f);
        if (byte & 0x80) strip++;
      } while (byte & 0x80);
      const end = data.indexOf(0, at);
      if (end === -1 || strip > previous.length) return null;
      name = previous.slice(0, previous.length - strip) + data.toString('utf8', at, end);
      at = end + 1;
    } else {
      const end = data.indexOf(0, at);
      if (end === -1) return null;
      name = data.toString('utf8', at, end);
      // Padded with 1-8 NULs to a multiple of eight bytes from the entry's start.
      at = start + ((end - start + 8) & ~7);
    }
    previous = name;
    // A sparse index keeps a directory as one entry (mode 040000): what it holds is not listed.
    if ((mode & 0o170000) === 0o040000) complete = false;
    else if (paths.at(-1) !== name) paths.push(name); // stages 1-3 of a conflict repeat the name
    if (paths.length > max) return { paths: paths.slice(0, max), complete: false };
  }
  // Extensions: a split index keeps most entries in a shared file (`link`).
  while (at + 8 <= data.length - hashSize) {
    const signature = data.toString('latin1', at, at + 4);
    const size = data.readUInt32BE(at + 4);
    if (signature === 'link' || signature === 'sdir') complete = false;
    if (signature === 'TREE') rootTree = cacheTreeRoot(data.subarray(at + 8, at + 8 + size), hashSize) ?? undefined;
    at += 8 + size;
  }
  return rootTree === undefined ? { paths, complete } : { paths, complete, rootTree };
}

/**
 * The root entry of a `TREE` extension (gitformat-index(5)): an empty path, NUL, the entry count
 * (-1 when invalid), a space, the subtree count, a newline, then the tree's id when valid.
 */
function cacheTreeRoot(data: Buffer, hashSize: number): string | null {
  if (data.length < 1 || data[0] !== 0) return null;
  const line = data.indexOf(10, 1);
  if (line === -1) return null;
  const counts = /^(-?\d+) (\d+)$/.exec(data.toString('latin1', 1, line));
  if (counts === null || Number(counts[1]) < 0 || line + 1 + hashSize > data.length) return null;
  return data.toString('hex', line + 1, line + 1 + hashSize);
}

/**
 * Whether `git worktree add PATH` (no commit named) checks out what the index lists: the commit HEAD
 * names, unless a branch named `branch` (PATH's last name) is there already, or a remote's branch of
 * that name with `--guess-remote` or worktree.guessRemote: it checks that out (git-worktree(1)). A
 * `git rm --cached` file HEAD still holds is in the new tree, not in the index: the index is that
 * list only when its cache tree is HEAD's tree (round 32 review F32-3). False when not sure.
 */
export function indexIsHead(top: string, tracked: Tracked, branch: string | null, disk: DiskLookups): boolean {
  const gitDir = gitDirectoryOfTree(top, disk);
  if (gitDir === null) return false;
  const head = headTree(gitDir);
  if (head !== 'unborn' && (tracked.rootTree === undefined || tracked.rootTree !== head)) return false;
  return branch === null || !refNamed(gitDir, branch);
}

/** Whether any branch or remote-tracking branch ends in `/NAME` (a loose ref or a packed one); true when not sure. */
function refNamed(gitDir: string, name: string): boolean {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) return true;
  let common = gitDir;
  try {
    common = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    // no commondir: the git directory is the common one
  }
  try {
    if (fs.existsSync(path.join(common, 'refs', 'heads', name))) return true;
    const remotes = path.join(common, 'refs', 'remotes');
    if (fs.existsSync(remotes)) for (const remote of fs.readdirSync(remotes)) if (fs.existsSync(path.join(remotes, remote, name))) return true;
    const packed = fs.existsSync(path.join(common, 'packed-refs')) ? fs.readFileSync(path.join(common, 'packed-refs'), 'latin1') : '';
    return packed.split('\n').some((line) => line.endsWith(` refs/heads/${name}`) || (line.includes(' refs/remotes/') && line.endsWith(`/${name}`)));
  } catch {
    return true;
  }
}
