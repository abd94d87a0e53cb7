import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { lockName, withFileLock } from '../../src/store/file-lock.js';
import { ROOT, tempDir } from '../helpers/gateway.js';

/**
 * Read-modify-write of the rules file by several processes at once (round 17 review S3): three
 * processes each adding 300 rules through RulesFile.add (the code behind "Always allow" and
 * `mcp-latch allow/deny`), built code, lost 8 of 900 ("Added" printed, not in the file).
 */
function run(script: string, args: string[], cwd?: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => done({ code, out, err }));
  });
}

const WRITER = `
import { RulesFile } from ${JSON.stringify(join(ROOT, 'dist/store/rules-file.js'))};
import { configIssues } from ${JSON.stringify(join(ROOT, 'dist/policy/policy.js'))};
const [path, id, n, list] = process.argv.slice(1);
const file = new RulesFile(path, configIssues);
for (let i = 0; i < Number(n); i++) {
  const rule = 'Bash(w' + id + '-' + i + ')';
  const result = await file.add(list, [rule]);
  if (result.added.length) process.stdout.write(rule + '\\n');
}`;

test('three processes adding 300 rules each at once: every rule reported added is in the file, deny rules too', async () => {
  const path = join(tempDir(), 'mcp-latch.json');
  writeFileSync(path, '{\n  "mcpServers": {},\n  "permissions": {\n    "allow": [],\n    "deny": []\n  }\n}\n');
  const runs = await Promise.all([run(WRITER, [path, '1', '300', 'allow']), run(WRITER, [path, '2', '300', 'allow']), run(WRITER, [path, 'D', '300', 'deny'])]);
  for (const each of runs) expect(each.err).toBe('');
  const reported = (index: number) => runs[index]!.out.trim().split('\n');
  const config = JSON.parse(readFileSync(path, 'utf8')) as { permissions: { allow: string[]; deny: string[] } };
  expect(config.permissions.allow.length).toBe(600);
  expect(new Set(config.permissions.allow)).toEqual(new Set([...reported(0), ...reported(1)]));
  expect(config.permissions.deny).toEqual(reported(2));
  expect(existsSync(`${path}.lock`)).toBe(false);
}, 180_000);

test('three processes adding 300 rules each to one config through three spellings (a link, a relative path, the real path): every rule reported added is in the file', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'real'));
  mkdirSync(join(dir, 'elsewhere'));
  const path = join(dir, 'real', 'mcp-latch.json');
  writeFileSync(path, '{\n  "mcpServers": {},\n  "permissions": {\n    "allow": [],\n    "deny": []\n  }\n}\n');
  // A link from another folder (an `init --wrap` config reached through ~/.config linked elsewhere), and `./`.
  symlinkSync(path, join(dir, 'elsewhere', 'linked.json'));
  const runs = await Promise.all([
    run(WRITER, [join(dir, 'elsewhere', 'linked.json'), 'L', '300', 'allow']),
    run(WRITER, ['./mcp-latch.json', 'R', '300', 'allow'], join(dir, 'real')),
    run(WRITER, [path, 'D', '300', 'deny']),
  ]);
  for (const each of runs) expect(each.err).toBe('');
  const reported = (index: number) => runs[index]!.out.trim().split('\n');
  const config = JSON.parse(readFileSync(path, 'utf8')) as { permissions: { allow: string[]; deny: string[] } };
  expect(lstatSync(join(dir, 'elsewhere', 'linked.json')).isSymbolicLink()).toBe(true);
  expect(config.permissions.allow.length).toBe(600);
  expect(new Set(config.permissions.allow)).toEqual(new Set([...reported(0), ...reported(1)]));
  expect(config.permissions.deny).toEqual(reported(2));
  expect(readdirSync(join(dir, 'real')).filter((name) => name.endsWith('.lock'))).toEqual([]);
  expect(readdirSync(join(dir, 'elsewhere'))).toEqual(['linked.json']);
}, 180_000);

/** Re-points LINK between two targets until killed, each time atomically (a new link renamed over it), as `ln -sfn` and stow do. */
const REPOINTER = `
import { renameSync, symlinkSync } from 'node:fs';
const [link, a, b] = process.argv.slice(1);
const pause = new Int32Array(new SharedArrayBuffer(4));
for (let i = 0; ; i++) {
  const temp = link + '.repoint';
  symlinkSync(i % 2 ? a : b, temp);
  renameSync(temp, link);
  process.stdout.write('.');
  Atomics.wait(pause, 0, 0, 2);
}`;

test('three processes adding 200 rules each through a link that is re-pointed between two configs all the while: every rule reported added is in one of them, once, and the link stays a link (round 19)', async () => {
  const dir = tempDir();
  const empty = '{\n  "mcpServers": {},\n  "permissions": {\n    "allow": [],\n    "deny": []\n  }\n}\n';
  const one = join(dir, 'one.json');
  const two = join(dir, 'two.json');
  writeFileSync(one, empty);
  writeFileSync(two, empty);
  const link = join(dir, 'mcp-latch.json');
  symlinkSync(one, link);
  const repointer = spawn(process.execPath, ['--input-type=module', '-e', REPOINTER, link, one, two], { stdio: ['ignore', 'pipe', 'inherit'] });
  let repointed = 0;
  repointer.stdout.on('data', (chunk: Buffer) => (repointed += chunk.length));
  let runs;
  try {
    await new Promise((done) => repointer.stdout.once('data', done));
    runs = await Promise.all([run(WRITER, [link, '1', '200', 'allow']), run(WRITER, [link, '2', '200', 'allow']), run(WRITER, [link, 'D', '200', 'deny'])]);
  } finally {
    repointer.kill();
  }
  for (const each of runs) expect(each.err).toBe('');
  // The race ran: the link moved many times while the rules were written.
  expect(repointed).toBeGreaterThan(20);
  const reported = runs.flatMap((each) => each.out.trim().split('\n'));
  expect(reported).toHaveLength(600);
  const configs = [one, two].map((path) => JSON.parse(readFileSync(path, 'utf8')) as { permissions: { allow: string[]; deny: string[] } });
  const written = configs.flatMap((config) => [...config.permissions.allow, ...config.permissions.deny]);
  expect(written.sort()).toEqual([...reported].sort());
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(readdirSync(dir).filter((name) => name.includes('.lock') || name.includes('tmp'))).toEqual([]);
}, 180_000);

