import { globalValueOptions, MANAGER_COMMANDS, noptKeys, NPM_OPTIONS, NPM_SINGLES, PNPM_SHORTHANDS } from '../../programs.js';
import { npmCommand, npmOptionWords } from './npm-commands.js';
import { subcommandIndex } from './signature.js';
import { GIT_REVISION, pathOf, pushPath, staticWord } from './options.js';
import { pnpmCommandAt, treeWrite } from './runners.js';
import type { FileFacts } from './files.js';
import { MANAGER_CONFIG_SETTING, RECURSIVE } from '../../policy/decide.js';
import type { Word } from './options.js';

/**
 * Commands npm and cargo run that their own words name (docs/threat-model.md#package-managers-run-what-their-words-name).
 * Round 11 review, proven with npm 11 and cargo under bash 5.2: `npm explore PKG -- CMD` ran CMD,
 * `npm test --script-shell=./e.sh` ran e.sh, `npm pkg set scripts.x=CMD && npm run x` ran CMD,
 * `cargo build --config 'build.rustc-wrapper="./e.sh"'` ran e.sh. Each is an interpreter (the
 * program's own input is not seen) and its static text a script to decide.
 *
 *   npm explore x -- rm -f y              → interpreter; script `rm -f y`, directory not known
 *   npm pkg set scripts.t='make t'        → interpreter; script `make t`
 *   cargo test --config target.x.runner=r → interpreter; script `r`
 */

/**
 * npm configuration keys (@npmcli/config definitions) whose value is a program npm runs, a file of
 * more settings, or code: `script-shell` runs every script, `shell` `npm explore`'s, `call` is `npm
 * exec -c`'s command; and pnpm's own `pnpmfile`/`global-pnpmfile`, a JavaScript file pnpm loads
 * (pnpm 9.15.9 ran `pnpm install --pnpmfile F`'s F; round 26 review S2). nopt takes any unambiguous
 * prefix of a long option (`--script-sh`), so a prefix of one of these counts. pnpm's `npm-path` is
 * the program `pnpm publish` runs as npm (pnpm 9.15.9 ran `--npm-path=./x.sh`; round 27 review R27-13).
 */
export const NPM_COMMAND_KEYS = ['script-shell', 'shell', 'editor', 'browser', 'viewer', 'node-gyp', 'git', 'call', 'npm-path'];
/** The others: options node reads, files of more settings, code loaded (variables.ts reads their variables as settings, not commands). */
export const NPM_CODE_KEYS = ['node-options', 'userconfig', 'globalconfig', 'init-module', 'onload-script', 'pnpmfile', 'global-pnpmfile'];
const NPM_PROGRAM_KEYS = [...NPM_COMMAND_KEYS, ...NPM_CODE_KEYS];

/**
 * node-gyp's settings that name a program or code (node-gyp 12.4.0 lib/node-gyp.js configDefs):
 * npm hands every key it is given, known or not, to its scripts as `npm_config_KEY`, and node-gyp
 * reads each of those as its own option ("support for inheriting config env variables from npm").
 * `python` and `make` are programs it runs, `nodedir`, `devdir`, `tarball` and `dist-url` where the
 * headers come from (their common.gypi's `<!(CMD)` runs CMD), `directory` the project it builds.
 * `npm install --python=./evil.sh` ran evil.sh (npm's default install script for a binding.gyp
 * package is `node-gyp rebuild`), `npm test --make=./x` ran x (round 27 review R27-6). node-gyp
 * reads the names as given (`_` for `-`), so these match whole, not as prefixes.
 */
export const NODE_GYP_COMMAND_KEYS = ['python', 'make'];
export const NODE_GYP_CODE_KEYS = ['nodedir', 'devdir', 'tarball', 'dist-url', 'directory'];
const NODE_GYP_KEYS: ReadonlySet<string> = new Set([...NODE_GYP_COMMAND_KEYS, ...NODE_GYP_CODE_KEYS]);

/** Keys of their own that are prefixes of those (`--global`, `--ca`), or prefixes shared with other keys (`--node`, `--init`). */
const NPM_OTHER_KEYS = new Set(['global', 'ca', 'node', 'init']);

function namesNpmProgram(key: string): boolean {
  const name = key.toLowerCase().replace(/_/g, '-');
  return NODE_GYP_KEYS.has(name) || (name.length >= 2 && !NPM_OTHER_KEYS.has(name) && NPM_PROGRAM_KEYS.some((k) => k.startsWith(name)));
}

/** An option word nopt reads as one of those keys, however written: any dashes, `no-` any number of times, shorthands (round 26 review S14: `npm test ---script-shell=P` ran P). */
function npmProgramOption(v: string): boolean {
  return v === '-c' || (v.startsWith('-') && v !== '-' && v !== '--' && noptKeys(v, NPM_OPTIONS.short).some(namesNpmProgram));
}

/**
 * gyp's expansions (gyp/pylib/gyp/input.py: `<`, `>` or `^`, then `!` and `@`, or `|`, then an
 * optional name, then `(`): `<!(CMD)` and `<!@(CMD)` run CMD in a shell, `<!pymod_do_main(M …)` a
 * Python module, `<|(F …)` writes F. npm hands every setting it is given to its scripts as
 * `npm_config_KEY`; node-gyp (npm's default install script for a binding.gyp package, and any
 * dependency's) writes each one it does not know into config.gypi's `variables`, whose values gyp
 * expands: `npm install --foo='<!(rm -rf victim)'` removed victim (npm 11.19.1, node-gyp 12.4.0),
 * as did `npm config set tag='<!(CMD)'` before a later install (round 28 review R28-1).
 */
const GYP_EXPANSION = /[<>^](?:[!@|]*)[-\w.]*\(/;
/** The commands of `<!(CMD)` / `<!@(CMD)` in a value, for deny rules. */
const GYP_COMMANDS = /[<>^]!@?\(([^()]*)\)/g;

/** A setting's value (a static word) holding a gyp expansion is code: `interpreter`, each `<!(CMD)` a nested script. */
function gypValue(value: Word | undefined, cwd: string | null, out: FileFacts): void {
  if (value === undefined || !value.isStatic || !GYP_EXPANSION.test(value.value)) return;
  out.reasons.push('interpreter');
  for (const match of value.value.matchAll(GYP_COMMANDS)) if (match[1]!.trim() !== '') out.nested.push({ kind: 'script', text: match[1]!, cwd });
}

function codeValue(value: Word | undefined, cwd: string | null, out: FileFacts): void {
  out.reasons.push('interpreter');
  if (value?.isStatic && value.value.trim() !== '') out.nested.push({ kind: 'script', text: value.value, cwd });
}

/**
 * Where npm's command word stands in its arguments (the first operand, read as npm() below reads
 * them), or -1 when there is none or a word before it is known only at run time.
 */
export function npmCommandAt(args: readonly Word[]): number {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return -1;
    const v = word.value;
    if (v === '--') return i + 1 < args.length ? i + 1 : -1;
    if (npmProgramOption(v)) {
      if (!v.includes('=')) i++;
      continue;
    }
    if (v.startsWith('-') && v !== '-') {
      const words = npmOptionWords(args, i);
      if (words === null) return -1;
      i += words - 1;
      continue;
    }
    return i;
  }
  return -1;
}

