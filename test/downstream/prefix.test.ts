import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ROOT, textOf } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness } from '../helpers/in-process.js';

const CONFORMANCE_SERVER = join(ROOT, 'test/fixtures/conformance-server.mjs');

let harness: InProcessHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a server with prefix: false', () => {
  test('its tools and prompts keep their own names, and calls reach it under them; rules still name the server', async () => {
    harness = await inProcessGateway({
      mcpServers: {
        conf: { command: process.execPath, args: [CONFORMANCE_SERVER], prefix: false },
        other: { command: process.execPath, args: [CONFORMANCE_SERVER] },
      },
      permissions: { allow: ['mcp__conf__test_simple_text'], deny: ['mcp__other__test_simple_text'] },
    });
    const tools = (await harness.client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('test_simple_text');
    expect(tools).toContain('other__test_simple_text');
    expect(tools).not.toContain('conf__test_simple_text');
    expect((await harness.client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('test_simple_prompt');
    expect(textOf(await harness.client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
    expect(textOf(await harness.client.callTool({ name: 'other__test_simple_text', arguments: {} }))).toMatch(/^Denied by mcp-latch/);
  });
});