test('every spelling of one file names one lock: a link, a chain of links, ./ and .., a link to a file not made yet, a file not made yet in a linked folder', () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'real'));
  const file = join(dir, 'real', 'state.json');
  writeFileSync(file, '{}');
  symlinkSync(file, join(dir, 'one.json'));
  symlinkSync(join(dir, 'one.json'), join(dir, 'two.json'));
  symlinkSync(join(dir, 'real'), join(dir, 'folder'));
  const cwd = process.cwd();
  try {
    process.chdir(join(dir, 'real'));
    for (const spelling of [file, join(dir, 'one.json'), join(dir, 'two.json'), './state.json', '../real/./state.json', join(dir, 'folder', 'state.json')]) expect(lockName(spelling)).toBe(`${file}.lock`);
  } finally {
    process.chdir(cwd);
  }
  // Not made yet: the pins' lock file before the first pin, reached through a linked folder or a link to it.
  const later = join(dir, 'real', 'later.json');
  symlinkSync(later, join(dir, 'later-link.json'));
  for (const spelling of [later, join(dir, 'folder', 'later.json'), join(dir, 'later-link.json')]) expect(lockName(spelling)).toBe(`${later}.lock`);
});

test("a lock left by a process killed mid-write (kill -9) is taken over; a live holder's lock fails with a clear error, nothing written", async () => {
  const dir = tempDir();
  const file = join(dir, 'state.json');
  // A holder that is gone: a pid that exited.
  const gone = await run('process.stdout.write(String(process.pid))', []);
  writeFileSync(`${file}.lock`, `${gone.out} ${(await import('node:os')).hostname()} ${Date.now()}`);
  expect(await withFileLock(file, async () => 'ran')).toBe('ran');
  expect(existsSync(`${file}.lock`)).toBe(false);

  // A holder that runs (this process, as another would be): refused after the wait, work not run.
  writeFileSync(`${file}.lock`, `${process.pid} ${(await import('node:os')).hostname()} ${Date.now()}`);
  let ran = false;
  await expect(withFileLock(file, async () => (ran = true), { waitMs: 500, staleMs: 10_000 })).rejects.toThrow(/state\.json\.lock is held by another process/);
  expect(ran).toBe(false);
}, 30_000);

const PAGES = `
import { addPage, readPages, removePage } from ${JSON.stringify(join(ROOT, 'dist/approval-page/state-file.js'))};
const [file] = process.argv.slice(1);
const entry = { pid: process.pid, url: 'http://127.0.0.1:1/', secret: 's', client: 'c', started: 'now' };
for (let i = 0; i < 150; i++) { await addPage(file, entry); await removePage(file, process.pid); }
await addPage(file, entry);
process.stdout.write('added\\n');
// Kept running until the file is read: entries of gone processes are not listed.
await new Promise((done) => process.stdin.on('close', done).resume());
`;

test('four gateways adding and removing their approval page entries at once: each running one stays listed (round 17 review S4)', async () => {
  const file = join(tempDir(), '.mcp-latch-pages.json');
  const { readPages } = await import('../../src/approval-page/state-file.js');
  const children = Array.from({ length: 4 }, () => spawn(process.execPath, ['--input-type=module', '-e', PAGES, file], { stdio: ['pipe', 'pipe', 'inherit'] }));
  try {
    await Promise.all(children.map((child) => new Promise((done) => child.stdout.once('data', done))));
    expect(readPages(file).map((page) => page.pid).sort()).toEqual(children.map((child) => child.pid).sort());
  } finally {
    for (const child of children) child.stdin.end();
  }
}, 120_000);

// A lock made but not written (a full disk: the empty file needs no block) was left behind, empty:
// it names no holder, so every later write of the file waited STALE_MS (10 s) for it to go stale,
// and a call the person approved waited with its pin (round 20 review of faults, F6). Here the
// process may write no byte to any file (ulimit -f 0), so its lock text fails as on a full disk.
test('a lock whose holder text cannot be written is removed, not left for the next writer to wait on', async () => {
  const dir = tempDir();
  const file = join(dir, 'pins.json');
  const script = `
process.on('SIGXFSZ', () => undefined);
const { withFileLock } = await import(${JSON.stringify(join(ROOT, 'dist/store/file-lock.js'))});
try {
  await withFileLock(${JSON.stringify(file)}, async () => 'ran');
  console.log('ran');
} catch (error) {
  console.log('error: ' + error.message);
}`;
  const child = spawn('sh', ['-c', `ulimit -f 0; exec "${process.execPath}" --input-type=module -e "$SCRIPT"`], { env: { ...process.env, SCRIPT: script }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise<void>((done) => child.once('exit', () => done()));
  expect(out).toMatch(/^error: cannot lock .*pins\.json/);
  expect(readdirSync(dir)).toEqual([]);
}, 30_000);
