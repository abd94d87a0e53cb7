import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';

/**
 * A server's request relayed to the client (here `sampling/createMessage`) that cannot be written as
 * JSON (its `_meta` nested 100,000 arrays deep: JSON.stringify overflows the stack) fails at once,
 * and the server is told so; it is never made into an answer (round 33 review, P33-2). Before, the
 * gateway wrote `{"id": <its request's id>, "error": "mcp-latch could not send this answer"}` to the
 * client: an answer under an id of the gateway's own requests, which the client matches against its
 * own requests in flight. Raw JSON-RPC lines, the client's call under id 0, the id of the gateway's
 * first request to it: the call was answered by that error while it still ran at the server, and the
 * server's request was never answered (its call's own answer came 10 s later).
 */
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

test("a server's request that cannot be serialised for the client is refused to the server, never written as an answer to the client", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const raw = rawGateway(writeConfig(dir, { mcpServers: { f: faultServer('progress-flood', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }));
  close = () => raw.close();
  await raw.initialize({ sampling: {} });
  raw.send({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'f__deep_sampling', arguments: {} } });
  const answer = await raw.find((message) => message.id === 0);
  expect(answer.error).toBeUndefined();
  const text = (answer.result as { content: Array<{ text: string }> }).content[0]!.text;
  // The server's request failed with an error naming why, not "no answer" after 10 s.
  expect(text).toMatch(/"error":\{"code":-?\d+,"message":"[^"]*could not be sent to the client[^"]*Maximum call stack size exceeded/);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(raw.messages.filter((message) => message.id === 0)).toHaveLength(1);
  expect(raw.messages.filter((message) => message.method === 'sampling/createMessage')).toEqual([]);
});
