import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { MAX_SESSION_GRANTS } from '../../src/config/limits.js';
import { silentLogger } from '../../src/log.js';
import type { MatchEnv } from '../../src/policy/match.js';
import { tokenHash } from '../../src/team/identity.js';
import { MemoryTeamStore } from '../../src/team/memory-store.js';
import { RedisTeamStore } from '../../src/team/redis-store.js';
import { StoredSessionGrants } from '../../src/team/session-grants.js';
import type { TeamStore } from '../../src/team/store.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startTeam, teamClient, type TeamClient, type TeamHarness } from '../helpers/team.js';

/**
 * A member's bounds of what the team store keeps hold when answers come at once (round 32 review,
 * T32-1): `http.maxRememberedRulesPerUser` and `MAX_SESSION_GRANTS` were checked by reading the count
 * before the write, so answers given together, on one replica or on two, each read the count from
 * before the others wrote, and every one was kept. Now the store counts in the step that writes (a
 * Lua script in Redis, the config file's queue and lock, one synchronous step in memory).
 */
const B = 'token-of-bob-client-0123456789ab';
const env: MatchEnv = { home: '/home/x', roots: ['/w'], platform: 'linux' };
const noRules = { list: () => [], add: async () => ({ added: [], text: '' }), remove: async () => ({ added: [], text: '' }) };

/** `n` calls of bob, each in a session of its own on one of `replicas` (in turn), all waiting; answered "Always allow" all at once through the first. */
async function alwaysAllowAtOnce(dir: string, replicas: TeamHarness[], n: number): Promise<string[]> {
  const clients: TeamClient[] = [];
  try {
    for (let index = 0; index < n; index += 1) clients.push(await teamClient(replicas[index % replicas.length]!.url, B));
    const calls = clients.map((bob, index) => bob.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, `at-once-${index}.txt`), content: String(index) } }, undefined, { timeout: 120_000 }));
    const api = replicas[0]!;
    const pending = await eventually(async () => {
      const listed = (await api.api('/api/pending', B)).body.pending as Array<{ id: string; choices: string[] }>;
      expect(listed).toHaveLength(n);
      return listed;
    }, 60_000);
    const answers = await Promise.all(pending.map((call) => api.api(`/api/pending/${call.id}`, B, { method: 'POST', body: { decision: call.choices.find((choice) => choice.startsWith('Always allow')) } })));
    for (const answer of answers) expect(answer.status).toBe(200);
    return (await Promise.all(calls)).map((result) => textOf(result));
  } finally {
    await Promise.all(clients.map((bob) => bob.close()));
  }
}

function config(dir: string, store?: { url: string }) {
  return {
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
    workspace: [dir],
    approval: { fallback: 'browser-manual' as const, timeoutSeconds: 120 },
    http: { tokens: [{ user: 'bob', sha256: tokenHash(B) }], maxRememberedRulesPerUser: 2 },
    ...(store ? { store } : {}),
  };
}

describe('http.maxRememberedRulesPerUser with answers given at once', () => {
  const started: TeamHarness[] = [];
  let redis: TestRedis | undefined;

  afterAll(async () => {
    await Promise.all(started.map((team) => team.close()));
    await redis?.stop();
  });

  test('the embedded store: six answers at once keep two rules; the other four hold for their session, saying why', async () => {
    const dir = tempDir();
    const team = await startTeam(dir, config(dir));
    started.push(team);
    const results = await alwaysAllowAtOnce(dir, [team], 6);
    for (const text of results) expect(text).toContain('Successfully wrote');
    // Before round 32: 6 (each answer read 0 or 1 kept before the others wrote).
    const kept = (JSON.parse(readFileSync(team.configPath, 'utf8')) as { users?: { bob?: { permissions?: { allow?: string[] } } } }).users?.bob?.permissions?.allow ?? [];
    expect(kept).toHaveLength(2);
    expect(results.filter((text) => text.includes('it holds only for this session'))).toHaveLength(4);
    expect(results.filter((text) => text.includes('http.maxRememberedRulesPerUser allows 2'))).toHaveLength(4);
  }, 240_000);

  test('two replicas on one Redis: six answers at once, through one API, for calls held on both, keep two rules', async () => {
    const dir = tempDir();
    redis = await startRedis();
    const a = await startTeam(dir, config(dir, { url: redis.url }));
    started.push(a);
    const b = await startTeam(dir, config(dir, { url: redis.url }));
    started.push(b);
    const results = await alwaysAllowAtOnce(dir, [a, b], 6);
    for (const text of results) expect(text).toContain('Successfully wrote');
    expect(((await b.api('/api/rules', B)).body.rules as string[]).length).toBe(2);
    expect(results.filter((text) => text.includes('it holds only for this session'))).toHaveLength(4);
  }, 240_000);
});

describe('MAX_SESSION_GRANTS with grants added at once', () => {
  /** A session's grants on `store`, `MAX_SESSION_GRANTS - 3` kept already; then ten added at once. */
  async function tenAtOnce(stores: TeamStore[], session: string): Promise<number> {
    const [first] = stores;
    await Promise.all(Array.from({ length: MAX_SESSION_GRANTS - 3 }, (_, index) => first!.addSessionGrant('bob', session, { digest: `kept-${index}` }, MAX_SESSION_GRANTS)));
    const books = stores.map((store) => new StoredSessionGrants(store, { user: 'bob', session }, env, silentLogger()));
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, index) => books[index % books.length]!.addCall(`at-once-${index}`)));
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    for (const outcome of refused) expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/"Allow for this session" grants, the most one may \(MAX_SESSION_GRANTS\)/);
    expect(refused).toHaveLength(7);
    return (await first!.sessionGrants('bob', session)).length;
  }

  test('the embedded store keeps the most, not ten past it', async () => {
    // Before round 32: 1,007 (each add read 997 before the others wrote).
    expect(await tenAtOnce([new MemoryTeamStore(noRules)], 's1')).toBe(MAX_SESSION_GRANTS);
  });

  test('Redis, from two replicas, keeps the most', async () => {
    const server = await startRedis();
    const a = await RedisTeamStore.connect({ url: server.url, logger: silentLogger(), replica: 'A' });
    const b = await RedisTeamStore.connect({ url: server.url, logger: silentLogger(), replica: 'B' });
    try {
      expect(await tenAtOnce([a, b], 's1')).toBe(MAX_SESSION_GRANTS);
    } finally {
      await a.close();
      await b.close();
      await server.stop();
    }
  }, 60_000);
});
