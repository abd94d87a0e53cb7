import type { ConfigIssue } from '../errors.js';
import { quotedShown } from '../latch/escape.js';

/**
 * A strict JSON reader that reports what JSON.parse hides: duplicate keys (JSON.parse silently keeps
 * the last one, so a second "fs" server or a second "deny" list would vanish without a word) and the
 * line and column of a syntax error. The value itself still comes from JSON.parse, so both agree.
 *
 *   {"mcpServers": {"fs": {…}, "fs": {…}}}  →  [{ path: 'mcpServers.fs', message: 'duplicate key "fs"' }]
 */
export type JsonReadResult = { ok: true; value: unknown } | { ok: false; issues: ConfigIssue[] };

export function readJson(text: string): JsonReadResult {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const scanner = new Scanner(source);
  try {
    scanner.skipSpace();
    scanner.value([]);
    scanner.skipSpace();
    if (scanner.pos < source.length) scanner.fail('unexpected text after the end of the JSON value');
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { ok: false, issues: [{ path: '(file)', message: error.message }] };
    throw error;
  }
  if (scanner.duplicates.length > 0) return { ok: false, issues: scanner.duplicates };
  return { ok: true, value: JSON.parse(source) as unknown };
}

/** Formats a key path the way issues print it: `mcpServers.fs.args[0]`. */
export function formatKeyPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out === '' ? '(root)' : out;
}

/**
 * Where the value at `path` (object keys) is in `text`, which readJson read without issues: its
 * first character and the one after its last; null when a key on the way is missing or not an
 * object's. For an edit that changes only that value (store/rules-file.ts).
 */
export function valueRange(text: string, path: readonly string[]): { start: number; end: number } | null {
  const offset = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const scanner = new Scanner(offset === 0 ? text : text.slice(1));
  const range = scanner.find(path);
  return range === null ? null : { start: range.start + offset, end: range.end + offset };
}

class JsonSyntaxError extends Error {}

/** A JSON number or literal, read where the scanner is (sticky). */
const LITERAL = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Walks the text as JSON.parse would read it, by character codes: a reload of a config of 5,000
 * remembered rules read every character as a one-character string and decoded every string with
 * JSON.parse of its own, ~40 times JSON.parse of the whole text (round 19; docs/performance.md
 * "Round 19: reloading remembered rules"). A string is decoded only when it is a key, and only
 * through JSON.parse when it holds an escape.
 */
class Scanner {
  pos = 0;
  readonly duplicates: ConfigIssue[] = [];

  constructor(private readonly text: string) {}

  fail(message: string): never {
    const before = this.text.slice(0, this.pos);
    const line = before.split('\n').length;
    const column = this.pos - before.lastIndexOf('\n');
    const hint = this.text.startsWith('//', this.pos) || this.text.startsWith('/*', this.pos) ? ' (comments are not allowed in mcp-latch.json)' : '';
    throw new JsonSyntaxError(`invalid JSON at line ${line}, column ${column}: ${message}${hint}`);
  }

  /** The range of the value at `path` (valueRange); every value passed on the way is scanned, not kept. */
  find(path: readonly string[]): { start: number; end: number } | null {
    const scratch: Array<string | number> = [];
    this.skipSpace();
    for (const wanted of path) {
      if (this.text.charCodeAt(this.pos) !== OPEN_BRACE) return null;
      this.pos++;
      for (;;) {
        this.skipSpace();
        if (this.text.charCodeAt(this.pos) !== QUOTE) return null;
        const key = this.string();
        this.skipSpace();
        this.pos++; // ':'
        this.skipSpace();
        // The first of duplicate keys would do, but readJson refuses a text with any.
        if (key === wanted) break;
        this.value(scratch);
        this.skipSpace();
        if (this.text.charCodeAt(this.pos) !== COMMA) return null;
        this.pos++;
      }
    }
    const start = this.pos;
    this.value(scratch);
    return { start, end: this.pos };
  }

