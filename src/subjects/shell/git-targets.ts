import { objectIdOf } from '../git-objects.js';
import { hasOption, scanOptions, type OptionSpec, type ScanResult, type Word } from './options.js';

/**
 * The revisions a git subcommand makes a ref's value, or puts in the index or the working tree
 * (docs/threat-model.md#what-git-prints). A commit no ref ever named counts as unknown content
 * (`git commit-tree` makes one around any stored blob, git-objects.ts refsEverNamed); pointing a
 * ref at it made it any ref's commit: after `git branch x C` (or `git reset --soft C`, which logs C
 * in HEAD's reflog) `git show x` printed an ignored .env stored with `git hash-object -w` (git
 * 2.39, bash 5.2; round 16 left open). Each is resolved as `git show`'s operands are (inspect.ts),
 * a tree keeping the read: `git read-tree T`, `git checkout T -- x` write a tree's files.
 *
 *   git branch x C          → ['C']          (x is the name made)
 *   git reset --soft HEAD~1 → ['HEAD']
 *   git update-ref --stdin  → null           (not known: the read stays)
 *
 * Undefined when the subcommand points nothing at a revision of its words; null when what it points
 * at is not known. The subcommands and their operands are git's documentation's (git-branch(1) …).
 */
export function pointedRevisions(sub: string, args: readonly Word[]): string[] | null | undefined {
  const model = MODELS[sub];
  if (model === undefined) return undefined;
  // A word known only at run time may be any option or operand, and shifts the others.
  const dashes = args.findIndex((word) => word.isStatic && word.value === '--');
  if ((dashes === -1 ? args : args.slice(0, dashes)).some((word) => !word.isStatic)) return null;
  const words = model(args);
  if (words === null || words.length === 0) return words === null ? null : undefined;
  const roots: string[] = [];
  for (const word of words) {
    if (!word.isStatic) return null;
    for (const end of word.value.replace(/\^[@!]$/, '').split(/\.\.\.?/)) {
      const root = revisionRoot(end === '' ? 'HEAD' : end);
      if (root === null) return null;
      roots.push(...root);
    }
  }
  return roots;
}

/**
 * The object a revision starts from (gitrevisions(7)), for what a ref is set to and for `REV:PATH`
 * (files.ts storedPath): a name or an id, past its steps. A ref's
 * earlier value (`NAME@{1}`, `@{-1}`, `-`), the index (`:PATH`) and a message search (`:/text`) were
 * a ref's or the index's already: nothing to resolve. An id followed by anything but commit steps
 * (`~N`, `^N`, `^{commit}`, `^{}`) is not known here; a name's tree or path is the name's history.
 */
