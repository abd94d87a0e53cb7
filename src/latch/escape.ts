import { headEnd, splitsPair } from '../code-points.js';
import { MAX_DEPTH } from '../values.js';

/**
 * Escaping for every call-supplied string a person will read (docs/approval.md). A path or command must not
 * be able to forge a line of the prompt, hide text, or reorder what is shown:
 *
 *   "/tmp/x\n\nWhy: allowed by rule"   →  /tmp/x\n\nWhy: allowed by rule      (one line, visible \n)
 *   "evil\u202Etxt.sh"                 →  evil\u202Etxt.sh                    (bidi override shown, not obeyed)
 *   "\x1b[2Jclear"                     →  \x1b[2Jclear                        (ANSI escape shown, not run)
 *
 * Covered: C0 and C1 controls, DEL, line and paragraph separators, every format character (Cf:
 * bidi embeddings, overrides, isolates and marks, zero-width characters) and every default-ignorable
 * code point (fillers, variation selectors, the tag characters U+E0000–E007F that spell hidden text
 * for a model while a screen shows nothing), and lone surrogates. Unicode's own properties, not a
 * hand list: a list missed the tag characters (round 11 review). Backslashes are doubled so an
 * escaped sequence cannot be confused with a literal one.
 */
let unsafeSet: RegExp | undefined;
/**
 * The two sets are made at their first use, not when the module is evaluated: this module is in
 * what serve runs before it spawns the first server (dist/serve/boot.cjs), and the process's first
 * regular expression with a Unicode property costs ~0.5 ms of CPU (ICU's property data) that no
 * server's boot overlaps there (docs/performance.md, "Round 22: start").
 */
const unsafe = (): RegExp => (unsafeSet ??= /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Cf}|\p{Default_Ignorable_Code_Point}|[\ud800-\udfff]/gu);

const NAMED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function escapeText(text: string): string {
  return marker(escapeHidden(text), unicodeEscape);
}

type Marker = (shown: string, escape: (ch: string) => string) => string;
/**
 * How escapeText and escapeJson show a look-alike word (`g\u0456t`, Cyrillic `і`; round 33 review
 * S33-3): look-alike.ts's markLookAlikes, which that module registers when it is loaded; the
 * prompt (latch/prompt.ts), the CLI's output (cli/output.ts) and the audit (store/audit.ts) load it.
 * Not imported here: this module is in what serve runs before its first spawn (dist/serve/boot.cjs,
 * held under 100 KB by test/cli/serve.test.ts), and the confusables table with its code is ~9 KB.
 * Until it is loaded (serve's boot: a config's errors, a server's first stderr lines), words are
 * shown as they are, as before round 33.
 */
let marker: Marker = (shown) => shown;
export function useLookAlikeMarker(mark: Marker): void {
  marker = mark;
}

/**
 * escapeText but for look-alike words: what is invisible or breaks a line. escapeText also shows a
 * word mixing scripts or reading as an ASCII word it is not (`gіt`, Cyrillic `і`) as `g\u0456t`
 * (look-alike.ts; round 33 review S33-3), which the approval page's copy (web/escape.js) does not.
 */
export function escapeHidden(text: string): string {
  return text.replace(unsafe(), (ch) => NAMED[ch] ?? unicodeEscape(ch));
}

/**
 * A server's text on a channel where the gateway's own texts also reach the person (a progress
 * message beside the gateway's "Waiting for approval", an error message beside its refusals): on one
 * line, escaped, and marked as the server's, `[server] …` (round 23 review F2; round 24 review F5).
 */
export function serversText(server: string, text: string): string {
  return `[${escapeText(server)}] ${escapeText(text)}`;
}

/**
 * Every string of a JSON value (keys too) escaped as escapeText does. What is nested deeper than
 * MAX_DEPTH is dropped (a server's error data that deep is left out before it gets here:
 * downstream/direct-calls.ts). A `__proto__` key stays a key (Object.fromEntries defines it).
 */
export function escapeStrings(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return escapeText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) return value.map((item) => escapeStrings(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [escapeText(key), escapeStrings(item, depth + 1)]));
}

/** What escapeLines leaves as it is besides escapeText's set: line breaks, tabs and backslashes. */
let unsafeInLinesSet: RegExp | undefined;
const unsafeInLines = (): RegExp => (unsafeInLinesSet ??= /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]|\p{Cf}|\p{Default_Ignorable_Code_Point}|[\ud800-\udfff]/gu);

