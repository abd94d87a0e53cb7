import { spawnSync } from 'node:child_process';
import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isTrustedKeysUrl } from '../../src/config/schema.js';
import { BIN, EVERYTHING_SERVER, tempDir, textOf, writeConfig } from '../helpers/gateway.js';
import { servedKeys, startTeam, teamClient, type ServedKeys, type TeamHarness } from '../helpers/team.js';

/**
 * OAuth resource-server mode against a JWKS this test serves on 127.0.0.1 with keys it generates:
 * only a token signed by the issuer's key, for this gateway, not expired, is accepted.
 */
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'https://latch.test/mcp';

describe('serve --http with http.oauth', () => {
  let jwks: ServedKeys;
  let team: TeamHarness;
  let issuerKey: CryptoKey;
  let otherKey: CryptoKey;

  beforeAll(async () => {
    jwks = await servedKeys();
    issuerKey = jwks.key;
    otherKey = (await generateKeyPair('RS256')).privateKey;
    const dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      permissions: { allow: ['mcp__every__echo'] },
      http: { oauth: { issuer: ISSUER, jwksUrl: jwks.url, audience: AUDIENCE, admins: ['carol'] } },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
    jwks?.close();
  });

  /** `exp: null` signs a token without `exp`. */
  function token(key: CryptoKey, claims: { sub?: string; aud?: string; exp?: number | string | null; iat?: number; scope?: string } = {}): Promise<string> {
    const jwt = new SignJWT(claims.scope !== undefined ? { scope: claims.scope } : {})
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setSubject(claims.sub ?? 'carol')
      .setAudience(claims.aud ?? AUDIENCE)
      .setIssuedAt(claims.iat);
    if (claims.exp !== null) jwt.setExpirationTime(claims.exp ?? '5m');
    return jwt.sign(key);
  }

  test('a valid token is accepted: its subject is the user, and the metadata names the issuer', async () => {
    const carol = await teamClient(team.url, await token(issuerKey));
    try {
      expect(textOf(await carol.client.callTool({ name: 'every__echo', arguments: { message: 'signed in' } }))).toContain('signed in');
    } finally {
      await carol.close();
    }
    expect((await team.api('/api/me', await token(issuerKey))).body).toEqual({ user: 'carol', role: 'admin', approves: true });
    // Said at start: without approveScope the client's own token answers (round 30 review, T30-4: nothing was logged).
    expect(team.stderr()).toMatch(/"key":"http\.oauth\.approveScope".*http\.oauth has no approveScope, so the OAuth access token a member's MCP client sends also answers/);
    expect((await team.api('/api/me', await token(issuerKey, { sub: 'dave' }))).body).toEqual({ user: 'dave', role: 'user', approves: true });
    expect((await team.api('/.well-known/oauth-protected-resource', null)).body.authorization_servers).toEqual([ISSUER]);
  });

  test('a token for another audience, an expired one, and one signed by another key are refused with 401', async () => {
    for (const refused of [await token(issuerKey, { aud: 'https://other.test/mcp' }), await token(issuerKey, { exp: Math.floor(Date.now() / 1000) - 600 }), await token(otherKey)]) {
      const answer = await team.api('/api/me', refused);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource", error="invalid_token"/);
    }
  });

  // jose checks `exp` only when present and `iat` only with maxTokenAge (round 12 review, F2: both were admin).
  test('a token without exp, and one issued in the future, are refused with 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const refused of [await token(issuerKey, { exp: null }), await token(issuerKey, { exp: null, iat: now + 10 * 365 * 86_400 }), await token(issuerKey, { iat: now + 3_600, exp: now + 7_200 })]) {
      const answer = await team.api('/api/me', refused);
      expect(answer.status).toBe(401);
    }
    expect((await team.api('/api/me', await token(issuerKey, { iat: now + 10 }))).status).toBe(200);
  });

  test('the issuer\'s keys are fetched over https, or over http from this machine only (round 30 review, T30-1)', () => {
    // Until round 30 `http://192.0.2.2:PORT/jwks` was taken: a key served there by whoever answered the
    // fetch on the way signed a token for the admin "root-admin", which /api/me then named (200, role admin).
    const dir = tempDir();
    const config = writeConfig(dir, { mcpServers: {}, http: { oauth: { issuer: ISSUER, jwksUrl: 'http://192.0.2.2:8080/jwks', audience: AUDIENCE, admins: ['root-admin'] } } });
    const run = spawnSync(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', config], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).not.toBe(0);
    expect(run.signal).toBeNull();
    expect(run.stderr).toMatch(/http\.oauth\.jwksUrl: jwksUrl must be an https: URL/);
    for (const trusted of ['https://idp.example/.well-known/jwks.json', 'http://127.0.0.1:8080/jwks', 'http://localhost:8080/jwks', 'http://[::1]:8080/jwks', 'http://127.1.2.3/jwks']) expect(isTrustedKeysUrl(trusted), trusted).toBe(true);
    for (const refused of ['http://192.0.2.2/jwks', 'http://idp.example/jwks', 'http://127.0.0.1.idp.example/jwks', 'http://localhost.idp.example/jwks', 'http://[::ffff:c000:202]/jwks', 'ftp://idp.example/jwks', 'file:///etc/jwks.json', 'not a url']) expect(isTrustedKeysUrl(refused), refused).toBe(false);
  });

  test('with oauth.approveScope, a token with the scope is the approver (no MCP calls) and one without it answers nothing', async () => {
    // Before round 13 every valid token answered its user's calls: the client's own included (docs/team.md#approvers).
    const scoped = await startTeam(tempDir(), {
      mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      http: { oauth: { issuer: ISSUER, jwksUrl: jwks.url, audience: AUDIENCE, approveScope: 'mcp-latch:approve' } },
    });
    try {
      const client = await token(issuerKey, { sub: 'dave', scope: 'mcp' });
      const approver = await token(issuerKey, { sub: 'dave', scope: 'mcp mcp-latch:approve' });
      expect((await scoped.api('/api/me', client)).body).toEqual({ user: 'dave', role: 'user', approves: false });
      expect((await scoped.api('/api/me', approver)).body).toEqual({ user: 'dave', role: 'approver', approves: true });
      expect((await scoped.api('/api/rules', client, { method: 'DELETE', body: { rule: 'mcp__every' } })).status).toBe(403);
      expect((await scoped.api('/api/rules', approver, { method: 'DELETE', body: { rule: 'mcp__every' } })).status).toBe(404);
      await expect(teamClient(scoped.url, approver)).rejects.toThrow(/approver credential of dave/);
      expect(scoped.stderr()).not.toContain('http.oauth has no approveScope');
    } finally {
      await scoped.close();
    }
  });
});

