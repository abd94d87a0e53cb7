import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CLOSE_BRACE, COLON, COMMA, OPEN_BRACE, QUOTE } from '../json-shape.js';
import { scanString, scanValue } from '../downstream/answer-scan.js';

/**
 * A client's tools/call line, read without JSON.parse of the whole line when it has the shape every
 * client writes (docs/performance.md, "Round 19: the warm path"). The full path (lines.ts
 * parseMessage) parses the line, and the call's arguments are written again with JSON.stringify for
 * the digest, the audit record and the line to the server. For a line this scanner fully
 * recognises, the arguments are made by the scanner (one level of plain values: flatObject) or by
 * JSON.parse of their text alone, and that text is kept as the arguments' JSON: it is checked to be
 * what JSON.stringify writes for the object, so every later use reads the same text the full path
 * would have made. It accepts a line only when
 * - it is written as the TypeScript SDK's Client writes a call,
 *   `{"method":"tools/call","params":{"name":…,"arguments":{…}},"jsonrpc":"2.0","id":…}`, or as the
 *   Python SDK's does, `{"jsonrpc":"2.0","id":…,"method":"tools/call","params":{"name":…,"arguments":{…}}}`,
 *   with no whitespace and nothing else (so every key is there once), except a progress token
 *   after the arguments, `,"_meta":{"progressToken":…}` (META); the id a non-negative integer
 *   of at most 15 digits written plainly (any other `_meta`, no `arguments`, another order of keys or
 *   a string id takes the full path);
 * - the arguments' text is canonical (answer-scan.ts scanValue): no whitespace, JSON.stringify's
 *   escapes only, integers only, no repeated key, no key starting with a digit, no `__proto__`,
 *   at most MAX_SCAN_DEPTH levels (so never deeper than the full path's MAX_DEPTH check allows);
 * - the name is a string written as JSON.stringify writes it.
 *
 * Anything else — a string id, a float, an escaped slash, a repeated key anywhere, a `__proto__`,
 * whitespace inside the arguments, text that is not JSON — is refused here and takes the full path,
 * which parses it and answers a malformed line with its JSON-RPC error as before: a refusal is
 * never an error, only the slower way. The message made here is the one JSON.parse makes of the
 * line (test/gateway/call-scan.test.ts compares them on seeded and adversarial lines).
 */

/**
 * The last call scanned: its params object, and its arguments' text (read by UpstreamCalls.take,
 * keyed by the object); `argsSorted`: flatObject made the arguments and their keys came in sorted
 * order, so the text is canonicalJson's too (policy/digest.ts need not check the object again).
 */
export const scannedCall: { params: object | null; argsText: string; argsSorted: boolean } = { params: null, argsText: '', argsSorted: false };

const MINUS = 45;
const LETTER_M = 109;
const ZERO = 48;
const NINE = 57;

/** How the TypeScript SDK's Client writes a call (`{...request, jsonrpc, id}`), up to the name, and after the arguments. */
const SDK_HEAD = '{"method":"tools/call","params":{"name":';
const SDK_TAIL = '},"jsonrpc":"2.0","id":';
/** How the Python SDK writes one (its fields in order: jsonrpc, id, method, params), up to the id, and from the id to the name. */
const PYTHON_HEAD = '{"jsonrpc":"2.0","id":';
const PYTHON_MIDDLE = ',"method":"tools/call","params":{"name":';
const ARGUMENTS = ',"arguments":';

/**
 * The two envelopes up to the arguments' `{`, with a name of plain characters (no quote, escape,
 * control or surrogate: the name is then its text), matched by one sticky regular expression each.
 * A name or an id that does not match takes the comparisons below, which read the same lines (and
 * escaped names): this only finds the common case sooner. `startsWith` compared the fixed parts at
 * ~30 instructions a character, the regular expression's compiled code at a few (docs/performance.md,
 * "Round 20: warm path").
 */
