import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { eventually, tempDir, textOf } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * A shared server's last stderr lines went into the reason every member is shown (a tool error of
 * a call to it while it restarts, tools/list's `_meta`): what it printed while working on bob's
 * call (Node's ENOENT naming his private file) reached alice (round 27 review, P27-7). On the team
 * gateway a member is told only the gateway's sentence; the lines are in the gateway's log for the
 * operator. The built gateway, a fault server whose `crash {stderr}` prints and exits.
 */
const ALICE = 'token-of-alice-shared-stderr-0123';
const BOB = 'token-of-bob-shared-stderr-012345';
const PRIVATE = '/home/bob/private/merger-plan-2027.txt';
let team: TeamHarness;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  team = await startTeam(dir, {
    mcpServers: { f: faultServer('works', join(dir, 'starts')) },
    http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }, { user: 'bob', sha256: tokenHash(BOB) }] },
    permissions: { allow: ['mcp__f'] },
  });
}, 60_000);
afterAll(async () => team?.close());

test("a shared server's stderr, printed during bob's call, is not shown to alice; it is in the gateway's log", { timeout: 60_000 }, async () => {
  const alice = await teamClient(team.url, ALICE);
  const bob = await teamClient(team.url, BOB);
  try {
    expect(textOf(await alice.client.callTool({ name: 'f__echo', arguments: { text: 'hi' } }))).toContain('hi');
    await bob.client.callTool({ name: 'f__crash', arguments: { stderr: `Error: ENOENT: no such file or directory, open '${PRIVATE}'` } }).catch(() => undefined);
    // Alice's call while the server restarts is answered with why it is unavailable, without its stderr.
    const seen = await eventually(async () => {
      const text = textOf(await alice.client.callTool({ name: 'f__echo', arguments: { text: 'again' } }));
      expect(text).toContain('is unavailable: the server exited');
      return text;
    }, 20_000, 50);
    const listed = JSON.stringify(await alice.client.listTools());
    for (const shown of [seen, listed]) expect(shown).not.toContain('merger-plan');
    // The operator has them.
    await eventually(() => expect(team.stderr()).toContain(`its last stderr lines: Error: ENOENT: no such file or directory, open '${PRIVATE}'`), 10_000);
  } finally {
    await alice.close();
    await bob.close();
  }
});
