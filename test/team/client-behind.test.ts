import { existsSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { PROGRESS_BURST } from '../../src/gateway/progress.js';
import { RESOURCE_UPDATES_PER_SECOND } from '../../src/gateway/update-rate.js';
import { tokenHash } from '../../src/team/identity.js';
import { faultServer } from '../helpers/faults.js';
import { eventually, tempDir } from '../helpers/gateway.js';
import { startTeam, type TeamHarness } from '../helpers/team.js';

/**
 * A member whose client does not read its call's event stream while the server streams progress
 * (round 21 review, review-diff21 R4; over stdio round 20's F1): the SDK's transport queued every
 * update for it, 3,000 of 64 KB took the shared gateway from 86 to 309 MB. Past limits.messageMB
 * waiting, the session's progress and log notifications are dropped; the answer is not. The built
 * team gateway, raw HTTP (an SDK client reads its streams).
 */
const ALICE = 'token-of-alice-client-0123456789';
let team: TeamHarness | undefined;
afterAll(async () => {
  await team?.close();
});

function post(base: string, body: unknown, session?: string): Promise<IncomingMessage> {
  const url = new URL('/mcp', base);
  return new Promise((done, fail) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session } : {}) } }, done);
    req.on('error', fail);
    req.end(JSON.stringify(body));
  });
}

async function readAll(res: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of res) text += (chunk as Buffer).toString();
  return text;
}

/** The JSON-RPC messages of an event stream's text. */
const messagesOf = (text: string) => text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as { id?: number; method?: string; result?: { content: Array<{ text: string }> } });

describe('serve --http: a member whose client falls behind while a server streams progress', () => {
  // Since round 30 a call's progress is at most 10 at once and 10 a second (src/gateway/progress.ts),
  // so a server's log messages (at most 100 a second, src/gateway/log-rate.ts) fill the backlog here.
  test('past limits.messageMB waiting, the session\'s log messages are dropped and the log says so; the answer arrives whole', async () => {
    const dir = tempDir();
    const flooded = join(dir, 'flooded');
    const count = 150;
    team = await startTeam(dir, {
      mcpServers: { f: faultServer('progress-flood', join(dir, 'starts'), { FAULT_FLOODED: flooded }) },
      permissions: { allow: ['mcp__f__flood'] },
      limits: { messageMB: 1 },
      http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }] },
    });
    const init = await post(team.base, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const session = init.headers['mcp-session-id'] as string;
    await readAll(init);
    await readAll(await post(team.base, { jsonrpc: '2.0', method: 'notifications/initialized' }, session));
    // The client stops reading its call's stream; the server sends 150 log messages of 256 KB (38 MB) and answers,
    // 100 of them in the rate's second: more than the limit and a loopback socket's buffers (a few MB) hold.
    const call = await post(team.base, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'f__flood', arguments: { count, kb: 256, logs: true } } }, session);
    call.pause();
    call.socket.pause();
    await eventually(() => expect(existsSync(flooded)).toBe(true), 30_000);
    call.socket.resume();
    const messages = messagesOf(await readAll(call));
    expect(messages.find((message) => message.id === 2)?.result?.content[0]?.text).toBe(`sent ${count}`);
    const logged = messages.filter((message) => message.method === 'notifications/message');
    // What waited within the limit (1 MB, 4 messages) and the socket's buffers, not the 100 of the second.
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.length).toBeLessThan(50);
    await eventually(() => expect(team!.stderr()).toContain('its progress and log notifications are dropped until it has read them'));
  }, 90_000);
});