/**
 * npm's commands that run one script of the project's package.json: once its name is read, a key
 * npm does not know (`npm run dev --host 0.0.0.0`) may take the next word as its value or leave it
 * to the script (nopt takes it: npm 11 warns "Unknown cli config" and the script gets neither), but
 * either way the same script runs with the same settings, so the command is read as written (round
 * 23; round 22's N1 made it ask). A key nopt reads as one of npm's, however written, stays
 * unanalysable, as does any other command: a prefix of one of npm's names (`--userc F` is
 * `--userconfig F`), after any number of `no-` (`--no-no-workspaces`), or letters that are all
 * npm's one-letter shorthands (`--yC ../evil` is `--yes --prefix ../evil`; round 24 review F1).
 */
const SCRIPT_RUNS: Readonly<Record<string, number>> = { 'run-script': 2, run: 2, test: 1, start: 1, stop: 1, restart: 1 };
const NPM_NAMES = [...NPM_OPTIONS.value, ...NPM_OPTIONS.boolean, ...NPM_OPTIONS.nullable, ...Object.keys(NPM_OPTIONS.short)].map((name) => name.toLowerCase());

/** Whether nopt (npm 11.19.1, nopt-lib.js resolveShort and parse) reads `--KEY` as one of npm's. */
function npmKey(key: string): boolean {
  if ([...key].every((letter) => NPM_SINGLES.has(letter))) return true;
  let name = key.toLowerCase();
  while (name.startsWith('no-')) name = name.slice(3);
  return name === '' || NPM_NAMES.some((known) => known.startsWith(name) || known.startsWith(key.toLowerCase()));
}

function passedToScript(operands: readonly Word[], option: string): boolean {
  const command = operands[0]?.isStatic ? npmCommand(operands[0].value) : null;
  if (command === null || !Object.hasOwn(SCRIPT_RUNS, command) || operands.length < SCRIPT_RUNS[command]! || !operands.slice(0, 2).every((w) => w.isStatic)) return false;
  return /^--[a-z][a-z0-9-]*$/i.test(option) && !npmKey(option.slice(2));
}

export function npm(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      out.reasons.push('interpreter'); // an option or subcommand known only at run time may be any
      continue;
    }
    const v = word.value;
    if (v === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (npmProgramOption(v)) {
      const eq = v.indexOf('=');
      codeValue(eq === -1 ? args[++i] : { ...word, value: v.slice(eq + 1) }, cwd, out);
      continue;
    }
    if (v.startsWith('-') && v !== '-') {
      // As nopt reads it (npm-commands.ts npmOptionWords), wherever it stands before `--`: nopt reads
      // the whole line, so `npm pkg --json true set scripts.t=CMD` sets the script (true is --json's)
      // and `npm run --cache D deploy` runs deploy. A form the rest of the gateway may read otherwise
      // is unanalysable (round 21 late review L1; after the command word, round 22).
      const words = npmOptionWords(args, i);
      if (words === null && !passedToScript(operands, v)) out.reasons.push('interpreter');
      // Its value, known or not, reaches node-gyp's config.gypi (R28-1); a word it may take too.
      const eq = v.indexOf('=');
      if (eq !== -1) gypValue({ ...word, value: v.slice(eq + 1) }, cwd, out);
      else if (words !== 1) gypValue(args[i + 1], cwd, out);
      i += (words ?? 1) - 1;
      continue;
    }
    operands.push(word);
  }
  const [command, ...rest] = operands.map((w) => (w.isStatic ? w.value : '\u0000'));
  // npm-explore(1): the words after PKG, joined with blanks, run in the shell inside node_modules/PKG;
  // without them an interactive shell.
  if (command === 'explore') {
    const text = rest.slice(1).join(' ').trim();
    out.reasons.push('interpreter');
    if (text !== '' && !text.includes('\u0000')) out.nested.push({ kind: 'script', text, cwd: null });
  }
  // `npm pkg set scripts.NAME=CMD` writes a script a later `npm run NAME` runs; `npm set-script NAME
  // CMD` (npm 7-8) the same; `npm config set KEY VALUE` (and `npm set`) a setting above.
  if (command === 'pkg' && rest[0] === 'set') {
    for (const setting of operands.slice(2)) npmSetting(setting, /^scripts\b/i, cwd, out);
  }
  if (command === 'set-script') codeValue(operands[2], cwd, out);
  const config = command === 'config' || command === 'c' ? rest[0] : command === 'set' ? 'set' : undefined;
  if (config !== undefined && ['set', 'delete', 'rm', 'edit', 'fix'].includes(config)) for (const file of npmrcWritten(args)) pushPath(out.paths, pathOf(file, 'write', cwd, file.isStatic && config !== 'edit' ? MANAGER_CONFIG_SETTING : undefined));
  if (config === 'set') {
    const settings = operands.slice(command === 'set' ? 1 : 2);
    for (let j = 0; j < settings.length; j++) {
      const setting = settings[j]!;
      if (setsGlobal(setting, settings[j + 1])) out.reasons.push('interpreter');
      // `npm config set KEY VALUE` as well as `KEY=VALUE`.
      if (setting.isStatic && !setting.value.includes('=') && namesNpmProgram(setting.value)) codeValue(settings[++j], cwd, out);
      else npmSetting(setting, null, cwd, out);
      // Any setting's value: node-gyp reads every one (R28-1); `KEY VALUE` or `KEY=VALUE`.
      gypValue(setting.isStatic && setting.value.includes('=') ? { ...setting, value: setting.value.slice(setting.value.indexOf('=') + 1) } : settings[j + 1], cwd, out);
    }
  }
}

