import { describe, expect, test } from 'vitest';
import { escapeJson, escapeText, isPlainText } from '../../src/latch/escape.js';

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
  ])('%j → %j', (input, output) => {
    expect(escapeText(input)).toBe(output);
  });

  test('rule strings with backslashes are plain; with controls they are not', () => {
    expect(isPlainText('Edit(/a/\\[b\\])')).toBe(true);
    expect(isPlainText('Edit(/a\nb)')).toBe(false);
  });
});

describe('escapeJson', () => {
  test('keeps JSON as JSON: quotes are not doubly escaped, what JSON leaves raw is escaped', () => {
    const json = JSON.stringify({ command: 'git commit -m "x"', path: 'a\u202Eb\u2028c\u0085' });
    const shown = escapeJson(json);
    expect(shown).toBe('{"command":"git commit -m \\"x\\"","path":"a\\u202eb\\u2028c\\u0085"}');
    expect(JSON.parse(shown)).toEqual(JSON.parse(json));
  });
});
