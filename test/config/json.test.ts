import { expect, test } from 'vitest';
import { readJson, valueRange } from '../../src/config/json.js';

/**
 * The strict reader of the config (duplicate keys, where a syntax error is), rewritten in round 19
 * to read character codes and decode only keys (docs/performance.md "Round 19: reloading remembered
 * rules"). It must accept exactly what JSON.parse accepts (less the texts with duplicate keys), give
 * JSON.parse's value, and name the same fault, at the same place, as the reader before it.
 */
const SEEDS = [
  '{"a": [1, 2.5e3, -0, true, false, null], "b": {"c": "x\\u00e9\\n\\"y", "d": 1}}',
  '{\n  "mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"]}},\n  "permissions": {"allow": ["Bash(ls)", "Read(/a/**)"]}\n}\n',
  '\ufeff{"k\\\\ey": "v", "k\\\\ey": 2, "\\u006b": [{}, []]}',
  '{"a":"\\ud83d\\ude00", "b": "\\/\\b\\f\\r\\t"}',
];
const PIECES = ['"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', 'u', '0', 'a', '\t', '\x01', 'e', '-', '/', '/*', 'true', '\\u12', '\\x', '\\u00e9', '"k"'];

test('over 30,000 texts mutated from valid configs, some cut short: ok exactly when JSON.parse reads it and no key repeats, with its value', () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >>> 8) % n;
  };
  let valid = 0;
  for (let round = 0; round < 30_000; round++) {
    let text = SEEDS[random(SEEDS.length)]!;
    for (let edits = random(3) + 1; edits > 0; edits--) {
      const at = random(text.length + 1);
      const piece = PIECES[random(PIECES.length)]!;
      text = [text.slice(0, at) + text.slice(at + 1), text.slice(0, at) + piece + text.slice(at), text.slice(0, at) + piece + text.slice(at + 1)][random(3)]!;
    }
    // Cut short, a quarter of them: a string, an escape or a value ending with the text.
    if (random(4) === 0) text = text.slice(0, random(text.length + 1));
    const read = readJson(text);
    let parsed: { value: unknown } | null = null;
    try {
      parsed = { value: JSON.parse(text.replace(/^\ufeff/, '')) as unknown };
    } catch {
      parsed = null;
    }
    if (read.ok) {
      valid += 1;
      expect(parsed).not.toBeNull();
      expect(read.value).toEqual(parsed!.value);
    } else if (parsed !== null) {
      expect(read.issues.every((issue) => issue.message.startsWith('duplicate key'))).toBe(true);
    }
  }
  expect(valid).toBeGreaterThan(1000);
});

test('each fault is named as before, at the same line and column (the reader of round 18 gave these)', () => {
  const cases: Array<[string, string]> = [
    ['{"a":"\\u/*d83d\\ude00/*}', 'invalid JSON at line 1, column 24: unterminated string'],
    ['{"a":"\\ud\u00013d-ud-e00"}', 'invalid JSON at line 1, column 10: control character in a string'],
    ['{"a":"\\ud83d\\ude00\\u12"}', 'invalid JSON at line 1, column 6: invalid escape in a string'],
    ['{"a": [1, 2,]}', 'invalid JSON at line 1, column 13: trailing comma before "]"'],
    ['{\n  "a": 1,\n  // note\n}', 'invalid JSON at line 3, column 3: expected a quoted key (comments are not allowed in mcp-latch.json)'],
    ['{"a" 1}', 'invalid JSON at line 1, column 6: expected ":" after a key'],
    ['{"a": tru}', 'invalid JSON at line 1, column 7: unexpected character "t"'],
    ['{"a": 1} x', 'invalid JSON at line 1, column 10: unexpected text after the end of the JSON value'],
    ['{"a": "x\\', 'invalid JSON at line 1, column 11: unterminated string'],
  ];
  for (const [text, message] of cases) expect(readJson(text)).toEqual({ ok: false, issues: [{ path: '(file)', message }] });
  expect(readJson('{"mcpServers": {"fs": {}, "f\\u0073": {}}}')).toEqual({ ok: false, issues: [{ path: 'mcpServers.fs', message: 'duplicate key "fs"' }] });
  expect(valueRange('\ufeff{"a": {"b\\n": [1, "]"]}}', ['a', 'b\n'])).toEqual({ start: 15, end: 23 });
});