/** The global npmrc (`npm config get globalconfig`: {prefix}/etc/npmrc), a place known only at run time. */
const GLOBAL_NPMRC: Word = { value: '<global npmrc>', raw: "<npm's global config: {prefix}/etc/npmrc>", isStatic: false, ansi: false };

/**
 * The file `npm config set|delete|edit|fix` (and `npm set`) changes (npm-config(1) `--location`):
 * the user's ~/.npmrc by default, the project's .npmrc with `--location=project`, the global one with
 * `--global`/`-g`/`--location=global` (or a location known only at run time). npm 11.19.1 wrote
 * HOME/.npmrc for `npm config set tag=next` (round 28 review R28-6). `--userconfig F` names F (a
 * program key: `interpreter` already, and F a candidate).
 */
function npmrcWritten(args: readonly Word[]): Word[] {
  const end = args.findIndex((word) => word.isStatic && word.value === '--');
  const options = end === -1 ? args : args.slice(0, end);
  let location: string | null = 'user';
  options.forEach((word, i) => {
    if (!word.isStatic) location = null;
    else if (/^-+(no-)*(g|global)(=.*)?$/i.test(word.value)) location = 'global';
    else {
      const loc = /^-+loc(a|at|ati|atio|ation)?(=(.*))?$/i.exec(word.value);
      if (loc) location = loc[2] !== undefined ? loc[3]! : options[i + 1]?.isStatic ? options[i + 1]!.value : null;
    }
  });
  if (location === 'user') return [staticWord('~/.npmrc')];
  if (location === 'project') return [staticWord('.npmrc')];
  return [GLOBAL_NPMRC];
}

/**
 * npm's settings that make every later install global (npm-folders(5), @npmcli/config definitions):
 * `global` (but `false`) and `location=global`. `npm config set global true` wrote `global=true` to
 * ~/.npmrc, and the next `npm install ./pkg` put its bin in {prefix}/bin (npm 11.19; round 27, G3):
 * the global install round 26 reads on the command line (global-installs.ts), made by a setting
 * every later call reads unseen, so it is `interpreter`. `KEY VALUE` or `KEY=VALUE`; a key or value
 * known only at run time counts.
 */
function setsGlobal(setting: Word, next: Word | undefined): boolean {
  if (!setting.isStatic) return true;
  const eq = setting.value.indexOf('=');
  const key = (eq === -1 ? setting.value : setting.value.slice(0, eq)).toLowerCase().replace(/_/g, '-');
  if (key !== 'global' && key !== 'location') return false;
  const value = eq === -1 ? next : { ...setting, value: setting.value.slice(eq + 1) };
  if (value === undefined || !value.isStatic) return true;
  return key === 'global' ? value.value !== 'false' : value.value === 'global';
}

/**
 * pnpm's options that name a program or code, wherever they stand before `--` (pnpm reads them after
 * its command word too: `pnpm install --pnpmfile F`, `pnpm add x --global-pnpmfile F` ran F, pnpm
 * 9.15.9; round 26 review S2), read as nopt reads them (any dashes, prefixes, shorthands).
 */
export function pnpmProgramOptions(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic || !word.value.startsWith('-') || word.value === '-') continue;
    if (word.value === '--') return;
    if (!noptKeys(word.value, PNPM_SHORTHANDS).some(namesNpmProgram)) continue; // pnpm's shorthands, not npm's
    const eq = word.value.indexOf('=');
    codeValue(eq === -1 ? args[++i] : { ...word, value: word.value.slice(eq + 1) }, cwd, out);
  }
}

/**
 * `pnpm config set KEY VALUE` (`pnpm set`) and `yarn config set KEY VALUE` write a setting every later
 * call reads: `script-shell` runs every script (yarn 1.22.22 wrote it to its global .yarnrc and the
 * next `yarn deploy` ran that program), `yarn-path` (berry's `yarnPath`) runs in yarn's place. Each
 * key that names a program, as npm's above, is an interpreter and its value a script to decide.
 */
export function managerConfig(name: 'pnpm' | 'yarn', args: readonly Word[], cwd: string | null, out: FileFacts): void {
  if (name === 'pnpm') pnpmPkg(args, cwd, out);
  // After `--` every word is an operand: `yarn config set -- --cwd ../evil` sets the key `--cwd`.
  const end = args.findIndex((word) => word.isStatic && word.value === '--');
  const operands = [...(end === -1 ? args : args.slice(0, end)).filter((word) => !word.isStatic || !word.value.startsWith('-')), ...(end === -1 ? [] : args.slice(end + 1))];
  const words = operands.map((word) => (word.isStatic ? word.value : '\u0000'));
  const command = words[0];
  // An option's value may stand between `config` and `set` (`pnpm config --location project set
  // KEY VALUE`: the operands keep it), and pnpm's `c` is `config` (round 22 late review, RL2): the
  // settings are the words after the first `set` past `config`.
  if (name === 'yarn') yarnRelease(words, out);
  const isConfig = command === 'config' || (name === 'pnpm' && command === 'c');
  const verb = isConfig ? words.indexOf('set', 1) : -1;
  // A word not known before the verb may be `set` itself (`pnpm config "$V" script-shell P`): fail closed.
  if (isConfig && words.slice(1, verb > 0 ? verb : 2).includes('\u0000')) return void out.reasons.push('interpreter');
  const from = verb > 0 ? verb + 1 : name === 'pnpm' && command === 'set' ? 1 : -1;
  if (from < 0) return;
  const settings = operands.slice(from);
  for (let j = 0; j < settings.length; j++) {
    const setting = settings[j]!;
    if (!setting.isStatic) return void out.reasons.push('interpreter');
    if (name === 'pnpm' && setsGlobal(setting, settings[j + 1])) out.reasons.push('interpreter');
    const eq = setting.value.indexOf('=');
    const key = eq === -1 ? setting.value : setting.value.slice(0, eq);
    // pnpm and yarn 1 hand their settings to scripts as `npm_config_KEY` too, node-gyp's config.gypi (R28-1).
    gypValue(eq === -1 ? settings[j + 1] : { ...setting, value: setting.value.slice(eq + 1) }, cwd, out);
    if (!namesNpmProgram(key) && !/^yarn-?path$/i.test(key)) {
      if (name === 'yarn' && !isPlainYarnSetting(key)) out.reasons.push('interpreter');
      // A setting takes the next word as its value (`yarn config set KEY VALUE`).
      if (name === 'yarn' && eq === -1) j++;
      continue;
    }
    codeValue(eq === -1 ? settings[++j] : { ...setting, value: setting.value.slice(eq + 1) }, cwd, out);
  }
}

