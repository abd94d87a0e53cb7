import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../json-shape.js';
import { MAX_ANSWER_ENTRIES } from './answer-entries.js';

/**
 * A server's answer to a tools/call, read without JSON.parse when the gateway would pass its result
 * on unchanged (docs/performance.md, "Round 10: the answer's own bytes").
 *
 * The full path parses the line, checks the result (gateway/call-result.ts) and writes it again
 * with JSON.stringify. For a result that passes the hand check as it is (text blocks only, an
 * `isError` boolean, a `structuredContent` object), and whose text is already what JSON.stringify
 * would write, that writes the server's own bytes again: this scanner finds them, checking as it
 * goes. It accepts a line only when
 * - it is one object with exactly the keys `jsonrpc` ("2.0"), `id` (a non-negative integer written
 *   plainly) and `result`, each once (whitespace between them is JSON's);
 * - the result is what `isPlainTextResult` accepts: `content` (an array of objects with exactly
 *   `type: "text"` and a string `text`), optionally `isError` (a boolean) and `structuredContent`
 *   (an object), each once, no other key;
 * - the result's text is canonical: no whitespace, strings escaped only where JSON.stringify escapes
 *   (\" \\ \b \f \n \r \t, \u00xx lowercase for other controls; no lone surrogate), integers only
 *   (no fraction, exponent or -0, at most 15 digits), no repeated key, no key starting with a digit
 *   (JSON.stringify writes integer keys first) and no `__proto__`, nesting at most MAX_SCAN_DEPTH.
 *
 * So the result's text is JSON.stringify(JSON.parse(text)), the full path's bytes, and nests less
 * deeply than MAX_DEPTH. Anything else (a server error, a string id, a float, an image block, an
 * escaped slash, a line that is not JSON) is refused here and takes the full path, which checks
 * and answers it as before: a refusal is never an error, only the slower way.
 */

/** Where `scanAnswer` found the answer: read only after it returned true (one object, reused: no allocation per answer). */
export const scanned = { id: 0, resultStart: 0, resultEnd: 0 };

/** How deep `structuredContent` may nest here (the full path allows MAX_DEPTH, 100). */
export const MAX_SCAN_DEPTH = 32;

const MINUS = 45;
const ZERO = 48;
const NINE = 57;

/** How the SDK's servers write an answer (`{result, jsonrpc, id}`): up to the result, and from it to the id. */
const SDK_HEAD = '{"result":';
const SDK_TAIL = ',"jsonrpc":"2.0","id":';

/**
 * The SDK's answer of one text block: up to the text's opening quote, and from its closing quote to
 * the end of the line (the id as sdkAnswer reads it). Compared by sticky regular expressions, which
 * read a fixed text at a few instructions a character where `startsWith` took ~30
 * (docs/performance.md, "Round 20: warm path"); a line they do not match is read as before.
 */
