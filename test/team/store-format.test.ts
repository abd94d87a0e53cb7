import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { tokenHash } from '../../src/team/identity.js';
import { RedisTeamStore } from '../../src/team/redis-store.js';
import { BIN, FS_SERVER, eventually, tempDir, writeConfig } from '../helpers/gateway.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * What the Redis team store holds, read by whoever can read Redis, and replicas of different
 * versions on one store (round 33 review, T33-3 and T33-4; docs/team.md, "Two replicas"). A real
 * redis-server; the built gateway with the real filesystem server and the SDK client.
 */
const KEY = 'k7P1vJr0c2mQx9YbN4sWf6LtH8eZa3Ud5GiR';
const BOB = 'token-of-bob-format-0123456789abc';
const BOB_APPROVER = 'token-of-bob-approver-format-012345';

/** Every string Redis holds under mcp-latch:, keys and values, as one text. */
async function dump(raw: Redis): Promise<string> {
  const out: string[] = [];
  for (const key of await raw.keys('mcp-latch:*')) {
    const type = await raw.type(key);
    out.push(key);
    if (type === 'string') out.push((await raw.get(key)) ?? '');
    else if (type === 'hash') out.push(JSON.stringify(await raw.hgetall(key)));
    else if (type === 'list') out.push(...(await raw.lrange(key, 0, -1)));
    else if (type === 'zset') out.push(...(await raw.zrange(key, '0', '-1')));
  }
  return out.join('\n');
}

describe('a waiting call and its answer in Redis, with store.signingKeyFile', () => {
  let dir: string;
  let redis: TestRedis;
  let team: TeamHarness;
  let raw: Redis;
  let watcher: Redis;
  let monitor: Redis;
  const seen: string[] = [];

  beforeAll(async () => {
    dir = tempDir();
    redis = await startRedis();
    writeFileSync(join(dir, '.team-signing-key'), `${KEY}\n`, { mode: 0o600 });
    raw = new Redis(redis.url);
    // Whoever can read Redis: every command any client sends it, arguments included.
    watcher = new Redis(redis.url);
    monitor = await watcher.monitor();
    monitor.on('monitor', (_time: string, args: string[]) => seen.push(args.join(' ')));
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: { tokens: [{ user: 'bob', sha256: tokenHash(BOB) }, { user: 'bob', role: 'approver', sha256: tokenHash(BOB_APPROVER) }] },
      store: { url: redis.url, signingKeyFile: '.team-signing-key' },
    });
  }, 90_000);

  afterAll(async () => {
    monitor?.disconnect();
    watcher?.disconnect();
    raw?.disconnect();
    await team?.close();
    await redis?.stop();
  });

  test('neither the arguments, the prompt nor the answer\'s note is readable in Redis or on its wire; the person sees them and the call runs', async () => {
    const bob = await teamClient(team.url, BOB);
    try {
      const file = join(dir, 'notes.txt');
      const call = bob.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'password=CorrectHorse-4c1d' } }, undefined, { timeout: 60_000 });
      const pending = await eventually(async () => {
        const listed = (await team.api('/api/pending', BOB_APPROVER)).body.pending as Array<{ id: string; args: { content: string }; message: string }>;
        expect(listed).toHaveLength(1);
        return listed[0]!;
      }, 30_000);
      // The person sees the call whole.
      expect(pending.args.content).toBe('password=CorrectHorse-4c1d');
      const at = await dump(raw);
      expect(at).toContain(`mcp-latch:call:${pending.id}`);
      // Until round 33 the hash's call field held the call's JSON in clear.
      expect(at).not.toContain('CorrectHorse');
      expect(at).not.toContain('notes.txt');
      const answered = await team.api(`/api/pending/${pending.id}`, BOB_APPROVER, { method: 'POST', body: { decision: 'Allow once', note: 'ok-RiverStone-77' } });
      expect(answered.status).toBe(200);
      await call;
      expect(readFileSync(file, 'utf8')).toBe('password=CorrectHorse-4c1d');
      await eventually(() => expect(seen.some((line) => line.includes(pending.id))).toBe(true));
      const wire = seen.join('\n');
      expect(wire).not.toContain('CorrectHorse');
      expect(wire).not.toContain('RiverStone');
      expect(wire).not.toContain('notes.txt');
    } finally {
      await bob.close();
    }
  }, 60_000);
});

