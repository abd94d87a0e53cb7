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
  // Round 27: `jar:` (the archive's URL, before the first `!/`), `url:` and `<…>` too.
  for (;;) {
    const wrapper = /^(?:view-source|jar|url):/i.exec(text);
    if (wrapper !== null) {
      const inner = text.slice(wrapper[0].length);
      const bang = wrapper[0].toLowerCase() === 'jar:' ? inner.indexOf('!/') : -1;
      text = trim(urlParserReads(bang === -1 ? inner : inner.slice(0, bang)));
    } else if (text.length >= 2 && text.startsWith('<') && text.endsWith('>')) text = trim(urlParserReads(text.slice(1, -1)));
    else break;
  }
  return /^file:/i.test(text) ? text : null;
}

describe('fileUrlReading', () => {
  test('reads every spelling of wrappers, blanks, tabs and case as the parser does, one wrapper at a time', () => {
    const pieces = ['view-source:', 'VIEW-Source:', 'view-\tsource:', ' ', '\t', '\n', '\u0000', '\u00a0', '\u2028', '\u0085', 'file:', 'FiLe:', '//', '/etc/passwd', 'x', ':', 'jar:', 'JaR:', 'url:', 'URL:', '<', '>', '!/', '!', '/'];
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

  test('is linear in the jar:, url: and <…> wrappers too (round 27): 2 MB of each, with and without a !/ or a file: URL', () => {
    const n = 2 ** 21 / 4;
    expect(fileUrlReading(`${'jar:'.repeat(n)}file:///etc/passwd!/a`)).toBe('file:///etc/passwd');
    expect(fileUrlReading('jar:'.repeat(n))).toBeNull();
    expect(fileUrlReading(`${'jar:'.repeat(n)}x${'!/'.repeat(n)}`)).toBeNull();
    expect(fileUrlReading(`${'url:'.repeat(n)}file:///x`)).toBe('file:///x');
    expect(fileUrlReading(`${'<'.repeat(n)}file:///x${'>'.repeat(n)}`)).toBe('file:///x');
    expect(fileUrlReading(`${'<URL: '.repeat(n / 2)}jar:file:///x!/a${'>'.repeat(n / 2)}`)).toBe('file:///x');
    expect(fileUrlReading(`${'<URL: jar:'.repeat(n / 3)}file:///x!/${'>'.repeat(n / 3)}`)).toBeNull();
  });

  test('jar:, url: and <…>: the file each opens (Java, Python)', () => {
    expect(fileUrlReading('jar:file:///etc/passwd!/')).toBe('file:///etc/passwd');
    expect(fileUrlReading('JAR: file:///s.zip!/a!/b')).toBe('file:///s.zip');
    expect(fileUrlReading('jar:url:file:///s.zip!/a')).toBe('file:///s.zip');
    expect(fileUrlReading('url:file:///etc/passwd')).toBe('file:///etc/passwd');
    expect(fileUrlReading(' <URL: file:///etc/passwd> ')).toBe('file:///etc/passwd');
    expect(fileUrlReading('jar:https://example.com/a.jar!/x')).toBeNull();
    expect(fileUrlReading('<https://example.com/>')).toBeNull();
  });
});
