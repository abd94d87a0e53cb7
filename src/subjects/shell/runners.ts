import { RECURSIVE } from '../../policy/decide.js';
import type { CommandPath } from '../../policy/types.js';
import { GIT_REVISION, optionValues, pathOf, pushPath, scanOptions, staticWord, type OptionSpec, type ParsedOption, type Word } from './options.js';
import type { FileFacts } from './files.js';
import { globalValueOptions, noptKeys, NPM_OPTIONS, PNPM_SHORTHANDS, unreadOptions } from '../../programs.js';

/**
 * Test and build runners an allow rule names (`Bash(python -m pytest:*)`, `Bash(make:*)`, `Bash(cargo
 * build:*)`): the files their options write, and the options that make them load code other than
 * the project's own (docs/threat-model.md#runners-write-and-load-what-their-options-name). Round 13
 * review A1, A6, A7, proven under bash 5.2: `pytest --basetemp=DIR` removed DIR, `--junitxml=F`
 * replaced F, `make -C DIR` ran DIR's Makefile, `cargo build --manifest-path=P` ran P's build.rs.
 * A write needs an Edit allow as `sort -o` does; code named by an option is `interpreter` (never
 * allowed by a rule).
 *
 *   pytest --basetemp=/tmp/x      → write /tmp/x and everything below it
 *   pytest -p evil                → interpreter
 *   cargo build --target-dir=d    → write d and everything below it
 */

/** A directory the program removes or fills (its old content is replaced): rules below it count, as for `rm -r`. */
export function treeWrite(word: Word, cwd: string | null): CommandPath | null {
  const path = pathOf(word, 'write', cwd);
  if (path === null) return null;
  path.tree = { content: true, follows: false };
  path.via = RECURSIVE;
  return path;
}

/** An option the spec does not list, spelled as a prefix (length 2+) of a listed one: argparse and getopt take it for that one. */
const named = (option: ParsedOption, ...names: string[]): boolean => names.includes(option.name) || (option.unlisted === true && option.name.length > 3 && !EXACT_FLAGS.has(option.name) && names.some((n) => n.startsWith(option.name)));
/** pytest's own flags spelled as a prefix of a listed option (`--co` is --collect-only). */
const EXACT_FLAGS: ReadonlySet<string> = new Set(['--co']);

/**
 * pytest 9 (`pytest --help`): options taking a value, so that it is not taken for a test path. Plugins
 * add their own (pytest-cov `--cov=`, pytest-html `--html=`): an unlisted `--name=VALUE` with a
 * path-like value is a write (below).
 */
const PYTEST: OptionSpec = {
  short: 'kmrWcpo',
  long: [
    'maxfail', 'lfnf', 'last-failed-no-failures', 'durations', 'durations-min', 'verbosity', 'tb', 'show-capture', 'color', 'code-highlight', 'pastebin',
    'junit-xml', 'junitxml', 'junit-prefix', 'junitprefix', 'pythonwarnings', 'ignore', 'ignore-glob', 'deselect', 'confcutdir', 'import-mode', 'doctest-report',
    'doctest-glob', 'config-file', 'rootdir', 'basetemp', 'override-ini', 'assert', 'capture', 'pdbcls', 'log-level', 'log-format', 'log-date-format',
    'log-cli-level', 'log-cli-format', 'log-cli-date-format', 'log-file', 'log-file-mode', 'log-file-level', 'log-file-format', 'log-file-date-format',
    'log-auto-indent', 'log-disable', 'result-log', 'resultlog',
  ],
};

/** Files pytest writes: the JUnit report, the log file, the old result log. */
const PYTEST_WRITES = ['--junit-xml', '--junitxml', '--log-file', '--result-log', '--resultlog'];
/**
 * Options that load code or configuration from elsewhere: `-p NAME` imports a plugin module early,
 * `-c FILE` is an ini file (`addopts`, `pythonpath`, plugins' module settings), `--rootdir` and
 * `--confcutdir` move where conftest.py files and ini files are found, `--pyargs` imports test
 * packages by name, `--pdbcls` imports a debugger class.
 */
const PYTEST_CODE = ['-c', '--config-file', '--rootdir', '--confcutdir', '--pyargs', '--pdbcls', '--inifile'];
/**
 * ini keys `-o KEY=VALUE` may set that only change how tests are selected or reported; any other key
 * may name code (`addopts`, `pythonpath`, `required_plugins`, pytest-django's settings module) or a
 * directory (`cache_dir`, a write).
 */
const PYTEST_PLAIN_INI = /^(python_(files|classes|functions)|testpaths|markers|filterwarnings|xfail_strict|strict(_markers|_config)?|log_(cli|cli_level|level|format|date_format|cli_format|cli_date_format)|console_output_style|junit_(family|suite_name|logging|duration_report|log_passing_tests)|norecursedirs|minversion|empty_parameter_set_mark|faulthandler_timeout|usefixtures|doctest_(optionflags|encoding)|verbosity_[a-z_]+|asyncio_mode|asyncio_default_fixture_loop_scope|timeout)$/;

export function pytest(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  // pytest 8.2+ (argparse's fromfile_prefix_chars) reads any word `@FILE` as more arguments, an
  // option's value and after `--` too (pytest 9.0.3: `pytest -q @a.txt` wrote the --junitxml it
  // held; round 14 review C1); a word known only at run time may be one, or any option.
  if (args.some((w) => !w.isStatic || w.value.startsWith('@'))) out.reasons.push('interpreter');
  const scan = scanOptions(args, 0, PYTEST);
  for (const word of optionValues(scan, '--basetemp')) pushPath(out.paths, treeWrite(word, cwd));
  for (const option of scan.options) {
    if (named(option, ...PYTEST_WRITES) && option.value) pushPath(out.paths, pathOf(option.value, 'write', cwd));
    else if (named(option, ...PYTEST_CODE)) out.reasons.push('interpreter');
    // `-p no:NAME` only turns a plugin off.
    else if (option.name === '-p' && !(option.value?.isStatic && /^no:[\w.-]+$/.test(option.value.value))) out.reasons.push('interpreter');
    // --pastebin sends the failures (or the whole session) to bpaste.net: not what a test rule approved.
    else if (named(option, '--pastebin')) out.reasons.push('executor');
    else if (named(option, '-o', '--override-ini')) pytestIni(option.value, cwd, out);
    else if (option.unlisted && option.value) pluginValue(option.value, cwd, out);
  }
  // `--debug[=FILE]` (argparse nargs='?'): the next word too when it is no option; pytestdebug.log otherwise (in the cwd).
  scan.options.forEach((option) => {
    if (option.name !== '--debug' || option.value) return;
    const next = args[option.index + 1];
    if (next && !(next.isStatic && next.value.startsWith('-'))) pushPath(out.paths, pathOf(next, 'write', cwd));
  });
  for (const word of optionValues(scan, '--debug')) pushPath(out.paths, pathOf(word, 'write', cwd));
  // Test paths: pytest imports every test module and conftest.py there (and in the directories up
  // to the rootdir): reads of another project's tree ask where a read of it would.
  for (const i of scan.operands) {
    const word = args[i]!;
    const path = pathOf(word.isStatic ? { ...word, value: word.value.replace(/::.*$/, '') } : word, 'read', cwd);
    if (path) path.tree = { content: true, follows: false };
    pushPath(out.paths, path);
  }
}

