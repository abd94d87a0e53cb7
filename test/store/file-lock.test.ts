import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { withFileLock } from '../../src/store/file-lock.js';
import { ROOT, tempDir } from '../helpers/gateway.js';

/**
 * Read-modify-write of the rules file by several processes at once (round 17 review S3): three
 * processes each adding 300 rules through RulesFile.add (the code behind "Always allow" and
 * `mcp-latch allow/deny`), built code, lost 8 of 900 ("Added" printed, not in the file).
 */
function run(script: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