/**
 * yarn's settings that only pick versions, prefixes, prompts, the network or what is printed (yarn
 * 1.22's `getOption` keys of that kind, berry's display and network settings), spelled either way
 * (`init-license`, `enableTelemetry`). Any other key `yarn config set` writes may name code or a
 * folder code is taken from (round 27, Y4): yarn 1 turns a key starting with `--` into an option of
 * every later call (src/rc.js getRcArgs: `yarn config set -- --cwd ../evil`, then `yarn dev`, ran
 * ../evil's dev script, yarn 1.22.22 as a user), reads `yarn-offline-mirror`, `cache-folder`,
 * `global-folder`, `prefix` (src/config.js, registries/yarn-registry.js) and `env` (merged into every
 * script's environment); berry's `.yarnrc.yml` has `plugins`, `injectEnvironmentFiles`,
 * `packageExtensions`, `cacheFolder`, `pnpUnpluggedFolder`… Those are `interpreter`.
 */
const PLAIN_YARN_SETTINGS: ReadonlySet<string> = new Set(
  [
    'version-tag-prefix', 'version-git-tag', 'version-git-message', 'version-sign-git-tag', 'version-commit-hooks', 'save-prefix', 'save-exact', 'ignore-engines', 'ignore-optional',
    'ignore-platform', 'ignore-scripts', 'network-timeout', 'network-concurrency', 'child-concurrency', 'lastUpdateCheck', 'no-progress', 'disable-self-update-check', 'registry', 'emoji',
    'enableTelemetry', 'enableProgressBars', 'enableColors', 'enableHyperlinks', 'enableMessageNames', 'enableTimers', 'enableInlineBuilds', 'enableInlineHunks', 'defaultSemverRangePrefix',
    'preferInteractive', 'preferReuse', 'preferTruncatedLines', 'npmRegistryServer', 'httpTimeout', 'httpRetry', 'enableImmutableInstalls', 'enableNetwork', 'enableOfflineMode', 'compressionLevel',
  ].map((key) => yarnKey(key)),
);

/** A yarn setting's name as either release spells it: lower case, no `-` or `_`. */
function yarnKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

function isPlainYarnSetting(key: string): boolean {
  return !key.startsWith('-') && (PLAIN_YARN_SETTINGS.has(yarnKey(key)) || /^init[-_a-z]/i.test(key));
}

/**
 * `pnpm pkg …` is npm's (pnpm 9.15.9 hands `pkg` to npm with the words after it): `pnpm pkg set
 * scripts.x=CMD && pnpm x` ran CMD (round 26 review S13), so those words are read as npm's.
 */
function pnpmPkg(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const at = pnpmCommandAt(args);
  if (at >= 0 && args[at]!.value === 'pkg') npm(args.slice(at), cwd, out);
}

/**
 * `bun pm pkg set KEY=VALUE …` writes package.json as `npm pkg set` does (bun 1.4.5 `bun pm --help`;
 * `bun pm pkg set scripts.x=CMD && bun run x` ran CMD, round 26 review S13): a script's value is code.
 */
function bunPkgSet(operands: readonly Word[], cwd: string | null, out: FileFacts): void {
  const words = operands.map((word) => (word.isStatic ? word.value : '\u0000'));
  if (words[0] !== 'pm' || words[1] !== 'pkg' || words[2] !== 'set') return;
  // `trustedDependencies` too: the packages whose lifecycle scripts every later install runs (bunTrusts).
  for (const setting of operands.slice(3)) npmSetting(setting, /^(scripts|trustedDependencies)\b/i, cwd, out);
}

/**
 * bun runs no dependency's lifecycle scripts but those its package.json trusts (bun docs "Lifecycle
 * scripts", `trustedDependencies`). `bun pm trust NAME…` and `bun pm trust --all`/`-a` run the
 * scripts of the installed packages named (cli/pm_trusted_command.zig TrustCommand: spawned from
 * node_modules, deepest first) and add them to `trustedDependencies`, whose scripts every later
 * `bun install` runs; `bun add --trust`/`bun install --trust` the same for the packages added
 * (round 27, B5). Code from node_modules no call named, now and later: `interpreter`, as the code a
 * written setting names is (a bun the analyser has no build of here: from the source and docs).
 */
function bunTrusts(command: string | null, args: readonly Word[]): boolean {
  const statics = args.map((word) => (word.isStatic ? word.value : '\u0000'));
  const end = statics.indexOf('--');
  const options = end === -1 ? statics : statics.slice(0, end);
  if (command === 'pm') {
    const at = statics.findIndex((word, i) => i > statics.indexOf('pm') && !word.startsWith('-'));
    return at !== -1 && (statics[at] === 'trust' || statics[at] === '\u0000');
  }
  return command !== null && ['add', 'a', 'install', 'i'].includes(command) && options.includes('--trust');
}

/**
 * yarn's own release as the next call's program: `yarn set version SPEC` (berry 4.18.1, 1.22's
 * alias of `yarn policies set-version`) copies SPEC into .yarn/releases and points `yarnPath` at it,
 * and every later `yarn …` runs that file in yarn's place (round 23: `yarn set version ./x.cjs`, then
 * `yarn --version` ran x.cjs). berry reads SPEC as a tag, a semver version or range (fetched from
 * yarn's own repositories), an `http(s):` URL or a path (`set version --help`, and its source's
 * order); `set version from sources` clones and builds a repository (`--repository`, `--path`,
 * `--branch`) and runs the bundle. `yarn plugin import SPEC` (berry) loads SPEC into every later
 * call too: a name of yarn's own plugins stays, a path, URL or `from sources` does not. Anything
 * but a tag or a version is `interpreter`: docs/rules.md ("yarn's own release").
 */
const YARN_RELEASE_TAGS = /^(self|latest|berry|stable|canary|classic|rc|nightly)$/;
const YARN_RELEASE_RANGE = /^[v=^~<>]*\d+(\.(\d+|[xX*]))*(-[0-9A-Za-z.-]+)?$/;
const YARN_OFFICIAL_PLUGIN = /^(@yarnpkg\/plugin-)?[a-z][a-z0-9-]*$/;

