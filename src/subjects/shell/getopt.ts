import type { Word } from './options.js';

/**
 * A program's whole option table read as glibc's getopt_long reads argv: short letters bundled
 * (`-sE TEXT`, `-kETEXT`), a required value attached or the next word, an optional one attached
 * only, long names by any unambiguous prefix (`--ev=TEXT` is `--eval`), `--` ending the options.
 * What getopt would refuse (an unknown letter or name, an ambiguous prefix, a value missing or
 * given to a flag) and every word known only at run time outside an option's value is `unknown`:
 * the caller asks rather than guess what the program does with it.
 *
 *   getoptLong(words("-sE 'x' --ev=y all"), MAKE) → E "x", E "y"; operand all
 */

export interface Switch {
  /** The name the caller matches on (`-E`). */
  name: string;
  /** Its letter, when it has one. */
  short?: string;
  /** Its long names (without `--`). */
  long?: readonly string[];
  arg: 'none' | 'required' | 'optional';
  /** An optional value the program also takes from the next word when the word matches (make's `-j 4`). */
  next?: RegExp;
}

export interface Found {
  name: string;
  value: Word | null;
  /** Index of the word holding the option. */
  index: number;
}

export interface Parsed {
  found: Found[];
  /** Indices of operand words. */
  operands: number[];
  /** Words (or parts of words) the table does not account for, as written. */
  unknown: string[];
}

export function getoptLong(words: readonly Word[], switches: readonly Switch[]): Parsed {
  const found: Found[] = [];
  const operands: number[] = [];
  const unknown: string[] = [];
  const byShort = new Map(switches.filter((s) => s.short).map((s) => [s.short!, s]));
  const slice = (word: Word, from: number): Word => ({ ...word, value: word.value.slice(from), raw: word.value.slice(from) });
  /** The next word as an optional value the program takes from there too. */
  const optionalNext = (s: Switch, i: number): Word | null => {
    const next = words[i + 1];
    return s.next && next?.isStatic && s.next.test(next.value) ? next : null;
  };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const v = word.value;
    if (!word.isStatic) {
      unknown.push(word.raw); // may be an option, or several words
      continue;
    }
    if (v === '--') {
      for (let j = i + 1; j < words.length; j++) {
        if (!words[j]!.isStatic) unknown.push(words[j]!.raw);
        operands.push(j);
      }
      break;
    }
    if (v.length < 2 || v[0] !== '-') {
      operands.push(i);
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const given = v.slice(2, eq === -1 ? undefined : eq);
      const s = longSwitch(given, switches);
      if (s === null || (s.arg === 'none' && eq !== -1)) {
        unknown.push(v);
        continue;
      }
      if (eq !== -1) found.push({ name: s.name, value: slice(word, eq + 1), index: i });
      else if (s.arg === 'required') {
        if (i + 1 >= words.length) unknown.push(v);
        else found.push({ name: s.name, value: words[++i]!, index: i - 1 });
      } else {
        const next = s.arg === 'optional' ? optionalNext(s, i) : null;
        found.push({ name: s.name, value: next, index: i });
        if (next) i++;
      }
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const s = byShort.get(v[j]!);
      if (!s) {
        unknown.push(`-${v[j]}`);
        continue;
      }
      if (s.arg === 'none') {
        found.push({ name: s.name, value: null, index: i });
        continue;
      }
      if (j + 1 < v.length) found.push({ name: s.name, value: slice(word, j + 1), index: i });
      else if (s.arg === 'required') {
        if (i + 1 >= words.length) unknown.push(v);
        else found.push({ name: s.name, value: words[i + 1]!, index: i++ });
      } else {
        const next = optionalNext(s, i);
        found.push({ name: s.name, value: next, index: i });
        if (next) i++;
      }
      break;
    }
  }
  return { found, operands, unknown };
}

/**
 * The switch a long name given (`ev`) stands for: the one spelled exactly, else the only one it is
 * a prefix of (names of one switch count once, as getopt_long's same-flag rule); null when none or
 * several.
 */
function longSwitch(given: string, switches: readonly Switch[]): Switch | null {
  if (given === '') return null;
  const exact = switches.find((s) => s.long?.includes(given));
  if (exact) return exact;
  const matches = new Set(switches.filter((s) => s.long?.some((name) => name.startsWith(given))));
  return matches.size === 1 ? [...matches][0]! : null;
}
