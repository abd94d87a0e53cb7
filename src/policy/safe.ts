import { SAFE_WRAPPERS } from '../programs.js';
import { SAFE_ASSIGNMENTS } from './command-match.js';
import type { Segment } from './types.js';

/**
 * The read-only commands `default` mode allows without a rule (docs/rules.md). Narrow on purpose: the
 * program is named literally, every word is static (echo excepted: it only prints), only the
 * wrappers and assignments allow rules look past are accepted, and options that write files or run
 * code make the command unsafe. The paths these commands read are separate read subjects, so
 * `cat .env` still meets `Read(**\/.env)`.
 *
 * Beyond docs/rules.md's list (deliberately, so everyday commands do not ask): Claude Code's `diff` and
 * `stat`, and pure utilities that neither run code nor write (`basename`, `sort` without `-o`, …).
 */
export const ALWAYS_SAFE: ReadonlySet<string> = new Set([
  'pwd', 'which', 'ls', 'grep', 'egrep', 'fgrep', 'head', 'tail', 'cat', 'du', 'wc', 'echo', 'cd', 'true', 'false', 'exit',
  'diff', 'stat', 'test', '[', '[[', 'basename', 'dirname', 'realpath', 'uname', 'whoami', 'nproc', 'sleep', 'type',
  'sort', 'uniq', 'cut', 'tr', 'nl', 'rg',
  // Everyday readers that neither write nor run anything (their paths are read subjects of their own).
  'md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'cmp', 'comm', 'tac', 'rev', 'od',
  'strings', 'column', 'readlink', 'seq', 'id', 'printf',
]);

/** Options that make an otherwise safe command write or execute (long options also when abbreviated). */
const UNSAFE_OPTIONS: Record<string, (arg: string) => boolean> = {
  find: (arg) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(arg),
  // `tree -o FILE` writes FILE; `-R` reruns it in every directory and writes 00Tree.html there.
  tree: (arg) => /^-[^-]*[oR]/.test(arg),
  date: (arg) => /^-[^-]*s/.test(arg) || isLongOption(arg, ['--set']),
  grep: (arg) => isLongOption(arg, ['--files0-from']),
  wc: (arg) => isLongOption(arg, ['--files0-from']),
  du: (arg) => isLongOption(arg, ['--files0-from']),
  // `sort -o FILE` writes, `--compress-program` runs a program, `-T DIR` writes temporary files.
  sort: (arg) => /^-[^-]*[oT]/.test(arg) || isLongOption(arg, ['--output', '--compress-program', '--temporary-directory', '--files0-from']),
  // `rg --pre CMD` runs CMD on every file searched.
  rg: (arg) => isLongOption(arg, ['--pre', '--hostname-bin']),
  // binutils reads `@FILE` as more arguments, and FILE may name `@OTHER` (libiberty expandargv):
  // files known only at run time (round 12 review, S4; docs/threat-model.md).
  strings: (arg) => arg.startsWith('@'),
};
// `md5sum -c LIST` reads and hashes each file LIST names (round 12 review, S5).
for (const sum of ['md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum']) UNSAFE_OPTIONS[sum] = (arg) => /^-[^-]*c/.test(arg) || isLongOption(arg, ['--check']);

/** Git subcommands that only read, and options that turn any git command into a writer or executor. */
const GIT_READ = new Set(['status', 'diff', 'log', 'branch', 'show', 'rev-parse', 'ls-files', 'blame', 'describe', 'shortlog', 'rev-list', 'ls-tree', 'cat-file', 'remote', 'tag', 'stash', 'config']);
const GIT_UNSAFE = ['--output', '--ext-diff', '--textconv', '--filters', '--no-index', '--exec', '--open-files-in-pager', '--paginate'];
/** Subcommands that also change things: only these listing forms are read-only (`git tag v1` creates a tag). */
const GIT_LISTING: Record<string, (rest: readonly string[]) => boolean> = {
  remote: (rest) => rest.every((arg) => arg === '-v' || arg === '--verbose'),
  tag: (rest) => rest.length === 0 || ((rest[0] === '-l' || rest[0] === '--list') && rest.slice(1).every((arg) => !arg.startsWith('-'))),
  stash: (rest) => rest.length === 0 ? false : rest[0] === 'list',
  config: (rest) => rest.length >= 1 && ['--get', '--get-all', '--get-regexp', '--list', '-l'].includes(rest[0]!) && rest.length <= 2,
};
/** Global options before the subcommand that change nothing but paging. */
const GIT_HARMLESS_GLOBALS = new Set(['--no-pager', '-P', '--no-optional-locks']);
const GIT_BRANCH_OK = /^(--list|-l|--show-current|-a|--all|-r|--remotes|-v|-vv|--verbose|--no-color|--color|--color=.*|--format=.*|--sort=.*|--contains|--no-contains|--merged|--no-merged|--points-at|--contains=.*|--no-contains=.*|--merged=.*|--no-merged=.*|--points-at=.*|--column|--no-column|--ignore-case|-i)$/;
/** `git branch` options whose value is the next word (a commit), not a branch to create. */
const GIT_BRANCH_VALUE = new Set(['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format']);

