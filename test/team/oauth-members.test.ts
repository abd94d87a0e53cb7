import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { memberRefusal } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { servedKeys, startTeam, teamClient, type ServedKeys, type TeamHarness } from '../helpers/team.js';

/**
 * Who is a member with OAuth (round 32 review, T32-2; docs/team.md#identity, "Who is a member"):
 * until round 32 every user the issuer gave a token for this audience was one, with no way for the
 * operator to say who. `http.oauth.members` names them, `http.oauth.groups` the groups (a claim,
 * top-level or nested) whose users are; a token naming neither is refused, fail closed when the
 * claim is absent or not a list of names. Tokens signed with a key this test serves as a JWKS on
 * 127.0.0.1, through the built gateway.
 */
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'https://latch.test/mcp';

describe('serve --http with http.oauth.members and http.oauth.groups', () => {
  let jwks: ServedKeys;
  let team: TeamHarness;

  beforeAll(async () => {
    jwks = await servedKeys();
    team = await startTeam(tempDir(), {
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__every__echo'] },
      http: { oauth: { issuer: ISSUER, jwksUrl: jwks.url, audience: AUDIENCE, admins: ['carol'], members: ['alice', 'bob'], groups: ['mcp-team'], groupsClaim: ['realm_access', 'roles'] } },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
    jwks?.close();
  });

  function token(sub: string, claims: Record<string, unknown> = {}, key: CryptoKey = jwks.key): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' }).setIssuer(ISSUER).setSubject(sub).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('5m').sign(key);
  }

  test('a user named in members or admins, or carrying one of the groups, is a member', async () => {
    expect((await team.api('/api/me', await token('alice'))).body).toEqual({ user: 'alice', role: 'user', approves: true });
    expect((await team.api('/api/me', await token('carol'))).body).toEqual({ user: 'carol', role: 'admin', approves: true });
    expect((await team.api('/api/me', await token('erin', { realm_access: { roles: ['other', 'mcp-team'] } }))).body.user).toBe('erin');
    const erin = await teamClient(team.url, await token('erin', { realm_access: { roles: ['mcp-team'] } }));
    try {
      expect(textOf(await erin.client.callTool({ name: 'every__echo', arguments: { message: 'member by group' } }))).toContain('member by group');
    } finally {
      await erin.close();
    }
    // Said at start only when neither is set.
    expect(team.stderr()).not.toContain('http.oauth names neither members nor groups');
  });

  test('any other user of the issuer is refused, at /api and /mcp: 401 naming why, logged', async () => {
    const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
      // Before round 32 each of these was a member (/api/me 200, its own calls).
      ['dave', {}, /not a member: not in http\.oauth\.members, and the token's realm_access\.roles claim is absent/],
      ['dave', { realm_access: { roles: ['other'] } }, /holds none of http\.oauth\.groups/],
      // Fail closed: a claim of another shape names no group.
      ['dave', { realm_access: { roles: { 'mcp-team': true } } }, /is not a list of group names/],
      ['dave', { realm_access: { roles: ['mcp-team', 7] } }, /is not a list of group names/],
      ['dave', { realm_access: 'mcp-team' }, /is absent/],
      // The top-level claim of the same name is not the nested one configured.
      ['dave', { roles: ['mcp-team'], groups: ['mcp-team'] }, /is absent/],
    ];
    for (const [sub, claims, why] of refusals) {
      const answer = await team.api('/api/me', await token(sub, claims));
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      expect(answer.headers.get('www-authenticate')!.replace(/["\\]/g, '')).toMatch(why);
    }
    await expect(teamClient(team.url, await token('dave'))).rejects.toThrow();
    expect(team.stderr()).toMatch(/"key":"http\.oauth\.members".*an OAuth token signed by the issuer was refused: user .*dave.* is not a member/);
  });

  // T32-3 closes what a revoked credential opened; a token that merely expired is renewed by its client in the same session.
  test("a session whose token expired is not closed at a reload: the client goes on in it with a renewed token", async () => {
    const now = Math.floor(Date.now() / 1000);
    // Accepted for the 30 s of clock skew allowed past exp: 10 s from now.
    const short = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' }).setIssuer(ISSUER).setSubject('alice').setAudience(AUDIENCE).setIssuedAt(now - 60).setExpirationTime(now - 20).sign(jwks.key);
    const headers: Record<string, string> = { authorization: `Bearer ${short}` };
    const client = new Client({ name: 'renewing', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers } });
    await client.connect(transport, { timeout: 30_000 });
    try {
      await eventually(() => expect(Date.now() / 1000).toBeGreaterThan(now + 11), 20_000);
      expect((await team.api('/api/me', short)).status).toBe(401);
      const reloads = () => (team.stderr().match(/config reloaded/g) ?? []).length;
      const before = reloads();
      const config = JSON.parse(readFileSync(team.configPath, 'utf8'));
      config.http.oauth.admins = ['carol', 'zed'];
      writeFileSync(team.configPath, JSON.stringify(config, null, 2));
      await eventually(() => expect(reloads()).toBeGreaterThan(before), 20_000);
      headers.authorization = `Bearer ${await token('alice')}`;
      expect(textOf(await client.callTool({ name: 'every__echo', arguments: { message: 'same session' } }))).toContain('same session');
      expect(team.stderr()).not.toMatch(/"user":"alice".*client session closed: the credential it last used/);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    }
  }, 60_000);

  test('a member removed from the list at a reload: the next request is refused and the event stream they held ends', async () => {
    const bob = await teamClient(team.url, await token('bob'));
    try {
      expect(textOf(await bob.client.callTool({ name: 'every__echo', arguments: { message: 'before' } }))).toContain('before');
      const reloads = () => (team.stderr().match(/config reloaded/g) ?? []).length;
      const before = reloads();
      const config = JSON.parse(readFileSync(team.configPath, 'utf8'));
      config.http.oauth.members = ['alice'];
      writeFileSync(team.configPath, JSON.stringify(config, null, 2));
      await eventually(() => expect(reloads()).toBeGreaterThan(before), 20_000);
      await expect(bob.client.callTool({ name: 'every__echo', arguments: { message: 'after' } })).rejects.toThrow();
      expect((await team.api('/api/me', await token('bob'))).status).toBe(401);
      await eventually(() => expect(team.stderr()).toMatch(/"user":"bob".*(event stream ended: the credential that opened it|client session closed: the credential it last used) is no longer accepted/), 20_000);
      expect((await team.api('/api/me', await token('alice'))).status).toBe(200);
    } finally {
      await bob.close();
    }
  }, 60_000);
});

describe('memberRefusal', () => {
  const oauth = { admins: [], members: undefined, groups: ['team'], groupsClaim: 'groups' as string | string[] };

  test('a claim by name (a URL-like name is one claim, not a path), a list or a string of names', () => {
    expect(memberRefusal({ groups: ['team'] }, 'x', oauth)).toBeNull();
    expect(memberRefusal({ groups: 'other team' }, 'x', oauth)).toBeNull();
    expect(memberRefusal({ 'https://example.com/groups': ['team'] }, 'x', { ...oauth, groupsClaim: 'https://example.com/groups' })).toBeNull();
    expect(memberRefusal({ https: { 'example.com/groups': ['team'] } }, 'x', { ...oauth, groupsClaim: 'https://example.com/groups' })).toMatch(/absent/);
    expect(memberRefusal({ groups: 'teams' }, 'x', oauth)).toMatch(/none of http\.oauth\.groups/);
    expect(memberRefusal({ groups: null }, 'x', oauth)).toMatch(/not a list/);
  });

  test("a key of Object's prototype is no claim", () => {
    expect(memberRefusal({}, 'x', { ...oauth, groupsClaim: ['constructor', 'name'] })).toMatch(/absent/);
    expect(memberRefusal({}, 'x', { ...oauth, groupsClaim: '__proto__' })).toMatch(/absent/);
  });

  test('neither members nor groups: every user; members alone: those named', () => {
    expect(memberRefusal({}, 'anyone', { admins: [], members: undefined, groups: undefined, groupsClaim: 'groups' })).toBeNull();
    expect(memberRefusal({ groups: ['team'] }, 'x', { admins: [], members: ['y'], groups: undefined, groupsClaim: 'groups' })).toMatch(/not in http\.oauth\.members$/);
  });
});