const SDK_FAST = /\{"method":"tools\/call","params":\{"name":"[^"\\\u0000-\u001f\ud800-\udfff]*","arguments":\{/y;
const PYTHON_FAST = /\{"jsonrpc":"2\.0","id":(?:0|[1-9][0-9]{0,14}),"method":"tools\/call","params":\{"name":"[^"\\\u0000-\u001f\ud800-\udfff]*","arguments":\{/y;
/** From the end of a name to the arguments' `{`, as the fast expressions end. */
const NAME_TO_ARGUMENTS = '","arguments":{'.length;
/** The SDK's envelope after the arguments, to the end of the line, its id as idAt reads it. */
const SDK_TAIL_FAST = /\},"jsonrpc":"2\.0","id":(?:0|[1-9][0-9]{0,14})\}$/y;

/**
 * `,"_meta":{"progressToken":…}` right after the arguments, as both SDKs write a call whose client
 * asks for progress (the TypeScript SDK's Client with `onprogress`): the token a non-negative integer
 * of at most 15 digits written plainly, or a string of plain characters. Any other `_meta` (another
 * key, an escape, a float, a repeated key) takes the full path (docs/performance.md, "Round 20: warm path").
 */
const META = /,"_meta":\{"progressToken":(?:0|[1-9][0-9]{0,14}|"[^"\\\u0000-\u001f\ud800-\udfff]*")\}/y;
const META_TO_TOKEN = ',"_meta":{"progressToken":'.length;

/** The message of a tools/call line this scanner fully recognises (scannedCall then holds its arguments' text), or null. */
export function scanCall(line: string): JSONRPCMessage | null {
  let id = -1;
  let at: number;
  let name: string;
  let argsStart: number;
  SDK_FAST.lastIndex = 0;
  PYTHON_FAST.lastIndex = 0;
  // The third character tells the envelopes apart (`{"m…`, `{"j…`): a failed expression still cost ~200 instructions.
  if (line.charCodeAt(2) === LETTER_M && SDK_FAST.test(line)) {
    argsStart = SDK_FAST.lastIndex - 1;
    name = line.slice(SDK_HEAD.length + 1, argsStart - NAME_TO_ARGUMENTS + 1);
  } else if (PYTHON_FAST.test(line)) {
    // The expression proved the id's form; idAt reads its value.
    at = idAt(line, PYTHON_HEAD.length);
    if (at < 0) return null;
    id = scannedId;
    argsStart = PYTHON_FAST.lastIndex - 1;
    name = line.slice(at + PYTHON_MIDDLE.length + 1, argsStart - NAME_TO_ARGUMENTS + 1);
  } else {
    // The fixed parts are compared whole: a comparison per key and value cost several times more
    // (docs/performance.md, "Round 19: the warm path").
    if (line.startsWith(SDK_HEAD)) {
      at = SDK_HEAD.length;
    } else if (line.startsWith(PYTHON_HEAD)) {
      at = idAt(line, PYTHON_HEAD.length);
      if (at < 0 || !line.startsWith(PYTHON_MIDDLE, at)) return null;
      id = scannedId;
      at += PYTHON_MIDDLE.length;
    } else {
      return null;
    }
    const nameEnd = scanString(line, at);
    if (nameEnd < 0 || !line.startsWith(ARGUMENTS, nameEnd)) return null;
    name = stringAt(line, at, nameEnd);
    argsStart = nameEnd + ARGUMENTS.length;
    if (line.charCodeAt(argsStart) !== OPEN_BRACE) return null;
  }
  // A value taken here may be a slice of the line, which keeps the line alive as long as the value:
  // bounded by taking only short lines, where JSON.parse's fixed cost is most of its cost anyway.
  let args = line.length <= FLAT_LINE_CHARS ? flatObject(line, argsStart) : null;
  const argsEnd = args ? flatEnd : scanValue(line, argsStart, 1);
  if (argsEnd < 0) return null;
  // The progress token a client asking for progress sends, after the arguments (both SDKs).
  let paramsEnd = argsEnd;
  let meta: { progressToken: string | number } | null = null;
  META.lastIndex = argsEnd;
  if (line.charCodeAt(argsEnd) === COMMA && META.test(line)) {
    paramsEnd = META.lastIndex;
    const tokenAt = argsEnd + META_TO_TOKEN;
    meta = { progressToken: line.charCodeAt(tokenAt) === QUOTE ? line.slice(tokenAt + 1, paramsEnd - 2) : integerAt(line, tokenAt, paramsEnd - 1) };
  }
  if (id < 0) {
    SDK_TAIL_FAST.lastIndex = paramsEnd;
    if (!SDK_TAIL_FAST.test(line)) return null;
    at = idAt(line, paramsEnd + SDK_TAIL.length);
    if (at < 0 || at !== line.length - 1 || line.charCodeAt(at) !== CLOSE_BRACE) return null;
    id = scannedId;
  } else if (paramsEnd !== line.length - 2 || line.charCodeAt(paramsEnd) !== CLOSE_BRACE || line.charCodeAt(paramsEnd + 1) !== CLOSE_BRACE) {
    return null;
  }
  const argsText = line.slice(argsStart, argsEnd);
  const argsSorted = args !== null && flatSorted;
  if (args === null) {
    try {
      args = JSON.parse(argsText) as Record<string, unknown>;
    } catch {
      return null;
    }
  }
  const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
  scannedCall.params = params;
  scannedCall.argsText = argsText;
  scannedCall.argsSorted = argsSorted;
  return { jsonrpc: '2.0', id, method: 'tools/call', params } as JSONRPCMessage;
}

/** The value of the digits from `at` to `end`, which META proved to be an integer of at most 15 digits. */
function integerAt(line: string, at: number, end: number): number {
  let value = 0;
  for (; at < end; at++) value = value * 10 + line.charCodeAt(at) - ZERO;
  return value;
}

/** The id idAt read. */
let scannedId = 0;

/** A non-negative integer id of at most 15 digits at `at`, written plainly: the position after it (its value in scannedId), or -1. */
function idAt(line: string, at: number): number {
  const start = at;
  const first = line.charCodeAt(at);
  let id = 0;
  if (first === ZERO) at++;
  else if (first > ZERO && first <= NINE) {
    for (let code = first; isDigit(code); code = line.charCodeAt(++at)) id = id * 10 + code - ZERO;
  } else return -1;
  // A leading zero, a fraction or an exponent is not taken here (the full path parses or refuses it).
  if (at - start > 15 || isNumberPart(line.charCodeAt(at))) return -1;
  scannedId = id;
  return at;
}


/** The value of the string from `at` (its opening quote) to `end` (after its closing quote), both found by scanString. */
function stringAt(line: string, at: number, end: number): string {
  const text = line.slice(at + 1, end - 1);
  return text.indexOf('\\') === -1 ? text : (JSON.parse(line.slice(at, end)) as string);
}

/** The longest line whose arguments flatObject makes (longer ones are parsed by JSON.parse). */
const FLAT_LINE_CHARS = 4096;

/** Where flatObject's object ended: read only after it returned one. */
let flatEnd = 0;
/**
 * The keys of the last flat objects, by place, when written plainly: a tool's next call has the same
 * ones, and a key found here is used as it is (a string V8 has made a property key already), not
 * read by the expression, sliced and looked up in V8's string table again (~1k instructions a key;
 * docs/performance.md, "Round 28: per-call work"). Short, and few: a kept slice keeps its line.
 */
const keptKeys: string[] = [];
const KEPT_KEYS = 8;
const KEPT_KEY_CHARS = 64;
/** Whether its keys came in sorted order (each after the one before, as canonicalJson sorts them): read only after it returned one. */
let flatSorted = true;

/**
 * The arguments at `at` (their `{`) made here, when they are one level of strings, integers,
 * booleans and nulls written canonically (what most tools take; the same checks as scanValue's),
 * with the keys and values JSON.parse makes: JSON.parse's own cost per call was most of what it
 * took for a short object. Null for anything else: scanValue then checks the text and JSON.parse
 * makes the object, or the line is refused.
 */
function flatObject(line: string, at: number): Record<string, unknown> | null {
  const object: Record<string, unknown> = {};
  at++;
  flatSorted = true;
  if (line.charCodeAt(at) === CLOSE_BRACE) {
    flatEnd = at + 1;
    return object;
  }
  let previous: string | null = null;
  for (let place = 0; ; place++) {
    let keyEnd: number;
    let key: string;
    const known = place < KEPT_KEYS ? keptKeys[place] : undefined;
    if (known !== undefined && line.charCodeAt(at) === QUOTE && line.startsWith(known, at + 1) && line.charCodeAt(at + 1 + known.length) === QUOTE) {
      // The key the last object had here, written plainly (its text is its value): taken as it is.
      key = known;
      keyEnd = at + known.length + 2;
      if (line.charCodeAt(keyEnd) !== COLON) return null;
    } else {
      keyEnd = plainEnd(line, at);
      // Integer keys come first in JSON.stringify's order: a digit first is refused (answer-scan.ts scanObject).
      if (keyEnd < 0 || isDigit(line.charCodeAt(at + 1)) || line.charCodeAt(keyEnd) !== COLON) return null;
      key = plain ? line.slice(at + 1, keyEnd - 1) : stringAt(line, at, keyEnd);
      if (key === '__proto__') return null;
      if (plain && place < KEPT_KEYS && key.length <= KEPT_KEY_CHARS) keptKeys[place] = key;
    }
    // A key after every one before it (no key is an integer, refused above, so Object.keys gives
    // them in this order) is new: only one out of that order is looked for among the others, a
    // lookup of a new string's key (~0.5k instructions; docs/performance.md, "Round 28: per-call
    // work"). Canonical escapes write equal keys alike, so a repeated key is a repeated value here.
    if (previous !== null && !(flatSorted && previous < key)) {
      flatSorted = false;
      if (Object.hasOwn(object, key)) return null;
    }
    previous = key;
    at = keyEnd + 1;
    const code = line.charCodeAt(at);
    let value: unknown;
    if (code === QUOTE) {
      const end = plainEnd(line, at);
      if (end < 0) return null;
      value = plain ? line.slice(at + 1, end - 1) : stringAt(line, at, end);
      at = end;
    } else if (code === MINUS || isDigit(code)) {
      // An integer as JSON.stringify writes it: no -0, no leading zero, at most 15 characters (exact as a double).
      const start = at;
      if (code === MINUS) at++;
      const first = line.charCodeAt(at);
      let number = 0;
      if (first === ZERO) {
        if (code === MINUS) return null;
        at++;
      } else if (isDigit(first)) {
        for (let digit = first; isDigit(digit); digit = line.charCodeAt(++at)) number = number * 10 + digit - ZERO;
      } else {
        return null;
      }
      if (at - start > 15 || isNumberPart(line.charCodeAt(at))) return null;
      value = code === MINUS ? -number : number;
    } else if (code === 116 && line.startsWith('true', at)) {
      value = true;
      at += 4;
    } else if (code === 102 && line.startsWith('false', at)) {
      value = false;
      at += 5;
    } else if (code === 110 && line.startsWith('null', at)) {
      value = null;
      at += 4;
    } else {
      return null;
    }
    object[key] = value;
    const next = line.charCodeAt(at);
    if (next === CLOSE_BRACE) {
      flatEnd = at + 1;
      return object;
    }
    if (next !== COMMA) return null;
    at++;
  }
}

/** A string of plain characters (as the fast expressions' names): its text is its value. */
const PLAIN = /"[^"\\\u0000-\u001f\ud800-\udfff]*"/y;
/** Whether the string plainEnd last found was plain. */
let plain = false;

/** scanString, trying PLAIN first: the position after the string at `at`, or -1; `plain` says which. */
function plainEnd(line: string, at: number): number {
  PLAIN.lastIndex = at;
  plain = PLAIN.test(line);
  return plain ? PLAIN.lastIndex : scanString(line, at);
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

/** A character that would continue a number (a digit, a fraction, an exponent). */
function isNumberPart(code: number): boolean {
  return isDigit(code) || code === 46 || code === 101 || code === 69;
}
