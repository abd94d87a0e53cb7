import { head } from '../code-points.js';
/**
 * A string mcp-latch decides on as a URL (a resource URI, a `file:` URL among a tool's or a
 * prompt's arguments) read as the server's URL parser reads it, not as it is written
 * (docs/threat-model.md, "Round 26: the review of round 25").
 *
 * The WHATWG URL Standard's basic URL parser (Node's `new URL` and `fileURLToPath`, browsers) first
 * removes every leading and trailing C0 control or space (U+0000–U+0020) and every ASCII tab or
 * newline (U+0009, U+000A, U+000D) anywhere, then reads the scheme case-insensitively. Python's
 * `urllib.parse.urlsplit` (3.11 on) strips leading C0 control or space and removes tab, CR and LF
 * anywhere too; a server that trims by hand (`String.prototype.trim`, `str.strip`) also drops
 * Unicode blanks at the ends. So `" file:///etc/passwd"`, `"fi\nle:///etc/passwd"` and
 * `"\u0000file:…"` are `file:///etc/passwd` to the server, while a test of the text as written saw
 * no `file:` URL: the read was allowed as one of the server's data (round 26 review P5).
 *
 *   urlParserReads(" fi\nle:///etc/passwd")            → "file:///etc/passwd"
 *   fileUrlReading("view-source:file:///etc/passwd")  → "file:///etc/passwd" (a browser opens the file)
 *   fileUrlReading("jar:file:///etc/passwd!/")         → "file:///etc/passwd" (Java and Firefox open the archive)
 *   uriSpellingProblem("file\t:///x")                 → "it holds the control character U+0009 at 4, …"
 */

/** The text the WHATWG basic URL parser goes on to read: its first steps, by hand (a regular expression `[\0-\x20]+$` is quadratic on a long inner run of blanks). */
export function urlParserReads(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 0x20) start++;
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end--;
  const trimmed = start === 0 && end === value.length ? value : value.slice(start, end);
  return TAB_OR_NEWLINE.test(trimmed) ? trimmed.replace(TAB_OR_NEWLINES, '') : trimmed;
}

const TAB_OR_NEWLINE = /[\t\n\r]/;
const TAB_OR_NEWLINES = /[\t\n\r]/g;
const FILE_SCHEME = /^file:/i;
/** `file:` and the wrappers read at a position (sticky): unwrapping moves an index, never re-reads the rest. */
const FILE_SCHEME_AT = /file:/iy;
/**
 * The wrappers a URL is opened through that open the URL they wrap (docs/threat-model.md, "Round 27:
 * left by round 26's protocol review"):
 * - `view-source:URL`: Chromium and Firefox open URL and show it as source;
 * - `jar:URL!/ENTRY`: Java's URL (`JarURLConnection` opens the archive at the URL before the first
 *   `!/`; OpenJDK 17 read `jar:file:///…/s.zip!/a.txt`, also `JAR:FILE:`, `jar: file:` and
 *   `jar:url:file:`) and Firefox's jar: handler open the archive a `file:` URL names, whatever the
 *   entry;
 * - `url:URL`: Java's `new URL` skips a leading `url:` in any case (`url:file:///…` is a file: URL);
 *   Python's `urllib.request.urlopen` skips `URL:` and a `<…>` around the URL (urllib.parse.unwrap:
 *   `<URL:file:///…>` read the file, Python 3.11).
 * Each is unwrapped, in any order and as often as it is written: taking a wrapper no reader takes
 * for one (a nested `jar:`, `jar:view-source:`) only makes a string a `file:` URL that nobody opens,
 * which asks or meets deny rules (fail closed).
 */
const WRAPPER_AT = /(?:view-source|url):/iy;
const JAR_AT = /jar:/iy;

