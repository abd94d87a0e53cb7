import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { fixtureServer, tempDir } from '../helpers/gateway.js';
import { startTeam, type TeamHarness } from '../helpers/team.js';

/**
 * A MCP 2026-07-28 client in front of the team gateway (`serve --http`), which serves MCP only in
 * sessions opened by `initialize` (docs/team.md, "MCP 2026-07-28 clients"): a stateless request is
 * answered 400 with a message saying so, in a body that is no modern error, so a dual-era client
 * falls back to `initialize` and works; a client pinned to 2026-07-28 fails at connect, saying the
 * gateway did not offer it. The official v2 Client over Streamable HTTP, and a raw POST.
 */
const TOKEN = 'mlt_modern-http-test-token-0123456789abcdef';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

describe('a 2026-07-28 client over the team gateway\'s HTTP', () => {
  let team: TeamHarness;
  beforeAll(async () => {
    const dir = tempDir();
    team = await startTeam(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] }, http: { tokens: [{ user: 'xavier', sha256: tokenHash(TOKEN) }] } });
  }, 60_000);
  afterAll(async () => {
    await team?.close();
  });

  test('a stateless request is answered 400 naming what is not served and what to do, with no modern error code (a dual-era client falls back)', async () => {
    const response = await fetch(team.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: ENVELOPE } }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBe(7);
    // Not -32022 (UnsupportedProtocolVersion), -32020 (HeaderMismatch) or another modern error: those tell a dual-era client not to fall back.
    expect(body.error.code).toBe(-32000);
    expect(body.error.message).toBe(
      'Bad Request: this mcp-latch team gateway serves MCP over HTTP only in sessions opened by initialize (protocol versions up to 2025-11-25); MCP 2026-07-28 requests without a session (no initialize) are not served yet. Connect with initialize (a dual-era client falls back to it on this answer); docs/team.md, "MCP 2026-07-28 clients"',
    );
  });

  const connect = async (mode: 'auto' | { pin: string }) => {
    const client = new Client({ name: 'modern-http-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } });
    const transport = new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
    await client.connect(transport, { timeout: 30_000 });
    return client;
  };

  test('a dual-era client (v2 Client, auto) falls back to initialize: a session of 2025-11-25, its tools listed and called', async () => {
    const client = await connect('auto');
    try {
      expect(client.getNegotiatedProtocolVersion?.()).toBe('2025-11-25');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      const result = (await client.callTool({ name: 'fix__echo', arguments: { text: 'hi' } })) as { content: Array<{ text: string }> };
      expect(result.content[0]!.text).toBe('{"text":"hi"}');
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  test('a client pinned to 2026-07-28 fails at connect, saying the gateway did not offer it', async () => {
    await expect(connect({ pin: '2026-07-28' })).rejects.toThrow('did not offer pinned protocol version 2026-07-28');
  });
});
