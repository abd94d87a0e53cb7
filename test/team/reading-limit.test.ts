import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * The request bodies one user sends at once are bounded (`http.maxReadingMBPerUser`; docs/team.md).
 * Until round 20 nothing bounded them: one member's token, with no session, held 60 POST bodies of
 * 10 MB one byte short and the gateway grew 10 MiB for each (round 20 review, T20-6). The built
 * gateway; the bodies are raw HTTP requests, the other member an SDK client.
 */
const BOB = 'token-of-bob-client-0123456789ab';
const ALICE = 'token-of-alice-client-0123456789';
const MB = 1024 * 1024;

describe('serve --http: request bodies one user sends at once', () => {
  let team: TeamHarness;
  const open: ClientRequest[] = [];

  beforeAll(async () => {
    team = await startTeam(tempDir(), {
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__every__echo'] },
      limits: { messageMB: 1 },
      http: { maxReadingMBPerUser: 2, tokens: [{ user: 'bob', sha256: tokenHash(BOB) }, { user: 'alice', sha256: tokenHash(ALICE) }] },
    });
  }, 60_000);

  afterAll(async () => {
    for (const each of open) each.destroy();
    await team?.close();
  });

  /** A POST /mcp of `size` bytes sent all but its last byte; resolves with the answer, if one comes. */
  function heldBody(token: string, size: number): { answered: Promise<{ status: number; text: string }> } {
    const { hostname, port } = new URL(team.url);
    const req = request({ host: hostname, port, path: '/mcp', method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': size } });
    open.push(req);
    const answered = new Promise<{ status: number; text: string }>((resolve) => {
      req.on('response', (response: IncomingMessage) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      });
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(size - 1, 0x20));
    return { answered };
  }

  test("past the budget a body is refused (429, naming the key); another member's requests are served; the budget comes back", async () => {
    const size = MB - 16;
    // Three bodies of bob's at once, each one byte short: together past the budget, so one is refused.
    const bodies = [heldBody(BOB, size), heldBody(BOB, size), heldBody(BOB, size)];
    const refused = await Promise.race(bodies.map((body) => body.answered));
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('http.maxReadingMBPerUser');
    await eventually(() => expect(team.stderr()).toMatch(/"limit":"http.maxReadingMBPerUser"/), 10_000);

    // Alice's budget is her own.
    const alice = await teamClient(team.url, ALICE);
    try {
      expect(textOf(await alice.client.callTool({ name: 'every__echo', arguments: { message: 'served' } }))).toContain('served');
    } finally {
      await alice.close();
    }

    // Bob's held bodies end: what they took is given back, and his client is served.
    for (const held of open.splice(0)) held.destroy();
    const bob = await eventually(() => teamClient(team.url, BOB), 20_000);
    try {
      expect(textOf(await bob.client.callTool({ name: 'every__echo', arguments: { message: 'bob again' } }))).toContain('bob again');
    } finally {
      await bob.close();
    }
  }, 120_000);
});
