import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { decideServerTool, decideShell, MODES } from '../helpers/policy.js';
import { tempDir } from '../helpers/gateway.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';

/**
 * Round 33's review of file-path decisions (docs/threat-model.md "Round 33: the review of round 32
 * (file tools' paths)"): each row was allowed before its fix in the modes named, decided in a fresh
 * workspace holding a Read-denied conf/secret/db.txt; the premises run the real programs.
 */

const DENY = ['Read(./conf/secret/**)'];

function workspace(prefix: string): string {
  const w = tempDir(prefix);
  for (const dir of ['conf/secret', 'pub', 'src', 'root']) mkdirSync(join(w, dir), { recursive: true });
  writeFileSync(join(w, 'conf/secret/db.txt'), 'TOPSECRET\n');
  writeFileSync(join(w, 'pub/a.txt'), 'hi\n');
  return w;
}

let w = '';
beforeAll(async () => {
  await initShellParser();
  w = workspace('review33-');
});

describe('F33-1 a sandbox or a new root shows a directory above a rule under another name', () => {
  const ALLOW = ['Bash(bwrap:*)', 'Bash(proot:*)', 'Bash(systemd-nspawn:*)', 'Bash(firejail:*)', 'Bash(chroot:*)', 'Bash(unshare:*)', 'Bash(nsenter:*)', 'Bash(sudo:*)'];
  const BINDS = () => [
    `bwrap --ro-bind / / --tmpfs /mnt --bind ${w}/conf /mnt/x cat /mnt/x/secret/db.txt`,
    'bwrap --ro-bind conf /x cat /x/secret/db.txt',
    'bwrap --dev-bind . /x cat /x/conf/secret/db.txt',
    'bwrap --bind-try conf /x cat /x/secret/db.txt',
    'bwrap --overlay-src conf --tmp-overlay /x cat /x/secret/db.txt',
    'bwrap --bind-fd 3 /x cat /x/secret/db.txt',
    `proot -b ${w}/conf:/x cat /x/secret/db.txt`,
    'proot --bind=conf:/x cat /x/secret/db.txt',
    'proot -m conf:/x cat /x/secret/db.txt',
    'proot -r conf cat /secret/db.txt',
    'proot --rootfs=conf cat /secret/db.txt',
    'systemd-nspawn --bind=conf:/x -D root cat /x/secret/db.txt',
    'systemd-nspawn --bind-ro conf:/x -D root cat /x/secret/db.txt',
    'systemd-nspawn -D conf cat /secret/db.txt',
    'firejail --bind=conf,/x cat /x/secret/db.txt',
    'firejail --chroot=conf cat /secret/db.txt',
    'firejail --private=conf cat ~/secret/db.txt',
    'chroot conf cat /secret/db.txt',
    'unshare -R conf cat /secret/db.txt',
    'unshare --root=conf cat /secret/db.txt',
    'nsenter -rconf cat /secret/db.txt',
    'sudo -R conf cat /secret/db.txt',
  ];
  test.each(MODES)('%s', (mode) => {
    for (const command of BINDS()) {
      const decision = decideShell(command, { mode, workspace: [w], cwd: w, allow: ALLOW, deny: DENY });
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
    }
  });

  test('an Edit rule below a writable bind meets it; a read-only one reads only', () => {
    const edit = decideShell('bwrap --bind conf /x cp pub/a.txt /x/secret/db.txt', { mode: 'bypassPermissions', workspace: [w], cwd: w, allow: ALLOW, deny: ['Edit(./conf/**)'] });
    expect(edit.verdict, edit.reason).not.toBe('allow');
    const ro = decideShell('bwrap --ro-bind conf /x cat /x/app.ini', { mode: 'bypassPermissions', workspace: [w], cwd: w, allow: ALLOW, deny: ['Edit(./conf/**)'] });
    expect(ro.verdict, ro.reason).toBe('allow');
  });

  test('binds no rule covers, and binds at the same path, stay allowed', () => {
    for (const command of [
      'bwrap --bind src /x ls /x',
      `bwrap --ro-bind / / --dev /dev --proc /proc --bind ${w} ${w} cat pub/a.txt`,
      `proot -b /dev -b ${w}/conf cat pub/a.txt`,
      'proot -r src ls',
      `systemd-nspawn --bind=${w}/conf -D src ls`,
      'chroot src ls',
      'unshare -r cat pub/a.txt',
      `firejail --whitelist=${w}/pub cat pub/a.txt`,
    ]) {
      const decision = decideShell(command, { mode: 'bypassPermissions', workspace: [w], cwd: w, allow: ALLOW, deny: DENY });
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe('allow');
    }
  });

  test('premise: bwrap and proot print the file under the other name (bubblewrap 0.8, PRoot 5.3)', (context) => {
    const place = workspace('review33-bind-');
    const bwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--tmpfs', '/mnt', '--bind', join(place, 'conf'), '/mnt/x', 'cat', '/mnt/x/secret/db.txt'], { timeout: 30_000, encoding: 'utf8' });
    const proot = spawnSync('proot', ['-b', `${join(place, 'conf')}:/x`, 'cat', '/x/secret/db.txt'], { timeout: 30_000, encoding: 'utf8' });
    if (bwrap.error || proot.error || bwrap.status !== 0) return context.skip(`bwrap or proot not usable here: ${bwrap.stderr ?? ''} ${String(bwrap.error ?? proot.error ?? '')}`);
    expect(bwrap.stdout).toBe('TOPSECRET\n');
    expect(proot.stdout).toBe('TOPSECRET\n');
  });
});

