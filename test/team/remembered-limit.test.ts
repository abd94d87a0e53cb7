import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamClient, type TeamHarness } from '../helpers/team.js';

/**
 * A member's remembered rules are bounded (http.maxRememberedRulesPerUser; docs/team.md#per-user-rules):
 * each "Always allow" is written into the config's text (the embedded store) or the team store and
 * read again, for every member, at each change. Until round 31 nothing bounded them (round 31 review,
 * T31-4): a member answering "Always allow" to calls of new paths grew the shared config without end.
 * Past the bound the answer allows the call and holds for the session only, saying why.
 */
const B = 'token-of-bob-client-0123456789ab';

describe('serve --http: http.maxRememberedRulesPerUser', () => {
  let dir: string;
  let team: TeamHarness;
  let bob: TeamClient;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: { tokens: [{ user: 'bob', sha256: tokenHash(B) }], maxRememberedRulesPerUser: 2 },
    });
    bob = await teamClient(team.url, B);
  }, 60_000);

  afterAll(async () => {
    await bob?.close();
    await team?.close();
  });

  /** bob writes `name`, and answers the call's "Always allow" through the API. */
  async function alwaysAllow(name: string): Promise<string> {
    const call = bob.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, name), content: name } }, undefined, { timeout: 60_000 });
    const pending = await eventually(async () => {
      const listed = (await team.api('/api/pending', B)).body.pending as Array<{ id: string; choices: string[] }>;
      expect(listed).toHaveLength(1);
      return listed[0]!;
    }, 30_000);
    const always = pending.choices.find((choice) => choice.startsWith('Always allow'));
    expect(always).toBeDefined();
    expect((await team.api(`/api/pending/${pending.id}`, B, { method: 'POST', body: { decision: always } })).status).toBe(200);
    return textOf(await call);
  }

  const kept = () => (JSON.parse(readFileSync(team.configPath, 'utf8')) as { users?: { bob?: { permissions?: { allow?: string[] } } } }).users?.bob?.permissions?.allow ?? [];

  test('past the bound, "Always allow" runs the call and holds for the session only, naming the key; nothing more is kept', async () => {
    for (const name of ['a.txt', 'b.txt']) expect(await alwaysAllow(name)).toContain('Successfully wrote');
    expect(kept()).toHaveLength(2);
    // Before round 31 this one was kept too (3 rules, and a fourth, fifth… each rewriting the config).
    const third = await alwaysAllow('c.txt');
    expect(third).toContain('Successfully wrote');
    expect(third).toContain('it holds only for this session');
    expect(third).toContain('http.maxRememberedRulesPerUser allows 2');
    expect(kept()).toHaveLength(2);
    expect(((await team.api('/api/rules', B)).body.rules as string[]).length).toBe(2);
    // The session grant holds: the same call again runs unasked.
    expect(textOf(await bob.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'c.txt'), content: 'again' } }))).toContain('Successfully wrote');
  });
});
