import { describe, expect, test } from 'vitest';
import { fileUrlReading, urlParserReads } from '../../src/subjects/url-spelling.js';

/** The reading as the URL parser states it, a wrapper at a time: the parser's first steps and a server's trim again for each wrapped URL (slow, obviously right). */
function readingByTheStandard(value: string): string | null {
  const blank = (ch: string) => ch <= ' ' || /\s/.test(ch) || ch === '\u0085';
  const trim = (text: string) => {
    let start = 0;
    let end = text.length;
    while (start < end && blank(text[start]!)) start++;
    while (end > start && blank(text[end - 1]!)) end--;
    return text.slice(start, end);
  };
  let text = trim(urlParserReads(value));
  while (/^view-source:/i.test(text)) text = trim(urlParserReads(text.slice('view-source:'.length)));
  return /^file:/i.test(text) ? text : null;
}

describe('fileUrlReading', () => {
  test('reads every spelling of wrappers, blanks, tabs and case as the parser does, one wrapper at a time', () => {
    const pieces = ['view-source:', 'VIEW-Source:', 'view-\tsource:', ' ', '\t', '\n', '\u0000', '\u00a0', '\u2028', '\u0085', 'file:', 'FiLe:', '//', '/etc/passwd', 'x', ':'];
    let seed = 27;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    let files = 0;
    for (let n = 0; n < 20_000; n++) {
      let value = '';
      const length = 1 + (next() % 7);
      for (let i = 0; i < length; i++) value += pieces[next() % pieces.length];
      const expected = readingByTheStandard(value);
      if (expected !== null) files++;
      expect(fileUrlReading(value), JSON.stringify(value)).toBe(expected);
    }
    expect(files).toBeGreaterThan(500);
  });

  test('is linear in the wrappers: 2 MB of `view-source:` before a file URL is read at once (review P27-5: a minute at 1 MB before)', () => {
    const wrapped = `${'view-source: '.repeat(2 ** 21 / 13)}file:///etc/passwd`;
    expect(fileUrlReading(wrapped)).toBe('file:///etc/passwd');
    expect(fileUrlReading('view-source:'.repeat(2 ** 21 / 12))).toBeNull();
    expect(fileUrlReading(`\t${'VIEW-SOURCE:\n'.repeat(2 ** 21 / 13)} FILE:///x`)).toBe('FILE:///x');
  });
});