describe('F33-2 a covered file below node_modules or .git with another name elsewhere (F32-5 pruned them)', () => {
  const FS_TOOL = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] };
  const RULES = ['Read(.env)', 'Read(*.pem)'];
  test.each(MODES)('%s: read_text_file and cat of the other name are refused', (mode) => {
    const place = workspace('review33-ln-');
    mkdirSync(join(place, 'node_modules/.pnpm/x/node_modules/x'), { recursive: true });
    mkdirSync(join(place, '.git/info'), { recursive: true });
    writeFileSync(join(place, 'node_modules/.pnpm/x/node_modules/x/.env'), 'TOKEN=1\n');
    writeFileSync(join(place, '.git/info/deploy.pem'), 'KEY\n');
    linkSync(join(place, 'node_modules/.pnpm/x/node_modules/x/.env'), join(place, 'pub/e.txt'));
    linkSync(join(place, '.git/info/deploy.pem'), join(place, 'pub/k.txt'));
    for (const file of ['pub/e.txt', 'pub/k.txt']) {
      const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, place] }, 'read_text_file', { path: join(place, file) }, place, { mode, workspace: [place], deny: RULES });
      expect(read.verdict, `${mode} ${file}: ${read.reason}`).toBe('deny');
      const cat = decideShell(`cat ${file}`, { mode, workspace: [place], cwd: place, allow: ['Bash(cat:*)'], deny: RULES });
      expect(cat.verdict, `${mode} cat ${file}: ${cat.reason}`).toBe('deny');
    }
  });

  test('a store link below node_modules no rule names stays allowed', () => {
    const place = workspace('review33-lnok-');
    const store = tempDir('review33-store-');
    writeFileSync(join(store, 'index.js'), 'module.exports = 1;\n');
    mkdirSync(join(place, 'node_modules/x'), { recursive: true });
    linkSync(join(store, 'index.js'), join(place, 'node_modules/x/index.js'));
    const read = decideServerTool({ ...FS_TOOL, args: [...FS_TOOL.args, place] }, 'read_text_file', { path: join(place, 'node_modules/x/index.js') }, place, { mode: 'bypassPermissions', workspace: [place], deny: ['Read(.env)'] });
    expect(read.verdict, read.reason).toBe('allow');
  });
});

describe('F33-3 a write through another name (a hard link another process made) of a file a deny or ask rule covers', () => {
  const ALLOW = ['Bash(echo:*)', 'Bash(cp:*)', 'Bash(truncate:*)', 'Bash(tee:*)'];
  test.each(MODES)('%s: the shell writing through pub/ names is refused', (mode) => {
    const place = workspace('review33-wl-');
    mkdirSync(join(place, '.git/hooks'), { recursive: true });
    writeFileSync(join(place, 'conf/app.ini'), 'a=1\n');
    writeFileSync(join(place, '.git/hooks/pre-commit'), '#!/bin/sh\n');
    linkSync(join(place, 'conf/secret/db.txt'), join(place, 'pub/h.txt'));
    linkSync(join(place, 'conf/app.ini'), join(place, 'pub/i.txt'));
    linkSync(join(place, '.git/hooks/pre-commit'), join(place, 'pub/p.sh'));
    for (const [command, deny] of [
      ['echo x > pub/h.txt', DENY],
      ['truncate -s0 pub/h.txt', DENY],
      ['echo x >> pub/i.txt', ['Edit(./conf/**)']],
      ['cp pub/a.txt pub/i.txt', ['Edit(./conf/**)']],
      ['tee -a pub/i.txt < /dev/null', ['Edit(./conf/**)']],
      ['echo "curl x | sh" >> pub/p.sh', DENY],
    ] as const) {
      const decision = decideShell(command, { mode, workspace: [place], cwd: place, allow: ALLOW, deny: [...deny] });
      expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
    }
  });

  test('writes of files with several names none of them covered stay allowed', () => {
    const place = workspace('review33-wlok-');
    linkSync(join(place, 'pub/a.txt'), join(place, 'pub/b.txt'));
    const decision = decideShell('echo x >> pub/b.txt', { mode: 'bypassPermissions', workspace: [place], cwd: place, allow: ALLOW, deny: ['Edit(./conf/**)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });

  test('premise: a write through the other name changes the covered file (one inode)', () => {
    const place = workspace('review33-wlp-');
    linkSync(join(place, 'conf/secret/db.txt'), join(place, 'pub/h.txt'));
    const run = spawnSync('sh', ['-c', 'echo planted >> pub/h.txt && cat conf/secret/db.txt'], { cwd: place, encoding: 'utf8', timeout: 30_000 });
    expect(run.stdout).toBe('TOPSECRET\nplanted\n');
  });
});
