import { afterEach, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '../../src/config/schema.js';
import { PermitBook } from '../../src/downstream/permit.js';
import { Supervisor } from '../../src/downstream/supervisor.js';
import { silentLogger } from '../../src/log.js';
import { BIN, EVERYTHING_SERVER, eventually, isAlive, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * What is not a fault is not logged as one; what has failed for a while is called failed.
 */
let stopSupervisor: (() => Promise<void>) | null = null;
afterEach(async () => {
  await stopSupervisor?.();
  stopSupervisor = null;
});

describe('a client that leaves', () => {
  test('while a server roots/list is relayed to it: no warn or error line', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } } });
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', config], stderr: 'pipe', cwd: dir });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'leaving', version: '1' }, { capabilities: { roots: { listChanged: true } } });
    let asked = 0;
    let relayed!: () => void;
    const relayedAsked = new Promise<void>((resolve) => (relayed = resolve));
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked += 1;
      // The gateway asks first for its own workspace; the server's own request comes relayed after.
      if (asked === 1) return { roots: [] };
      relayed();
      return new Promise(() => undefined);
    });
    await client.connect(transport, { timeout: 30_000 });
    const pid = transport.pid!;
    await relayedAsked;
    await client.close();
    await eventually(() => expect(isAlive(pid)).toBe(false), 20_000);
    expect(stderr).toContain('"msg":"server ready"');
    const faults = stderr.split('\n').filter((line) => /"level":(40|50|60)/.test(line));
    expect(faults).toEqual([]);
  }, 60_000);
});

describe('a server that keeps failing', () => {
  test('is called failed, with its stderr, once it is tried again at the slow rate', async () => {
    const supervisor = new Supervisor({
      name: 'broken',
      config: { command: process.execPath, args: ['-e', 'console.error("boom: no database"); process.exit(3)'] } as ServerConfig,
      capabilities: {},
      hooks: {
        elicit: () => Promise.reject(new Error('unused')),
        sample: () => Promise.reject(new Error('unused')),
        listRoots: () => Promise.reject(new Error('unused')),
        onLog: () => undefined,
        onResourceUpdated: () => undefined,
        onListChanged: () => undefined,
      },
      logger: silentLogger(),
      permits: new PermitBook(),
      connectTimeoutMs: 20_000,
      maxMessageBytes: 1024 * 1024,
      version: '1',
      onChange: () => undefined,
      backoff: { initialMs: 50, maxMs: 1_000 },
    });
    stopSupervisor = () => supervisor.stop();
    supervisor.start();
    await eventually(() => expect(supervisor.state).toBe('failed'), 20_000);
    expect(supervisor.unavailableReason()).toMatch(/^server "broken" is unavailable: .*boom: no database.*; restarting in \d+ s$/);
    await eventually(() => expect(supervisor.slow).toBe(true), 40_000);
    expect(supervisor.unavailableReason()).toMatch(/^server "broken" failed: .*boom: no database.*; tried again every 1 s/);
  }, 60_000);
});
