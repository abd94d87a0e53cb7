import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { eventually, ROOT, textOf } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness } from '../helpers/in-process.js';

const CONFORMANCE_SERVER = join(ROOT, 'test/fixtures/conformance-server.mjs');

let harness: InProcessHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

// registry.ts keeps the route it gave last, compared by name (docs/performance.md, "Round 28: per-call work"):
// a reload that makes the routes again must not leave a call with the old one.
describe('a tool route found by its name', () => {
  test("after a reload removes a server, its tool called again right after a call of it is unknown, not the stopped server's", async () => {
    harness = await inProcessGateway({
      mcpServers: {
        conf: { command: process.execPath, args: [CONFORMANCE_SERVER] },
        other: { command: process.execPath, args: [CONFORMANCE_SERVER] },
      },
      permissions: { allow: ['mcp__conf__test_simple_text', 'mcp__other__test_simple_text'] },
    });
    const h = harness;
    expect(textOf(await h.client.callTool({ name: 'conf__test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
    const config = JSON.parse(readFileSync(h.configPath, 'utf8')) as { mcpServers: Record<string, unknown> };
    delete config.mcpServers['conf'];
    writeFileSync(h.configPath, JSON.stringify(config));
    await eventually(() => expect(h.stderr()).toContain('config reloaded (file changed)'), 30_000);
    await expect(h.client.callTool({ name: 'conf__test_simple_text', arguments: {} })).rejects.toThrow(/Unknown tool: conf__test_simple_text/);
    // The other server's tool, then the first one's name again: each found as it is now.
    expect(textOf(await h.client.callTool({ name: 'other__test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
    await expect(h.client.callTool({ name: 'conf__test_simple_text', arguments: {} })).rejects.toThrow(/Unknown tool: conf__test_simple_text/);
  }, 60_000);
});
