import { NPM_OPTIONS } from '../../programs.js';
/**
 * The npm command a word names, as npm itself reads it (npm 11.19.1, lib/utils/cmd-list.js `deref`):
 * the word exactly, else an alias (`x` is exec, `rum` run, `i` install), else any unambiguous prefix
 * of a command or an alias (`exe` is exec, `pub` publish, `confi` config), that alias followed; a
 * camelCase word is read in kebab-case first (`runScript` is run-script, so run). Round 21 review
 * (review-bypass21 B4): the analyser and the rules read the word as written, so `npm exe -- rm -rf x`
 * ran rm past `Bash(rm *)` and `npm rum deploy` past `Bash(npm run deploy *)`
 * (docs/threat-model.md, "Round 21: the command a word names").
 *
 *   npmCommand('exe') → 'exec'   npmCommand('ex') → null (exec, explain, explore)   npmCommand('isnt') → 'install'
 */

/** npm 11.19.1's commands (lib/commands). */
const COMMANDS: readonly string[] = [
  'access', 'adduser', 'approve-scripts', 'audit', 'bugs', 'cache', 'ci', 'completion', 'config', 'dedupe', 'deny-scripts',
  'deprecate', 'diff', 'dist-tag', 'docs', 'doctor', 'edit', 'exec', 'explain', 'explore', 'find-dupes', 'fund', 'get', 'help',
  'help-search', 'init', 'install', 'install-ci-test', 'install-scripts', 'install-test', 'link', 'll', 'login', 'logout', 'ls',
  'org', 'outdated', 'owner', 'pack', 'ping', 'pkg', 'prefix', 'profile', 'prune', 'publish', 'query', 'rebuild', 'repo',
  'restart', 'root', 'run', 'sbom', 'search', 'set', 'shrinkwrap', 'stage', 'star', 'stars', 'start', 'stop', 'team', 'test',
  'token', 'trust', 'undeprecate', 'uninstall', 'unpublish', 'unstar', 'update', 'version', 'view', 'whoami',
];

/** npm 11.19.1's aliases, short names and typos (each resolves to a command). */
const ALIASES: Readonly<Record<string, string>> = {
  author: 'owner', home: 'docs', issues: 'bugs', info: 'view', show: 'view', find: 'search', add: 'install', unlink: 'uninstall',
  remove: 'uninstall', rm: 'uninstall', r: 'uninstall', un: 'uninstall', rb: 'rebuild', list: 'ls', ln: 'link', create: 'init',
  i: 'install', it: 'install-test', cit: 'install-ci-test', u: 'update', up: 'update', c: 'config', s: 'search', se: 'search',
  tst: 'test', t: 'test', ddp: 'dedupe', v: 'view', 'run-script': 'run', 'clean-install': 'ci', 'clean-install-test': 'install-ci-test',
  x: 'exec', why: 'explain', la: 'll', verison: 'version', ic: 'ci', innit: 'init', in: 'install', ins: 'install', inst: 'install',
  insta: 'install', instal: 'install', isnt: 'install', isnta: 'install', isntal: 'install', isntall: 'install', 'install-clean': 'ci',
  'isntall-clean': 'ci', hlep: 'help', 'dist-tags': 'dist-tag', upgrade: 'update', udpate: 'update', rum: 'run', sit: 'install-ci-test',
  urn: 'run', ogr: 'org', 'add-user': 'adduser',
};

const NAMES: readonly string[] = [...COMMANDS, ...Object.keys(ALIASES)];

/** The command npm runs for `word`, or null when npm knows none (it then prints "Unknown command" and runs nothing). */
export function npmCommand(word: string): string | null {
  let name = /[A-Z]/.test(word) ? word.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`) : word;
  if (COMMANDS.includes(name)) return name;
  if (Object.hasOwn(ALIASES, name)) return ALIASES[name]!;
  // The `abbrev` package: a word is its own abbreviation; a shorter prefix only when no other name starts with it.
  if (!NAMES.includes(name)) {
    const named = NAMES.filter((candidate) => candidate.startsWith(name));
    if (name === '' || named.length !== 1) return null;
    name = named[0]!;
  }
  while (Object.hasOwn(ALIASES, name)) name = ALIASES[name]!;
  return name;
}

/**
 * How many words npm's option at `args[i]` takes before its command word, read as nopt reads it
 * (programs.ts NPM_OPTIONS): 1, or 2 when it takes the next word (`--cache DIR`, `-C DIR`); null
 * when the words cannot be read alike by every part of the gateway: a key not known here followed
 * by a word (nopt takes any unambiguous prefix of a key: `--regis URL` is the registry, `--glob x`
 * is global and x the command), a Boolean key before `true`/`false` (`--global false exec`), a
 * one-dash long name (`-cache DIR`), letters run together (`-gC DIR`), a value option before a word
 * starting with `-`. The caller makes such a command unanalysable (round 21 late review L1: `npm
 * --cache /tmp/c exec -- rm -rf victim` ran rm under `Bash(npm:*)` past `Bash(rm *)`).
 */
export function npmOptionWords(args: readonly { value: string; isStatic: boolean }[], i: number): 1 | 2 | null {
  const word = args[i]!.value;
  if (word.includes('=')) return 1;
  const next = args[i + 1];
  const after = next === undefined ? null : next.isStatic ? next.value : '\u0000';
  const double = word.startsWith('--');
  let key = word.replace(/^-+/, '');
  const free = after === null || after.startsWith('-') ? 1 : null;
  if (double) {
    if (key.length === 1) return free; // `--g x`: not a form to lean on
    if (Object.hasOwn(NPM_OPTIONS.short, key)) key = NPM_OPTIONS.short[key]!; // `--reg`, `--silent`, `--ws`
  } else {
    if (!Object.hasOwn(NPM_OPTIONS.short, key)) return free; // `-cache DIR` (nopt: --cache), `-gC DIR` (-g -C DIR)
    const long = NPM_OPTIONS.short[key]!;
    if (key.length > 1 && NPM_OPTIONS.value.has(long)) return null; // `-reg URL`: nopt's --registry, a flag to the rest
    key = long;
  }
  if (key === '') return 1;
  if (key.startsWith('no-') && (NPM_OPTIONS.boolean.has(key.slice(3)) || NPM_OPTIONS.nullable.has(key.slice(3)))) key = key.slice(3);
  if (NPM_OPTIONS.value.has(key)) return after === null ? 1 : after === '\u0000' || after.startsWith('-') ? null : 2;
  // A Boolean key takes a following `true`/`false` (`null` too for [null, Boolean]; `always` for
  // color): nopt's reading, not the rest of the gateway's (which would take `false` for the command).
  const taken = NPM_OPTIONS.boolean.has(key) ? ['true', 'false'] : NPM_OPTIONS.nullable.has(key) ? ['true', 'false', 'null'] : key === 'color' ? ['true', 'false', 'always'] : null;
  if (taken) return after !== null && taken.includes(after) ? null : 1;
  return after === null || after.startsWith('-') ? 1 : null;
}
