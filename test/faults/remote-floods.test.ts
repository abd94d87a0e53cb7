import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { eventually, ROOT, startGateway, tempDir, textOf } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';

/**
 * Round 28 review P28-4: a remote (Streamable HTTP) server's own requests were answered without
 * bound, each reply a POST of its own: a server flooding `ping` on its event stream and holding
 * those POSTs open had thousands of them in flight, the gateway's RSS rose ~15 MB a second and
 * another server's calls timed out (round 27 bounded a stdio server's only, child-transport.ts).
 * The built gateway over stdio with test/fixtures/remote-flood-server.mjs beside a fault server.
 */
test("a remote server's ping flood: about 16 replies in flight at most, the rest dropped, logged; another server answers", { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const counts = join(dir, 'counts');
  const remote = spawn(process.execPath, [join(ROOT, 'test/fixtures/remote-flood-server.mjs')], { env: { ...process.env, FLOOD_COUNTS: counts }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<string>((resolve) => remote.stdout!.on('data', (chunk: Buffer) => {
      const found = /PORT (\d+)/.exec(chunk.toString());
      if (found) resolve(found[1]!);
    }));
    const h = await startGateway(
      { mcpServers: { r: { url: `http://127.0.0.1:${port}/mcp` }, w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__r', 'mcp__w'] } },
      { dir, env: { MCP_LATCH_LOG_LEVEL: 'info' } },
    );
    try {
      expect(textOf(await h.client.callTool({ name: 'r__flood', arguments: {} }))).toBe('flooding');
      const read = () => (existsSync(counts) ? readFileSync(counts, 'utf8').split(' ').map(Number) : [0, 0]);
      // 20,000 pings sent: before the fix thousands of replies were held open by now.
      await eventually(() => expect(read()[0]).toBeGreaterThan(20_000), 60_000, 200);
      // The replies in flight are counted as they are sent: those of one read of the stream may pass the 16 first.
      expect(read()[1]).toBeLessThanOrEqual(32);
      expect(h.stderr()).toMatch(/"msg":"16 of mcp-latch's replies to this server's own requests are still being sent \(it does not take them\): its further requests are dropped, unanswered, until fewer are"/);
      expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'still here' } }, undefined, { timeout: 60_000 }))).toContain('still here');
      expect(read()[1]).toBeLessThanOrEqual(32);
    } finally {
      await h.close();
    }
  } finally {
    remote.kill('SIGTERM');
  }
});
