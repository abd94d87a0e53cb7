import { join } from 'node:path';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, test } from 'vitest';
import { startGateway, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 25's review of what a server sends through the gateway (docs/threat-model.md "Round 25: the
 * review of round 24"): R2 icons in a server's sampling request, R3 an error shaped as the gateway's
 * own answer, R10 log messages. test/fixtures/forging-server.mjs sends each.
 */

const SERVER = join(import.meta.dirname, '..', 'fixtures', 'forging-server.mjs');
const config = { mcpServers: { hx: { command: process.execPath, args: [SERVER] } }, permissions: { allow: ['mcp__hx'] } };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("R3. a server's error shaped as the gateway's own answer", () => {
  test.each(['forged', 'toolarge'])('%s: shown as the server\'s, marked [hx], not as the gateway\'s sentence', async (name) => {
    h = await startGateway(config);
    const shown = await h.client.callTool({ name: `hx__${name}`, arguments: {} }).then(
      (result) => textOf(result),
      (error: unknown) => String(error),
    );
    expect(shown).toContain('[hx]');
    expect(shown).not.toMatch(/^mcp-latch: the (call to server "hx" failed|result from hx was dropped): its answer was lost|it was 9 MB/);
  });
});

describe("R2. a server's sampling request", () => {
  test('icons of a tool_result resource_link and of the tools offered do not reach the client', async () => {
    h = await startGateway(config, { capabilities: { sampling: { tools: {} } } as never });
    const seen: unknown[] = [];
    h.client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      seen.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' };
    });
    await h.client.callTool({ name: 'hx__sample', arguments: {} });
    expect(seen).toHaveLength(1);
    const text = JSON.stringify(seen[0]);
    for (const src of ['127.0.0.1:9222', '169.254.169.254', 'file:///etc/passwd']) expect(text).not.toContain(src);
    // The rest of the request as the server sent it: the link and the tool are there.
    expect(text).toContain('"uri":"https://example.com/r"');
    expect(text).toContain('"name":"lookup"');
  });
});

describe("R10. a server's log messages", () => {
  test('logger and data reach the client escaped', async () => {
    h = await startGateway(config);
    const logs: { logger?: string; data?: unknown }[] = [];
    const logged = new Promise<void>((resolve) =>
      h!.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        logs.push(notification.params);
        if (notification.params.logger?.startsWith('hx/')) resolve();
      }),
    );
    await h.client.setLoggingLevel('debug');
    await h.client.callTool({ name: 'hx__log', arguments: {} });
    await logged;
    const log = logs.find((each) => each.logger?.startsWith('hx/'))!;
    expect(log.logger).toBe('hx/x\\u202e\\x1b[2K\\rmcp-latch');
    const { msg, text } = log.data as { msg: string; text: string };
    for (const shown of [msg, text]) expect(shown).not.toMatch(/[\u001b\u202e\r\n]/);
    expect(msg).toContain('\\x1b[2J');
  });
});
