import { join } from 'node:path';
import { expect, test } from 'vitest';
import { fixtureServer, tempDir, textOf } from '../helpers/gateway.js';
import { inProcessGateway } from '../helpers/in-process.js';

/**
 * What the warm path must not do per call (docs/performance.md, "Round 9: the warm path"); the
 * gateway runs in this process.
 */
test('calls settle no promise a second time: the session starts its servers once, not once per read', async () => {
  const dir = tempDir();
  const { client, close } = await inProcessGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } }, { dir });
  const resolvedAgain: unknown[] = [];
  // Node tells of a promise resolved after it settled through this (deprecated) event, a tick later.
  const listener = (type: string, promise: unknown) => resolvedAgain.push([type, promise]);
  process.on('multipleResolves', listener);
  try {
    await client.listTools();
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all([1, 2, 3].map((n) => client.callTool({ name: 'fix__echo', arguments: { text: `call ${round} ${n}` } })));
      expect(results.map(textOf).join()).toContain(`call ${round} 3`);
    }
    await new Promise((done) => setImmediate(done));
    expect(resolvedAgain).toEqual([]);
  } finally {
    process.off('multipleResolves', listener);
    await close();
  }
});
