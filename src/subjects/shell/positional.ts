import { DOUBLE, quoteStates, SINGLE } from './known-values.js';

/**
 * A function's positional parameters for one call (bash manual, "Shell Functions": while a function
 * runs, its arguments are `$1`…, `$#`, `$@` and `$*`). For a call whose words are static, the body
 * with them put in place is a reading walked for deny rules (walk.ts), like the readings of
 * known-values.ts: the call is still judged on what was written, so a wrong guess only adds
 * commands for deny rules to look at (docs/threat-model.md, "Deny rules for every program").
 *
 *   f() { $1 -rf /; }; f rm              → { rm -rf /; }
 *   f() { "$@"; }; f rm -rf 'a b'        → { "rm" "-rf" "a b"; }
 *   f() { shift; $1 -rf /; }; f x rm     → { shift; rm -rf /; }  (and a reading per shift count)
 *
 * Unquoted, a value is split into fields on blanks and newlines (IFS as the default) and each
 * field's characters are escaped, globbing characters aside, as expansion results are not read for
 * quotes, `$`, braces or `~` again; in "…" and in an assignment it stays one word. `shift` is
 * followed in text order, and each uniform shift count (0 to the number of arguments) is a
 * reading of its own, for shifts in loops and branches. Other expansions of the parameters
 * (`${1%x}`, `${1/a/b}`) stay as written: dynamic, as in the walk of the definition.
 */

/** Readings per call; more shift counts than this and the call is given up (the caller fails closed). */
const MAX_READINGS = 8;