function pytestIni(value: Word | null, cwd: string | null, out: FileFacts): void {
  const eq = value?.isStatic ? value.value.indexOf('=') : -1;
  const key = eq === -1 ? '' : value!.value.slice(0, eq).trim();
  if (PYTEST_PLAIN_INI.test(key)) return;
  if (key === 'cache_dir' || key === 'log_file') pushPath(out.paths, (key === 'cache_dir' ? treeWrite : (w: Word, c: string | null) => pathOf(w, 'write', c))({ ...value!, value: value!.value.slice(eq + 1) }, cwd));
  else out.reasons.push('interpreter');
}

/** A plugin's `--name=VALUE` with a path-like value (`--html=../r.html`, `--cov-report=html:/tmp/x`): a write, fail closed. */
function pluginValue(value: Word, cwd: string | null, out: FileFacts): void {
  if (!value.isStatic) return void out.reasons.push('interpreter');
  for (const part of new Set([value.value, value.value.slice(value.value.indexOf(':') + 1)])) {
    if (/^(~|\.|\/)|\//.test(part)) pushPath(out.paths, pathOf({ ...value, value: part }, 'write', cwd));
  }
}

/**
 * `python -m pytest …` (and `python -m py.test`): the module's own words, after python's options
 * (docs/threat-model.md#runners-write-and-load-what-their-options-name). Other modules are python's.
 */
export function pythonModule(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic || !word.value.startsWith('-') || word.value === '-' || word.value === '--') return;
    // Python's options: -c ends them (code), -W/-X/-Q take a value, -m names the module.
    const m = /^-([bBdEhiIOPqsSuvVx]*)([cmWXQ])(.*)$/.exec(word.value);
    if (!m) continue;
    if (m[2] === 'c') return;
    const value = m[3] !== '' ? m[3] : args[++i]?.isStatic ? args[i]!.value : undefined;
    if (m[2] !== 'm') continue;
    const handler = value === undefined ? undefined : PYTHON_MODULES[value];
    if (handler) handler(args.slice(i + 1), cwd, out);
    return;
  }
}

const PYTHON_MODULES: Record<string, (args: readonly Word[], cwd: string | null, out: FileFacts) => void> = { pytest, 'py.test': pytest };

/**
 * cargo (The Cargo Book, "Build Commands"): `--manifest-path P` builds P's package, running its
 * build.rs and proc macros; `--target-dir`/`--artifact-dir`/`--out-dir` are directories it fills.
 * What follows `--` belongs to the program run.
 */
export function cargoPaths(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const end = args.findIndex((w) => w.isStatic && w.value === '--');
  const scan = scanOptions(end === -1 ? args : args.slice(0, end), 0, {
    short: 'pjFZCe',
    long: ['manifest-path', 'target-dir', 'artifact-dir', 'out-dir', 'package', 'jobs', 'features', 'target', 'profile', 'config', 'color', 'bin', 'example', 'test', 'bench', 'exclude', 'message-format', 'lockfile-path', 'timings'],
    exactLong: true,
  });
  if (!optionValues(scan, '--manifest-path').every((w) => w.isStatic && /^(\.\/)?Cargo\.toml$/.test(w.value))) out.reasons.push('interpreter');
  for (const word of optionValues(scan, '--target-dir', '--artifact-dir', '--out-dir')) pushPath(out.paths, treeWrite(word, cwd));
}

/** Programs modelled here whose every word stays a deny-rule candidate, as an unknown program's (program.ts). */
export const RUNNER_PROGRAMS: ReadonlySet<string> = new Set(['pytest', 'py.test', 'helm', 'tsc', 'eslint', 'prettier', 'vitest', 'jest', 'mypy', 'black', 'ruff']);

/**
 * Package managers' options that move the package whose script runs (round 13 review A4, npm 11.19
 * under bash 5.2: `npm run test --prefix=DIR` ran DIR/package.json's test script, `-w src` src's):
 * npm (nopt) takes them after the verb too, and any unambiguous prefix of a long one (`--pref=`). A
 * rule naming `npm run test` approved the project's own script, so each is `interpreter`.
 *   npm:  --prefix, -C, --workspace, -w, --workspaces, --ws, -ws, --include-workspace-root
 *   pnpm: --dir, -C, --prefix, --filter, -F, --filter-prod, --recursive, -r, --workspace-root, -w
 *   yarn: --cwd, --use-yarnrc (a settings file: its yarn-path runs), and `yarn workspace NAME …` / `yarn workspaces …`
 * Round 26, yarn 1's folders (`yarn --help`, its lifecycle scripts' PATH): `--link-folder D` puts
 * D/node_modules/.bin first in the PATH a script runs with (1.22.22 ran D's program for `yarn
 * --link-folder D dev`), `--cache-folder D`, `--preferred-cache-folder D` give `install` D's
 * packages (and their install scripts), `--modules-folder D` installs them into D, `--global-folder
 * D` holds `yarn global`'s.
 */
