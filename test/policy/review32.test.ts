import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { decideServerTool, decideShell, MODES } from '../helpers/policy.js';
import { tempDir } from '../helpers/gateway.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { nameKey, ruleGlobs, RuleSet } from '../../src/policy/match.js';
import { parseRule } from '../../src/policy/rule.js';

/**
 * Round 32's review of file-path decisions (docs/threat-model.md "Round 32: the review of round 31
 * (file tools' paths)"): each row was allowed before its fix in the modes named, decided in a fresh
 * workspace holding a Read-denied conf/secret/db.txt; the premises run the real programs.
 */

const DENY = ['Read(./conf/secret/**)'];
const FS_TOOL = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] };

/** A workspace with conf/secret/db.txt (tracked, in a git repository) and pub/a.txt. */
function workspace(prefix: string): string {
  const w = tempDir(prefix);
  for (const dir of ['conf/secret', 'pub', 'src']) mkdirSync(join(w, dir), { recursive: true });
  writeFileSync(join(w, 'conf/secret/db.txt'), 'TOPSECRET\n');
  writeFileSync(join(w, 'pub/a.txt'), 'hi\n');
  const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: w, stdio: 'ignore', timeout: 30_000 });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'x');
  return w;
}

let w = '';
beforeAll(async () => {
  await initShellParser();
  w = workspace('review32-');
});

describe('F32-1 names as the folding file systems compare them: full case folding, NFD, ignorables, upcase tables', () => {
  // ext4/f2fs casefold (fs/unicode utf8_casefold: NFD, then CaseFolding.txt's C and F mappings; `touch ß ss SS ẞ` makes one file),
  // Default_Ignorable code points dropped before Linux 6.13 and by HFS+, NTFS/exFAT upcase tables (ſ and s, ı and i upcase alike).
  const SPELLINGS = [
    'conf/ſecret/db.txt', // U+017F LATIN SMALL LETTER LONG S: CaseFolding C → s; upcases to S
    'Conf/ſECRET/DB.TXT',
    'conf/secret\u200c/db.txt', // ZERO WIDTH NON-JOINER: ignorable
    'conf/se\u00adcret/db.txt', // SOFT HYPHEN: ignorable
    'conf/\ufeffsecret/db.txt', // ZERO WIDTH NO-BREAK SPACE: ignorable
  ];
  test.each(MODES)('%s: a Read-denied conf/secret/db.txt under other spellings', (mode) => {
    for (const path of SPELLINGS) {
      const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, w] }, 'read_text_file', { path: join(w, path) }, w, { mode, workspace: [w], deny: DENY });
      expect(read.verdict, `${mode} ${JSON.stringify(path)}: ${read.reason}`).toBe('deny');
    }
  });

  test('rules past ASCII: ß, ẞ and SS; σ and ς; the Kelvin sign; ligatures; NFC and NFD; ı and I', () => {
    const env = { home: '/home/u', roots: ['/w'], platform: 'linux' as const };
    const rules = new RuleSet(
      ['Read(/w/straße/**)', 'Read(/w/σοφία/**)', 'Read(/w/keys/**)', 'Read(/w/office/**)', 'Read(/w/café/**)', 'Edit(/w/fix/**)'].map((text) => parseRule(text, 'deny')),
      env,
    );
    const denied = (path: string, access: 'read' | 'write' = 'read') => rules.matchPath('deny', access, path)?.text ?? null;
    for (const path of ['/w/STRASSE/x', '/w/strasse/x', '/w/STRAẞE/x', '/w/Straße/x']) expect(denied(path), path).toBe('Read(/w/straße/**)');
    for (const path of ['/w/ΣΟΦΊΑ/x', '/w/σοφία/x', '/w/ςοφία/x', '/w/σοφι\u0301α/x']) expect(denied(path), path).toBe('Read(/w/σοφία/**)');
    expect(denied('/w/\u212Aeys/id')).toBe('Read(/w/keys/**)'); // KELVIN SIGN
    expect(denied('/w/o\uFB03ce/x')).toBe('Read(/w/office/**)'); // LATIN SMALL LIGATURE FFI
    expect(denied('/w/cafe\u0301/x')).toBe('Read(/w/café/**)'); // NFD, as a macOS client writes it
    expect(denied('/w/CAFÉ/x')).toBe('Read(/w/café/**)');
    expect(denied('/w/f\u0131x/a', 'write')).toBe('Edit(/w/fix/**)'); // DOTLESS I upcases to I (NTFS, exFAT)
    // Names no file system takes for another stay apart: a Cyrillic letter, another word.
    for (const path of ['/w/ke\u0443s/x', '/w/strase/x', '/w/cafe/x', '/w/offic/x']) expect(denied(path), path).toBeNull();
  });

  test('nameKey: ASCII only lower-cased; one key for each spelling a folding file system takes for the same', () => {
    expect(nameKey('/W/Conf/DB.txt')).toBe('/w/conf/db.txt');
    expect(new Set(['ß', 'ẞ', 'SS', 'ss', 'sS'].map(nameKey)).size).toBe(1);
    expect(new Set(['Σ', 'σ', 'ς'].map(nameKey)).size).toBe(1);
    expect(new Set(['é', 'e\u0301', 'É', 'E\u0301'].map(nameKey)).size).toBe(1);
    expect(nameKey('a\u200bb\u2060c')).toBe('abc');
  });

  test('allow rules keep the case written on Linux, and an ASCII allow rule is not widened by folding', (context) => {
    if (process.platform !== 'linux') return context.skip('Linux only: macOS and Windows fold case for every rule');
    const env = { home: '/home/u', roots: ['/w'], platform: 'linux' as const };
    const rules = new RuleSet([parseRule('Read(/w/docs/**)', 'allow')], env);
    expect(rules.matchPath('allow', 'read', '/w/doc\u017F/a')).toBeNull();
    expect(rules.matchPath('allow', 'read', '/w/docs/a')?.text).toBe('Read(/w/docs/**)');
  });

  test('ordinary non-ASCII names outside the rule stay allowed (bypassPermissions)', () => {
    for (const path of ['pub/résumé.txt', 'pub/Straße.md', 'pub/σημειώσεις.txt']) {
      const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, w] }, 'read_text_file', { path: join(w, path) }, w, { mode: 'bypassPermissions', workspace: [w], deny: DENY });
      expect(read.verdict, `${path}: ${read.reason}`).toBe('allow');
    }
  });
});

