import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { CONFUSABLE_ASCII } from '../../src/latch/confusables.js';
import { escapeJson, escapeText, isPlainText } from '../../src/latch/escape.js';
import { isAsciiConfusable, isLookAlike, isMixedScript } from '../../src/latch/look-alike.js';
import { renderMessage, type PromptInput } from '../../src/latch/prompt.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { ROOT } from '../helpers/gateway.js';
import { decideShell } from '../helpers/policy.js';

/**
 * Round 33 review S33-3: a look-alike word in what a person is shown (docs/threat-model.md). From the
 * source of truth: Unicode's confusables.txt (UTS #39 §4), the lines whose prototype is ASCII
 * letters and digits (test/fixtures/confusables-ascii.txt, a copy of them), and UTS #39 §5.1's
 * examples of resolved script sets and §5.2's Highly Restrictive level.
 */
const FIXTURE = readFileSync(join(ROOT, 'test/fixtures/confusables-ascii.txt'), 'utf8');
const MAPPINGS = FIXTURE.split('\n').flatMap((line) => {
  const match = /^([0-9A-F]+) ;\t([0-9A-F ]+) ;\tMA/.exec(line);
  if (!match) return [];
  const source = String.fromCodePoint(parseInt(match[1]!, 16));
  const prototype = match[2]!.trim().split(' ').map((hex) => String.fromCodePoint(parseInt(hex, 16))).join('');
  return source.codePointAt(0)! < 0x80 ? [] : [{ line, source, prototype }];
});

beforeAll(async () => {
  await initShellParser();
});

describe('confusable with an ASCII word (the skeleton)', () => {
  test('the fixture is confusables.txt 17.0.0 and confusables.ts is made from it (scripts/confusables.js)', () => {
    expect(FIXTURE).toMatch(/^# Version: 17\.0\.0$/m);
    expect(MAPPINGS.length).toBeGreaterThan(1400);
    // Every character of the table is one of the fixture's, with its prototype.
    const table = new Map<string, string>();
    let source = '';
    for (const ch of CONFUSABLE_ASCII) {
      if (ch.codePointAt(0)! >= 0x80) table.set((source = ch), '');
      else table.set(source, table.get(source)! + ch);
    }
    const fromFixture = new Map(MAPPINGS.map(({ source: from, prototype }) => [from, prototype]));
    for (const [from, prototype] of table) expect(fromFixture.get(from), from).toBe(prototype);
  });

  test('every character whose prototype is ASCII makes a word of it read as that ASCII word, and is shown escaped', () => {
    const missed = MAPPINGS.filter(({ source }) => !isAsciiConfusable(`${source}${source}`) || !isLookAlike(`g${source}t`)).map(({ line }) => line);
    expect(missed).toEqual([]);
    for (const { source } of MAPPINGS.slice(0, 200)) expect(escapeText(`run g${source}t now`)).not.toContain(source);
  });

  test.each([
    ['g\u0456t push', 'g\\u0456t push'],
    ['\u0261it status', '\\u0261it status'],
    ['\u0455\u0455\u04bb host', '\\u0455\\u0455\\u04bb host'],
    ['\uff47\uff49\uff54 log', '\\uff47\\uff49\\uff54 log'],
    ['\u{1d420}\u{1d422}\u{1d42d}', '\\u{1d420}\\u{1d422}\\u{1d42d}'],
    ['/usr/bin/\u2223s -la', '/usr/bin/\\u2223s -la'],
    ['p\u0430ypal.com', 'p\\u0430ypal.com'],
  ])('%s is shown %s', (text, shown) => {
    expect(escapeText(text)).toBe(shown);
  });
});

describe('mixed-script (UTS #39 §5.1, §5.2 Highly Restrictive)', () => {
  test.each([
    // §5.1's examples: "Circle" is Latin; with Cyrillic С, с, е its resolved set is empty.
    ['Circle', false],
    ['\u0421ir\u0441l\u0435', true],
    ['\u0421ir\u04411\u0435', true],
    // Mathematical letters are Common: any script. Han with kana is Japanese; Han with Hangul Korean.
    ['\u3006\u5207', false],
    ['\u306d\u30ac', false],
    ['Git\u30ea\u30dd\u30b8\u30c8\u30ea', false],
    ['\u97d3\ud55c\uad6d', false],
    ['git\u043b\u0430\u0431', true],
    ['\u03b1\u0431', true],
    ['caf\u00e9', false],
  ])('%s: %s', (word, mixed) => {
    expect(isMixedScript(word)).toBe(mixed);
  });
});

describe('words that are no look-alike are shown as they are', () => {
  test.each(['caf\u00e9 na\u00efve Stra\u00dfe', 'ls /home/jos\u00e9', '\u041c\u043e\u0441\u043a\u0432\u0430 \u0438 \u0430', '\u6771\u4eac Git\u30ea\u30dd\u30b8\u30c8\u30ea', 'espa\u00f1ol a\u00f1o \u2014 2.0 \u2192 ok', '\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac \u03c4\u03bf'])('%s', (text) => {
    expect(escapeText(text)).toBe(text);
  });

  test("the gateway's own symbols, and a symbol beside digits only, are no word: (×14), 2×3, µs, ①", () => {
    expect(escapeText('(\u00d714) 2\u00d73 \u00b5s \u2460 \u2026 \u2192')).toBe('(\u00d714) 2\u00d73 \u00b5s \u2460 \u2026 \u2192');
  });

  test('a rule is still plain (isPlainText): its choice shows it with shownRule', () => {
    expect(isPlainText('Bash(g\u0456t push)')).toBe(true);
  });

  test('JSON: the same value, a look-alike word written \\uXXXX', () => {
    const json = escapeJson(JSON.stringify({ command: 'g\u0456t push', note: 'caf\u00e9' }));
    expect(json).toBe('{"command":"g\\u0456t push","note":"caf\u00e9"}');
    expect(JSON.parse(json)).toEqual({ command: 'g\u0456t push', note: 'caf\u00e9' });
  });
});

describe("the prompt's Command line and commands (round 32's leftover)", () => {
  test('a look-alike program in the call is shown escaped wherever the prompt shows it', () => {
    const command = 'g\u0456t push origin main';
    const decision = decideShell(command, { workspace: ['/w/p'], cwd: '/w/p' });
    const prompt: PromptInput = { server: 'shell', tool: 'run_command', kind: 'command', decision, args: { command }, argsDigest: 'd', rememberRules: null, offerSession: true };
    const message = renderMessage(prompt);
    expect(message).toContain('Command: g\\u0456t push origin main');
    expect(message).not.toContain('\u0456');
  });
});
