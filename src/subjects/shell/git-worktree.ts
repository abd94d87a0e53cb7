import { hasOption, hasOptionAsSpelled, scanOptions, type OptionSpec, type ScanResult, type Word } from './options.js';

/**
 * What a git subcommand rewrites in the working tree, from git's own manuals (git-checkout(1),
 * git-switch(1), git-restore(1), git-reset(1), git-stash(1), git-apply(1), git-read-tree(1),
 * git-checkout-index(1), git-worktree(1), git-submodule(1), git-bisect(1), …): nothing, the files
 * below some pathspecs, or the whole tree (a branch switch, a merge, `reset --hard`). files.ts turns
 * it into writes (docs/threat-model.md#git-rewrites-tracked-files).
 *
 *   git checkout main            → the whole tree
 *   git checkout HEAD~3 -- data  → data
 *   git restore --staged data    → nothing (the index only)
 *   git worktree add ../w main   → ../w
 *
 * Biased to over-report: an option that makes git write more counts in any abbreviation git could
 * take for it; one that makes it write less counts only spelled in full, and not after a `--no-…`.
 * A subcommand not known here (an alias, `git lfs`) may be any of them: the whole tree.
 */
export interface TreeRewrite {
  /** The whole working tree, from its top. */
  whole: boolean;
  /** Pathspecs, each written with what is below it (relative to git's working directory). */
  pathspecs: Word[];
  /** Directories outside the pathspec grammar that get a checkout, or lose one (`worktree add PATH`). */
  directories: Word[];
  /** Directories below the top that get the index's files under new names (`checkout-index --prefix=x/`: x, from the top). */
  prefixes: Word[];
  /** `apply --unsafe-paths`: the files a patch names, which may lie outside the working tree. */
  anywhere: boolean;
  /**
   * The checkout into `directories` or `prefixes` is a copy (`worktree add PATH`, `checkout-index
   * --prefix=P`): the files are read there under new names, so it is a read of them too: `index`,
   * the files git tracks; `objects`, what a commit named holds, any file git stored (round 31
   * review F31-4: `git worktree add pub/wt` made a readable pub/wt/conf/secret/db.txt past
   * `Read(./conf/secret/**)`).
   */
  copies?: 'index' | 'objects' | 'head';
  /** With `copies: 'head'`: the branch `worktree add PATH` checks out when it is there (PATH's last name), null when told otherwise (`-b`, `--detach`). */
  branch?: string | null;
  /**
   * A patch applied (`apply`, `am`): one may rename or copy any file of the tree to a new name
   * (`rename from`/`copy from`, a `---`/`+++` pair naming two files), which is a read of it there
   * (round 32 review F32-2).
   */
  patches?: true;
}

const NOTHING: TreeRewrite = { whole: false, pathspecs: [], directories: [], prefixes: [], anywhere: false };
const WHOLE: TreeRewrite = { ...NOTHING, whole: true };

/**
 * Subcommands that never write a tracked file of the working tree. `rm`, `clean`, `mv`, `merge-file`
 * are writes of their own (files.ts); `clone` and `init` make a new repository.
 */
