import type { Access, CommandPath } from '../../policy/types.js';

/**
 * Words and options: the small vocabulary shared by the shell analyser (`command.ts`) and its
 * per-program knowledge (`argv.ts`, `wrappers.ts`, `program.ts`, `files.ts`). Nothing here touches the parser.
 *
 *   scanOptions(words('-n 5 -rf a -- -b'), 0, { short: 'n' })
 *     → options -n (value 5), -r, -f; operands a, -b
 */

/** One shell word after quote removal. */
export interface Word {
  /** The value after unquoting when static; the raw source text otherwise. */
  value: string;
  /** The source text as written. */
  raw: string;
  /** False when the value depends on expansions, globs or substitutions. */
  isStatic: boolean;
  /**
   * Built (partly) from `$'…'`. The decoded value is known, but a command name spelled this way is
   * treated as dynamic: it exists to hide the name (`$'\x72m'`).
   */
  ansi: boolean;
}

/** A static word (for argv given without a shell, and for tests). */
export function staticWord(value: string): Word {
  return { value, raw: value, isStatic: true, ansi: false };
}

export interface OptionSpec {
  /** Short options that take a value, attached (`-n5`) or as the next word (`-n 5`). */
  short?: string;
  /** Short options whose value can only be attached (`sed -i.bak`, `xargs -i{}`); never the next word. */
  attached?: string;
  /** Long options (without `--`) that take a value: `--name=v` or `--name v`. */
  long?: readonly string[];
  /** Stop at the first operand (POSIX and wrappers); otherwise GNU permutation (options anywhere). */
  stopAtOperand?: boolean;
  /**
   * Long options are taken only as spelled (rsync's popt: `--dry-ru` is an unknown option). Without
   * it an unambiguous prefix of a listed option is expanded, which would take rsync's `--backup`
   * for `--backup-dir` and swallow the next word as its value.
   */
  exactLong?: boolean;
}

export interface ParsedOption {
  /** `-n` or `--name` (long names abbreviated on the command line are expanded when unambiguous). */
  name: string;
  /**
   * A long option not among the spec's `long` names: a flag as spelled, which getopt_long also takes
   * abbreviated (`grep --recur` is `--recursive`), so `hasOption` matches it as any prefix.
   */
  unlisted?: true;
  value: Word | null;
  /** Index of the word holding the option. */
  index: number;
}

export interface ScanResult {
  options: ParsedOption[];
  /** Indices of operand words (`-` counts as an operand: stdin). */
  operands: number[];
  /** With `stopAtOperand`: index of the first operand (or words.length). */
  end: number;
}

/**
 * Splits words into options and operands. A non-static word is an operand: it cannot be known to
 * be an option, and treating it as a path keeps it visible. `--` ends options.
 */
export function scanOptions(words: readonly Word[], from: number, spec: OptionSpec): ScanResult {
  const options: ParsedOption[] = [];
  const operands: number[] = [];
  const short = spec.short ?? '';
  const attached = spec.attached ?? '';
  let i = from;
  for (; i < words.length; i++) {
    const word = words[i]!;
    const v = word.value;
    if (!word.isStatic || v.length < 2 || v[0] !== '-') {
      if (spec.stopAtOperand) return { options, operands, end: i };
      operands.push(i);
      continue;
    }
    if (v === '--') {
      if (spec.stopAtOperand) return { options, operands, end: i + 1 };
      for (let j = i + 1; j < words.length; j++) operands.push(j);
      return { options, operands, end: words.length };
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const given = eq === -1 ? v.slice(2) : v.slice(2, eq);
      const name = spec.exactLong ? given : expandLong(given, spec.long);
      if (eq !== -1) {
        options.push({ name: `--${name}`, value: { ...word, value: v.slice(eq + 1), raw: v.slice(eq + 1) }, index: i, ...(spec.exactLong || spec.long?.includes(name) ? {} : { unlisted: true as const }) });
      } else if (spec.long?.includes(name) && i + 1 < words.length) {
        options.push({ name: `--${name}`, value: words[i + 1]!, index: i });
        i++;
      } else {
        options.push({ name: `--${name}`, value: null, index: i, ...(spec.exactLong || spec.long?.includes(name) ? {} : { unlisted: true as const }) });
      }
      continue;
    }
    if (/^-\d+$/.test(v)) {
      options.push({ name: v, value: null, index: i }); // head -5, nice -10
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const ch = v[j]!;
      if (short.includes(ch)) {
        const rest = v.slice(j + 1);
        if (rest !== '') {
          options.push({ name: `-${ch}`, value: { ...word, value: rest, raw: rest }, index: i });
        } else if (i + 1 < words.length) {
          options.push({ name: `-${ch}`, value: words[i + 1]!, index: i });
          i++;
        } else {
          options.push({ name: `-${ch}`, value: null, index: i });
        }
        break;
      }
      if (attached.includes(ch)) {
        const rest = v.slice(j + 1);
        options.push({ name: `-${ch}`, value: rest === '' ? null : { ...word, value: rest, raw: rest }, index: i });
        break;
      }
      options.push({ name: `-${ch}`, value: null, index: i });
    }
  }
  return { options, operands, end: i };
}

