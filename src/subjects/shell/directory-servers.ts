import { RECURSIVE } from '../../policy/decide.js';
import type { CommandPath } from '../../policy/types.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * Web servers that hand out every file below a directory (round 32 review R32-8; docs/threat-model.md
 * "Round 32: the review of round 31 (command rules)"): Python's `-m http.server` (`-d`/`--directory
 * D`, argparse's abbreviations too; the working directory by default; Python 2's SimpleHTTPServer),
 * PHP's built-in server `php -S ADDR [-t DOCROOT]`, busybox's `httpd [-h HOME]`. Started in the
 * background, a later `curl http://127.0.0.1:8000/.ssh/id_rsa` — a URL, no file — printed what
 * `Read(~/.ssh/**)` denies (Python 3.11's http.server with `-d ~`). So the directory is a recursive
 * read, as `tar c DIR` is (R31-6): a deny or ask rule matching a file below it makes it ask; outside
 * the workspace it asks in default. The server follows links below it.
 */
export function servedDirectories(name: string, args: readonly Word[], cwd: string | null): CommandPath[] {
  let dirs: Word[];
  if (/^(python[\d.]*|pypy[\d.]*)$/.test(name)) dirs = once(pythonServer(args));
  else if (name === 'php') dirs = once(phpServer(args));
  else if (name === 'httpd') dirs = [optionValue(args, /^-h$/) ?? staticWord('.')];
  else if (name === 'serve' || name === 'http-server') dirs = nodeServer(args);
  else if (name === 'rsync') dirs = args.some((word) => !word.isStatic || word.value === '--daemon') ? [unknownModules] : [];
  else dirs = [];
  const paths: CommandPath[] = [];
  for (const dir of dirs) {
    const path = pathOf(dir, 'read', cwd, RECURSIVE);
    if (path) path.tree = { content: true, follows: true };
    pushPath(paths, path);
  }
  return paths;
}

const once = (word: Word | null | undefined): Word[] => (word ? [word] : []);

/**
 * Round 33 (rules33): the npm packages of the same kind, `serve [DIR]` (vercel's; its `serve.json`
 * in DIR is the project's configuration, as vite's config is) and `http-server [DIR]` (`./public`
 * when there is one, else `.`: the working directory covers both); and `rsync --daemon`, whose
 * modules are directories its configuration names (`/etc/rsyncd.conf`, or `--config=F`, read:
 * R32-9), known only at run time: it asks (in bypassPermissions while deny or ask rules exist).
 */
const unknownModules: Word = { value: '<the directories an rsync daemon serves>', raw: '<the directories an rsync daemon serves>', isStatic: false, ansi: false };

/** serve's and http-server's options known to take the next word (`serve --help`, `http-server --help`). */
const NODE_SERVER_VALUES = /^(?:-[lpacePCKt]|--(?:listen|port|config|ssl-cert|ssl-key|ssl-pass|proxy|proxy-options|cert|key|username|password|mimetypes|ext|address|base-dir))$/;

/**
 * The directories `serve`/`http-server` may hand out: each operand, else the working directory.
 * They read their arguments with minimist/arg, where an option not declared a flag takes the next
 * word: an operand after an option not known here may be its value, so the working directory counts
 * then too (a port read as a directory that is not there reads nothing).
 */
function nodeServer(args: readonly Word[]): Word[] {
  const dirs: Word[] = [];
  let here = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word.isStatic && word.value.startsWith('-') && word.value !== '-') {
      if (word.value !== '--' && NODE_SERVER_VALUES.test(word.value)) i++;
      continue;
    }
    const previous = args[i - 1];
    if (previous !== undefined && (!previous.isStatic || (previous.value.startsWith('-') && !previous.value.includes('=') && previous.value !== '--'))) here = true;
    dirs.push(word); // an operand, or a word known only at run time: may name any directory
  }
  if (dirs.length === 0 || here) dirs.push(staticWord('.'));
  return dirs;
}

/** `python -m http.server [--directory D] …`: D (the working directory by default); undefined when it runs no server. */
function pythonServer(args: readonly Word[]): Word | undefined {
  const at = args.findIndex((word, i) => word.isStatic && (word.value === '-m' ? /^(http\.server|SimpleHTTPServer)$/.test(args[i + 1]?.value ?? '') : /^-m(http\.server|SimpleHTTPServer)$/.test(word.value)));
  if (at === -1) return undefined;
  const rest = args.slice(args[at]!.value === '-m' ? at + 2 : at + 1);
  // argparse: `-d D`, `-dD`, `--directory D`, `--directory=D` and any unambiguous prefix (`--dir`).
  return optionValue(rest, /^(-d|--d(i(r(e(c(t(o(ry?)?)?)?)?)?)?)?)$/) ?? staticWord('.');
}

/** `php -S ADDR [-t DOCROOT]`: DOCROOT (the working directory by default); undefined without -S. */
function phpServer(args: readonly Word[]): Word | undefined {
  if (!args.some((word) => word.isStatic && /^-S/.test(word.value))) return undefined;
  return optionValue(args, /^-t$/) ?? staticWord('.');
}

/** The value of the last option matching `name` (`-d D`, `-dD` for a one-letter one, `--opt=D`); null when none. */
function optionValue(args: readonly Word[], name: RegExp): Word | null {
  let found: Word | null = null;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) continue;
    const eq = word.value.indexOf('=');
    if (word.value.startsWith('--') && eq > 0 && name.test(word.value.slice(0, eq))) found = { ...word, value: word.value.slice(eq + 1), raw: word.value.slice(eq + 1) };
    else if (name.test(word.value) && args[i + 1]) found = args[++i]!;
    else if (/^-[a-zA-Z]./.test(word.value) && name.test(word.value.slice(0, 2))) found = { ...word, value: word.value.slice(2), raw: word.value.slice(2) };
  }
  return found;
}