const KEEPS = new Set([
  'add', 'annotate', 'archive', 'blame', 'branch', 'bugreport', 'bundle', 'cat-file', 'check-attr', 'check-ignore', 'check-mailmap',
  'check-ref-format', 'cherry', 'clean', 'clone', 'column', 'commit', 'commit-graph', 'commit-tree', 'config', 'count-objects',
  'credential', 'credential-cache', 'credential-store', 'describe', 'diagnose', 'diff', 'diff-files', 'diff-index', 'diff-tree',
  'fast-export', 'fast-import', 'fetch', 'fetch-pack', 'fmt-merge-msg', 'for-each-ref', 'format-patch', 'fsck', 'gc',
  'get-tar-commit-id', 'grep', 'hash-object', 'help', 'index-pack', 'init', 'interpret-trailers', 'log', 'ls-files', 'ls-remote',
  'ls-tree', 'mailinfo', 'mailsplit', 'maintenance', 'merge-base', 'merge-file', 'merge-tree', 'mktag', 'mktree', 'mv',
  'multi-pack-index', 'name-rev', 'notes', 'pack-objects', 'pack-refs', 'patch-id', 'prune', 'prune-packed', 'push', 'range-diff',
  'reflog', 'remote', 'repack', 'replace', 'request-pull', 'rev-list', 'rev-parse', 'rm', 'send-email', 'shortlog', 'show', 'show-branch',
  'show-index', 'show-ref', 'stage', 'status', 'stripspace', 'symbolic-ref', 'tag', 'unpack-objects', 'update-index', 'update-ref',
  'update-server-info', 'var', 'verify-commit', 'verify-pack', 'verify-tag', 'version', 'whatchanged', 'write-tree',
]);

/** What `git SUB ARGS` rewrites; `sub` null when the subcommand is known only at run time. */
export function treeRewrite(sub: string | null, args: readonly Word[]): TreeRewrite {
  if (sub === null) return WHOLE;
  const model = MODELS[sub];
  if (model) return model(args);
  return KEEPS.has(sub) ? NOTHING : WHOLE;
}

type Model = (args: readonly Word[]) => TreeRewrite;

/** A long option given as `long` or any abbreviation of at least `shortest` characters (`--h` for `--hard`). */
const abbreviated = (scan: ScanResult, long: string, shortest = 3): boolean => scan.options.some((o) => o.name.length >= shortest && long.startsWith(o.name));
/** An option that makes git write more: its short form, or the long one in any abbreviation. */
const widens = (scan: ScanResult, short: string | null, ...longs: string[]): boolean => (short !== null && hasOption(scan, short)) || longs.some((long) => abbreviated(scan, long));
/** An option that makes git write less: spelled in full, and not undone by a `--no-…` (which git may read as its negation). */
const narrows = (scan: ScanResult, ...names: string[]): boolean => hasOptionAsSpelled(scan, ...names) && !scan.options.some((o) => o.name.startsWith('--no-'));

/** The operands after the `--` that ends the options, and those before it; null when there is none. */
function split(args: readonly Word[], scan: ScanResult): { before: Word[]; after: Word[] } | null {
  const values = new Set(scan.options.filter((o) => o.value !== null && args[o.index + 1] === o.value).map((o) => o.index + 1));
  const separator = args.findIndex((word, i) => word.isStatic && word.value === '--' && !values.has(i));
  if (separator === -1) return null;
  const operands = scan.operands.map((i) => ({ i, word: args[i]! }));
  return { before: operands.filter((o) => o.i < separator).map((o) => o.word), after: operands.filter((o) => o.i > separator).map((o) => o.word) };
}

const operandsOf = (args: readonly Word[], scan: ScanResult): Word[] => scan.operands.map((i) => args[i]!);

/** Pathspecs when given, else the whole tree; those of `--pathspec-from-file` are known only to git (inside the tree). */
function pathspecsOrWhole(pathspecs: Word[], scan: ScanResult): TreeRewrite {
  return pathspecs.length > 0 && !hasOption(scan, '--pathspec-from-file') ? { ...NOTHING, pathspecs } : WHOLE;
}

const FORCE = ['--force', '--merge', '--discard-changes', '--ours', '--theirs', '--conflict'];

/**
 * git-checkout(1): `checkout [<tree-ish>] -- <pathspec>…` writes the pathspecs; `checkout <branch>`
 * or `-b new <start-point>` rewrites every tracked file that differs; `-b new` alone, `--detach`
 * alone, change nothing unless `-f`/`-m` (which put back the index's content). Without `--`, git
 * tells a branch from a path by looking: either may be meant, so the whole tree.
 */