/**
 * Escaping for a server's paragraph a client shows as a block and a model reads (a description in
 * a listing): what escapeText escapes, except that line breaks and tabs stay (a description has
 * lines, and it shows as the server's block, never as a line of the gateway's prompt) and
 * backslashes are not doubled (a regex or a Windows path in it reads as written). An ANSI escape,
 * a carriage return, a bidi control or a hidden tag character is shown, not obeyed
 * (docs/threat-model.md, "What a server sends through the protocol").
 */
export function escapeLines(text: string): string {
  return text.replace(unsafeInLines(), (ch) => NAMED[ch] ?? unicodeEscape(ch));
}

/** Every character past ASCII (and DEL), a whole code point at a time. */
let pastAsciiSet: RegExp | undefined;
const pastAscii = (): RegExp => (pastAsciiSet ??= /[^\u0000-\u007e]/gu);

/**
 * A server's or a tool's name as the prompt names the caller (docs/approval.md): escapeText, and
 * every character past ASCII written `\uXXXX` too. MCP's names are ASCII (tool names
 * `[A-Za-z0-9_.-]`, SEP-986); a name spelled with another script's look-alike letters (`gіthub`
 * with a Cyrillic `і`, `ｆｓ`) read as the server it imitates (round 30 review S30-6).
 */
export function escapeName(text: string): string {
  let shown = escapeHidden(text);
  if (pastAscii().test(shown)) shown = shown.replace(pastAscii(), unicodeEscape);
  // Then a run of spaces as escapeShown shows it (its other blanks are past ASCII, escaped already).
  return shown.includes('     ') ? shown.replace(BLANK_RUN, (run) => `⟨${run.length} spaces⟩`) : shown;
}

