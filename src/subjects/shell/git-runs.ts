import { optionValues, scanOptions, staticWord, type OptionSpec, type Word } from './options.js';

/**
 * Commands a git subcommand runs that its own words name (git-rebase(1) `--exec`, git-bisect(1)
 * `run`, git-difftool(1) `--extcmd`, git-submodule(1) `foreach`, git-filter-branch(1) filters,
 * git-merge-index(1), git-for-each-repo(1)): `git rebase -x 'rm -rf ../q' HEAD~1` removed q under
 * git 2.39 and bash 5.2. Each is analysed as a command of its own, from a directory not known here
 * (the working tree's top, or a temporary one). Those named in git's configuration are
 * git-config.ts's.
 *
 *   git rebase --exec 'make test' main   → script `make test`
 *   git bisect run ./check.sh 3          → argv ./check.sh 3
 */
export interface GitRuns {
  /** Shell text git hands to `sh -c`. */
  scripts: Word[];
  /** Commands git runs directly, with their arguments. */
  argvs: Word[][];
}

const UPLOAD_PACK = { spec: { short: 'uobj', long: ['upload-pack', 'origin', 'branch', 'reference', 'depth', 'config', 'jobs', 'filter', 'server-option', 'shallow-since', 'shallow-exclude', 'separate-git-dir', 'template'] }, names: ['--upload-pack'] };
const REMOTE_PROGRAMS: Record<string, { spec: OptionSpec; names: string[] }> = {
  'ls-remote': UPLOAD_PACK,
  fetch: UPLOAD_PACK,
  pull: UPLOAD_PACK,
  'fetch-pack': UPLOAD_PACK,
  clone: { ...UPLOAD_PACK, names: ['-u', '--upload-pack'] },
  push: { spec: { short: 'o', long: ['receive-pack', 'exec', 'repo', 'push-option', 'signed', 'force-with-lease'] }, names: ['--receive-pack', '--exec'] },
  'send-pack': { spec: { long: ['receive-pack', 'exec'] }, names: ['--receive-pack', '--exec'] },
  archive: { spec: { short: 'o', long: ['output', 'format', 'prefix', 'remote', 'exec', 'add-file', 'add-virtual-file'] }, names: ['--exec'] },
};

const FILTERS = ['env-filter', 'tree-filter', 'index-filter', 'parent-filter', 'msg-filter', 'commit-filter', 'tag-name-filter', 'setup'];

export function gitRuns(sub: string, args: readonly Word[]): GitRuns {
  const out: GitRuns = { scripts: [], argvs: [] };
  if (sub === 'rebase') {
    // `-S[keyid]` takes its value attached only; `--ex`/`--exe` are `--exec`.
    out.scripts.push(...optionValues(scanOptions(args, 0, { short: 'sXxC', attached: 'S', long: ['exec', 'onto', 'strategy', 'strategy-option', 'whitespace', 'empty'] }), '-x', '--exec'));
  } else if (REMOTE_PROGRAMS[sub]) {
    // git runs these through the shell (git-ls-remote(1) `--upload-pack`, git-clone(1) `-u`,
    // git-push(1) `--receive-pack`/`--exec`, git-archive(1) `--exec`): `git ls-remote
    // --upload-pack='rm -f data/secret; git-upload-pack' .` removed it (git 2.39, bash 5.2).
    const { spec, names } = REMOTE_PROGRAMS[sub]!;
    out.scripts.push(...optionValues(scanOptions(args, 0, spec), ...names));
  } else if (sub === 'grep') {
    // git-grep(1) `-O[<pager>]`, `--open-files-in-pager[=<pager>]`: the pager is shell text.
    out.scripts.push(...optionValues(scanOptions(args, 0, { short: 'efABCm', attached: 'O', long: ['open-files-in-pager', 'max-depth', 'threads', 'context', 'after-context', 'before-context', 'max-count'] }), '-O', '--open-files-in-pager'));
  } else if (sub === 'difftool') {
    out.scripts.push(...optionValues(scanOptions(args, 0, { short: 'xt', long: ['extcmd', 'tool'] }), '-x', '--extcmd'));
  } else if (sub === 'filter-branch') {
    out.scripts.push(...optionValues(scanOptions(args, 0, { short: 'd', long: [...FILTERS, 'subdirectory-filter', 'original', 'state-branch'] }), ...FILTERS.map((name) => `--${name}`)));
  } else if (sub === 'bisect') {
    if (args[0] && (!args[0].isStatic || args[0].value === 'run') && args.length > 1) out.argvs.push(args.slice(1));
  } else if (sub === 'submodule') {
    const scan = scanOptions(args, 0, { stopAtOperand: true });
    const at = args[scan.end];
    if (at && (!at.isStatic || at.value === 'foreach')) {
      const command = scanOptions(args, scan.end + 1, { stopAtOperand: true });
      const words = args.slice(command.end);
      // One word is shell text; more are run as `sh -c '"$@"'` would: either way a shell reads them joined.
      if (words.length > 0) out.scripts.push(words.every((w) => w.isStatic) ? staticWord(words.map((w) => w.value).join(' ')) : { ...words[0]!, isStatic: false });
    }
  } else if (sub === 'merge-index') {
    const program = scanOptions(args, 0, { stopAtOperand: true });
    if (args[program.end]) out.argvs.push(args.slice(program.end));
  } else if (sub === 'for-each-repo') {
    const scan = scanOptions(args, 0, { long: ['config'], stopAtOperand: true });
    out.argvs.push([staticWord('git'), ...args.slice(scan.end)]);
  }
  return out;
}
