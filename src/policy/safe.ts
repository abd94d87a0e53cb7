import type { Segment } from './types.js';

/**
 * The read-only commands `default` mode allows without a rule (SPEC §3). Narrow on purpose: the
 * program is named literally, every word is static, and options that write files or run code
 * make the command unsafe. The paths these commands read are separate read subjects, so
 * `cat .env` still meets `Read(**\/.env)`.
 */
const ALWAYS_SAFE = new Set(['pwd', 'which', 'ls', 'grep', 'egrep', 'fgrep', 'head', 'tail', 'cat', 'du', 'wc', 'echo', 'cd', 'true', 'false']);

/** Options that make an otherwise safe command write or execute. */
const UNSAFE_OPTIONS: Record<string, RegExp> = {
  find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/,
  tree: /^-o$|^-o./,
  date: /^(-s|--set)(=|$)|^-s./,
  grep: /^--files0-from/,
  wc: /^--files0-from/,
  du: /^--files0-from/,
};

/** Git subcommands that only read, and options that turn any git command into a writer or executor. */
const GIT_READ = new Set(['status', 'diff', 'log', 'branch']);
const GIT_UNSAFE = /^(--output|--ext-diff|--textconv|--no-index|--exec)(=|$)/;
const GIT_BRANCH_OK = /^(--list|-l|--show-current|-a|--all|-r|--remotes|-v|-vv|--verbose|--no-color|--color|--format=.*|--sort=.*|--contains|--merged|--no-merged)$/;

export function isSafeCommand(segment: Segment): boolean {
  if (!segment.isStatic || segment.program === null || segment.name === null) return false;
  if (segment.program !== segment.name) return false;
  if (segment.assignments.length > 0 || segment.wrappers.length > 0) return false;
  const { name, args } = segment;
  if (ALWAYS_SAFE.has(name)) {
    const unsafe = UNSAFE_OPTIONS[name];
    return !unsafe || !args.some((arg) => unsafe.test(arg));
  }
  switch (name) {
    case 'find':
    case 'tree':
    case 'date':
      return !args.some((arg) => UNSAFE_OPTIONS[name]!.test(arg));
    case 'env':
    case 'printenv':
      // `env CMD` runs CMD; only the printing forms are safe (the analyser turns `env CMD` into a wrapper).
      return args.every((arg) => arg === '-0' || arg === '--null' || (name === 'printenv' && !arg.startsWith('-')));
    case 'git':
      return isSafeGit(args);
    default:
      return false;
  }
}

function isSafeGit(args: readonly string[]): boolean {
  // Global options (-c core.pager=…, -C DIR, --git-dir) come before the subcommand: any makes it unsafe.
  const sub = args[0];
  if (sub === undefined || !GIT_READ.has(sub)) return false;
  const rest = args.slice(1);
  if (rest.some((arg) => GIT_UNSAFE.test(arg))) return false;
  // `git branch NAME`, `-d`, `-m`… change branches; only listing forms are read-only.
  if (sub === 'branch') return rest.every((arg) => GIT_BRANCH_OK.test(arg));
  return true;
}
