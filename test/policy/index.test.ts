import path from 'node:path';
import { Minimatch } from 'minimatch';
import { beforeAll, describe, expect, test } from 'vitest';
import { containsRule, equalWords, isNarrowEligible, startsWith, wideCandidates, wideHeads } from '../../src/policy/command-match.js';
import { decide } from '../../src/policy/decide.js';
import { RuleSet, ruleGlobs, type MatchEnv } from '../../src/policy/match.js';
import { parseRule, type Rule } from '../../src/policy/rule.js';
import type { Access, RuleList, Segment } from '../../src/policy/types.js';
import { analyseCommand } from '../../src/subjects/shell/command.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { isInside } from '../../src/subjects/paths.js';
import { rng } from '../helpers/random.js';

/**
 * The rule set is indexed (command rules by program, path rules by literal prefix and name) so a
 * lookup touches only the rules that can match. An index must never skip a rule that matches:
 * on seeded rule sets and commands, the indexed lookup is compared with trying every rule.
 */

beforeAll(initShellParser);

const env: MatchEnv = { home: '/home/u', roots: ['/w/proj'], platform: 'linux' };
const LISTS: RuleList[] = ['deny', 'ask', 'allow'];

const PROGRAMS = ['rm', 'git', 'npm', 'curl', 'node', 'python3', 'cat', 'tool7', '/bin/rm', 'mcp-latch', 'uv', 'bash', 'cp', 'sudo', 'env', 'timeout', 'xargs'];
const WORDS = ['-rf', '-r', '-f', '--force', '--recursive', 'push', 'status', 'run', 'test', 'origin', '+main', 'x', 'build', '--', '-c', 'allow', 'install', '.env', 'src'];
const WRAPPERS = ['', '', '', 'sudo ', 'env A=1 ', 'timeout 5 ', 'nice -n 5 ', 'uv run ', 'npx ', 'FOO=1 ', 'xargs ', 'command '];
const QUOTES = [(w: string) => w, (w: string) => `'${w}'`, (w: string) => `"${w}"`, (w: string) => `\\${w}`];

function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)]!;
}

function commandRules(r: () => number): Rule[] {
  const rules: Rule[] = [];
  const count = 1 + Math.floor(r() * 40);
  for (let i = 0; i < count; i++) {
    const words = [pick(r, PROGRAMS)];
    const more = Math.floor(r() * 3);
    for (let k = 0; k < more; k++) words.push(pick(r, WORDS));
    const text = r() < 0.03 ? 'Bash' : `Bash(${words.join(' ')}${r() < 0.6 ? ' *' : ''})`;
    rules.push(parseRule(text, pick(r, LISTS)));
  }
  return rules;
}

function commandText(r: () => number): string {
  const parts: string[] = [];
  const segments = 1 + Math.floor(r() * 3);
  for (let s = 0; s < segments; s++) {
    const words = [pick(r, QUOTES)(pick(r, PROGRAMS))];
    const more = Math.floor(r() * 5);
    for (let k = 0; k < more; k++) words.push(pick(r, WORDS));
    parts.push(pick(r, WRAPPERS) + words.join(' '));
  }
  return parts.join(pick(r, [' && ', ' | ', '; ']));
}

/** Every rule of the list in order, each tried on every candidate (the original candidates: the written words always included). */
function everyCommandRule(rules: readonly Rule[], list: 'deny' | 'ask', segment: Segment): Rule | null {
  const candidates = referenceCandidates(segment);
  const ofList = rules.filter((rule): rule is Extract<Rule, { type: 'command' }> => rule.type === 'command' && rule.list === list);
  const bare = ofList.find((rule) => rule.words === null);
  if (bare) return bare;
  for (const candidate of candidates) {
    if (candidate[0] === undefined) continue;
    for (const rule of ofList) if (rule.words && containsRule(candidate, rule.words)) return rule;
  }
  return null;
}

/** The first allow rule in order whose words the segment's program and arguments are (or start with, for a prefix rule); a bare `Bash` first. */
function everyAllowRule(rules: readonly Rule[], segment: Segment): Rule | null {
  if (!isNarrowEligible(segment)) return null;
  const allow = rules.filter((rule): rule is Extract<Rule, { type: 'command' }> => rule.type === 'command' && rule.list === 'allow');
  const bare = allow.find((rule) => rule.words === null || rule.words === undefined || rule.words.length === 0);
  if (bare) return bare;
  const words = [segment.program!, ...segment.args];
  for (const rule of allow) if (rule.prefix ? startsWith(words, rule.words!) : equalWords(words, rule.words!)) return rule;
  return null;
}

