/**
 * Path canonicalisation for permission checks. Every path argument goes through `canonicalPath`
 * before any rule sees it, so a deny rule cannot be dodged by spelling and an allow rule cannot be
 * earned by it.
 *
 * Two forms come out. `realPath` is where the kernel lands: components are looked up from the
 * root in order, a symlink is followed when met, and `..` applies to what has been resolved so far
 * (so `link/..` is the parent of the link's *target*). `path` is the lexical form (`..` removed
 * textually), kept because it is what the caller wrote and what a logical `cd` does; deny rules
 * match either, allow rules need both. docs/threat-model.md says why.
 *
 * Worked example, project `/w/proj` containing `link -> /etc` and a dangling `new -> /etc/cron.d/x`:
 *
 *   canonicalPath('link/passwd', '/w/proj', env)   → path /w/proj/link/passwd, realPath /etc/passwd
 *   canonicalPath('link/../x', '/w/proj', env)     → path /w/proj/x,           realPath /x
 *   canonicalPath('new', '/w/proj', env)           → path /w/proj/new,         realPath /etc/cron.d/x
 *   canonicalPath('~/.ssh/id_rsa', null, env)       → path /home/me/.ssh/id_rsa (no base needed)
 *   canonicalPath('file:///w/proj/%2e%2e/x', …)     → path /w/x
 *   canonicalPath('~root/.ssh', …) / 'C:\\x' / NUL  → path null, problem set (the caller asks)
 *
 * Cost: one realpath(3) per path (one readlink per component in glibc), and when a component is
 * missing one lstat per component plus one readlink per link met; results are cached per call, and
 * a name below a directory already walked in the call costs one lstat (walkFromParent). In a
 * decision, a path whose last name is not a link is that name's lstat and its directory's realpath
 * (fromParentRealpath).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expandHome, isHomePath } from '../home.js';
import { isPlainAbsolute } from '../plain-path.js';
import { DiskLookups } from './disk-lookups.js';

/** Where `~` points and which path rules apply; injected so tests can run win32 logic on POSIX. */
export interface PathEnv {
  home: string;
  platform: NodeJS.Platform;
  /** Why `~` cannot be expanded here (the server's home is not known): a path starting with it is a problem. */
  homeUnknown?: string;
}

/** The running process's home directory and platform. */
export function defaultPathEnv(): PathEnv {
  return { home: os.homedir(), platform: process.platform };
}

/**
 * A canonicalised path. `path` is absolute and normalised (lexical); `realPath` has every symlink
 * resolved, including a dangling leaf. Both are null, and `problem` says why, when the input cannot
 * be trusted as a local path (NUL byte, `~user`, UNC, Windows drive on POSIX, symlink loop, …).
 */
export interface CanonicalPath {
  input: string;
  path: string | null;
  realPath: string | null;
  problem?: string;
}

/** Linux's own limit on symlink hops (MAXSYMLINKS); a longer chain is treated as a loop. */
const MAX_SYMLINK_HOPS = 40;

/** `scheme://` other than `file:` — a URL, not a local path. Two letters minimum, so `C://x` stays a drive path. */
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:\/\//;

/** Windows 8.3 short name component (`PROGRA~1`, `SECRET~1.TXT`): may alias a long name a rule names. */
const SHORT_NAME = /^[^~.\\/]{1,6}~\d+(\.[^.\\/]{0,3})?$/;

