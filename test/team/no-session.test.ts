import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, tempDir } from '../helpers/gateway.js';
import { startTeam, type TeamHarness } from '../helpers/team.js';

/**
 * A tools/call too wide to decide (more than MAX_CALL_VALUES values, refused before it is parsed)
 * sent without a session (round 22's note): it was answered 200 with the width's refusal, and
 * audited, as if a session had sent it, where the same call narrow is 400 "no Mcp-Session-Id".
 * MCP 2025-06-18 basic/transports, "Session Management": a server that requires a session "SHOULD
 * respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400".
 * A 2026-07-28 request has no session: its headers are checked first, then the width refused.
 */
const NINA = 'mlt_no-session-test-token-nina-0123456789';
const wide = { items: Array.from({ length: 12_000 }, () => 0) };

describe('serve --http: a tools/call without a session', () => {
  let team: TeamHarness;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__every__echo'] },
      http: { tokens: [{ user: 'nina', sha256: tokenHash(NINA) }] },
    });
  }, 60_000);
  afterAll(async () => {
    await team?.close();
  });

  /** What the SDK client's transport, never initialized (no session id), is answered for `message`. */
  const sendWithoutSession = async (message: JSONRPCMessage) => {
    const transport = new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${NINA}` } } });
    await transport.start();
    try {
      await transport.send(message);
      return null;
    } catch (error) {
      return { code: (error as { code?: number }).code, message: (error as Error).message };
    } finally {
      await transport.close();
    }
  };

  test('of the handshake era, a wide one is refused 400 naming the missing Mcp-Session-Id, as a narrow one is; it is no call of a session and is not audited (it was 200 with the width\'s refusal)', async () => {
    const narrow = await sendWithoutSession({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'every__echo', arguments: { message: 'hi' } } });
    expect(narrow).toMatchObject({ code: 400 });
    expect(narrow!.message).toContain('no Mcp-Session-Id header');
    const refused = await sendWithoutSession({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'every__echo', arguments: wide } });
    expect(refused).toMatchObject({ code: 400 });
    expect(refused!.message).toContain('no Mcp-Session-Id header');
    expect(refused!.message).toContain('start with initialize');
    expect(refused!.message).not.toContain('values as written');
    // A batch, too.
    const batch = await fetch(team.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${NINA}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'every__echo', arguments: wide } }]),
    });
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: { message: string } }).error.message).toContain('no Mcp-Session-Id header');
    let audit = '';
    try {
      audit = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8');
    } catch {
      // No record at all.
    }
    expect(audit).not.toContain('values as written');
  });

  /** A raw 2026-07-28 POST of a wide tools/call with these headers. */
  const modernWide = (headers: Record<string, string>) =>
    fetch(team.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${NINA}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'w1', method: 'tools/call', params: { name: 'every__echo', arguments: wide, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });

  test('of 2026-07-28 (no sessions), the headers are checked first (400 naming the header or the version), then the width is refused as in a session', async () => {
    const noMethod = await modernWide({ 'mcp-protocol-version': '2026-07-28', 'mcp-name': 'every__echo' });
    expect(noMethod.status).toBe(400);
    expect(await noMethod.json()).toMatchObject({ id: 'w1', error: { code: -32020, message: 'Header mismatch: the Mcp-Method header is missing' } });
    const otherMethod = await modernWide({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', 'mcp-name': 'every__echo' });
    expect(otherMethod.status).toBe(400);
    expect(((await otherMethod.json()) as { error: { code: number } }).error.code).toBe(-32020);
    const noName = await modernWide({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' });
    expect(noName.status).toBe(400);
    expect(await noName.json()).toMatchObject({ error: { code: -32020, message: 'Header mismatch: the Mcp-Name header is missing' } });
    const later = await modernWide({ 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/call', 'mcp-name': 'every__echo' });
    expect(later.status).toBe(400);
    expect(await later.json()).toMatchObject({ error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2099-01-01' } } });
    // The official v2 client sends the headers right: the width is its answer.
    const client = new ModernClient({ name: 'no-session-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${NINA}` } } }), { timeout: 30_000 });
    try {
      const error = await client.callTool({ name: 'every__echo', arguments: wide }).then(() => null, (thrown: unknown) => thrown as { code?: number; message: string });
      expect(error?.code).toBe(-32602);
      expect(error?.message).toContain('values as written, more than the 10,000 mcp-latch checks in one call');
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
