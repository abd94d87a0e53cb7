/**
 * less's options read as less reads them (option.c `scan_option`, opttbl.c; less 590): one word, or
 * the whole `LESS` value, holds several options. A number option (`-b`, `-h`, `-y`, `-z`, a bare
 * digit) takes only its digits, a string option with a character set (`-j`, `-x`, `-#`) only those
 * characters, any other string option (`-k`, `-o`, `-P`, `--prompt=`…) runs to a `$`; then less goes
 * on with the rest as more options. So `-b1kFILE`, `-x4--lesskey-src=F` and `-Pfoo$kFILE` all
 * name a lesskey file (review of round 25, docs/threat-model.md "Round 26").
 */

/** One option found: its letter (long names are given by their letter, or their name when they have none). */
export interface LessOption {
  readonly name: string;
  /** Its value, when it takes one and one was in the text. */
  readonly value?: string;
  /** An option taking a value came before it in the same text. */
  readonly afterValue: boolean;
}

type Kind = 'flag' | 'number' | { readonly chars: string | null };
const TO_DOLLAR = { chars: null };
/** Letters with values (opttbl.c); every other known letter is a flag. */
const LETTER_KINDS: Readonly<Record<string, Kind>> = {
  b: 'number', h: 'number', y: 'number', z: 'number',
  j: { chars: '0123456789.-' }, x: { chars: '0123456789,' }, '#': { chars: '0123456789.' },
  D: TO_DOLLAR, k: TO_DOLLAR, o: TO_DOLLAR, O: TO_DOLLAR, p: TO_DOLLAR, P: TO_DOLLAR, t: TO_DOLLAR, T: TO_DOLLAR, '"': TO_DOLLAR,
};
/** Letters less knows (the flags include the upper-case forms of its three-state options). */
const KNOWN_LETTERS = new Set('aAbBcCdDeEfFgGhHiIjJkKLmMnNoOpPqQrRsStTuUVwWxXyzZ"~?#');

/** Long names and the letter they stand for ('' for long-only names), with their kind. */
const LONG_NAMES: ReadonlyArray<readonly [string, string, Kind]> = [
  ['search-skip-screen', 'a', 'flag'], ['buffers', 'b', 'number'], ['auto-buffers', 'B', 'flag'], ['clear-screen', 'c', 'flag'],
  ['dumb', 'd', 'flag'], ['color', 'D', TO_DOLLAR], ['quit-at-eof', 'e', 'flag'], ['force', 'f', 'flag'],
  ['quit-if-one-screen', 'F', 'flag'], ['hilite-search', 'g', 'flag'], ['max-back-scroll', 'h', 'number'], ['ignore-case', 'i', 'flag'],
  ['jump-target', 'j', { chars: '0123456789.-' }], ['status-column', 'J', 'flag'], ['lesskey-file', 'k', TO_DOLLAR],
  ['lesskey-src', 'k', TO_DOLLAR], ['lesskey-content', 'k', TO_DOLLAR], ['quit-on-intr', 'K', 'flag'], ['no-lessopen', 'L', 'flag'],
  ['long-prompt', 'm', 'flag'], ['line-numbers', 'n', 'flag'], ['log-file', 'o', TO_DOLLAR], ['LOG-FILE', 'O', TO_DOLLAR],
  ['pattern', 'p', TO_DOLLAR], ['prompt', 'P', TO_DOLLAR], ['quiet', 'q', 'flag'], ['silent', 'q', 'flag'],
  ['raw-control-chars', 'r', 'flag'], ['squeeze-blank-lines', 's', 'flag'], ['chop-long-lines', 'S', 'flag'], ['tag', 't', TO_DOLLAR],
  ['tag-file', 'T', TO_DOLLAR], ['underline-special', 'u', 'flag'], ['version', 'V', 'flag'], ['hilite-unread', 'w', 'flag'],
  ['tabs', 'x', { chars: '0123456789,' }], ['no-init', 'X', 'flag'], ['max-forw-scroll', 'y', 'number'], ['window', 'z', 'number'],
  ['quotes', '"', TO_DOLLAR], ['tilde', '~', 'flag'], ['help', '?', 'flag'], ['shift', '#', { chars: '0123456789.' }],
  ['no-keypad', '', 'flag'], ['old-bot', '', 'flag'], ['follow-name', '', 'flag'], ['use-backslash', '', 'flag'],
  ['rscroll', '', TO_DOLLAR], ['no-histdups', '', 'flag'], ['mouse', '', 'flag'], ['MOUSE', '', 'flag'], ['wheel-lines', '', 'number'],
  ['save-marks', '', 'flag'], ['line-num-width', '', 'number'], ['status-col-width', '', 'number'], ['incsearch', '', 'flag'],
  ['use-color', '', 'flag'], ['redraw-on-quit', '', 'flag'], ['no-vbell', '', 'flag'],
];
/** The letters whose options name a file less reads as code, writes, or a tag file; any abbreviation that could be one of them is taken as it. */
const FILE_LETTERS = 'koOtT';

