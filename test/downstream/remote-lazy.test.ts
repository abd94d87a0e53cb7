import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { connectServer, remoteFailure, remoteTransportsLoaded } from '../../src/downstream/connect.js';
import { silentLogger } from '../../src/log.js';
import { fixtureServer, tempDir, textOf } from '../helpers/gateway.js';
import { inProcessGateway } from '../helpers/in-process.js';
import { freePort } from '../helpers/ports.js';

/**
 * The SDK's HTTP and SSE transports are loaded only for a remote server (docs/performance.md,
 * "Memory"). These run in order, in this file's own process: the first must find them never loaded.
 */

describe('the remote transports', () => {
  test('a gateway with stdio servers only never loads them, through listing and calls', async () => {
    const dir = tempDir();
    const { client, close } = await inProcessGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } }, { dir });
    try {
      expect(textOf(await client.callTool({ name: 'fix__echo', arguments: { text: 'hello' } }))).toContain('hello');
      expect(remoteTransportsLoaded()).toBe(false);
    } finally {
      await close();
    }
  });

  test('a remote server loads them, and a failure to reach it is told apart', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const hooks = { elicit: async () => ({ action: 'decline' as const }), sample: async () => ({}) as never, listRoots: async () => ({ roots: [] }), onLog: () => undefined, onResourceUpdated: () => undefined, onListChanged: () => undefined };
    const error = await connectServer({ name: 'far', config: { url, type: 'http' }, capabilities: {}, hooks, logger: silentLogger(), timeoutMs: 20_000, version: '0', maxMessageBytes: 1 << 20 }).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(remoteTransportsLoaded()).toBe(true);
    expect(remoteFailure(error)).toMatchObject({ kind: 'unreachable' });
  });
});