function yarnRelease(words: readonly string[], out: FileFacts): void {
  for (let k = 0; k < words.length - 1; k++) {
    const [a, b] = [words[k], words[k + 1]];
    const release = (a === 'set' && b === 'version') || (a === 'policies' && b === 'set-version');
    const plugin = a === 'plugin' && b === 'import';
    if (!release && !plugin) continue;
    const spec = words[k + 2];
    // No operand: berry asks for one (an error); yarn 1's set-version takes the latest release.
    if (spec === undefined) continue;
    const safe = spec !== 'from' && (release ? YARN_RELEASE_TAGS.test(spec) || YARN_RELEASE_RANGE.test(spec) : YARN_OFFICIAL_PLUGIN.test(spec));
    if (!safe) out.reasons.push('interpreter');
  }
}

/**
 * berry's ways to run a JavaScript file the rule never named (round 23; yarn 4.18.1 ran each):
 * `yarn node FILE` (node with the project's PnP setup: `yarn node ./evil.js` ran evil.js, and
 * `Bash(node *)` did not meet it) and `yarn run --require FILE BIN` (run's option, forwarded to the
 * node running a dependency's bin: `yarn run --require ./evil.js bd` ran evil.js before bd). Each
 * is `interpreter`: it asks under `Bash(yarn:*)`. docs/rules.md ("yarn's own release").
 */
export function yarnRunsFile(args: readonly Word[], out: FileFacts): void {
  const end = args.findIndex((word) => word.isStatic && word.value === '--');
  if ((end === -1 ? args : args.slice(0, end)).some((word) => word.isStatic && /^--require(=|$)/.test(word.value))) return void out.reasons.push('interpreter');
  const statics = args.map((word) => (word.isStatic ? word.value : '\u0000'));
  const at = subcommandIndex('yarn', statics);
  if (at !== null && at >= 0 && statics[at] === 'node') return void out.reasons.push('interpreter');
  if (yarnInspects(statics)) out.reasons.push('interpreter');
}

/**
 * berry's `run --inspect[=HOST:PORT]` and `--inspect-brk[=…]` (4.18.1 `yarn run -h=1`: "Forwarded to
 * the underlying Node process when executing a binary"; round 24): node then listens for a
 * debugger, and whoever connects to it runs code in that process (`--inspect=0.0.0.0:9229` from
 * the network). Read where yarn reads run's options: before the script's name (`yarn run
 * --inspect bd`, `yarn --inspect bd`); after it they are the script's own words (`yarn dev
 * --inspect`). yarn's global value options are skipped with their value (programs.ts YARN_VALUE).
 */
function yarnInspects(statics: readonly string[]): boolean {
  const values = globalValueOptions('yarn');
  for (let i = 0; i < statics.length; i++) {
    const word = statics[i]!;
    if (word === '\u0000') return true; // an option known only at run time may be --inspect
    if (word === '--') return false;
    if (/^--inspect(-brk)?(=|$)/.test(word)) return true;
    if (word === 'run' || word === 'run-script') continue;
    if (!word.startsWith('-')) return false; // the script's name: the rest is the script's
    if (word === '--require' || values.has(word)) i++;
  }
  return false;
}

/**
 * bun's options that load code or settings (bun 1.4.5 `bun --help`, `bun run --help`; round 24,
 * each run here): `-r`/`--preload`/`--require`/`--import` load a module first (`bun test --preload
 * ./x.js` ran x.js before the tests); `--config=F` (`-c=F`; without `=` it is a flag) reads F as
 * bunfig.toml, whose `preload` and `[test] preload` load code; `--env-file F` sets the program's
 * and its scripts' environment (F's `NODE_OPTIONS=--require ./x.js` ran x.js under `bun run
 * --env-file F nb`, nb's script running node); `--cwd D` runs D's scripts; `--tsconfig-override F`
 * (F's `paths` sent `import "lib"` to ./x.js); `--inspect`, `--inspect-wait`, `--inspect-brk` open
 * a debugger (localhost:6499, or where the value says), and whoever connects runs code;
 * `--jsx-import-source M` imports M's jsx-runtime; `-e`/`-p` are code. `--shell` other than `bun`
 * or `system` (bun refuses it) counts too. Each is `interpreter`. `bun exec TEXT` runs TEXT in
 * bun's own shell (a nested script, so deny rules meet it), `bun repl` and `bun run -` code from stdin.
 *
 * Where bun reads them (cli.zig Command.which: the command is the first word not starting with
 * `-`, and that command's table reads the options around it): for `run`, a file or a script's name
 * (no command), up to that file or name (`bun run build --preload x` gives the script the words);
 * for its other commands (`test`, `install`, `build`…) every word before `--`.
 */
const BUN_CODE_OPTIONS: ReadonlySet<string> = new Set(['--preload', '--require', '--import', '--config', '--env-file', '--cwd', '--tsconfig-override', '--inspect', '--inspect-wait', '--inspect-brk', '--jsx-import-source', '--eval', '--print']);
/** bun's short options that take a value (attached, after `=`, or the next word), those that load code, and its short flags. */
const BUN_SHORT_VALUE = 'rdlFept';
const BUN_SHORT_CODE = 'rep';
const BUN_SHORT_FLAGS = 'bhivu';

export function bunOptions(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const first = args.findIndex((word) => !word.isStatic || !word.value.startsWith('-') || word.value === '-');
  const command = first >= 0 && args[first]!.isStatic ? args[first]!.value : null;
  if (command === 'x') return; // bunx: `executor` (program.ts)
  if (command === 'exec' || command === 'repl') {
    out.reasons.push('interpreter');
    const text = args.slice(first + 1);
    if (command === 'exec' && text.length > 0 && text.every((word) => word.isStatic)) out.nested.push({ kind: 'script', text: text.map((word) => word.value).join(' '), cwd });
    return;
  }
  if (command === 'pm') bunPkgSet(args.filter((word) => !word.isStatic || !word.value.startsWith('-')), cwd, out);
  if (bunTrusts(command, args)) out.reasons.push('interpreter');
  const runs = command === null || command === 'run' || !MANAGER_COMMANDS.bun!.has(command);
  const values = globalValueOptions('bun');
  const code = (): void => void out.reasons.push('interpreter');
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return code(); // an option known only at run time may be --preload
    const v = word.value;
    if (v === '--') return;
    if (i === first && command === 'run') continue;
    if (!v.startsWith('-') || v === '-') {
      // `bun test PATH` runs the test files at PATH, a path outside the workspace too (bun 1.4.5 ran
      // `bun test ../evil/evil.js`; round 25 review R12): a read of code, as pytest's test paths;
      // a word not starting with `.`, `/` or `~` is a filter on the file names.
      if (command === 'test' && i > first && /^[./~]/.test(v)) {
        const path = pathOf(word, 'read', cwd);
        if (path) path.tree = { content: true, follows: false };
        pushPath(out.paths, path);
      }
      if (!runs) continue;
      if (v === '-') code(); // `bun run -`: the code is stdin
      return; // the file or the script: what follows is its own
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq === -1 ? v : v.slice(0, eq);
      if (BUN_CODE_OPTIONS.has(name) && (eq !== -1 || name !== '--config')) code();
      // `--changed=REF` is handed to `git diff --name-only REF`: an option there writes (round 26 review S9).
      if (name === '--changed' && eq !== -1 && eq + 1 < v.length && !GIT_REVISION.test(v.slice(eq + 1))) code();
      if (name === '--shell' && !/^(bun|system)$/.test(eq === -1 ? (args[i + 1]?.isStatic ? args[i + 1]!.value : '') : v.slice(eq + 1))) code();
      if (eq === -1 && values.has(name)) i++;
      continue;
    }
    // Short letters, bundled (`-br ./x.js`): flags, then at most one that takes a value (the rest of
    // the word, after an optional `=`, or the next word); `-c` takes one only attached.
    for (let j = 1; j < v.length; j++) {
      const letter = v[j]!;
      if (BUN_SHORT_FLAGS.includes(letter)) continue;
      const rest = v.slice(j + 1);
      if (letter === 'c') {
        if (rest !== '') code();
      } else if (BUN_SHORT_VALUE.includes(letter)) {
        if (BUN_SHORT_CODE.includes(letter)) code();
        if (rest === '') i++;
      }
      break;
    }
  }
}

