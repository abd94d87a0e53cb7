import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CLOSE_BRACE, COLON, COMMA, OPEN_BRACE, QUOTE } from '../json-shape.js';
import { scanString, scanValue } from '../downstream/answer-scan.js';

/**
 * A client's tools/call line, read without JSON.parse of the whole line when it has the shape every
 * client writes (docs/performance.md, "Round 19: the warm path"). The full path (lines.ts
 * parseMessage) parses the line, and the call's arguments are written again with JSON.stringify for
 * the digest, the audit record and the line to the server. For a line this scanner fully
 * recognises, only the arguments' text is parsed, and that text is kept as the arguments' JSON: it
 * is checked to be what JSON.stringify writes for the parsed object, so every later use reads the
 * same text the full path would have made. It accepts a line only when
 * - it is one object with exactly the keys `jsonrpc` ("2.0"), `id` (a non-negative integer of at
 *   most 15 digits, written plainly), `method` ("tools/call") and `params`, each once, in any order,
 *   with JSON's whitespace between them;
 * - `params` has exactly `name` (a string) and `arguments` (an object), each once (a `_meta`, or no
 *   `arguments`, takes the full path);
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

/** The last call scanned: its params object, and its arguments' text (read by UpstreamCalls.take, keyed by the object). */
export const scannedCall: { params: object | null; argsText: string } = { params: null, argsText: '' };

const ZERO = 48;
const NINE = 57;

/** The message of a tools/call line this scanner fully recognises (scannedCall then holds its arguments' text), or null. */
export function scanCall(line: string): JSONRPCMessage | null {
  let at = skipSpace(line, 0);
  if (line.charCodeAt(at) !== OPEN_BRACE) return null;
  let seen = 0;
  let id = 0;
  let name = '';
  let argsStart = 0;
  let argsEnd = 0;
  for (;;) {
    at = skipSpace(line, at + 1);
    if (line.charCodeAt(at) !== QUOTE) return null;
    if (line.startsWith('jsonrpc"', at + 1)) {
      if (seen & 1) return null;
      seen |= 1;
      at = afterColon(line, at + 9);
      if (at < 0 || !line.startsWith('"2.0"', at)) return null;
      at += 5;
    } else if (line.startsWith('id"', at + 1)) {
      if (seen & 2) return null;
      seen |= 2;
      at = afterColon(line, at + 4);
      if (at < 0) return null;
      const start = at;
      const first = line.charCodeAt(at);
      if (first === ZERO) at++;
      else if (first > ZERO && first <= NINE) {
        for (let code = first; isDigit(code); code = line.charCodeAt(++at)) id = id * 10 + code - ZERO;
      } else return null;
      // A leading zero, a fraction or an exponent is not taken here (the full path parses or refuses it).
      if (at - start > 15 || isNumberPart(line.charCodeAt(at))) return null;
    } else if (line.startsWith('method"', at + 1)) {
      if (seen & 4) return null;
      seen |= 4;
      at = afterColon(line, at + 8);
      if (at < 0 || !line.startsWith('"tools/call"', at)) return null;
      at += 12;
    } else if (line.startsWith('params"', at + 1)) {
      if (seen & 8) return null;
      seen |= 8;
      at = afterColon(line, at + 8);
      if (at < 0 || line.charCodeAt(at) !== OPEN_BRACE) return null;
      let inner = 0;
      for (;;) {
        at = skipSpace(line, at + 1);
        if (line.charCodeAt(at) !== QUOTE) return null;
        if (line.startsWith('name"', at + 1)) {
          if (inner & 1) return null;
          inner |= 1;
          at = afterColon(line, at + 6);
          if (at < 0) return null;
          const end = scanString(line, at);
          if (end < 0) return null;
          const text = line.slice(at + 1, end - 1);
          name = text.includes('\\') ? (JSON.parse(line.slice(at, end)) as string) : text;
          at = end;
        } else if (line.startsWith('arguments"', at + 1)) {
          if (inner & 2) return null;
          inner |= 2;
          at = afterColon(line, at + 11);
          if (at < 0 || line.charCodeAt(at) !== OPEN_BRACE) return null;
          argsStart = at;
          at = scanValue(line, at, 1);
          if (at < 0) return null;
          argsEnd = at;
        } else {
          return null;
        }
        at = skipSpace(line, at);
        const next = line.charCodeAt(at);
        if (next === CLOSE_BRACE) break;
        if (next !== COMMA) return null;
      }
      if (inner !== 3) return null;
      at++;
    } else {
      return null;
    }
    at = skipSpace(line, at);
    const next = line.charCodeAt(at);
    if (next === CLOSE_BRACE) break;
    if (next !== COMMA) return null;
  }
  if (seen !== 15 || skipSpace(line, at + 1) !== line.length) return null;
  const argsText = line.slice(argsStart, argsEnd);
  let args: unknown;
  try {
    args = JSON.parse(argsText);
  } catch {
    return null;
  }
  const params = { name, arguments: args as Record<string, unknown> };
  scannedCall.params = params;
  scannedCall.argsText = argsText;
  return { jsonrpc: '2.0', id, method: 'tools/call', params } as JSONRPCMessage;
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

/** A character that would continue a number (a digit, a fraction, an exponent). */
function isNumberPart(code: number): boolean {
  return isDigit(code) || code === 46 || code === 101 || code === 69;
}
