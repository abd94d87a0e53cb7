import { CONFUSABLE_ASCII } from './confusables.js';
import { useLookAlikeMarker } from './escape.js';

/**
 * Words a person would read as an ASCII word they are not (docs/approval.md "What the prompt shows";
 * round 33 review S33-3): `gіt push` with a Cyrillic `і` read as git's on the prompt's Command line.
 * A subset of UTS #39 (Unicode Security Mechanisms), stated:
 *
 * - mixed-script (§5.1, §5.2): the word's letters share no script (Script_Extensions; Common and
 *   Inherited go with any), and it is not what UTS #39's "Highly Restrictive" level allows, Latin
 *   with Han and Hiragana/Katakana (Japanese), Han and Bopomofo, Han and Hangul (`gіt`: Latin and
 *   Cyrillic; `Gitリポジトリ` is allowed). The scripts told apart are those of SCRIPTS; a letter of
 *   any other counts as one script of its own, "other";
 * - confusable with ASCII (§4, the skeleton): the word, in NFD, each character past ASCII
 *   replaced with its prototype from confusables.txt when that is ASCII letters and digits
 *   (`confusables.ts`), else with its NFKC form (which the table leaves to it: fullwidth and
 *   mathematical letters), is ASCII letters and digits, and the word is not: `ɡit` (Latin script g),
 *   `ѕѕһ` (Cyrillic), `ｇｉｔ` (fullwidth). Words of two characters or more: a one-letter word of
 *   Cyrillic or Greek prose (`а`, `о`, the conjunction and the preposition) is no program's name.
 *
 * A word is a run of ASCII letters and digits and characters past ASCII that are no space, with a
 * letter (`×14` is none). Such a
 * word is shown with its characters past ASCII written `\uXXXX` (as escapeName writes a name:
 * `g\u0456t`); every other word as it is (`café`, `naïve`, `Straße`, `Москва`, `東京`).
 */
let wordSet: RegExp | undefined;
/** Made at first use, as the other property tests (escape.ts). */
const word = (): RegExp => (wordSet ??= /(?:[A-Za-z0-9]|[^\u0000-\u007f\p{Z}])+/gu);
const PAST_ASCII = /[^\u0000-\u007f]/u;
const ASCII_WORD = /^[A-Za-z0-9]+$/;

