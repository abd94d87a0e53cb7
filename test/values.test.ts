import { expect, test } from 'vitest';
import { ArgsJson, MAX_DEPTH, jsonString, nestsDeeperThan } from '../src/values.js';
import { rng } from './helpers/random.js';

/** nestsDeeperThan as it was, walking arrays with for…in too: the reference for values from JSON. */
function reference(value: unknown, limit: number = MAX_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit <= 0) return true;
  for (const key in value) if (reference((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}

function nested(depth: number, array: (level: number) => boolean): string {
  let text = '1';
  for (let level = 0; level < depth; level++) text = array(level) ? `[0,${text},"x"]` : `{"a":1,"b":${text}}`;
  return text;
}

test('arrays and objects count alike, at the limit and one past it', () => {
  for (const array of [() => true, () => false, (level: number) => level % 2 === 0]) {
    expect(nestsDeeperThan(JSON.parse(nested(MAX_DEPTH, array)))).toBe(false);
    expect(nestsDeeperThan(JSON.parse(nested(MAX_DEPTH + 1, array)))).toBe(true);
    expect(nestsDeeperThan(JSON.parse(`[[],${nested(MAX_DEPTH + 1, array)}]`))).toBe(true);
  }
});

test('the same answer as walking every key, on 3,000 seeded values from JSON.parse', () => {
  let seed = 15;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const value = (depth: number): string => {
    if (depth === 0 || random() < 0.2) return random() < 0.5 ? '"s"' : 'null';
    const items = Array.from({ length: Math.floor(random() * 3) + 1 }, () => value(depth - 1));
    return random() < 0.5 ? `[${items.join(',')}]` : `{${items.map((item, index) => `"k${index}":${item}`).join(',')}}`;
  };
  for (let round = 0; round < 3000; round++) {
    const parsed: unknown = JSON.parse(value(12));
    const limit = Math.floor(random() * 12);
    expect(nestsDeeperThan(parsed, limit)).toBe(reference(parsed, limit));
  }
});

test('jsonString writes what JSON.stringify writes, on seeded strings of quotes, escapes, controls and surrogates', () => {
  const random = rng(77);
  const pieces = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\u0000', '\u001f', '\u007f', 'é', '日', '\u{1F600}', '\uD83D', '\uDE00', '\u2028', '</'];
  for (let index = 0; index < 5_000; index++) {
    const text = Array.from({ length: Math.floor(random() * 6) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
    expect(jsonString(text)).toBe(JSON.stringify(text));
  }
});

test("ArgsJson gives the text of its own arguments object only, made once", () => {
  const args = { command: 'ls' };
  const json = new ArgsJson(args);
  expect(json.textOf(args)).toBe('{"command":"ls"}');
  expect(json.textOf(args)).toBe(json.textOf(args));
  expect(json.textOf({ command: 'ls' })).toBeUndefined();
});
