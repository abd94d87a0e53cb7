import type { Access, CommandPath } from '../../policy/types.js';
import { CLIS, ghCommandPath } from '../../programs.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';
import { commandWordIndex, groupVerbIndex } from './signature.js';

/**
 * Commands of the CLIs in programs.ts CLIS whose operands are local files (round 28 review R28-4).
 * A CLI's operands are no deny candidates (candidates.ts takes its option values only, since its
 * words are mostly names), so these are read here: each is a read or a write of the path, as any
 * modelled program's (deny rules meet it; outside the workspace it asks in default mode).
 *
 *   gh gist create FILE…, gh release create|upload TAG FILE[#label]…, gh ssh-key|gpg-key add FILE
 *     gh 2.23 opened each and sent it to GitHub (`gh gist create .env` POSTed it to /gists)
 *   gh repo clone REPO DIR, gh gist clone GIST DIR       DIR made, as `git clone`'s
 *   gh codespace cp, docker|podman [container] cp, docker compose cp, kubectl cp   local operands
 *     (no `NAME:` before a path): the last one written, the others read
 *   docker|podman secret|config create NAME FILE, docker|podman import FILE      FILE read
 *   pip|pip3|pipx install PATH, uv add PATH, uv pip install PATH   a local package: its setup.py
 *     runs (pip 23.2 ran it)
 *   go run|build|test|vet|generate|install ./PKG          the code there built and run
 *   cargo new|init DIR                                     DIR made
 */
type Rule = { from?: number; access: 'read' | 'write' | 'copy' | 'second-write'; local?: 'path' | 'colon'; tree?: boolean };

const GH_FILES: Record<string, Rule> = {
  'gist create': { access: 'read' },
  'release create': { from: 1, access: 'read' },
  'release upload': { from: 1, access: 'read' },
  'ssh-key add': { access: 'read' },
  'gpg-key add': { access: 'read' },
  'repo clone': { access: 'second-write' },
  'gist clone': { access: 'second-write' },
  'codespace cp': { access: 'copy', local: 'colon' },
  'cs cp': { access: 'copy', local: 'colon' },
};
const CONTAINER_FILES: Record<string, Rule> = {
  cp: { access: 'copy', local: 'colon' },
  'container cp': { access: 'copy', local: 'colon' },
  'compose cp': { access: 'copy', local: 'colon' },
  'secret create': { from: 1, access: 'read' },
  'config create': { from: 1, access: 'read' },
  import: { access: 'read', local: 'path' },
  'image import': { access: 'read', local: 'path' },
};
const PIP_FILES: Record<string, Rule> = { install: { access: 'read', local: 'path', tree: true } };
const FILES: Record<string, Record<string, Rule>> = {
  gh: GH_FILES,
  docker: CONTAINER_FILES,
  podman: CONTAINER_FILES,
  'docker-compose': { cp: { access: 'copy', local: 'colon' } },
  kubectl: { cp: { access: 'copy', local: 'colon' } },
  pip: PIP_FILES,
  pip3: PIP_FILES,
  pipx: PIP_FILES,
  uv: { add: { access: 'read', local: 'path', tree: true }, 'pip install': { access: 'read', local: 'path', tree: true } },
  go: Object.fromEntries(['run', 'build', 'test', 'vet', 'generate', 'install'].map((verb) => [verb, { access: 'read', local: 'path', tree: true } as Rule])),
  cargo: { new: { access: 'write' }, init: { access: 'write' } },
};

/** A word spelled as a local path (`./x`, `../x`, `/x`, `~/x`, `x/y`), not a URL or a package name. */
const spelledAsPath = (value: string): boolean => /^(\.{1,2}(\/|$)|\/|~(\/|$))/.test(value) || (value.includes('/') && !/^[A-Za-z][\w+.-]*:/.test(value) && !value.includes('@'));

export function cliOperandPaths(name: string, args: readonly Word[], cwd: string | null): CommandPath[] {
  const table = Object.hasOwn(FILES, name) ? FILES[name]! : null;
  if (table === null) return [];
  const statics = args.map((word) => (word.isStatic ? word.value : '\u0000'));
  // A dangerous global option (`docker -H h`, `cargo --config k=v`) is decided elsewhere; the operands count still (round 29).
  // gh: its command words as cobra finds them, a command's own flags before its name included (`gh
  // release -t T create v1 F`; programs.ts ghCommandPath, round 30).
  const ghPath = name === 'gh' ? ghCommandPath(statics) : null;
  const at = ghPath ? (ghPath[0] ?? -1) : commandWordIndex(name, statics);
  if (at < 0) return [];
  // The command words: the subcommand, and a group's verb (`gh gist create`, `docker container cp`,
  // `uv pip install`), past the group's value options: cobra takes a parent's flags before the verb
  // (`gh release -R o/r upload v1 .env` stat'ed .env to upload it, gh 2.23; round 29).
  const spec = Object.hasOwn(CLIS, name) ? CLIS[name]! : undefined;
  const groups = spec?.groups ?? [];
  let verbAt = -1;
  if (ghPath) verbAt = ghPath[1] ?? -1;
  else if (groups.includes(statics[at]!) || (name === 'uv' && statics[at] === 'pip')) verbAt = groupVerbIndex(spec?.groupValue ?? [], statics, at + 1);
  const key = verbAt === -1 ? statics[at]! : `${statics[at]} ${statics[verbAt]}`;
  if (ghPath) {
    const read = ghOptionFiles(key, args, (verbAt === -1 ? at : verbAt) + 1, cwd);
    if (read.length > 0) return [...read, ...cliRulePaths(table, key, args, at, verbAt, cwd, name)];
  }
  return cliRulePaths(table, key, args, at, verbAt, cwd, name);
}

