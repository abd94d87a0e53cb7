import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamClient, type TeamHarness } from '../helpers/team.js';

/**
 * Live MCP sessions are bounded (docs/team.md, "A session ends"): the round 11 review opened 5,000
 * sessions from one client (+210 MiB, each kept http.sessionIdleSeconds). Past
 * `http.maxSessionsPerUser` or `http.maxSessions` an initialize is refused with the limit and the
 * key that raises it; the sessions already open keep working, and a closed one makes room.
 */
const X = 'token-of-xavier-0123456789';
const Y = 'token-of-yvonne-0123456789';
const Z = 'token-of-zoe-0123456789abc';

/** What connecting as `token` ends with: the client, or the HTTP status and message of the refusal. */
async function connect(url: string, token: string): Promise<TeamClient | { code: number | undefined; message: string }> {
  try {
    return await teamClient(url, token);
  } catch (error) {
    return { code: (error as { code?: number }).code, message: (error as Error).message };
  }
}

async function echo(client: TeamClient, message: string): Promise<string> {
  return textOf(await client.client.callTool({ name: 'every__echo', arguments: { message } }));
}

describe('serve --http: http.maxSessionsPerUser and http.maxSessions', () => {
  let team: TeamHarness;
  const open: TeamClient[] = [];

  beforeAll(async () => {
    team = await startTeam(tempDir(), {
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__every__echo'] },
      http: {
        tokens: [
          { user: 'xavier', sha256: tokenHash(X) },
          { user: 'yvonne', sha256: tokenHash(Y) },
          { user: 'zoe', sha256: tokenHash(Z) },
        ],
        maxSessionsPerUser: 2,
        maxSessions: 3,
      },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await team?.close();
  });

  test("a user's sessions past the limit are refused 429, naming http.maxSessionsPerUser; the open ones still work", async () => {
    for (let i = 0; i < 2; i += 1) {
      const client = await connect(team.url, X);
      if (!('client' in client)) throw new Error(`session ${i + 1} of 2 was refused: ${client.message}`);
      open.push(client);
    }
    const third = await connect(team.url, X);
    expect(third).toMatchObject({ code: 429 });
    expect('message' in third && third.message).toContain('too many MCP sessions for user xavier: 2 are open, the limit is 2 (http.maxSessionsPerUser)');
    expect('message' in third && third.message).toContain('raise http.maxSessionsPerUser');
    for (const client of open) expect(await echo(client, 'still here')).toContain('still here');
    expect(team.stderr()).toContain('too many MCP sessions for user');
  });

  test('past the limit of all users together the next initialize is refused 503, naming http.maxSessions', async () => {
    const yvonne = await connect(team.url, Y);
    if (!('client' in yvonne)) throw new Error(`yvonne's first session was refused: ${yvonne.message}`);
    open.push(yvonne);
    const zoe = await connect(team.url, Z);
    expect(zoe).toMatchObject({ code: 503 });
    expect('message' in zoe && zoe.message).toContain('too many MCP sessions: 3 are open, the limit is 3 (http.maxSessions)');
    expect('message' in zoe && zoe.message).toContain('raise http.maxSessions');
    // The refusal is a JSON-RPC error answering the initialize.
    const raw = await fetch(team.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${Z}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(raw.status).toBe(503);
    expect(await raw.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: expect.stringContaining('http.maxSessions') } });
    for (const client of open) expect(await echo(client, 'still here')).toContain('still here');
  });

  test('a session closed with DELETE makes room for a new one', async () => {
    const closing = open.shift()!;
    await closing.close();
    const zoe = await connect(team.url, Z);
    if (!('client' in zoe)) throw new Error(`zoe was refused after a session closed: ${zoe.message}`);
    open.push(zoe);
    expect(await echo(zoe, 'room made')).toContain('room made');
    // Full again: the limit still holds.
    const another = new Client({ name: 'one-more', version: '1' });
    const refused = await another.connect(new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${Y}` } } })).then(
      () => null,
      (error: { code?: number }) => error.code,
    );
    expect(refused).toBe(503);
  });
});
