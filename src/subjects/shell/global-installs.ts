import { COMMAND_ALIASES, globalValueOptions, noptKeys, NPM_OPTIONS, PNPM_SHORTHANDS } from '../../programs.js';
import { npmCommand } from './npm-commands.js';
import { cargoCommand, cargoCommandAt, npmCommandAt } from './package-managers.js';
import { pnpmCommandAt } from './runners.js';
import { pathOf, pushPath, type Word } from './options.js';
import type { FileFacts } from './files.js';

/**
 * Installs into the global prefix replace commands on PATH (docs/threat-model.md#global-installs-write-the-global-prefix).
 * npm-folders(5): `-g` puts packages in `{prefix}/lib/node_modules` and their bins in `{prefix}/bin`;
 * `npm install -g --force ./pkg` replaced /usr/bin/r26-victim-bin (npm 11, round 26 review S10),
 * past `Edit(/usr/**)` under `Bash(npm install:*)`, and `npm link`, `pnpm add -g`, `bun add -g` and
 * `bun link` (which wrote ~/.bun/bin/NAME, bun 1.4.5) do the same. Where the global prefix is (npm's
 * `prefix` setting, PNPM_HOME, BUN_INSTALL, yarn's global folder) is the user's configuration, not
 * known here: each is a write of a place known only at run time, so no rule allows it, it asks
 * where a write would, and in bypassPermissions it asks while a deny or ask rule exists.
 *
 *   npm install -g x, npm i --global x, npm install --location=global x, npm link
 *   pnpm add -g x, pnpm link --global, bun add -g x, bun link, yarn global add x
 *   cargo install x (without --root)
 */

/** The global prefix, as a path known only at run time. */
const GLOBAL_PREFIX: Word = { value: '<global prefix>', raw: '<the package manager\'s global prefix>', isStatic: false, ansi: false };

/** Commands that change what is installed (npm's canonical names, pnpm's and bun's after their aliases). */
const NPM_INSTALLERS: ReadonlySet<string> = new Set(['install', 'ci', 'install-test', 'install-ci-test', 'update', 'uninstall', 'link', 'rebuild', 'dedupe', 'prune']);
const PNPM_INSTALLERS: ReadonlySet<string> = new Set(['add', 'install', 'install-test', 'remove', 'update', 'link', 'unlink', 'rebuild', 'prune', 'dedupe']);
const BUN_INSTALLERS: ReadonlySet<string> = new Set(['add', 'install', 'remove', 'update', 'link', 'unlink', 'patch']);
/** `yarn global …` (yarn 1) commands that only print. */
const YARN_GLOBAL_QUERIES: ReadonlySet<string> = new Set(['list', 'bin', 'dir']);

/** The shell's start-up file (`pnpm setup` picks it by $SHELL), as a path known only at run time. */
const SHELL_START_UP: Word = { value: '<shell start-up file>', raw: '<the shell\'s start-up file: ~/.bashrc, ~/.zshrc, fish\'s config.fish…>', isStatic: false, ansi: false };

export function globalInstall(name: 'npm' | 'pnpm' | 'yarn' | 'bun', args: readonly Word[], out: FileFacts): void {
  if (writesGlobally(name, args) || replacesItself(name, args)) pushPath(out.paths, pathOf(GLOBAL_PREFIX, 'write', null));
  if (name === 'pnpm' && pnpmCommand(args) === 'setup') pushPath(out.paths, pathOf(SHELL_START_UP, 'write', null));
}

function pnpmCommand(args: readonly Word[]): string | undefined {
  const at = pnpmCommandAt(args);
  const word = at >= 0 && args[at]!.isStatic ? args[at]!.value : undefined;
  return word !== undefined && Object.hasOwn(COMMAND_ALIASES.pnpm!, word) ? COMMAND_ALIASES.pnpm![word]! : word;
}

/**
 * Commands that replace the package manager, or install node, in the global prefix (round 27
 * review R27-10): `pnpm setup` (which also appends PNPM_HOME to PATH in the shell's start-up file:
 * pnpm 9.15.9 wrote ~/.bashrc), `pnpm self-update`, `pnpm env use|add|remove --global V` (node in
 * PNPM_HOME), `bun upgrade` (~/.bun/bin/bun).
 */
function replacesItself(name: 'npm' | 'pnpm' | 'yarn' | 'bun', args: readonly Word[]): boolean {
  const statics = args.map((word) => (word.isStatic ? word.value : '\u0000'));
  if (name === 'bun') return statics[commandAt(statics, globalValueOptions('bun'))] === 'upgrade';
  if (name !== 'pnpm') return false;
  const command = pnpmCommand(args);
  if (command === 'setup' || command === 'self-update') return true;
  return command === 'env' && optionWords(statics).some((v) => isGlobal('pnpm', v, statics));
}

