import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * The approver's credential is not the client's (docs/team.md#approvers). Until round 13 the token
 * an MCP client sends also answered that user's waiting calls through /api, so a model that read it
 * (from the client's config, with a shell tool the gateway does not decide) approved its own calls.
 * Now a user with an `approver` token answers only with it; a user without one keeps the old
 * behaviour, and the gateway warns about them at start. The built gateway, the SDK client, the real
 * filesystem server.
 */
const X = 'token-of-xavier-client-0123456789';
const X_APPROVER = 'token-of-xavier-approver-012345';
const Y = 'token-of-yvonne-client-0123456789';

describe('serve --http: approver tokens', () => {
  let dir: string;
  let team: TeamHarness;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: {
        tokens: [
          { user: 'xavier', sha256: tokenHash(X) },
          { user: 'xavier', role: 'approver', sha256: tokenHash(X_APPROVER) },
          { user: 'yvonne', sha256: tokenHash(Y) },
        ],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  /** A write that asks and waits in the store (the client shows no forms); resolves with its pending id. */
  async function waiting(token: string, user: string, file: string) {
    const x = await teamClient(team.url, token);
    const call = x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: `written for ${user}` } }, undefined, { timeout: 60_000 });
    const pending = await eventually(async () => {
      const listed = (await team.api('/api/pending', token)).body.pending as Array<{ id: string }>;
      expect(listed).toHaveLength(1);
      return listed[0]!;
    }, 30_000);
    return { client: x, call, id: pending.id };
  }

  test("the client's token of a user with an approver token cannot answer that user's call; the approver's can", async () => {
    const file = join(dir, 'xavier.txt');
    const { client, call, id } = await waiting(X, 'xavier', file);
    try {
      const refused = await team.api(`/api/pending/${id}`, X, { method: 'POST', body: { decision: 'Allow once' } });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toContain("answer with xavier's approver credential");
      expect((await team.api('/api/rules', X, { method: 'DELETE', body: { rule: 'mcp__fs' } })).status).toBe(403);
      expect(existsSync(file)).toBe(false);

      // The approver token reads and answers xavier's calls, and is who /api/me says.
      expect((await team.api('/api/me', X_APPROVER)).body).toEqual({ user: 'xavier', role: 'approver', approves: true });
      expect((await team.api(`/api/pending/${id}`, X_APPROVER)).body).toMatchObject({ id, user: 'xavier' });
      expect((await team.api(`/api/pending/${id}`, X_APPROVER, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
      expect(textOf(await call)).toContain('Successfully wrote');
      expect(readFileSync(file, 'utf8')).toBe('written for xavier');
    } finally {
      await client.close();
    }
  });

  test('an approver token makes no MCP calls', async () => {
    await expect(teamClient(team.url, X_APPROVER)).rejects.toThrow(/approver credential of xavier/);
  });

  test('a user with no approver token answers with the client token, as before, and the start log names that user', async () => {
    expect(team.stderr()).toContain('http.tokens: yvonne has no approver token');
    expect(team.stderr()).not.toMatch(/http\.tokens: [^"]*xavier/);
    const file = join(dir, 'yvonne.txt');
    const { client, call, id } = await waiting(Y, 'yvonne', file);
    try {
      expect((await team.api(`/api/pending/${id}`, X_APPROVER, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(403);
      expect((await team.api(`/api/pending/${id}`, Y, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
      expect(textOf(await call)).toContain('Successfully wrote');
    } finally {
      await client.close();
    }
  });
});