const PACKAGE_MOVERS: Record<string, { long: readonly string[]; exact?: readonly string[]; short: RegExp; verbs?: ReadonlySet<string>; keys?: ReadonlySet<string> }> = {
  // `--include=dev` and `--ws` are npm keys of their own; a prefix of both `include` and the mover counts only when longer.
  npm: { long: ['prefix', 'workspace', 'workspaces', 'ws', 'include-workspace-root'], short: /^-[A-Za-z]*[wC]/, keys: new Set(['include', 'pre', 'in', 'inc', 'incl', 'inclu', 'includ']) },
  // `--prefix DIR` as npm's (pnpm 9.15.9 ran ../evil's script for `pnpm --prefix ../evil run dev`; round 24 review).
  pnpm: { long: ['dir', 'filter', 'filter-prod', 'recursive', 'workspace-root', 'prefix'], short: /^-[A-Za-z]*[CFrw]/ },
  // `--use-yarnrc F`: yarn 1 reads F as its .yarnrc, whose `yarn-path` it runs in its place (round 22:
  // `yarn --use-yarnrc notes.txt --version` ran notes.txt's yarn-path).
  // The folders as spelled (commander takes no abbreviation; `yarn jest --cache` is the script's own word).
  yarn: { long: ['cwd', 'use-yarnrc'], exact: ['modules-folder', 'link-folder', 'cache-folder', 'preferred-cache-folder', 'global-folder'], short: /^-$/, verbs: new Set(['workspace', 'workspaces']) },
};

export function movesPackage(name: 'npm' | 'pnpm' | 'yarn', args: readonly Word[], out: FileFacts): void {
  const spec = PACKAGE_MOVERS[name]!;
  const command = name === 'pnpm' ? pnpmCommandAt(args) : -1;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) continue; // npm() already takes a word known only at run time for code
    const v = word.value;
    if (v === '--') return; // the script's own arguments
    if (name === 'yarn') {
      const long = /^--([^=]+)/.exec(v)?.[1];
      const moves = long !== undefined ? (long.length >= 2 && spec.long.some((k) => k.startsWith(long))) || (spec.exact?.includes(long) ?? false) : spec.short.test(v) || (spec.verbs?.has(v) ?? false);
      if (moves) return void out.reasons.push('interpreter');
      continue;
    }
    if (!v.startsWith('-') || v === '-') continue;
    // npm and pnpm read options with nopt: every leading dash stripped, glued one-letter shorthands
    // (`--yC D`, `--sC D`), `no-` any number of times (round 24 review F1, round 25 R15, R9).
    const keys = noptKeys(v, name === 'npm' ? NPM_OPTIONS.short : PNPM_SHORTHANDS);
    // pnpm's `--config.KEY=VALUE` sets any setting (parse-cli-args normalizeOptions): `dir`,
    // `pnpmfile`, `script-shell`, `node-options` among them (round 25 review R8).
    if (name === 'pnpm' && keys.some((key) => /^config\./i.test(key))) return void out.reasons.push('interpreter');
    const meant = keys.flatMap((key) => (key.length >= 2 && !spec.keys?.has(key) ? spec.long.filter((k) => k.startsWith(key)) : []));
    if (meant.length === 0 && !spec.short.test(v)) continue;
    // pnpm's options that pick projects of the workspace (`--filter app`, `-r`, `-w`) before its
    // command word: no allow rule naming a command (`Bash(pnpm run test *)`) meets them there, as
    // rules match the words as written; one that does (`Bash(pnpm:*)`) allowed every pnpm command,
    // so they are read as written (round 23: `pnpm --filter app build` asked). `--dir`/`-C` move
    // anywhere and still ask; after the command word every mover does (round 13 A4).
    if (i < command && picksProjects(meant, keys[0]!, v, args[i + 1])) continue;
    return void out.reasons.push('interpreter');
  }
}

/** pnpm's options that select projects of the workspace pnpm finds from the working directory (pnpm 9 "Filtering"). */
const PNPM_PROJECT_PICKERS: readonly string[] = ['filter', 'filter-prod', 'recursive', 'workspace-root'];

/**
 * Whether a pnpm option word `v` (`key` its name without dashes, `meant` the movers nopt may read it
 * as) only picks projects of the workspace: `-r`, `-w`, their long names, or `--filter`/`-F`/
 * `--filter-prod` with a selector that names projects. A "since" selector `[REF]` is handed to `git
 * diff REF`, so `--filter '[--output=F]'` wrote F (pnpm 9.15.9; round 24 review F2): a value with
 * `[-` (an option to git), a blank or a leading `-`, or known only at run time is not read as a
 * picker; `[origin/main]` is. `-F` glued to other letters (`-rF app`, `--sF app`) is not a form to lean on.
 */
function picksProjects(meant: readonly string[], key: string, v: string, next: Word | undefined): boolean {
  if (meant.length === 0 || !meant.every((k) => PNPM_PROJECT_PICKERS.includes(k))) return false;
  if (!meant.some((k) => k.startsWith('filter'))) return true;
  if (key !== 'F' && !(key.length >= 2 && 'filter-prod'.startsWith(key)) && !(key.length >= 2 && 'filter'.startsWith(key))) return false;
  const eq = v.indexOf('=');
  const value = eq !== -1 ? v.slice(eq + 1) : next?.isStatic ? next.value : null;
  return value !== null && /^[^\s-]\S*$/.test(value) && !value.includes('[-');
}

/**
 * Where pnpm's command word stands (past its global value options), or -1 when it is not known or
 * none. After `--` the next word is the command (pnpm 9.15.9 ran `pnpm -- run-script release`; round
 * 26 review S12), as npm's npmCommandAt reads it.
 */
export function pnpmCommandAt(args: readonly Word[]): number {
  const values = globalValueOptions('pnpm');
  const statics = args.map((w) => (w.isStatic ? w.value : '\u0000'));
  if (unreadOptions('pnpm', statics).length > 0) return -1;
  for (let i = 0; i < args.length; i++) {
    const v = statics[i]!;
    if (v === '--') return i + 1 < args.length && statics[i + 1] !== '\u0000' ? i + 1 : -1;
    if (v === '\u0000') return -1;
    if (v.startsWith('-') && v !== '-') {
      if (values.has(v)) i++;
      continue;
    }
    return i;
  }
  return -1;
}

/**
 * Cobra/pflag CLIs take their persistent flags after the subcommand too (round 13 review A8):
 * `kubectl get pods --kubeconfig=F` ran F's `exec` credential plugin under `Bash(kubectl get:*)`
 * (kubectl before its verb asks already: a rule does not match). A kubeconfig names code (client-go
 * exec plugins, `auth-provider` `cmd-path`); helm's `--post-renderer` is a program; a compose file
 * (`docker compose up -f F`, `--project-directory`) another project's services, mounts and builds.
 * Each is `interpreter`; kubectl's `--cache-dir` is a directory it fills.
 */
const COBRA_CODE: Record<string, RegExp> = {
  kubectl: /^--kubeconfig(=|$)/,
  helm: /^--(kubeconfig|post-renderer|post-renderer-args|plugins?|repository-config|registry-config)(=|$)/,
  compose: /^(-f|--file|--project-directory|--env-file)(=|$)|^-f./,
};

