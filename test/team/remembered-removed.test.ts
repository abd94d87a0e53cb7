import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * With the embedded store a member's remembered rules are the config's `users.<id>.permissions.allow`
 * (docs/team.md, "Per-user rules"). Until round 20 each user's copy of them was read again only on
 * an API forget, a remember or a new session of theirs, so a rule the operator removed from the
 * file kept allowing in every session already open (round 20 review, T20-7: alice's next write ran
 * unasked after the reload). The built gateway, the SDK client, the real filesystem server.
 */
const ALICE = 'token-of-alice-client-0123456789';
const ALICE_APPROVER = 'token-of-alice-approver-01234567';

describe('serve --http, embedded store: a remembered rule removed from the config', () => {
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
          { user: 'alice', sha256: tokenHash(ALICE) },
          { user: 'alice', role: 'approver', sha256: tokenHash(ALICE_APPROVER) },
        ],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  async function waiting(): Promise<Array<{ id: string; choices: string[]; args: { content: string } }>> {
    return (await team.api('/api/pending', ALICE_APPROVER)).body.pending;
  }

  test('asks again in the session that was open when it was removed', async () => {
    const alice = await teamClient(team.url, ALICE);
    try {
      const file = join(dir, 'note.txt');
      const write = (content: string) => alice.client.callTool({ name: 'fs__write_file', arguments: { path: file, content } }, undefined, { timeout: 90_000 });
      const first = write('one');
      const asked = await eventually(async () => {
        const [call] = await waiting();
        expect(call).toBeDefined();
        return call!;
      }, 30_000);
      const always = asked.choices.find((choice) => choice.startsWith('Always allow'))!;
      expect((await team.api(`/api/pending/${asked.id}`, ALICE_APPROVER, { method: 'POST', body: { decision: always } })).status).toBe(200);
      expect(textOf(await first)).toContain('Successfully wrote');
      const config = JSON.parse(readFileSync(team.configPath, 'utf8'));
      expect(config.users.alice.permissions.allow).toHaveLength(1);
      expect(textOf(await write('two'))).toContain('Successfully wrote');

      // The operator removes it from the file; the gateway reloads it. Waited for by what the
      // gateway holds (the rules in force, round 24), not by counting "config reloaded" lines:
      // the "Always allow" write's own reload could be logged after the count was taken and be
      // taken for this one (round 23's flake under load: the third call ran under the old file).
      config.users.alice.permissions.allow = [];
      writeFileSync(team.configPath, JSON.stringify(config, null, 2));
      await eventually(async () => expect((await team.api('/api/rules', ALICE_APPROVER)).body.rules).toEqual([]), 20_000);

      const third = write('three');
      third.catch(() => undefined);
      const again = await eventually(async () => {
        const call = (await waiting()).find((each) => each.args.content === 'three');
        expect(call).toBeDefined();
        return call!;
      }, 30_000);
      expect(readFileSync(file, 'utf8')).toBe('two');
      expect((await team.api(`/api/pending/${again.id}`, ALICE_APPROVER, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
      expect(textOf(await third)).toMatch(/^Denied by mcp-latch/);
      expect(readFileSync(file, 'utf8')).toBe('two');
    } finally {
      await alice.close();
    }
  }, 150_000);
});
