import type { TreeFilter } from '../policy/types.js';

/**
 * grep's `--include`, `--exclude` and `--exclude-dir` (docs/threat-model.md#recursive-reads): the
 * files of a recursive read that grep does not open, so a deny or ask rule matching only those does
 * not make `grep -r --include='*.ts' TODO .` ask. A file counts as skipped only when every grep a
 * server may run skips it:
 *
 *   GNU grep      the base name; "the last matching one wins; if none matches, a file is included
 *                 unless the first such option is --include"; `--exclude-dir` on a directory's base name
 *   BSD grep      the whole path as the walk spells it or the base name, include before exclude
 *   busybox grep  the base name; excluded if any exclude matches, else included if any include does
 *
 * and whatever fnmatch(3) flags they pass: an include is matched leniently (`*` crosses `/` and a
 * leading dot), an exclude strictly (neither). So a file is skipped when no include can match it
 * and either an exclude surely matches its base name or the first filter is an include. Anything
 * the matcher does not model (character classes, a value with an expansion, `--exclude-from`)
 * drops the filters: every file then counts, as before.
 */

/** The filters of a grep scan, in order; null when one cannot be modelled exactly. */
export function grepFilters(options: ReadonlyArray<{ name: string; value: { isStatic: boolean; value: string } | null }>): TreeFilter[] | null {
  const filters: TreeFilter[] = [];
  for (const option of options) {
    if (option.name === '--exclude-from') return null;
    const kind = option.name === '--include' ? 'include' : option.name === '--exclude' ? 'exclude' : option.name === '--exclude-dir' ? 'exclude-dir' : null;
    if (kind === null) continue;
    if (!option.value?.isStatic || globTokens(option.value.value) === null) return null;
    filters.push({ kind, glob: option.value.value });
  }
  return filters.length > 0 ? filters : null;
}

/** True when grep surely does not read the entry `rel` (below the operand spelled `operand`). */
export function skippedByFilters(filters: readonly TreeFilter[], operand: string, rel: string, directory: boolean): boolean {
  const parts = rel.split('/');
  const dirs = directory ? parts : parts.slice(0, -1);
  if (dirs.some((dir) => filters.some((f) => f.kind === 'exclude-dir' && globMatches(f.glob, dir, true)))) return true;
  if (directory) return false;
  const base = parts[parts.length - 1]!;
  const full = `${operand.replace(/\/+$/, '')}/${rel}`;
  const files = filters.filter((f) => f.kind !== 'exclude-dir');
  if (files.some((f) => f.kind === 'include' && (globMatches(f.glob, base, false) || globMatches(f.glob, full, false)))) return false;
  return files[0]?.kind === 'include' || files.some((f) => f.kind === 'exclude' && globMatches(f.glob, base, true));
}

/** fnmatch(3) as grep calls it on `name`; false also for a glob that is not modelled. */
export function globMatches(glob: string, name: string, strict: boolean): boolean {
  const tokens = globTokens(glob);
  return tokens !== null && matchTokens(tokens, name, strict);
}

/** Whether globMatches models the glob (false for `[[:alpha:]]`, a `\\` in a set, an unterminated `[`). */
export function globModelled(glob: string): boolean {
  return globTokens(glob) !== null;
}

/** One element of a glob: a literal character, `?`, a bracket set (`negated`: `!` or `^`), or `*`. */
type Token = { type: 'char'; char: string } | { type: 'one' } | { type: 'set'; chars: string; negated: boolean } | { type: 'star' };

const cache = new Map<string, Token[] | null>();

/**
 * fnmatch(3)'s pattern: `*`, `?`, `[set]` (`!` or `^` negates, ranges), `\x`. Null for what is not
 * modelled (`[[:alpha:]]`, `[[.a.]]`, an unterminated `[`).
 */
function globTokens(glob: string): Token[] | null {
  if (cache.has(glob)) return cache.get(glob)!;
  let tokens: Token[] | null = [];
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') {
      if (tokens.at(-1)?.type !== 'star') tokens.push({ type: 'star' });
    } else if (ch === '?') {
      tokens.push({ type: 'one' });
    } else if (ch === '[') {
      const end = glob.indexOf(']', i + 2);
      const body = end === -1 ? '' : glob.slice(i + 1, end);
      if (end === -1 || body.includes('[') || body.includes('\\')) {
        tokens = null;
        break;
      }
      const negated = body[0] === '!' || body[0] === '^';
      // `[!]…]`: fnmatch reads the `]` as a member; not modelled.
      if (negated && body.length === 1) {
        tokens = null;
        break;
      }
      tokens.push({ type: 'set', chars: negated ? body.slice(1) : body, negated });
      i = end;
    } else if (ch === '\\') {
      i++;
      tokens.push({ type: 'char', char: glob[i] ?? '\\' });
    } else {
      tokens.push({ type: 'char', char: ch });
    }
  }
  if (cache.size > 256) cache.clear();
  cache.set(glob, tokens);
  return tokens;
}

/** A bracket set's members: single characters and `a-z` ranges. */
function inSet(chars: string, ch: string): boolean {
  for (let i = 0; i < chars.length; i++) {
    if (chars[i + 1] === '-' && i + 2 < chars.length) {
      if (ch >= chars[i]! && ch <= chars[i + 2]!) return true;
      i += 2;
    } else if (chars[i] === ch) return true;
  }
  return false;
}

/**
 * Whether `name` matches, in time linear in name × pattern: the classic wildcard walk that keeps
 * only the last `*` to widen (a regular expression backtracks over every `*`, and `a*a*a*a*b` on a
 * long name held the process for seconds). Lenient: wildcards match anything. Strict (FNM_PATHNAME |
 * FNM_PERIOD, used on single names): no wildcard matches `/` or a leading dot.
 */
function matchTokens(tokens: readonly Token[], name: string, strict: boolean): boolean {
  if (strict && name.includes('/')) return false;
  // A leading dot is matched only by a literal dot: glibc refuses a leading `*` there even when it
  // could match nothing (`*.*` does not match `.env`).
  if (strict && name[0] === '.' && tokens[0] !== undefined && tokens[0].type !== 'char') return false;
  const wild = (index: number) => !(strict && index === 0 && name[0] === '.');
  const one = (token: Token, index: number): boolean => {
    const ch = name[index]!;
    if (token.type === 'char') return token.char === ch;
    if (!wild(index)) return false;
    if (token.type === 'one') return true;
    if (token.type === 'set') return inSet(token.chars, ch) !== token.negated;
    return false;
  };
  let p = 0;
  let i = 0;
  let star = -1;
  let from = 0;
  while (i < name.length) {
    const token = tokens[p];
    if (token !== undefined && token.type !== 'star' && one(token, i)) {
      p++;
      i++;
    } else if (token?.type === 'star') {
      star = p;
      from = i;
      p++;
    } else if (star >= 0 && wild(from)) {
      // The last `*` takes one more character and the rest is tried again after it.
      p = star + 1;
      from++;
      i = from;
    } else {
      return false;
    }
  }
  while (tokens[p]?.type === 'star') p++;
  return p === tokens.length;
}