/**
 * kubectl's global flags that send the request elsewhere or as someone else (`kubectl options`):
 * after the verb a rule `Bash(kubectl get:*)` matched them, and `kubectl get pods
 * --server=https://host --insecure-skip-tls-verify` sent the kubeconfig's bearer token to host
 * (kubectl 1.32, bash 5.2). Before the verb a rule does not match them already. `--context`,
 * `--cluster`, `--user` pick entries of the user's own kubeconfig: as before. `-s` may end a
 * group of boolean short flags (`-As URL`).
 */
const KUBECTL_ELSEWHERE = /^--(server|token|as|as-group|as-uid|username|password|insecure-skip-tls-verify|tls-server-name|certificate-authority|client-certificate|client-key)(=|$)|^-[AwitRhq]*s/;

export function cobraFlags(name: 'kubectl' | 'helm' | 'compose', args: readonly Word[], cwd: string | null, out: FileFacts): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) continue;
    if (word.value === '--') return; // `kubectl exec pod -- CMD`: the container's
    if (COBRA_CODE[name]!.test(word.value)) out.reasons.push('interpreter');
    if (name !== 'kubectl') continue;
    if (KUBECTL_ELSEWHERE.test(word.value) && !out.reasons.includes('kubectl-server-or-identity')) out.reasons.push('kubectl-server-or-identity');
    const output = /^--(cache-dir|profile-output)(=|$)/.exec(word.value)?.[1];
    if (output !== undefined) {
      const value = word.value.includes('=') ? { ...word, value: word.value.slice(word.value.indexOf('=') + 1) } : args[++i];
      if (value) pushPath(out.paths, output === 'cache-dir' ? treeWrite(value, cwd) : pathOf(value, 'write', cwd));
    }
    // `--profile=cpu` without `--profile-output` writes ./profile.pprof (kubectl options).
    const profile = /^--profile(?:=(.*))?$/.exec(word.value);
    if (profile && (profile[1] ?? args[i + 1]?.value) !== 'none' && !args.some((w) => /^--profile-output(=|$)/.test(w.value))) pushPath(out.paths, pathOf(staticWord('profile.pprof'), 'write', cwd));
  }
}

/** `docker compose …` (and `docker-compose`): the flags of compose itself, wherever they are. */
export function docker(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const at = args.findIndex((w) => w.isStatic && w.value === 'compose');
  if (at !== -1) cobraFlags('compose', args.slice(at + 1), cwd, out);
}

/**
 * Formatters, linters, type checkers and JS test runners people allow by name (`Bash(prettier:*)`,
 * `Bash(tsc:*)`): the options that write, the options that load a module or config file, and the
 * flags that make them rewrite their operands (round 13 review A9; each program's --help: tsc 5
 * `--all`, eslint 9, prettier 3, jest 29, mypy 1.x, black 24, ruff 0.x; vitest: vitest.ts).
 * `tsc --outFile ~/.profile` replaced it (proven by the review). Names are compared as `normal`
 * spells them (tsc: any case; jest: camelCase or kebab-case); `-`/`--` alike where the program
 * takes both.
 */
interface ToolSpec {
  /** Option names (normalised) whose value is a file written / a directory filled. */
  writes?: readonly string[];
  trees?: readonly string[];
  /** Options naming code, a config file or another root: interpreter (with a value not in `plain`). */
  code?: readonly string[];
  plain?: Record<string, RegExp>;
  /** Flags after which every operand (a file or a directory) is rewritten. */
  rewrite?: readonly string[];
  /** Flags that keep `rewrite`'s default from writing (`black --check`). */
  dryRun?: readonly string[];
  /** The operands are rewritten unless a dryRun flag is given (black, `ruff format`). */
  rewritesByDefault?: (operands: readonly string[]) => boolean;
  /** Other options that take a value (so that it is no operand). */
  values?: readonly string[];
  normal?: (name: string) => string;
  /**
   * A word starting with this reads more arguments from a file (mypy's argparse `@args`, tsc's
   * response files): options the model cannot see, so `interpreter` (round 14 review C1).
   */
  fromFile?: string;
  /**
   * Long options may be abbreviated to any unambiguous prefix (argparse's allow_abbrev): mypy took
   * `--python-exec ./x.sh` for `--python-executable` and ran x.sh (mypy 1.0.1, round 27 R27-11).
   * A prefix of a listed option is read as it, a code option first (fail closed).
   */
  abbreviations?: boolean;
}

const lower = (name: string): string => name.toLowerCase();
const camel = (name: string): string => name.toLowerCase().replace(/-/g, '');