function pathApi(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

function problemOf(input: string, problem: string, lexical: string | null = null): CanonicalPath {
  return { input, path: lexical, realPath: null, problem };
}

/**
 * Turns a path argument into an absolute, normalised lexical path and its kernel-order real path.
 * Relative inputs resolve against `base` (which may itself start with `~`); with `base` null they
 * are a problem. Never throws: anything unexpected becomes `problem`, with the fields it got so far.
 * `onDisk`: the path is expected to exist (a directory the call runs in), which only makes the
 * lookup cheaper when it does (resolveSymlinks).
 */
export function canonicalPath(input: string, base: string | null, env: PathEnv, cache?: RealPathCache, plain = false, onDisk = false): CanonicalPath {
  let lexical: string | null = null;
  try {
    const lex = lexicalOf(input, base, env, cache, plain);
    if (!('joined' in lex)) return lex;
    lexical = lex.lexical;
    // Security: FS calls only make sense for the platform we run on; tests pass `win32` on POSIX
    // to exercise the lexical rules, and then the lexical path is the best real path we have.
    if (env.platform !== process.platform) return { input, path: lexical, realPath: lexical };
    // Windows applies `..` lexically before the filesystem sees the path; POSIX kernels do not.
    const walked = env.platform === 'win32' ? lexical : lex.joined;
    const real = resolvedOnce(walked, env, cache, onDisk);
    if (typeof real !== 'string') return { input, path: lexical, realPath: real.realPath ?? null, problem: real.problem };
    if (walked !== lexical && DOT_DOT.test(walked)) {
      const twice = twoReadings(input, lexical, real, env, cache);
      if (twice) return { input, path: lexical, realPath: real, problem: twice };
    }
    return { input, path: lexical, realPath: real };
  } catch (error) {
    return problemOf(String(input), `could not canonicalise: ${messageOf(error)}`, lexical);
  }
}

/** fromParentRealpath's answer for a name not on disk. */
const MISSING = false;

/** The walk of `walked`, once per decision: from a directory it walked when it has one (walkFromParent). */
function resolvedOnce(walked: string, env: PathEnv, cache?: RealPathCache, onDisk = false): Resolved {
  let real = cache?.get(walked);
  if (real === undefined) {
    const found = cache instanceof DecisionPaths && env.platform === 'linux' ? (walkFromParent(walked, cache) ?? fromParentRealpath(walked, cache)) : undefined;
    real = typeof found === 'string' ? found : resolveSymlinks(walked, env.platform, onDisk, found === MISSING);
    cache?.set(walked, real);
  }
  return real;
}

/**
 * The real path of `walked` when its last name is a file or directory, not a link: its directory's
 * realpath(3) with the name appended, which is what realpath of the whole gives (glibc joins the
 * names as written; Linux only, as walkFromParent). The name's lstat replaces resolveSymlinks'
 * stat of the whole and realpath's readlink of the last name, and is the decision's stat of a read
 * target (F32-5's link count: DiskLookups.stat answers from it): one lookup where there were three
 * (docs/performance.md, "Round 33: a new text's decision"). Undefined, and resolveSymlinks decides,
 * when the last name is `.`, `..` or empty, is a link, cannot be looked at, or the path may pass
 * through a process's view (PROCESS_NAME); MISSING when there is no such name (nor then does stat
 * find one: the walk goes on without it).
 */
function fromParentRealpath(walked: string, paths: DecisionPaths): string | typeof MISSING | undefined {
  const slash = walked.lastIndexOf('/');
  const name = walked.slice(slash + 1);
  if (slash < 0 || name === '' || name === '.' || name === '..' || PROCESS_NAME.test(walked)) return undefined;
  let stat: fs.Stats | undefined;
  try {
    stat = paths.disk.lstat(walked);
  } catch {
    return undefined;
  }
  if (stat === undefined) return MISSING;
  if (stat.isSymbolicLink()) return undefined;
  const parent = slash === 0 ? '/' : walked.slice(0, slash);
  let real: string;
  try {
    real = fs.realpathSync.native(parent);
  } catch {
    return undefined;
  }
  const path = real === '/' ? `/${name}` : `${real}/${name}`;
  if (path !== walked) paths.disk.know(path, stat);
  return path;
}

/**
 * `/proc/self`, `/proc/thread-self`, `/proc/<pid>` (and `/dev/fd`, `/dev/stdin`…, links into them):
 * each process sees its own cwd, root and open files there, so their links resolve here as the
 * gateway's and at run time as the server's. Reached through a link (`pr -> /proc`, or `t -> /tmp`
 * then `t/../proc`), `cat ../pr/self/cwd/secret/key` read a Read-denied file in default mode: the
 * gateway's walk followed `/proc/self/cwd` to its own directory (round 15 review of paths, P2). A
 * walk that reaches one of them is a problem (it asks; deny rules still see where the gateway's own
 * reading leads: `/proc/self/root/etc/passwd` is `/etc/passwd`); a path whose words may be one of
 * them takes the walk (PROCESS_NAME), not realpath, which would follow them silently.
 */
const PROCESS_VIEW = /^\/proc\/(?:self|thread-self|\d+)(?:\/|$)/;
const PROCESS_NAME = /\/(?:self|thread-self|\d+|fd|stdin|stdout|stderr)(?:\/|$)/;
const PROCESS_PROBLEM = 'the path passes through /proc/self, /proc/<pid> or /dev/fd, where each process sees its own files: it resolves differently for the server';

/** A `..` component in a path as written. */
const DOT_DOT = /(?:^|\/)\.\.(?:\/|$)/;

/**
 * Why a path with `..` after a link names two files, or null: the kernel goes up from what the link
 * points to (`real`), a server that takes `..` as text first goes up from the link's own directory
 * and then follows links (server-filesystem: path.resolve, then realpath). `a/../b/key` with
 * `a -> sub/deep` and `b -> conf/secret` is the kernel's `sub/b/key` and server-filesystem's
 * `conf/secret/key` (round 15 review of paths, P1c). Which one the call's server opens is not known
 * here, so the call asks, naming both.
 */
function twoReadings(input: string, lexical: string, real: string, env: PathEnv, cache?: RealPathCache): string | null {
  const textual = resolvedOnce(lexical, env, cache);
  const other = typeof textual === 'string' ? textual : (textual.realPath ?? null);
  if (other === real) return null;
  return `${JSON.stringify(input)} names two files: the kernel, going up from where a link before ".." points, reaches ${real}; a server that takes ".." as text first (server-filesystem) opens ${other ?? 'a path that cannot be resolved'}`;
}

/** Real paths already worked out during one decision, by the absolute path walked. */
export type RealPathCache = Map<string, Resolved>;

/** A walk's end: the real path, or why it cannot be trusted (with the real path the server opens, when known). */
type Resolved = string | { problem: string; realPath?: string };

/**
 * What one decision has worked out about paths, so a path named twice (a workdir is the base of
 * the call, its command's cwd and a path subject) costs one walk and one lexical pass. Never kept
 * across decisions: a link may point elsewhere at the next call.
 */
export class DecisionPaths extends Map<string, Resolved> {
  /** Lexical forms of absolute POSIX inputs, which do not depend on the base. */
  readonly lexical = new Map<string, Lexical | CanonicalPath>();
  /** The lookups of this decision in git's directories, and of the names walkFromParent looked at (a name not there has no `HEAD` below it). */
  readonly disk = new DiskLookups();
}

type Lexical = { lexical: string; joined: string };

/**
 * An absolute path for `input` with its `..` still in place (what the kernel walks), e.g. a
 * command's working directory that later relative paths are joined to; null when it cannot be
 * made absolute.
 */
export function absolutePath(input: string, base: string | null, env: PathEnv, cache?: RealPathCache): string | null {
  const lex = lexicalOf(input, base, env, cache);
  return 'joined' in lex ? (env.platform === 'win32' ? lex.lexical : lex.joined) : null;
}

function lexicalOf(input: string, base: string | null, env: PathEnv, cache?: RealPathCache, plain = false): Lexical | CanonicalPath {
  if (!(cache instanceof DecisionPaths) || env.platform === 'win32' || typeof input !== 'string' || !input.startsWith('/')) return lexicalPath(input, base, env, plain);
  let lex = cache.lexical.get(input);
  if (lex === undefined) {
    lex = lexicalPath(input, base, env);
    cache.lexical.set(input, lex);
  }
  return lex;
}

/**
 * Reject, decode, expand, make absolute: `joined` keeps `..` and symlinks for the kernel-order
 * walk, `lexical` is normalised. No filesystem access. `plain`: a `file:` string is a path like
 * any other (what a server without URI handling reads), not a URI.
 */
function lexicalPath(input: string, base: string | null, env: PathEnv, plain = false): Lexical | CanonicalPath {
  const P = pathApi(env.platform);
  const win = env.platform === 'win32';
  if (typeof input !== 'string') return problemOf(String(input), 'path is not a string');
  if (input.includes('\0')) return problemOf(input, 'NUL byte in path');

  const early = rejectForeignForms(input, win);
  if (early) return problemOf(input, early);

  let p = input;
  if (!plain && /^file:/i.test(p)) {
    try {
      // Security: never strip `file://` by hand; fileURLToPath decodes %2e%2e and refuses %2F and remote hosts.
      p = fileURLToPath(p, { windows: win });
    } catch (error) {
      return problemOf(input, `bad file: URI: ${messageOf(error)}`);
    }
    if (p.includes('\0')) return problemOf(input, 'NUL byte in path');
    const again = rejectForeignForms(p, win);
    if (again) return problemOf(input, again);
  } else if (!plain && URL_SCHEME.test(p)) {
    return problemOf(input, 'a URL, not a local path');
  }

  const expanded = expandHomeOf(p, env);
  if (typeof expanded !== 'string') return problemOf(input, expanded.problem);
  p = expanded;

  if (win && /^[A-Za-z]:(?![\\/])/.test(p)) {
    // `C:foo` is relative to drive C's own current directory, which we cannot know.
    return problemOf(input, 'drive-relative Windows path');
  }

  let absolute: string;
  let joined: string;
  if (P.isAbsolute(p) && !(win && isDriveless(p))) {
    absolute = P.resolve(p);
    joined = p;
  } else {
    if (base === null) return problemOf(input, NO_BASE);
    const b = expandHomeOf(base, env);
    if (typeof b !== 'string') return problemOf(input, `base: ${b.problem}`);
    if (!P.isAbsolute(b) || (win && isDriveless(b))) return problemOf(input, 'relative path with a relative base');
    if (b.includes('\0')) return problemOf(input, 'NUL byte in base');
    // `\foo` on win32 takes the base's drive, which is what the server's own path.resolve does.
    absolute = P.resolve(b, p);
    joined = `${b}${P.sep}${p}`;
  }

  if (win) {
    absolute = absolute.replace(/^[a-z]:/, (d) => d.toUpperCase());
    const bad = windowsComponentProblem(absolute);
    if (bad) return problemOf(input, bad, absolute);
  }
  return { lexical: absolute, joined };
}

const NO_BASE = 'relative path with unknown base';

/** True when `input` is relative: where it lands depends on the base it is resolved against. No filesystem access. */
export function needsBase(input: string, env: PathEnv, plain = false): boolean {
  const lex = lexicalPath(input, null, env, plain);
  return !('joined' in lex) && lex.problem === NO_BASE;
}

/** Forms that are never a plain local path on this platform. */
function rejectForeignForms(p: string, win: boolean): string | null {
  // On POSIX `//./x` is just `/x`; only the backslash spelling is a Windows device path there.
  if ((win ? /^[\\/]{2}[?.][\\/]/ : /^\\\\[?.]\\/).test(p)) return 'Windows device path (\\\\?\\ or \\\\.\\)';
  // Security: UNC paths make Windows authenticate to the named host (credential leak), so ask.
  if (/^\\\\/.test(p) || (win && /^\/\/[^/]/.test(p))) return 'UNC network path';
  if (!win && /^[A-Za-z]:[\\/]/.test(p)) return 'Windows-style path on a POSIX host';
  return null;
}

/** A win32 path rooted at `\` with no drive: absolute to Node, but relative to some drive. */
function isDriveless(p: string): boolean {
  return /^[\\/](?![\\/])/.test(p);
}

/** Win32 spellings that alias other names: trailing dot/space, alternate data streams, 8.3 names. */
function windowsComponentProblem(absolute: string): string | null {
  const rest = absolute.slice(path.win32.parse(absolute).root.length);
  for (const part of rest.split(/[\\/]/)) {
    if (part === '') continue;
    if (part.includes(':')) return 'alternate data stream (name:stream) in path';
    if (/[. ]$/.test(part)) return 'path component ends with a dot or space (Windows strips it)';
    if (SHORT_NAME.test(part)) return '8.3 short name in path';
  }
  return null;
}

/** Expands `~` and `~/…` (Node's path.resolve does not); `~user` is a problem. */
function expandHomeOf(p: string, env: PathEnv): string | { problem: string } {
  if (!p.startsWith('~')) return p;
  if (isHomePath(p, env.platform) && env.homeUnknown !== undefined) return { problem: env.homeUnknown };
  if (isHomePath(p, env.platform)) return expandHome(p, env.home, env.platform);
  return { problem: '~user paths are not supported' };
}

/**
 * The kernel's own walk over an absolute path that still has its `..`: each component is
 * lstat'ed from the root; an existing symlink is replaced by its target (relative targets from the
 * link's real directory) and `..` goes up from what has been resolved. A missing component ends
 * the walk and the rest is appended as written (unless a `..` is in the rest: then the walk goes on
 * as if the missing name were a directory made before the path is used). Unlike "realpath the parent, append the basename",
 * this follows a dangling leaf link, so `proj/new -> /outside/x` reports `/outside/x`.
 *
 * Except when the missing component has a Unicode-equivalent entry (`li\u0308nk` for `l\u00efnk`, or
 * `Key` for `\u212Aey`, equal in NFC): server-filesystem then opens that entry
 * (resolveUnicodeEquivalentPath), so the walk goes on through it, and the result is a problem with
 * that real path (deny rules see it, and the call asks: the kernel and the server read the name
 * differently). docs/design.md "Paths, step by step", step 6.
 *
 * `missing`: this decision's lstat of `lexical` found no entry, so neither would stat: the walk.
 */
function resolveSymlinks(lexical: string, platform: NodeJS.Platform, onDisk = false, missing = false): Resolved {
  // Fast path, and on Windows the only way to get OS canonical case and expanded 8.3 names. A
  // missing path (a new file, a word that only may be one) goes to the walk without the thrown
  // error, which cost more than the lookups themselves (docs/performance.md, "End of round 12");
  // one expected on disk skips that stat: realpath fails with the same errors stat would.
  // A name procfs gives a process (`self`, a pid, `fd`…) may be reached through a link to `/proc`
  // or `/dev`: only the walk sees where it passes (PROCESS_VIEW).
  if (!missing && (onDisk || existsNoThrow(lexical)) && !PROCESS_NAME.test(lexical)) {
    try {
      return fs.realpathSync.native(lexical);
    } catch (error) {
      const code = codeOf(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
    }
  }

  const P = pathApi(platform);
  const root = P.parse(lexical).root;
  let resolved = root;
  const pending = splitComponents(lexical.slice(root.length), P);
  let hops = 0;
  /** Why the end of the walk cannot be trusted, once known; the walk goes on so deny rules see where it leads here. */
  let problem: string | null = null;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '.') continue;
    if (part === '..') {
      // `resolved` has no symlinks left in it, so its lexical parent is its real parent.
      resolved = P.dirname(resolved);
      continue;
    }
    let next = P.join(resolved, part);
    let stat = lstatOrNull(next);
    if (stat === null) {
      const found = unicodeEquivalents(resolved, part);
      if (found.length === 0) {
        const real = P.join(next, ...pending);
        // `nx/../b/key`: a directory the same command makes first (`mkdir nx && cat nx/../b/key`),
        // or a server that takes `..` as text, goes up from `nx` and on through the links after
        // it, so the walk goes on as if `nx` were a directory (round 15 review of paths, P1). A
        // link the command makes there instead is links-made.ts's.
        if (pending.includes('..')) {
          resolved = next;
          continue;
        }
        return problem === null ? real : { problem, realPath: real };
      }
      const why = `the name ${JSON.stringify(part)} is not on disk, but ${found.map((entry) => JSON.stringify(entry)).join(' and ')} equal to it in Unicode NFC ${found.length > 1 ? 'are' : 'is'}`;
      // server-filesystem refuses an ambiguous name; the kernel makes a new one: ask, with that reading.
      if (found.length > 1) return { problem: `${why} (which one a server opens is unknown)`, realPath: P.join(next, ...pending) };
      problem ??= `${why}: server-filesystem opens that entry, the kernel a new name`;
      next = P.join(resolved, found[0] as string);
      stat = lstatOrNull(next);
      if (stat === null) return { problem, realPath: P.join(next, ...pending) };
    }
    if (PROCESS_VIEW.test(next)) problem ??= PROCESS_PROBLEM;
    if (!stat.isSymbolicLink()) {
      resolved = next;
      continue;
    }
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) return { problem: 'too many levels of symbolic links (loop?)' };
    const target = fs.readlinkSync(next);
    if (P.isAbsolute(target)) {
      const targetRoot = P.parse(target).root;
      resolved = targetRoot;
      pending.unshift(...splitComponents(target.slice(targetRoot.length), P));
    } else {
      pending.unshift(...splitComponents(target, P));
    }
  }
  return problem === null ? resolved : { problem, realPath: resolved };
}