describe('F32-2 git writes stored files under new names: --work-tree checkouts, read-tree --prefix, patches that rename or copy', () => {
  const RENAME = 'diff --git a/conf/secret/db.txt b/pub/leak.txt\nsimilarity index 100%\nrename from conf/secret/db.txt\nrename to pub/leak.txt\n';
  const COMMANDS = [
    'git --work-tree=pub/x checkout -f',
    'git --work-tree=pub/x reset --hard',
    'git --work-tree=pub/x stash',
    'git --work-tree=pub/x restore --source=HEAD .',
    'git -C pub --work-tree=x checkout -f',
    'git read-tree --prefix=pub/r/ -u HEAD',
    'git read-tree --prefix=pub/r/ HEAD',
    'git apply pub/r.patch',
    'git apply --index pub/r.patch',
    'git apply --cached pub/r.patch',
    'git am pub/r.patch',
  ];
  test.each(MODES)('%s', (mode) => {
    writeFileSync(join(w, 'pub/r.patch'), RENAME);
    for (const command of COMMANDS) {
      const decision = decideShell(command, { mode, workspace: [w], cwd: w, allow: ['Bash(git:*)'], deny: DENY });
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
    }
  });

  test('ordinary commands stay allowed: no deny or ask rule matches a file of the tree (default, bypassPermissions)', () => {
    const place = workspace('review32-plain-');
    writeFileSync(join(place, 'pub/r.patch'), RENAME.replaceAll('conf/secret/db.txt', 'pub/a.txt'));
    for (const mode of ['default', 'bypassPermissions'] as const) {
      for (const command of ['git apply pub/r.patch', 'git am pub/r.patch', 'git apply --check pub/r.patch', 'git read-tree HEAD', 'git checkout -f', 'git --work-tree=. status']) {
        const decision = decideShell(command, { mode, workspace: [place], cwd: place, allow: ['Bash(git:*)'], deny: ['Read(./secrets/**)'] });
        expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).toBe('allow');
      }
    }
  });

  test('premises: each wrote conf/secret/db.txt\'s content under pub/ (git)', () => {
    const place = workspace('review32-git-');
    writeFileSync(join(place, 'pub/r.patch'), RENAME);
    const run = (command: string) => spawnSync('sh', ['-c', command], { cwd: place, timeout: 30_000, encoding: 'utf8' });
    expect(run('mkdir -p pub/x && git --work-tree=pub/x checkout -f && cat pub/x/conf/secret/db.txt').stdout).toBe('TOPSECRET\n');
    expect(run('git read-tree --prefix=pub/r/ -u HEAD && cat pub/r/conf/secret/db.txt').stdout).toBe('TOPSECRET\n');
    expect(run('git reset -q --hard && git apply pub/r.patch && cat pub/leak.txt').stdout).toBe('TOPSECRET\n');
  });
});

