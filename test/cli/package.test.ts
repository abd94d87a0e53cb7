import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * The README's install path, as a person follows it: `npm pack` the checkout, install the tarball
 * globally into a prefix, run the `mcp-latch` it puts on PATH. Catches a file missing from the
 * package (`files`), a dependency only the checkout has, a bin that reaches back into the checkout.
 * Runs on the built dist/ (`npm test` builds first); the tarball's dependencies come from npm's cache.
 */
test('npm pack, installed into a temp prefix, gives a working mcp-latch command', () => {
  const dir = tempDir();
  const prefix = join(dir, 'prefix');
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  expect(tarball).toBeDefined();
  execFileSync('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(dir, tarball!)], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

  const bin = join(prefix, 'bin', 'mcp-latch');
  expect(realpathSync(bin).startsWith(realpathSync(prefix))).toBe(true);
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  expect(execFileSync(bin, ['--version'], { cwd: dir, encoding: 'utf8' }).trim()).toBe(version);

  // A decision that needs the shell grammar (a WASM file shipped in the package) and the profiles.
  const config = writeConfig(dir, { mcpServers: { shell: { command: '/nonexistent/bin/mcp-server-commands' } }, permissions: { allow: ['Bash(git status)'], deny: ['Bash(rm *)'] } });
  const run = spawnSync(bin, ['check', '--config', config, '--tool', 'shell__run_command', '--args', JSON.stringify({ command: 'git status && rm -rf build' }), '--json', '--exit-code'], { cwd: dir, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(3);
  const result = JSON.parse(run.stdout) as { decision: string; rule: string; commandInfo: { segments: Array<{ name: string }> } };
  expect(result).toMatchObject({ decision: 'deny', rule: 'Bash(rm *)' });
  expect(result.commandInfo.segments.map((segment) => segment.name)).toEqual(['git', 'rm']);

  const valid = spawnSync(bin, ['validate', '--config', config], { cwd: dir, encoding: 'utf8' });
  expect(valid.status).toBe(0);
  expect(valid.stdout).toContain('is valid: 1 server');
}, 300_000);
