import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, fixtureCalls, fixtureServer, tempDir } from '../helpers/gateway.js';
import { startTeam, type TeamHarness } from '../helpers/team.js';

/**
 * A MCP 2026-07-28 client in front of the team gateway (`serve --http`; docs/team.md, "MCP
 * 2026-07-28 clients"). Since round 21 its requests are served without a session: each POST
 * authenticated on its own, run in the member's standing session for such requests, the gateway's
 * prompt coming back as input_required and the retry's state bound to that member. Before, every
 * such request was answered 400 and a client pinned to 2026-07-28 could not connect at all. The
 * official v2 Client pinned to the revision (and in auto mode) over Streamable HTTP, and raw POSTs.
 */
const XAVIER = 'mlt_modern-http-test-token-0123456789abcdef';
const YVONNE = 'mlt_modern-http-test-token-yvonne-98765432';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

describe("a 2026-07-28 client over the team gateway's HTTP", () => {
  let team: TeamHarness;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')), fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      permissions: { allow: ['mcp__fix'] },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(XAVIER) }, { user: 'yvonne', sha256: tokenHash(YVONNE) }] },
    });
  }, 60_000);
  afterAll(async () => {
    await team?.close();
  });

  const connect = async (mode: 'auto' | { pin: string }, token = XAVIER, answer: string | null = null) => {
    const client = new Client({ name: 'modern-http-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } });
    const prompts: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      prompts.push(String((request.params as { message?: unknown }).message));
      return (answer === null ? { action: 'cancel' } : { action: 'accept', content: { decision: answer } }) as never;
    });
    const transport = new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    await client.connect(transport, { timeout: 30_000 });
    return { client, prompts };
  };

  const post = (token: string | null, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(team.url, {
      method: 'POST',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': String(body.method), ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });

  test('a client pinned to 2026-07-28 connects, lists and calls: no session, each request its own POST', { timeout: 60_000 }, async () => {
    const { client } = await connect({ pin: '2026-07-28' });
    try {
      expect(client.getNegotiatedProtocolVersion?.()).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['fix__echo', 'fs__write_file']));
      const result = (await client.callTool({ name: 'fix__echo', arguments: { text: 'stateless' } })) as { content: Array<{ text: string }> };
      expect(result.content[0]!.text).toBe('{"text":"stateless"}');
      expect(fixtureCalls(join(dir, 'fixture.log')).filter((call) => call.tool === 'echo')).toHaveLength(1);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  test("a call that needs the member comes back as input_required; the client's answer in its retry runs it (Allow once), a Deny does not", { timeout: 60_000 }, async () => {
    const allowed = join(dir, 'modern-allowed.txt');
    const denied = join(dir, 'modern-denied.txt');
    const yes = await connect({ pin: '2026-07-28' }, XAVIER, 'Allow once');
    const no = await connect({ pin: '2026-07-28' }, XAVIER, 'Deny');
    try {
      const written = (await yes.client.callTool({ name: 'fs__write_file', arguments: { path: allowed, content: 'x' } })) as { isError?: boolean };
      expect(written.isError ?? false).toBe(false);
      expect(readFileSync(allowed, 'utf8')).toBe('x');
      expect(yes.prompts).toHaveLength(1);
      expect(yes.prompts[0]).toContain('wants to run the tool write_file');
      const refused = (await no.client.callTool({ name: 'fs__write_file', arguments: { path: denied, content: 'x' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toMatch(/^Denied by mcp-latch/);
      expect(existsSync(denied)).toBe(false);
    } finally {
      await yes.client.close().catch(() => undefined);
      await no.client.close().catch(() => undefined);
    }
  });

  test("each request is authenticated: none without a token; a state signed for one member is not another's", { timeout: 60_000 }, async () => {
    const call = { method: 'tools/call', params: { name: 'fs__write_file', arguments: { path: join(dir, 'modern-other.txt'), content: 'y' }, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } } } };
    expect((await post(null, { id: 1, ...call }, { 'mcp-name': 'fs__write_file' })).status).toBe(401);
    const paused = (await (await post(XAVIER, { id: 2, ...call }, { 'mcp-name': 'fs__write_file' })).json()) as { result: { resultType: string; requestState: string } };
    expect(paused.result.resultType).toBe('input_required');
    const retry = { ...call, params: { ...call.params, inputResponses: { 'mcp-latch/approval': { action: 'accept', content: { decision: 'Allow once' } } }, requestState: paused.result.requestState } };
    const taken = (await (await post(YVONNE, { id: 3, ...retry }, { 'mcp-name': 'fs__write_file' })).json()) as { result: { resultType: string; inputRequests: Record<string, { params: { message: string } }> } };
    // Asked again, saying why: yvonne's session is not the one the state was issued to.
    expect(taken.result.resultType).toBe('input_required');
    expect(taken.result.inputRequests['mcp-latch/approval']!.params.message).toMatch(/^Your earlier answer to this prompt was not used: .*another session/);
    expect(existsSync(join(dir, 'modern-other.txt'))).toBe(false);
  });

  test('the revision\'s header checks: a header that says otherwise than the body is 400 HeaderMismatch (-32020), a version not spoken 400 -32022 naming the ones spoken, GET 405', async () => {
    const list = { id: 4, method: 'tools/list', params: { _meta: ENVELOPE } };
    const mismatch = await post(XAVIER, list, { 'mcp-method': 'tools/call' });
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { error: { code: number } }).error.code).toBe(-32020);
    const named = await post(XAVIER, { id: 5, method: 'tools/call', params: { name: 'fix__echo', arguments: {}, _meta: ENVELOPE } }, { 'mcp-name': 'fs__write_file' });
    expect(named.status).toBe(400);
    expect(((await named.json()) as { error: { code: number; message: string } }).error).toEqual({ code: -32020, message: "Header mismatch: Mcp-Name does not match the request's params.name" });
    // The revision's Base64 sentinel: decoded and compared; one not canonical Base64 of UTF-8 is refused (round 31 review,
    // T31-5: Node's decoder read "Z…=Z…" up to its first "=", and "/w==" as U+FFFD, and either was taken as the name).
    const sentinel = (text: string) => `=?base64?${text}?=`;
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    expect((await post(XAVIER, { id: 7, method: 'tools/call', params: { name: 'fix__echo', arguments: {}, _meta: ENVELOPE } }, { 'mcp-name': sentinel(b64('fix__echo')) })).status).toBe(200);
    for (const [name, header] of [
      ['fix__echo1', sentinel(`${b64('fix__echo1')}${b64('fs__write_file')}`)],
      ['fix__echo1', sentinel(b64('fix__echo1').replace(/=+$/, ''))],
      ['\uFFFD', sentinel('/w==')],
      ['=?base64?fix__echo!?=', '=?base64?fix__echo!?='],
    ] as const) {
      const refused = await post(XAVIER, { id: 8, method: 'tools/call', params: { name, arguments: {}, _meta: ENVELOPE } }, { 'mcp-name': header });
      expect(refused.status, header).toBe(400);
      expect(((await refused.json()) as { error: { code: number; message: string } }).error).toEqual({ code: -32020, message: 'Header mismatch: Mcp-Name carries a Base64 sentinel (=?base64?…?=) whose payload is not canonical Base64 of UTF-8' });
    }
    const bare = await post(XAVIER, { id: 6, method: 'tools/list', params: {} });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { error: { code: number; message: string } }).error).toEqual({ code: -32020, message: "Header mismatch: MCP-Protocol-Version is 2026-07-28 but the request's _meta names no io.modelcontextprotocol/protocolVersion of that era" });
    const later = await post(XAVIER, { ...list, params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } } }, { 'mcp-protocol-version': '2027-01-01' });
    expect(later.status).toBe(400);
    expect(((await later.json()) as { error: { code: number; data: unknown } }).error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2027-01-01' } });
    const stream = await fetch(team.url, { headers: { authorization: `Bearer ${XAVIER}`, accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' } });
    expect(stream.status).toBe(405);
  });

  test('a 2026-07-28 body without the MCP-Protocol-Version header is answered 400 naming the header, with no modern error code (a dual-era client falls back)', async () => {
    const response = await fetch(team.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${XAVIER}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: ENVELOPE } }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32000);
    expect(body.error.message).toContain('must carry the header MCP-Protocol-Version: 2026-07-28');
  });

  test('a dual-era client (v2 Client, auto) now speaks 2026-07-28 to it', { timeout: 60_000 }, async () => {
    const { client } = await connect('auto');
    try {
      expect(client.getNegotiatedProtocolVersion?.()).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