/** A use of a positional parameter, or of `$#`, `$@`, `$*` (not `$0`, the shell's name). */
const USES = /\$(?:\{#?)?[1-9@*#]|\bfor\s+[A-Za-z_][A-Za-z0-9_]*\s*(?:;|\n|do\b)/;
/**
 * `$N`, `$@`, `$*`, `$#`; `${N}`, `${@}`, `${*}`, `${#}`; `${#N}`, `${#@}`; `${N:-W}` and the other
 * default operators (W without braces); `${@:N}`, `${@:N:M}` and the same with `*`.
 */
const EXPANSION = /^\$(?:([1-9@*#])|\{(#?)([1-9][0-9]*|[@*#])(?:(:?[-+])([^{}]*)|:([0-9]+)(?::([0-9]+))?)?\})/;
/** `for NAME;`, `for NAME do`, `for NAME⏎`: the loop runs over "$@" (bash manual, "Looping Constructs"). */
const IMPLICIT_FOR = /\bfor(\s+[A-Za-z_][A-Za-z0-9_]*)(?=\s*(?:;|\n|do\b))/g;
/** `shift` and `shift N` as a command. */
const SHIFT = /(^|[\s;&|(){}])shift(?:[ \t]+([0-9]+))?(?=$|[\s;&|)}])/g;
/** `shift WORD` with a word that is not a number: how far it shifts is not known. */
const UNKNOWN_SHIFT = /(^|[\s;&|(){}])shift[ \t]+[^\s;&|)}0-9]/;
/** An assignment word up to its value (no word splitting in the value). */
const ASSIGNMENT_WORD = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
/** Characters an unquoted field keeps as they are: plain ones and the globbing ones. */
const PLAIN = /[A-Za-z0-9_./:%@+,*?[\]-]/;

/**
 * The readings of `body` for a call with `args`: empty when the body uses no positional
 * parameter, null when there would be more than MAX_READINGS.
 */
export function bodyWithArguments(body: string, args: readonly string[]): string[] | null {
  if (!USES.test(body)) return [];
  const text = body.replace(IMPLICIT_FOR, 'for$1 in "$@"');
  const states = quoteStates(text);
  const shifts: Array<{ at: number; count: number }> = [];
  for (const m of text.matchAll(SHIFT)) {
    const at = m.index + m[1]!.length;
    if (states[at] === 0) shifts.push({ at, count: Number(m[2] ?? 1) });
  }
  const offsets = new Set<number | 'text'>([0]);
  if (shifts.length > 0 || UNKNOWN_SHIFT.test(text)) {
    if (!UNKNOWN_SHIFT.test(text)) offsets.add('text');
    for (let k = 1; k <= args.length; k++) offsets.add(k);
  }
  if (offsets.size > MAX_READINGS) return null;
  const readings = new Set<string>();
  for (const offset of offsets) {
    const shifted = (at: number): readonly string[] => args.slice(offset === 'text' ? shifts.reduce((n, s) => (s.at < at ? n + s.count : n), 0) : offset);
    readings.add(substitute(text, states, shifted));
  }
  readings.delete(body);
  return [...readings];
}

/** `text` with each use of a positional parameter replaced, the parameters at each offset given by `argsAt`. */
function substitute(text: string, states: Uint8Array, argsAt: (at: number) => readonly string[]): string {
  let out = '';
  let last = 0;
  for (let at = text.indexOf('$'); at !== -1; at = text.indexOf('$', at + 1)) {
    const state = states[at]!;
    if (state === SINGLE || escaped(text, at)) continue;
    const m = EXPANSION.exec(text.slice(at, at + 200));
    if (m === null) continue;
    const [whole, bare, length, braced, operator, word, from, count] = m;
    const name = (bare ?? braced)!;
    const args = argsAt(at);
    const quoted = state === DOUBLE;
    let to = at + whole.length;
    let start = at;
    let replacement: string;
    if (name === '#' || length === '#') {
      replacement = String(length === '#' && /^[1-9]/.test(name) ? (args[Number(name) - 1] ?? '').length : args.length);
    } else if (name === '@' || name === '*') {
      const list = from === undefined ? args : args.slice(Math.max(Number(from) - 1, 0), count === undefined ? undefined : Math.max(Number(from) - 1, 0) + Number(count));
      if (quoted && name === '@') {
        if (list.length === 0 && text[at - 1] === '"' && states[at - 1] === 0 && text[to] === '"') {
          // `"$@"` with no arguments is no word at all.
          start--;
          to++;
          replacement = '';
        } else {
          replacement = list.map(escapeDouble).join('" "');
        }
      } else {
        replacement = scalar(text, states, at, list.join(' '), quoted);
      }
    } else {
      const value = args[Number(name) - 1];
      if (operator !== undefined) {
        const set = operator.startsWith(':') ? (value ?? '') !== '' : value !== undefined;
        const useWord = operator.endsWith('+') ? set : !set;
        replacement = useWord ? word! : operator.endsWith('+') ? '' : scalar(text, states, at, value ?? '', quoted);
      } else {
        replacement = scalar(text, states, at, value ?? '', quoted);
      }
    }
    out += text.slice(last, start) + replacement;
    last = to;
    at = to - 1;
  }
  return out + text.slice(last);
}

/** One value where the expansion at `at` stands: in "…", in an assignment's value, or unquoted (split and escaped). */
function scalar(text: string, states: Uint8Array, at: number, value: string, quoted: boolean): string {
  if (quoted) return escapeDouble(value);
  if (inAssignment(text, states, at)) return `"${escapeDouble(value)}"`;
  return value
    .split(/[ \t\n]+/)
    .filter((field) => field !== '')
    .map((field) => [...field].map((ch) => (PLAIN.test(ch) ? ch : `\\${ch}`)).join(''))
    .join(' ');
}

/** The unquoted word holding `at` starts as an assignment (`c=$1`, `local c=$1`). */
function inAssignment(text: string, states: Uint8Array, at: number): boolean {
  let start = at;
  while (start > 0 && !(states[start - 1] === 0 && /[\s;&|()<>]/.test(text[start - 1]!))) start--;
  return ASSIGNMENT_WORD.test(text.slice(start, at));
}

function escaped(text: string, at: number): boolean {
  let run = 0;
  while (at - run - 1 >= 0 && text[at - run - 1] === '\\') run++;
  return run % 2 === 1;
}

function escapeDouble(value: string): string {
  return value.replace(/[\\"$`]/g, '\\$&');
}
