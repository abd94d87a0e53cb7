import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * Connections that made no authenticated request are bounded (`http.maxUnauthenticatedConnections`;
 * docs/team.md, "Listening"). Until round 20 nothing bounded them: two peers with no token held
 * 30,000 idle sockets, the gateway reached its 20,000 descriptors and every member's request was
 * reset (round 20 review, T20-2). The built gateway; the peer's sockets are raw TCP, the member an
 * SDK client.
 */
const ALICE = 'token-of-alice-client-0123456789';
const MOST = 8;

describe('serve --http: connections that made no authenticated request', () => {
  let team: TeamHarness;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    team = await startTeam(tempDir(), {
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__every__echo'] },
      http: { maxUnauthenticatedConnections: MOST, tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }] },
    });
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await team?.close();
  });

  test('past the limit the oldest idle ones are closed, named in the log; a member is served meanwhile', async () => {
    const { hostname, port } = new URL(team.url);
    let closedByGateway = 0;
    for (let index = 0; index < 40; index += 1) {
      const socket = connect(Number(port), hostname);
      socket.on('error', () => undefined);
      socket.on('close', () => (closedByGateway += 1));
      sockets.push(socket);
    }
    // Nothing is sent on them: only the gateway closes them.
    await eventually(() => expect(closedByGateway).toBeGreaterThanOrEqual(40 - MOST), 20_000);
    await eventually(() => expect(team.stderr()).toMatch(/"limit":"http.maxUnauthenticatedConnections"/), 10_000);

    const alice = await teamClient(team.url, ALICE);
    try {
      expect(textOf(await alice.client.callTool({ name: 'every__echo', arguments: { message: 'served' } }))).toContain('served');
      // Her connections are hers once they authenticated: 40 more idle sockets do not close them.
      for (let index = 0; index < 40; index += 1) {
        const socket = connect(Number(port), hostname);
        socket.on('error', () => undefined);
        sockets.push(socket);
      }
      expect(textOf(await alice.client.callTool({ name: 'every__echo', arguments: { message: 'still served' } }))).toContain('still served');
    } finally {
      await alice.close();
    }
  }, 90_000);
});