/** The long name less would take for `given` (an exact name, or the one name it abbreviates); '?' when none or several. */
function longName(given: string): readonly [string, string, Kind] | undefined {
  if (given === '') return undefined;
  const exact = LONG_NAMES.find(([name]) => name === given);
  if (exact !== undefined) return exact;
  const lower = given.toLowerCase();
  const candidates = LONG_NAMES.filter(([name]) => name.toLowerCase().startsWith(lower));
  // Fail closed: a prefix that could be a lesskey, log or tag option is taken as one.
  return candidates.find(([, letter]) => FILE_LETTERS.includes(letter)) ?? (candidates.length === 1 ? candidates[0] : undefined);
}

/**
 * A value as less's optstring reads it: to a `$` or the first character outside `chars`; with
 * `backslash` (after `--use-backslash`), `\` takes the next one. Returns the value and where reading goes on.
 */
function stringValue(text: string, at: number, chars: string | null, backslash: boolean): [string, number] {
  let value = '';
  let i = at;
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (backslash && ch === '\\' && i + 1 < text.length) {
      value += text[++i];
      continue;
    }
    if (ch === '$' || (chars !== null && !chars.includes(ch))) break;
    value += ch;
  }
  return [value, i];
}

/** getnum: blanks, a sign, digits; without a digit the number is an error and reading goes on where it was. */
function numberValue(text: string, at: number): [string | undefined, number] {
  const match = /^ *-?\d+/.exec(text.slice(at));
  return match === null ? [undefined, at] : [match[0].trim(), at + match[0].length];
}

/**
 * Every option in `text` (a command-line word or `LESS`'s value), in order. An unknown letter or
 * long name ends the reading as it ends less's (reported as `?`, so callers fail closed on it).
 * less 590 takes `\` literally unless `--use-backslash` came first (option.c optstring: `-Pa\$kF`
 * is the prompt `a\` and then `-kF`, round 27 R27-12); whether it did may be in another word or
 * in LESS, so a text with a `\` is read both ways and both readings' options are returned.
 */
export function lessOptions(text: string): LessOption[] {
  return text.includes('\\') ? [...readOptions(text, false), ...readOptions(text, true)] : readOptions(text, false);
}

function readOptions(text: string, backslash: boolean): LessOption[] {
  const found: LessOption[] = [];
  let afterValue = false;
  let i = 0;
  const take = (name: string, kind: Kind, at: number): number => {
    let value: string | undefined;
    let next = at;
    if (kind === 'number') [value, next] = numberValue(text, at);
    else if (kind !== 'flag') {
      let start = at;
      while (text[start] === ' ') start++;
      if (start < text.length) [value, next] = stringValue(text, start, kind.chars, backslash);
    }
    found.push({ name, ...(value !== undefined ? { value } : {}), afterValue });
    if (kind !== 'flag') afterValue = true;
    return next;
  };
  while (i < text.length) {
    const ch = text[i++]!;
    if (ch === ' ' || ch === '\t' || ch === '$') continue;
    if (ch === '-') {
      if (text[i] !== '-') {
        if (text[i] === '+') i++;
        continue;
      }
      const name = /^[A-Za-z-]*/.exec(text.slice(i + 1))![0];
      i += 1 + name.length;
      const entry = longName(name);
      const after = text[i];
      if (entry === undefined || (after !== undefined && after !== ' ' && after !== '=')) {
        // less stops at a name it does not know; one that could be a file option is reported as that.
        found.push({ name: entry !== undefined && FILE_LETTERS.includes(entry[1]) ? entry[1] : '?', afterValue });
        return found;
      }
      const [longForm, letter, kind] = entry;
      if (after === '=') {
        if (kind === 'flag') {
          found.push({ name: '?', afterValue });
          return found;
        }
        i++;
      }
      i = take(letter || longForm, kind, i);
      continue;
    }
    if (ch === '+') {
      const [value, next] = stringValue(text, i, null, backslash);
      found.push({ name: '+', value, afterValue });
      afterValue = true;
      i = next;
      continue;
    }
    if (/\d/.test(ch)) {
      i = take('z', 'number', i - 1);
      continue;
    }
    if (!KNOWN_LETTERS.has(ch)) {
      found.push({ name: '?', afterValue });
      return found;
    }
    i = take(ch, LETTER_KINDS[ch] ?? 'flag', i);
  }
  return found;
}

/** A word that names a lesskey file anywhere in it, runs a start-up command (`+…!`/`|`), or names a log or tag file after a value (where a plain option reader would not look). */
export function lessRunsCode(word: string): boolean {
  if (word === '--' || !/^[-+]/.test(word)) return false;
  return lessOptions(word).some(
    (option) => option.name === 'k' || (option.name === '+' && /[!|]/.test(option.value ?? '')) || (option.afterValue && FILE_LETTERS.includes(option.name)),
  );
}
