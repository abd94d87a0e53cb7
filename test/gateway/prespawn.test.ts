import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Prespawned } from '../../src/downstream/prespawn.js';
import { defaultEnvironment } from '../../src/downstream/child-transport.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createLogger } from '../../src/log.js';
import { eventually, fixtureServer, isAlive, rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * `serve` starts its stdio servers' processes before the client initializes (downstream/prespawn.ts),
 * so their start overlaps the gateway's. What must hold: the process started early is the one that
 * then answers, with the handshake only after the client's; and a client that goes away before
 * initializing leaves no process behind.
 */
/** The pid a fixture wrote to `file`; throws (so `eventually` looks again) until the whole number is there. */
function pidIn(file: string): number {
  const pid = Number(readFileSync(file, 'utf8'));
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`no pid in ${file} yet`);
  return pid;
}

describe('servers started before the client initializes', () => {
  test('the process started before initialize is the one that then answers the client', async () => {
    const dir = tempDir();
    const startFile = join(dir, 'started.pid');
    const log = join(dir, 'log');
    const config = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', log, [], { FIXTURE_START_FILE: startFile }) }, permissions: { allow: ['mcp__fix'] } });
    const gateway = rawGateway(config);
    try {
      // No initialize sent yet: the server's process runs all the same.
      const early = await eventually(() => pidIn(startFile), 30_000);
      expect(isAlive(early)).toBe(true);
      expect(existsSync(log)).toBe(false);
      await gateway.initialize();
      gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fix__whoami', arguments: {} } });
      const answer = await gateway.response(2);
      expect(JSON.stringify(answer.result)).toContain(String(early));
    } finally {
      await gateway.close();
    }
  });

  test('a client that goes away before initializing leaves no server process behind', async () => {
    const dir = tempDir();
    const startFile = join(dir, 'started.pid');
    const childFile = join(dir, 'grandchild.pid');
    const config = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'log'), ['--spawn-child'], { FIXTURE_START_FILE: startFile, FIXTURE_CHILD_PID_FILE: childFile }) } });
    const gateway = rawGateway(config);
    const server = await eventually(() => pidIn(startFile), 30_000);
    const grandchild = await eventually(() => pidIn(childFile), 30_000);
    expect(isAlive(server) && isAlive(grandchild)).toBe(true);
    await gateway.close();
    await eventually(() => expect(isAlive(server)).toBe(false), 15_000);
    await eventually(() => expect(isAlive(grandchild)).toBe(false), 15_000);
  });

  test('a process is claimed only for the entry it was started for, once; the rest are closed', async () => {
    const dir = tempDir();
    const pool = new Prespawned();
    const entry = fixtureServer('a', join(dir, 'a.log'), [], { FIXTURE_START_FILE: join(dir, 'a.pid') });
    const other = fixtureServer('b', join(dir, 'b.log'), [], { FIXTURE_START_FILE: join(dir, 'b.pid') });
    const logger = createLogger({ level: 'silent' });
    pool.spawn({ a: entry, b: other }, () => logger, 10 * 1024 * 1024);
    const a = await eventually(() => pidIn(join(dir, 'a.pid')));
    const b = await eventually(() => pidIn(join(dir, 'b.pid')));
    // Edited since the process was started: not handed out, and that process is closed.
    expect(pool.claim('a', { ...entry, args: [...entry.args, '--noisy'] })).toBeUndefined();
    await eventually(() => expect(isAlive(a)).toBe(false), 15_000);
    const claimed = pool.claim('b', other);
    expect(claimed?.pid).toBe(b);
    expect(pool.claim('b', other)).toBeUndefined();
    await pool.closeAll();
    expect(isAlive(b)).toBe(true);
    await claimed!.close();
    expect(isAlive(b)).toBe(false);
  });

  test('servers inherit exactly the variables the SDK would pass them', () => {
    expect(defaultEnvironment()).toEqual(getDefaultEnvironment());
  });
});
