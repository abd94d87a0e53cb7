import { optionValues, scanOptions, staticWord, type OptionSpec, type Word } from './options.js';

/**
 * Commands a git subcommand runs that its own words name (git-rebase(1) `--exec`, git-bisect(1)
 * `run`, git-difftool(1) `--extcmd`, git-submodule(1) `foreach`, git-filter-branch(1) filters,
 * git-merge-index(1), git-for-each-repo(1), git-send-email(1) `--to-cmd` and kin, git-daemon(1)
 * `--access-hook`, git-instaweb(1) `--httpd`): `git rebase -x 'rm -rf ../q' HEAD~1` removed q under
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

/**
 * git-send-email(1) options whose value is shell text, in any spelling Perl's Getopt::Long takes:
 * one dash or two, any prefix (`--sendm=`), only `--to` and `--cc` being options of their own. Proven
 * with git 2.39 (`-to-cmd=`, `--sendm=` ran). `--header-cmd` is git 2.41's.
 */
const SEND_EMAIL_COMMANDS = ['to-cmd', 'cc-cmd', 'header-cmd', 'sendmail-cmd'];

function sendEmailRuns(args: readonly Word[], out: GitRuns): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word.isStatic && word.value === '--') return;
    // A word known only at run time may be any option: `--to="$a"` keeps its name, `"$o"` is unknown.
    const option = /^--?([a-z-]+)(=?)/.exec(word.isStatic ? word.value : word.raw);
    if (!option) {
      if (!word.isStatic) out.scripts.push(word);
      continue;
    }
    const [spelled, name, eq] = option;
    const value = eq ? { ...word, value: word.value.slice(spelled.length), raw: word.raw.slice(spelled.length) } : args[i + 1];
    if (value === undefined) continue;
    if (!['to', 'cc'].includes(name!) && SEND_EMAIL_COMMANDS.some((command) => command.startsWith(name!))) out.scripts.push(value);
    // `--smtp-server=/path` names a sendmail-like program, run with `-i` and the recipients; a host name runs nothing.
    else if (name === 'smtp-server' && (!value.isStatic || value.value.startsWith('/'))) {
      if (value.isStatic) out.argvs.push([value]);
      else out.scripts.push(value);
    }
  }
}

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
  } else if (sub === 'send-email') {
    sendEmailRuns(args, out);
  } else if (sub === 'daemon') {
    // git-daemon(1) `--access-hook=<path>` runs through the shell for every request (git 2.39 ran
    // `touch …; true` on a `git ls-remote git://…`); git-daemon takes only this spelling.
    for (const word of args) if (!word.isStatic || word.value.startsWith('--access-hook=')) out.scripts.push(word.isStatic ? { ...word, value: word.value.slice('--access-hook='.length) } : word);
  } else if (sub === 'instaweb') {
    // git-instaweb(1) `-d`/`--httpd`: the command launched, split into words by the shell script.
    out.scripts.push(...optionValues(scanOptions(args, 0, { short: 'dbpm', long: ['httpd', 'browser', 'port', 'module-path'] }), '-d', '--httpd'));
  } else if (sub === 'for-each-repo') {
    const scan = scanOptions(args, 0, { long: ['config'], stopAtOperand: true });
    out.argvs.push([staticWord('git'), ...args.slice(scan.end)]);
  }
  return out;
}