/**
 * The walk of `dir/a/b/name` when this decision has walked `dir`: it goes through `dir`'s
 * components as `dir`'s walk did and ends where that one did (or, when a component of `dir` was
 * missing, it appends the rest as written), then looks at each name below it with one lstat, and
 * keeps each directory it passes for the next path (a command's words below its workdir, `cat
 * src/a.ts src/b.ts`: docs/performance.md "Round 13: decision time", "Round 17: decision time").
 * `.`, `..` and empty names step as the walk steps. Undefined, and the whole walk is done, when a
 * name is a link (its hops count with `dir`'s), may have another Unicode spelling on disk, cannot
 * be looked at, or is a process's view in /proc (the walk flags it: PROCESS_VIEW). Linux only: on
 * darwin and win32 realpath also gives a name's spelling on disk.
 */
function walkFromParent(walked: string, paths: DecisionPaths): string | undefined {
  // The nearest directory above this decision has walked.
  let slash = walked.lastIndexOf('/');
  let real: Resolved | undefined;
  while (slash > 0) {
    real = paths.get(walked.slice(0, slash));
    if (real !== undefined) break;
    slash = walked.lastIndexOf('/', slash - 1);
  }
  if (typeof real !== 'string') return undefined;
  for (;;) {
    const end = walked.indexOf('/', slash + 1);
    const next = nameBelow(real, walked.slice(slash + 1, end === -1 ? walked.length : end), paths);
    if (next === undefined || end === -1) return next;
    // What the walk of this directory gives: its own lookups would find the same.
    paths.set(walked.slice(0, end), next);
    real = next;
    slash = end;
  }
}

