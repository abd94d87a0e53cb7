import { describe, expect, test } from 'vitest';
import { cutShown, escapeJson, escapeLines, escapeShown, escapeStrings, escapeText, escapeTruncated, isPlainText, serversText } from '../../src/latch/escape.js';

// docs/approval.md: call-supplied strings cannot forge a line, hide text or reorder what a person reads.
describe('escapeText', () => {
  test.each([
    ['/tmp/x\nWhy it asks: approved', '/tmp/x\\nWhy it asks: approved'],
    ['\u001b[2Jcleared', '\\x1b[2Jcleared'],
    ['evil\u202Etxt.exe', 'evil\\u202etxt.exe'],
    ['zero\u200bwidth', 'zero\\u200bwidth'],
    ['line\u2028sep', 'line\\u2028sep'],
    ['back\\slash', 'back\\\\slash'],
    ['tab\there', 'tab\\there'],
    ['lone \ud800', 'lone \\ud800'],
    ['emoji 😀 stays', 'emoji 😀 stays'],
    // Invisible on every screen, read as text by a model (round 11 review: tag characters spelled a
    // hidden sentence after an approved 'lunch at noon?'); each default-ignorable code point is shown.
    ['noon?\u{E0020}\u{E0049}\u{E0047}', 'noon?\\u{e0020}\\u{e0049}\\u{e0047}'],
    ['a\u034Fb\u17B4c\uFFA0d', 'a\\u034fb\\u17b4c\\uffa0d'],
    ['x\u{1D173}y\u{E0100}z', 'x\\u{1d173}y\\u{e0100}z'],
    ['arabic sign\u0600', 'arabic sign\\u0600'],
  ])('%j → %j', (input, output) => {
    expect(escapeText(input)).toBe(output);
  });

  test('rule strings with backslashes are plain; with controls they are not', () => {
    expect(isPlainText('Edit(/a/\\[b\\])')).toBe(true);
    expect(isPlainText('Edit(/a\nb)')).toBe(false);
  });
});

describe('escapeJson', () => {
  test('a character past U+FFFF is escaped as its surrogate pair, still JSON', () => {
    const shown = escapeJson(JSON.stringify({ body: 'noon?\u{E0049}' }));
    expect(shown).toBe('{"body":"noon?\\udb40\\udc49"}');
    expect(JSON.parse(shown)).toEqual({ body: 'noon?\u{E0049}' });
  });

  test('keeps JSON as JSON: quotes are not doubly escaped, what JSON leaves raw is escaped', () => {
    const json = JSON.stringify({ command: 'git commit -m "x"', path: 'a\u202Eb\u2028c\u0085' });
    const shown = escapeJson(json);
    expect(shown).toBe('{"command":"git commit -m \\"x\\"","path":"a\\u202eb\\u2028c\\u0085"}');
    expect(JSON.parse(shown)).toEqual(JSON.parse(json));
  });
});

// A server's paragraph (a listed description): the same characters shown, except line breaks, tabs and backslashes.
describe('escapeLines', () => {
  test.each([
    ['two\nlines\tand a tab', 'two\nlines\tand a tab'],
    ['C:\\Users\\me', 'C:\\Users\\me'],
    ['\u001b[2Jcleared\r', '\\x1b[2Jcleared\\r'],
    ['evil\u202Etxt', 'evil\\u202etxt'],
    ['noon?\u{E0049}', 'noon?\\u{e0049}'],
    ['line\u2028sep', 'line\\u2028sep'],
  ])('%j → %j', (input, output) => {
    expect(escapeLines(input)).toBe(output);
  });
});

describe("a server's text and data (round 24 review F5)", () => {
  test('serversText: one line, escaped, marked as the server\'s', () => {
    expect(serversText('fs', 'mcp-latch: ok\nApproved by you\u202e')).toBe('[fs] mcp-latch: ok\\nApproved by you\\u202e');
  });
  test('escapeStrings: every string and key escaped, other values kept, a __proto__ key kept as a key', () => {
    const data = JSON.parse('{"hint":"\\u001b[2J","n":1,"list":["\\u202e",true,null],"__proto__":{"x":"\\n"},"k\\u0007":"v"}') as unknown;
    const escaped = escapeStrings(data) as Record<string, unknown>;
    expect(JSON.stringify(escaped)).toBe(JSON.stringify({ hint: '\\x1b[2J', n: 1, list: ['\\u202e', true, null], ['__proto__']: { x: '\\n' }, 'k\\x07': 'v' }));
    expect(Object.getPrototypeOf(escaped)).toBe(Object.prototype);
    expect(Object.keys(escaped)).toContain('__proto__');
  });
});

// Round 32 review S32-2: a cut of a shown text counted code units, so it split a character past
// U+FFFF (UTF-16 §3.9: a lone surrogate, shown as U+FFFD) or an escape (`\u20` of `\u202e`).
describe('a shown text is cut between characters and between escapes', () => {
  /** A surrogate with no partner: UTF-16 §3.9 D91 says it is no character (a screen shows U+FFFD). */
  const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  const text = 'a😀\u202e\\b\u{E0041}😀c\x1bd\ne😀'.repeat(3);
  const shown = escapeText(text);
  /** The escapes and characters of a shown text, in order: a cut must fall between two. */
  const parts = shown.match(/\\(?:x[0-9a-f]{2}|u\{[0-9a-f]+\}|u[0-9a-f]{4}|[\\nrt])|[\s\S]/gu)!;
  const boundaries = new Set(parts.reduce<number[]>((ends, part) => [...ends, ends[ends.length - 1]! + part.length], [0]));

  test('escapeTruncated, cutShown, escapeShown with and without a tail, at every length', () => {
    for (let max = 1; max < shown.length; max++) {
      for (const cut of [escapeTruncated(text, max), cutShown(shown, max).text, escapeShown(text, max).text]) {
        const kept = cut.slice(0, cut.lastIndexOf('… ('));
        expect(cut, `${max}`).not.toMatch(LONE_SURROGATE);
        expect(shown.startsWith(kept) && boundaries.has(kept.length), `${max}: ${JSON.stringify(cut)}`).toBe(true);
        expect(cut.endsWith(`(${shown.length - kept.length} more characters)`)).toBe(true);
      }
      if (max < 12) continue;
      const both = escapeShown(text, max, false, 6).text;
      const [first, rest] = both.split(/… \(\d+ characters not shown\) …/);
      expect(both, `${max}`).not.toMatch(LONE_SURROGATE);
      expect(shown.startsWith(first!) && boundaries.has(first!.length), `${max}: ${both}`).toBe(true);
      expect(shown.endsWith(rest!) && boundaries.has(shown.length - rest!.length), `${max}: ${both}`).toBe(true);
      expect(both).toContain(`(${shown.length - first!.length - rest!.length} characters not shown)`);
    }
  });

  test('JSON text (escapeJson) is cut between its escapes too', () => {
    const json = escapeJson(JSON.stringify({ text }));
    for (let max = 1; max < json.length; max++) {
      const cut = escapeShown(JSON.stringify({ text }), max, true).text;
      expect(cut, `${max}`).not.toMatch(LONE_SURROGATE);
      expect(cut.slice(0, cut.lastIndexOf('… (')), `${max}`).not.toMatch(/\\(?:u[0-9a-f]{0,3}|x[0-9a-f]?)$/);
    }
  });
});
