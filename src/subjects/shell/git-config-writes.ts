import { hasOption, scanOptions, type Word } from './options.js';

/**
 * git commands other than `git config` that change the repository's own config file (round 29,
 * rules28a's "Not covered"), from each command's manual page (git 2.39):
 *
 *   git-remote(1)    add, rename, remove/rm, set-url, set-branches: `remote.NAME.*` ("Adds a remote
 *                    named <name>", "Changes URLs for the remote")
 *   git-branch(1)    -u/--set-upstream-to, --unset-upstream, -t/--track, -m/-M, -c/-C (the branch's
 *                    config section moved or copied), -d/-D (removed), --edit-description
 *                    (`branch.NAME.description`), and a new branch from a start point, which
 *                    branch.autoSetupMerge makes track it ("--track … This is the default when the
 *                    start point is a remote-tracking branch")
 *   git-checkout(1), git-switch(1)  -b/-B/-c/-C/-t/--track: the same tracking of a new branch
 *   git-push(1)      -u/--set-upstream ("add upstream (tracking) reference")
 *   git-submodule(1) init, update --init, add, sync, deinit, set-url, set-branch (`submodule.NAME.*`:
 *                    "init … copying submodule names and urls from .gitmodules to .git/config")
 *   git-worktree(1)  add (a new branch's tracking, as checkout's; `--track`, `-b`)
 *
 * Each is a write of the file as `git config KEY VALUE` is (files.ts gitConfig, decided as
 * policy/decide.ts GIT_CONFIG_SETTING: deny and ask rules on `.git/config` count, the command's own
 * rule decides otherwise). None writes a key git runs: what they set is a URL, a refspec, a branch.
 */
