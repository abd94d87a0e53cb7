import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { codeCacheDirectory } from '../../src/config/locate.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { decideFs, decideShell, decideTool } from '../helpers/policy.js';

beforeAll(async () => {
  await initShellParser();
});

describe('precedence: deny, then ask, then allow, then the mode (docs/rules.md)', () => {
  test('a broad deny beats a narrower allow (specificity never overrides the order)', () => {
    const d = decideShell('aws s3 ls', { allow: ['Bash(aws s3 ls)'], deny: ['Bash(aws *)'] });
    expect(d.verdict).toBe('deny');
    expect(d.rule).toBe('Bash(aws *)');
  });

  test('an ask beats an allow', () => {
    const d = decideShell('git push origin main', { allow: ['Bash(git push *)'], ask: ['Bash(git push *)'] });
    expect(d.verdict).toBe('ask');
    expect(d.rule).toBe('Bash(git push *)');
  });

  test('the call takes the strictest subject: one denied part denies the chain', () => {
    const d = decideShell('npm run test && curl evil.sh', { allow: ['Bash(npm run test *)', 'Bash(curl *)'], deny: ['Bash(curl evil.sh)'] });
    expect(d.verdict).toBe('deny');
  });

  test('allow only when every part is allowed', () => {
    expect(decideShell('npm run test && make', { allow: ['Bash(npm run test *)'] }).verdict).toBe('ask');
    expect(decideShell('npm run test && make', { allow: ['Bash(npm run test *)', 'Bash(make)'] }).verdict).toBe('allow');
  });

  test('an mcp__ deny decides the whole call; an mcp__ allow leaves deny rules in force', () => {
    expect(decideShell('ls', { deny: ['mcp__shell'] }).verdict).toBe('deny');
    expect(decideShell('rm -rf build', { allow: ['mcp__shell__run_command'], deny: ['Bash(rm *)'] }).verdict).toBe('deny');
    expect(decideShell('make build', { allow: ['mcp__shell__run_command'] }).verdict).toBe('allow');
    expect(decideShell('make build', { allow: ['mcp__shell__run_*'], ask: ['mcp__shell__run_command'] }).verdict).toBe('ask');
  });

  test('a rule decision names the rule; a mode decision names the mode', () => {
    const byRule = decideShell('rm -rf /', { deny: ['Bash(rm *)'] });
    expect(byRule).toMatchObject({ verdict: 'deny', rule: 'Bash(rm *)', by: 'rule' });
    expect(byRule.reason).toContain('Bash(rm *)');
    const byMode = decideShell('make', {});
    expect(byMode).toMatchObject({ verdict: 'ask', rule: null, by: 'mode' });
    expect(byMode.reason).toContain('mode default');
  });
});

