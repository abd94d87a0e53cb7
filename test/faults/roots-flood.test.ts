import { join } from 'node:path';
import { expect, test } from 'vitest';
import { eventually, fixtureServer, rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * Round 13 review R14: the client's notifications/roots/list_changed were not coalesced; 20,000 of
 * them were 20,000 roots/list requests to the client, and a call after them waited seconds. Now one
 * read at a time and one more after it (docs/config.md): a flood is a handful of reads, and the
 * last roots the client gives are the ones in force.
 */
test('a flood of roots/list_changed is a few roots/list requests, not one each', async () => {
  const dir = tempDir();
  const raw = rawGateway(writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix'] } }));
  const answered = new Set<unknown>();
  let version = 0;
  const answerRoots = (): number => {
    const asked = raw.messages.filter((m) => m.method === 'roots/list' && !answered.has(m.id));
    for (const request of asked) {
      answered.add(request.id);
      raw.send({ jsonrpc: '2.0', id: request.id, result: { roots: [{ uri: `file://${dir}/v${version}` }] } });
    }
    return asked.length;
  };
  try {
    await raw.initialize({ roots: { listChanged: true } });
    await eventually(() => expect(answerRoots()).toBeGreaterThan(0));
    const before = answered.size;
    version = 1;
    raw.send(...Array.from({ length: 2000 }, () => ({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })));
    // Answer what is asked until three pings in a row bring no new request.
    let quiet = 0;
    for (let ping = 100; quiet < 3; ping++) {
      raw.send({ jsonrpc: '2.0', id: ping, method: 'ping' });
      await raw.response(ping);
      quiet = answerRoots() === 0 ? quiet + 1 : 0;
    }
    const reads = answered.size - before;
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(10);
    raw.send({ jsonrpc: '2.0', id: 200, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: 'after' } } });
    expect(JSON.stringify((await raw.response(200)).result)).toContain('after');
  } finally {
    await raw.close();
  }
}, 60_000);
