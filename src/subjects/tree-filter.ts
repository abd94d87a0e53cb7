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
    if (!option.value?.isStatic || globRegex(option.value.value, false) === null) return null;
    filters.push({ kind, glob: option.value.value });
  }
  return filters.length > 0 ? filters : null;
}

/** True when grep surely does not read the entry `rel` (below the operand spelled `operand`). */
export function skippedByFilters(filters: readonly TreeFilter[], operand: string, rel: string, directory: boolean): boolean {
  const parts = rel.split('/');
  const dirs = directory ? parts : parts.slice(0, -1);
  if (dirs.some((dir) => filters.some((f) => f.kind === 'exclude-dir' && matches(f.glob, dir, true)))) return true;
  if (directory) return false;
  const base = parts[parts.length - 1]!;
  const full = `${operand.replace(/\/+$/, '')}/${rel}`;
  const files = filters.filter((f) => f.kind !== 'exclude-dir');
  if (files.some((f) => f.kind === 'include' && (matches(f.glob, base, false) || matches(f.glob, full, false)))) return false;
  return files[0]?.kind === 'include' || files.some((f) => f.kind === 'exclude' && matches(f.glob, base, true));
}

function matches(glob: string, name: string, strict: boolean): boolean {
  return globRegex(glob, strict)?.test(name) ?? false;
}

const cache = new Map<string, RegExp | null>();

/**
 * fnmatch(3) as a regular expression: `*`, `?`, `[set]` (`!` or `^` negates, ranges), `\x`. Strict:
 * wildcards match neither `/` nor a leading dot (FNM_PATHNAME | FNM_PERIOD). Null for what is not
 * modelled (`[[:alpha:]]`, `[[.a.]]`, an unterminated `[`).
 */
function globRegex(glob: string, strict: boolean): RegExp | null {
  const key = `${strict ? 's' : 'l'}${glob}`;
  if (cache.has(key)) return cache.get(key)!;
  let source = '';
  let ok = true;
  const any = strict ? '[^/]' : '[^]';
  for (let i = 0; i < glob.length && ok; i++) {
    const ch = glob[i]!;
    const atStart = i === 0 || glob[i - 1] === '/';
    if (ch === '*' || ch === '?') {
      source += (strict && atStart ? '(?![.])' : '') + (ch === '*' ? `${any}*` : any);
    } else if (ch === '[') {
      const end = glob.indexOf(']', i + 2);
      const body = end === -1 ? '' : glob.slice(i + 1, end);
      if (end === -1 || body.includes('[') || body.includes('\\')) ok = false;
      else {
        const negated = body[0] === '!' || body[0] === '^';
        const set = (negated ? body.slice(1) : body).replace(/[\]^\\]/g, '\\$&');
        source += (strict && atStart ? '(?![.])' : '') + (negated ? `[^${set}${strict ? '/' : ''}]` : `[${set}]`);
        i = end;
      }
    } else if (ch === '\\') {
      i++;
      source += escapeRegex(glob[i] ?? '\\');
    } else {
      source += escapeRegex(ch);
    }
  }
  const regex = ok ? new RegExp(`^${source}$`) : null;
  if (cache.size > 256) cache.clear();
  cache.set(key, regex);
  return regex;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
