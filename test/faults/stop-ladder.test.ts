import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { faultServer, starts } from '../helpers/faults.js';
import { BIN, ROOT, eventually, isAlive, rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * How a client stops the gateway, against a server that ignores stdin EOF and SIGTERM (the
 * `ignore-eof` fault: a wrapper's child, a busy server). docs/design.md: "On stdin EOF or a signal
 * the gateway closes every child process tree and exits".
 */
describe('a client stopping the gateway', () => {
  // The SDK's StdioClientTransport.close(): stdin closed, SIGTERM 2 s later, SIGKILL 2 s after that.
  // The gateway ignored the SIGTERM that came while it stopped and took its own 2 + 2 s (EOF, then
  // SIGTERM, then SIGKILL to the server's group), so the client's SIGKILL usually came first and the
  // server ran on (3 runs of 4; round 20 review of faults, F2).
  test('a signal while it stops (after stdin closed) stops it now: the server is killed at once, not first sent SIGTERM 2 s on', async () => {
    const dir = tempDir();
    const signals = join(dir, 'signals');
    const file = join(dir, 'starts');
    const config = writeConfig(dir, { mcpServers: { s: faultServer('ignore-eof', file, { FAULT_SIGNALS: signals }) } });
    const gateway = rawGateway(config);
    let stderr = '';
    gateway.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((done) => gateway.child.once('exit', () => done()));
    await gateway.initialize();
    gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await gateway.response(2);
    const [server] = starts(file);
    try {
      gateway.child.stdin.end();
      await eventually(() => expect(stderr).toContain('shutting down'));
      gateway.child.kill('SIGTERM');
      await exited;
      await eventually(() => expect(isAlive(server!)).toBe(false), 5_000);
      // Killed by the gateway's exit, before its own ladder got to SIGTERM.
      expect(existsSync(signals) ? readFileSync(signals, 'utf8') : '').toBe('');
    } finally {
      if (isAlive(server!)) process.kill(server!, 'SIGKILL');
    }
  }, 60_000);

  // Before the gateway's handlers were in place (its code loads after the servers are spawned),
  // Node's default action ended it and left the servers running (round 20 review of faults, F7).
  test('a SIGTERM right after the first server is spawned: the gateway still kills it', async () => {
    const dir = tempDir();
    const pids = join(dir, 'pids');
    const config = writeConfig(dir, { mcpServers: { s: faultServer('ignore-eof', join(dir, 'starts')) } });
    const gateway = spawn(process.execPath, ['--import', join(ROOT, 'test/fixtures/signal-at-spawn.mjs'), BIN, 'serve', '--config', config], { stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, SIGNAL_AT_SPAWN_PIDS: pids } });
    await new Promise<void>((done) => gateway.once('exit', () => done()));
    const server = Number(readFileSync(pids, 'utf8').trim());
    try {
      await eventually(() => expect(isAlive(server)).toBe(false), 10_000);
    } finally {
      if (isAlive(server)) process.kill(server, 'SIGKILL');
    }
  }, 60_000);
});
