import { lstatSync, readFileSync } from 'node:fs';
import type { DiskLookups } from './disk-lookups.js';
import { excludeFileOf } from './git-dir.js';
import { globMatches, globModelled } from './tree-filter.js';

/**
 * Which files `git add` without `-f` leaves out below a directory: those git ignores
 * (gitignore(5); docs/threat-model.md#what-git-stores). Used only to leave entries out of the
 * walk of what `git add` reads, so every doubt counts as "not ignored" (the file is read):
 *
 *   sources   each `.gitignore` from the top of the working tree down to the entry's directory
 *             (a deeper one wins), then `$GIT_COMMON_DIR/info/exclude`. `core.excludesFile` is not
 *             read: it is the lowest source, and leaving out the lowest sources only makes fewer
 *             files ignored (the last matching pattern of all sources in order decides).
 *   patterns  `#` comments, trailing spaces unless escaped, `!` negation, a trailing `/` for
 *             directories only, a `/` at the start or in the middle anchors at the file's
 *             directory, `*`, `?`, `[set]`, `\x`, and `**` as a whole component (leading, trailing,
 *             between slashes); wildmatch's rules on bytes (`?` is one byte of UTF-8).
 *   doubt     a pattern outside that (a `**` inside a component, `[[:alpha:]]`, `\` in a set, a
 *             negated pattern with a set), an unreadable `.gitignore`, a name that is not valid
 *             UTF-8: when the walk reaches it the entry counts as not ignored. A negated pattern is
 *             matched without case (core.ignorecase may be set), a plain one with case.
 *   stop      an ignored directory is not entered: git does not look inside it, so nothing below
 *             can be re-included (gitignore(5) NOTES). `.git` is never added.
 *
 * A `.gitignore` that is a symbolic link is not read, as git (2.32+) does not read one.
 */

/** One pattern line, compiled; `elements` null when not modelled (a doubt). */
interface Pattern {
  negative: boolean;
  directoryOnly: boolean;
  /** No `/` but a trailing one: matched against the base name only. */
  baseName: string | null;
  /** Anchored at the file's directory: each component a glob, `**` any number of components. */
  elements: Element[] | null;
}

type Element = { any: true } | { any: false; glob: string };

interface PatternList {
  /** The list's directory below the top ('' for the top and info/exclude). */
  base: string;
  patterns: Pattern[];
  /** The file could not be read as git reads it: any entry it applies to counts as not ignored. */
  doubtful: boolean;
}

/** Bytes of a .gitignore file or info/exclude read; more counts as doubtful. */
const MAX_IGNORE_FILE = 1 << 20;

export interface IgnoreRules {
  /** True when git surely ignores the entry `rel` below the walk's root (a directory when `directory`). */
  ignored(rel: string, directory: boolean): boolean;
}

/**
 * The ignore rules for a walk of `root` (a real directory) inside the working tree whose top is
 * `top` (a real path at or above it); `disk`: the decision's lookups.
 */
export function ignoreRules(top: string, root: string, disk: DiskLookups): IgnoreRules {
  const rootRel = root === top ? '' : root.slice(top === '/' ? 1 : top.length + 1);
  const lists = new Map<string, PatternList>();
  const exclude = excludeFileOf(top, disk);
  const excludeList = exclude === null ? null : readList(exclude, '', false);
  const listOf = (dir: string): PatternList => {
    let list = lists.get(dir);
    if (list === undefined) {
      list = readList(`${top === '/' ? '' : top}/${dir === '' ? '' : `${dir}/`}.gitignore`, dir, true);
      lists.set(dir, list);
    }
    return list;
  };
  return {
    ignored(rel, directory) {
      const path = rootRel === '' ? rel : `${rootRel}/${rel}`;
      const name = path.slice(path.lastIndexOf('/') + 1);
      if (name === '.git') return true;
      if (path.includes('\uFFFD')) return false;
      // The directories the entry is in, deepest first, then info/exclude.
      const dirs: string[] = [];
      for (let at = path.lastIndexOf('/'); at !== -1; at = path.lastIndexOf('/', at - 1)) dirs.push(path.slice(0, at));
      dirs.push('');
      const chain = dirs.map(listOf);
      if (excludeList !== null) chain.push(excludeList);
      for (const list of chain) {
        const verdict = lastMatch(list, path, directory);
        if (verdict !== undefined) return verdict;
      }
      return false;
    },
  };
}

