import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BuildCache } from '../../src/policy/build-cache.js';
import type { MatchEnv } from '../../src/policy/match.js';
import { addedRuleIssues, configIssues, parseRules, policyFor } from '../../src/policy/policy.js';
import { RulesFile } from '../../src/store/rules-file.js';
import { tempDir } from '../helpers/gateway.js';

/**
 * What a build of the rules keeps for the next (docs/performance.md, "Round 18: remembered rules at
 * scale"): parsed rules, compiled globs, each path rule's places in the index. Reused only where
 * the result is the same: a rule's places are made again for another workspace, and a deny rule
 * through a link is read from the disk again at every build.
 */
const permissions = (allow: string[], deny: string[] = []) => ({ defaultMode: 'default' as const, allow, ask: [], deny });
const env = (roots: string[], home = '/home/none'): MatchEnv => ({ home, roots, platform: process.platform });

describe('rules built again from what the last build kept', () => {
  test('the same rules under another workspace are anchored at the new one, and again at the first', () => {
    const rules = permissions(['Read(src/**)', 'Read(/abs/file.txt)']);
    const first = policyFor(rules, '/etc/none/mcp-latch.json', null, env(['/w/a']));
    const second = policyFor(rules, '/etc/none/mcp-latch.json', null, env(['/w/b']));
    const third = policyFor(rules, '/etc/none/mcp-latch.json', null, env(['/w/a']));
    expect(first.rules.matchPath('allow', 'read', '/w/a/src/x.ts')?.text).toBe('Read(src/**)');
    expect(first.rules.matchPath('allow', 'read', '/w/b/src/x.ts')).toBeNull();
    expect(second.rules.matchPath('allow', 'read', '/w/b/src/x.ts')?.text).toBe('Read(src/**)');
    expect(second.rules.matchPath('allow', 'read', '/w/a/src/x.ts')).toBeNull();
    expect(third.rules.matchPath('allow', 'read', '/w/a/src/x.ts')?.text).toBe('Read(src/**)');
    expect(third.rules.matchPath('allow', 'read', '/w/b/src/x.ts')).toBeNull();
    for (const set of [first, second, third]) expect(set.rules.matchPath('allow', 'read', '/abs/file.txt')?.text).toBe('Read(/abs/file.txt)');
  });

  test('a deny rule through a link follows the link as it is at each build', () => {
    const home = tempDir('build-cache-');
    for (const dir of ['dotA', 'dotB']) mkdirSync(join(home, dir));
    symlinkSync(join(home, 'dotA'), join(home, '.ssh'));
    const rules = permissions([], ['Read(~/.ssh/**)']);
    const before = policyFor(rules, '/etc/none/mcp-latch.json', null, env([], home));
    expect(before.rules.matchPath('deny', 'read', join(home, 'dotA/id'))?.text).toBe('Read(~/.ssh/**)');
    expect(before.rules.matchPath('deny', 'read', join(home, 'dotB/id'))).toBeNull();
    // Re-pointed (`ln -sfn`): the next build denies the new target.
    symlinkSync(join(home, 'dotB'), join(home, '.ssh.new'));
    renameSync(join(home, '.ssh.new'), join(home, '.ssh'));
    const after = policyFor(rules, '/etc/none/mcp-latch.json', null, env([], home));
    expect(after.rules.matchPath('deny', 'read', join(home, 'dotB/id'))?.text).toBe('Read(~/.ssh/**)');
    expect(after.rules.matchPath('deny', 'read', join(home, 'dotA/id'))).toBeNull();
  });

  test('a bad rule is reported at every load, not only the first', () => {
    for (let load = 0; load < 3; load++) {
      expect(parseRules(permissions(['Bash(ls)', 'Bash(git * main)'])).issues).toEqual([{ path: 'permissions.allow[1]', message: expect.stringMatching(/only allowed at the end/) }]);
      expect(() => policyFor(permissions(['Bash(git * main)']), '/etc/none/mcp-latch.json', null, env([]))).toThrow(/RULE_INVALID|invalid rules/);
    }
  });

  test('rules shared by builds cannot be changed by one of them', () => {
    const { rules } = parseRules(permissions(['Bash(npm run test)']));
    const again = parseRules(permissions(['Bash(npm run test)'])).rules;
    expect(again[0]).toBe(rules[0]);
    expect(Object.isFrozen(rules[0])).toBe(true);
    const words = (rules[0] as { words: string[] }).words;
    expect(() => words.push('x')).toThrow();
  });

  test('the cache keeps at most two generations of `limit` entries and answers each key with its own value', () => {
    const cache = new BuildCache<string, string>(2);
    let made = 0;
    const get = (key: string) => cache.get(key, () => `${key}${++made}`);
    expect([get('a'), get('b'), get('a')]).toEqual(['a1', 'b2', 'a1']);
    expect([get('c'), get('d'), get('e')]).toEqual(['c3', 'd4', 'e5']);
    // a and b were in the generation dropped when d's filled: made again.
    expect(get('a')).toBe('a6');
    expect(get('e')).toBe('e5');
    expect(made).toBe(6);
  });
});

describe('RulesFile editing the text a gateway checked (KnownValid)', () => {
  function configAt(allow: string[]): string {
    const path = join(tempDir('known-valid-'), 'mcp-latch.json');
    writeFileSync(path, JSON.stringify({ mcpServers: {}, permissions: { allow, deny: ['Read(**/.env)'] }, users: { ann: { permissions: { allow: ['Bash(ls)'] } } } }, null, 2));
    return path;
  }

  test('an invalid rule is refused with its place in the list, the file left as it was', async () => {
    const path = configAt(['Bash(a)', 'Bash(b)']);
    const text = readFileSync(path, 'utf8');
    const file = new RulesFile(path, configIssues, { text: () => text, rules: addedRuleIssues });
    await expect(file.add('allow', ['Bash(git * main)'])).rejects.toThrow(/permissions\.allow\[2\]: invalid rule "Bash\(git \* main\)"/);
    await expect(file.add('allow', ['Bash(x)', 'Read(!neg)'], 'ann')).rejects.toThrow(/users\.ann\.permissions\.allow\[2\]: invalid rule "Read\(!neg\)"/);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  test('valid rules are added and removed as from any text', async () => {
    const path = configAt(['Bash(a)', 'Bash(b)', 'Bash(a)']);
    let text = readFileSync(path, 'utf8');
    const file = new RulesFile(path, configIssues, { text: () => text, rules: addedRuleIssues });
    text = (await file.add('allow', ['Bash(c)', 'Bash(b)'])).text;
    text = (await file.remove('allow', 'Bash(a)')).text;
    text = (await file.add('allow', ['Bash(make)'], 'ann')).text;
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(saved.permissions).toEqual({ allow: ['Bash(b)', 'Bash(a)', 'Bash(c)'], deny: ['Read(**/.env)'] });
    expect(saved.users.ann.permissions.allow).toEqual(['Bash(ls)', 'Bash(make)']);
    expect(configIssues(saved)).toEqual([]);
  });

  test('a file changed since it was checked is checked whole: an edit of an invalid file is refused', async () => {
    const path = configAt(['Bash(a)']);
    const checked = readFileSync(path, 'utf8');
    const file = new RulesFile(path, configIssues, { text: () => checked, rules: addedRuleIssues });
    const broken = JSON.parse(checked);
    broken.permissions.mode = 'dontAsk';
    writeFileSync(path, JSON.stringify(broken, null, 2));
    await expect(file.add('allow', ['Bash(b)'])).rejects.toThrow(/permissions\.mode/);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(broken);
  });
});
