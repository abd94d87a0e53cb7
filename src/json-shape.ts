/**
 * How many values one message holds, read from its JSON text before it is parsed (docs/config.md,
 * "limits"). Parsing a message of 300,000 object keys, and each walk of the parsed object after it
 * (V8 sorts a large object's keys at every enumeration), took the gateway ~1 s for a server's
 * structuredContent and ~4 s for a client's arguments, while every other call of every client
 * waited (round 13 review R12). Counted on the text, a message over a limit is refused for the
 * cost of one pass over its characters, strings skipped natively.
 */

/** What `jsonShape` found: the values (as `valuesLeft` counts them: each value, array entry and object value), and the top-level `id` and `method`. */
export interface JsonShape {
  values: number;
  /** The top-level `id`: a number or a string, as JSON.parse reads it; null when there is none or it is neither. */
  id: string | number | null;
  /** The top-level `method` when it is a string, as JSON.parse reads it; else null. */
  method: string | null;
}

/**
 * The longest JSON text that cannot hold more than `values` values: in JSON each value but the
 * first takes two characters at least (a scalar and its separator, a container's two brackets), so
 * `n` characters hold at most (n + 1) / 2 (`[1,1,1]`: 7 characters, 4 values). A text no longer
 * need not be counted.
 */
export function mostCharsFor(values: number): number {
  return 2 * values - 1;
}

/** JSON's structural characters, as char codes (downstream/answer-scan.ts reads them too). */
export const QUOTE = 34;
export const BACKSLASH = 92;
export const COMMA = 44;
export const COLON = 58;
export const OPEN_BRACE = 123;
export const CLOSE_BRACE = 125;
export const OPEN_BRACKET = 91;
export const CLOSE_BRACKET = 93;

/**
 * The shape of the JSON text `text`, in one pass. Text that is not JSON gets a count all the same
 * (the parse that follows refuses it). Each value as written is counted, so a key written twice
 * counts twice: the count bounds the parse's work, which reads both.
 */
export function jsonShape(text: string): JsonShape {
  const shape: JsonShape = { values: 0, id: null, method: null };
  // One bit per open container, 1 for an object: the depth is not bounded here.
  const objects: boolean[] = [];
  let expectKey = false;
  let topKey = '';
  let at = 0;
  const length = text.length;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      const depth = objects.length;
      if (expectKey) {
        if (depth === 1) topKey = keyOf(text.slice(at, end));
        expectKey = false;
      } else {
        shape.values++;
        if (depth === 1) topValue(shape, topKey, text, at, end);
      }
      at = end;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      shape.values++;
      if (objects.length === 1) topValue(shape, topKey, '', 0, 0);
      objects.push(code === OPEN_BRACE);
      expectKey = code === OPEN_BRACE;
      at++;
      continue;
    }
    if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      objects.pop();
      expectKey = false;
      at++;
      continue;
    }
    if (code === COMMA) {
      expectKey = objects[objects.length - 1] === true;
      at++;
      continue;
    }
    if (code === COLON || code === 32 || code === 10 || code === 13 || code === 9) {
      at++;
      continue;
    }
    // A number, true, false or null: up to the next character that ends it.
    const start = at;
    while (at < length && !endsScalar(text.charCodeAt(at))) at++;
    shape.values++;
    if (objects.length === 1) topValue(shape, topKey, text, start, at);
    if (at === start) at++;
  }
  return shape;
}

/** The position after the string whose opening quote is at `at` (the text's end when it has none). */
function stringEnd(text: string, at: number): number {
  let close = text.indexOf('"', at + 1);
  while (close !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close + 1;
    close = text.indexOf('"', close + 1);
  }
  return text.length;
}

function endsScalar(code: number): boolean {
  return code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || code === QUOTE || code === OPEN_BRACE || code === OPEN_BRACKET || code === COLON || code === 32 || code === 10 || code === 13 || code === 9;
}

/** A key as JSON.parse reads it (an escaped one is decoded: `"i\u0064"` is `id`). */
function keyOf(written: string): string {
  if (!written.includes('\\')) return written.slice(1, -1);
  try {
    return String(JSON.parse(written));
  } catch {
    return '';
  }
}

/** A value of the top-level object, between `start` and `end` (empty for an object or array): kept when it is the `id` or the `method`. */
function topValue(shape: JsonShape, key: string, text: string, start: number, end: number): void {
  if (key !== 'id' && key !== 'method') return;
  const written = text.slice(start, end);
  if (key === 'method') {
    // Decoded as JSON.parse reads it: `"tools\/call"` is a tools/call (round 14 review W1).
    shape.method = written.length >= 2 && written.charCodeAt(0) === QUOTE ? keyOf(written) : null;
    return;
  }
  try {
    const id: unknown = JSON.parse(written);
    shape.id = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
  } catch {
    shape.id = null;
  }
}
