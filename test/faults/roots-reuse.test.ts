import { join } from 'node:path';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';

/**
 * A server's roots/list answered from the client's answer to its last one while that is open
 * (ROOTS_REUSE_MS, src/gateway/relay.ts; round 29). The built gateway over stdio; the fault server's
 * `roots_twice` (test/fixtures/fault-server.mjs) sends two roots/list in one write, and may cancel
 * the first; the client answers each after 300 ms.
 */
let h: Harness;
let dir: string;
let asked = 0;
const cancelled: unknown[] = [];

beforeAll(async () => {
  dir = tempDir();
  h = await startGateway({ mcpServers: { f: faultServer('progress-flood', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }, { dir, onListRoots: () => ({ roots: [] }) });
  // The gateway's own roots/list, after its initialized, answered before the tests count.
  await new Promise((resolve) => setTimeout(resolve, 500));
  h.client.setRequestHandler(ListRootsRequestSchema, async (_request, extra) => {
    asked += 1;
    extra.signal.addEventListener('abort', () => cancelled.push(extra.requestId));
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { roots: [{ uri: `file://${dir}`, name: 'work' }] };
  });
}, 60_000);

afterAll(async () => {
  await h.close();
});

test("a server's two roots/list at once: the client is asked once, and both get its roots", async () => {
  const before = asked;
  const answer = JSON.parse(textOf(await h.client.callTool({ name: 'f__roots_twice', arguments: {} }))) as { result?: { roots: Array<{ uri: string }> } };
  expect(answer.result?.roots).toEqual([{ uri: `file://${dir}`, name: 'work' }]);
  expect(asked - before).toBe(1);
});

// Round 30 review (P30-2): the second shared the first's abort signal, so the server's cancelling
// its first request failed the second ("Internal error"), and, cancelled while open, cancelled the
// client's roots/list too.
test.each([
  ['in the same write', { cancel: true }],
  ['while the client answers', { cancelAfterMs: 100 }],
])("the server cancels the first of two %s: the second, answered from the same question to the client, still gets the client's roots, and the client's question is not cancelled", async (_when, args) => {
  // Past ROOTS_REUSE_MS (1 s) after the last answer: the client is asked again.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const before = asked;
  const answer = JSON.parse(textOf(await h.client.callTool({ name: 'f__roots_twice', arguments: args }))) as { result?: { roots: Array<{ uri: string }> }; error?: { message: string } };
  expect(answer.error).toBeUndefined();
  expect(answer.result?.roots).toEqual([{ uri: `file://${dir}`, name: 'work' }]);
  expect(asked - before).toBe(1);
  expect(cancelled).toEqual([]);
});

test("the server cancels both while the client answers: the client's question is cancelled (nothing waits for it any longer)", async () => {
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  cancelled.length = 0;
  const before = asked;
  expect(textOf(await h.client.callTool({ name: 'f__roots_twice', arguments: { cancelAfterMs: 100, both: true } }))).toBe('no answer');
  expect(asked - before).toBe(1);
  expect(cancelled).toHaveLength(1);
});
