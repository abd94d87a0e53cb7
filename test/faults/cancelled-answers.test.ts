import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { fixtureServer, rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * A request the client cancelled gets no answer (MCP, cancellation), whatever its id (round 31
 * review, P31-2). The SDK's Protocol takes no cancel of the id 0 (`if (!requestId) return`), so a
 * `resources/read` under id 0 cancelled at once was answered anyway; for a 2026-07-28 client the
 * gateway had forgotten the request on its cancel, so the answer went out unstamped: no
 * `resultType`, and the server's `ttlMs` (a year) and `cacheScope: "public"` as the server wrote
 * them, which the gateway never passes on (round 19 review of the 2026-07-28 path, F8). Raw JSON-RPC
 * lines, the request and its cancel in one write.
 */
const MODERN = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

function gateway(): ReturnType<typeof rawGateway> {
  const dir = tempDir();
  const definitions = join(dir, 'definition.json');
  writeFileSync(definitions, '{}');
  const config = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log'), [], { FIXTURE_RESULT_EXTRA: JSON.stringify({ ttlMs: 31_536_000_000, cacheScope: 'public' }), FIXTURE_DEFINITION_FILE: definitions }) }, permissions: { allow: ['mcp__fix'] } });
  const raw = rawGateway(config);
  close = () => raw.close();
  return raw;
}

const read = (id: number | string, meta?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri: 'note://1', ...(meta ? { _meta: meta } : {}) } });
const cancel = (id: number | string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'stopped' } });

test('a 2026-07-28 client: a read under the id 0 or "" cancelled at once is not answered; the next read under id 0 is, stamped', { timeout: 60_000 }, async () => {
  const raw = gateway();
  raw.send({ jsonrpc: '2.0', id: 100, method: 'resources/templates/list', params: { _meta: MODERN } });
  await raw.response(100);
  // Before round 31 both were answered, unstamped: {"contents":[…],"ttlMs":31536000000,"cacheScope":"public"}.
  raw.send(read(0, MODERN), cancel(0), read('', MODERN), cancel(''), read(7, MODERN), cancel(7));
  // The server answers in order: once a later read is answered, the cancelled ones would have been.
  raw.send(read(8, MODERN));
  const later = (await raw.response(8)).result as Record<string, unknown>;
  expect(later.cacheScope).toBe('private');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(raw.messages.filter((message) => message.id === 0 || message.id === '' || message.id === 7)).toEqual([]);
  // The id's next request is answered as any other.
  raw.send(read(0, MODERN));
  const again = (await raw.response(0)).result as Record<string, unknown>;
  expect(again).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
});

test('a handshake-era client: a read under the id 0 cancelled at once is not answered', { timeout: 60_000 }, async () => {
  const raw = gateway();
  await raw.initialize();
  raw.send({ jsonrpc: '2.0', id: 100, method: 'resources/templates/list' });
  await raw.response(100);
  raw.send(read(0), cancel(0));
  raw.send(read(8));
  await raw.response(8);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(raw.messages.filter((message) => message.id === 0)).toEqual([]);
});
