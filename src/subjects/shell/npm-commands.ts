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
