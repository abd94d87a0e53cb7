import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { fixtureCalls, fixtureServer, rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * A call whose message cannot be written for its server: the client's `_meta` (passed on to the
 * server) nested deeper than JSON.stringify goes. The forward threw before anything was written,
 * and the answer said "The call was forwarded to the server and may have had effects" (round 33,
 * review33t): a claim the gateway knew to be false. Now it says the call was not run, and the
 * server's own log shows it never came; the next call goes through.
 */
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

test("a call whose _meta nests past JSON.stringify's stack is answered 'not run', and its server never gets it", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const log = join(dir, 'calls.log');
  const raw = rawGateway(writeConfig(dir, { mcpServers: { f: fixtureServer('f', log) }, permissions: { allow: ['mcp__f'] } }));
  close = () => raw.close();
  await raw.initialize();
  // 9,000 levels: past the stack of JSON.stringify (~4,500 here), under the 10,000 values a call the gateway checks (docs/config.md, "limits").
  const depth = 9_000;
  raw.child.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"f__echo","arguments":{"text":"deep"},"_meta":{"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}}\n`);
  const answer = (await raw.response(2)) as { result?: { content: Array<{ text: string }>; isError?: boolean } };
  const text = answer.result?.content[0]?.text ?? JSON.stringify(answer);
  expect(text).toContain('the call was not run because its message could not be written for the server');
  expect(text).not.toContain('forwarded');
  expect(answer.result?.isError).toBe(true);
  raw.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'f__echo', arguments: { text: 'next' } } });
  expect(JSON.stringify(await raw.response(3))).toContain('next');
  const calls = fixtureCalls(log).filter((call) => call.tool === 'echo' || call.name === 'echo');
  expect(JSON.stringify(calls)).not.toContain('deep');
  expect(JSON.stringify(calls)).toContain('next');
});