/** GNU getopt accepts any unambiguous prefix of a long option (`sort --out=f` is `--output=f`). */
function expandLong(given: string, long: readonly string[] | undefined): string {
  if (!long || given.length < 2 || long.includes(given)) return given;
  let found: string | null = null;
  for (const name of long) {
    if (!name.startsWith(given)) continue;
    if (found !== null) return given;
    found = name;
  }
  return found ?? given;
}

/**
 * True when any parsed option has one of the names (`-o`, `--output`), or is a long flag the spec
 * does not list spelled as a prefix of one: getopt_long takes any unambiguous prefix (`grep --recur`,
 * `sed --in-pl`, `cp --lin`), and an ambiguous one is an error that runs nothing. Presence found so
 * may make a decision stricter only: where an option makes it more permissive, use
 * `hasOptionAsSpelled`.
 */
export function hasOption(scan: ScanResult, ...names: string[]): boolean {
  return scan.options.some((option) => names.includes(option.name) || (option.unlisted === true && option.name.length > 2 && names.some((name) => name.startsWith(option.name))));
}

/**
 * True when a parsed option has one of the names exactly. For options that make a decision more
 * permissive (`--dry-run`, `--sandbox`, `--list`): the program may have an option of its own spelled
 * as the prefix the abbreviation rule of `hasOption` would take (rg's `--file` against `--files`).
 */
export function hasOptionAsSpelled(scan: ScanResult, ...names: string[]): boolean {
  return scan.options.some((option) => names.includes(option.name));
}

/** Values of the options with one of the names, in order. */
export function optionValues(scan: ScanResult, ...names: string[]): Word[] {
  const out: Word[] = [];
  for (const option of scan.options) if (option.value && names.includes(option.name)) out.push(option.value);
  return out;
}

/** A path subject for a word; null for `-` (stdin/stdout) and empty words. */
export function pathOf(word: Word, access: Access, base: string | null, via = 'argument'): CommandPath | null {
  const value = word.isStatic ? word.value : word.raw;
  if (value === '' || (word.isStatic && value === '-')) return null;
  // `cat <(cmd)`: a process substitution names a pipe, not a file (its command is a segment).
  if (!word.isStatic && /^[<>]\([^]*\)$/.test(value)) return null;
  return { path: value, access, base, isStatic: word.isStatic, via };
}

/** Adds a path subject when there is one. */
export function pushPath(paths: CommandPath[], path: CommandPath | null): void {
  if (path) paths.push(path);
}

/** A word as shown and matched: its value when static, its source text otherwise. */
export const display = (word: Word): string => (word.isStatic ? word.value : word.raw);

/** The home marker the analyser uses for `cd` / `cd ~`; path canonicalisation expands it. */
export const HOME = '~';

/**
 * The directory `cd target` lands in from `cwd`, joined but not normalised: `..` stays, because
 * after `cd -P link/..` (or a `workdir` the kernel resolves) it is the parent of the link's target,
 * and canonicalisation later walks it in kernel order while keeping the lexical form too. Null when
 * it cannot be known: `cd -`, `~user`, a relative target from an unknown cwd.
 */
export function resolveDirectory(cwd: string | null, target: string): string | null {
  if (target === '') return cwd;
  if (target === '-' || (target.startsWith('~') && target !== HOME && !target.startsWith('~/'))) return null;
  if (target === HOME || target.startsWith('~/') || target.startsWith('/')) return tidy(target);
  if (cwd === null) return null;
  return tidy(`${cwd}/${target}`);
}

/** `a//b/./c/` → `a/b/c`; `..` is kept. */
function tidy(p: string): string {
  const out = p.replace(/\/+/g, '/').replace(/\/\.(?=\/|$)/g, '').replace(/^\.\//, '');
  return out.length > 1 && out.endsWith('/') ? out.slice(0, -1) : out === '' ? '/' : out;
}

/** `/usr/bin/git` → `git`. */
export function baseName(program: string): string {
  const trimmed = program.endsWith('/') ? program.replace(/\/+$/, '') : program;
  const slash = trimmed.lastIndexOf('/');
  return slash === -1 ? trimmed : trimmed.slice(slash + 1);
}

/** A value a test runner hands to git as a revision (`--changed=REF`): not an option to git (no leading `-`), no blank (round 26 review S9). */
export const GIT_REVISION = /^[^-\s]\S*$/;
