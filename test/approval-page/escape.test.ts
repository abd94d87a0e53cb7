import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
// The page's copy shows what is invisible or breaks a line as escape.ts does; it does not mark
// look-alike words (`g\u0456t`: escape.ts escapeText since round 33, look-alike.ts), so its
// escapeText and escapeJson are compared with escape.ts's without that (docs/threat-model.md S33-3).
import { cutShown, escapeHidden as escapeText, escapeJsonHidden as escapeJson, escapeName, escapeTruncated, isPlainText } from '../../src/latch/escape.js';
import { ROOT } from '../helpers/gateway.js';

/**
 * The page escapes call-supplied text in the browser with web/escape.js, a copy of the gateway's
 * src/latch/escape.ts. A copy can drift: this compares both on every UTF-16 code unit, every code
 * point past U+FFFF, on surrogate pairs and lone surrogates, and on the tricks the prompt tests use.
 */
interface PageEscape {
  escapeText(text: string): string;
  escapeJson(json: string): string;
  escapeTruncated(text: string, max: number): string;
  cutShown(shown: string, max: number): string;
  isPlainText(text: string): boolean;
  escapeRuns(text: string): Array<{ text: string; escape: boolean }>;
  escapeName(text: string): string;
  escapeNameRuns(text: string): Array<{ text: string; escape: boolean }>;
}

function loadPageEscape(): PageEscape {
  const scope: { globalThis?: unknown; mcpLatchEscape?: PageEscape } = {};
  scope.globalThis = scope;
  runInNewContext(readFileSync(join(ROOT, 'web/escape.js'), 'utf8'), scope);
  if (!scope.mcpLatchEscape) throw new Error('web/escape.js did not define mcpLatchEscape');
  return scope.mcpLatchEscape;
}

const page = loadPageEscape();

const SAMPLES = [
  '/tmp/x\n\nWhy: allowed by rule',
  'evil\u202Etxt.sh',
  '\x1b[2Jclear',
  'C:\\Users\\me\\file.txt',
  'a\\nb',
  'zero\u200bwidth\ufeffbom',
  '\u2028line\u2029para',
  'emoji 😀 ok',
  'lone \ud800 high and \udc00 low',
  'pair then lone \ud83d\ude00\ud83d',
  'tags\u{E0049}\u{E0047} and \u034f \u{1d173}',
  'soft\u00adhyphen \u061c arabic mark \u115f\u1160\u3164 fillers \ufe0f selector \ufff9 anchor',
  '',
];

describe('web/escape.js matches src/latch/escape.ts', () => {
  test('on every UTF-16 code unit', () => {
    const mismatches: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      if (page.escapeText(text) !== escapeText(text)) mismatches.push(code.toString(16));
    }
    expect(mismatches).toEqual([]);
  });

  test('on every code point past U+FFFF', () => {
    const mismatches: string[] = [];
    for (let code = 0x10000; code <= 0x10ffff; code++) {
      const text = `a${String.fromCodePoint(code)}b`;
      if (page.escapeText(text) !== escapeText(text)) mismatches.push(code.toString(16));
    }
    expect(mismatches).toEqual([]);
  });

  test.each(SAMPLES)('on %j', (text) => {
    expect(page.escapeText(text)).toBe(escapeText(text));
    expect(page.escapeJson(JSON.stringify({ text }))).toBe(escapeJson(JSON.stringify({ text })));
    expect(page.isPlainText(text)).toBe(isPlainText(text));
    expect(page.escapeTruncated(text, 8)).toBe(escapeTruncated(text, 8));
    // The runs the page marks up join to the same escaped text.
    expect(page.escapeRuns(text).map((run) => run.text).join('')).toBe(escapeText(text));
  });

  test('escapeTruncated and cutShown cut as escape.ts does, at every length of an astral text (round 32 review S32-2)', () => {
    const text = 'a😀\u202e\\b\u{E0041}😀c\x1bd\ne😀'.repeat(3);
    const json = escapeJson(JSON.stringify({ text }));
    for (let max = 1; max <= json.length; max++) {
      expect(page.escapeTruncated(text, max), `${max}`).toBe(escapeTruncated(text, max));
      expect(page.cutShown(json, max), `${max}`).toBe(json.length <= max ? json : cutShown(json, max).text);
    }
  });

  test('marks escapes but not doubled backslashes', () => {
    expect(page.escapeRuns('a\\b\nc')).toEqual([
      { text: 'a', escape: false },
      { text: '\\\\', escape: false },
      { text: 'b', escape: false },
      { text: '\\n', escape: true },
      { text: 'c', escape: false },
    ]);
  });
});

// Round 31 review S31-2: the page named a server and a tool with escapeText, so `g\u0456thub`
// (Cyrillic і) read as github on the page while the prompt showed it escaped (round 30, S30-6).
describe("web/escape.js's escapeName matches src/latch/escape.ts's", () => {
  test('on every UTF-16 code unit, alone and in a name', () => {
    const mismatches: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      if (page.escapeName(text) !== escapeName(text)) mismatches.push(code.toString(16));
    }
    expect(mismatches).toEqual([]);
  });

  test('on every code point past U+FFFF', () => {
    const mismatches: string[] = [];
    for (let code = 0x10000; code <= 0x10ffff; code++) {
      const text = `a${String.fromCodePoint(code)}b`;
      if (page.escapeName(text) !== escapeName(text)) mismatches.push(code.toString(16));
    }
    expect(mismatches).toEqual([]);
  });

  test.each([...SAMPLES, 'g\u0456thub', '\uff46\uff53', `a${' '.repeat(30)}b`, `${' '.repeat(24)}\u0456${' '.repeat(23)}.${' '.repeat(25)}`, 'x\u3000'.repeat(2), 'github'])('on %j', (text) => {
    expect(page.escapeName(text)).toBe(escapeName(text));
    expect(page.escapeNameRuns(text).map((run) => run.text).join('')).toBe(escapeName(text));
    // Nothing past ASCII is left unmarked but the marker of a run of spaces.
    for (const run of page.escapeNameRuns(text)) if (!run.escape) expect(run.text).toMatch(/^[\x20-\x7e]*$/);
  });

  test('a look-alike name is marked where it differs', () => {
    expect(page.escapeNameRuns('g\u0456thub')).toEqual([
      { text: 'g', escape: false },
      { text: '\\u0456', escape: true },
      { text: 'thub', escape: false },
    ]);
  });
});

describe('web/app.js', () => {
  test("names a call's server and tool with escapeName wherever it shows them", () => {
    const code = readFileSync(join(ROOT, 'web/app.js'), 'utf8');
    expect(code).not.toMatch(/escape(?:d|Text)\((?:item|entry|added\[0\])\.(?:server|tool)\b/);
    expect(code.match(/escape(?:dName|Name)\((?:item|entry|added\[0\])\.(?:server|tool)\b/g)).toHaveLength(10);
  });

  test('builds the DOM with text only: no HTML parsing sinks, no code from strings', () => {
    const code = readFileSync(join(ROOT, 'web/app.js'), 'utf8')
      .split('\n')
      .filter((line) => !line.trim().startsWith('//'))
      .join('\n');
    expect(code).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setAttribute\(\s*['"](on|style|href|src)/);
  });
});
