import { readFileSync, writeFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EVERYTHING_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { servedKeys, startTeam, teamClient, type ServedKeys, type TeamHarness } from '../helpers/team.js';

/**
 * A member removed at the identity provider (round 32's note; round 33 review, T33-2;
 * docs/team.md#identity, "A member removed at the identity provider"). Membership by `oauth.groups`
 * is read from the token, so it lasts the token's life: a token of a day kept a user the provider
 * had taken out of the group for a day. `http.oauth.maxTokenAgeSeconds` bounds that by `iat`
 * (jose's maxTokenAge), the gateway says when it sees a long-lived token with the key unset, and the
 * first token of the user the issuer signs without the group closes what their earlier tokens
 * opened (until round 33 their session and its waiting calls went on). Tokens signed with a key
 * this test serves as a JWKS on 127.0.0.1, through the built gateway.
 */
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'https://latch.test/mcp';

describe('serve --http: OAuth membership over a token\'s life', () => {
  let jwks: ServedKeys;
  let team: TeamHarness;

  beforeAll(async () => {
    jwks = await servedKeys();
    team = await startTeam(tempDir(), {
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__every__echo'], ask: ['mcp__every__get-sum'] },
      approval: { fallback: 'browser-manual', timeoutSeconds: 120 },
      http: { oauth: { issuer: ISSUER, jwksUrl: jwks.url, audience: AUDIENCE, groups: ['mcp-team'] } },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
    jwks?.close();
  });

  function token(sub: string, claims: Record<string, unknown>, times: { iat?: number | null; exp: number }): Promise<string> {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' }).setIssuer(ISSUER).setSubject(sub).setAudience(AUDIENCE).setExpirationTime(times.exp);
    if (times.iat !== null) jwt.setIssuedAt(times.iat ?? Math.floor(Date.now() / 1000));
    return jwt.sign(jwks.key);
  }
  const now = () => Math.floor(Date.now() / 1000);
  const member = { groups: ['mcp-team'] };

  async function reload(change: (oauth: Record<string, unknown>) => void): Promise<void> {
    const reloads = () => (team.stderr().match(/config reloaded/g) ?? []).length;
    const before = reloads();
    const config = JSON.parse(readFileSync(team.configPath, 'utf8'));
    change(config.http.oauth);
    writeFileSync(team.configPath, JSON.stringify(config, null, 2));
    await eventually(() => expect(reloads()).toBeGreaterThan(before), 20_000);
  }

  test('without maxTokenAgeSeconds a token of a day is accepted, and the gateway says what that costs', async () => {
    const day = await token('erin', member, { iat: now() - 7200, exp: now() + 86_400 });
    expect((await team.api('/api/me', day)).status).toBe(200);
    await eventually(() => expect(team.stderr()).toMatch(/"key":"http\.oauth\.maxTokenAgeSeconds".*an OAuth token of erin is valid for 9[0-9]{4} s: a user the identity provider no longer lets in/));
  });

  test('with maxTokenAgeSeconds a token issued longer ago, or with no iat, is refused, naming the key; a fresh one is accepted', async () => {
    await reload((oauth) => (oauth.maxTokenAgeSeconds = 600));
    const fresh = await token('erin', member, { exp: now() + 86_400 });
    expect((await team.api('/api/me', fresh)).status).toBe(200);
    const old = await team.api('/api/me', await token('erin', member, { iat: now() - 900, exp: now() + 86_400 }));
    expect(old.status).toBe(401);
    expect(old.headers.get('www-authenticate')).toMatch(/issued more than http\.oauth\.maxTokenAgeSeconds \(600 s\) ago/);
    const none = await team.api('/api/me', await token('erin', member, { iat: null, exp: now() + 3600 }));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/no valid iat \(issued at\), which http\.oauth\.maxTokenAgeSeconds requires/);
  });

  test("the first token the issuer signs for a user without the group closes the sessions their earlier tokens opened: the waiting call is withdrawn", async () => {
    const before = await token('frank', member, { exp: now() + 3600 });
    const frank = await teamClient(team.url, before);
    try {
      expect(textOf(await frank.client.callTool({ name: 'every__echo', arguments: { message: 'in the group' } }))).toContain('in the group');
      const waiting = frank.client.callTool({ name: 'every__get-sum', arguments: { a: 1, b: 2 } }, undefined, { timeout: 120_000 }).catch((error: unknown) => error);
      await eventually(async () => expect((await team.api('/api/pending', before)).body.pending).toHaveLength(1), 30_000);
      // The provider took frank out of the group: his client's renewed token says so.
      const after = await team.api('/api/me', await token('frank', { groups: ['other'] }, { exp: now() + 3600 }));
      expect(after.status).toBe(401);
      // His earlier token still carries the group (and is accepted until its exp), but nothing of his waits any more.
      await eventually(async () => expect((await team.api('/api/pending', before)).body.pending).toHaveLength(0), 20_000);
      await eventually(() => expect(team.stderr()).toMatch(/"user":"frank".*client session closed: a token of its user, signed by the issuer, says they are no longer a member/));
      void waiting;
    } finally {
      await frank.close();
    }
  }, 60_000);
});