const checkout: Model = (args) => {
  const scan = scanOptions(args, 0, { short: 'bB', long: ['orphan', 'pathspec-from-file', 'conflict'] });
  const parts = split(args, scan);
  if (widens(scan, '-p', '--patch') || hasOption(scan, '--pathspec-from-file')) return pathspecsOrWhole(parts?.after ?? operandsOf(args, scan), scan);
  if (parts && parts.after.length > 0) return { ...NOTHING, pathspecs: parts.after };
  const operands = parts?.before ?? operandsOf(args, scan);
  return operands.length > 0 || widens(scan, '-f', ...FORCE) || hasOption(scan, '-m') ? WHOLE : NOTHING;
};

/** git-switch(1): every switch rewrites the tree, `--orphan` empties it; `-c new` without a start point changes nothing. */
const switchBranch: Model = (args) => {
  const scan = scanOptions(args, 0, { short: 'cC', long: ['create', 'force-create', 'orphan', 'conflict'] });
  const creates = hasOptionAsSpelled(scan, '-c', '-C', '--create', '--force-create');
  const forced = widens(scan, '-f', ...FORCE) || hasOption(scan, '-m');
  return scan.operands.length > 0 || hasOption(scan, '--orphan') || forced || !creates ? WHOLE : NOTHING;
};

/** git-restore(1): the pathspecs are written unless only the index is (`--staged` without `--worktree`). */
const restore: Model = (args) => {
  const scan = scanOptions(args, 0, { short: 's', long: ['source', 'pathspec-from-file', 'conflict'] });
  // `--st` is `--staged` (`--s` is ambiguous with `--source`), proven with git 2.39.
  const staged = (hasOption(scan, '-S') || abbreviated(scan, '--staged', 4)) && !scan.options.some((o) => o.name.startsWith('--no-'));
  if (staged && !widens(scan, '-W', '--worktree')) return NOTHING;
  const pathspecs = split(args, scan)?.after ?? operandsOf(args, scan);
  return pathspecs.length > 0 || hasOption(scan, '--pathspec-from-file') || widens(scan, '-p', '--patch') ? pathspecsOrWhole(pathspecs, scan) : NOTHING;
};

/** git-reset(1): only `--hard`, `--merge` and `--keep` touch the working tree, all of it. */
const reset: Model = (args) => {
  const scan = scanOptions(args, 0, { long: ['pathspec-from-file'] });
  return widens(scan, null, '--hard', '--merge', '--keep') ? WHOLE : NOTHING;
};

/** git-stash(1) subcommands that leave the working tree alone. */
const STASH_KEEPS = new Set(['list', 'show', 'drop', 'clear', 'create', 'store']);

/**
 * git-stash(1): `push` (the default) and `save` put the stashed files back to HEAD — the pathspecs
 * of `push`, or the whole tree; `pop`, `apply` and `branch` write the stashed content back.
 * (`-u`/`-a` also remove untracked files: files.ts.)
 */
const stash: Model = (args) => {
  const first = args[0];
  if (first && !first.isStatic) return WHOLE;
  if (first && STASH_KEEPS.has(first.value)) return NOTHING;
  if (first && ['pop', 'apply', 'branch'].includes(first.value)) return WHOLE;
  const named = first?.value === 'push' || first?.value === 'save';
  const scan = scanOptions(args, named ? 1 : 0, { short: 'm', long: ['message', 'pathspec-from-file'] });
  return pathspecsOrWhole(first?.value === 'save' ? [] : operandsOf(args, scan), scan);
};

/**
 * git-apply(1): the files the patch names are written, inside the working tree, unless `--cached`
 * (the index only) or `--check`/`--stat`/`--numstat`/`--summary` without `--apply`; with
 * `--unsafe-paths` anywhere.
 */