function writesGlobally(name: 'npm' | 'pnpm' | 'yarn' | 'bun', args: readonly Word[]): boolean {
  const statics = args.map((word) => (word.isStatic ? word.value : '\u0000'));
  if (name === 'yarn') {
    const at = commandAt(statics, globalValueOptions('yarn'));
    const sub = statics.slice(at + 1).find((word) => !word.startsWith('-'));
    return statics[at] === 'global' && (sub === undefined || !YARN_GLOBAL_QUERIES.has(sub));
  }
  if (name === 'bun') {
    const at = commandAt(statics, new Set());
    const word = statics[at];
    const command = word !== undefined && Object.hasOwn(COMMAND_ALIASES.bun!, word) ? COMMAND_ALIASES.bun![word]! : word;
    if (command === undefined || !BUN_INSTALLERS.has(command)) return false;
    // `bun link` in a package registers it and links its bins into ~/.bun/bin.
    if (command === 'link' && !statics.slice(at + 1).some((w) => !w.startsWith('-'))) return true;
    return optionWords(statics).some((v) => /^--global(=|$)/.test(v) || /^-[A-Za-z]*g/.test(v));
  }
  const at = name === 'npm' ? npmCommandAt(args) : pnpmCommandAt(args);
  const word = at >= 0 ? statics[at]! : undefined;
  const command = word === undefined ? undefined : name === 'npm' ? npmCommand(word) : Object.hasOwn(COMMAND_ALIASES.pnpm!, word) ? COMMAND_ALIASES.pnpm![word]! : word;
  // A command word known only at run time is code already (package-managers.ts npm, program.ts pnpmFallback).
  if (command === undefined || command === null || !(name === 'npm' ? NPM_INSTALLERS : PNPM_INSTALLERS).has(command)) return false;
  // `npm link` with or without a package links into the global prefix first (npm-link(1)).
  if (name === 'npm' && command === 'link') return true;
  return optionWords(statics).some((v, i, words) => isGlobal(name, v, words, i));
}

/** The first word that is no option (a value option taking the next word), or the length. */
function commandAt(statics: readonly string[], values: ReadonlySet<string>): number {
  let i = 0;
  while (i < statics.length && statics[i]!.startsWith('-') && statics[i] !== '--') i += values.has(statics[i]!) ? 2 : 1;
  return statics[i] === '--' ? i + 1 : i;
}

/** The words before `--` (options anywhere: nopt and bun read the whole line). */
function optionWords(statics: readonly string[]): string[] {
  const end = statics.indexOf('--');
  return end === -1 ? statics.slice() : statics.slice(0, end);
}

/**
 * An npm or pnpm option word nopt reads as `global` (`-g`, `---global`, `-gf`; `--glob` is a prefix
 * of `globalconfig` too, which nopt leaves unread) or as `location` (or a prefix) with the value
 * `global` or one known only at run time. `--local` is `--no-global`, `--local=false` global.
 */
function isGlobal(name: 'npm' | 'pnpm', v: string, words: readonly string[], i = -1): boolean {
  if (!v.startsWith('-') || v === '-' || v === '--') return false;
  const bare = v.replace(/^-+/, '').replace(/=.*$/s, '');
  // nopt expands `--local` to `--no-global` and negates a value given to it again: `--local=false`
  // (or `--local false`) is global (npm 11.19.1 installed into the global prefix; round 27 review
  // R27-3). Any value counts (fail closed); a bare `--local` is not global.
  if (/^(no-)*local$/i.test(bare)) return v.includes('=') || (i >= 0 && /^(true|false)$/i.test(words[i + 1] ?? ''));
  const keys = noptKeys(v, name === 'npm' ? NPM_OPTIONS.short : PNPM_SHORTHANDS).map((key) => key.replace(/^(no-)+/i, '').toLowerCase());
  if (keys.includes('global')) return booleanValue(v, words, i);
  if (!keys.some((key) => key.length >= 3 && 'location'.startsWith(key))) return false;
  const eq = v.indexOf('=');
  const value = eq !== -1 ? v.slice(eq + 1) : i >= 0 ? words[i + 1] : '\u0000';
  return value === undefined || value === '\u0000' || value === 'global';
}

/**
 * The value nopt gives a Boolean key word (nopt-lib.js parse): `--KEY=V` is split into `--KEY V`, and
 * a next word that is exactly `true` or `false` is taken as the value (`--global=false`, `--global
 * false`, `-g=false` are a local install: npm 11.19.1 linked the bin into node_modules/.bin, not the
 * global prefix; round 28); any other value leaves the key true and becomes an operand
 * (`--global=0`, `--global=False` are global). An odd number of `no-` negates it (`--no-global=false`
 * is global). Shorthand letters bundled (`-gf=false`) give the value to the last one: counted
 * global (fail closed).
 */
function booleanValue(v: string, words: readonly string[], i: number): boolean {
  const eq = v.indexOf('=');
  const name = v.replace(/^-+/, '').replace(/=.*$/s, '');
  if (/^-[^-]/.test(v) && name.length > 1) return true;
  const next = eq !== -1 ? v.slice(eq + 1) : i >= 0 ? words[i + 1] : undefined;
  const value = next !== 'false';
  const negated = ((/^(no-)*/i.exec(name)?.[0].length ?? 0) / 3) % 2 === 1;
  return negated ? !value : value;
}

/** Where `cargo install` puts its bins: `--root`, else a place known only at run time. */
const CARGO_ROOT: Word = { value: '<cargo install root>', raw: '<cargo\'s install root, $CARGO_HOME/bin>', isStatic: false, ansi: false };

/**
 * `cargo install` and `cargo uninstall` write (remove) bins in the install root, which without
 * `--root` is CARGO_INSTALL_ROOT, `install.root` or $CARGO_HOME, by default ~/.cargo — whose bin
 * directory rustup puts first on PATH, beside cargo and rustc themselves (cargo-install(1); cargo
 * 1.95 installed into $CARGO_HOME/bin, round 27 review R27-8). `--root DIR` is read where options'
 * paths are (candidates.ts); `cargo install --list` only prints.
 */
export function cargoInstall(args: readonly Word[], out: FileFacts): void {
  const at = cargoCommandAt(args);
  if (at < 0) return;
  const command = cargoCommand(args[at]!.value);
  if (command !== 'install' && command !== 'uninstall') return;
  const statics = optionWords(args.map((word) => (word.isStatic ? word.value : '\u0000')));
  if (statics.some((word) => word === '--list')) return;
  if (statics.some((word) => word === '--root' || word.startsWith('--root='))) return;
  pushPath(out.paths, pathOf(CARGO_ROOT, 'write', null));
}