const TOOLS: Record<string, ToolSpec> = {
  // tsc: option names in any case, one or two dashes; a tsconfig (-p, -b) names outDir and more.
  tsc: {
    normal: lower,
    fromFile: '@',
    writes: ['outfile', 'out', 'tsbuildinfofile', 'generatecpuprofile'],
    trees: ['outdir', 'declarationdir', 'generatetrace'],
    code: ['p', 'project', 'b', 'build', 'plugins'],
    plain: { p: /^\.?\/?(tsconfig\.json)?$/, project: /^\.?\/?(tsconfig\.json)?$/ },
    values: ['target', 'module', 'lib', 'jsx', 'moduleresolution', 'rootdir', 'basedir', 'types', 'typeroots', 'newline', 'locale', 'maxnodemodulejsdepth'],
  },
  eslint: {
    writes: ['o', 'output-file'],
    trees: ['cache-location'],
    code: ['c', 'config', 'f', 'format', 'plugin', 'rulesdir', 'resolve-plugins-relative-to', 'parser', 'flag'],
    plain: { f: /^(stylish|json|json-with-metadata|html|compact|unix|visualstudio|checkstyle|jslint-xml|junit|tap)$/, format: /^(stylish|json|json-with-metadata|html|compact|unix|visualstudio|checkstyle|jslint-xml|junit|tap)$/, flag: /^[a-z_]+$/ },
    rewrite: ['fix'],
    values: ['ext', 'env', 'global', 'parser-options', 'rule', 'ignore-pattern', 'ignore-path', 'max-warnings', 'cache-strategy', 'stdin-filename'],
  },
  prettier: {
    trees: ['cache-location'],
    code: ['plugin', 'config', 'plugin-search-dir', 'config-precedence'],
    plain: { 'config-precedence': /^(cli-override|file-override|prefer-file)$/ },
    rewrite: ['write', 'w'],
    values: ['ignore-path', 'stdin-filepath', 'parser', 'print-width', 'tab-width', 'trailing-comma', 'end-of-line', 'arrow-parens', 'prose-wrap', 'quote-props', 'html-whitespace-sensitivity', 'embedded-language-formatting', 'log-level', 'cache-strategy', 'cursor-offset', 'range-start', 'range-end'],
  },
  jest: {
    normal: camel,
    writes: ['outputfile'],
    trees: ['coveragedirectory', 'cachedirectory'],
    // `--changedSince=REF` is handed to git (`REF...HEAD`) as vitest's `--changed` (options.ts GIT_REVISION).
    code: ['changedsince', 'c', 'config', 'reporters', 'testresultsprocessor', 'setupfiles', 'setupfilesafterenv', 'globalsetup', 'globalteardown', 'testenvironment', 'testrunner', 'resolver', 'transform', 'preset', 'rootdir', 'roots', 'projects', 'moduledirectories', 'modulepaths', 'snapshotresolver', 'watchplugins', 'testsequencer', 'filter', 'prettierpath', 'runner', 'moduleNameMapper', 'modulenamemapper', 'haste', 'dependencyextractor'],
    plain: { testenvironment: /^(node|jsdom)$/, changedsince: GIT_REVISION },
    values: ['t', 'testnamepattern', 'maxworkers', 'w', 'shard', 'testtimeout', 'seed', 'selectprojects', 'testpathpattern', 'testpathignorepatterns', 'coverageprovider'],
  },
  mypy: {
    writes: ['junit-xml'],
    trees: ['cache-dir', 'html-report', 'xslt-html-report', 'xml-report', 'txt-report', 'xslt-txt-report', 'linecount-report', 'linecoverage-report', 'lineprecision-report', 'cobertura-xml-report', 'any-exprs-report', 'memory-xml-report'],
    code: ['config-file', 'python-executable', 'shadow-file', 'custom-typeshed-dir', 'python-version'],
    plain: { 'python-version': /^[\d.]+$/ },
    fromFile: '@',
    abbreviations: true,
    values: ['m', 'module', 'p', 'package', 'c', 'command', 'platform', 'exclude', 'always-true', 'always-false', 'enable-error-code', 'disable-error-code', 'follow-imports', 'soft-error-limit'],
  },
  black: {
    code: ['config', 'python-cell-magics'],
    dryRun: ['check', 'diff', 'code', 'c'],
    rewritesByDefault: () => true,
    values: ['l', 'line-length', 't', 'target-version', 'include', 'exclude', 'extend-exclude', 'force-exclude', 'stdin-filename', 'w', 'workers', 'required-version'],
  },
  ruff: {
    writes: ['o', 'output-file'],
    trees: ['cache-dir'],
    code: ['config'],
    // `ruff --config 'KEY = VALUE'` sets one option: plain for keys that only change what is
    // reported or how; `cache-dir` is a directory ruff fills, `extend` another config file (round 14
    // review C4, ruff 0.16.9: `--config "cache-dir = 'D'"` made D/CACHEDIR.TAG), any other key or a file asks.
    plain: { config: /^\s*(line-length|indent-width|target-version|preview|fix|unsafe-fixes|show-fixes|output-format|(lint\.)?(select|ignore|extend-select|extend-ignore|fixable|unfixable|extend-fixable|extend-safe-fixes|extend-unsafe-fixes)|format\.(quote-style|indent-style|line-ending|skip-magic-trailing-comma|docstring-code-format|docstring-code-line-length|preview))\s*=[^\n]*$/ },
    rewrite: ['fix', 'unsafe-fixes', 'add-noqa'],
    dryRun: ['check', 'diff', 'no-fix'],
    rewritesByDefault: (operands) => operands[0] === 'format',
    values: ['select', 'ignore', 'extend-select', 'extend-ignore', 'line-length', 'target-version', 'exclude', 'extend-exclude', 'per-file-ignores', 'output-format', 'stdin-filename', 'fixable', 'unfixable'],
  },
};

function tool(spec: ToolSpec): (args: readonly Word[], cwd: string | null, out: FileFacts) => void {
  const normal = spec.normal ?? ((name: string) => name);
  const takesValue = new Set([...(spec.writes ?? []), ...(spec.trees ?? []), ...(spec.code ?? []), ...(spec.values ?? [])]);
  // Code options first, then writes: a prefix of several is read as the one that asks most.
  const longNames = [...(spec.code ?? []), ...(spec.writes ?? []), ...(spec.trees ?? []), ...(spec.values ?? [])].filter((name) => name.length > 1);
  const expand = (name: string): string => (!spec.abbreviations || name === '' || takesValue.has(name) ? name : (longNames.find((long) => long.startsWith(name)) ?? name));
  return (args, cwd, out) => {
    const operands: Word[] = [];
    const flags = new Set<string>();
    for (let i = 0; i < args.length; i++) {
      const word = args[i]!;
      if (!word.isStatic) {
        out.reasons.push('interpreter'); // an option known only at run time may be any of these
        continue;
      }
      const v = word.value;
      if (v === '--') {
        operands.push(...args.slice(i + 1));
        break;
      }
      if (spec.fromFile && v.startsWith(spec.fromFile)) out.reasons.push('interpreter');
      if (!v.startsWith('-') || v === '-') {
        operands.push(word);
        continue;
      }
      const eq = v.indexOf('=');
      const given = normal(v.slice(v.startsWith('--') ? 2 : 1, eq === -1 ? undefined : eq));
      const name = v.startsWith('--') ? expand(given) : given;
      flags.add(name);
      const value: Word | undefined = eq !== -1 ? { ...word, value: v.slice(eq + 1), raw: v.slice(eq + 1) } : takesValue.has(name) ? args[++i] : undefined;
      // argparse reads `@FILE` wherever it stands, an option's value too (`mypy -m @args`).
      if (spec.fromFile && eq === -1 && value?.isStatic && value.value.startsWith(spec.fromFile)) out.reasons.push('interpreter');
      if (spec.code?.includes(name)) {
        const plain = spec.plain?.[name];
        if (!(plain && value?.isStatic && plain.test(value.value))) out.reasons.push('interpreter');
      } else if (spec.writes?.includes(name) && value) {
        pushPath(out.paths, pathOf(value, 'write', cwd));
      } else if (spec.trees?.includes(name) && value) {
        pushPath(out.paths, treeWrite(value, cwd));
      }
    }
    const names = operands.map((w) => (w.isStatic ? w.value : ''));
    const dry = spec.dryRun?.some((f) => flags.has(f)) ?? false;
    const rewrites = (spec.rewrite?.some((f) => flags.has(f)) ?? false) || (!dry && (spec.rewritesByDefault?.(names) ?? false));
    // ruff's subcommand is no file.
    const files = spec === TOOLS.ruff ? operands.slice(1) : operands;
    for (const word of files) {
      const path = rewrites && !dry ? treeWrite(word, cwd) : pathOf(word, 'read', cwd);
      if (path && !rewrites) path.tree = { content: true, follows: false };
      pushPath(out.paths, path);
    }
  };
}