/** The walk's step from the walked `real` to `name` below it (walkFromParent), or undefined for the whole walk. */
function nameBelow(real: string, name: string, paths: DecisionPaths): string | undefined {
  // As the walk takes them: `real` has no links left in it, so its lexical parent is its real parent.
  if (name === '' || name === '.') return real;
  const next = name === '..' ? path.posix.dirname(real) : real === '/' ? `/${name}` : `${real}/${name}`;
  if (PROCESS_VIEW.test(next)) return undefined;
  if (name === '..') return next;
  let stat: fs.Stats | undefined;
  try {
    stat = paths.disk.lstat(next);
  } catch (error) {
    // Not a directory: missing, as the walk takes it. EACCES and the rest: the walk's own answer.
    if (codeOf(error) !== 'ENOTDIR') return undefined;
  }
  if (stat === undefined) return unicodeEquivalents(real, name).length === 0 ? next : undefined;
  return stat.isSymbolicLink() ? undefined : next;
}

/**
 * The entries of `dir` other than `part` equal to it in NFC, as server-filesystem compares them;
 * none when the directory cannot be read (neither can the server). One readdir, only for a missing name.
 */
function unicodeEquivalents(dir: string, part: string): string[] {
  // Another spelling NFC-equal to an ASCII name decomposes to it, and only three code points
  // decompose to ASCII: U+037E to `;`, U+1FEF to a backtick, U+212A (Kelvin) to `K` (checked over
  // all of Unicode, round 12). Any other ASCII name has no equivalent to list the directory for:
  // that listing was most of a new missing path's cost (docs/performance.md, "End of round 12").
  if (ASCII_WITHOUT_DECOMPOSED.test(part)) return [];
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const nfc = part.normalize('NFC');
  return entries.filter((entry) => entry !== part && entry.normalize('NFC') === nfc);
}