const apply: Model = (args) => {
  const scan = scanOptions(args, 0, { short: 'pC', long: ['exclude', 'include', 'directory', 'whitespace', 'build-fake-ancestor'] });
  const reports = narrows(scan, '--check', '--stat', '--numstat', '--summary') && !widens(scan, null, '--apply');
  if (reports) return NOTHING;
  // `--cached`: the index only, where a rename is checked out later under its new name.
  if (narrows(scan, '--cached') && !widens(scan, null, '--index')) return { ...NOTHING, patches: true };
  return { ...WHOLE, anywhere: widens(scan, null, '--unsafe-paths'), patches: true };
};

/**
 * git-read-tree(1): `-u` checks out what it read; `--prefix=P/` reads a tree into the index below P
 * (and with `-u` the working tree): its files under new names, which a later `git checkout -- P`
 * writes (`read-tree --prefix=pub/r/ -u HEAD` made pub/r/conf/secret/db.txt, git 2.39; round 32 review F32-2).
 */
const readTree: Model = (args) => {
  const scan = scanOptions(args, 0, { long: ['prefix', 'index-output', 'exclude-per-directory'] });
  const rewrite = hasOption(scan, '-u') ? WHOLE : NOTHING;
  return scan.options.some((o) => o.name.split('=')[0]!.length >= 3 && '--prefix'.startsWith(o.name.split('=')[0]!)) ? { ...rewrite, copies: 'objects' } : rewrite;
};

/**
 * git-checkout-index(1): the files named (`-a`, `--stdin`: every one) are written, at
 * `--prefix` + their name when given (`--prefix=../x/` writes a copy of the tree there).
 */
const checkoutIndex: Model = (args) => {
  const scan = scanOptions(args, 0, { long: ['prefix', 'stage'] });
  const prefix = scan.options.filter((o) => o.name === '--prefix' && o.value !== null).map((o) => o.value!).at(-1);
  // PREFIX is taken from the top, not the cwd (`cd src && git checkout-index -f --prefix=./ --
  // ../data/secret` wrote data/secret, git 2.39): a relative one without `..` is below the top, one
  // with `..` is known only with the top (docs/threat-model.md#git-rewrites-tracked-files).
  if (prefix?.isStatic && !prefix.value.startsWith('/')) return prefix.value.split('/').includes('..') ? { ...NOTHING, directories: [{ ...prefix, isStatic: false }], copies: 'index' } : { ...NOTHING, prefixes: [prefixDirectory(prefix)], copies: 'index' };
  if (prefix) return { ...NOTHING, directories: [prefixDirectory(prefix)], copies: 'index' };
  if (widens(scan, '-a', '--all', '--stdin')) return WHOLE;
  return { ...NOTHING, pathspecs: operandsOf(args, scan) };
};

/** The directory `--prefix=P` writes below: P up to its last `/` (`../x/` → `../x`, `pre-` → `.`). */
export function prefixDirectory(prefix: Word): Word {
  if (!prefix.isStatic) return prefix;
  const slash = prefix.value.lastIndexOf('/');
  const value = slash === -1 ? '.' : slash === 0 ? '/' : prefix.value.slice(0, slash);
  return { ...prefix, value, raw: value };
}

/** git-worktree(1): `add PATH` checks out into PATH, `remove` deletes it, `move` both. */
const worktree: Model = (args) => {
  const first = args[0];
  if (first && !first.isStatic) return { ...NOTHING, directories: args.slice(1), copies: 'objects' };
  const scan = scanOptions(args, 1, { short: 'bB', long: ['reason'] });
  const operands = operandsOf(args, scan);
  // `add PATH` checks out HEAD's commit, or a branch named as PATH's last name when there is one
  // (git-worktree(1)): the index's files when the index is HEAD (F32-3); `add PATH COMMIT` what that commit holds.
  if (first?.value === 'add') {
    const path = operands[0];
    const named = scan.options.some((o) => ['-b', '-B', '--detach', '--orphan'].includes(o.name) || (o.name.length >= 4 && ['--detach', '--orphan'].some((long) => long.startsWith(o.name))));
    const branch = named ? null : path?.isStatic ? (path.value.replace(/\/+$/, '').split('/').at(-1) ?? '') : '';
    return { ...NOTHING, directories: operands.slice(0, 1), ...(operands.length > 1 || branch === '' ? { copies: 'objects' as const } : { copies: 'head' as const, branch }) };
  }
  if (first?.value === 'remove') return { ...NOTHING, directories: operands.slice(0, 1) };
  if (first?.value === 'move') return { ...NOTHING, directories: operands.slice(0, 2) };
  return NOTHING;
};

