import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING_SERVER } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness } from '../helpers/in-process.js';

/**
 * Requests that name a prompt, resource or template, sent right after initialize, before any list
 * and while the server is still starting (it starts 2 s late here): they wait for it, as a cold
 * tools/call does, instead of answering "Unknown". And errors keep the message they were sent with.
 * The gateway runs in this process (helpers/in-process.ts); the server is a real process.
 */
const LATE_EVERYTHING = {
  command: process.execPath,
  args: ['-e', `setTimeout(() => import(${JSON.stringify(pathToFileURL(join(EVERYTHING_SERVER, '../transports/stdio.js')).href)}), 2000)`],
};

let harness: InProcessHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function messageOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'no error',
    (error: unknown) => (error as Error).message,
  );
}

describe('requests before the lists', () => {
  test('prompts/get, resources/read, resources/subscribe and completion/complete wait for a server still starting', async () => {
    harness = await inProcessGateway({ mcpServers: { everything: LATE_EVERYTHING }, permissions: { allow: ['mcp__everything'] } });
    const client = harness.client;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => undefined);
    const [prompt, read, subscribed, completion] = await Promise.all([
      client.getPrompt({ name: 'everything__args-prompt', arguments: { city: 'Oslo' } }),
      client.readResource({ uri: 'demo://resource/static/document/architecture.md' }),
      client.subscribeResource({ uri: 'demo://resource/static/document/architecture.md' }),
      client.complete({ ref: { type: 'ref/prompt', name: 'everything__completable-prompt' }, argument: { name: 'department', value: 'En' } }),
    ]);
    expect(JSON.stringify(prompt.messages)).toContain('Oslo');
    expect(read.contents.length).toBeGreaterThan(0);
    expect(subscribed).toEqual({});
    expect(completion.completion.values).toContain('Engineering');
  }, 60_000);

  test('a name no server lists is still unknown once they have started, with the prefix once', async () => {
    harness = await inProcessGateway({ mcpServers: { everything: LATE_EVERYTHING }, permissions: { allow: ['mcp__everything'] } });
    expect(await messageOf(harness.client.getPrompt({ name: 'everything__no-such-prompt' }))).toBe('MCP error -32602: Unknown prompt: everything__no-such-prompt');
  }, 60_000);
});

describe('forwarded errors', () => {
  test('a server error reaches the client with the message the server sent, as a direct connection shows it, marked as the server\'s (round 24 review F5)', async () => {
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], stderr: 'ignore' }));
    try {
      harness = await inProcessGateway({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } }, permissions: { allow: ['mcp__everything'] } });
      // args-prompt requires `city`: the server refuses the request.
      const expected = await messageOf(direct.getPrompt({ name: 'args-prompt', arguments: {} }));
      expect(expected).toMatch(/^MCP error -32602: /);
      expect(await messageOf(harness.client.getPrompt({ name: 'everything__args-prompt', arguments: {} }))).toBe(expected.replace(/^MCP error -32602: /, 'MCP error -32602: [everything] '));
    } finally {
      await direct.close();
    }
  }, 60_000);
});
