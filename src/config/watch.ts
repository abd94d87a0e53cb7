import { readFile } from 'node:fs/promises';
import { lstatSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Hot reload: calls `onText` with the file's new text after it changes. Changes within `debounceMs`
 * are coalesced. Whether the text is valid, and what to do if it is not, is the caller's business.
 *
 * The file itself is watched, not its folder: the audit log is written next to it at every call,
 * and a folder watch woke the gateway for each write. Editors and our own atomic writes replace
 * the file by renaming another one over it, which ends a watch on the old file: after each change
 * the watch is made again, on what is there now (before the file is read, so no write is missed).
 * While the file is missing, the folder is watched for it to come back. A config that is a symlink
 * (home-manager, stow, `ln -sf`) is re-pointed without any change to the file watched, so its
 * folder is watched for its name too (a re-pointed link's deny rules were never loaded: round 16
 * review H3).
 */
export interface ConfigWatcher {
  close(): void;
}

export function watchConfig(path: string, onText: (text: string) => void, onError: (error: unknown) => void, debounceMs = 150, onMissing: () => void = () => undefined): ConfigWatcher {
  const name = basename(path);
  let timer: NodeJS.Timeout | null = null;
  let watcher: FSWatcher | null = null;
  let linkWatcher: FSWatcher | null = null;
  let closed = false;
  const watchFolder = () =>
    watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file === null || file === name) changed();
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
    linkWatcher?.close();
    watcher = null;
    linkWatcher = null;
    try {
      try {
        watcher = watch(path, { persistent: false }, changed);
        if (lstatSync(path).isSymbolicLink()) {
          linkWatcher = watchFolder();
          linkWatcher.on('error', onError);
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        watcher?.close();
        watcher = watchFolder();
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
      linkWatcher?.close();
    },
  };
}
