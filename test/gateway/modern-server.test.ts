import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ROOT, fixtureCalls, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * A 2026-07-28 server (the TypeScript SDK v2, dual-era) that asks its own question through
 * input_required, behind the gateway. The gateway speaks the 2025 era to its servers, where the
 * SDK asks the same question as elicitation/create; the gateway relays it to a handshake-era client.
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

test("a 2026-07-28 server's own question reaches a handshake-era client, and its answer the server", async () => {
  const dir = tempDir();
  const log = join(dir, 'modern.log');
  const h = await startGateway(
    { mcpServers: { modern: { command: process.execPath, args: [join(ROOT, 'test/fixtures/modern-server.mjs')], env: { FIXTURE_LOG: log } } }, permissions: { allow: ['mcp__modern__deploy'] } },
    { dir, onElicit: () => ({ action: 'accept', content: { confirm: true } }) },
  );
  harnesses.push(h);
  const result = await h.client.callTool({ name: 'modern__deploy', arguments: { env: 'staging' } });
  expect(textOf(result)).toBe('deployed to staging');
  expect(h.elicitations).toHaveLength(1);
  expect(h.elicitations[0]!.message).toBe('[modern] Deploy to staging?');
  expect(fixtureCalls(log)).toEqual([{ tool: 'deploy', env: 'staging' }]);
}, 120_000);