/** The scripts told apart: those confusables.txt maps to Latin's letters, and the East Asian ones of Highly Restrictive. */
const SCRIPTS = ['Latin', 'Greek', 'Cyrillic', 'Armenian', 'Georgian', 'Cherokee', 'Coptic', 'Hebrew', 'Arabic', 'Syriac', 'Thaana', 'Nko', 'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Thai', 'Lao', 'Myanmar', 'Khmer', 'Ethiopic', 'Tifinagh', 'Canadian_Aboriginal', 'Lisu', 'Vai', 'Bamum', 'Runic', 'Ogham', 'Mongolian', 'Tibetan', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Bopomofo'] as const;
/** UTS #39 §5.1's augmented sets: Han is also Japanese, Korean and Han with Bopomofo; kana Japanese; Hangul Korean. */
const AUGMENTED: Record<string, readonly string[]> = { Han: ['Jpan', 'Kore', 'Hanb'], Hiragana: ['Jpan'], Katakana: ['Jpan'], Hangul: ['Kore'], Bopomofo: ['Hanb'] };
const EAST_ASIAN: readonly string[] = ['Jpan', 'Kore', 'Hanb'];

let tests: { any: RegExp; listed: RegExp; scripts: Array<[string, RegExp]> } | undefined;
let prototypes: Map<number, string> | undefined;

/** The regular expressions, made at first use (a property's first use costs ICU's data: escape.ts). */
function scriptTests(): { any: RegExp; listed: RegExp; scripts: Array<[string, RegExp]> } {
  return (tests ??= {
    any: /^[\p{scx=Zyyy}\p{scx=Zinh}]$/u,
    // One test before the list's: most characters are of one script or of none listed.
    listed: new RegExp(`^[${SCRIPTS.map((name) => `\\p{scx=${name}}`).join('')}]$`, 'u'),
    scripts: SCRIPTS.map((name) => [name, new RegExp(`^\\p{scx=${name}}$`, 'u')]),
  });
}

function prototypeOf(code: number): string | undefined {
  if (prototypes === undefined) {
    prototypes = new Map();
    let source = -1;
    for (const ch of CONFUSABLE_ASCII) {
      const at = ch.codePointAt(0)!;
      if (at >= 0x80) {
        source = at;
        prototypes.set(source, '');
      } else prototypes.set(source, prototypes.get(source)! + ch);
    }
  }
  return prototypes.get(code);
}

/** The scripts of one character (null: Common or Inherited, any script), with UTS #39's augmentation. */
function scriptsOf(ch: string): Set<string> | null {
  const { any, listed, scripts } = scriptTests();
  if (any.test(ch)) return null;
  if (!listed.test(ch)) return new Set(['other']);
  const found = new Set<string>();
  for (const [name, test] of scripts) {
    if (!test.test(ch)) continue;
    found.add(name);
    for (const more of AUGMENTED[name] ?? []) found.add(more);
  }
  if (found.size === 0) found.add('other');
  return found;
}

/** The scripts every character of `word` has (UTS #39 §5.1's resolved script set); null when none restricts it. */
function resolved(characters: readonly string[]): Set<string> | null {
  let common: string[] | null = null;
  for (const ch of characters) {
    const scripts = scriptsOf(ch);
    if (scripts === null) continue;
    common = common === null ? [...scripts] : common.filter((name) => scripts.has(name));
  }
  return common === null ? null : new Set(common);
}

/** Whether `word` (with a character past ASCII) mixes scripts past what Highly Restrictive allows. */
export function isMixedScript(word: string): boolean {
  const characters = [...word];
  const all = resolved(characters);
  if (all === null || all.size > 0) return false;
  // Latin with one of the East Asian sets is allowed: the rest, less Latin's letters, resolves to one.
  const rest = resolved(characters.filter((ch) => !scriptsOf(ch)?.has('Latin')));
  return rest === null || ![...rest].some((name) => EAST_ASIAN.includes(name));
}

/** Whether `word` (with a character past ASCII, two or more characters) reads as an ASCII word: its skeleton is one. */
export function isAsciiConfusable(word: string): boolean {
  if ([...word].length < 2) return false;
  let skeleton = '';
  for (const ch of word.normalize('NFD')) skeleton += ch.codePointAt(0)! < 0x80 ? ch : (prototypeOf(ch.codePointAt(0)!) ?? ch.normalize('NFKC'));
  return ASCII_WORD.test(skeleton);
}

/** Whether `word` is shown escaped: mixed-script or confusable with an ASCII word. */
export function isLookAlike(word: string): boolean {
  return PAST_ASCII.test(word) && letter().test(word) && (isMixedScript(word) || isAsciiConfusable(word));
}

let letterSet: RegExp | undefined;
/** A word with no letter is none (`×14`, `2×3`: a symbol is read as a letter only beside letters, `∣s`). */
const letter = (): RegExp => (letterSet ??= /\p{L}/u);

/**
 * `text` (escaped already) with every look-alike word's characters past ASCII written `\uXXXX`
 * (`escape(ch)`); `text` itself when it has none past ASCII, one test.
 */
export function markLookAlikes(text: string, escape: (ch: string) => string): string {
  if (!PAST_ASCII.test(text)) return text;
  return text.replace(word(), (found) => (isLookAlike(found) ? found.replace(/[^\u0000-\u007f]/gu, escape) : found));
}

// escapeText and escapeJson mark look-alike words from the moment this module is loaded (escape.ts useLookAlikeMarker).
useLookAlikeMarker(markLookAlikes);