/** Handlers of the tools above, by program name. */
export const TOOL_HANDLERS: Record<string, (args: readonly Word[], cwd: string | null, out: FileFacts) => void> = Object.fromEntries(Object.entries(TOOLS).map(([name, spec]) => [name, tool(spec)]));

/**
 * The command a runner runs in its project's environment, after its own options (`uv run [OPTIONS]
 * CMD…`, `poetry run CMD…`, `bundle exec CMD…`, `pipenv run CMD…`): what CMD writes, reads and runs
 * is the runner's own call's, so `poetry run cp a ~/.bashrc` needs the Edit rule `cp a ~/.bashrc`
 * needs, and `uv run bash -c 'rm -rf x'` meets `Bash(rm *)` (docs/threat-model.md#what-a-runner-runs).
 * Options from each runner's documentation (`uv help run`, poetry's global options, bundle-exec(1),
 * `pdm run --help`, rye's and hatch's run commands, `mise run --help`); one not listed may take the
 * next word: `unknown`, and the call is `interpreter`. `moved`: an option that changes the working
 * directory (`uv run --directory D`, `poetry -C D`): paths below are then not known. `uv run F.py`,
 * `pdm run F.py`, `hatch run F.py` and `uv run -m M` run python. `hatch run [+VAR|-VAR]… [ENV:]CMD`
 * takes no options: leading `+`/`-` words select matrix variables, an `ENV:` prefix the environment.
 * `mise run TASK` runs a task of the project's mise.toml, not a command: only its options are read.
 */
export function runnerCommand(name: string, args: readonly Word[]): RunnerCommand | 'unknown' | null {
  if (name === 'nix' || name === 'nix-shell') return nixCommand(name, args);
  // rustup takes a `+TOOLCHAIN` among its own options (`rustup +stable run stable CMD`, `rustup -q
  // +stable run …` ran CMD, rustup 1.29; round 28 review R28-7): not its subcommand. rust-toolchains.ts reads it.
  const toolchain = (word: Word): boolean => name === 'rustup' && word.isStatic && word.value.startsWith('+');
  const lead = args.findIndex((word) => !word.isStatic || !(word.value.startsWith('-') || toolchain(word)));
  const key = Object.hasOwn(RUNNER_COMMANDS, name) ? name : lead !== -1 && args[lead]!.isStatic && Object.hasOwn(RUNNER_COMMANDS, `${name} ${args[lead]!.value}`) ? `${name} ${args[lead]!.value}` : null;
  // `conda $verb …`: the subcommand is not known, so neither is whether a command runs.
  if (key === null) return lead !== -1 && !args[lead]!.isStatic && LEAD_RUNNERS.has(name) ? 'unknown' : null;
  const spec = RUNNER_COMMANDS[key]!;
  let i = spec.lead ? lead : args.findIndex((word) => word.isStatic && word.value === spec.sub);
  // Before the subcommand only the runner's own options may stand (programs.ts runsCommand found it).
  if (i === -1) return null;
  if (spec.lead && args.slice(0, i).some((word) => !LEAD_FLAGS.has(word.value) && !toolchain(word))) return 'unknown';
  let moved = args.slice(0, i).some((word) => !word.isStatic || spec.moves.has(word.value.split('=')[0]!));
  let module = false;
  for (i++; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return 'unknown';
    if (name === 'hatch' && /^[+-]/.test(word.value)) continue; // hatch's matrix selectors (`+py=3.11`, `-version`)
    if (word.value === '--') {
      i++;
      break;
    }
    if (!word.value.startsWith('-') || word.value === '-') break;
    const option = word.value.split('=')[0]!;
    if (spec.lead && word.value.includes('=') && !spec.values.has(option)) return 'unknown'; // `--flag=x` of a flag
    if (spec.moves.has(option)) moved = true;
    if (name === 'uv' && (option === '-m' || option === '--module')) module = true;
    if (spec.values.has(option)) {
      if (!word.value.includes('=')) i++;
    } else if (name === 'uv' && option === '--with') {
      // Packages by name (`--with requests,rich>=13`) are plain; a path, URL or archive is built here.
      // No space: a PEP 508 string with one (`rich >= 13`) asks, so a value that another parser might
      // split into options (`"x -e ."`) is never plain (round 14's last re-read).
      const value = word.value.includes('=') ? word : args[++i];
      const text = value === undefined ? '' : value.value.slice(word.value.includes('=') ? '--with='.length : 0);
      if (value === undefined || !value.isStatic || !/^[A-Za-z0-9][\w.\-[\],<>=!~*]*$/.test(text) || /\.(?:whl|zip|tar|tgz|tar\.\w+)$/i.test(text)) return 'unknown';
    } else if (!spec.flags.has(option)) return 'unknown';
  }
  // `direnv exec DIR CMD`: DIR's .envrc (one `direnv allow` approved) sets the environment; CMD runs here.
  if (spec.dir) i++;
  const word = args[i];
  if (word === undefined || spec.task) return null;
  // pixi and devbox join the words into one text for their own shell (deno_task_shell, sh -c):
  // a word that shell reads otherwise than one plain word is not known here.
  if (spec.joined && !args.slice(i).every((w) => w.isStatic && /^[\w@%+=:,./-]+$/.test(w.value))) return 'unknown';
  // `hatch run test:cov`: the environment `test`, the command `cov` (hatch splits at the last colon).
  const command = name === 'hatch' ? { ...word, value: word.value.slice(word.value.lastIndexOf(':') + 1) } : word;
  if (!command.isStatic || command.value === '-' || command.value === '') return 'unknown';
  const rest = args.slice(i + 1);
  if (name === 'uv' && module) return { name: 'python', args: [staticWord('-m'), ...args.slice(i)], moved };
  if (/\.py$/.test(command.value) && PYTHON_SCRIPTS.has(name)) return { name: 'python', args: [command, ...rest], moved };
  return { name: command.value.slice(command.value.lastIndexOf('/') + 1), args: rest, moved, ...(spec.fetches ? { fetches: true as const } : {}) };
}

