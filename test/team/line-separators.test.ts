import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { escapingLineSeparators } from '../../src/team/json-text.js';
import { fixtureServer, tempDir } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * The team gateway's HTTP writes U+2028 and U+2029 escaped, as every stdio line has been since round
 * 26 (downstream/lines.ts escapeLineSeparators; docs/design.md "Node versions"; round 27, left by
 * round 26's protocol review). JSON.stringify leaves both raw inside strings; a client that splits
 * what it reads at them (Node 24's readline, a `split(/[\n\u2028\u2029]/)`) read an event's `data:`
 * line or a JSON body as pieces that are not JSON. A server's answer holding both, through the built
 * gateway (`serve --http`), read as raw bytes: an event stream of a session (the SDK's transport), a
 * 2026-07-28 request's JSON body, and the SDK client's reading of the same answer.
 */
const ZOE = 'mlt_line-separators-test-token-zoe-0123456789';
const TEXT = 'one\u2028two\u2029three';
/** What the fixture's echo answers: its arguments as JSON.stringify writes them (both raw). */
const ANSWER = JSON.stringify({ text: TEXT });
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

/** `text` holds neither separator raw, and holds both escaped. */
function expectEscaped(text: string): void {
  expect(text.includes('\u2028') || text.includes('\u2029')).toBe(false);
  expect(text).toContain('\\u2028');
  expect(text).toContain('\\u2029');
}

/** The JSON of each `data:` line of an event stream, each read to the end of its line (`\n`) only. */
function events(text: string): Array<Record<string, any>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

describe('serve --http: a server answer holding U+2028 and U+2029', () => {
  let team: TeamHarness;
  beforeAll(async () => {
    const dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) },
      permissions: { allow: ['mcp__fix'] },
      http: { tokens: [{ user: 'zoe', sha256: tokenHash(ZOE) }] },
    });
  }, 60_000);
  afterAll(async () => {
    await team?.close();
  });

  const post = (body: Record<string, unknown>, headers: Record<string, string>) =>
    fetch(team.url, { method: 'POST', headers: { authorization: `Bearer ${ZOE}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });

  test("a session's event stream (the SDK's transport) carries them escaped; the data line parses to the answer", { timeout: 60_000 }, async () => {
    const init = await post({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, {});
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    expect((await post({ method: 'notifications/initialized' }, headers)).status).toBe(202);
    const call = await post({ id: 2, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: TEXT } } }, headers);
    expect(call.headers.get('content-type')).toContain('text/event-stream');
    const raw = new TextDecoder().decode(await call.arrayBuffer());
    expectEscaped(raw);
    const answer = events(raw).find((message) => message.id === 2)!;
    expect(answer.result.content[0].text).toBe(ANSWER);
  });

  test("a 2026-07-28 request's JSON body carries them escaped and parses to the answer", { timeout: 60_000 }, async () => {
    const call = await post({ id: 3, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: TEXT }, _meta: ENVELOPE } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'fix__echo' });
    const raw = await call.text();
    expect(call.headers.get('content-type')).toContain('application/json');
    expectEscaped(raw);
    expect(JSON.parse(raw).result.content[0].text).toBe(ANSWER);
  });

  test('the SDK client reads the same value', { timeout: 60_000 }, async () => {
    const { client, close } = await teamClient(team.url, ZOE);
    try {
      const result = (await client.callTool({ name: 'fix__echo', arguments: { text: TEXT } })) as { content: Array<{ text: string }> };
      expect(result.content[0]!.text).toBe(ANSWER);
    } finally {
      await close();
    }
  });
});

describe('escapingLineSeparators: what the SDK transport writes to a response', () => {
  test('bytes and strings, a separator split across writes, and a Content-Length dropped', async () => {
    const bytes = Buffer.from(`{"a":"x${TEXT}\u2019y"}`);
    // E2 | 80 A8 … : the first separator's lead byte ends the first write.
    const split = bytes.indexOf(Buffer.from([0xe2, 0x80, 0xa8])) + 1;
    const server = createServer((_req, res) => {
      const escaping = escapingLineSeparators(res);
      escaping.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
      escaping.write(bytes.subarray(0, split));
      escaping.write(bytes.subarray(split, split + 1));
      escaping.write(bytes.subarray(split + 1, bytes.length - 3));
      escaping.end(Buffer.concat([bytes.subarray(bytes.length - 3), Buffer.from(` ${'\u2029'}`)]));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const raw = await response.text();
      expect(raw).toBe(`{"a":"x${TEXT.replace('\u2028', '\\u2028').replace('\u2029', '\\u2029')}\u2019y"} \\u2029`);
      expect(response.headers.get('content-length')).toBeNull();
    } finally {
      server.close();
    }
  });
});
