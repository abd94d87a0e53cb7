import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { serveOptions } from '../../src/cli/serve.js';
import { readEarlyConfig } from '../../src/config/early.js';
import { BIN, eventually, isAlive, tempDir, writeConfig } from '../helpers/gateway.js';

describe('a plain serve command line skips the command-line library', () => {
  test('the forms clients write are read directly', () => {
    expect(serveOptions([])).toEqual({});
    expect(serveOptions(['serve'])).toEqual({});
    expect(serveOptions(['serve', '--config', 'a.json'])).toEqual({ config: 'a.json' });
    expect(serveOptions(['--config=a.json', 'serve'])).toEqual({ config: 'a.json' });
    expect(serveOptions(['serve', '-c', 'a.json', '--log-level', 'debug'])).toEqual({ config: 'a.json', logLevel: 'debug' });
    // What init --wrap writes into a client file.
    expect(serveOptions(['serve', '--config', 'a.json', '--scope', 'cursor-project:/home/me/app'])).toEqual({ config: 'a.json', scope: 'cursor-project:/home/me/app' });
  });

  test('with --scope, only that scope\'s servers start early; a scope the early read cannot find starts none', () => {
    const dir = tempDir();
    const path = writeConfig(dir, { mcpServers: { a: { command: 'a' }, b: { command: 'b', envFile: 'x.env' } }, scopes: { one: { servers: ['a'] } } });
    expect(Object.keys(readEarlyConfig(path, {}).servers)).toEqual(['a']);
    expect(Object.keys(readEarlyConfig(path, {}, 'one').servers)).toEqual(['a']);
    expect(Object.keys(readEarlyConfig(path, {}, 'missing').servers)).toEqual([]);
  });

  test('anything else goes to the full command line: help, other commands, mistakes', () => {
    for (const argv of [['--help'], ['serve', '--help'], ['-h'], ['--version'], ['validate'], ['serve', 'serve'], ['serve', '--config'], ['serve', '--log-level', 'loud'], ['serve', '--config', 'a', '--config', 'b'], ['serve', '--unknown', 'x']]) {
      expect(serveOptions(argv), argv.join(' ')).toBeNull();
    }
  });
});

describe('servers started before the config is fully checked', () => {
  test('a config the full check refuses stops the servers it started and reports every problem', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'server.pid');
    // A server that writes its pid at once and ignores stdin: it only goes if the gateway stops it.
    const server = { command: '/bin/sh', args: ['-c', `echo $$ > ${pidFile}; exec sleep 120`] };
    // The rule is wrong: only the full check (after the servers are spawned) finds it.
    const config = writeConfig(dir, { mcpServers: { early: server }, permissions: { allow: ['Bash(a * b)'] } });
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code).toBe(1);
    expect(stderr).toContain(`invalid config ${config}`);
    expect(stderr).toContain('permissions.allow[0]: invalid rule "Bash(a * b)"');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await eventually(() => expect(isAlive(pid)).toBe(false), 15_000);
  });
});