export function changesGitConfig(sub: string, args: readonly Word[]): boolean {
  const first = args.find((word) => !word.isStatic || !word.value.startsWith('-'));
  const verb = first?.isStatic ? first.value : first === undefined ? null : '\u0000';
  switch (sub) {
    case 'remote':
      return verb === '\u0000' || ['add', 'rename', 'remove', 'rm', 'set-url', 'set-branches'].includes(verb ?? '');
    case 'submodule':
      if (verb === 'update') return hasOption(scanOptions(args, 0, {}), '--init');
      return verb === '\u0000' || ['init', 'add', 'sync', 'deinit', 'set-url', 'set-branch'].includes(verb ?? '');
    case 'worktree':
      return verb === '\u0000' || verb === 'add';
    case 'branch': {
      const scan = scanOptions(args, 0, { short: 'u', long: ['set-upstream-to', 'contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'format', 'sort', 'color', 'column', 'abbrev'] });
      if (hasOption(scan, '-u', '--set-upstream-to', '--unset-upstream', '-t', '--track', '-m', '-M', '--move', '-c', '-C', '--copy', '-d', '-D', '--delete', '--edit-description')) return true;
      // A new branch (`git branch NAME [START]`): a start point that is a remote-tracking branch is
      // tracked, and with branch.autoSetupMerge=always (any start) or inherit (the start's upstream),
      // set in any config file git reads, `-c` or GIT_CONFIG_*, so is HEAD's branch (git 2.39 wrote
      // `branch.x.remote = .` for `git -c branch.autoSetupMerge=always branch x`; round 30).
      // `--no-track` sets up nothing whatever the setting.
      return scan.operands.length >= 1 && !hasOption(scan, '--no-track', '-l', '--list', '-a', '--all', '-r', '--remotes', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--show-current');
    }
    case 'checkout':
    case 'switch': {
      const scan = scanOptions(args, 0, { short: sub === 'checkout' ? 'bB' : 'cC', long: ['create', 'force-create', 'orphan', 'conflict', 'pathspec-from-file'] });
      return hasOption(scan, '-t', '--track', '-b', '-B', '-c', '-C', '--create', '--force-create');
    }
    case 'push':
      return hasOption(scanOptions(args, 0, { short: 'o', long: ['repo', 'receive-pack', 'exec', 'push-option', 'signed', 'force-with-lease', 'recurse-submodules'] }), '-u', '--set-upstream');
    default:
      return false;
  }
}

/**
 * True when the command's only write of the config is a new branch's tracking that git sets up from
 * `branch.autoSetupMerge` alone (round 31): `git branch NAME`, `git checkout -b NAME`, `git switch -c
 * NAME` start from HEAD, never a remote-tracking branch, so with the setting unset (its default,
 * `true`, tracks only such a start) or `false`/`simple` nothing is written; `always` and `inherit`
 * write `branch.NAME.*` (git-branch(1), git-config(1) branch.autoSetupMerge). subjects/inspect.ts
 * reads whether any config file git reads sets it (or includes another) when the call is decided.
 */
export function tracksBySettingOnly(sub: string, args: readonly Word[]): boolean {
  if (sub === 'branch') {
    const scan = scanOptions(args, 0, { short: 'u', long: ['set-upstream-to', 'contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'format', 'sort', 'color', 'column', 'abbrev'] });
    return scan.options.every((option) => /^(?:-f|--force|-q|--quiet|-v|--verbose|--create-reflog|--recurse-submodules)$/.test(option.name)) && scan.operands.length === 1 && args.every((word) => word.isStatic);
  }
  if (sub !== 'checkout' && sub !== 'switch') return false;
  const scan = scanOptions(args, 0, { short: sub === 'checkout' ? 'bB' : 'cC', long: ['create', 'force-create', 'orphan', 'conflict', 'pathspec-from-file'] });
  const creates = scan.options.filter((option) => ['-b', '-B', '-c', '-C', '--create', '--force-create'].includes(option.name));
  return creates.length === 1 && creates[0]!.value?.isStatic === true && scan.operands.length === 0 && scan.options.every((option) => creates.includes(option) || /^(?:-f|--force|-q|--quiet|--no-guess|--guess)$/.test(option.name)) && args.every((word) => word.isStatic);
}

/**
 * The branch `git checkout NAME` / `git switch NAME` may guess (git-checkout(1) `--guess`, the
 * default, and `checkout.guess`): when NAME names no commit and exactly one remote has a
 * remote-tracking branch NAME, git makes the local branch NAME tracking it, writing
 * `branch.NAME.remote`/`merge` into the repository's config as `checkout -b NAME --track R/NAME`
 * does (git 2.39 wrote it for `git checkout feat`, `git switch feat`, `git checkout feat --`; round
 * 30). builtin/checkout.c parse_branchname_arg guesses only for `checkout NAME`, `checkout NAME --`
 * and `switch NAME`, never after `--no-guess`, `--detach`, `--orphan`, `-p`; a name no ref can have
 * (`HEAD~1`, a glob) is never guessed, `-` is the previous branch. Without `--`, a file NAME there
 * stops the guess (`pathsStop`).
 *
 * What NAME names is read on disk when the call is decided (subjects/inspect.ts: a commit or a tag
 * drops the write); a name known only at run time (`name: null`) is a write whatever it is. Null
 * when git guesses no branch.
 */
export function branchGuess(sub: string, args: readonly Word[]): { name: string | null; pathsStop: boolean } | null {
  if (sub !== 'checkout' && sub !== 'switch') return null;
  const scan = scanOptions(args, 0, { short: sub === 'checkout' ? 'bB' : 'cC', long: ['create', 'force-create', 'orphan', 'conflict', 'pathspec-from-file'] });
  if (hasOption(scan, '-d', '--detach', '--orphan', '-p', '--patch', '--pathspec-from-file')) return null;
  // `--guess`/`--no-guess`: the last one given counts.
  const guesses = scan.options.filter((option) => option.name === '--guess' || option.name === '--no-guess');
  if (guesses.at(-1)?.name === '--no-guess') return null;
  const dash = args.findIndex((word) => word.isStatic && word.value === '--');
  const before = scan.operands.filter((i) => dash === -1 || i < dash);
  const after = scan.operands.length - before.length;
  if (before.length !== 1 || (sub === 'checkout' && after > 0)) return null;
  const word = args[before[0]!]!;
  if (!word.isStatic) return { name: null, pathsStop: false };
  const name = word.value;
  if (name === '-' || name === '@' || name.startsWith('-') || /[\s~^:?*[\\\x00-\x1f\x7f]|\.\.|@\{/.test(name)) return null;
  return { name, pathsStop: dash === -1 };
}
