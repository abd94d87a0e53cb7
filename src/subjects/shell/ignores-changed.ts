import { posix } from 'node:path';
import type { CommandInfo, CommandPath } from '../../policy/types.js';

/**
 * What `git add` leaves out as ignored is read from the `.gitignore` files on disk when the call is
 * decided (subjects/git-ignore.ts). A call that may change them first (`echo '!.env' >> .gitignore
 * && git add . && git diff --cached`), or move files out of an ignored directory (`mv build/x src`),
 * is decided as if git ignored nothing: any write of a `.gitignore` or an `exclude` file, of a name
 * known only at run time, of a tree (`rm -r`, `mv`, `cp -r`, a git checkout), or a program the
 * analyser does not know (docs/threat-model.md#what-git-stores).
 */
export function markIgnoresChanged(info: CommandInfo): void {
  const stores: CommandPath[] = [];
  for (const segment of info.segments) for (const path of segment.paths) if (path.tree?.unignored) stores.push(path);
  if (stores.length === 0) return;
  const changes = info.segments.some(
    (segment) =>
      segment.alternatives !== undefined ||
      (segment.program === null && segment.words.length > segment.assignments.length) ||
      segment.paths.some((path) => path.access === 'write' && (!path.isStatic || path.tree !== undefined || path.workTree !== undefined || IGNORE_FILE.test(posix.basename(path.path)))),
  );
  if (!changes) return;
  for (const path of stores) {
    const { unignored: _, ...tree } = path.tree!;
    path.tree = tree;
  }
}

const IGNORE_FILE = /^(\.gitignore|exclude)$/;
