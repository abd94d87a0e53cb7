import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { eventually, startGateway, tempDir, textOf } from '../helpers/gateway.js';
import { faultServer, starts } from '../helpers/faults.js';

/**
 * What a server floods the gateway with, bounded (round 27 review). The built gateway over stdio,
 * the fault server's `ping-flood` tools (test/fixtures/fault-server.mjs) beside a server that works;
 * the log at the product's default level (info).
 */
describe('a server that floods the gateway', () => {
  // P27-3: the answers to a server's own requests were queued for its stdin whatever waited there;
  // one that stopped reading and sent pings grew the gateway's memory until its heap ran out.
  test('past twice limits.messageMB unread, a server sending requests is stopped and started again, logged naming the limit; another server answers', async () => {
    const dir = tempDir();
    const startsFile = join(dir, 'starts');
    const h = await startGateway(
      { mcpServers: { p: faultServer('ping-flood', startsFile), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__p', 'mcp__w'] }, limits: { messageMB: 1 } },
      { dir, env: { MCP_LATCH_LOG_LEVEL: 'info' } },
    );
    try {
      // Pings with ids of 64 KB: each answer echoes its id, so what waits unread grows 64 KB a ping.
      const flooding = h.client.callTool({ name: 'p__flood_pings', arguments: { kb: 64 } }, undefined, { timeout: 120_000 }).then(textOf, String);
      await eventually(() => expect(h.stderr()).toMatch(/"err":"the server stopped reading its input \(what was written to it waited unread, more than 2 × limits\.messageMB\) and was stopped".*"msg":"server unavailable"/), 60_000);
      expect(await flooding).toContain('stopped reading its input');
      await eventually(() => expect(starts(startsFile)).toHaveLength(2), 30_000);
      expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'still here' } }))).toContain('still here');
    } finally {
      await h.close();
    }
  }, 120_000);

  test("a server's requests the gateway answers itself are bounded per second; those past it are dropped and counted", async () => {
    const dir = tempDir();
    const h = await startGateway(
      { mcpServers: { p: faultServer('ping-flood', join(dir, 'starts')), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__p', 'mcp__w'] } },
      { dir, env: { MCP_LATCH_LOG_LEVEL: 'info' } },
    );
    try {
      // Small pings: their answers would take minutes to pass the bound above; the rate bounds them first.
      void h.client.callTool({ name: 'p__flood_pings', arguments: { kb: 0 } }, undefined, { timeout: 120_000 }).catch(() => undefined);
      await eventually(() => expect(h.stderr()).toMatch(/"msg":"dropped [\d,]+ requests of this server \(ping, or methods mcp-latch does not serve\) past 100 in 1 s, unanswered/), 60_000);
      expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'still here' } }))).toContain('still here');
    } finally {
      await h.close();
    }
  }, 120_000);

  // Round 28: each request past the bound was still read and parsed before it was dropped, as fast as
  // the server wrote them (100,000 and more a second, the gateway's thread busy with nothing else).
  test("past the bound, a server's output is not read until the window ends: a window drops at most what one read holds", async () => {
    const dir = tempDir();
    const h = await startGateway(
      { mcpServers: { p: faultServer('ping-flood', join(dir, 'starts')), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__p', 'mcp__w'] } },
      { dir, env: { MCP_LATCH_LOG_LEVEL: 'info' } },
    );
    try {
      void h.client.callTool({ name: 'p__flood_pings', arguments: { kb: 0 } }, undefined, { timeout: 120_000 }).catch(() => undefined);
      const windows = () => [...h.stderr().matchAll(/"dropped":(\d+),"limit":100,.*"msg":"dropped [\d,]+ requests of this server \(ping, or methods mcp-latch does not serve\) past 100 in 1 s, unanswered/g)].map((match) => Number(match[1]));
      const counted = await eventually(() => {
        const each = windows();
        expect(each.length).toBeGreaterThanOrEqual(3);
        return each;
      }, 60_000, 200);
      // A ping is at least 43 bytes: one read of 64 KiB holds at most 1,525 of them.
      for (const dropped of counted) expect(dropped).toBeLessThanOrEqual(1_525);
      expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'still here' } }))).toContain('still here');
    } finally {
      await h.close();
    }
  }, 120_000);

  // P27-4: each stderr line was a log record, ~11 MB/s of log and the gateway's thread busy with it.
  test("a server's stderr flood is logged at info up to 100 lines a window, the rest counted", async () => {
    const dir = tempDir();
    const COUNT = 20_000;
    const h = await startGateway(
      { mcpServers: { p: faultServer('ping-flood', join(dir, 'starts')), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__p', 'mcp__w'] } },
      { dir, env: { MCP_LATCH_LOG_LEVEL: 'info' } },
    );
    try {
      expect(textOf(await h.client.callTool({ name: 'p__flood_stderr', arguments: { count: COUNT } }, undefined, { timeout: 120_000 }))).toBe('flooded');
      expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'still here' } }))).toContain('still here');
      // Every line is either logged or counted: the counts come as each window ends.
      const { logged, windows } = await eventually(() => {
        const lines = h.stderr().split('\n');
        const logged = lines.filter((line) => line.includes('"msg":"server stderr"') && line.includes('mariadb-dump')).length;
        const counts = lines.map((line) => /"more":(\d+),.*more stderr lines of this server in 10 s past the 100 logged/.exec(line)).filter((match) => match !== null);
        expect(logged + counts.reduce((sum, match) => sum + Number(match[1]), 0)).toBe(COUNT);
        return { logged, windows: counts.length };
      }, 60_000, 200);
      // A last window of 100 lines or fewer has no count.
      expect(logged).toBeLessThanOrEqual(100 * (windows + 1));
      expect(windows).toBeGreaterThan(0);
      // The secret in each line is still redacted in what is logged.
      expect(h.stderr()).not.toContain('password=x ');
    } finally {
      await h.close();
    }
  }, 120_000);
});