describe("the hash's unsigned user field", () => {
  let redis: TestRedis;
  let raw: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });

  afterAll(async () => {
    raw?.disconnect();
    await redis?.stop();
  });

  // Whoever can write Redis could not read a call once it is encrypted (T33-3), but could set the
  // hash's `user` (kept in clear for LIST's filter) to a member's, who then read it on /api/pending.
  test("a call listed for a user is only one whose signed call names that user", async () => {
    const store = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'U1', signingKey: Buffer.from(KEY) });
    const controller = new AbortController();
    try {
      const now = Date.now();
      const call = { id: 'call-of-alice-1', user: 'alice', session: 's1', client: 'c 1', replica: 'U1', server: 'fs', tool: 'write_file', kind: 'write', message: 'm', request: {}, args: { content: 'alice-private' }, choices: ['Allow once', 'Deny'], editable: [], created: new Date(now).toISOString(), deadline: new Date(now + 60_000).toISOString(), retryUntil: null };
      const held = store.hold(call, controller.signal);
      await eventually(async () => expect(await store.list('alice')).toHaveLength(1));
      await raw.hset('mcp-latch:call:call-of-alice-1', 'user', 'bob');
      // Before round 33, bob's list held alice's call, arguments and all.
      expect(await store.list('bob')).toEqual([]);
      expect((await store.list(null)).map((each) => each.user)).toEqual(['alice']);
      controller.abort();
      await held;
    } finally {
      await store.close();
    }
  });
});

describe('replicas of different versions on one store', () => {
  let redis: TestRedis;
  let raw: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });

  afterAll(async () => {
    raw?.disconnect();
    await redis?.stop();
  });

  test('a replica of rounds 25–32 running (its heartbeat names no store format): this one does not start, naming both', async () => {
    // What a replica of round 32 writes (heartbeatValue of that round).
    await raw.set('mcp-latch:replica:R32', '4242 forget:2', 'PX', 60_000);
    try {
      const refused = RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'N1', signingKey: Buffer.from(KEY) });
      await expect(refused).rejects.toThrow(/replica R32 \(pid 4242\) writes store format 2 \(mcp-latch of rounds 25 to 32\), and this replica writes store format 3 \(mcp-latch of round 33 on\).*stop it and upgrade it/);
    } finally {
      await raw.del('mcp-latch:replica:R32');
    }
  });

  test('a store a later version used: this one does not start, naming both; once started, the store and the heartbeat say its format', async () => {
    await raw.set('mcp-latch:version', 'store:4');
    await expect(RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'N2' })).rejects.toThrow(/used by store format 4 \(a later mcp-latch than this one\), and this replica writes store format 3/);
    await raw.set('mcp-latch:version', 'round 99');
    await expect(RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'N2' })).rejects.toThrow(/names no store format/);
    await raw.del('mcp-latch:version');
    const store = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'N2' });
    try {
      expect(await raw.get('mcp-latch:version')).toBe('store:3');
      expect(await raw.get('mcp-latch:replica:N2')).toMatch(/^[0-9]+ store:3 forget:2$/);
      // Another replica of this version starts beside it.
      const other = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'N3' });
      await other.close();
    } finally {
      await store.close();
    }
  });

  test('a replica of round 32 started after this one is named in the log, as an error, until it stops', async () => {
    const log = memoryLogger('warn');
    const store = await RedisTeamStore.connect({ url: redis.url, logger: log.logger, replica: 'N4', heartbeatMs: 300 });
    try {
      await raw.set('mcp-latch:replica:R32b', '4343 forget:2', 'PX', 60_000);
      await eventually(async () => expect(await log.written()).toMatch(/"level":50.*replica R32b \(pid 4343\) writes store format 2 \(mcp-latch of rounds 25 to 32\)/), 10_000);
    } finally {
      await raw.del('mcp-latch:replica:R32b');
      await store.close();
    }
  });

  test('the built gateway does not start beside a replica of round 32, and says why', () => {
    const dir = tempDir();
    const config = writeConfig(dir, { http: { tokens: [{ user: 'bob', sha256: tokenHash(BOB) }] }, store: { url: redis.url } });
    return (async () => {
      await raw.set('mcp-latch:replica:R32c', '4444 forget:2', 'PX', 60_000);
      try {
        const run = spawnSync(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', config], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
        expect(run.status).not.toBe(0);
        expect(run.stderr).toMatch(/replica R32c \(pid 4444\) writes store format 2 \(mcp-latch of rounds 25 to 32\), and this replica writes store format 3/);
      } finally {
        await raw.del('mcp-latch:replica:R32c');
      }
    })();
  }, 90_000);
});
