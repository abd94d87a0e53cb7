import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { eventually, fixtureCalls, fixtureServer, rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * A call cancelled after the person answered its prompt sends the client no cancel of that answered
 * `elicitation/create` (round 31 review, left open; round 32 review P32-4). The SDK's request() keeps
 * its abort listener after the answer, so the call's cancel sent `notifications/cancelled` for the
 * prompt's id: a cancel of no request in progress (MCP, cancellation: "SHOULD only cancel requests
 * … believed to be still in-progress"). Raw JSON-RPC lines, the fixture's `slow` tool running when
 * the call is cancelled.
 */
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

test('a call approved in its prompt, then cancelled while it runs: the call is cancelled at the server, the answered prompt is not', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const log = join(dir, 'fixture.log');
  const raw = rawGateway(writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', log) }, permissions: { ask: ['mcp__fix__slow'] } }));
  close = () => raw.close();
  await raw.initialize({ elicitation: { form: {} } });
  raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fix__slow', arguments: { ms: 20_000 } } });
  const prompt = await raw.find((message) => message.method === 'elicitation/create');
  raw.send({ jsonrpc: '2.0', id: prompt.id, result: { action: 'accept', content: { decision: 'Allow once' } } });
  await eventually(() => expect(fixtureCalls(log).some((call) => call.tool === 'slow')).toBe(true), 30_000);
  raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'stopped' } });
  // The server hears of the cancel (the fixture records it), so the gateway has acted on it by then.
  await eventually(() => expect(fixtureCalls(log).some((call) => call.tool === 'slow' && call.cancelled === true)).toBe(true), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Before: {"method":"notifications/cancelled","params":{"requestId":<the prompt's id>,"reason":"…"}}.
  expect(raw.messages.filter((message) => message.method === 'notifications/cancelled')).toEqual([]);
  expect(raw.messages.filter((message) => message.id === 2)).toEqual([]);
});
