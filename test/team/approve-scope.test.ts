import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { servedKeys, startTeam, teamClient, type ServedKeys, type TeamHarness } from '../helpers/team.js';

/**
 * `http.oauth.approveScope` with `http.tokens` beside it (a script's token, say): once the key is
 * set, a token without the scope does not answer (docs/team.md#approvers). Until round 20 an
 * `http.tokens` client token still answered its user's calls, while the gateway already treated
 * that user as having an approver (no prompt in the client): the model holding the token approved
 * its own write through /api (round 20 review, T20-3). The built gateway, a JWKS this test serves,
 * the SDK client, the real filesystem server.
 */
const ISSUER = 'https://issuer.test';
const SCRIPT = 'token-of-alice-script-0123456789';
const SCOPE = 'mcp-latch:approve';
const AUDIENCE = 'https://latch.test/mcp';

/**
 * The model's own write through `clientToken`: not asked in its client, the call waits on /api, where
 * that token's "Allow once" is refused (403, naming the approver credential; `alsoRefused` checks
 * more) and nothing is written; the answer of `approver()` runs it.
 */
async function selfApprovalRefused(team: TeamHarness, dir: string, clientToken: string, approver: () => Promise<string>, alsoRefused?: () => Promise<void>): Promise<void> {
  const client = await teamClient(team.url, clientToken, () => ({ action: 'decline' }));
  try {
    const file = join(dir, 'self-approved.txt');
    const call = client.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'by the model' } }, undefined, { timeout: 90_000 });
    call.catch(() => undefined);
    const waiting = await eventually(async () => {
      const [pending] = (await team.api('/api/pending', clientToken)).body.pending as Array<{ id: string }>;
      expect(pending).toBeDefined();
      return pending!;
    }, 30_000);
    // Not asked in the client: the user answers with the approver credential only.
    expect(client.elicitations).toHaveLength(0);
    const refused = await team.api(`/api/pending/${waiting.id}`, clientToken, { method: 'POST', body: { decision: 'Allow once' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('approver credential');
    await alsoRefused?.();
    expect(existsSync(file)).toBe(false);
    expect((await team.api(`/api/pending/${waiting.id}`, await approver(), { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
    expect(textOf(await call)).toContain('Successfully wrote');
    expect(existsSync(file)).toBe(true);
  } finally {
    await client.close();
  }
}

describe('serve --http: approveScope and an http.tokens client token', () => {
  let dir: string;
  let jwks: ServedKeys;
  let team: TeamHarness;

  beforeAll(async () => {
    jwks = await servedKeys();
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: {
        tokens: [{ user: 'alice', sha256: tokenHash(SCRIPT) }],
        oauth: { issuer: ISSUER, jwksUrl: jwks.url, audience: AUDIENCE, approveScope: SCOPE },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
    jwks?.close();
  });

  function token(scope?: string): Promise<string> {
    return new SignJWT(scope ? { scope } : {}).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' }).setIssuer(ISSUER).setSubject('alice').setAudience(AUDIENCE).setIssuedAt().setExpirationTime('5m').sign(jwks.key);
  }

  test("the client token does not answer; alice's approver credential does", async () => {
    expect((await team.api('/api/me', SCRIPT)).body).toEqual({ user: 'alice', role: 'user', approves: false });
    expect(team.stderr()).not.toContain('alice has no approver token');
    await selfApprovalRefused(team, dir, SCRIPT, () => token(SCOPE));
  }, 120_000);
});

/**
 * The mirror of T20-3: an `http.tokens` approver for alice, and OAuth without `approveScope` for
 * her client. Until round 30 every OAuth token answered when `approveScope` was unset, even for a
 * user whose approver token the gateway already honoured (no prompt in her client, the call waiting
 * on /api): the model holding her OAuth access token approved its own write (round 30 review, T30-3).
 */
describe('serve --http: an http.tokens approver and an OAuth client token', () => {
  const APPROVER = 'token-of-alice-approver-0123456789';
  let dir: string;
  let jwks: ServedKeys;
  let team: TeamHarness;

  beforeAll(async () => {
    jwks = await servedKeys();
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: {
        tokens: [{ user: 'alice', role: 'approver', sha256: tokenHash(APPROVER) }],
        oauth: { issuer: ISSUER, jwksUrl: jwks.url, audience: AUDIENCE },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
    jwks?.close();
  });

  function token(sub: string): Promise<string> {
    return new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' }).setIssuer(ISSUER).setSubject(sub).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('5m').sign(jwks.key);
  }

  test("alice's OAuth client token does not answer once she has an approver token; bob's, who has none, answers his own", async () => {
    const oauth = await token('alice');
    expect((await team.api('/api/me', oauth)).body).toEqual({ user: 'alice', role: 'user', approves: false });
    expect((await team.api('/api/me', await token('bob'))).body).toEqual({ user: 'bob', role: 'user', approves: true });
    await selfApprovalRefused(team, dir, oauth, async () => APPROVER, async () => {
      expect((await team.api('/api/rules', oauth, { method: 'DELETE', body: { rule: 'mcp__fs' } })).status).toBe(403);
    });
  }, 120_000);
});