/** The command a runner runs; `fetches`: from packages the call itself names (`executor`). */
export interface RunnerCommand {
  name: string;
  args: Word[];
  moved: boolean;
  fetches?: true;
}

/** Runners that run a `.py` command as a python script (with its PEP 723 dependencies). */
const PYTHON_SCRIPTS: ReadonlySet<string> = new Set(['uv', 'pdm', 'hatch']);

// Options whose value is plain data. Those naming code or files the runner loads or writes are left
// out, so they ask as unlisted ones do (round 14 review W2, from `uv help run` and bundle-exec(1)):
// --python/-p (runs that interpreter), --with-editable/--with-requirements and --with but for
// package names (builds local packages), the index and find-links options (packages from anywhere), --config-file,
// --config-setting/-C, --cache-dir, --project, --env-file (reads the file into the command's
// environment: `--env-file .env printenv`), --keyring-provider, --allow-insecure-host; poetry's
// -P/--project; bundle's --gemfile (a Gemfile is Ruby code).
const UV_VALUES = ['--extra', '--no-extra', '--group', '--no-group', '--only-group', '--package', '--directory', '--upgrade-package', '-P', '--reinstall-package', '--no-build-package', '--no-binary-package', '--refresh-package', '--resolution', '--prerelease', '--fork-strategy', '--exclude-newer', '--exclude-newer-package', '--index-strategy', '--link-mode', '--color', '--python-platform'];
const UV_FLAGS = ['--all-extras', '--all-groups', '--all-packages', '--no-dev', '--dev', '--only-dev', '--no-default-groups', '--module', '-m', '--script', '-s', '--gui-script', '--isolated', '--active', '--no-active', '--no-sync', '--locked', '--frozen', '--no-editable', '--no-project', '--exact', '--upgrade', '-U', '--reinstall', '--refresh', '--no-build', '--no-binary', '--no-build-isolation', '--compile-bytecode', '--offline', '--no-cache', '-n', '--quiet', '-q', '--verbose', '-v', '--native-tls', '--no-progress', '--no-config', '--no-python-downloads', '--managed-python', '--no-managed-python', '--no-env-file', '--help', '-h', '--show-resolution', '--no-install-project', '--no-install-workspace', '--no-install-local'];
const POETRY_GLOBAL = { values: ['-C', '--directory'], flags: ['-q', '--quiet', '-v', '-vv', '-vvv', '--verbose', '-n', '--no-interaction', '--no-plugins', '--no-cache', '--ansi', '--no-ansi', '-h', '--help', '-V', '--version'] };
// pdm run (pdm 2.x `pdm run --help`, src/pdm/cli/commands/run.py): left out are -p/--project
// (another project's environment and scripts), -g/--global (the global project) and --venv [NAME]
// (another interpreter; argparse `nargs='?'` takes the next word); -k/--skip names hooks not to run.
const PDM_FLAGS = ['-v', '-vv', '-vvv', '--verbose', '-q', '--quiet', '-l', '--list', '-j', '--json', '-s', '--site-packages', '--recreate', '-h', '--help'];
// mise run (`mise run --help`, mise 2026.9): left out are -C/--cd (another project's tasks),
// -s/--shell (the program that runs the task), -t/--tool (installs and runs a tool), -E/--env
// (loads mise.ENV.toml); the --allow-*/--deny-* options only narrow a sandbox.
const MISE_RUN_VALUES = ['-j', '--jobs', '-o', '--output', '--timeout', '--task-cache', '--affected-base', '--affected-head', '--allow-env', '--allow-net', '--allow-read', '--allow-write'];
const MISE_RUN_FLAGS = ['--affected', '--affected-explain', '--affected-json', '--all', '-c', '--continue-on-error', '-f', '--force', '-n', '--dry-run', '-q', '--quiet', '-r', '--raw', '-S', '--silent', '--deny-all', '--deny-env', '--deny-net', '--deny-read', '--deny-write', '--fresh-env', '--no-cache', '--no-deps', '--no-timings', '--skip-deps', '--skip-tools', '--task-cache-explain', '--task-cache-explain-json', '--task-cache-stats', '-v', '--verbose', '-y', '--yes', '--locked', '-h', '--help'];

// conda run (conda's `run` page, 26.x): -n/--name picks one of the user's environments; left out
// are -p/--prefix (an environment anywhere: its bin/ comes first in PATH) and --dev (runs conda
// from the working directory's sources).
const CONDA_FLAGS = ['-v', '-vv', '-vvv', '--verbose', '--debug-wrapper-scripts', '--no-capture-output', '--live-stream', '-s', '-h', '--help'];
// micromamba run (`micromamba run --help`, 2.x): left out are -p/--prefix and -r/--root-prefix (an
// environment anywhere), -e/--env (sets a variable for the command: `-e LD_PRELOAD=…`) and --rc-file.
const MICROMAMBA_VALUES = ['-n', '--name', '--cwd', '-a', '--attach', '--label', '--log-level'];
const MICROMAMBA_FLAGS = ['-d', '--detach', '--clean-env', '-v', '-vv', '-vvv', '--verbose', '-q', '--quiet', '--no-rc', '--no-env', '--json', '--offline', '-y', '--yes', '-h', '--help'];
// pixi run and exec (pixi's CLI reference, 0.6x-0.8x): left out are --manifest-path (another
// project's tasks), --config-file, --auth-file, --templated (renders the words as templates),
// --experimental, --run-post-link-scripts (packages' scripts), --tls-no-verify and the keyring options.
const PIXI_COMMON = ['-v', '-vv', '-vvv', '--verbose', '-q', '--quiet', '--no-progress', '--no-config', '-h', '--help'];
const PIXI_RUN_VALUES = ['-e', '--environment', '-p', '--platform', '--color', '--concurrent-downloads', '--concurrent-solves', '--pinning-strategy'];
const PIXI_RUN_FLAGS = [...PIXI_COMMON, '-x', '--executable', '--clean-env', '--skip-deps', '-n', '--dry-run', '--frozen', '--locked', '--no-install', '--as-is', '--no-lockfile-update', '--revalidate', '--force-activate', '--no-completions'];
const PIXI_EXEC_VALUES = ['-s', '--spec', '-w', '--with', '-c', '--channel', '-p', '--platform', '--color'];
// devbox run (`devbox run --help`): left out are -c/--config (another project's devbox.json), -e/--env,
// --env-file and --allow-insecure.
const DEVBOX_FLAGS = ['--pure', '--omit-nix-env', '-q', '--quiet', '-l', '--list', '--recompute', '-h', '--help'];
/** Runners whose subcommand is their first word that is no option. */
const LEAD_RUNNERS: ReadonlySet<string> = new Set(['conda', 'micromamba', 'pixi', 'devbox', 'direnv', 'rustup']);
/** The only words that may stand before the subcommand of a `lead` runner (`conda -v run`). */
const LEAD_FLAGS: ReadonlySet<string> = new Set(['-v', '-vv', '-vvv', '--verbose', '-q', '--quiet', '--no-progress']);