export function revisionRoot(end: string): string[] | null {
  if (end === '-' || end.startsWith(':')) return [];
  const at = end.search(/@\{|[~^:]/);
  const root = at === -1 ? end : end.slice(0, at);
  const rest = at === -1 ? '' : end.slice(at);
  if (rest.startsWith('@{')) return [];
  if (root === '' || /[*?[\\]/.test(root)) return null;
  if (objectIdOf(root) !== null && !/^(?:[~^]\d*|\^\{(?:commit)?\})*$/.test(rest)) return null;
  return [root];
}

type Model = (args: readonly Word[]) => Word[] | null;

const operands = (args: readonly Word[], scan: ScanResult): Word[] => scan.operands.map((i) => args[i]!);
/** The operands before a `--` that ends the options (the rest are pathspecs). */
function beforeDashes(args: readonly Word[], spec: OptionSpec): { scan: ScanResult; words: Word[] } {
  const dashes = args.findIndex((word) => word.isStatic && word.value === '--');
  const head = dashes === -1 ? args : args.slice(0, dashes);
  const scan = scanOptions(head, 0, spec);
  return { scan, words: operands(head, scan) };
}
/** Every operand before `--`: each is a revision (merge, cherry-pick, bisect …). */
const all = (spec: OptionSpec): Model => (args) => beforeDashes(args, spec).words;
/** The operand at `index` when the subcommand creates (none of `lists` given). */
const nth = (spec: OptionSpec, index: number, lists: string[]): Model => (args) => {
  const { scan, words } = beforeDashes(args, spec);
  return hasOption(scan, ...lists) ? [] : words.slice(index, index + 1);
};
/** The source of each refspec `[+]SRC[:DST]` after the repository (git-push(1)); a pattern of refs names refs. */
const refspecSources = (spec: OptionSpec): Model => (args) => {
  const [, ...refspecs] = beforeDashes(args, spec).words;
  return refspecs.map((word) => ({ ...word, value: word.value.replace(/^\+/, '').split(':')[0]! })).filter((word) => word.value !== '' && !word.value.includes('*'));
};
const STDIN: Model = () => null;

const BRANCH_LISTS = ['-d', '-D', '--delete', '-m', '-M', '--move', '-c', '-C', '--copy', '-l', '--list', '-a', '--all', '-r', '--remotes', '-u', '--set-upstream-to', '--unset-upstream', '--edit-description', '--show-current', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '-v', '-vv', '--verbose'];
const TAG_LISTS = ['-d', '--delete', '-v', '--verify', '-l', '--list', '-n', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at'];
// Only options whose value is required are listed: an optional one (`--force-with-lease[=…]`,
// `--track[=…]`) would take the next operand for its value, and a listed one's value is not checked.
const PUSH_SPEC: OptionSpec = { short: 'o', long: ['receive-pack', 'exec', 'repo', 'push-option'] };
const FETCH_SPEC: OptionSpec = { short: 'josX', long: ['upload-pack', 'depth', 'deepen', 'shallow-since', 'shallow-exclude', 'refmap', 'jobs', 'server-option', 'negotiation-tip', 'filter', 'submodule-prefix', 'strategy', 'strategy-option', 'cleanup'] };

const MODELS: Record<string, Model> = {
  // git-branch(1) `branch [-f] <name> [<start-point>]`; git-tag(1) `tag [-f] <name> [<commit>|<object>]`.
  branch: nth({ short: 'u', long: ['set-upstream-to', 'contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'format', 'sort'] }, 1, BRANCH_LISTS),
  tag: nth({ short: 'mFu', long: ['message', 'file', 'local-user', 'contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'sort', 'format', 'cleanup', 'trailer'] }, 1, TAG_LISTS),
  // git-update-ref(1) `update-ref <ref> <new> [<old>]`; `-d <ref> [<old>]` removes; `--stdin` reads commands.
  'update-ref': (args) => {
    const { scan, words } = beforeDashes(args, { short: 'm' });
    if (hasOption(scan, '--stdin')) return null;
    return hasOption(scan, '-d') ? [] : words.slice(1, 2);
  },
  // git-reset(1), git-checkout(1), git-switch(1): the first operand may be the commit or tree-ish
  // (git takes it for a path when it names none: then it resolves to a file or nothing).
  reset: (args) => beforeDashes(args, { long: ['pathspec-from-file'] }).words.slice(0, 1),
  checkout: (args) => beforeDashes(args, { short: 'bB', long: ['orphan', 'pathspec-from-file', 'conflict'] }).words.slice(0, 1),
  switch: (args) => beforeDashes(args, { short: 'cC', long: ['create', 'force-create', 'orphan', 'conflict'] }).words.slice(0, 1),
  // git-restore(1) `-s/--source=<tree>`: the rest are pathspecs.
  restore: (args) => {
    const scan = scanOptions(args, 0, { short: 's', long: ['source', 'pathspec-from-file', 'conflict'] });
    return scan.options.filter((o) => (o.name === '-s' || o.name === '--source') && o.value !== null).map((o) => o.value!);
  },
  // git-worktree(1) `worktree add [-b <new>] <path> [<commit-ish>]`.
  worktree: (args) => (args[0]?.value === 'add' ? beforeDashes(args.slice(1), { short: 'bB', long: ['reason'] }).words.slice(1, 2) : []),
  merge: all({ short: 'mFsX', long: ['message', 'file', 'strategy', 'strategy-option', 'into-name', 'cleanup'] }),
  // git-rebase(1) `rebase [--onto <newbase>] [<upstream> [<branch>]]`.
  rebase: (args) => {
    const spec: OptionSpec = { short: 'sXx', long: ['onto', 'strategy', 'strategy-option', 'exec', 'whitespace'] };
    const { scan, words } = beforeDashes(args, spec);
    return [...scan.options.filter((o) => o.name === '--onto' && o.value !== null).map((o) => o.value!), ...words];
  },
  'cherry-pick': all({ short: 'mX', long: ['mainline', 'strategy', 'strategy-option', 'cleanup'] }),
  revert: all({ short: 'mX', long: ['mainline', 'strategy', 'strategy-option', 'cleanup'] }),
  // git-stash(1) `store <commit>`, `apply`/`pop [<stash>]`, `branch <name> [<stash>]`.
  stash: (args) => {
    const first = args[0]?.value;
    if (first !== 'store' && first !== 'apply' && first !== 'pop' && first !== 'branch') return [];
    const words = beforeDashes(args.slice(1), { short: 'm', long: ['message'] }).words;
    return first === 'branch' ? words.slice(1) : words;
  },
  // git-replace(1) `replace <object> <replacement>`, `--graft <commit> [<parent>…]`.
  replace: (args) => {
    const { scan, words } = beforeDashes(args, { long: ['format'] });
    return hasOption(scan, '-d', '--delete', '-l', '--list') ? [] : words;
  },
  // git-notes(1) `-c`/`-C <object>`: the note is that object (a blob), shown by `git log`.
  notes: (args) => scanOptions(args, 0, { short: 'cCmF', long: ['reuse-message', 'reedit-message', 'message', 'file', 'ref'] }).options.filter((o) => ['-c', '-C', '--reuse-message', '--reedit-message'].includes(o.name) && o.value !== null).map((o) => o.value!),
  // git-bisect(1) `start [<bad> [<good>…]] [--] [<paths>…]`, `bad`/`good`/`skip … [<rev>…]`, `reset [<commit>]` (checked out).
  bisect: (args) => (['start', 'bad', 'good', 'new', 'old', 'skip', 'reset'].includes(args[0]?.value ?? '') ? beforeDashes(args.slice(1), { long: ['term-new', 'term-bad', 'term-old', 'term-good'] }).words : []),
  // git-read-tree(1) `read-tree <tree-ish>…`: the index (and with `-u` the tree) from them.
  'read-tree': all({ long: ['prefix', 'index-output', 'exclude-per-directory'] }),
  // git-update-index(1) `--cacheinfo <mode>,<object>,<path>` and `--index-info`: any stored blob under any name.
  'update-index': (args) => (args.some((word) => { const name = /^--([a-z-]{2,})/.exec(word.value)?.[1]; return name !== undefined && ['cacheinfo', 'index-info'].some((long) => long.startsWith(name)); }) ? null : []),
  push: refspecSources(PUSH_SPEC),
  'send-pack': refspecSources({ long: ['receive-pack', 'exec'] }),
  // `git fetch . C:refs/heads/x` from the repository itself (another's sources are checked alike: a name resolves or is none here).
  fetch: refspecSources(FETCH_SPEC),
  pull: refspecSources(FETCH_SPEC),
  // git-subtree(1) `add`/`merge`/`pull -P <prefix> [<repository>] <commit>`: the commit's files below the prefix.
  subtree: (args) => (['add', 'merge'].includes(args[0]?.value ?? '') ? beforeDashes(args.slice(1), { short: 'Pm', long: ['prefix', 'message', 'onto', 'branch', 'annotate'] }).words : []),
  // A stream or a rewrite naming objects by id (git-fast-import(1) `M 100644 <id> x`).
  'fast-import': STDIN,
  'filter-branch': STDIN,
};
