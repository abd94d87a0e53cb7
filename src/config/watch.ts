import { readFile } from 'node:fs/promises';
import { lstatSync, readlinkSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, parse, resolve } from 'node:path';

/**
 * Hot reload: calls `onText` with the file's new text after it changes. Changes within `debounceMs`
 * are coalesced. Whether the text is valid, and what to do if it is not, is the caller's business.
 *
 * The file itself is watched, not its folder: the audit log is written next to it at every call,
 * and a folder watch woke the gateway for each write. Editors and our own atomic writes replace
 * the file by renaming another one over it, which ends a watch on the old file: after each change
 * the watch is made again, on what is there now (before the file is read, so no write is missed).
 * While the file is missing, the folder is watched for it to come back. A config that is a symlink
 * (home-manager, stow, `ln -sf`) is re-pointed without any change to the file watched, so the
 * folder of every link met on the way to the file (the file itself, a folder above it that stow
 * folded into one link, a link to a link) is watched for that link's name too (a re-pointed link's
 * deny rules were never loaded: round 16 review H3).
 */
export interface ConfigWatcher {
  close(): void;
}

export function watchConfig(path: string, onText: (text: string) => void, onError: (error: unknown) => void, debounceMs = 150, onMissing: () => void = () => undefined): ConfigWatcher {
  const name = basename(path);
  let timer: NodeJS.Timeout | null = null;
  let watcher: FSWatcher | null = null;
  let linkWatchers: FSWatcher[] = [];
  let closed = false;
  const watchFolder = (folder: string, entry: string) =>
    watch(folder, { persistent: false }, (_event, file) => {
      if (file === null || file === entry) changed();
    });
  const changed = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, debounceMs);
  };
  const fire = () => {
    timer = null;
    arm();
    readFile(path, 'utf8').then(onText, (error: unknown) => {
      // Mid-rename the file can be missing for a moment; the next event brings the new one. Still
      // missing after the debounce, the person is told the last good config stays in force.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onError(error);
      else onMissing();
    });
  };
  const arm = () => {
    if (closed) return;
    watcher?.close();
    for (const link of linkWatchers) link.close();
    watcher = null;
    linkWatchers = [];
    try {
      try {
        watcher = watch(path, { persistent: false }, changed);
        for (const link of linksOnTheWay(path)) {
          const linkWatcher = watchFolder(link.folder, link.name);
          linkWatchers.push(linkWatcher);
          linkWatcher.on('error', onError);
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        watcher?.close();
        watcher = watchFolder(dirname(path), name);
      }
      watcher.on('error', onError);
    } catch (error) {
      onError(error);
    }
  };
  arm();
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      watcher?.close();
      for (const link of linkWatchers) link.close();
    },
  };
}

/** A symlink met on the way to a file: the folder it is in (itself reached without links) and its name. */
export interface LinkOnTheWay {
  folder: string;
  name: string;
}

/**
 * Every symlink met while resolving `path`, as the kernel walks it (path_resolution(7)): each
 * component in turn, a link's target put in its place (relative to the link's folder), `..` after
 * a link taken from the real folder; at most 40 links, as the kernel's own bound. Stops at the
 * first component that cannot be read (a missing one is watched for by its folder).
 */
export function linksOnTheWay(path: string): LinkOnTheWay[] {
  const links: LinkOnTheWay[] = [];
  const absolute = resolve(path);
  const root = parse(absolute).root;
  const components = (text: string) => text.split(/[\\/]+/).filter((part) => part !== '');
  let rest = components(absolute.slice(root.length));
  let current = root;
  while (rest.length > 0 && links.length < 40) {
    const part = rest.shift()!;
    const next = join(current, part);
    if (part === '.' || part === '..') {
      current = next;
      continue;
    }
    let target: string;
    try {
      if (!lstatSync(next).isSymbolicLink()) {
        current = next;
        continue;
      }
      target = readlinkSync(next);
    } catch {
      break;
    }
    links.push({ folder: current, name: part });
    const targetRoot = parse(target).root;
    if (targetRoot !== '') current = resolve(targetRoot);
    rest = [...components(target.slice(targetRoot.length)), ...rest];
  }
  return links;
}
