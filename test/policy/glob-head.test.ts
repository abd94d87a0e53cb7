import path from 'node:path';
import { Minimatch } from 'minimatch';
import { describe, expect, test } from 'vitest';
import { globMatchers, literalHead, nameKey, RuleSet, ruleGlobs, type Fold, type MatchEnv } from '../../src/policy/match.js';
import { parseRule, type Rule } from '../../src/policy/rule.js';
import type { RuleList } from '../../src/policy/types.js';
import { rng } from '../helpers/random.js';

/**
 * A path rule's glob is not given to minimatch for a plain path that does not start with the glob's
 * literal head (match.ts literalHead; the gateway's own sibling globs, `DIR/mcp-latch.json.*`, tried
 * on DIR), and a literal shape (`P`, `P/**`, `P/**\/NAME`) is answered by a string test. Both must
 * answer exactly as minimatch does on what it is given: deny and ask rules with both sides as
 * nameKey has them (round 32's F32-1) and minimatch's `nocase` (a RegExp with `iu`), a glob past
 * ASCII also lower-cased only, allow rules in the case written; with escapes, braces, classes, `**`,
 * `.` and `..` in the glob and in the path. Any difference fails.
 */

const env: MatchEnv = { home: '/home/u', roots: ['/w/proj'], platform: 'linux' };

// Rule parts: literal names in several cases, partial names before a wildcard (the sibling globs of
// the gateway's own files: `F.*`, `.F.*`, `F~`, `#F#`), classes, braces (one making a `..`), escapes.
const GLOB_PARTS = ['w', 'proj', 'Conf', 'secret', 'sEcret', 'σ', 'kit', 'mcp-latch.json.*', '.mcp-latch.json.*', 'mcp-latch.json~', '#mcp-latch.json#', 'mcp-latch.json', '*', '**', '?', 'se?ret', 's*', '*.env', '.env', '[sS]ecret', '[!x]*', '{a,b}', '{..,x}', '{.,y}.', 'a\\*b', 'a\\(2\\)', 'a(2)', '+x', '@x', '!x', '.', '..', 'é', 'ſecret', '\u1fd3', 'x', ''];
// Path parts: the same names in other cases and through Unicode's folding (`ſ` U+017F, `K` U+212A, `ς`, `İ`), and what minimatch normalises (`.`, `..`, `//`).
const PATH_PARTS = ['w', 'proj', 'conf', 'CONF', 'secret', 'SECRET', 'ſecret', 'ς', 'σ', 'Σ', 'Kit', '\u212Ait', 'İ', 'i\u0307', 'mcp-latch.json', 'mcp-latch.json.1', 'MCP-LATCH.JSON.bak', '.mcp-latch.json.swp', 'mcp-latch.json~', '#mcp-latch.json#', 'mcp-latch.jsonx', 'a', 'b', 'x', 'y', 'a*b', 'axb', 'a(2)', '+x', '@x', '!x', '.env', 'é', 'É', '\u0390', 'home', 'u', '.', '..', ''];

const ASCII_PATH_PARTS = PATH_PARTS.filter((name) => !/[^\0-\x7f]/.test(name));

function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)]!;
}

function someGlob(r: () => number): string {
  const start = pick(r, ['/w/proj', '/w', '~', '', '/W/Proj', '/w/proj/Conf']);
  const parts = [start];
  const more = 1 + Math.floor(r() * 2);
  for (let k = 0; k < more; k++) parts.push(pick(r, GLOB_PARTS));
  const glob = parts.join('/');
  return glob.startsWith('/') || glob.startsWith('~') ? glob : `/${glob}`;
}

function somePath(r: () => number, names: readonly string[]): string {
  const parts = [pick(r, ['', '/w/proj', '/w', '/W/PROJ', '/home/u', '/w/proj/conf'])];
  const more = Math.floor(r() * 3);
  for (let k = 0; k < more; k++) parts.push(pick(r, names));
  const joined = parts.join('/') || '/';
  return r() < 0.1 ? `${joined}/` : joined;
}

function normal(target: string): string {
  const normalised = path.posix.normalize(target);
  return target.endsWith('/') || normalised === '/' ? normalised : normalised.replace(/\/$/, '');
}

const compiled = new Map<string, Minimatch>();

/** What minimatch answers for every glob of a rule (a `dir/**` glob also names `dir`) as match.ts gives it to minimatch, for a list that folds as `how`. */
function minimatchMatches(globs: readonly string[], target: string, how: Fold): boolean {
  const tries: Array<[string, string, boolean]> = [];
  for (const glob of globs) {
    if (how === 'names') {
      tries.push([nameKey(glob), nameKey(target), true]);
      if (/[^\0-\x7f]/.test(glob)) tries.push([glob, target, true]);
    } else tries.push([glob, target, how !== 'none']);
  }
  return tries.some(([glob, path, nocase]) => {
    const each = glob.endsWith('/**') && glob.length > 3 ? [glob, glob.slice(0, -3)] : [glob];
    return each.some((g) => {
      const key = `${nocase}${g}`;
      let matcher = compiled.get(key);
      if (!matcher) {
        matcher = new Minimatch(g, { dot: true, nonegate: true, nocomment: true, noext: true, nocase, optimizationLevel: 2 });
        compiled.set(key, matcher);
      }
      return matcher.match(path);
    });
  });
}