describe('serve --http: a member whose event stream falls behind while a subscribed resource is updated', () => {
  test('each updated resource is told once when it has read, not every update held', async () => {
    const dir = tempDir();
    const flooded = join(dir, 'flooded');
    const count = 300;
    const team2 = await startTeam(dir, {
      mcpServers: { f: faultServer('progress-flood', join(dir, 'starts'), { FAULT_FLOODED: flooded }) },
      permissions: { allow: ['mcp__f__flood'] },
      limits: { messageMB: 1 },
      http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }] },
    });
    try {
      const init = await post(team2.base, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const session = init.headers['mcp-session-id'] as string;
      await readAll(init);
      await readAll(await post(team2.base, { jsonrpc: '2.0', method: 'notifications/initialized' }, session));
      const listed = messagesOf(await readAll(await post(team2.base, { jsonrpc: '2.0', id: 2, method: 'resources/list' }, session)));
      const uri = (listed[0] as unknown as { result: { resources: Array<{ uri: string }> } }).result.resources[0]!.uri;
      await readAll(await post(team2.base, { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri } }, session));
      // The session's event stream (where updates go), not read.
      const url = new URL('/mcp', team2.base);
      const stream = await new Promise<IncomingMessage>((done, fail) => request({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers: { authorization: `Bearer ${ALICE}`, accept: 'text/event-stream', 'mcp-session-id': session } }, done).on('error', fail).end());
      stream.pause();
      stream.socket.pause();
      const answer = messagesOf(await readAll(await post(team2.base, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'f__flood', arguments: { count, kb: 64, updates: true } } }, session)));
      expect(answer.find((message) => message.id === 4)?.result?.content[0]?.text).toBe(`sent ${count}`);
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      stream.socket.resume();
      stream.resume();
      await eventually(() => expect(team2.stderr()).toContain('resource update notifications were dropped while it was behind'), 30_000);
      await eventually(() => {
        const updates = messagesOf(text).filter((message) => message.method === 'notifications/resources/updated');
        expect(updates.length).toBeGreaterThan(0);
        expect(updates.length).toBeLessThan(count / 2);
        const uris = updates.map((message) => (message as unknown as { params: { uri: string } }).params.uri);
        expect(new Set(uris).size).toBe(uris.length);
      });
      stream.destroy();
    } finally {
      await team2.close();
    }
  }, 90_000);
});

describe('serve --http: a 2026-07-28 request whose client falls behind while its server streams progress', () => {
  test("past limits.messageMB written and not read, the request's log messages are dropped and the log says so; the answer arrives whole (round 22: such a request's notifications now go on its POST's stream)", async () => {
    const dir = tempDir();
    const flooded = join(dir, 'flooded');
    const count = 150;
    const team3 = await startTeam(dir, {
      mcpServers: { f: faultServer('progress-flood', join(dir, 'starts'), { FAULT_FLOODED: flooded }) },
      permissions: { allow: ['mcp__f__flood'] },
      limits: { messageMB: 1 },
      http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }] },
    });
    try {
      const url = new URL('/mcp', team3.base);
      const body = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'f__flood', arguments: { count, kb: 256, logs: true }, _meta: { 'io.modelcontextprotocol/logLevel': 'info', 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } };
      const headers = { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'f__flood' };
      const call = await new Promise<IncomingMessage>((done, fail) => request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, done).on('error', fail).end(JSON.stringify(body)));
      expect(call.headers['content-type']).toBe('text/event-stream');
      call.pause();
      call.socket.pause();
      await eventually(() => expect(existsSync(flooded)).toBe(true), 30_000);
      call.socket.resume();
      const messages = messagesOf(await readAll(call));
      expect(messages.find((message) => message.id === 2)?.result?.content[0]?.text).toBe(`sent ${count}`);
      const logged = messages.filter((message) => message.method === 'notifications/message');
      expect(logged.length).toBeGreaterThan(0);
      expect(logged.length).toBeLessThan(50);
      await eventually(() => expect(team3.stderr()).toContain("progress and log notifications of a 2026-07-28 request were dropped while its client was behind"));
    } finally {
      await team3.close();
    }
  }, 90_000);
});

