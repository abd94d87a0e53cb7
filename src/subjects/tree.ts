import fs from 'node:fs';
import path from 'node:path';
import type { TreeRead, TreeWalk } from '../policy/types.js';
import { isInside } from './paths.js';

/**
 * What a recursive read can reach (docs/threat-model.md#recursive-reads): a bounded walk of the
 * directory tree, as the reading program walks it. A program that follows symbolic links
 * (`grep -R`, `find -L`, `cp -L`, `tar -h`, `rsync -L`, `diff -r`) reads a link's target, which can
 * lie anywhere: every link met is resolved, and one whose target is outside the tree is reported
 * (the caller decides it as a read of its own). A program that does not follow them skips them
 * (`grep -r` reads only links named on its command line, which canonicalisation already resolves).
 *
 *   src/a.ts, src/lnk -> ~/.ssh        walkTree(W/src, follows)  → entries a.ts, lnk, lnk/id_rsa; escapes lnk → ~/.ssh
 *                                      walkTree(W/src, !follows) → entries a.ts
 *
 * Cost: one readdir per directory (the entry types come with it), one realpath and one stat per
 * link followed; never more than MAX_TREE_ENTRIES entries per call.
 */

/** The tree of a removal: what is below the path goes with it (links in it are removed, not followed). */
export const REMOVED: TreeRead = { content: true, follows: false };

/**
 * The tree of a move's source (`mv`, a file tool's `move_file`): removed from its place, and what
 * it holds arrives below the destination (`arrivals`).
 */
export const MOVED: TreeRead = { ...REMOVED, moved: true };

/** The tree of where a link made or moved leads (TreeRead.linked): as a move's source, removing nothing. */
export const LINKED: TreeRead = { ...MOVED, linked: true };

/**
 * What a recursive copy writes below its destination: the files there are replaced, git's code
 * files among them (`cp -r evil/. .` replaced .git/config and the next `git status` ran its
 * core.fsmonitor, coreutils 9.1, git 2.39, round 12), so their built-in rules count as for `chmod -R`.
 */
export const COPIED: TreeRead = { ...REMOVED, plants: true };

/**
 * What a copy or a move makes below its destination: what the sources hold (each as written,
 * null when not known here), re-rooted there (subjects/inspect.ts copiedEntries).
 */
export function arrivals(sources: Array<string | null>, follows = false, absentOnly = false, moved = false): TreeRead {
  return { ...COPIED, ...(moved ? { moved: true as const } : {}), copiedFrom: { sources, follows, ...(absentOnly ? { absentOnly: true as const } : {}) } };
}

/** Entries one call's walks may visit together; past it a walk is incomplete (and the caller asks when that matters). */
export const MAX_TREE_ENTRIES = 5_000;

/** What is left of the entries one call may visit. */
export interface WalkBudget {
  left: number;
}

export interface WalkResult extends TreeWalk {
  /** Links followed out of the tree: the link's name below the root and its real target. */
  escapes: Array<{ rel: string; target: string }>;
  /** Links met and not followed, by their name below the root (a copy that keeps links makes them again). */
  links: string[];
  /** The first name below the root that is not UTF-8 (decoded with U+FFFD): the walk is incomplete because of it. */
  undecodable?: string;
}

/**
 * Walks the tree below `root` (a real path, a directory); never throws. An entry `skip` returns
 * true for is left out (a directory with what is below it) and not counted.
 */
export function walkTree(root: string, follows: boolean, budget: WalkBudget, platform: NodeJS.Platform = process.platform, skip?: (rel: string, directory: boolean) => boolean): WalkResult {
  const out: WalkResult = { entries: [], escapes: [], links: [], complete: true };
  const visited = new Set<string>([root]);
  const pending: Array<{ rel: string; real: string }> = [{ rel: '', real: root }];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(dir.real, { withFileTypes: true });
    } catch {
      continue; // unreadable: the server, running as the same user, cannot read it either
    }
    for (const dirent of dirents) {
      if (skip?.(dir.rel === '' ? dirent.name : `${dir.rel}/${dirent.name}`, dirent.isDirectory())) continue;
      if (budget.left <= 0) {
        out.complete = false;
        return out;
      }
      budget.left--;
      if (dirent.name.includes('\uFFFD')) {
        // A name that is not UTF-8 (`x\xff`, as git and tar store it) is decoded with U+FFFD and
        // names no file: a link or a directory there would be skipped unseen, and the walk called
        // complete (round 15 review of paths, P9: `grep -R . d` printed ~/.ssh/id_rsa through
        // `d/y\xfe -> ~/.ssh`). What is below it is not known.
        out.complete = false;
        out.undecodable ??= dir.rel === '' ? dirent.name : `${dir.rel}/${dirent.name}`;
        continue;
      }
      const rel = dir.rel === '' ? dirent.name : `${dir.rel}/${dirent.name}`;
      let real = path.join(dir.real, dirent.name);
      let isDirectory = dirent.isDirectory();
      if (dirent.isSymbolicLink()) {
        if (!follows) {
          out.links.push(rel);
          continue;
        }
        const target = realTarget(real);
        if (target === null) continue; // dangling or a loop: the reader gets an error, not content
        real = target.path;
        isDirectory = target.isDirectory;
        if (!isInside(root, real, platform)) out.escapes.push({ rel, target: real });
      }
      out.entries.push(isDirectory ? { rel, real, directory: true } : { rel, real });
      if (isDirectory && !visited.has(real)) {
        visited.add(real);
        pending.push({ rel, real });
      }
    }
  }
  return out;
}

function realTarget(link: string): { path: string; isDirectory: boolean } | null {
  try {
    const target = fs.realpathSync.native(link);
    return { path: target, isDirectory: fs.statSync(target).isDirectory() };
  } catch {
    return null;
  }
}

/** Whether `p` is there and not a directory. */
export function isFile(p: string): boolean {
  try {
    return !fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `p` itself is a symbolic link (not followed), dangling or not. */
export function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** True when `p` is an existing directory (links followed). */
export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