  skipSpace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const code = text.charCodeAt(pos);
      if (code === 32 || code === 10 || code === 13 || code === 9) pos++;
      else break;
    }
    this.pos = pos;
  }

  value(path: Array<string | number>): void {
    const code = this.text.charCodeAt(this.pos);
    if (code === OPEN_BRACE) return this.object(path);
    if (code === OPEN_BRACKET) return this.array(path);
    if (code === QUOTE) {
      this.pos = this.stringEnd();
      return;
    }
    LITERAL.lastIndex = this.pos;
    const literal = LITERAL.exec(this.text);
    if (!literal) {
      const ch = this.text[this.pos];
      this.fail(ch === undefined ? 'unexpected end of file' : `unexpected character ${quotedShown(ch)}`);
    }
    this.pos += literal[0].length;
  }

  /** `path`: where this value is, as a stack the walk pushes to and pops (copied only for an issue). */
  object(path: Array<string | number>): void {
    const text = this.text;
    this.pos++;
    const seen = new Set<string>();
    this.skipSpace();
    if (text.charCodeAt(this.pos) === CLOSE_BRACE) {
      this.pos++;
      return;
    }
    for (;;) {
      this.skipSpace();
      if (text.charCodeAt(this.pos) !== QUOTE) this.fail('expected a quoted key');
      const key = this.string();
      if (seen.has(key)) this.duplicates.push({ path: formatKeyPath([...path, key]), message: `duplicate key "${key}"` });
      seen.add(key);
      this.skipSpace();
      if (text.charCodeAt(this.pos) !== COLON) this.fail('expected ":" after a key');
      this.pos++;
      this.skipSpace();
      path.push(key);
      this.value(path);
      path.pop();
      this.skipSpace();
      const next = text.charCodeAt(this.pos);
      this.pos++;
      if (next === CLOSE_BRACE) return;
      if (next !== COMMA) {
        this.pos--;
        this.fail('expected "," or "}"');
      }
      this.skipSpace();
      if (text.charCodeAt(this.pos) === CLOSE_BRACE) this.fail('trailing comma before "}"');
    }
  }

  array(path: Array<string | number>): void {
    const text = this.text;
    this.pos++;
    this.skipSpace();
    if (text.charCodeAt(this.pos) === CLOSE_BRACKET) {
      this.pos++;
      return;
    }
    for (let index = 0; ; index++) {
      this.skipSpace();
      path.push(index);
      this.value(path);
      path.pop();
      this.skipSpace();
      const next = text.charCodeAt(this.pos);
      this.pos++;
      if (next === CLOSE_BRACKET) return;
      if (next !== COMMA) {
        this.pos--;
        this.fail('expected "," or "]"');
      }
      this.skipSpace();
      if (text.charCodeAt(this.pos) === CLOSE_BRACKET) this.fail('trailing comma before "]"');
    }
  }

  /** The string at `pos` (a key), decoded; `pos` after it. */
  string(): string {
    const start = this.pos;
    const end = this.stringEnd();
    this.pos = end;
    const raw = this.text.slice(start + 1, end - 1);
    return raw.includes('\\') ? (JSON.parse(this.text.slice(start, end)) as string) : raw;
  }

  /**
   * Where the string at `pos` ends (after its closing quote), checked as JSON.parse checks it: no
   * raw control character, only JSON's escapes. The string is read to its end before a bad escape
   * is reported, so a text with two faults names the one it always named.
   */
  stringEnd(): number {
    const text = this.text;
    const start = this.pos;
    let badEscape = false;
    let pos = start + 1;
    for (;;) {
      // The run of plain characters at once: one scan of a character class (past the end a sticky
      // test fails and sets lastIndex to 0: not run there).
      if (pos < text.length) {
        PLAIN.lastIndex = pos;
        PLAIN.test(text);
        pos = PLAIN.lastIndex;
      }
      const code = text.charCodeAt(pos);
      if (code === QUOTE) break;
      if (code === BACKSLASH) {
        const escaped = text.charCodeAt(pos + 1);
        if (escaped === 117 /* u */ ? !/^[0-9A-Fa-f]{4}$/.test(text.slice(pos + 2, pos + 6)) : !ESCAPES.has(escaped)) badEscape = true;
        pos += 2;
      } else if (code < 32 || code !== code) {
        this.pos = pos;
        this.fail(code !== code ? 'unterminated string' : 'control character in a string');
      } else {
        pos++;
      }
    }
    if (badEscape) {
      this.pos = start;
      this.fail('invalid escape in a string');
    }
    return pos + 1;
  }
}

/** Characters a string holds as they are: anything but a quote, a backslash or a control character (sticky). */
const PLAIN = /[^"\\\u0000-\u001f]*/y;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
/** The characters JSON allows after a backslash, but `u` (RFC 8259 §7): " \ / b f n r t. */
const ESCAPES = new Set([34, 92, 47, 98, 102, 110, 114, 116]);
