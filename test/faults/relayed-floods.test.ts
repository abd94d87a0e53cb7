import { join } from 'node:path';
import { expect, test } from 'vitest';
import { eventually, startGateway, tempDir, textOf } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';

/**
 * The requests a server makes that the gateway relays to the client (sampling, elicitation,
 * roots/list) were bounded in how many are open, not in rate (round 28 review P28-5, round 29 review
 * P29-1). The built gateway over stdio, the fault server's `flood` tool (test/fixtures/fault-server.mjs)
 * sending them as fast as its stdout drains, beside a server that works; the log at info.
 */
const SLOWED = /"msg":"slowed this server's requests \(sampling, elicitation or roots\/list, which mcp-latch relays to the client\): past 1000 in 1 s its output was not read for the rest of the 1 s \([\d,]+ relayed past the rate from what was read already\)"/;

test("a server's roots/list flood: the client is asked about once a second, not once a request; past 1,000 a second its output is not read for the rest of the second, logged", async () => {
  const dir = tempDir();
  let asked = 0;
  const count = 5_000;
  const h = await startGateway(
    { mcpServers: { f: faultServer('progress-flood', join(dir, 'starts')), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] } },
    {
      dir,
      env: { MCP_LATCH_LOG_LEVEL: 'info' },
      onListRoots: () => {
        asked += 1;
        return { roots: [{ uri: `file://${dir}` }] };
      },
    },
  );
  try {
    const before = asked;
    const started = performance.now();
    // Before round 29 every one of them was relayed: the client answered 5,000.
    expect(textOf(await h.client.callTool({ name: 'f__flood', arguments: { count, kb: 0, roots: true } }, undefined, { timeout: 120_000 }))).toBe(`sent ${count}`);
    const seconds = (performance.now() - started) / 1000;
    // One a second, and the gateway's own (after its initialized) at most, whatever the machine's load.
    expect(asked - before).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    await eventually(() => expect(h.stderr()).toMatch(SLOWED), 10_000);
    expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'still here' } }))).toContain('still here');
  } finally {
    await h.close();
  }
}, 120_000);

test("a server's sampling requests to a client that takes none: past 1,000 a second the server is slowed and logged, not refused as fast as it writes them", async () => {
  const dir = tempDir();
  const h = await startGateway(
    { mcpServers: { f: faultServer('progress-flood', join(dir, 'starts')), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] } },
    { dir, env: { MCP_LATCH_LOG_LEVEL: 'info' } },
  );
  try {
    void h.client.callTool({ name: 'f__flood', arguments: { count: 1_000_000, kb: 0, sampling: true } }, undefined, { timeout: 120_000 }).catch(() => undefined);
    // Before round 29 nothing was logged: each was refused (the client declares no sampling), ~0.4 s of the gateway's CPU a second.
    await eventually(() => expect(h.stderr()).toMatch(SLOWED), 30_000);
    expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'still here' } }))).toContain('still here');
  } finally {
    await h.close();
  }
}, 120_000);