describe('F32-3 git worktree add PATH checks out HEAD\'s commit, not the index', () => {
  /** A repository whose HEAD holds conf/secret/db.txt and whose index no longer does (`git rm --cached`). */
  function unstaged(): string {
    const place = workspace('review32-wt-');
    spawnSync('git', ['rm', '-q', '--cached', 'conf/secret/db.txt'], { cwd: place, timeout: 30_000 });
    return place;
  }

  test.each(MODES)('%s: a file HEAD holds that git rm --cached took out of the index', (mode) => {
    const place = unstaged();
    for (const command of ['git worktree add pub/wt', 'git worktree add -b n pub/wt', 'git worktree add --detach pub/wt']) {
      const decision = decideShell(command, { mode, workspace: [place], cwd: place, allow: ['Bash(git:*)'], deny: DENY });
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
    }
  });

  test('a branch named as the new tree is checked out instead of HEAD', () => {
    const place = workspace('review32-wtb-');
    spawnSync('git', ['branch', 'wt'], { cwd: place, timeout: 30_000 });
    const decision = decideShell('git worktree add pub/wt', { mode: 'bypassPermissions', workspace: [place], cwd: place, allow: ['Bash(git:*)'], deny: ['Read(**/.env)'] });
    expect(decision.verdict, decision.reason).not.toBe('allow');
  });

  test('the index is HEAD and no rule matches a tracked file: allowed (default, bypassPermissions)', () => {
    const place = workspace('review32-wtok-');
    for (const mode of ['default', 'bypassPermissions'] as const) {
      for (const command of ['git worktree add pub/wt', 'git worktree add -b n ../wt']) {
        const decision = decideShell(command, { mode, workspace: [place], cwd: place, allow: ['Bash(git:*)'], deny: ['Read(**/.env)'] });
        expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).toBe('allow');
      }
    }
  });

  test('premise: the new tree holds the file the index no longer lists (git)', () => {
    const place = unstaged();
    const run = spawnSync('sh', ['-c', 'git worktree add -q pub/wt 2>/dev/null && cat pub/wt/conf/secret/db.txt'], { cwd: place, timeout: 30_000, encoding: 'utf8' });
    expect(run.stdout).toBe('TOPSECRET\n');
  });
});

describe('F32-4 the roots of a run past MAX_ROOTS_OF_RUN: relative deny and ask rules below any directory', () => {
  test('rootsBeyond adds one glob below any directory to each relative deny or ask rule, none to allow rules or anchored ones', () => {
    const env = { home: '/home/u', roots: ['/w1', '/w2'], platform: 'linux' as const, rootsBeyond: true as const };
    const rules = new RuleSet([parseRule('Read(./conf/secret/**)', 'deny'), parseRule('Edit(src/gen/**)', 'ask'), parseRule('Read(~/.ssh/**)', 'deny'), parseRule('Read(./pub/**)', 'allow')], env);
    expect(rules.matchPath('deny', 'read', '/elsewhere/x/conf/secret/db.txt')?.text).toBe('Read(./conf/secret/**)');
    expect(rules.matchPath('ask', 'write', '/else/src/gen/a.ts')?.text).toBe('Edit(src/gen/**)');
    expect(rules.matchPath('allow', 'read', '/elsewhere/pub/a.txt')).toBeNull();
    expect(rules.matchPath('deny', 'read', '/elsewhere/.ssh/id')).toBeNull();
    expect(ruleGlobs(parseRule('Read(./conf/secret/**)', 'deny') as Parameters<typeof ruleGlobs>[0], env)).toEqual(['/w1/conf/secret/**', '/w2/conf/secret/**', '/**/conf/secret/**']);
    const without = new RuleSet([parseRule('Read(./conf/secret/**)', 'deny')], { ...env, rootsBeyond: undefined });
    expect(without.matchPath('deny', 'read', '/elsewhere/x/conf/secret/db.txt')).toBeNull();
  });
});