function referenceCandidates(segment: Segment): string[][] {
  const out = wideCandidates(segment);
  const written = segment.words.slice(segment.assignments.length);
  if (written.length > 0) out.push([path.posix.basename(written[0]!.replace(/["'\\]/g, '')), ...written.slice(1)]);
  return out;
}

describe('command rules indexed by program', () => {
  test('on 2,000 seeded commands, the indexed deny/ask lookup finds the rule trying every rule finds', () => {
    const r = rng(20261126);
    let matched = 0;
    let allowed = 0;
    let segments = 0;
    for (let round = 0; round < 100; round++) {
      const rules = commandRules(r);
      const set = new RuleSet(rules, env);
      for (let c = 0; c < 20; c++) {
        const info = analyseCommand(commandText(r), { cwd: '/w/proj' });
        for (const segment of info.segments) {
          segments++;
          for (const list of ['deny', 'ask'] as const) {
            const indexed = set.matchCommandWide(list, wideCandidates(segment));
            const every = everyCommandRule(rules, list, segment);
            // decide.ts makes the candidates only when a rule is filed under one of the heads.
            if (every !== null && !set.wideRulesFor(wideHeads(segment))) expect.fail(`${list}: ${JSON.stringify(segment.words)}: heads ${JSON.stringify(wideHeads(segment))} miss ${every.text}`);
            if (indexed !== every) expect.fail(`${list}: ${JSON.stringify(segment.words)} under ${rules.map((rule) => `${rule.list}:${rule.text}`).join(', ')}: indexed ${indexed?.text ?? 'none'}, every rule ${every?.text ?? 'none'}`);
            if (indexed) matched++;
          }
          const narrow = set.matchCommandNarrow(segment);
          const everyAllow = everyAllowRule(rules, segment);
          if (narrow !== everyAllow) expect.fail(`allow: ${JSON.stringify(segment.words)} under ${rules.map((rule) => `${rule.list}:${rule.text}`).join(', ')}: indexed ${narrow?.text ?? 'none'}, every rule ${everyAllow?.text ?? 'none'}`);
          if (narrow) allowed++;
        }
      }
    }
    // The seeds exercise both outcomes.
    expect(segments).toBeGreaterThan(3_000);
    expect(matched).toBeGreaterThan(400);
    expect(allowed).toBeGreaterThan(20);
  }, 120_000);

  test('a kept (frozen) analysis is decided as its fresh copy is, and its candidates are reused', () => {
    const rules = new RuleSet([parseRule('Bash(rm -rf *)', 'deny'), parseRule('Bash(npm run *)', 'allow'), parseRule('Bash(git push *)', 'ask')], env);
    for (const text of ['sudo rm -rf x', 'uv run rm -rf .', 'npm run test', 'git push origin main && ls', '"rm" -r -f y', 'env A=1 /bin/rm --recursive --force z']) {
      const fresh = analyseCommand(text, { cwd: '/w/proj' });
      const frozen = deepFreeze(analyseCommand(text, { cwd: '/w/proj' }));
      const facts = (info: typeof fresh) => ({ server: 's', tool: 't', kind: 'command' as const, kindTrusted: true, subjects: info.segments.map((segment) => ({ type: 'command' as const, segment, info })), commandInfo: info, digest: () => '' as const });
      const policy = { mode: 'default' as const, rules };
      const expected = decide(facts(fresh), policy);
      expect(decide(facts(frozen), policy).verdict).toBe(expected.verdict);
      expect(decide(facts(frozen), policy).reason).toBe(expected.reason);
    }
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
  return value;
}

const PATTERNS = ['/w/proj/src', '/w/proj/src/', '/', '/w/proj/a\\b/**', '/tmp/**', '**/.env', '.env', '~/.ssh/**', '/etc/**', './src/**', 'src/*.ts', 'secrets/', '/w/proj/area3/**', '*.key', '/w/proj/**', '//tmp/x/*', '~/notes.md', 'docs/**/*.md', '**/node_modules/**', '/w/proj/a?c/**', '/w/proj/{a,b}/**'];
const SEGMENTS = ['w', 'proj', 'src', '.env', 'a.ts', 'area3', 'secrets', 'x.key', 'home', 'u', '.ssh', 'id_rsa', 'etc', 'tmp', 'x', 'docs', 'node_modules', 'abc', 'a', 'b', 'notes.md', 'é', '..', '.', '', 'a\\b', 'src/', 'area33', 'srcx'];

function pathRules(r: () => number): Rule[] {
  const rules: Rule[] = [];
  const count = 1 + Math.floor(r() * 30);
  for (let i = 0; i < count; i++) {
    const kind = r() < 0.5 ? 'Read' : 'Edit';
    rules.push(parseRule(r() < 0.02 ? kind : `${kind}(${pick(r, PATTERNS)})`, pick(r, LISTS)));
  }
  return rules;
}

function somePath(r: () => number): string {
  const start = pick(r, ['/w/proj', '/home/u', '', '/w/proj/src', '/tmp', '/w/projx', '/etcx']);
  const parts = [start];
  const more = Math.floor(r() * 5);
  for (let k = 0; k < more; k++) parts.push(pick(r, SEGMENTS));
  // Match form, as decide gives it: absolute and normalised (the index walks the path's parents).
  const joined = path.posix.normalize(parts.join('/') || '/');
  return joined.length > 1 ? joined.replace(/\/+$/, '') : joined;
}

/** Every path rule of the list, each tried with minimatch as the index builds it. */
const compiled = new Map<string, Minimatch>();

function globMatches(glob: string, target: string): boolean {
  let matcher = compiled.get(glob);
  if (!matcher) {
    matcher = new Minimatch(glob, { dot: true, nonegate: true, nocomment: true, noext: true, nocase: false, optimizationLevel: 2 });
    compiled.set(glob, matcher);
  }
  return matcher.match(target);
}

function everyPathRule(rules: readonly Rule[], list: RuleList, access: Access, target: string): Rule | null {
  for (const rule of rules) {
    if (rule.type !== 'path' || rule.list !== list) continue;
    if (rule.access !== access && !(list !== 'allow' && access === 'write' && rule.access === 'read')) continue;
    if (rule.pattern === null) return rule;
    for (const glob of ruleGlobs(rule, env)) {
      const globs = glob.endsWith('/**') && glob.length > 3 ? [glob, glob.slice(0, -3)] : [glob];
      if (globs.some((g) => globMatches(g, target))) return rule;
    }
  }
  return null;
}

describe('path rules indexed by literal prefix and name', () => {
  test('on 6,000 seeded paths, the indexed lookup matches exactly when some rule matches, and what it returns matches', () => {
    const r = rng(1126);
    let matched = 0;
    for (let round = 0; round < 200; round++) {
      const rules = pathRules(r);
      const set = new RuleSet(rules, env);
      for (let c = 0; c < 30; c++) {
        const target = somePath(r);
        for (const list of LISTS) {
          for (const access of ['read', 'write'] as const) {
            const indexed = set.matchPath(list, access, target);
            const every = everyPathRule(rules, list, access, target);
            if ((indexed === null) !== (every === null)) expect.fail(`${list} ${access} ${target} under ${rules.map((rule) => `${rule.list}:${rule.text}`).join(', ')}: indexed ${indexed?.text ?? 'none'}, every rule ${every?.text ?? 'none'}`);
            if (indexed) {
              matched++;
              // The rule the index names really matches.
              expect(everyPathRule([indexed], list, access, target)).toBe(indexed);
            }
          }
        }
      }
    }
    expect(matched).toBeGreaterThan(3_000);
  }, 120_000);

  test('a path written with a trailing slash is looked up as minimatch matches it (the index does not rely on decide normalising it)', () => {
    const r = rng(2611);
    let matched = 0;
    for (let round = 0; round < 100; round++) {
      const rules = pathRules(r);
      const set = new RuleSet(rules, env);
      for (let c = 0; c < 20; c++) {
        const plain = somePath(r);
        if (plain === '/') continue;
        const target = `${plain}/`;
        for (const list of LISTS) {
          const indexed = set.matchPath(list, 'read', target);
          const every = everyPathRule(rules, list, 'read', target);
          if ((indexed === null) !== (every === null)) expect.fail(`${list} read ${target} under ${rules.map((rule) => `${rule.list}:${rule.text}`).join(', ')}: indexed ${indexed?.text ?? 'none'}, every rule ${every?.text ?? 'none'}`);
          if (indexed) matched++;
        }
      }
    }
    expect(new RuleSet([parseRule('Read(/w/proj/**)', 'deny')], env).matchPath('deny', 'read', '/w/proj/')?.text).toBe('Read(/w/proj/**)');
    expect(matched).toBeGreaterThan(500);
  });
});

describe('literal path rules matched as strings', () => {
  const LITERAL = ['/w/proj/src', '/w/proj/src/**', '/w/proj/**/.env', '**/.env', './.env', '/w/proj/.env', '/w/proj/..x/**', '/w/proj/..', '/w/proj/../proj/**', '/w/proj/./src/**', '/w/pro/**', '/w/proj/src/**/a.ts', '/w/proj/**/src', '~/.ssh/**', '/w/proj/a(b)/**', '/w/proj/**/..', '/**', '/w/proj/**/.env/**', 'src/', '/w/proj/.env/'];
  const PARTS = ['w', 'proj', 'pro', 'src', '.env', 'a.ts', '..x', '..', '.', '', 'a(b)', 'home', 'u', '.ssh', 'x', 'projx', '.envx'];

  test('P, P/** and P/**/NAME (literal) match as minimatch does; a rule with `..` (which minimatch takes out) is not skipped by the index', () => {
    const r = rng(1327);
    let matched = 0;
    for (let i = 0; i < 20_000; i++) {
      const rule = parseRule(`${pick(r, ['Read', 'Edit'])}(${pick(r, LITERAL)})`, 'deny');
      const parts = [pick(r, ['', '/w/proj', '/home/u', '/w'])];
      const more = Math.floor(r() * 5);
      for (let k = 0; k < more; k++) parts.push(pick(r, PARTS));
      // As decide gives it (normalised), or with a trailing `/` (not plain: minimatch decides).
      const normal = path.posix.normalize(parts.join('/') || '/');
      const target = r() < 0.3 && normal !== '/' ? `${normal.replace(/\/+$/, '')}/` : normal.length > 1 ? normal.replace(/\/+$/, '') : normal;
      const indexed = new RuleSet([rule], env).matchPath('deny', 'write', target) !== null;
      const every = everyPathRule([rule], 'deny', 'write', target) !== null;
      if (indexed !== every) expect.fail(`${rule.text} on ${target}: ${indexed ? 'matched' : 'not matched'}, minimatch ${every ? 'matches' : 'does not match'}`);
      if (indexed) matched++;
    }
    expect(matched).toBeGreaterThan(1_000);
    // A deny rule written through `..` (round 12's index looked it up under /home/u/.ssh/.. and never met it).
    expect(new RuleSet([parseRule('Read(~/.ssh/../.aws/**)', 'deny')], env).matchPath('deny', 'read', '/home/u/.aws/credentials')?.text).toBe('Read(~/.ssh/../.aws/**)');
  });
});

describe('isInside', () => {
  test('compares plain paths as strings exactly as path.relative does, and normalises the others', () => {
    const reference = (root: string, candidate: string): boolean => {
      if (!path.posix.isAbsolute(root) || !path.posix.isAbsolute(candidate)) return false;
      const rel = path.posix.relative(root, candidate);
      return rel === '' || (rel !== '..' && !rel.startsWith('../') && !path.posix.isAbsolute(rel));
    };
    const r = rng(42);
    const pieces = ['', 'a', 'ab', 'b', '.', '..', 'a.b', '...', ' '];
    const make = (): string => {
      let p = r() < 0.9 ? '/' : '';
      const n = Math.floor(r() * 5);
      for (let k = 0; k < n; k++) p += (k > 0 || p === '' ? '/' : '') + pick(r, pieces);
      if (r() < 0.1) p += '/';
      return p;
    };
    let inside = 0;
    for (let i = 0; i < 20_000; i++) {
      const root = make();
      const candidate = r() < 0.5 ? make() : `${root}${pick(r, ['', '/', '/a', 'b', '/../a', '/./b', '//c'])}`;
      const expected = reference(root, candidate);
      if (isInside(root, candidate, 'linux') !== expected) expect.fail(`isInside(${JSON.stringify(root)}, ${JSON.stringify(candidate)}) should be ${expected}`);
      if (expected) inside++;
    }
    expect(inside).toBeGreaterThan(2_000);
  });

  test('a root asked about again after another root is read as itself (isInside keeps the last root\'s reading)', () => {
    // A plain root, then one that is not (`..`, `//`, a trailing `/`), then the first again, each with the same candidates.
    const roots = ['/w/proj', '/w/x/../proj', '/w/proj', '/w//proj', '/w/proj/', '/w/proj', '/', '/w/proj'];
    const candidates = ['/w/proj/a', '/w/projx', '/w/x/a', '/w/proj', '/w//proj/a', '/w/proj/../x'];
    for (const root of roots) {
      for (const candidate of candidates) {
        const rel = path.posix.relative(root, candidate);
        const expected = rel === '' || (rel !== '..' && !rel.startsWith('../') && !path.posix.isAbsolute(rel));
        if (isInside(root, candidate, 'linux') !== expected) expect.fail(`isInside(${JSON.stringify(root)}, ${JSON.stringify(candidate)}) should be ${expected}`);
      }
    }
  });
});
