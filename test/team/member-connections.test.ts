import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { MemberConnections } from '../../src/team/member-connections.js';
import { EVERYTHING_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * One member's open connections are bounded (`http.maxConnectionsPerUser`; docs/team.md,
 * "Listening"). Until round 30 an authenticated connection counted nowhere: bob's token held 1,100
 * requests whose bodies never came, the gateway (descriptors limited to 1,024) reached its limit and
 * alice's requests timed out (round 30 review, T30-2). The built gateway; bob's sockets are raw TCP,
 * alice an SDK client.
 */
const ALICE = 'token-of-alice-client-0123456789';
const BOB = 'token-of-bob-hostile-0123456789ab';
const MOST = 8;
const HELD = 20;

describe('serve --http: one member\'s connections', () => {
  let team: TeamHarness;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    team = await startTeam(tempDir(), {
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__every__echo'] },
      http: { maxConnectionsPerUser: MOST, tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }, { user: 'bob', sha256: tokenHash(BOB) }] },
    });
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await team?.close();
  });

  test('past the limit a member\'s next connection is refused (429, closed), named in the log; another member is served; closing makes room', async () => {
    const { hostname, port } = new URL(team.url);
    const answers: string[] = [];
    let closed = 0;
    for (let index = 0; index < HELD; index += 1) {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => undefined);
      socket.on('data', (data: Buffer) => answers.push(data.toString()));
      socket.on('close', () => (closed += 1));
      // A request whose body never comes: it holds its connection until Node's requestTimeout (300 s).
      socket.write(`POST /api/pending/x HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${BOB}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
      sockets.push(socket);
    }
    await eventually(() => expect(closed).toBe(HELD - MOST), 20_000);
    expect(answers).toHaveLength(HELD - MOST);
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
      expect(answer).toMatch(/connection: close/i);
      expect(answer).toContain(`too many connections for user bob: ${MOST} are open, the limit (http.maxConnectionsPerUser)`);
    }
    await eventually(() => expect(team.stderr()).toMatch(/"user":"bob".*"limit":"http.maxConnectionsPerUser"/), 10_000);

    // Alice is not bob: her session and calls go on.
    const alice = await teamClient(team.url, ALICE);
    try {
      expect(textOf(await alice.client.callTool({ name: 'every__echo', arguments: { message: 'served' } }))).toContain('served');
    } finally {
      await alice.close();
    }
    expect((await team.api('/api/me', BOB)).status).toBe(429);
    // Bob's held connections closed: he is served again.
    for (const socket of sockets) socket.destroy();
    await eventually(async () => expect((await team.api('/api/me', BOB)).body).toEqual({ user: 'bob', role: 'user', approves: true }), 10_000);
  }, 90_000);
});

describe('MemberConnections', () => {
  const socket = () => new EventEmitter() as unknown as Socket;

  test("a connection is the member's of its latest request (a proxy's pooled one moves); a closed one leaves the count", () => {
    const warned: string[] = [];
    const book = new MemberConnections(() => 2, (user) => warned.push(user));
    const [a, b, c] = [socket(), socket(), socket()];
    expect(book.claim(a, 'alice')).toBe(true);
    expect(book.claim(a, 'alice')).toBe(true);
    expect(book.claim(b, 'alice')).toBe(true);
    expect(book.count('alice')).toBe(2);
    expect(book.claim(c, 'alice')).toBe(false);
    expect(warned).toEqual(['alice']);
    // The proxy's connection `b` now carries bob's request: it is his, and alice has room again.
    expect(book.claim(b, 'bob')).toBe(true);
    expect([book.count('alice'), book.count('bob')]).toEqual([1, 1]);
    expect(book.claim(c, 'alice')).toBe(true);
    (b as unknown as EventEmitter).emit('close');
    (c as unknown as EventEmitter).emit('close');
    expect([book.count('alice'), book.count('bob')]).toEqual([1, 0]);
  });
});

