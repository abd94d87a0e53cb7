import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { ROOT, tempDir } from '../helpers/gateway.js';
import { startTeam, teamClient } from '../helpers/team.js';

/**
 * Round 26 review P5 on the team gateway: bob's `resources/read` of `" file://<team config>"` (a
 * leading blank, which the server's URL parser removes) read the team config past the built-in
 * protection, and `" file://<audit>"` alice's records. Refused now, naming the blank, and nothing
 * reaches the server (test/gateway/uri-spelling.test.ts has every spelling).
 */
const SERVER = join(ROOT, 'test/fixtures/url-files-server.mjs');
const A = 'token-of-alice-uri26-0123456789abcdef';
const B = 'token-of-bob-uri26-0123456789abcdef00';

test("a member's read of the team config or audit written with a leading blank is refused before the server", async () => {
  const dir = tempDir('uri-spelling-team-');
  const log = join(dir, 'server.jsonl');
  writeFileSync(join(dir, 'README.md'), 'readme');
  writeFileSync(join(dir, 'notes.txt'), 'plain notes');
  const team = await startTeam(dir, {
    mcpServers: { files: { command: process.execPath, args: [SERVER], cwd: dir, env: { URL_FILES_LOG: log } } },
    workspace: [dir],
    http: { tokens: [{ user: 'alice', sha256: tokenHash(A) }, { user: 'bob', sha256: tokenHash(B) }] },
    permissions: { allow: ['mcp__files'] },
  });
  const alice = await teamClient(team.url, A);
  const bob = await teamClient(team.url, B);
  try {
    const notes = await alice.client.readResource({ uri: `file://${join(dir, 'notes.txt')}` });
    expect((notes.contents[0] as { text: string }).text).toBe('plain notes');
    for (const file of [team.configPath, join(dir, 'mcp-latch-audit.jsonl')]) {
      await expect(bob.client.readResource({ uri: `file://${file}` })).rejects.toMatchObject({ code: -32600, message: expect.stringContaining('a secret of the gateway') });
      for (const uri of [` file://${file}`, `\tfile://${file}`, `fi\nle://${file}`]) {
        await expect(bob.client.readResource({ uri }), JSON.stringify(uri)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('is not written as it is read') });
      }
    }
    const reached = readFileSync(log, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { uri: string }).uri);
    expect(reached).toEqual([`file://${join(dir, 'notes.txt')}`]);
  } finally {
    await Promise.all([alice.close(), bob.close()]);
    await team.close();
  }
}, 120_000);
