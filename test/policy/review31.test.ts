import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { decideServerTool, decideShell, MODES, runs } from '../helpers/policy.js';
import { tempDir } from '../helpers/gateway.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import type { DefaultMode } from '../../src/policy/types.js';
import { RuleSet } from '../../src/policy/match.js';
import { parseRule } from '../../src/policy/rule.js';

/**
 * Round 31's review of file-path decisions (docs/threat-model.md "Round 31: the review of round 30
 * (file tools' paths)"): each row was allowed before its fix in the modes named, decided in a fresh
 * workspace holding a Read-denied conf/secret/db.txt; the premises run the real programs.
 */

const DENY = ['Read(./conf/secret/**)'];

/** A workspace with conf/secret/db.txt (tracked, in a git repository), pub/a.txt and src/a.ts. */
function workspace(prefix: string): string {
  const w = tempDir(prefix);
  for (const dir of ['conf/secret', 'pub', 'src']) mkdirSync(join(w, dir), { recursive: true });
  writeFileSync(join(w, 'conf/secret/db.txt'), 'TOPSECRET\n');
  writeFileSync(join(w, 'pub/a.txt'), 'hi\n');
  writeFileSync(join(w, 'src/a.ts'), 'export {};\n');
  const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: w, stdio: 'ignore', timeout: 30_000 });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'x');
  return w;
}

let w = '';
beforeAll(async () => {
  await initShellParser();
  w = workspace('review31-');
});

const decided = (command: string, mode: DefaultMode, allow: string[]) => decideShell(command, { mode, workspace: [w], cwd: w, allow, deny: DENY });

describe('F31-3 a recursive hard-link copy gives every file below a second name (cp -rl, rsync --link-dest)', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ['cp -rl conf pub/c', 'cp -al conf pub/c', 'cp -Rl conf/. pub/c', 'cp -l -r conf pub/c', 'cp --link --recursive conf pub/c', 'cp -rl -t pub conf', `rsync -a --link-dest=${w}/conf/secret pub/ pub2/`]) {
      const decision = decided(command, mode, ['Bash(cp:*)', 'Bash(rsync:*)']);
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
    }
  });

  test('a hard-link copy of a tree no rule covers stays allowed (acceptEdits, bypassPermissions)', () => {
    for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
      const decision = decided('cp -rl src build', mode, ['Bash(cp:*)']);
      expect(decision.verdict, decision.reason).toBe('allow');
    }
  });

  test('premise: cp -rl makes pub/c/secret/db.txt the same file as conf/secret/db.txt (coreutils)', () => {
    const place = workspace('review31-cp-');
    expect(spawnSync('cp', ['-rl', 'conf', 'pub/c'], { cwd: place, timeout: 30_000 }).status).toBe(0);
    expect(statSync(join(place, 'pub/c/secret/db.txt')).ino).toBe(statSync(join(place, 'conf/secret/db.txt')).ino);
    expect(readFileSync(join(place, 'pub/c/secret/db.txt'), 'utf8')).toBe('TOPSECRET\n');
  });
});

describe('F31-4 git checks out what it stores under new names (worktree add, checkout-index --prefix)', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ['git worktree add pub/wt', 'git worktree add ../wt2', 'git worktree add -f pub/wt', 'git worktree add --detach pub/wt HEAD', 'git worktree add -b b2 pub/wt', 'git checkout-index -a --prefix=pub/x/', 'git checkout-index -a -f --prefix=/tmp/r31-x/']) {
      const decision = decided(command, mode, ['Bash(git:*)']);
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
    }
  });

  test('with no deny or ask rule that could match what git stores, they stay allowed; git worktree remove too', () => {
    for (const command of ['git worktree add ../wt3', 'git checkout-index -a --prefix=pub/x/', 'git worktree remove ../wt3']) {
      const decision = decideShell(command, { mode: 'acceptEdits', workspace: [w], cwd: w, allow: ['Bash(git:*)', 'Edit(/tmp/**)'], deny: ['Read(/nowhere/**)'] });
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe('allow');
    }
  });

  test('premise: git worktree add checks out conf/secret/db.txt under the new tree (git)', (context) => {
    if (!runs('git', ['--version'])) return context.skip('needs git');
    const place = workspace('review31-wt-');
    expect(spawnSync('git', ['worktree', 'add', '-q', 'pub/wt'], { cwd: place, timeout: 30_000 }).status).toBe(0);
    expect(readFileSync(join(place, 'pub/wt/conf/secret/db.txt'), 'utf8')).toBe('TOPSECRET\n');
    expect(spawnSync('git', ['checkout-index', '-a', '--prefix=pub/x/'], { cwd: place, timeout: 30_000 }).status).toBe(0);
    expect(readFileSync(join(place, 'pub/x/conf/secret/db.txt'), 'utf8')).toBe('TOPSECRET\n');
  });
});

describe('F31-5 a file system that folds case (vfat, exfat, ntfs3, SMB, ext4 +F): deny and ask rules match in any case', () => {
  const FS_TOOL = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] };
  test.each(MODES)('%s', (mode) => {
    for (const command of ['cat Conf/Secret/db.txt', 'cat CONF/secret/DB.TXT', 'cp conf/SECRET/db.txt pub/x', 'cat pub/.ENV']) {
      const decision = decideShell(command, { mode, workspace: [w], cwd: w, allow: ['Bash(cat:*)', 'Bash(cp:*)'], deny: [...DENY, 'Read(**/.env)'] });
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).toBe('deny');
    }
    const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, w] }, 'read_text_file', { path: join(w, 'Conf/Secret/db.txt') }, w, { mode, workspace: [w], deny: DENY });
    expect(read.verdict, `${mode} read_text_file: ${read.reason}`).toBe('deny');
    const asked = decideShell('cat PUB/a.txt', { mode, workspace: [w], cwd: w, allow: ['Bash(cat:*)'], ask: ['Read(./pub/**)'] });
    expect(asked.verdict, `${mode} ask rule: ${asked.reason}`).not.toBe('allow');
  });

  test('allow rules keep the case written on Linux: Read(/w/pub/**) does not allow /w/PUB/a.txt', (context) => {
    if (process.platform !== 'linux') return context.skip('Linux only: macOS and Windows fold case for every rule');
    const env = { home: '/home/u', roots: ['/w'], platform: 'linux' as const };
    const rules = new RuleSet([parseRule('Read(/w/pub/**)', 'allow'), parseRule('Read(/w/conf/**)', 'deny')], env);
    expect(rules.matchPath('allow', 'read', '/w/PUB/a.txt')).toBeNull();
    expect(rules.matchPath('allow', 'read', '/w/pub/a.txt')?.text).toBe('Read(/w/pub/**)');
    expect(rules.matchPath('deny', 'read', '/w/CONF/x')?.text).toBe('Read(/w/conf/**)');
  });
});
