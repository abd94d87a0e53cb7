import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * A client token removed from http.tokens (it leaked) ends what it had open (round 32 review, T32-3;
 * docs/team.md#identity). Until round 32 only its event stream was ended: the calls its holder had
 * made stayed waiting in its session, or its 2026-07-28 POST, and the person's approver credential,
 * still valid, answered one "Allow once" that ran on disk. Now the session is closed (its calls
 * withdrawn, never run) and the POST ended, at the reload that removes the token.
 */
const LEAKED = 'token-of-bob-client-leaked-0123456';
const APPROVER = 'token-of-bob-approver-0123456789';
const ALICE = 'token-of-alice-client-0123456789';

describe('serve --http: what a revoked client token had open', () => {
  let dir: string;
  let team: TeamHarness;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 120 },
      http: {
        tokens: [
          { user: 'bob', sha256: tokenHash(LEAKED) },
          { user: 'bob', role: 'approver', sha256: tokenHash(APPROVER) },
          { user: 'alice', sha256: tokenHash(ALICE) },
        ],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  async function pendingOf(token: string, count: number) {
    return eventually(async () => {
      const listed = (await team.api('/api/pending', token)).body.pending as Array<{ id: string; args: { path: string } }>;
      expect(listed).toHaveLength(count);
      return listed;
    }, 30_000);
  }

  async function revoke(sha256: string): Promise<void> {
    const reloads = () => (team.stderr().match(/config reloaded/g) ?? []).length;
    const before = reloads();
    const config = JSON.parse(readFileSync(team.configPath, 'utf8'));
    config.http.tokens = config.http.tokens.filter((entry: { sha256: string }) => entry.sha256 !== sha256);
    writeFileSync(team.configPath, JSON.stringify(config, null, 2));
    await eventually(() => expect(reloads()).toBeGreaterThan(before), 20_000);
  }

  test("a session's waiting call and a 2026-07-28 request's are withdrawn at the reload that removes the token; an approval after runs nothing", async () => {
    const inSession = join(dir, 'by-the-leaked-token.txt');
    const stateless = join(dir, 'by-the-leaked-token-2026.txt');
    const alicesFile = join(dir, 'alice.txt');
    const thief = await teamClient(team.url, LEAKED);
    const alice = await teamClient(team.url, ALICE);
    try {
      // Its client is not answered (its response ends with the session): nothing awaits it.
      thief.client.callTool({ name: 'fs__write_file', arguments: { path: inSession, content: 'x' } }, undefined, { timeout: 120_000 }).catch(() => undefined);
      const modern = fetch(team.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${LEAKED}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'fs__write_file' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'm1', method: 'tools/call', params: { name: 'fs__write_file', arguments: { path: stateless, content: 'y' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
      }).then(
        (response) => response.text(),
        () => 'ended',
      );
      const alices = alice.client.callTool({ name: 'fs__write_file', arguments: { path: alicesFile, content: 'a' } }, undefined, { timeout: 120_000 });
      const pending = await pendingOf(APPROVER, 2);
      await pendingOf(ALICE, 1);

      await revoke(tokenHash(LEAKED));
      // Before round 32 both stayed listed, and each "Allow once" below was answered 200 and ran.
      await pendingOf(APPROVER, 0);
      for (const call of pending) expect((await team.api(`/api/pending/${call.id}`, APPROVER, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(404);
      await modern;
      expect(existsSync(inSession)).toBe(false);
      expect(existsSync(stateless)).toBe(false);
      expect(team.stderr()).toMatch(/"user":"bob".*client session closed: the credential it last used is no longer accepted/);
      expect((await team.api('/api/me', LEAKED)).status).toBe(401);

      // Alice's session and waiting call are not touched.
      const [hers] = await pendingOf(ALICE, 1);
      expect((await team.api(`/api/pending/${hers!.id}`, ALICE, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
      expect((await alices).isError).toBeFalsy();
      expect(readFileSync(alicesFile, 'utf8')).toBe('a');
    } finally {
      await thief.close();
      await alice.close();
    }
  }, 120_000);
});