const ONE_TEXT_HEAD = /\{"result":\{"content":\[\{"type":"text","text":"/y;
const ONE_TEXT_TAIL = /\}\]\},"jsonrpc":"2\.0","id":[1-9][0-9]{0,14}\}$/y;
/** The text's quote in ONE_TEXT_HEAD, and from the text's end to the id in ONE_TEXT_TAIL. */
const ONE_TEXT_AT = '{"result":{"content":[{"type":"text","text":'.length;
const ONE_TEXT_TO_ID = '}]},"jsonrpc":"2.0","id":'.length;
/** A string of plain characters (no quote, escape, control or surrogate): one that needs no check by hand. */
const PLAIN = /[^"\\\u0000-\u001f\ud800-\udfff]*"/y;
/**
 * The whole answer of one plain text block in one expression (head, text, tail): one match where the
 * three above took three, each with its own entry cost (docs/performance.md, "Round 22: 16 in
 * flight"). A line it does not match is read by the three as before.
 */
const ONE_PLAIN_TEXT = /\{"result":\{"content":\[\{"type":"text","text":"[^"\\\u0000-\u001f\ud800-\udfff]*"\}\]\},"jsonrpc":"2\.0","id":[1-9][0-9]{0,14}\}$/y;

/** True when `line` is a plain tools/call answer whose result can be passed on as written; `scanned` then says where. */
export function scanAnswer(line: string): boolean {
  ONE_PLAIN_TEXT.lastIndex = 0;
  if (ONE_PLAIN_TEXT.test(line)) return plainTextAnswer(line);
  ONE_TEXT_HEAD.lastIndex = 0;
  if (ONE_TEXT_HEAD.test(line) && oneTextAnswer(line)) return true;
  // The SDK's own order, its fixed parts compared whole: a comparison per key cost about as much as
  // the result's scan (docs/performance.md, "Round 19: the warm path"). Any other line is read key by key below.
  if (line.startsWith(SDK_HEAD) && sdkAnswer(line)) return true;
  let at = skipSpace(line, 0);
  if (line.charCodeAt(at) !== OPEN_BRACE) return false;
  let seen = 0;
  for (;;) {
    at = skipSpace(line, at + 1);
    if (line.charCodeAt(at) !== QUOTE) return false;
    if (line.startsWith('jsonrpc"', at + 1)) {
      if (seen & 1) return false;
      seen |= 1;
      at = afterColon(line, at + 9);
      if (at < 0 || !line.startsWith('"2.0"', at)) return false;
      at += 5;
    } else if (line.startsWith('id"', at + 1)) {
      if (seen & 2) return false;
      seen |= 2;
      at = afterColon(line, at + 4);
      if (at < 0) return false;
      const start = at;
      const first = line.charCodeAt(at);
      if (first < ZERO + 1 || first > NINE) return false;
      let id = 0;
      for (let code = first; isDigit(code); code = line.charCodeAt(++at)) id = id * 10 + code - ZERO;
      if (at - start > 15 || isNumberPart(line.charCodeAt(at))) return false;
      scanned.id = id;
    } else if (line.startsWith('result"', at + 1)) {
      if (seen & 4) return false;
      seen |= 4;
      at = afterColon(line, at + 8);
      if (at < 0) return false;
      scanned.resultStart = at;
      at = scanResult(line, at);
      if (at < 0) return false;
      scanned.resultEnd = at;
    } else {
      return false;
    }
    at = skipSpace(line, at);
    const next = line.charCodeAt(at);
    if (next === CLOSE_BRACE) break;
    if (next !== COMMA) return false;
  }
  return seen === 7 && skipSpace(line, at + 1) === line.length;
}

/** scanAnswer for a line that starts with SDK_HEAD: true when it is the whole answer in the SDK's order. */
function sdkAnswer(line: string): boolean {
  const resultEnd = scanResult(line, SDK_HEAD.length);
  if (resultEnd < 0 || !line.startsWith(SDK_TAIL, resultEnd)) return false;
  let at = resultEnd + SDK_TAIL.length;
  const start = at;
  const first = line.charCodeAt(at);
  if (first < ZERO + 1 || first > NINE) return false;
  let id = 0;
  for (let code = first; isDigit(code); code = line.charCodeAt(++at)) id = id * 10 + code - ZERO;
  if (at - start > 15 || at !== line.length - 1 || line.charCodeAt(at) !== CLOSE_BRACE) return false;
  scanned.id = id;
  scanned.resultStart = SDK_HEAD.length;
  scanned.resultEnd = resultEnd;
  return true;
}

/** scanAnswer for a line ONE_PLAIN_TEXT matched: its text has no quote, so the first one after its opening quote ends it. */
function plainTextAnswer(line: string): true {
  return oneTextScanned(line, line.indexOf('"', ONE_TEXT_AT + 1) + 1);
}

/** scanAnswer for a line that starts with ONE_TEXT_HEAD: true when it is the whole answer of one text block. */
function oneTextAnswer(line: string): boolean {
  PLAIN.lastIndex = ONE_TEXT_AT + 1;
  const textEnd = PLAIN.test(line) ? PLAIN.lastIndex : scanString(line, ONE_TEXT_AT);
  if (textEnd < 0) return false;
  ONE_TEXT_TAIL.lastIndex = textEnd;
  if (!ONE_TEXT_TAIL.test(line)) return false;
  return oneTextScanned(line, textEnd);
}

/** The answer of one text block ending at `textEnd`, its tail checked: its id (digits to the line's last brace) and its result's span. */
function oneTextScanned(line: string, textEnd: number): true {
  let id = 0;
  for (let at = textEnd + ONE_TEXT_TO_ID; at < line.length - 1; at++) id = id * 10 + line.charCodeAt(at) - ZERO;
  scanned.id = id;
  scanned.resultStart = SDK_HEAD.length;
  scanned.resultEnd = textEnd + 3;
  return true;
}

/** After a key's closing quote at `at - 1`: the position of its value, or -1. */
function afterColon(line: string, at: number): number {
  at = skipSpace(line, at);
  if (line.charCodeAt(at) !== COLON) return -1;
  return skipSpace(line, at + 1);
}

function skipSpace(line: string, at: number): number {
  for (;;) {
    const code = line.charCodeAt(at);
    if (code !== 32 && code !== 10 && code !== 13 && code !== 9) return at;
    at++;
  }
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

/** A character that would continue a number (a fraction, an exponent, a digit): such a number is not taken here. */
function isNumberPart(code: number): boolean {
  return isDigit(code) || code === 46 || code === 101 || code === 69;
}

/** The result object at `at`: the position after it, or -1. */
function scanResult(line: string, at: number): number {
  if (line.charCodeAt(at) !== OPEN_BRACE) return -1;
  let seen = 0;
  for (;;) {
    at++;
    if (line.startsWith('"content":[', at)) {
      if (seen & 1) return -1;
      seen |= 1;
      at = scanContent(line, at + 11);
    } else if (line.startsWith('"isError":', at)) {
      if (seen & 2) return -1;
      seen |= 2;
      at += 10;
      if (line.startsWith('true', at)) at += 4;
      else if (line.startsWith('false', at)) at += 5;
      else return -1;
    } else if (line.startsWith('"structuredContent":{', at)) {
      if (seen & 4) return -1;
      seen |= 4;
      at = scanValue(line, at + 20, 1);
    } else {
      return -1;
    }
    if (at < 0) return -1;
    const next = line.charCodeAt(at);
    if (next === CLOSE_BRACE) return seen & 1 ? at + 1 : -1;
    if (next !== COMMA) return -1;
  }
}

/** The content array after its `[`: text blocks only, at most MAX_ANSWER_ENTRIES (more take the full path, which refuses them). The position after its `]`, or -1. */
function scanContent(line: string, at: number): number {
  if (line.charCodeAt(at) === CLOSE_BRACKET) return at + 1;
  for (let blocks = 1; blocks <= MAX_ANSWER_ENTRIES; blocks++) {
    at = scanTextBlock(line, at);
    if (at < 0) return -1;
    const next = line.charCodeAt(at);
    if (next === CLOSE_BRACKET) return at + 1;
    if (next !== COMMA) return -1;
    at++;
  }
  return -1;
}

/** `{"type":"text","text":"…"}`, its two keys in either order and nothing else. */
function scanTextBlock(line: string, at: number): number {
  if (line.charCodeAt(at) !== OPEN_BRACE) return -1;
  let seen = 0;
  for (;;) {
    at++;
    if (line.startsWith('"type":"text"', at)) {
      if (seen & 1) return -1;
      seen |= 1;
      at += 13;
    } else if (line.startsWith('"text":"', at)) {
      if (seen & 2) return -1;
      seen |= 2;
      at = scanString(line, at + 7);
    } else {
      return -1;
    }
    if (at < 0) return -1;
    const next = line.charCodeAt(at);
    if (next === CLOSE_BRACE) return seen === 3 ? at + 1 : -1;
    if (next !== COMMA) return -1;
  }
}

/** The characters a string's scan stops at: the closing quote, an escape, a control, a surrogate. */
const SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/g;
/** How many characters are looked at one by one before SPECIAL is used (its call costs more than a short text). */
const PLAIN_RUN = 32;

/**
 * A string at `at` (its opening quote) written as JSON.stringify writes its value: the position
 * after its closing quote, or -1.
 */
export function scanString(line: string, at: number): number {
  if (line.charCodeAt(at) !== QUOTE) return -1;
  at++;
  const plainUntil = at + PLAIN_RUN;
  for (;;) {
    // Past a short run, the regular expression finds the next character to look at natively:
    // a character at a time, a long text took ~4 ns a character, several times JSON.parse's.
    if (at > plainUntil) {
      SPECIAL.lastIndex = at;
      if (!SPECIAL.test(line)) return -1;
      at = SPECIAL.lastIndex - 1;
    }
    const code = line.charCodeAt(at);
    if (code === QUOTE) return at + 1;
    if (code === BACKSLASH) {
      const escaped = line.charCodeAt(at + 1);
      // \" \\ \b \f \n \r \t: the escapes JSON.stringify writes by name.
      if (escaped === QUOTE || escaped === BACKSLASH || escaped === 98 || escaped === 102 || escaped === 110 || escaped === 114 || escaped === 116) {
        at += 2;
        continue;
      }
      // \u00xx: the other controls, in lowercase hex; any other \u (a letter, a surrogate, uppercase) and \/ are not how JSON.stringify writes them.
      if (escaped !== 117 || line.charCodeAt(at + 2) !== ZERO || line.charCodeAt(at + 3) !== ZERO) return -1;
      const high = line.charCodeAt(at + 4);
      const low = line.charCodeAt(at + 5);
      if (high !== ZERO && high !== ZERO + 1) return -1;
      const lowValue = isDigit(low) ? low - ZERO : low >= 97 && low <= 102 ? low - 87 : -1;
      if (lowValue < 0) return -1;
      const value = (high - ZERO) * 16 + lowValue;
      if (value === 8 || value === 9 || value === 10 || value === 12 || value === 13) return -1;
      at += 6;
      continue;
    }
    // A raw control is not JSON (and NaN is the end of the line); JSON.stringify escapes a lone surrogate.
    if (code < 32 || code !== code) return -1;
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = line.charCodeAt(at + 1);
      if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return -1;
      at += 2;
      continue;
    }
    at++;
  }
}

/** Any JSON value at `at`, canonical, objects and arrays at most MAX_SCAN_DEPTH deep: the position after it, or -1. */
export function scanValue(line: string, at: number, depth: number): number {
  const code = line.charCodeAt(at);
  if (code === QUOTE) return scanString(line, at);
  if (code === OPEN_BRACE) return depth > MAX_SCAN_DEPTH ? -1 : scanObject(line, at, depth);
  if (code === OPEN_BRACKET) {
    if (depth > MAX_SCAN_DEPTH) return -1;
    at++;
    if (line.charCodeAt(at) === CLOSE_BRACKET) return at + 1;
    for (;;) {
      at = scanValue(line, at, depth + 1);
      if (at < 0) return -1;
      const next = line.charCodeAt(at);
      if (next === CLOSE_BRACKET) return at + 1;
      if (next !== COMMA) return -1;
      at++;
    }
  }
  if (code === 116) return line.startsWith('true', at) ? at + 4 : -1;
  if (code === 102) return line.startsWith('false', at) ? at + 5 : -1;
  if (code === 110) return line.startsWith('null', at) ? at + 4 : -1;
  // An integer as JSON.stringify writes it: no -0, no leading zero, within 2^53.
  const start = at;
  if (code === MINUS) at++;
  const first = line.charCodeAt(at);
  if (first === ZERO) {
    if (code === MINUS) return -1;
    at++;
  } else if (first > ZERO && first <= NINE) {
    while (isDigit(line.charCodeAt(at))) at++;
  } else {
    return -1;
  }
  if (at - start > 15 || isNumberPart(line.charCodeAt(at))) return -1;
  return at;
}

/**
 * Keys an object's repeated-key check compares by hand; past them a Set takes over: an object of
 * 300,000 keys took the full path, whose parse, walks and write cost ~0.5 s (round 13 review R12;
 * json-shape.ts bounds the values of an answer to 100,000).
 */
const LISTED_KEYS = 64;

/** An object at `at`: keys written once each, none that JSON.stringify would move or JSON.parse treat apart. */
function scanObject(line: string, at: number, depth: number): number {
  at++;
  if (line.charCodeAt(at) === CLOSE_BRACE) return at + 1;
  const keys: string[] = [];
  let many: Set<string> | null = null;
  for (;;) {
    const keyEnd = scanString(line, at);
    if (keyEnd < 0) return -1;
    // Integer keys come first in JSON.stringify's order; a digit first is refused, a superset of them.
    if (isDigit(line.charCodeAt(at + 1))) return -1;
    // Escaped text is canonical, so equal keys have equal text.
    const key = line.slice(at, keyEnd);
    if (key === '"__proto__"') return -1;
    if (many) {
      if (many.has(key)) return -1;
      many.add(key);
    } else {
      if (keys.includes(key)) return -1;
      keys.push(key);
      if (keys.length === LISTED_KEYS) many = new Set(keys);
    }
    if (line.charCodeAt(keyEnd) !== COLON) return -1;
    at = scanValue(line, keyEnd + 1, depth + 1);
    if (at < 0) return -1;
    const next = line.charCodeAt(at);
    if (next === CLOSE_BRACE) return at + 1;
    if (next !== COMMA) return -1;
    at++;
  }
}