interface RunnerSpec {
  sub: string;
  values: ReadonlySet<string>;
  flags: ReadonlySet<string>;
  moves: ReadonlySet<string>;
  /** Runs a task of the project's file, not a command. */
  task?: true;
  /** The subcommand is the first word that is no option (keyed `name sub` in RUNNER_COMMANDS); `--flag=x` of a flag is unknown. */
  lead?: true;
  /** The command's words are joined into one text for the runner's own shell. */
  joined?: true;
  /** A directory operand stands before the command. */
  dir?: true;
  /** Installs packages named on the command line first (`pixi exec -s PKG`): `executor`, as uvx. */
  fetches?: true;
}

const RUNNER_COMMANDS: Record<string, RunnerSpec> = {
  'conda run': { sub: 'run', values: new Set(['-n', '--name', '--cwd']), flags: new Set(CONDA_FLAGS), moves: new Set(['--cwd']), lead: true },
  'micromamba run': { sub: 'run', values: new Set(MICROMAMBA_VALUES), flags: new Set(MICROMAMBA_FLAGS), moves: new Set(['--cwd']), lead: true },
  'pixi run': { sub: 'run', values: new Set(PIXI_RUN_VALUES), flags: new Set(PIXI_RUN_FLAGS), moves: new Set(), lead: true, joined: true },
  'pixi r': { sub: 'r', values: new Set(PIXI_RUN_VALUES), flags: new Set(PIXI_RUN_FLAGS), moves: new Set(), lead: true, joined: true },
  'pixi exec': { sub: 'exec', values: new Set(PIXI_EXEC_VALUES), flags: new Set([...PIXI_COMMON, '--force-reinstall', '-l', '--list']), moves: new Set(), lead: true, fetches: true },
  'pixi x': { sub: 'x', values: new Set(PIXI_EXEC_VALUES), flags: new Set([...PIXI_COMMON, '--force-reinstall', '-l', '--list']), moves: new Set(), lead: true, fetches: true },
  'devbox run': { sub: 'run', values: new Set(['--environment']), flags: new Set(DEVBOX_FLAGS), moves: new Set(), lead: true, joined: true },
  // direnv exec DIR COMMAND [ARGS] (direnv(1)): no options.
  'direnv exec': { sub: 'exec', values: new Set(), flags: new Set(), moves: new Set(), lead: true, dir: true },
  // rustup run [--install] TOOLCHAIN COMMAND… (`rustup run --help`, rustup 1.29): the toolchain is read by rust-toolchains.ts.
  'rustup run': { sub: 'run', values: new Set(), flags: new Set(['--install', '-h', '--help']), moves: new Set(), lead: true, dir: true },
  uv: { sub: 'run', values: new Set(UV_VALUES), flags: new Set(UV_FLAGS), moves: new Set(['--directory']) },
  poetry: { sub: 'run', values: new Set(POETRY_GLOBAL.values), flags: new Set(POETRY_GLOBAL.flags), moves: new Set(['-C', '--directory']) },
  pipenv: { sub: 'run', values: new Set(), flags: new Set(), moves: new Set() },
  bundle: { sub: 'exec', values: new Set(), flags: new Set(['--keep-file-descriptors']), moves: new Set() },
  pdm: { sub: 'run', values: new Set(['-k', '--skip']), flags: new Set(PDM_FLAGS), moves: new Set() },
  // rye run: -l/--list; --pyproject (another project) is left out.
  rye: { sub: 'run', values: new Set(), flags: new Set(['-l', '--list', '-h', '--help']), moves: new Set() },
  hatch: { sub: 'run', values: new Set(), flags: new Set(), moves: new Set() },
  mise: { sub: 'run', values: new Set(MISE_RUN_VALUES), flags: new Set(MISE_RUN_FLAGS), moves: new Set(), task: true },
};

/**
 * nix(1): `nix shell INSTALLABLES… --command CMD ARGS…` and `nix develop … -c CMD ARGS…` run CMD
 * (everything after the option); `nix run INSTALLABLE [--] ARGS…` runs the installable's program
 * (`nixpkgs#bash` → bash, a guess for deny rules: the flake's own `mainProgram` is not known, and
 * `executor` asks for every nix run anyway). nix-shell(1): `--run CMD` and `--command CMD` are bash
 * text. Without a command (an interactive shell) null.
 */
function nixCommand(name: string, args: readonly Word[]): RunnerCommand | 'unknown' | null {
  if (name === 'nix-shell') {
    const at = args.findIndex((w) => w.isStatic && (w.value === '--run' || w.value === '--command'));
    const text = args[at + 1];
    if (at === -1 || text === undefined) return null;
    return text.isStatic ? { name: 'bash', args: [staticWord('-c'), text], moved: false } : 'unknown';
  }
  const sub = args.findIndex((w) => !w.isStatic || !w.value.startsWith('-'));
  const verb = args[sub];
  if (verb === undefined || !verb.isStatic) return verb === undefined ? null : 'unknown';
  if (verb.value === 'shell' || verb.value === 'develop') {
    const at = args.findIndex((w, k) => k > sub && w.isStatic && (w.value === '--command' || w.value === '-c'));
    if (at === -1) return args.slice(sub + 1).some((w) => !w.isStatic) ? 'unknown' : null;
    const command = args[at + 1];
    if (command === undefined) return null;
    if (!command.isStatic) return 'unknown';
    return { name: command.value.slice(command.value.lastIndexOf('/') + 1), args: args.slice(at + 2), moved: false };
  }
  if (verb.value !== 'run') return null;
  const installable = args[sub + 1];
  const attr = installable?.isStatic ? /#(?:.*\.)?([\w-]+)$/.exec(installable.value)?.[1] : undefined;
  if (attr === undefined) return installable === undefined ? null : 'unknown';
  const rest = args.slice(sub + 2);
  return { name: attr, args: rest[0]?.isStatic && rest[0].value === '--' ? rest.slice(1) : rest, moved: false };
}