describe('F32-5 a hard link another process made to a file a deny or ask rule covers', () => {
  test.each(MODES)('%s: read_text_file and cat of the other name are refused', (mode) => {
    const place = workspace('review32-ln-');
    writeFileSync(join(place, '.env'), 'TOKEN=1\n');
    linkSync(join(place, 'conf/secret/db.txt'), join(place, 'pub/h.txt'));
    linkSync(join(place, '.env'), join(place, 'pub/e.txt'));
    for (const file of ['pub/h.txt', 'pub/e.txt']) {
      const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, place] }, 'read_text_file', { path: join(place, file) }, place, { mode, workspace: [place], deny: [...DENY, 'Read(**/.env)'] });
      expect(read.verdict, `${mode} ${file}: ${read.reason}`).toBe('deny');
      const cat = decideShell(`cat ${file}`, { mode, workspace: [place], cwd: place, allow: ['Bash(cat:*)'], deny: [...DENY, 'Read(**/.env)'] });
      expect(cat.verdict, `${mode} cat ${file}: ${cat.reason}`).toBe('deny');
    }
    const asked = decideShell('cat pub/h.txt', { mode, workspace: [place], cwd: place, allow: ['Bash(cat:*)'], ask: DENY });
    expect(asked.verdict, `${mode} ask rule: ${asked.reason}`).not.toBe('allow');
  });

  test('a file with several names none of them covered stays allowed (a package manager\'s store link, cp -l of a public file)', () => {
    const place = workspace('review32-lnok-');
    const store = tempDir('review32-store-');
    writeFileSync(join(store, 'index.js'), 'module.exports = 1;\n');
    mkdirSync(join(place, 'node_modules/x'), { recursive: true });
    linkSync(join(store, 'index.js'), join(place, 'node_modules/x/index.js'));
    linkSync(join(place, 'pub/a.txt'), join(place, 'pub/b.txt'));
    for (const file of ['node_modules/x/index.js', 'pub/b.txt']) {
      const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, place] }, 'read_text_file', { path: join(place, file) }, place, { mode: 'bypassPermissions', workspace: [place], deny: [...DENY, 'Read(**/.env)'] });
      expect(read.verdict, `${file}: ${read.reason}`).toBe('allow');
    }
  });

  test('premise: the other name reads the denied file\'s content (one inode)', () => {
    const place = workspace('review32-lnp-');
    linkSync(join(place, 'conf/secret/db.txt'), join(place, 'pub/h.txt'));
    expect(readFileSync(join(place, 'pub/h.txt'), 'utf8')).toBe('TOPSECRET\n');
    expect(statSync(join(place, 'pub/h.txt')).ino).toBe(statSync(join(place, 'conf/secret/db.txt')).ino);
  });
});

describe('F32-6 a bind mount makes another name for a tree (mount --bind, bindfs)', () => {
  const BINDS = ['mount --bind conf pub/m', 'mount -B conf pub/m', 'mount -o bind conf pub/m', 'mount -o ro,rbind . pub/m', 'mount --rbind conf/secret pub/m', 'bindfs conf pub/m'];
  test.each(MODES)('%s', (mode) => {
    for (const command of BINDS) {
      const decision = decideShell(command, { mode, workspace: [w], cwd: w, allow: ['Bash(mount:*)', 'Bash(bindfs:*)'], deny: DENY });
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
    }
  });

  test('a bind of a tree no rule covers stays allowed (bypassPermissions)', () => {
    const decision = decideShell('mount --bind src pub/m', { mode: 'bypassPermissions', workspace: [w], cwd: w, deny: DENY });
    expect(decision.verdict, decision.reason).toBe('allow');
  });

  test('premise: the file reads under the mount point (util-linux mount, in a user and mount namespace)', (context) => {
    const place = workspace('review32-bind-');
    mkdirSync(join(place, 'pub/m'));
    const run = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount --bind conf pub/m && cat pub/m/secret/db.txt'], { cwd: place, timeout: 30_000, encoding: 'utf8' });
    if (run.status !== 0) return context.skip(`no mount namespace here: ${run.stderr}`);
    expect(run.stdout).toBe('TOPSECRET\n');
  });
});
