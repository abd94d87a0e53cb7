import { readFile } from 'node:fs/promises';
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Hot reload: calls `onText` with the file's new text after it changes. The directory is watched,
 * not the file, because editors and our own atomic writes replace the file by renaming a temporary
 * one over it, which ends a watch on the old inode. Changes within `debounceMs` are coalesced.
 * Whether the text is valid, and what to do if it is not, is the caller's business.
 */
export interface ConfigWatcher {
  close(): void;
}

export function watchConfig(path: string, onText: (text: string) => void, onError: (error: unknown) => void, debounceMs = 150): ConfigWatcher {
  const name = basename(path);
  let timer: NodeJS.Timeout | null = null;
  let watcher: FSWatcher | null = null;
  const fire = () => {
    timer = null;
    readFile(path, 'utf8').then(onText, (error: unknown) => {
      // Mid-rename the file can be missing for a moment; the next event brings the new one.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onError(error);
    });
  };
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file !== null && file !== name) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(fire, debounceMs);
    });
    watcher.on('error', onError);
  } catch (error) {
    onError(error);
  }
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}
