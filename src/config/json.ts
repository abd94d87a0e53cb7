import type { ConfigIssue } from '../errors.js';

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
      if (this.text[this.pos] !== '{') return null;
      this.pos++;
      for (;;) {
        this.skipSpace();
        if (this.text[this.pos] !== '"') return null;
        const key = this.string();
        this.skipSpace();
        this.pos++; // ':'
        this.skipSpace();
        // The first of duplicate keys would do, but readJson refuses a text with any.
        if (key === wanted) break;
        this.value(scratch);
        this.skipSpace();
        if (this.text[this.pos] !== ',') return null;
        this.pos++;
      }
    }
    const start = this.pos;
    this.value(scratch);
    return { start, end: this.pos };
  }

  skipSpace(): void {
    while (this.pos < this.text.length && ' \t\r\n'.includes(this.text[this.pos]!)) this.pos++;
  }

  value(path: Array<string | number>): void {
    const ch = this.text[this.pos];
    if (ch === '{') return this.object(path);
    if (ch === '[') return this.array(path);
    if (ch === '"') {
      this.string();
      return;
    }
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.text.slice(this.pos, this.pos + 64));
    if (!literal) this.fail(ch === undefined ? 'unexpected end of file' : `unexpected character ${JSON.stringify(ch)}`);
    this.pos += literal[0].length;
  }

  /** `path`: where this value is, as a stack the walk pushes to and pops (copied only for an issue). */
  object(path: Array<string | number>): void {
    this.pos++;
    const seen = new Set<string>();
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('expected a quoted key');
      const key = this.string();
      if (seen.has(key)) this.duplicates.push({ path: formatKeyPath([...path, key]), message: `duplicate key "${key}"` });
      seen.add(key);
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail('expected ":" after a key');
      this.pos++;
      this.skipSpace();
      path.push(key);
      this.value(path);
      path.pop();
      this.skipSpace();
      const next = this.text[this.pos];
      this.pos++;
      if (next === '}') return;
      if (next !== ',') {
        this.pos--;
        this.fail('expected "," or "}"');
      }
      this.skipSpace();
      if (this.text[this.pos] === '}') this.fail('trailing comma before "}"');
    }
  }

  array(path: Array<string | number>): void {
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return;
    }
    for (let index = 0; ; index++) {
      this.skipSpace();
      path.push(index);
      this.value(path);
      path.pop();
      this.skipSpace();
      const next = this.text[this.pos];
      this.pos++;
      if (next === ']') return;
      if (next !== ',') {
        this.pos--;
        this.fail('expected "," or "]"');
      }
      this.skipSpace();
      if (this.text[this.pos] === ']') this.fail('trailing comma before "]"');
    }
  }

  string(): string {
    const start = this.pos;
    this.pos++;
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined) this.fail('unterminated string');
      if (ch === '"') break;
      if (ch === '\\') this.pos++;
      else if (ch < ' ') this.fail('control character in a string');
      this.pos++;
    }
    this.pos++;
    try {
      return JSON.parse(this.text.slice(start, this.pos)) as string;
    } catch {
      this.pos = start;
      return this.fail('invalid escape in a string');
    }
  }
}
