import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { RuleSet } from '../../src/policy/match.js';
import { NPM_OPTIONS } from '../../src/programs.js';
import { parseRule } from '../../src/policy/rule.js';
import type { DefaultMode } from '../../src/policy/types.js';
import { decideFs, commandWorkspace, decideInWorkspace, decideShell, MODES } from '../helpers/policy.js';

/**
 * Round 21 late review (review-late21): what the round's bypass fixes left.
 *
 *   L1: npm's command word is found past its global options as nopt reads them (`--cache DIR` takes DIR).
 *   L2: git's dashed form (`$(git --exec-path)/git-clean`) meets the rules on the command it is.
 *   L4: an allow rule naming a git word itself (`Bash(git lg *)`) lifts B1's ask for that word.
 *   L3: a `\` in a user's deny or ask rule names at least what it named in round 20 (on Windows `\*`
 *       and `\?` are separators; elsewhere the separator reading is kept for deny/ask rules).
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('late21-'));
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

function shell(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideInWorkspace(command, mode, rules, W, home);
}

describe('L1. an npm option with a value before the command word does not hide the command', () => {
  const npm = ((): boolean => {
    try {
      execFileSync('npm', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  // npm 11 (nopt): a key whose type is not Boolean takes the next word; a Boolean key a following
  // `true`/`false`; `--reg` is --registry. Each ran the command after it (no registry needed).
  test.skipIf(!npm).each([
    ['--cache', '<T>/c'],
    ['--otp', '123'],
    ['--registry', 'http://127.0.0.1:9'],
    ['--reg', 'http://127.0.0.1:9'],
    ['--global', 'false'],
    ['--foo', 'true'],
  ])('premise: npm %s %s exec -- touch F runs touch', (option, value) => {
    const file = `ran-${option.replace(/-/g, '')}`;
    execFileSync('npm', [option, value.replace('<T>', T), 'exec', '--', 'touch', file], { cwd: W, env: { ...process.env, npm_config_update_notifier: 'false' }, stdio: 'ignore' });
    expect(existsSync(join(W, file))).toBe(true);
  });
  const npmRoot = npm ? execFileSync('npm', ['root', '-g']).toString().trim() : null;
  const npmVersion = npmRoot && existsSync(join(npmRoot, 'npm', 'package.json')) ? (JSON.parse(readFileSync(join(npmRoot, 'npm', 'package.json'), 'utf8')) as { version: string }).version : null;
  test.skipIf(npmVersion !== '11.19.1')('NPM_OPTIONS is npm 11.19.1\'s own table: each key a value or Boolean key as its definition types it, and its shorthands', () => {
    const config = createRequire(import.meta.url)(join(npmRoot!, 'npm', 'node_modules', '@npmcli', 'config', 'lib', 'definitions', 'index.js')) as {
      definitions: Record<string, { type: unknown }>;
      shorthands: Record<string, string[]>;
    };
    const kinds: Record<string, string[]> = { value: [], boolean: [], nullable: [], other: [] };
    for (const [key, { type }] of Object.entries(config.definitions)) {
      const types = ([] as unknown[]).concat(type);
      const kind = types.length === 1 && types[0] === Boolean ? 'boolean' : !types.includes(Boolean) ? 'value' : types.length === 2 && types.includes(null) ? 'nullable' : 'other';
      kinds[kind]!.push(key);
    }
    expect(new Set([...kinds.value!, 'browser'])).toEqual(NPM_OPTIONS.value);
    expect(new Set(kinds.boolean)).toEqual(NPM_OPTIONS.boolean);
    expect(new Set(kinds.nullable)).toEqual(NPM_OPTIONS.nullable);
    // browser is [null, Boolean, String] (takes a word: in value above), color ['always', Boolean] (npmOptionWords).
    expect(kinds.other!.sort()).toEqual(['browser', 'color']);
    for (const [short, expanded] of Object.entries(config.shorthands)) {
      const key = expanded[0]!.replace(/^--(no-)?/, '');
      expect([short, expanded.length > 1 ? '' : key], short).toEqual([short, NPM_OPTIONS.short[short]]);
    }
    expect(Object.keys(NPM_OPTIONS.short).sort()).toEqual(Object.keys(config.shorthands).sort());
  });
  const RULES = { allow: ['Bash(npm:*)'], ask: ['Bash(npm publish *)'], deny: ['Bash(rm *)', 'Bash(npm run deploy *)'] };
  test.each([
    ['npm --cache /tmp/c exec -- rm -rf victim', 'deny'],
    ['npm --otp 1 exec -- rm -rf victim', 'deny'],
    ['npm --reg http://r exec -- rm -rf victim', 'deny'],
    ['npm --cache /tmp/c run deploy', 'deny'],
    ['npm --tag beta publish', 'ask'],
    ['npm --registry http://r publish', 'ask'],
    ['npm --cache /tmp/c exec cowsay', 'ask'],
    ['npm --cache /tmp/c init vite', 'ask'],
    ['npm --global false exec -- rm -rf victim', 'ask'],
    ['npm --foo true exec -- rm -rf victim', 'ask'],
    ['npm --regis http://r exec -- rm -rf victim', 'ask'],
    ['npm -cache /tmp/c exec -- rm -rf victim', 'ask'],
    ['npm -reg http://r exec -- rm -rf victim', 'ask'],
  ])('default, Bash(npm:*): %j is not allowed (%s)', (command, verdict) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe(verdict);
  });
  test.each(MODES)('%s: the same deny and ask rules hold past the option', (mode) => {
    for (const command of ['npm --cache /tmp/c exec -- rm -rf victim', 'npm --otp 1 run deploy', 'npm --global false exec -- rm -rf victim']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).not.toBe('allow');
    }
  });
  test.each(['npm run test', 'npm --silent run test', 'npm -s run test', 'npm --loglevel silent run test', 'npm -g ls', 'npm --json ls', 'npm --no-fund install', 'npm i -D vitest'])('default, Bash(npm:*): everyday %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('L2. git\'s dashed form meets the rules on the command it runs', () => {
  const execPath = execFileSync('git', ['--exec-path']).toString().trim();
  test('premise: git-clean and git-push in git --exec-path are git clean and git push', () => {
    writeFileSync(join(W, 'junk.txt'), 'x');
    execFileSync(join(execPath, 'git-clean'), ['-fdx'], { cwd: W, stdio: 'ignore' });
    expect(existsSync(join(W, 'junk.txt'))).toBe(false);
    writeFileSync(join(W, 'mcp-latch.json'), '{}');
    const remote = join(T, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'i'], { cwd: W });
    execFileSync(join(execPath, 'git-push'), ['-q', remote, 'HEAD:main'], { cwd: W, stdio: 'ignore' });
    expect(execFileSync('git', ['branch'], { cwd: remote }).toString()).toContain('main');
  });
  const RULES = { allow: ['Bash(git:*)'], ask: ['Bash(git push *)'], deny: ['Bash(git clean *)'] };
  for (const mode of MODES) {
    test.each([
      ['<X>/git-clean -fdx', 'deny', 'Bash(git clean *)'],
      ['git-clean -fdx', 'deny', 'Bash(git clean *)'],
      ['<X>/git-push origin main', 'ask', 'Bash(git push *)'],
      ['<X>/git-send-pack ../r main', 'ask', 'Bash(git push *)'],
      ['<X>/git-http-push http://x/ main', 'ask', 'Bash(git push *)'],
      ['<X>/git-subtree push -P d origin main', 'ask', 'Bash(git push *)'],
    ])(`${mode}: %j → %s`, (command, verdict, rule) => {
      const decision = shell(command.replace('<X>', execPath), mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict, rule });
    });
  }
});

describe('L4. an allow rule naming a git word itself says what the word is', () => {
  // The README's rules with the user's own alias and git-lfs allowed by name; the config outside the
  // work tree (inside it, an unknown git word asks anyway: a rewrite of the tree could touch it).
  const decide = (command: string, mode: DefaultMode) => decideShell(command, { ...RULES, mode, workspace: [W], cwd: W, home, configPath: join(home, 'mcp-latch.json') });
  const RULES = { allow: ['Bash(git:*)', 'Bash(git lg *)', 'Bash(git lfs pull)'], ask: ['Bash(git push *)'], deny: ['Bash(rm *)'] };
  test.each(['git lg', 'git lg -5 --stat', 'git lfs pull'])('default: %j is allowed', (command) => {
    const decision = decide(command, 'default');
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each([
    'git st',
    'git lfs push origin main',
    'git psuh origin main',
    'git -c help.autocorrect=immediate lg',
    "git -c alias.lg='!rm -rf victim' lg",
    'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.lg GIT_CONFIG_VALUE_0=push git lg',
    'GIT_CONFIG_GLOBAL=/tmp/x git lg',
    'git --config-env=alias.lg=E lg',
    'git -c include.path=/tmp/x lg',
    'env git lg',
    '/usr/bin/git lg',
  ])('default: %j still asks (or is denied)', (command) => {
    const decision = decide(command, 'default');
    expect(decision.verdict, decision.reason).not.toBe('allow');
  });
  test('bypassPermissions: git lg is allowed, git st asks', () => {
    expect(decide('git lg', 'bypassPermissions').verdict).toBe('allow');
    expect(decide('git st', 'bypassPermissions').verdict).toBe('ask');
  });
});