/**
 * gh's options whose value is a file it reads and sends to GitHub (gh's manual, each command's
 * flags): a body or notes file (`pr create --body-file F`, `-F F`), `api --input F` and `api -F
 * KEY=@F` ("a value starting with @ is read from that file"), `secret set|variable set -f F` (a
 * dotenv file of values), `gist edit -a F`. Reads, as the operands above (round 30); `-` is stdin.
 */
const GH_FILE_OPTIONS: Record<string, { long: string[]; short: string; at?: true }> = {
  ...Object.fromEntries(['pr create', 'pr edit', 'pr comment', 'pr review', 'pr merge', 'issue create', 'issue edit', 'issue comment'].map((key) => [key, { long: ['--body-file'], short: 'F' }])),
  'release create': { long: ['--notes-file'], short: 'F' },
  'release edit': { long: ['--notes-file'], short: 'F' },
  'secret set': { long: ['--env-file'], short: 'f' },
  'variable set': { long: ['--env-file'], short: 'f' },
  'gist edit': { long: ['--add'], short: 'a' },
  api: { long: ['--input'], short: '' },
};

function ghOptionFiles(key: string, args: readonly Word[], from: number, cwd: string | null): CommandPath[] {
  const spec = Object.hasOwn(GH_FILE_OPTIONS, key) ? GH_FILE_OPTIONS[key]! : null;
  if (spec === null) return [];
  const paths: CommandPath[] = [];
  const add = (word: Word | undefined): void => {
    if (word === undefined || (word.isStatic && (word.value === '-' || word.value === ''))) return;
    pushPath(paths, pathOf(word, 'read', cwd));
  };
  for (let i = from; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic || !word.value.startsWith('-') || word.value === '-') continue;
    if (word.value === '--') break;
    const eq = word.value.indexOf('=');
    const name = word.value.startsWith('--') && eq !== -1 ? word.value.slice(0, eq) : word.value;
    const attached = word.value.startsWith('--') ? (eq !== -1 ? word.value.slice(eq + 1) : undefined) : word.value.length > 2 ? word.value.slice(2) : undefined;
    const short = !word.value.startsWith('--') ? word.value[1]! : '';
    const value = (): Word | undefined => (attached !== undefined ? { ...word, value: attached.replace(/^=/, ''), raw: attached } : args[i + 1]);
    if (spec.long.includes(name) || (short !== '' && spec.short.includes(short))) add(value());
    // `gh api -F key=@file` / `--field key=@file`: the value read from that file.
    if (key === 'api' && (name === '--field' || short === 'F')) {
      const field = value();
      const at = field?.isStatic ? field.value.indexOf('=@') : -1;
      if (field && !field.isStatic) add(field);
      else if (field && at !== -1) add({ ...field, value: field.value.slice(at + 2), raw: field.value.slice(at + 2) });
    }
  }
  return paths;
}

function cliRulePaths(table: Record<string, Rule>, key: string, args: readonly Word[], at: number, verbAt: number, cwd: string | null, name: string): CommandPath[] {
  const rule = Object.hasOwn(table, key) ? table[key]! : null;
  if (rule === null) return [];
  // The operands past the command words, up to none after `--` being read otherwise (cobra and pip take flags anywhere).
  const start = (verbAt === -1 ? at : verbAt) + 1;
  const operands: Word[] = [];
  for (let i = start; i < args.length; i++) {
    const word = args[i]!;
    if (word.isStatic && word.value === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!word.isStatic || !word.value.startsWith('-') || word.value === '-') operands.push(word);
  }
  const files = operands.slice(rule.from ?? 0).filter((word) => !(word.isStatic && word.value === '-'));
  const paths: CommandPath[] = [];
  const add = (word: Word, access: Access, tree = false): void => {
    // `gh release upload v1 FILE#label`: the label is not part of the file's name.
    const file = name === 'gh' && word.isStatic && word.value.includes('#') ? staticWord(word.value.slice(0, word.value.lastIndexOf('#'))) : word;
    const path = pathOf(file, access, cwd);
    if (path && tree) path.tree = { content: true, follows: false };
    pushPath(paths, path);
  };
  const local = (word: Word): boolean => !word.isStatic || (rule.local === 'colon' ? !/^[^/]*:/.test(word.value) : rule.local === 'path' ? spelledAsPath(word.value) : true);
  if (rule.access === 'second-write') {
    if (files[1]) add(files[1], 'write');
    return paths;
  }
  files.forEach((word, i) => {
    if (!local(word)) return;
    if (rule.access === 'copy') add(word, i === files.length - 1 ? 'write' : 'read');
    else add(word, rule.access === 'write' ? 'write' : 'read', rule.tree);
  });
  return paths;
}