function npmSetting(setting: Word, key: RegExp | null, cwd: string | null, out: FileFacts): void {
  if (!setting.isStatic) return void out.reasons.push('interpreter');
  const eq = setting.value.indexOf('=');
  const name = eq === -1 ? setting.value : setting.value.slice(0, eq);
  if (key ? key.test(name) : namesNpmProgram(name)) codeValue(eq === -1 ? undefined : { ...setting, value: setting.value.slice(eq + 1) }, cwd, out);
}

/**
 * cargo configuration keys that change nothing cargo runs (The Cargo Book, "Configuration"); any
 * other key given with `--config`, or a file of settings, may name a program (`build.rustc-wrapper`,
 * `target.<triple>.runner`/`linker`, `alias.*`, `build.rustflags` with `-C linker=`).
 */
const CARGO_HARMLESS_KEYS = /^(build\.(jobs|incremental)|net\.(offline|retry)|term\.[a-z.-]+|profile\.[a-z0-9_-]+\.(opt-level|debug|debug-assertions|overflow-checks|lto|codegen-units|incremental|panic|strip|split-debuginfo))$/;
/** Keys whose string value is a program (or an alias, a cargo command line). */
const CARGO_PROGRAM_KEYS = /^(build\.(rustc|rustc-wrapper|rustc-workspace-wrapper|rustdoc)|target\..+\.(runner|linker)|host\.linker|alias\..+|doc\.browser)$/;

/** cargo's built-in aliases (cargo 1.x, `cargo b --help` is build's; round 21 review, B4's family): `cargo r` is `cargo run`. */
const CARGO_ALIASES: Readonly<Record<string, string>> = { b: 'build', c: 'check', d: 'doc', r: 'run', t: 'test', rm: 'remove' };

/** The command cargo runs for `word` when it is one of its built-in aliases, else the word. */
export function cargoCommand(word: string): string {
  return Object.hasOwn(CARGO_ALIASES, word) ? CARGO_ALIASES[word]! : word;
}

/** Where cargo's command word stands (after `+toolchain` and global options), or -1. */
export function cargoCommandAt(args: readonly Word[]): number {
  const values = globalValueOptions('cargo');
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return -1;
    if (i === 0 && word.value.startsWith('+')) continue;
    if (word.value.startsWith('-')) {
      if (values.has(word.value)) i++;
      continue;
    }
    return i;
  }
  return -1;
}

/**
 * rustc's codegen options (`-C KEY=V`, `-CKEY=V`, `--codegen KEY=V`; the rustc book, "Codegen
 * Options") that neither run nor load another program: `linker`, `link-arg(s)` (`-fuse-ld=`, `-B`,
 * a plugin), `llvm-args`, `dlltool`, `profile-use`… do, or may (round 27 R27-7: `cargo rustc -- -C
 * linker=./x.sh` ran x.sh, cargo/rustc 1.95).
 */
const RUSTC_PLAIN_CODEGEN = /^(opt-level|debuginfo|debug-assertions|overflow-checks|panic|lto|codegen-units|target-cpu|target-feature|strip|rpath|embed-bitcode|force-frame-pointers|force-unwind-tables|relocation-model|code-model|prefer-dynamic|metadata|extra-filename|split-debuginfo|inline-threshold|no-redzone|no-vectorize-loops|no-vectorize-slp|instrument-coverage|symbol-mangling-version|soft-float|default-linker-libraries|link-dead-code|control-flow-guard|incremental|save-temps|no-prepopulate-passes|relro-level|collapse-macro-debuginfo|jump-tables|dwarf-version)$/;
/**
 * True when rustc's (or rustdoc's) own words run or load other code: a codegen option outside
 * RUSTC_PLAIN_CODEGEN, `-Z` (unstable options, some load code), `--extern`/`-L`/`--sysroot` (crates
 * and proc macros from elsewhere), a target file, an `@file` of more options, rustdoc's
 * `--test-builder`/`--runtool`. Fail closed: an unknown word counts.
 */
export function rustcRunsCode(words: readonly Word[]): boolean {
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.isStatic) return true;
    const text = word.value;
    const codegen = /^(?:-C|--codegen)(=?)(.*)$/s.exec(text);
    if (codegen) {
      const value = codegen[2] !== '' ? codegen[2]! : words[++i];
      const setting = typeof value === 'string' ? value : value?.isStatic ? value.value : undefined;
      if (setting === undefined || !RUSTC_PLAIN_CODEGEN.test(setting.split('=')[0]!.trim())) return true;
      continue;
    }
    if (text.startsWith('@') || /^(-Z|-L|--extern|--sysroot|--test-builder|--test-builder-wrapper|--runtool|--test-runtool|-l)/.test(text)) return true;
    const target = /^--target(=?)(.*)$/s.exec(text);
    if (target) {
      const value = target[1] === '=' ? target[2]! : words[++i]?.value;
      if (value === undefined || value.includes('/') || value.endsWith('.json')) return true;
    }
  }
  return false;
}

