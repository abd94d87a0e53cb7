import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * Round 22 review (R22-1): after Redis lost a user's remembered rules, ace061b started them one
 * generation past the newest *the remembering replica* had seen, and a replica that had seen none
 * (it never served the user before the loss) wrote them with no generation at all. Another replica
 * that had seen a later generation then took the new set for one written back from a copy: none of
 * the user's rules held there, and each "Always allow" through it failed, for good. Two replicas
 * on two hosts (a config folder each, so a generations file each), one real redis-server, signed.
 */
const X = 'token-of-xavier-lossrep-0123456789';
const KEY = 'k7P1vJr0c2mQx9YbN4sWf6LtH8eZa3Ud5GiR\n';

describe('two replicas on one signed Redis store that lost its rules', () => {
  let root: string;
  let redis: TestRedis;
  let a: TeamHarness;
  let b: TeamHarness;
  let raw: Redis;
  let start: (name: string) => Promise<TeamHarness>;

  beforeAll(async () => {
    root = tempDir();
    redis = await startRedis();
    start = (name: string) => {
      const dir = join(root, name);
      mkdirSync(dir);
      writeFileSync(join(dir, '.team-signing-key'), KEY, { mode: 0o600 });
      return startTeam(dir, {
        mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, root] } },
        workspace: [root],
        approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
        http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }] },
        store: { url: redis.url, signingKeyFile: '.team-signing-key' },
      });
    };
    a = await start('host-a');
    raw = new Redis(redis.url);
  }, 90_000);

  afterAll(async () => {
    raw?.disconnect();
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  /** xavier's write of `file` on `replica`, answered "Always allow" there; the rule it remembers. */
  async function always(replica: TeamHarness, file: string): Promise<string> {
    const x = await teamClient(replica.url, X);
    try {
      const call = x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'written' } }, undefined, { timeout: 60_000 });
      call.catch(() => undefined);
      const pending = await eventually(async () => {
        const listed = (await replica.api('/api/pending', X)).body.pending as Array<{ id: string; choices: string[]; args: { path: string } }>;
        const mine = listed.find((each) => each.args.path === file);
        expect(mine).toBeDefined();
        return mine!;
      }, 30_000);
      const choice = pending.choices.find((each) => each.startsWith('Always allow'))!;
      expect((await replica.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: choice } })).status).toBe(200);
      expect(textOf(await call)).toContain('Successfully wrote');
    } finally {
      await x.close();
    }
    return `Edit(${file})`;
  }

  test('a rule remembered through a replica that had seen an older generation holds on the one that saw a newer', async () => {
    // On A: remembered and forgotten, so A has seen generation 1.
    const first = await always(a, join(root, 'first.txt'));
    expect((await a.api('/api/rules', X, { method: 'DELETE', body: { rule: first } })).status).toBe(200);
    expect((await a.api('/api/rules', X)).body.rules).toEqual([]);

    await raw.flushall();
    // A replica on another host started since (scaled out, or replaced): it has seen no generation of xavier's.
    b = await start('host-b');
    // A's heartbeat went with the rest: calls are listed once both are renewed.
    await eventually(async () => expect(await raw.keys('mcp-latch:replica:*')).toHaveLength(2), 20_000);

    const file = join(root, 'after-loss.txt');
    const rule = await always(b, file);
    expect((await b.api('/api/rules', X)).body.rules).toEqual([rule]);
    // On A too: the rule holds, and a write under it runs unasked.
    await eventually(async () => expect((await a.api('/api/rules', X)).body.rules).toEqual([rule]), 10_000);
    const x = await teamClient(a.url, X);
    try {
      expect(textOf(await x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'again' } }))).toContain('Successfully wrote');
    } finally {
      await x.close();
    }
    expect(a.stderr()).not.toContain('of an older generation than this replica has seen');
    // And A can remember one too.
    const second = await always(a, join(root, 'second.txt'));
    await eventually(async () => expect(((await b.api('/api/rules', X)).body.rules as string[]).sort()).toEqual([rule, second].sort()), 10_000);
  }, 120_000);
});