/** The list's verdict for `path` (below the top): ignored, not ignored, or undefined when no pattern matches. A doubt is "not ignored". */
function lastMatch(list: PatternList, path: string, directory: boolean): boolean | undefined {
  if (list.doubtful) return false;
  if (list.patterns.length === 0) return undefined;
  const rel = list.base === '' ? path : path.slice(list.base.length + 1);
  const bytes = Buffer.from(rel, 'utf8').toString('latin1');
  for (let i = list.patterns.length - 1; i >= 0; i--) {
    const pattern = list.patterns[i]!;
    if (pattern.directoryOnly && !directory) continue;
    const matched = matches(pattern, bytes);
    if (matched === null) return false;
    if (matched) return !pattern.negative;
  }
  return undefined;
}

/** Whether the pattern matches `rel` (bytes as latin1, below the list's directory); null when not modelled. */
function matches(pattern: Pattern, rel: string): boolean | null {
  const fold = (text: string): string => (pattern.negative ? text.toLowerCase() : text);
  if (pattern.baseName !== null) return globMatches(fold(pattern.baseName), fold(rel.slice(rel.lastIndexOf('/') + 1)), false);
  const elements = pattern.elements;
  if (elements === null) return null;
  const names = rel.split('/');
  // Components against elements: `**` takes any number of components, the last one tried is
  // widened one at a time (linear, as tree-filter.ts matchTokens does for characters).
  let e = 0;
  let n = 0;
  let star = -1;
  let from = 0;
  while (n < names.length) {
    const element = elements[e];
    if (element !== undefined && !element.any && globMatches(fold(element.glob), fold(names[n]!), false)) {
      e++;
      n++;
    } else if (element?.any) {
      star = e;
      from = n;
      e++;
    } else if (star >= 0) {
      e = star + 1;
      from++;
      n = from;
    } else {
      return false;
    }
  }
  while (elements[e]?.any) e++;
  return e === elements.length;
}

function readList(file: string, base: string, inTree: boolean): PatternList {
  let text: string;
  try {
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (stat === undefined || (inTree && stat.isSymbolicLink())) return { base, patterns: [], doubtful: false };
    if (inTree && !stat.isFile()) return { base, patterns: [], doubtful: true };
    const buffer = readFileSync(file);
    if (buffer.length > MAX_IGNORE_FILE) return { base, patterns: [], doubtful: true };
    text = buffer.toString('latin1');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { base, patterns: [], doubtful: !(code === 'ENOENT' || code === 'ENOTDIR') };
  }
  if (text.startsWith('\xEF\xBB\xBF')) text = text.slice(3);
  const patterns: Pattern[] = [];
  for (let line of text.split('\n')) {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line === '' || line.startsWith('#')) continue;
    const pattern = compile(trimTrailingSpaces(line));
    if (pattern !== null) patterns.push(pattern);
  }
  return { base, patterns, doubtful: false };
}

/** dir.c trim_trailing_spaces: trailing spaces go unless the first of them is escaped with `\`. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === ' ') {
      if (lastSpace === -1) lastSpace = i;
    } else {
      if (ch === '\\') {
        i++;
        if (i >= line.length) return line;
      }
      lastSpace = -1;
    }
  }
  return lastSpace === -1 ? line : line.slice(0, lastSpace);
}

/** dir.c parse_path_pattern, then the pattern's shape; null for an empty pattern (matches nothing). */
function compile(line: string): Pattern | null {
  let body = line;
  const negative = body.startsWith('!');
  if (negative) body = body.slice(1);
  const directoryOnly = body.endsWith('/');
  if (directoryOnly) body = body.slice(0, -1);
  if (body === '') return null;
  const doubt: Pattern = { negative, directoryOnly, baseName: null, elements: null };
  // A lone `\` at the end: wildmatch reads past the pattern.
  if (/(^|[^\\])(\\\\)*\\$/.test(body)) return doubt;
  // A negated pattern with a set: its case-free reading is not a widening of git's for every range.
  if (negative && body.includes('[')) return doubt;
  if (!body.includes('/')) return globModelled(body) ? { negative, directoryOnly, baseName: body, elements: null } : doubt;
  const components = (body.startsWith('/') ? body.slice(1) : body).split('/');
  const elements: Element[] = [];
  for (const [index, component] of components.entries()) {
    if (component === '') return doubt;
    if (/^\*\*+$/.test(component)) {
      // A trailing `**` matches everything inside, not the directory itself: one component at least.
      if (index === components.length - 1) elements.push({ any: false, glob: '*' });
      if (elements.at(-1)?.any !== true) elements.push({ any: true });
      continue;
    }
    // `**` inside a component, or a `\` before a `/`: wildmatch's special cases, not modelled.
    if (component.includes('**') || component.endsWith('\\') || !globModelled(component)) return doubt;
    elements.push({ any: false, glob: component });
  }
  return { negative, directoryOnly, baseName: null, elements };
}
