import { describe, expect, test } from 'vitest';
import { DENY_CANDIDATE } from '../../src/policy/decide.js';
import type { PathSubject } from '../../src/policy/types.js';
import { inspectCall, MAX_CANDIDATE_DEPTH } from '../../src/subjects/inspect.js';
import type { ToolClass } from '../../src/subjects/kind.js';
import { rng } from '../helpers/random.js';

/**
 * Step 5 (docs/design.md#classifying-an-unknown-tool-in-order) looks for a path-looking string
 * with one pass over each string first (subjects/inspect.ts hasPathCharacter), and builds nothing
 * when none is found (docs/performance.md, "Round 12: the warm path"). That fast path must never
 * pass over a string the definition takes as a path: a leading `~` or `.`, a separator, a `file:`
 * URL, one word with an extension; not a URL of another scheme, text over a line or 4,096 characters.
 */
const GUESSED: ToolClass = { kind: 'all', source: 'unknown', paths: [], command: null, cwd: null, stdin: null, base: { type: 'dir', dir: '/w' } };
const CONTEXT = { workspace: ['/w'], clientRoots: [], pathEnv: { home: '/home/u', platform: 'linux' as const } };

/** The definition as it was written before the fast path: its regular expressions alone. */
function looksLikePathByDefinition(value: string): boolean {
  if (value.length === 0 || value.length > 4096 || /[\0-\x1f]/.test(value)) return false;
  if (/^file:/i.test(value)) return true;
  if (/^[A-Za-z][A-Za-z0-9+.-]+:\/\//.test(value)) return false;
  return /^[~.]|[\\/]/.test(value) || /^[\w-]*\.[\w.-]+$/.test(value);
}

function candidates(args: Record<string, unknown>): PathSubject[] {
  return inspectCall('s', 't', args, GUESSED, CONTEXT).subjects.filter((subject): subject is PathSubject => subject.type === 'path' && (subject.via === DENY_CANDIDATE || subject.via === 'arguments'));
}

describe('step 5 finds what the definition takes as a path, and nothing else', () => {
  test('each character that can make a path alone: ~ leading, a dot, a slash, a backslash, a file: colon', () => {
    for (const value of ['~', '.env', 'a/b', 'a\\b', 'file:secret', 'FILE:x']) expect(candidates({ note: value }).map((subject) => subject.input), value).toContain(value);
    for (const value of ['ping 1', 'a~b', 'x:y', 'http://host/a', '', 'a\nb/c']) expect(candidates({ note: value }), value).toEqual([]);
  });

  test('random strings over the characters that matter: a candidate exactly when the definition says so', () => {
    const random = rng(15);
    const alphabet = ['~', '.', '/', '\\', ':', 'f', 'i', 'l', 'e', 'F', 'a', '-', '_', ' ', '\n', '+', 'x'];
    for (let i = 0; i < 5_000; i++) {
      let value = random() < 0.2 ? 'file' : '';
      const length = Math.floor(random() * 8);
      for (let j = 0; j < length; j++) value += alphabet[Math.floor(random() * alphabet.length)];
      const found = candidates({ a: 1, deep: [{ value }] }).some((subject) => subject.input === value);
      expect(found, JSON.stringify(value)).toBe(looksLikePathByDefinition(value));
    }
  });

  test('arguments as deep as it looks ask even without a string in them; shallower ones add nothing', () => {
    let deep: unknown = {};
    for (let level = 0; level < MAX_CANDIDATE_DEPTH; level++) deep = { next: deep };
    expect(candidates(deep as Record<string, unknown>).map((subject) => subject.problem)).toEqual([expect.stringContaining(`nest deeper than ${MAX_CANDIDATE_DEPTH} levels`)]);
    expect(candidates((deep as { next: Record<string, unknown> }).next)).toEqual([]);
  });

  test('an own __proto__ key of parsed arguments is looked at; an inherited enumerable property is not', () => {
    expect(candidates(JSON.parse('{"__proto__": {"x": "/w/.env"}}')).map((subject) => subject.input)).toEqual(['/w/.env']);
    const inherited = Object.create({ x: '/w/.env' }) as Record<string, unknown>;
    expect(candidates(inherited)).toEqual([]);
  });
});