function unicodeEscape(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * A character JSON.stringify (and pino) leave raw that escapeJson may escape: DEL and every one past
 * ASCII. A JSON text without one, nearly every one, needs no escapeJson: one test (the audit file,
 * the log on stderr).
 */
export const PAST_ASCII = /[\u007f-\uffff]/;

/**
 * A rule offered as an answer's choice (remember.ts makes it plain: isPlainText), as it would be
 * saved, but every character past ASCII written `\uXXXX` as escapeName writes a name: a rule
 * `Bash(gіt push) in /p` (Cyrillic `і`) read as git's (round 32 review S32-1). ASCII rules, nearly
 * every one, are themselves.
 */
export function shownRule(rule: string): string {
  return pastAscii().test(rule) ? rule.replace(pastAscii(), unicodeEscape) : rule;
}

/**
 * Escaping for JSON text (the arguments of a call as JSON.stringify wrote them): JSON has already
 * escaped quotes, backslashes and C0 controls, so only what JSON leaves raw is escaped, as `\uXXXX`
 * (a pair of them for a character past U+FFFF)
 * (still valid JSON). Doubling the backslashes again would show `\\"` for every quote.
 */
export function escapeJson(json: string): string {
  return marker(escapeJsonHidden(json), jsonEscape);
}

/** escapeJson but for look-alike words (as escapeHidden). */
export function escapeJsonHidden(json: string): string {
  return json.replace(unsafe(), (ch) => (ch === '\\' ? ch : jsonEscape(ch)));
}

/** A character as JSON's `\uXXXX` (a pair of them past U+FFFF). */
const jsonEscape = (ch: string): string => ch.split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** The characters of a person's or a file's string an error message quotes (quotedShown). */
export const MAX_QUOTED = 200;

/**
 * A string an error message names (a rule, a name, a scope), quoted as JSON quotes it, what JSON
 * leaves raw escaped (escapeJson: C1 controls, bidi controls, zero-width and line separators), and
 * cut at `max` characters with the length it has: `"Read(/aaaa…"… (70,007 characters)`. `mcp-latch
 * validate` wrote a 70,000-character rule whole, U+202E in it raw (round 32 review S32-4).
 */
export function quotedShown(text: string, max = MAX_QUOTED): string {
  if (text.length <= max) return escapeJson(JSON.stringify(text));
  return `${escapeJson(JSON.stringify(text.slice(0, headEnd(text, max))))}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** True when the text has nothing invisible or line-breaking (backslashes allowed): required for rule strings offered as choices. */
export function isPlainText(text: string): boolean {
  return escapeHidden(text.replace(/\\/g, '/')) === text.replace(/\\/g, '/');
}

/** Escapes and shortens, marking what was cut (on a character's and an escape's boundary: shownEnd). */
export function escapeTruncated(text: string, max: number): string {
  const escaped = escapeText(text);
  if (escaped.length <= max) return escaped;
  const end = shownEnd(escaped, max);
  return `${escaped.slice(0, end)}… (${escaped.length - end} more characters)`;
}

/** One escape of escapeText or escapeJson (and JSON's own): `\xHH`, `\uHHHH`, `\u{H…}`, `\n`, `\\`, `\"`. */
const ESCAPE_AT = /\\(?:x[0-9a-f]{2}|u\{[0-9a-f]{1,6}\}|u[0-9a-f]{4}|[\\nrtbf"/])/y;
/** The longest escape (`\u{10ffff}`). */
const LONGEST_ESCAPE = 10;

/**
 * Where the escape of a shown text (escapeText, escapeJson) that `at` falls inside begins and ends;
 * null when `at` is between two. An escaped text's every lone backslash begins one (a backslash of
 * the text is doubled), so the nearest before `at` is the one that may reach past it.
 */
function escapeAcross(shown: string, at: number): { start: number; end: number } | null {
  const from = Math.max(0, at - LONGEST_ESCAPE);
  let slash = shown.lastIndexOf('\\', at - 1);
  if (slash < from) return null;
  // Inside a run of backslashes, an odd one is the second of a pair (`\\`): it begins nothing.
  let run = slash;
  while (run > 0 && shown[run - 1] === '\\') run -= 1;
  if ((slash - run) % 2 === 1) slash -= 1;
  ESCAPE_AT.lastIndex = slash;
  const end = ESCAPE_AT.test(shown) ? ESCAPE_AT.lastIndex : slash + 1;
  return slash < at && end > at ? { start: slash, end } : null;
}

/**
 * Where a head of a shown text cut at `at` ends: before the character past U+FFFF or the escape
 * (`\u202e`) that `at` would split, so a cut shows neither U+FFFD nor `\u20` (round 32 review S32-2).
 */
export function shownEnd(shown: string, at: number): number {
  if (at >= shown.length) return shown.length;
  const end = headEnd(shown, at);
  return escapeAcross(shown, end)?.start ?? end;
}

/** Where a tail of a shown text from `at` starts: after the character `at` would split, at the start of the escape it would. */
function shownStart(shown: string, at: number): number {
  if (at <= 0) return 0;
  const start = splitsPair(shown, at) ? at + 1 : at;
  return escapeAcross(shown, start)?.start ?? start;
}

/**
 * Blank characters a run of which pushes what follows off a terminal line (spaces, no-break and
 * typographic spaces, U+3000, U+2800 BRAILLE PATTERN BLANK): a `postinstall` line after 520 spaces
 * read as a version bump (review-approve15 A3).
 */
const BLANK_RUN = /[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800]{24,}/gu;

/**
 * The prompt's form of a call-supplied text (docs/approval.md "What the prompt shows"): escaped, a
 * run of 24 or more blanks shown as its length (`⟨520 spaces⟩`), and cut at `max` characters of
 * that form with the count of what was cut. `cut` tells the caller that part of the text is not shown.
 * `json`: the text is JSON (escapeJson). `keepEnd`: a cut text keeps its last `keepEnd` characters too
 * (head and tail, the count between them).
 */
export function escapeShown(text: string, max: number, json = false, keepEnd = 0): { text: string; cut: boolean } {
  const shown = (json ? escapeJson(text) : escapeText(text)).replace(BLANK_RUN, (run) => `⟨${run.length} ${/^ +$/.test(run) ? 'spaces' : 'blank characters'}⟩`);
  if (keepEnd <= 0) return cutShown(shown, max);
  if (shown.length <= max) return { text: shown, cut: false };
  const head = shownEnd(shown, max - keepEnd);
  const tail = shownStart(shown, shown.length - keepEnd);
  return { text: `${shown.slice(0, head)}… (${tail - head} characters not shown) …${shown.slice(tail)}`, cut: true };
}

/**
 * A text already in its shown form (escapeShown with no bound) cut at `max` characters with the
 * count of the rest: to cut one text at several lengths without escaping it again.
 */
export function cutShown(shown: string, max: number): { text: string; cut: boolean } {
  if (shown.length <= max) return { text: shown, cut: false };
  // Not between the two halves of a character past U+FFFF, nor inside an escape: before it.
  const end = shownEnd(shown, max);
  return { text: `${shown.slice(0, end)}… (${shown.length - end} more characters)`, cut: true };
}