/**
 * The `file:` URL `value` is to a URL parser, as that parser reads it (urlParserReads), when it is
 * one — also wrapped in `view-source:`, `jar:…!/`, `url:` or `<…>`, each of which opens the file it
 * wraps (WRAPPER_AT) — else null. Most strings (`/w/a.txt`, `https://…`, a message) cost two
 * regular-expression tests.
 *
 * Linear in the string's length, however many wrappers it has: the parser's first steps and the
 * ends' trim are done once (each wrapper's URL is inside the whole, and its tabs and newlines went
 * with the whole's), then each wrapper and the blanks after it are stepped over by index, a `<…>` or
 * a `jar:` URL's `!/ENTRY` by moving the end; the first `!/` is found once. Re-reading the rest at
 * each wrapper held the gateway's one thread for a minute on a 1 MB argument (docs/threat-model.md,
 * "Round 27: the review of round 26", P27-5).
 */
export function fileUrlReading(value: string): string | null {
  if (FILE_SCHEME.test(value) && !TAB_OR_NEWLINE.test(value) && !isBlank(value[value.length - 1]!)) return value;
  const text = trimmed(urlParserReads(value));
  let at = 0;
  let end = text.length;
  let bang = -2;
  for (;;) {
    while (at < end && isBlank(text[at]!)) at++;
    while (end > at && isBlank(text[end - 1]!)) end--;
    if (startsAt(WRAPPER_AT, text, at)) at = WRAPPER_AT.lastIndex;
    else if (startsAt(JAR_AT, text, at)) {
      at = JAR_AT.lastIndex;
      // The archive's URL ends at the first `!/` (Java's JarURLConnection), or with the text.
      if (bang === -2 || (bang !== -1 && bang < at)) bang = text.indexOf('!/', at);
      if (bang !== -1 && bang + 2 <= end) end = bang;
    } else if (end - at >= 2 && text[at] === '<' && text[end - 1] === '>') {
      at++;
      end--;
    } else break;
  }
  return at < end && startsAt(FILE_SCHEME_AT, text, at) ? text.slice(at, end) : null;
}

function startsAt(sticky: RegExp, text: string, at: number): boolean {
  sticky.lastIndex = at;
  return sticky.test(text);
}

/** `text` without the blanks a server's own trim removes at its ends (no-break space, U+2028…): such a server reads a `file:` URL after it. */
function trimmed(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isBlank(text[start]!)) start++;
  while (end > start && isBlank(text[end - 1]!)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * Why a resource URI is not written as the server's URL parser reads it, or null. Refused rather
 * than read for it: a server's parser may be WHATWG's, Python's or a hand-written trim, and each
 * drops a different set, so the only URI decided the same by all of them is one with none of them:
 * no C0 control or DEL anywhere, no blank (space or Unicode White_Space) at either end. A blank
 * inside stays (every parser keeps it, percent-encoded). The message names the character.
 */
export function uriSpellingProblem(uri: string): string | null {
  for (let index = 0; index < uri.length; index++) {
    const code = uri.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return `it holds the control character ${codePoint(code)} at ${index}: URL parsers drop such characters (the WHATWG URL Standard a tab or newline anywhere and any C0 control at the ends, Python's urllib the same) or encode them, so the server may read ${quoted(urlParserReads(uri))} instead`;
  }
  if (uri.length > 0 && isBlank(uri[0]!)) return `it begins with a blank (${codePoint(uri.charCodeAt(0))}), which a URL parser or a server's trim removes, so the server may read ${quoted(uri.trim())} instead`;
  if (uri.length > 0 && isBlank(uri[uri.length - 1]!)) return `it ends with a blank (${codePoint(uri.charCodeAt(uri.length - 1))}), which a URL parser or a server's trim removes, so the server may read ${quoted(uri.trim())} instead`;
  return null;
}

/** A character the WHATWG parser (C0 control or space), String.prototype.trim or Python's str.strip removes at an end (U+0085 is Python's only addition to JavaScript's set past C0). */
function isBlank(ch: string): boolean {
  return ch <= ' ' || /\s/.test(ch) || ch === '\u0085';
}

function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `text` as JSON writes it (controls spelled out; the reason is escaped again where a person reads it), cut to 200 characters. */
export function quoted(text: string): string {
  return JSON.stringify(text.length > 200 ? `${head(text, 200)}…` : text);
}
