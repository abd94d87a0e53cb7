import { expect, test } from 'vitest';
import { MAX_DEPTH, nestsDeeperThan } from '../src/values.js';

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