describe('serve --http: a large answer waiting for the member\'s client to read, and another call\'s progress', () => {
  // Round 22's note (be651db fixed it over stdio): the session's bound counted the progress of every
  // call while any of its responses waited to drain, so one large answer the client had not read yet
  // (15 MB under limits.messageMB 16; a loopback socket's buffers take a few MB of it) dropped the progress of another call, whose own stream the
  // client read as it came. Only what waits on a response that waits to drain counts now. Since round
  // 30 at most PROGRESS_BURST (10) of a call's updates go at once (src/gateway/progress.ts): 10 of
  // 256 KB, with the large answer past the 16 MB the old count would have held.
  test('the other call\'s progress, on a stream the client reads, is all delivered; the answer arrives whole after', async () => {
    const dir = tempDir();
    const flooded = join(dir, 'flooded');
    const count = PROGRESS_BURST;
    const team4 = await startTeam(dir, {
      mcpServers: { f: faultServer('progress-flood', join(dir, 'starts'), { FAULT_FLOODED: flooded }) },
      permissions: { allow: ['mcp__f__flood', 'mcp__f__huge_result'] },
      limits: { messageMB: 16 },
      http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }] },
    });
    try {
      const init = await post(team4.base, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const session = init.headers['mcp-session-id'] as string;
      await readAll(init);
      await readAll(await post(team4.base, { jsonrpc: '2.0', method: 'notifications/initialized' }, session));
      // The large answer's stream is not read yet.
      const huge = await post(team4.base, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'f__huge_result', arguments: { mb: 15 } } }, session);
      huge.pause();
      huge.socket.pause();
      // 10 updates of 256 KB (2.5 MB) of another call, on a stream read as it comes.
      const call = await post(team4.base, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'f__flood', arguments: { count, kb: 256 }, _meta: { progressToken: 'p' } } }, session);
      const messages = messagesOf(await readAll(call));
      expect(messages.find((message) => message.id === 3)?.result?.content[0]?.text).toBe(`sent ${count}`);
      const progress = messages.filter((message) => message.method === 'notifications/progress');
      expect(progress).toHaveLength(count);
      huge.socket.resume();
      const answer = messagesOf(await readAll(huge));
      expect(answer.find((message) => message.id === 2)?.result?.content[0]?.text).toHaveLength(15 * 1024 * 1024);
      expect(team4.stderr()).not.toContain('the client is behind');
    } finally {
      await team4.close();
    }
  }, 90_000);
});

describe('serve --http: a large answer waiting for the member\'s client to read, and the session\'s resource updates', () => {
  // Round 23's note: resource updates were kept (once per resource, past limits.messageMB dropped)
  // while any response of the session waited to drain, so one large answer not read yet held, then
  // dropped, the updates of an event stream the client read as they came: a client slow to read
  // one response was taken as behind in all. Only the stream an update goes on (GET) counts now.
  // Since round 30 at most RESOURCE_UPDATES_PER_SECOND (100) of a server's updates go to a client in a
  // second (src/gateway/update-rate.ts): 100 of 64 KB (6.4 MB) beside the 15 MB answer.
  test('every update reaches the event stream the client reads while the large answer waits; the answer arrives whole after', async () => {
    const dir = tempDir();
    const flooded = join(dir, 'flooded');
    const count = RESOURCE_UPDATES_PER_SECOND;
    const team5 = await startTeam(dir, {
      mcpServers: { f: faultServer('progress-flood', join(dir, 'starts'), { FAULT_FLOODED: flooded }) },
      permissions: { allow: ['mcp__f__flood', 'mcp__f__huge_result'] },
      limits: { messageMB: 16 },
      http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }] },
    });
    try {
      const init = await post(team5.base, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const session = init.headers['mcp-session-id'] as string;
      await readAll(init);
      await readAll(await post(team5.base, { jsonrpc: '2.0', method: 'notifications/initialized' }, session));
      await readAll(await post(team5.base, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'fault://flooded' } }, session));
      // The session's event stream, read as it comes.
      const url = new URL('/mcp', team5.base);
      const stream = await new Promise<IncomingMessage>((done, fail) => request({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers: { authorization: `Bearer ${ALICE}`, accept: 'text/event-stream', 'mcp-session-id': session } }, done).on('error', fail).end());
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      // The large answer's stream is not read yet.
      const huge = await post(team5.base, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'f__huge_result', arguments: { mb: 15 } } }, session);
      huge.pause();
      huge.socket.pause();
      // 100 updates of distinct sub-resources, 64 KB of uri each (6.4 MB), while it waits.
      const answer = messagesOf(await readAll(await post(team5.base, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'f__flood', arguments: { count, kb: 64, updates: true } } }, session)));
      expect(answer.find((message) => message.id === 4)?.result?.content[0]?.text).toBe(`sent ${count}`);
      // All of them, the large answer still not read.
      await eventually(() => expect(messagesOf(text).filter((message) => message.method === 'notifications/resources/updated')).toHaveLength(count), 30_000);
      huge.socket.resume();
      const big = messagesOf(await readAll(huge));
      expect(big.find((message) => message.id === 3)?.result?.content[0]?.text).toHaveLength(15 * 1024 * 1024);
      expect(team5.stderr()).not.toContain('the client is behind');
      stream.destroy();
    } finally {
      await team5.close();
    }
  }, 90_000);
});