export function isSafeCommand(segment: Segment): boolean {
  if (segment.program === null || segment.name === null) return false;
  if (segment.program !== segment.name) return false;
  // `time ls`, `LC_ALL=C sort f`: the wrappers and assignments allow rules look past change nothing here either.
  if (!segment.assignments.every((assignment) => SAFE_ASSIGNMENTS.test(assignment))) return false;
  if (!segment.wrappers.every((wrapper) => SAFE_WRAPPERS.has(wrapper.split(/\s+/)[0] ?? ''))) return false;
  const { name, args } = segment;
  // `echo $HOME`, `echo $((1+2))`: echo prints its words whatever they expand to (a substitution in
  // them is unanalyzable and decided before the safe list). Not `${x:=…}`, which assigns.
  // Tests only look (`[[ $f == *.ts ]]`); where they evaluate text the call is unanalysable first.
  if (!segment.isStatic) return (name === 'echo' || name === '[[' || name === '[' || name === 'test') && !args.some((arg) => /\$\{[^}]*=/.test(arg));
  if (ALWAYS_SAFE.has(name)) {
    const unsafe = UNSAFE_OPTIONS[name];
    return !unsafe || !args.some(unsafe);
  }
  switch (name) {
    case 'find':
    case 'tree':
    case 'date':
      return !args.some(UNSAFE_OPTIONS[name]!);
    case 'env':
    case 'printenv':
      // `env CMD` runs CMD; only the printing forms are safe (the analyser turns `env CMD` into a wrapper).
      return args.every((arg) => arg === '-0' || arg === '--null' || (name === 'printenv' && !arg.startsWith('-')));
    case 'command':
      // `command -v NAME` looks a name up; `command NAME` runs it (the analyser strips that form).
      return args.length > 0 && (args[0] === '-v' || args[0] === '-V');
    case 'git':
      return isSafeGit(args);
    default:
      return false;
  }
}

function isSafeGit(args: readonly string[]): boolean {
  // Global options (-c core.pager=…, -C DIR, --git-dir) come before the subcommand: any but the
  // paging ones makes it unsafe (-C points at another repository's config and hooks).
  let at = 0;
  while (at < args.length && GIT_HARMLESS_GLOBALS.has(args[at]!)) at++;
  const sub = args[at];
  if (sub === undefined || !GIT_READ.has(sub)) return false;
  const rest = args.slice(at + 1);
  // git's own parser accepts unambiguous abbreviations (`--outp=x`); refuse those too.
  if (rest.some((arg) => isLongOption(arg, GIT_UNSAFE))) return false;
  // `git branch NAME`, `-d`, `-m`… change branches; only listing forms are read-only.
  if (sub === 'branch') return isBranchListing(rest);
  if (Object.hasOwn(GIT_LISTING, sub)) return GIT_LISTING[sub]!(rest);
  return true;
}

/** `git branch [--list] [options] [pattern…]`: with `--list`/`-l` every operand is a pattern. */
function isBranchListing(args: readonly string[]): boolean {
  const listing = args.includes('--list') || args.includes('-l');
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (GIT_BRANCH_OK.test(arg)) {
      if (GIT_BRANCH_VALUE.has(arg) && i + 1 < args.length && !args[i + 1]!.startsWith('-')) i++;
      continue;
    }
    if (listing && !arg.startsWith('-')) continue;
    return false;
  }
  return true;
}

/** `--name`, `--name=v`, or an abbreviation of one of `names` (GNU and git accept unambiguous prefixes). */
function isLongOption(arg: string, names: readonly string[]): boolean {
  if (!arg.startsWith('--') || arg.length < 3) return false;
  const given = arg.split('=')[0]!;
  return names.some((name) => name.startsWith(given));
}