describe('modes (docs/rules.md)', () => {
  let root: string;
  beforeAll(() => {
    root = tempDir();
    writeFileSync(join(root, 'a.txt'), 'a');
  });

  test.each([
    ['default', 'read inside', 'allow'],
    ['default', 'write inside', 'ask'],
    ['default', 'read outside', 'ask'],
    ['acceptEdits', 'write inside', 'allow'],
    ['acceptEdits', 'write outside', 'ask'],
    ['plan', 'read inside', 'allow'],
    ['plan', 'write inside', 'deny'],
    ['dontAsk', 'read outside', 'deny'],
    ['dontAsk', 'read inside', 'allow'],
    ['bypassPermissions', 'write outside', 'allow'],
  ] as const)('%s: %s → %s', (mode, what, verdict) => {
    const inside = what.endsWith('inside');
    const path = inside ? join(root, 'a.txt') : '/etc/hostname';
    const tool = what.startsWith('read') ? 'read_text_file' : 'write_file';
    const d = decideFs(tool, { path, content: 'x' }, [root, '/etc'], { mode, workspace: [root] });
    expect(d.verdict).toBe(verdict);
  });

  test('bypassPermissions still obeys deny rules', () => {
    expect(decideShell('rm -rf /', { mode: 'bypassPermissions', deny: ['Bash(rm *)'] }).verdict).toBe('deny');
  });

  test('plan mode denies commands that are not read-only, allows read-only ones', () => {
    expect(decideShell('make', { mode: 'plan' }).verdict).toBe('deny');
    expect(decideShell('git status', { mode: 'plan' }).verdict).toBe('allow');
  });

  test('a pathless read tool from a profile is allowed; a guessed one asks', () => {
    expect(decideFs('list_allowed_directories', {}, [root]).verdict).toBe('allow');
    expect(decideTool('x', { name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, { city: 'Oslo' }).verdict).toBe('ask');
  });
});

describe('paths: lexical and real path, symlinks both ways (docs/design.md)', () => {
  let project: string;
  let outside: string;
  beforeAll(() => {
    project = tempDir('proj-');
    outside = tempDir('outside-');
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src', 'main.ts'), 'x');
    writeFileSync(join(project, '.env'), 'SECRET=1');
    writeFileSync(join(outside, 'secret.txt'), 's');
    symlinkSync(join(outside, 'secret.txt'), join(project, 'src', 'link.txt'));
    symlinkSync(join(outside, 'new-file.txt'), join(project, 'src', 'dangling.txt'));
    symlinkSync(join(project, '.env'), join(project, 'innocent.txt'));
  });

  test('a read of .env is denied by Read(**/.env), also through a symlink with another name', () => {
    expect(decideFs('read_text_file', { path: join(project, '.env') }, [project], { deny: ['Read(**/.env)'], workspace: [project] }).verdict).toBe('deny');
    expect(decideFs('read_text_file', { path: join(project, 'innocent.txt') }, [project], { deny: ['Read(**/.env)'], workspace: [project] }).verdict).toBe('deny');
  });

  test('a symlink inside the project pointing outside is not "inside the workspace"', () => {
    const d = decideFs('read_text_file', { path: join(project, 'src', 'link.txt') }, [project], { workspace: [project] });
    expect(d.verdict).toBe('ask');
    expect(d.paths[0]).toMatchObject({ realPath: join(outside, 'secret.txt'), inWorkspace: false });
  });

  test('an allow rule must match the lexical and the real path', () => {
    const d = decideFs('read_text_file', { path: join(project, 'src', 'link.txt') }, [project], { allow: [`Read(${project}/**)`], workspace: [project] });
    expect(d.verdict).toBe('ask');
  });

  test('a write through a dangling symlink is checked at its target', () => {
    const d = decideFs('write_file', { path: join(project, 'src', 'dangling.txt'), content: 'x' }, [project], { mode: 'acceptEdits', workspace: [project], deny: [`Edit(${outside}/**)`] });
    expect(d.verdict).toBe('deny');
  });

  test('a Read deny also denies writing the same path', () => {
    expect(decideFs('write_file', { path: join(project, '.env'), content: 'x' }, [project], { deny: ['Read(.env)'], mode: 'bypassPermissions' }).verdict).toBe('deny');
  });

  test('relative paths resolve against the server\'s first root; .. cannot climb out unseen', () => {
    const d = decideFs('read_text_file', { path: '../../../etc/passwd' }, [project], { workspace: [project] });
    expect(d.paths[0]?.path).toBe('/etc/passwd');
    expect(d.verdict).toBe('ask');
  });

  test('sibling directories with a common prefix are outside (CVE-2025-53110 class)', () => {
    const d = decideFs('read_text_file', { path: `${project}-evil/x` }, [project], { workspace: [project] });
    expect(d.paths[0]?.inWorkspace).toBe(false);
    expect(d.verdict).toBe('ask');
  });

  test('a path that cannot be checked asks even in bypass mode', () => {
    expect(decideFs('read_text_file', { path: 'C:\\Windows\\win.ini' }, [project], { mode: 'bypassPermissions' }).verdict).toBe('ask');
    expect(decideFs('read_text_file', { path: 'a\u0000b' }, [project], { mode: 'bypassPermissions' }).verdict).toBe('ask');
    expect(decideFs('read_text_file', { path: 42 }, [project], { mode: 'bypassPermissions' }).verdict).toBe('ask');
  });

  test('built-in protection: no tool may write the mcp-latch config', () => {
    expect(decideFs('write_file', { path: '/etc/mcp-latch-test/mcp-latch.json', content: '{}' }, ['/etc'], { mode: 'bypassPermissions', allow: ['Edit'] }).verdict).toBe('deny');
    expect(decideShell(`mcp-latch allow 'Bash(rm *)'`, { mode: 'bypassPermissions' }).verdict).toBe('deny');
    expect(decideShell('mcp-latch tools --accept fs__read_file', { mode: 'bypassPermissions', allow: ['Bash'] }).verdict).toBe('deny');
    expect(decideFs('write_file', { path: '/etc/mcp-latch-test/mcp-latch-init.json', content: '{}' }, ['/etc'], { mode: 'bypassPermissions' }).verdict).toBe('deny');
    expect(decideFs('write_file', { path: '/etc/mcp-latch-test/mcp-latch.lock.json', content: '{}' }, ['/etc'], { mode: 'bypassPermissions', allow: ['Edit'] }).verdict).toBe('deny');
    expect(decideShell('echo x > /etc/mcp-latch-test/mcp-latch.json', { mode: 'bypassPermissions' }).verdict).toBe('deny');
  });

  test('built-in protection: no tool may write the code cache the next gateway runs', () => {
    const cache = codeCacheDirectory();
    const file = join(cache, 'serve-0123.v8cache');
    expect(decideFs('write_file', { path: file, content: 'x' }, [dirname(cache)], { mode: 'bypassPermissions', allow: ['Edit'] }).verdict).toBe('deny');
    expect(decideShell(`echo x > ${file}`, { mode: 'bypassPermissions', allow: ['Bash'] }).verdict).toBe('deny');
    expect(decideShell(`rm -rf ${cache}`, { mode: 'bypassPermissions', allow: ['Bash'] }).verdict).toBe('deny');
    // Only that directory: its neighbour is decided by the rules.
    expect(decideFs('write_file', { path: `${cache}-other/x`, content: 'x' }, [dirname(cache)], { mode: 'bypassPermissions', allow: ['Edit'] }).verdict).toBe('allow');
  });
});

describe('session grants', () => {
  test('a granted rule allows; a granted exact call allows only that call', async () => {
    const { RuleSet } = await import('../../src/policy/match.js');
    const { parseRule } = await import('../../src/policy/rule.js');
    const env = { home: '/home/u', roots: [], platform: process.platform };
    const grants = { rules: new RuleSet([parseRule('Bash(make *)', 'allow')], env), digests: new Set<string>() };
    expect(decideShell('make all', { grants }).verdict).toBe('allow');
    expect(decideShell('make all', { grants, deny: ['Bash(make *)'] }).verdict).toBe('deny');
    expect(decideShell('make all', { grants, ask: ['Bash(make *)'] }).verdict).toBe('ask');
  });
});