const ASCII_WITHOUT_DECOMPOSED = /^[\x00-\x3a\x3c-\x4a\x4c-\x5f\x61-\x7f]*$/;

function splitComponents(p: string, P: path.PlatformPath): string[] {
  const separators = P === path.win32 ? /[\\/]+/ : /\/+/;
  return p.split(separators).filter((part) => part !== '');
}

/**
 * Whether `p` names something stat can reach (false for a dangling link, a loop or a file where a
 * directory was expected: the walk reads those). Any other error (EACCES…) is thrown, as realpath's
 * was before this check: the path cannot be decided, and the call asks.
 */
function existsNoThrow(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOTDIR' || code === 'ELOOP') return false;
    throw error;
  }
}

/** lstat that treats "not there" and "cannot look" alike: the server (same user) cannot follow a link there either. */
function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM') return null;
    throw error;
  }
}

function codeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * isPlainAbsolute of the last root isInside was given: a decision asks about the same workspace
 * root for each of its paths, twice (docs/performance.md, "Round 28: decision time").
 */
let lastRoot = '';
let lastRootPlain = false;
function plainRoot(root: string): boolean {
  if (root !== lastRoot) {
    lastRootPlain = isPlainAbsolute(root);
    lastRoot = root;
  }
  return lastRootPlain;
}

