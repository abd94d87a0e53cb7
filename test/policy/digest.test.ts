import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { argsDigest, canonicalJson } from '../../src/policy/digest.js';
import { ArgsJson } from '../../src/values.js';
import { rng } from '../helpers/random.js';

/** canonicalJson as it was written before its JSON.stringify fast path: the text it must keep giving. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${reference((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const KEYS = ['a', 'b', 'B', 'z', '10', '2', '_meta', 'é', '\u{1F600}', '\uFFFF', 'path', 'command', '__proto__', ''];

function randomValue(next: () => number, depth: number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const kind = depth > 3 ? Math.floor(next() * 5) : Math.floor(next() * 8);
  switch (kind) {
    case 0:
      return pick(['', 'text', 'é\u{1F600}', '"quoted"\n', '\uD800']);
    case 1:
      return pick([0, -0, 1.5, -7, 1e21, NaN, Infinity]);
    case 2:
      return pick([true, false, null]);
    case 3:
      return pick([undefined, () => 1, new Date(0)]);
    case 4:
      return 'x';
    case 5:
    case 6: {
      // An object from JSON.parse (own "__proto__" keys stay keys), keys in a random order, sometimes sorted.
      const keys = [...new Set(Array.from({ length: Math.floor(next() * 5) }, () => pick(KEYS)))];
      if (next() < 0.5) keys.sort();
      const object = JSON.parse(`{${keys.map((key) => `${JSON.stringify(key)}:0`).join(',')}}`) as Record<string, unknown>;
      for (const key of keys) Object.defineProperty(object, key, { value: randomValue(next, depth + 1), enumerable: true, writable: true, configurable: true });
      return next() < 0.1 ? Object.assign(Object.create(null), object) : object;
    }
    default: {
      const array = Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
      if (next() < 0.1) array.length += 1;
      return array;
    }
  }
}

describe('canonicalJson', () => {
  it('gives the same text as before its fast path, on 5,000 seeded values', () => {
    const next = rng(15);
    for (let i = 0; i < 5000; i++) {
      const value = randomValue(next, 0);
      expect(canonicalJson(value), JSON.stringify(value)).toBe(reference(value));
    }
  });

  it('sorts keys at every depth and leaves out undefined values, whichever path it takes', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(canonicalJson({ a: 1, b: [2, 'three'] })).toBe('{"a":1,"b":[2,"three"]}');
    expect(canonicalJson({ 2: 'two', 10: 'ten' })).toBe('{"10":"ten","2":"two"}');
    expect(canonicalJson(['s', 't', JSON.parse('{"__proto__":{"b":1,"a":2}}')])).toBe('["s","t",{"__proto__":{"a":2,"b":1}}]');
  });
});

describe('argsDigest from the arguments text made once (values.ts ArgsJson)', () => {
  it('is the digest of canonicalJson on 3,000 seeded argument objects, names with quotes and unicode', () => {
    const next = rng(1027);
    const names = ['s', 'my "server"', 'é\u{1F600}', 'a\\b', 'tool\n', '\uD800'];
    for (let index = 0; index < 3_000; index++) {
      const value = randomValue(next, 1);
      const args = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
      // The server alone, the tool alone, both or neither change from one call to the next (digest.ts keeps the last pair's text).
      const server = names[Math.floor(index / 2) % names.length]!;
      const tool = names[Math.floor(index / 3) % names.length]!;
      expect(argsDigest(server, tool, args, new ArgsJson(args))).toBe(hash('sha256', canonicalJson([server, tool, args])));
    }
  });

  it("another object's text is never used: the digest is of the arguments given", () => {
    const json = new ArgsJson({ command: 'ls' });
    expect(argsDigest('s', 't', { command: 'rm -rf /' }, json)).toBe(argsDigest('s', 't', { command: 'rm -rf /' }));
  });
});
