import { readFileSync, writeFileSync } from 'node:fs';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, eventually, tempDir } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamClient, type TeamHarness } from '../helpers/team.js';

/**
 * A token removed from http.tokens (revoked: it leaked) ends the event stream it opened (docs/team.md,
 * "Identity"). Until round 20 the credential was checked when the stream opened only: bob's session
 * kept receiving resource updates on it after his token was removed and the gateway had reloaded
 * (round 20 review, T20-4: 6 updates in the 30 s after). The built gateway, SDK clients,
 * server-everything, whose `toggle-subscriber-updates` sends an update of each subscribed resource
 * every 5 s.
 */
const ALICE = 'token-of-alice-client-0123456789';
const BOB = 'token-of-bob-client-0123456789ab';
const URI = 'demo://resource/static/document/architecture.md';
const CAROL = 'token-of-carol-client-0123456789a';

describe('serve --http: a revoked token', () => {
  let team: TeamHarness;
  const open: TeamClient[] = [];

  beforeAll(async () => {
    team = await startTeam(tempDir(), {
      mcpServers: { ev: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__ev'] },
      http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }, { user: 'bob', sha256: tokenHash(BOB) }, { user: 'carol', sha256: tokenHash(CAROL) }] },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await team?.close();
  });

  async function subscribed(token: string) {
    const member = await teamClient(team.url, token);
    open.push(member);
    const updates: string[] = [];
    member.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    await member.client.listResources();
    await member.client.subscribeResource({ uri: URI });
    return { ...member, updates };
  }

  test('ends the event stream it opened: nothing more reaches it', async () => {
    const alice = await subscribed(ALICE);
    const bob = await subscribed(BOB);
    await alice.client.callTool({ name: 'ev__toggle-subscriber-updates', arguments: {} });
    await eventually(() => expect(bob.updates.length).toBeGreaterThan(0), 20_000);

    const reloads = () => (team.stderr().match(/config reloaded/g) ?? []).length;
    const before = reloads();
    const config = JSON.parse(readFileSync(team.configPath, 'utf8'));
    config.http.tokens = config.http.tokens.filter((entry: { user: string }) => entry.user !== 'bob');
    writeFileSync(team.configPath, JSON.stringify(config, null, 2));
    await eventually(() => expect(reloads()).toBeGreaterThan(before), 20_000);
    const bobAtReload = bob.updates.length;
    const aliceAtReload = alice.updates.length;

    // Updates go on, 5 s apart: alice gets three more; bob's revoked session at most one that was on
    // its way while the reload was checked (before round 20: all three).
    await eventually(() => expect(alice.updates.length).toBeGreaterThanOrEqual(aliceAtReload + 3), 40_000);
    expect(bob.updates.length - bobAtReload).toBeLessThanOrEqual(1);
    expect(team.stderr()).toMatch(/"user":"bob".*(event stream ended: the credential that opened it|client session closed: the credential it last used) is no longer accepted/);
  }, 120_000);

  test("ends a 2026-07-28 client's subscriptions/listen stream it opened (round 22: the listen is served)", async () => {
    const client = new ModernClient({ name: 'revoked-listen', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${CAROL}` } } }), { timeout: 30_000 });
    try {
      const subscription = await client.listen({ resourceSubscriptions: [URI] });
      const reloads = () => (team.stderr().match(/config reloaded/g) ?? []).length;
      const before = reloads();
      const config = JSON.parse(readFileSync(team.configPath, 'utf8'));
      config.http.tokens = config.http.tokens.filter((entry: { user: string }) => entry.user !== 'carol');
      writeFileSync(team.configPath, JSON.stringify(config, null, 2));
      await eventually(() => expect(reloads()).toBeGreaterThan(before), 20_000);
      expect(await subscription.closed).toBe('remote');
      expect(team.stderr()).toMatch(/"user":"carol".*subscriptions\/listen stream ended: the credential that opened it is no longer accepted/);
    } finally {
      await client.close().catch(() => undefined);
    }
  }, 60_000);
});
