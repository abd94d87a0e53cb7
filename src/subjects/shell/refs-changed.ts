import type { CommandInfo, Segment } from '../../policy/types.js';

/**
 * What `git show NAME` prints is decided from the refs and objects on disk when the call is decided
 * (subjects/git-objects.ts). A call that may change them first (`git tag t BLOB && git show t`,
 * `git symbolic-ref HEAD refs/tags/t && git show`, `git update-ref x BLOB; git show x`: each printed
 * the blob, git 2.39, round 14) leaves its names unresolved: the read is decided from the rules alone.
 * Only git's reading subcommands and programs that change nothing may stand beside it
 * (docs/threat-model.md#refs-changed-by-the-call). What a ref is set to (`refTarget`, git-targets.ts)
 * is kept: every ref setter's target is checked, so a name one sets earlier in the call holds what
 * was checked; a call that sets a ref is not one that changes nothing.
 */
export function markRefsChanged(info: CommandInfo): void {
  const resolving = info.segments.filter((segment) => segment.paths.some((path) => path.revisions && !path.refTarget));
  if (resolving.length === 0) return;
  if (info.segments.every((segment) => resolving.includes(segment) || changesNothing(segment))) return;
  for (const segment of resolving) for (const path of segment.paths) if (!path.refTarget) delete path.revisions;
}

function changesNothing(segment: Segment): boolean {
  if (segment.alternatives !== undefined || segment.name === null || segment.paths.some((path) => path.access !== 'read')) return false;
  if (segment.name !== 'git') return QUIET.has(segment.name);
  let i = 0;
  while (i < segment.args.length && segment.args[i]!.startsWith('-')) i += /^(-C|-c|--git-dir|--work-tree|--namespace|--super-prefix|--config-env)$/.test(segment.args[i]!) ? 2 : 1;
  return segment.isStatic && GIT_READS.has(segment.args[i] ?? '');
}

const QUIET = new Set(['cd', 'echo', 'printf', 'true', 'false', ':', 'cat', 'head', 'tail', 'grep', 'wc', 'sort', 'uniq', 'less', 'more', 'pwd', 'ls', 'test', '[']);
// `add` stores objects, no ref; `commit` points HEAD's ref at a commit.
const GIT_READS = new Set(['add', 'commit', 'show', 'diff', 'log', 'status', 'cat-file', 'rev-parse', 'ls-files', 'ls-tree', 'describe', 'shortlog', 'blame', 'grep', 'whatchanged', 'rev-list', 'name-rev', 'for-each-ref', 'show-ref', 'merge-base', 'diff-tree', 'diff-files', 'diff-index', 'version']);