/**
 * True when `candidate` is `root` or below it. Uses path.relative, never a string prefix, so
 * `/tmp/proj-evil` is not inside `/tmp/proj` (CVE-2025-53110). Both must already be canonical;
 * case- and Unicode-form-insensitive on darwin and win32, whose filesystems are.
 */
export function isInside(root: string, candidate: string, platform: NodeJS.Platform = process.platform): boolean {
  const P = pathApi(platform);
  const folded = platform === 'darwin' || platform === 'win32';
  // Two plain absolute POSIX paths (no `.`, `..`, `//` or trailing `/`, which path.relative would
  // normalise away) compare as strings; path.relative normalises both, several times the cost.
  if (!folded && plainRoot(root) && isPlainAbsolute(candidate)) return candidate === root || root === '/' || (candidate.startsWith(root) && candidate.charCodeAt(root.length) === 47);
  const r = folded ? root.normalize('NFC').toLowerCase() : root;
  const c = folded ? candidate.normalize('NFC').toLowerCase() : candidate;
  if (!P.isAbsolute(r) || !P.isAbsolute(c)) return false;
  const rel = P.relative(r, c);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + P.sep) && !P.isAbsolute(rel));
}

/**
 * A workspace or allowed root in canonical form: `~` expanded, resolved against the process cwd,
 * and real (so `/tmp` becomes `/private/tmp` on macOS and matches canonicalised candidates).
 * Falls back to the resolved path when the root cannot be canonicalised.
 */
export function canonicalRoot(root: string, env: PathEnv): string {
  const P = pathApi(env.platform);
  const c = canonicalPath(root, process.cwd(), env, undefined, false, true);
  return c.realPath ?? c.path ?? P.resolve(root);
}

/**
 * The string globs are matched against: forward slashes (minimatch treats `\` as an escape) and
 * NFC, so `café` typed either way meets the same rule. Drive letters are upper-cased on win32.
 */
export function toMatchForm(p: string, platform: NodeJS.Platform): string {
  let out = p.normalize('NFC');
  if (platform === 'win32') {
    out = out.replace(/\\/g, '/').replace(/^[a-z]:/, (d) => d.toUpperCase());
  }
  return out;
}