describe('path globs against minimatch', () => {
  test('on 60,000 seeded globs and paths (Unicode folding, `.`, `..`, `//` included), each glob\'s matchers answer as minimatch, folded as each list folds', () => {
    const r = rng(3205);
    let matched = 0;
    let headless = 0;
    let skipped = 0;
    for (let i = 0; i < 60_000; i++) {
      const glob = someGlob(r).replace(/^~/, '/home/u');
      const how: Fold = pick(r, ['names', 'names', 'lower', 'none']);
      // A `lower` string test lower-cases the path, where minimatch's `iu` folds more past ASCII (`ΐ`
      // U+1FD3 and U+0390): an allow rule on macOS and Windows then matches less (asks), and a deny
      // rule's `lower` matchers come with its nameKey ones. Not this test's subject: ASCII globs and paths there.
      if (how === 'lower' && /[^\0-\x7f]/.test(glob)) continue;
      const target = somePath(r, how === 'lower' ? ASCII_PATH_PARTS : PATH_PARTS);
      const ours = globMatchers(glob, how, true).some((matcher) => matcher.match(target));
      const theirs = minimatchMatches([glob], target, how);
      if (ours !== theirs) expect.fail(`${glob} (${how}) on ${JSON.stringify(target)}: ${ours ? 'matched' : 'not matched'}, minimatch ${theirs ? 'matches' : 'does not match'}`);
      if (ours) matched++;
      const head = literalHead(glob);
      if (head === null) headless++;
      else if (!target.startsWith(head)) skipped++;
    }
    // Enough of each: matches, globs without a head (braces, dots), paths the head turns away.
    expect(matched).toBeGreaterThan(900);
    expect(headless).toBeGreaterThan(10_000);
    expect(skipped).toBeGreaterThan(20_000);
  }, 120_000);

  test('on 12,000 seeded rules and paths, a rule set of one rule matches exactly when minimatch matches one of its globs (deny and ask as nameKey has names, allow in the case written)', () => {
    const r = rng(3206);
    let matched = 0;
    for (let i = 0; i < 12_000; i++) {
      const list: RuleList = pick(r, ['deny', 'ask', 'allow']);
      let rule: Rule;
      try {
        rule = parseRule(`${pick(r, ['Read', 'Edit'])}(${someGlob(r)})`, list);
      } catch {
        continue;
      }
      if (rule.type !== 'path' || rule.pattern === null) continue;
      const globs = ruleGlobs(rule, env);
      for (let k = 0; k < 4; k++) {
        // As decide gives it: normalised (the index walks its parents), maybe with a trailing `/`.
        const target = normal(somePath(r, PATH_PARTS));
        const ours: boolean = new RuleSet([rule], env).matchPath(list, rule.access, target, false) !== null;
        const theirs = minimatchMatches(globs, target, list !== 'allow' ? 'names' : 'none');
        if (ours !== theirs) expect.fail(`${list} ${rule.text} on ${JSON.stringify(target)}: ${ours ? 'matched' : 'not matched'}, minimatch ${theirs ? 'matches' : 'does not match'}`);
        if (ours) matched++;
      }
    }
    expect(matched).toBeGreaterThan(1_000);
  }, 120_000);

  test("the built-in sibling globs have a head the gateway's directory does not start with; a path folded by Unicode goes to minimatch", () => {
    for (const glob of ['/w/proj/mcp-latch.json.*', '/w/proj/.mcp-latch.json.*', '/w/proj/mcp-latch.json~', '/w/proj/#mcp-latch.json#']) {
      const head = literalHead(glob);
      expect(head).not.toBeNull();
      expect('/w/proj'.startsWith(head!)).toBe(false);
    }
    expect(literalHead('/w/proj/**')).toBe('/w/proj');
    expect(literalHead('/w/{..,x}/s*')).toBeNull();
    expect(literalHead('/w/x/../s*')).toBeNull();
    // A path past ASCII before the head's end goes to minimatch, which compares it as nameKey has it (`ſ` is `s`, `K` U+212A is `k`).
    const deny = (text: string, target: string) => new RuleSet([parseRule(text, 'deny')], env).matchPath('deny', 'read', target)?.text ?? null;
    expect(deny('Read(/w/proj/secret.*)', '/w/proj/ſecret.txt')).toBe('Read(/w/proj/secret.*)');
    expect(deny('Read(/w/proj/kit.*)', '/w/proj/\u212Ait.txt')).toBe('Read(/w/proj/kit.*)');
    expect(deny('Read(/w/proj/secret.*)', '/w/proj/SECRET.txt')).toBe('Read(/w/proj/secret.*)');
    expect(deny('Read(/w/proj/secret.*)', '/w/proj/secreT')).toBeNull();
  });
});