export function cargo(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  // `cargo rustc|rustdoc [OPTIONS] -- ARGS` hands ARGS to the compiler (cargo-rustc(1)).
  const at = cargoCommandAt(args);
  const command = at === -1 ? null : cargoCommand(args[at]!.value);
  const dashes = args.findIndex((w) => w.isStatic && w.value === '--');
  if ((command === 'rustc' || command === 'rustdoc') && dashes !== -1 && rustcRunsCode(args.slice(dashes + 1))) out.reasons.push('interpreter');
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word.isStatic && word.value === '--') break; // what follows is the program's (`cargo run -- --config x`)
    if (!word.isStatic || !(word.value === '--config' || word.value.startsWith('--config='))) continue;
    const value = word.value === '--config' ? args[++i] : { ...word, value: word.value.slice('--config='.length) };
    if (value === undefined) continue;
    const eq = value.isStatic ? value.value.indexOf('=') : -1;
    const key = eq === -1 ? '' : value.value.slice(0, eq).trim();
    if (CARGO_HARMLESS_KEYS.test(key)) continue;
    out.reasons.push('interpreter');
    const program = CARGO_PROGRAM_KEYS.test(key) ? /^\s*"([^"\\]*)"\s*$/.exec(value.value.slice(eq + 1)) : null;
    if (program && program[1]!.trim() !== '') out.nested.push({ kind: 'script', text: program[1]!, cwd });
  }
}

/**
 * go's flags that name a program it runs (`go help testflag`, `go help build`): `-exec xprog` runs
 * the test binary (go run's program) as `xprog BINARY ARGS`, `-toolexec 'cmd args'` runs every
 * toolchain program through cmd, `-vettool prog` replaces vet. Round 13 review, proven with go 1.19
 * under bash 5.2: `go test -exec 'rm -rf d --' .` removed d, and no Bash deny rule saw `rm`.
 */
const GO_PROGRAM_FLAGS = new Set(['exec', 'toolexec', 'vettool']);
/**
 * Flags whose value is a file go writes (`-o`, the test profiles, the test log); relative profiles
 * land in `-outputdir`. `go test` takes the test binary's flags with their `-test.` prefix too, and
 * after `-args` passes them on: `go test . -args -test.cpuprofile=F` and `go test -test.testlogfile=F .`
 * wrote F (go 1.19.8); `-test.fuzzcachedir`/`-test.gocoverdir` are directories the binary fills.
 */
const GO_WRITE_FLAGS = new Set(['o', 'coverprofile', 'cpuprofile', 'memprofile', 'blockprofile', 'mutexprofile', 'trace', 'outputdir', 'testlogfile', 'fuzzcachedir', 'gocoverdir']);
const GO_TREES = new Set(['fuzzcachedir', 'gocoverdir']);
/**
 * Flags naming a file or directory that decides what code is built (`go help build`): `-overlay F`
 * (a JSON map replacing source files: `go run -overlay=F .` ran another directory's main.go, go
 * 1.19.8), `-modfile F` (another go.mod: its replace and toolchain directives), `-pkgdir D`
 * (packages loaded from D), `-C D` (another module, its tests). Each is `interpreter`.
 */
const GO_CODE_FLAGS = new Set(['overlay', 'modfile', 'pkgdir', 'C']);
/** Flags passed on to the compiler, assembler and linker (`go help build`), `pattern=` prefixes included. */
const GO_TOOL_FLAGS = /^(ldflags|gcflags|asmflags|gccgoflags)$/;
const GO_PROFILES = new Set(['coverprofile', 'cpuprofile', 'memprofile', 'blockprofile', 'mutexprofile', 'trace']);

/**
 * The compiler's, assembler's and linker's flags that run, load or write nothing (`go tool compile
 * -help`, `go tool asm -help`, `go tool link -help`): round 33 (rules33) reads `-gcflags`,
 * `-asmflags` and `-ldflags` against this list, where round 14 looked for the ones known to run a
 * program (`-extld`, `-extldflags`, `@F`, `-importcfg`, `-tmpdir`): any other flag asks. Values:
 * the flags taking the next field (the flag package: a flag that is no boolean does).
 */
const GO_TOOL_SAFE = /^(?:N|l|m|S|B|C|K|e|h|w|s|v|f|n|u|d|live|race|msan|asan|shared|dynlink|linkshared|std|complete|smallframes|wb|dwarf|dwarflocationlists|dwarfbasentries|nolocalimports|pack|compressdwarf|bindnow|aslr|gensymabis|compiling-runtime|debug|X|D|p|lang|c|trimpath|buildid|goversion|spectre|installsuffix|buildmode|linkmode|strictdups|checklinkname|H|E|T|R|I|L)$/;
const GO_TOOL_VALUES = /^(?:X|D|p|lang|c|trimpath|buildid|goversion|spectre|installsuffix|buildmode|linkmode|strictdups|checklinkname|H|E|T|R|I|L|d)$/;
/** The debug settings of `-d` that dump nothing (`go tool compile -d help`): checkptr's race checks. */
const GO_DEBUG_SAFE = /^checkptr(?:=\d)?$/;

/**
 * Whether a tool flags value (`[pattern=]-N -l`) holds only GO_TOOL_SAFE flags; the assembler's and
 * compiler's `-I DIR` (include and import search paths) and the linker's `-L DIR` are reads of every
 * file below DIR (go 1.19's `-asmflags=-I DIR` included DIR's `#include` files; the linker's `-I` is another
 * flag: the ELF interpreter). gccgo's flags are
 * gcc's (compilers.ts): any asks.
 */
function toolFlagsKnown(name: string, value: string, cwd: string | null, out: FileFacts): boolean {
  if (name === 'gccgoflags') return value.trim() === '';
  // `-gcflags=all=-N -l`: a package pattern and `=` before the flags.
  const fields = goFields(/^[^-\s][^=\s]*=/.test(value) ? value.slice(value.indexOf('=') + 1) : value);
  for (let i = 0; i < fields.length; i++) {
    const flag = /^--?([\w-]+)(?:=([\s\S]*))?$/.exec(fields[i]!);
    // The linker's `-I F` is the built program's ELF interpreter, not a search path: it runs F.
    if (!flag || !GO_TOOL_SAFE.test(flag[1]!) || (name === 'ldflags' && flag[1] === 'I')) return false;
    const key = flag[1]!;
    if (!GO_TOOL_VALUES.test(key)) continue;
    const given = flag[2] ?? fields[++i];
    if (given === undefined) return false;
    if (key === 'd' && !given.split(',').every((setting) => GO_DEBUG_SAFE.test(setting))) return false;
    if (key === 'I' || key === 'L') {
      const path = pathOf(staticWord(given), 'read', cwd, RECURSIVE);
      if (path) path.tree = { content: true, follows: true };
      pushPath(out.paths, path);
    }
  }
  return true;
}

