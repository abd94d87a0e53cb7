import { describe, expect, test } from 'vitest';
import { parseRule } from '../../src/policy/rule.js';
import { containsRule } from '../../src/policy/command-match.js';
import { anchorGlob } from '../../src/policy/match.js';

// Rule strings follow Claude Code's permission syntax (docs/rules.md).
describe('parseRule accepts the documented forms', () => {
  test.each([
    ['Read', { type: 'path', access: 'read', pattern: null }],
    ['Read(*)', { type: 'path', access: 'read', pattern: null }],
    ['Read(~/.ssh/**)', { type: 'path', access: 'read', pattern: '~/.ssh/**' }],
    ['Edit(src/**)', { type: 'path', access: 'write', pattern: 'src/**' }],
    ['Write(/tmp/x)', { type: 'path', access: 'write', pattern: '/tmp/x' }],
    ['file_read(.env)', { type: 'path', access: 'read', pattern: '.env' }],
    ['file_write(//etc/**)', { type: 'path', access: 'write', pattern: '//etc/**' }],
    ['Bash', { type: 'command', words: null, prefix: true }],
    ['Bash(*)', { type: 'command', words: null, prefix: true }],
    ['Bash(git status)', { type: 'command', words: ['git', 'status'], prefix: false }],
    ['Bash(npm run test *)', { type: 'command', words: ['npm', 'run', 'test'], prefix: true }],
    ['Bash(npm run test:*)', { type: 'command', words: ['npm', 'run', 'test'], prefix: true }],
    ['bash(ls)', { type: 'command', words: ['ls'], prefix: false }],
    [`Bash(git commit -m "two words")`, { type: 'command', words: ['git', 'commit', '-m', 'two words'], prefix: false }],
    ['mcp__fs', { type: 'mcp', server: 'fs', toolGlob: null }],
    ['mcp__fs__*', { type: 'mcp', server: 'fs', toolGlob: null }],
    ['mcp__fs__read_file', { type: 'mcp', server: 'fs', toolGlob: 'read_file' }],
    ['mcp__my-server__read_*', { type: 'mcp', server: 'my-server', toolGlob: 'read_*' }],
  ])('%s', (text, expected) => {
    expect(parseRule(text, 'allow')).toMatchObject({ text, list: 'allow', ...expected });
  });
});

describe('parseRule refuses bad rules, naming the rule and the problem', () => {
  test.each([
    ['', /non-empty/],
    [' Read', /spaces/],
    ['Read(', /missing "\)"/],
    ['Glob(**)', /unknown rule type "Glob"/],
    ['Read(!secret/**)', /negated/],
    ['Read(#x)', /cannot start with "#"/],
    ['Read(*(a|b))', /extglob/],
    ['Read(~root/.ssh)', /~user/],
    ['Read([abc)', /unclosed "\["/],
    ['Bash(git * main)', /only allowed at the end/],
    ['Bash(ls*)', /only allowed at the end/],
    ['Bash(:*)', /no command before/],
    ['Bash(ls && rm)', /shell operator/],
    ['Bash(echo "x)', /unterminated quote/],
    ['mcp__fs(read)', /take no/],
    ['mcp__fs__', /nothing after/],
    ['mcp__a.b', /server name/],
    ['Read(x)\nBash', /one line/],
  ])('%j', (text, problem) => {
    expect(() => parseRule(text, 'deny')).toThrow(problem);
    if (text !== '') expect(() => parseRule(text, 'deny')).toThrow(JSON.stringify(text));
  });
});

describe('path anchors (docs/rules.md)', () => {
  const env = { home: '/home/u', roots: ['/work/a', '/work/b'], platform: 'linux' as const };
  test.each([
    ['~/.ssh/**', ['/home/u/.ssh/**']],
    ['//etc/passwd', ['/etc/passwd']],
    ['/etc/**', ['/etc/**']],
    ['./src/**', ['/work/a/src/**', '/work/b/src/**']],
    ['src/*.ts', ['/work/a/src/*.ts', '/work/b/src/*.ts']],
    ['.env', ['/**/.env']],
    ['secrets/', ['/work/a/secrets/**', '/work/b/secrets/**']],
    ['~', ['/home/u']],
  ])('%s', (pattern, globs) => {
    expect(anchorGlob(pattern, env)).toEqual(globs);
  });
});

describe('deny/ask command matching is wide: flags in any order and spelling', () => {
  test.each([
    // A known Claude Code bypass: rm -fr, rm --recursive --force escaped `rm -rf` denies.
    [['rm', '-fr', '/'], ['rm', '-rf'], true],
    [['rm', '-r', '-f', 'x'], ['rm', '-rf'], true],
    [['rm', '--recursive', '--force', 'x'], ['rm', '-rf'], true],
    [['rm', '-R', '-f', 'x'], ['rm', '-rf'], true],
    [['rm', '-r', 'x'], ['rm', '-rf'], false],
    // A known Claude Code bypass: git -C /path push escaped `git push`.
    [['git', '-C', '/p', 'push', 'origin'], ['git', 'push'], true],
    [['git', '-c', 'core.pager=x', 'push'], ['git', 'push'], true],
    [['git', 'push', '--forc'], ['git', 'push', '--force'], true],
    [['git', 'push', '-f'], ['git', 'push', '--force'], true],
    [['git', 'log', '--grep', 'push'], ['git', 'push'], false],
    [['git', 'pushx'], ['git', 'push'], false],
    [['/bin/rm', 'x'], ['rm'], true],
  ])('%j contains %j → %s', (command, rule, expected) => {
    expect(containsRule(command, rule)).toBe(expected);
  });
});
