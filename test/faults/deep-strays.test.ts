import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { eventually, rawGateway, startGateway, tempDir, textOf, writeConfig } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';

/**
 * An answer to an id never sent, nested deeper than JSON.stringify goes (round 33 review, P33-6).
 * The SDK's Server and Client report such an answer with the message in the error's text, and
 * JSON.stringify overflowed the stack there. From the client (raw JSON-RPC lines: a result nested
 * 1,000,000 arrays deep, 2 MB, under `limits.messageMB`), the throw left the gateway's read and the
 * gateway exited, every server with it; from a server, the rest of that read was lost, its call's
 * own answer with it (the call waited `timeouts.callSeconds`). Now each is reported in the log and
 * the next line read.
 */
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

test("a client's answer to an id never sent, nested 1,000,000 deep: reported, and the gateway goes on", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const raw = rawGateway(writeConfig(dir, { mcpServers: { f: faultServer('works', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }));
  close = () => raw.close();
  let stderr = '';
  raw.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await raw.initialize();
  const depth = 1_000_000;
  raw.child.stdin.write(`{"jsonrpc":"2.0","id":50,"result":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}\n`);
  raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'f__echo', arguments: { text: 'still here' } } });
  const answer = await raw.response(2);
  expect(JSON.stringify(answer)).toContain('still here');
  expect(raw.child.exitCode).toBeNull();
  await eventually(() => expect(stderr).toContain('could not handle a message of the client: Maximum call stack size exceeded'));
});

test("a server's answer to an id never sent, nested 100,000 deep, then its call's answer in the same read: the call is answered", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  // A call that lost its answer waits this long: the test fails well before.
  const h = await startGateway({ mcpServers: { f: faultServer('works', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] }, timeouts: { callSeconds: 120 } }, { dir });
  close = () => h.close();
  expect(textOf(await h.client.callTool({ name: 'f__stray_deep', arguments: {} }, undefined, { timeout: 30_000 }))).toBe('after the stray');
  expect(textOf(await h.client.callTool({ name: 'f__echo', arguments: { text: 'next' } }))).toContain('next');
});
