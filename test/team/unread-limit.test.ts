import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { eventually, tempDir, textOf } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * What a member's responses hold unread is bounded (`http.maxUnreadMBPerUser`; docs/team.md, "What
 * waits for a member's client to read"). Until round 27 answers were kept however long the client
 * left them: one token with 80 answers of 8 MB never read took the shared gateway from 88 to 796 MB
 * (round 27 review, P27-6). The built gateway; mallory's requests are raw HTTP on connections never
 * read, in her SDK client's session; alice is an SDK client.
 */
const MALLORY = 'token-of-mallory-unread-limit-0123';
const ALICE = 'token-of-alice-unread-limit-012345';
const TRUDY = 'token-of-trudy-unread-limit-012345';
let team: TeamHarness;
const sockets: Socket[] = [];

beforeAll(async () => {
  const dir = tempDir();
  team = await startTeam(dir, {
    mcpServers: { f: faultServer('works', join(dir, 'starts')) },
    permissions: { allow: ['mcp__f__huge_result', 'mcp__f__echo'] },
    http: { maxUnreadMBPerUser: 16, tokens: [{ user: 'mallory', sha256: tokenHash(MALLORY) }, { user: 'alice', sha256: tokenHash(ALICE) }, { user: 'trudy', sha256: tokenHash(TRUDY) }] },
  });
}, 60_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await team?.close();
});

test("past http.maxUnreadMBPerUser unread, the member's session is closed and its responses ended; another member's call answers", { timeout: 120_000 }, async () => {
  const mallory = await teamClient(team.url, MALLORY);
  const alice = await teamClient(team.url, ALICE);
  try {
    await mallory.client.callTool({ name: 'f__echo', arguments: { text: 'hi' } });
    const session = (mallory.client.transport as { sessionId?: string }).sessionId!;
    const { port } = new URL(team.url);
    const ended: Array<Promise<void>> = [];
    // 8 answers of 8 MB, none read: past 16 MB unread after the second or third.
    for (let index = 0; index < 8; index++) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1000 + index, method: 'tools/call', params: { name: 'f__huge_result', arguments: { mb: 8 } } });
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      ended.push(new Promise((done) => socket.once('close', () => done())));
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${MALLORY}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${session}\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      socket.pause();
      sockets.push(socket);
    }
    await eventually(() => expect(team.stderr()).toMatch(/"user":"mallory","session":"[^"]+","limit":"http.maxUnreadMBPerUser".*"msg":"user mallory's responses hold [\d.]+ MB their client has not read, past http.maxUnreadMBPerUser \(16.0 MB\): their session/), 90_000, 200);
    // The connections of its responses were ended (read now, they end; a request sent after it closed is answered 404, its connection kept alive).
    for (const socket of sockets) socket.resume();
    await Promise.race(ended);
    // The session is gone; alice's is not.
    const again = await fetch(team.url, { method: 'POST', headers: { authorization: `Bearer ${MALLORY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }) });
    expect(again.status).toBe(404);
    expect(textOf(await alice.client.callTool({ name: 'f__echo', arguments: { text: 'alice here' } }))).toContain('alice here');
  } finally {
    await alice.close();
    await mallory.close().catch(() => undefined);
  }
});

// Round 28: a 2026-07-28 request's answer is its POST's response (its event stream, or one JSON
// body), outside any session's: until then none of it counted, and a member's unread answers there
// grew without bound (8 of 8 MB, 64 MB, were all kept past a bound of 16).
test("a member's 2026-07-28 requests' unread answers count against http.maxUnreadMBPerUser; past it their responses are ended; another member's call answers", { timeout: 120_000 }, async () => {
  const alice = await teamClient(team.url, ALICE);
  const { port } = new URL(team.url);
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
  const mine: Socket[] = [];
  try {
    const ended: Array<Promise<void>> = [];
    // 8 answers of 8 MB, none read: past 16 MB unread after the second or third.
    for (let index = 0; index < 8; index++) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 2000 + index, method: 'tools/call', params: { name: 'f__huge_result', arguments: { mb: 8 }, _meta: envelope } });
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      ended.push(new Promise((done) => socket.once('close', () => done())));
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TRUDY}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: f__huge_result\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      socket.pause();
      mine.push(socket);
      sockets.push(socket);
    }
    await eventually(() => expect(team.stderr()).toMatch(/"user":"trudy","session":"[^"]+","limit":"http.maxUnreadMBPerUser".*"msg":"user trudy's responses hold [\d.]+ MB their client has not read, past http.maxUnreadMBPerUser \(16.0 MB\): \d+ response\(s\) of their MCP 2026-07-28 requests were ended/), 90_000, 200);
    // Their connections were ended: read now, they close.
    for (const socket of mine) socket.resume();
    await Promise.race(ended);
    expect(textOf(await alice.client.callTool({ name: 'f__echo', arguments: { text: 'alice here' } }))).toContain('alice here');
  } finally {
    await alice.close();
  }
});

// Round 28 review P28-1: the bound counted Node's buffer of each response only. One POST holding a
// batch of calls has one response, whose event stream the SDK's transport queues in a web stream
// that is written to the response only as it drains: 40 answers of 8 MB never read held 320 MB
// (RSS 88 -> 464 MB), with the bound at 16, and nothing was logged.
// Round 29 review P29-3: a message queued for a response counted its characters, and what the response
// wrote took off its bytes: three-byte text held up to three times the bound (these three, 28 MB, counted 15.7: the
// first written, 9.4 MB in the response's buffer, and two queued counted 3.1 MB each).
test.each([
  ['large answers', 8, 2000, { mb: 8 }],
  ['large answers of three-byte text (counted in bytes)', 3, 3000, { mb: 3, char: '日' }],
] as const)('one batch POST of %s never read: past http.maxUnreadMBPerUser the session is closed', { timeout: 120_000 }, async (_what, count, firstId, args) => {
  const mallory = await teamClient(team.url, MALLORY);
  const alice = await teamClient(team.url, ALICE);
  try {
    await mallory.client.callTool({ name: 'f__echo', arguments: { text: 'hi' } });
    const session = (mallory.client.transport as { sessionId?: string }).sessionId!;
    const { port } = new URL(team.url);
    const warnings = () => team.stderr().split('\n').filter((line) => line.includes(`their session ${session} is closed`));
    const batch = Array.from({ length: count }, (_, index) => ({ jsonrpc: '2.0', id: firstId + index, method: 'tools/call', params: { name: 'f__huge_result', arguments: args } }));
    const body = JSON.stringify(batch);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${MALLORY}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${session}\r\nMCP-Protocol-Version: 2025-03-26\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    socket.pause();
    sockets.push(socket);
    await eventually(() => expect(warnings()).toHaveLength(1), 90_000, 200);
    socket.resume();
    await ended;
    const again = await fetch(team.url, { method: 'POST', headers: { authorization: `Bearer ${MALLORY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }) });
    expect(again.status).toBe(404);
    expect(textOf(await alice.client.callTool({ name: 'f__echo', arguments: { text: 'alice here' } }))).toContain('alice here');
  } finally {
    await alice.close();
    await mallory.close().catch(() => undefined);
  }
});

