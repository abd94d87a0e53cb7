import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { RuleSet } from '../../src/policy/match.js';
import { parseRule } from '../../src/policy/rule.js';
import type { DefaultMode } from '../../src/policy/types.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { decideFs } from '../helpers/policy.js';

/**
 * Round 21 late review (review-late21): what the round's bypass fixes left.
 *
 *   L3: a `\` in a user's deny or ask rule names at least what it named in round 20 (on Windows `\*`
 *       and `\?` are separators; elsewhere the separator reading is kept for deny/ask rules).
 */

const MODES: DefaultMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'];

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  await initShellParser();
  T = realpathSync(tempDir('late21-'));
  home = join(T, 'home');
  W = join(T, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(W, { recursive: true });
  writeFileSync(join(W, 'mcp-latch.json'), '{}');
  execFileSync('git', ['init', '-q', '-b', 'main', W]);
});

describe('L3. a backslash in a deny or ask rule matches no less than it did in round 20', () => {
  // Round 20 read every `\` of a rule as a separator (match.ts anchorGlob); 7076c3f made it an escape
  // before a glob character, so on Windows these rules, which matched in round 20, matched nothing.
  const WINDOWS: [string, string][] = [
    ['Read(C:\\Users\\me\\.ssh\\**)', 'C:/Users/me/.ssh/id_rsa'],
    ['Read(C:\\Users\\me\\.ssh\\*)', 'C:/Users/me/.ssh/id_rsa'],
    ['Read(C:\\secrets\\?ey)', 'C:/secrets/key'],
    ['Read(C:\\w\\{a,b}\\x)', 'C:/w/a/x'],
    ['Read(C:\\w\\[ab]x)', 'C:/w/ax'],
    ['Read(C:\\repo\\!draft\\x)', 'C:/repo/!draft/x'],
    ['Read(C:\\repo\\(old)\\x)', 'C:/repo/(old)/x'],
  ];
  test.each(WINDOWS)('Windows: deny %s matches %s', (text, path) => {
    const rules = new RuleSet([parseRule(text, 'deny')], { home: 'C:\\Users\\me', roots: [], platform: 'win32' });
    expect(rules.matchPath('deny', 'read', path)?.text).toBe(text);
  });
  test('Windows: ask Read(C:\\Users\\me\\.ssh\\**) asks for a key below it', () => {
    const rules = new RuleSet([parseRule('Read(C:\\Users\\me\\.ssh\\**)', 'ask')], { home: 'C:\\Users\\me', roots: [], platform: 'win32' });
    expect(rules.matchPath('ask', 'read', 'C:/Users/me/.ssh/config')).not.toBeNull();
  });
  test('POSIX, every mode: deny Edit(src\\gen\\**) still denies a write below src/gen (and the escape reading holds too)', () => {
    for (const mode of MODES) {
      const decision = decideFs('write_file', { path: join(W, 'src', 'gen', 'a.ts'), content: 'x' }, [W], { mode, home, allow: ['Edit(./**)'], deny: ['Edit(src\\gen\\**)'], configPath: join(W, 'mcp-latch.json') });
      expect({ verdict: decision.verdict, rule: decision.rule }, `${mode}: ${decision.reason}`).toEqual({ verdict: 'deny', rule: 'Edit(src\\gen\\**)' });
    }
    const escaped = decideFs('read_text_file', { path: join(W, 'app[1]', 'x') }, [W], { mode: 'bypassPermissions', home, deny: ['Read(./app\\[1\\]/**)'], configPath: join(W, 'mcp-latch.json') });
    expect(escaped.verdict, escaped.reason).toBe('deny');
  });
  test('an allow rule takes the escape reading only: Read(./app\\[1\\]/**) does not allow app/[1/]', () => {
    const decision = decideFs('read_text_file', { path: join(W, 'app', 'x') }, [W], { mode: 'default', home, allow: ['Read(./app\\[1\\]/**)'], configPath: join(W, 'mcp-latch.json') });
    expect(decision.rule).toBeNull();
  });
});