/** git-submodule(1): `update`, `deinit`, `add`, `foreach` (what it runs) change the submodules' trees. */
const submodule: Model = (args) => {
  const scan = scanOptions(args, 0, { stopAtOperand: true });
  const sub = args[scan.end];
  return sub === undefined || (sub.isStatic && ['status', 'init', 'summary', 'sync', 'set-branch', 'set-url', 'absorbgitdirs'].includes(sub.value)) ? NOTHING : WHOLE;
};

/** Subcommands that stop or show a sequence without touching the tree (`rebase --quit`, `am --show-current-patch`). */
const sequence = (extra: readonly string[] = []): Model => (args) => {
  const scan = scanOptions(args, 0, SEQUENCE_VALUES);
  return narrows(scan, '--quit', '--show-current-patch', ...extra) ? NOTHING : WHOLE;
};
const SEQUENCE_VALUES: OptionSpec = { short: 'mFsXxSC', long: ['message', 'file', 'strategy', 'strategy-option', 'exec', 'onto', 'gpg-sign', 'cleanup', 'into-name', 'mainline', 'patch-format', 'resolvemsg', 'directory', 'exclude', 'include', 'whitespace'] };

/** git-am(1): a patch series applied (TreeRewrite.patches); `--abort` goes back to where it started. */
const am: Model = (args) => {
  const rewrite = sequence()(args);
  return rewrite.whole && !narrows(scanOptions(args, 0, SEQUENCE_VALUES), '--abort') ? { ...rewrite, patches: true } : rewrite;
};

/** git-bisect(1): `start BAD GOOD`, `good`, `bad`, `reset`, `run` check out; `log`, `terms`, `visualize` only show. */
const bisect: Model = (args) => {
  const first = args[0];
  if (first?.isStatic && ['log', 'visualize', 'view', 'terms', 'help', 'replay'].includes(first.value)) return first.value === 'replay' ? WHOLE : NOTHING;
  // After `--` a `--no-checkout` is a path (git 2.39 checked out with one there).
  const end = args.findIndex((w) => w.isStatic && w.value === '--');
  const options = end === -1 ? args : args.slice(0, end);
  return first?.isStatic && first.value === 'start' && options.some((w) => w.isStatic && w.value === '--no-checkout') ? NOTHING : WHOLE;
};

/** git-sparse-checkout(1): `set`, `add`, `reapply`, `disable`, `init` remove or restore files; `list` only shows. */
const sparseCheckout: Model = (args) => (args[0]?.isStatic && ['list', 'check-rules'].includes(args[0].value) ? NOTHING : WHOLE);

/** git-difftool(1) `-d`/`--dir-diff` copies the files changed in its temporary tree back. */
const difftool: Model = (args) => (widens(scanOptions(args, 0, { short: 'txy', long: ['tool', 'extcmd'] }), '-d', '--dir-diff') ? WHOLE : NOTHING);

const MODELS: Record<string, Model> = {
  checkout,
  switch: switchBranch,
  restore,
  reset,
  stash,
  apply,
  'read-tree': readTree,
  'checkout-index': checkoutIndex,
  worktree,
  submodule,
  merge: sequence(['--continue']),
  rebase: sequence(['--edit-todo']),
  'cherry-pick': sequence(),
  revert: sequence(),
  am,
  pull: () => WHOLE,
  bisect,
  'sparse-checkout': sparseCheckout,
  difftool,
};