/**
 * How go splits a program flag's value into words (cmd/internal/quoted.Split): at blanks, a field
 * may be wrapped in '…' or "…" (no escapes inside).
 */
function goFields(text: string): string[] {
  const fields: string[] = [];
  const re = /\s*(?:'([^']*)'|"([^"]*)"|(\S+))/gy;
  for (let m = re.exec(text); m && m[0].trim() !== ''; m = re.exec(text)) fields.push(m[1] ?? m[2] ?? m[3]!);
  return fields;
}

export function go(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  // `go env -w GOFLAGS=-toolexec=x` (and CC, GOTOOLCHAIN…) stores a setting every later go command obeys.
  const first = args.find((w) => !w.isStatic || !w.value.startsWith('-'));
  if (first?.isStatic && first.value === 'env' && args.some((w) => !w.isStatic || /^--?[wu](=|$)/.test(w.value))) out.reasons.push('interpreter');
  // `go run PKG@VERSION` downloads the module and runs it (`go help run`), as npx does; any word
  // with an `@` after the verb counts (a program argument too: telling them apart needs every flag's arity).
  if (first?.isStatic && first.value === 'run' && args.some((w) => w.isStatic && !w.value.startsWith('-') && w.value.includes('@'))) out.reasons.push('executor');
  let outputDir: Word | null = null;
  const profiles: Word[] = [];
  let binary = false; // after `-args`: only the testing package's `-test.` flags are read
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      out.reasons.push('interpreter'); // a flag known only at run time may be -exec
      continue;
    }
    if (word.value === '-args' || word.value === '--args' || word.value === '--') {
      binary = true;
      continue;
    }
    if (binary && !/^--?test\./.test(word.value)) continue;
    const m = /^--?([^=-][^=]*)(=([\s\S]*))?$/.exec(word.value);
    if (!m) continue;
    const name = m[1]!.replace(/^test\./, '');
    if (GO_CODE_FLAGS.has(name)) {
      out.reasons.push('interpreter');
      continue;
    }
    // `-pgo FILE` (go 1.21) reads a profile; `auto`, `off` and `default` name none.
    if (name === 'pgo') {
      const value: Word | undefined = m[2] !== undefined ? { ...word, value: m[3]!, raw: m[3]! } : args[++i];
      if (value && !(value.isStatic && /^(auto|off|default)$/.test(value.value))) pushPath(out.paths, pathOf(value, 'read', cwd));
      continue;
    }
    // The compiler's and linker's flags (round 14 review C3, go 1.19.8: `-ldflags='-linkmode=external
    // -extld=P'` ran P): a program (-extld, -extldflags' -fuse-ld), a file of flags (@F) or an import config.
    if (GO_TOOL_FLAGS.test(name)) {
      const value = m[2] !== undefined ? m[3]! : args[++i]?.isStatic ? args[i]!.value : null;
      if (value === null || !toolFlagsKnown(name, value, cwd, out)) out.reasons.push('interpreter');
      continue;
    }
    if (!GO_PROGRAM_FLAGS.has(name) && !GO_WRITE_FLAGS.has(name)) continue; // other flags' values name nothing run or written
    const value: Word | undefined = m[2] !== undefined ? { ...word, value: m[3]!, raw: m[3]! } : args[++i];
    if (value === undefined) continue;
    if (GO_PROGRAM_FLAGS.has(name)) {
      out.reasons.push('interpreter');
      if (!value.isStatic) continue;
      const words = goFields(value.value).map(staticWord);
      if (words.length > 0) out.nested.push({ kind: 'argv', words, cwd });
    } else if (GO_WRITE_FLAGS.has(name)) {
      if (name === 'outputdir') outputDir = value;
      if (GO_PROFILES.has(name)) profiles.push(value);
      else pushPath(out.paths, GO_TREES.has(name) ? treeWrite(value, cwd) : pathOf(value, 'write', cwd));
    }
  }
  for (const profile of profiles) {
    const relative = profile.isStatic && !profile.value.startsWith('/') && !profile.value.startsWith('~');
    const base = relative && outputDir ? outputDir : null;
    const target = base ? (base.isStatic ? staticWord(`${base.value.replace(/\/+$/, '')}/${profile.value}`) : base) : profile;
    pushPath(out.paths, pathOf(target, 'write', cwd));
  }
}

/**
 * `npm run env ARGS`: npm's own `env` script, when package.json has none, is `env` (npm 11.19.1
 * lib/commands/run.js: `scripts.env = isWindowsShell ? 'SET' : 'env'`), and the words after a
 * script's name are appended to it, so env(1) runs ARGS (`npm run env -- rm -rf victim` removed
 * victim; round 27 review R27-2). Read as a runner's command (program.ts innerCommand): `env ARGS`,
 * whose wrapper is stripped so ARGS is the command the rules meet. package.json is not read, so a
 * project's own `env` script is read the same way (it only asks more). An option word before the
 * script's words that nopt may read with the next word makes the command unknown. Null for any
 * other command, and for `npm run env` alone (it prints the environment).
 */
export function npmRunEnv(args: readonly Word[]): { name: string; args: Word[]; moved: false } | 'unknown' | null {
  const at = npmCommandAt(args);
  if (at < 0 || npmCommand(args[at]!.value) !== 'run') return null;
  const operands: Word[] = [];
  for (let i = at + 1; i < args.length; i++) {
    const word = args[i]!;
    // A script name known only at run time is code already (npm above); a word after it is the command's.
    if (!word.isStatic) {
      if (operands.length === 0) return null;
      operands.push(word);
      continue;
    }
    if (word.value === '--') {
      if (operands.length === 0 && args[i + 1]?.value !== 'env') return null;
      operands.push(...args.slice(i + 1));
      break;
    }
    if (word.value.startsWith('-') && word.value !== '-') {
      const words = npmOptionWords(args, i);
      if (words === null) return operands.length === 0 ? null : 'unknown';
      i += words - 1;
      continue;
    }
    // Any script but `env` is the project's own (its words are the script's).
    if (operands.length === 0 && word.value !== 'env') return null;
    operands.push(word);
  }
  if (operands.length < 2) return null;
  return { name: 'env', args: operands.slice(1), moved: false };
}
