import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger, silentLogger } from '../../src/log.js';
import { RedisTeamStore } from '../../src/team/redis-store.js';
import type { InteractionAnswer, PendingCall } from '../../src/team/store.js';
import { eventually, ROOT, tempDir } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

/** Two stores on one real redis-server stand for two replicas of the gateway. */
let redis: TestRedis;
let a: RedisTeamStore;
let b: RedisTeamStore;

beforeAll(async () => {
  redis = await startRedis();
  a = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'A' });
  b = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'B' });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
});

function call(store: RedisTeamStore, user = 'alice', tool = 'write_file'): PendingCall {
  const now = Date.now();
  return {
    id: randomBytes(12).toString('base64url'),
    user,
    session: 's1',
    client: 'test-client 1.0.0',
    replica: store.replica,
    server: 'fs',
    tool,
    kind: 'write',
    message: 'write_file /w/a.txt',
    request: { user },
    args: { path: '/w/a.txt', content: 'x' },
    choices: ['Allow once', 'Deny'],
    editable: [],
    created: new Date(now).toISOString(),
    deadline: new Date(now + 3600_000).toISOString(),
    retryUntil: null,
  };
}

function answer(decision: string, by = 'alice'): InteractionAnswer {
  return { decision, by, at: new Date().toISOString() };
}

/** Holds a call on `store` and waits until other replicas see it; `answer` is what the hold resolves with. */
async function held(store: RedisTeamStore, pending: PendingCall, signal = new AbortController().signal): Promise<{ answer: Promise<InteractionAnswer | null> }> {
  const answer = store.hold(pending, signal);
  await eventually(async () => expect(await b.get(pending.id)).not.toBeNull());
  return { answer };
}

describe('RedisTeamStore: an answer through any replica, applied once', () => {
  test('an answer given through B releases the call held on A, with that answer', async () => {
    const pending = call(a);
    const waiting = await held(a, pending);
    expect(await b.get(pending.id)).toEqual(pending);
    expect(await b.decide(pending.id, answer('Allow once'))).toBe('decided');
    expect(await waiting.answer).toMatchObject({ decision: 'Allow once', by: 'alice' });
    expect(await b.decide(pending.id, answer('Deny'))).toBe('settled');
    expect(await a.get(pending.id)).toBeNull();
    expect(await a.decide('no-such-call', answer('Deny'))).toBe('unknown');
  });

  test('two answers racing through A and B, 20 times: exactly one wins, and the call gets the winner', async () => {
    for (let round = 0; round < 20; round += 1) {
      const pending = call(a);
      const waiting = await held(a, pending);
      const [onA, onB] = await Promise.all([a.decide(pending.id, answer('Allow once')), b.decide(pending.id, answer('Deny'))]);
      expect([onA, onB].sort()).toEqual(['decided', 'settled']);
      expect((await waiting.answer)?.decision).toBe(onA === 'decided' ? 'Allow once' : 'Deny');
    }
  });

  test('an answer racing the withdrawal: the call resolves with the answer only if the answer won', async () => {
    for (let round = 0; round < 20; round += 1) {
      const pending = call(a);
      const abort = new AbortController();
      const waiting = await held(a, pending, abort.signal);
      const decided = b.decide(pending.id, answer('Allow once'));
      abort.abort();
      const [outcome, result] = await Promise.all([decided, waiting.answer]);
      if (outcome === 'decided') expect(result?.decision).toBe('Allow once');
      else expect([outcome, result]).toEqual(['settled', null]);
    }
  });

  test('a withdrawn call resolves null and cannot be answered later', async () => {
    const pending = call(a);
    const abort = new AbortController();
    const waiting = await held(a, pending, abort.signal);
    abort.abort();
    expect(await waiting.answer).toBeNull();
    expect(await b.decide(pending.id, answer('Allow once'))).toBe('settled');
    expect(await b.list('alice')).not.toContainEqual(expect.objectContaining({ id: pending.id }));
  });

  test('each person lists their own pending calls, the admin everyone; a changed retry time shows on every replica', async () => {
    const mine = call(a, 'carol', 'one');
    const theirs = call(b, 'dave:x', 'two');
    const waits = [await held(a, mine), await held(b, theirs)];
    expect((await b.list('carol')).map((each) => each.id)).toEqual([mine.id]);
    expect((await a.list('dave:x')).map((each) => each.tool)).toEqual(['two']);
    expect((await a.list(null)).map((each) => each.id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    const retryUntil = new Date(Date.now() + 60_000).toISOString();
    await a.update(mine.id, { retryUntil });
    expect(await b.get(mine.id)).toMatchObject({ retryUntil });
    expect(await b.decide(mine.id, answer('Deny', 'carol'))).toBe('decided');
    expect(await a.decide(theirs.id, answer('Deny', 'dave:x'))).toBe('decided');
    await Promise.all(waits.map((wait) => wait.answer));
    expect(await a.list('carol')).toEqual([]);
  });
});

describe('RedisTeamStore: replicas that stop or die', () => {
  test('a replica killed while its call waits: the call leaves the list, cannot be answered, and nothing runs it', async () => {
    // A third replica in its own process, killed with SIGKILL while its call is held.
    const script = `
      const { RedisTeamStore } = await import(${JSON.stringify(join(ROOT, 'dist/team/redis-store.js'))});
      const { silentLogger } = await import(${JSON.stringify(join(ROOT, 'dist/log.js'))});
      const store = await RedisTeamStore.connect({ url: process.argv[1], logger: silentLogger(), replica: 'C', heartbeatMs: 1500 });
      const call = JSON.parse(process.argv[2]);
      void store.hold(call, new AbortController().signal).then(() => console.log('RELEASED'));
      console.log('HOLDING');
    `;
    const pending = { ...call(a, 'erin'), replica: 'C' };
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, redis.url, JSON.stringify(pending)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await eventually(async () => expect((await b.list('erin')).map((each) => each.id)).toEqual([pending.id]), 30_000);
    // 'close', not 'exit': its stdout is read to the end (on a loaded machine 'exit' came before the data).
    const exited = new Promise((done) => child.once('close', done));
    child.kill('SIGKILL');
    await exited;
    // Once its heartbeat has expired, the call is no longer offered, and an answer is refused.
    await eventually(async () => expect(await b.list('erin')).toEqual([]), 30_000, 200);
    expect(await b.get(pending.id)).toBeNull();
    expect(await b.decide(pending.id, answer('Allow once', 'erin'))).toBe('settled');
    expect(out).toBe('HOLDING\n');
    // Room for its two waits of up to 30 s each and a process's start: within the default 30 s, a
    // loaded machine (load 30-40) failed it though nothing was wrong (round 25's note).
  }, 90_000);

  test('a replica that closes withdraws its held calls first', async () => {
    const c = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'D' });
    const pending = call(c, 'frank');
    const waiting = await held(c, pending);
    await c.close();
    expect(await waiting.answer).toBeNull();
    expect(await a.decide(pending.id, answer('Allow once', 'frank'))).toBe('settled');
  });
});

describe('RedisTeamStore: session grants and remembered rules', () => {
  test('session grants are per user and session, and every replica is told of a change', async () => {
    const told: string[] = [];
    const stop = b.onSessionGrantsChanged((user, session) => told.push(`${user} ${session}`));
    await a.addSessionGrant('alice', 'sess-1', { rules: ['Bash(npm test *)'] }, 1000);
    await a.addSessionGrant('alice', 'sess-1', { digest: 'abc' }, 1000);
    expect(await b.sessionGrants('alice', 'sess-1')).toEqual([{ rules: ['Bash(npm test *)'] }, { digest: 'abc' }]);
    expect(await b.sessionGrants('alice', 'sess-2')).toEqual([]);
    expect(await b.sessionGrants('bob', 'sess-1')).toEqual([]);
    await b.endSession('alice', 'sess-1');
    expect(await a.sessionGrants('alice', 'sess-1')).toEqual([]);
    // Two grants and the end, each published once.
    await eventually(() => expect(told).toEqual(['alice sess-1', 'alice sess-1', 'alice sess-1']));
    stop();
  });

  test('a rule remembered through A is listed through B, and B is told', async () => {
    const told: string[] = [];
    const stop = b.onRulesChanged((user) => void told.push(user));
    expect(await a.remember('gina', ['Edit(/w/**)', 'Bash(ls *)'], 500)).toEqual(['Edit(/w/**)', 'Bash(ls *)']);
    expect(await a.remember('gina', ['Bash(ls *)'], 500)).toEqual([]);
    expect(await b.rememberedRules('gina')).toEqual(['Edit(/w/**)', 'Bash(ls *)']);
    expect(await b.rememberedRules('hank')).toEqual([]);
    await eventually(() => expect(told).toContain('gina'));
    const toldBefore = told.length;
    // Every replica subscribed (A, B, and this file's others) read the rules again before it returns (round 24).
    expect(await b.forget('gina', 'Bash(ls *)')).toEqual({ unconfirmed: 0 });
    expect(told.slice(toldBefore)).toContain('gina');
    expect(await b.forget('gina', 'Read(x)')).toBe(false);
    expect(await a.rememberedRules('gina')).toEqual(['Edit(/w/**)']);
    stop();
  });

  test('signed: a rule remembered on one replica while another forgets one, 10 times, is kept and holds (forget re-signs the set for its next generation)', async () => {
    const key = randomBytes(32);
    const sa = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'SA', signingKey: key });
    const sb = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'SB', signingKey: key });
    try {
      await sa.remember('ivy', ['Edit(/w/0)', 'Edit(/w/keep)'], 500);
      for (let index = 1; index <= 10; index += 1) {
        const [added, forgotten] = await Promise.all([sa.remember('ivy', [`Edit(/w/${index})`], 500), sb.forget('ivy', `Edit(/w/${index - 1})`)]);
        expect([added, forgotten]).toEqual([[`Edit(/w/${index})`], { unconfirmed: 0 }]);
        expect((await sb.rememberedRules('ivy')).sort()).toEqual([`Edit(/w/${index})`, 'Edit(/w/keep)']);
      }
      expect(await sa.rememberedRules('ivy')).toEqual(['Edit(/w/keep)', 'Edit(/w/10)']);
    } finally {
      await sa.close();
      await sb.close();
    }
  });

  test('signed: a replica restarted after a forget still refuses the older set written back, with its generation, by its generations file', async () => {
    const key = randomBytes(32);
    const file = join(tempDir(), '.mcp-latch-rules-generations.json');
    const connect = (replica: string, generationsFile?: string) => RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica, signingKey: key, ...(generationsFile ? { generationsFile } : {}) });
    const raw = new Redis(redis.url);
    try {
      const first = await connect('R1', file);
      await first.remember('jo', ['Edit(/w/a)', 'Edit(/w/b)'], 500);
      const copy = await raw.zrange('mcp-latch:rules:jo', '0', '-1', 'WITHSCORES');
      // A user's first rules start at the clock's generation (round 22 review, R22-1), not at none.
      const copiedGeneration = (await raw.get('mcp-latch:rules:jo:gen'))!;
      expect(copiedGeneration).not.toBeNull();
      expect(await first.forget('jo', 'Edit(/w/a)')).toEqual({ unconfirmed: 0 });
      await first.close();
      const seen = (JSON.parse(readFileSync(file, 'utf8')) as { jo: number }).jo;
      expect(seen).toBeGreaterThan(1);

      // Written back whole: the set as copied, with its generation.
      await raw.del('mcp-latch:rules:jo', 'mcp-latch:rules:jo:gen');
      await raw.zadd('mcp-latch:rules:jo', copy[1]!, copy[0]!, copy[3]!, copy[2]!);
      await raw.set('mcp-latch:rules:jo:gen', copiedGeneration);
      const restarted = await connect('R2', file);
      const fresh = await connect('R3');
      try {
        expect(await restarted.rememberedRules('jo')).toEqual([]);
        await expect(restarted.remember('jo', ['Edit(/w/c)'], 500)).rejects.toThrow('do not verify against store.signingKeyFile');
        // What the file adds: a replica without one takes the older copy.
        expect(await fresh.rememberedRules('jo')).toEqual(['Edit(/w/a)', 'Edit(/w/b)']);
      } finally {
        await restarted.close();
        await fresh.close();
      }

      writeFileSync(file, '{"jo": "x"}');
      await expect(connect('R4', file)).rejects.toThrow('is not a generations file of remembered rules');
    } finally {
      raw.disconnect();
    }
  });
});

describe('RedisTeamStore: whom a forget waits for (round 25)', () => {
  /** A store whose warnings are kept, to read what it logged. */
  async function logged(replica: string): Promise<{ store: RedisTeamStore; lines: () => string }> {
    let text = '';
    const destination = new Writable({ write: (chunk: Buffer, _encoding, next) => ((text += chunk.toString()), next()) });
    const store = await RedisTeamStore.connect({ url: redis.url, logger: createLogger({ level: 'warn', destination }), replica });
    return { store, lines: () => text };
  }

  // Until round 25 a forget waited for as many confirmations as PUBLISH counted subscribers: any
  // other client on the channel (a `redis-cli SUBSCRIBE` left open) made every forget wait 5 s and
  // answer that a replica had not confirmed.
  test('a stray subscriber of mcp-latch:forgotten is not waited for, and is logged', async () => {
    const stray = new Redis(redis.url);
    const { store, lines } = await logged('F1');
    try {
      await stray.subscribe('mcp-latch:forgotten');
      await store.remember('kim', ['Read(/k/**)'], 500);
      expect(await store.forget('kim', 'Read(/k/**)')).toEqual({ unconfirmed: 0 });
      expect(lines()).toContain('did not announce themselves as replicas');
      expect(lines()).not.toContain('not every replica confirmed');
    } finally {
      stray.disconnect();
      await store.close();
    }
  });

  test('a replica announcing the forget protocol is waited for by name; one announcing an older version, or that stopped, is not', async () => {
    const ghost = new Redis(redis.url);
    const older = new Redis(redis.url);
    const gone = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'F-gone' });
    const { store, lines } = await logged('F2');
    try {
      await gone.close();
      await older.subscribe('mcp-latch:hello:1:F-older', 'mcp-latch:forgotten');
      await store.remember('lee', ['Read(/l/a)', 'Read(/l/b)'], 500);
      expect(await store.forget('lee', 'Read(/l/a)')).toEqual({ unconfirmed: 0 });
      // Hears (its hello is listed) but never confirms: stalled, or a replica with its link held.
      await ghost.subscribe('mcp-latch:hello:2:F-ghost');
      expect(await store.forget('lee', 'Read(/l/b)')).toEqual({ unconfirmed: 1 });
      expect(lines()).toMatch(/"replicas":\["F-ghost"\].*not every replica confirmed/);
    } finally {
      ghost.disconnect();
      older.disconnect();
      await store.close();
    }
  }, 30_000);

  // Replicas of before round 25 announce nothing; they are known by their heartbeat, which holds
  // their pid alone. Until round 25 one of before round 24 (it hears mcp-latch:rules only) was told
  // and not waited for: the forget answered that the rule held nowhere while it may still allow it.
  test('a replica of before round 24 (its heartbeat, mcp-latch:rules only) is waited for and counted: it never confirms', async () => {
    const raw = new Redis(redis.url);
    const old = new Redis(redis.url);
    const { store, lines } = await logged('F3');
    try {
      await raw.set('mcp-latch:replica:R23', '4242', 'PX', 60_000);
      await old.subscribe('mcp-latch:rules');
      await store.remember('max', ['Read(/m/**)'], 500);
      expect(await store.forget('max', 'Read(/m/**)')).toEqual({ unconfirmed: 1 });
      expect(lines()).toMatch(/"replicas":\["R23"\].*not every replica confirmed/);
    } finally {
      await raw.del('mcp-latch:replica:R23');
      raw.disconnect();
      old.disconnect();
      await store.close();
    }
  }, 30_000);

  // Round 26: any client that can write Redis could write such a heartbeat, and each forget waited
  // the 5 s for it. A replica known by its heartbeat alone listens on a subscriber of its own: when
  // nothing but the announced replicas heard the forget, it is not waited for, and counted (202).
  test('a heartbeat that nothing subscribed could be (a key another client wrote) is not waited for, and is counted', async () => {
    const raw = new Redis(redis.url);
    const { store, lines } = await logged('F5');
    try {
      await raw.set('mcp-latch:replica:Fake', '4244', 'PX', 60_000);
      await store.remember('ola', ['Read(/o/**)'], 500);
      expect(await store.forget('ola', 'Read(/o/**)')).toEqual({ unconfirmed: 1, unheard: 1 });
      expect(lines()).toMatch(/"replicas":\["Fake"\].*had nothing subscribed that could hear the forget/);
      expect(lines()).not.toContain('not every replica confirmed');
    } finally {
      await raw.del('mcp-latch:replica:Fake');
      raw.disconnect();
      await store.close();
    }
  });

  test("a replica of round 24 (its heartbeat; it confirms by name) is waited for until it has confirmed", async () => {
    const raw = new Redis(redis.url);
    const old = new Redis(redis.url);
    const store = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'F4' });
    let confirmed = false;
    try {
      await raw.set('mcp-latch:replica:R24', '4243', 'PX', 60_000);
      old.on('message', (_channel: string, message: string) => {
        const [, nonce] = JSON.parse(message) as [string, string];
        // Round 24's replica reads the rules again, then confirms; here a little later than the others.
        setTimeout(() => void raw.publish('mcp-latch:rules-applied', JSON.stringify([nonce, 'R24'])).then(() => (confirmed = true)), 300);
      });
      await old.subscribe('mcp-latch:forgotten');
      await store.remember('ned', ['Read(/n/**)'], 500);
      expect(await store.forget('ned', 'Read(/n/**)')).toEqual({ unconfirmed: 0 });
      expect(confirmed).toBe(true);
    } finally {
      await raw.del('mcp-latch:replica:R24');
      raw.disconnect();
      old.disconnect();
      await store.close();
    }
  });
});

describe('RedisTeamStore: a heartbeat that lapsed', () => {
  // Round 20 review, T20-8: Redis flushed or restarted, or a renewal missed, and the list's step
  // dropped the replica's waiting calls from the pending set; the renewed heartbeat never put them
  // back, so they could not be answered and ended at their timeout.
  test('a waiting call dropped from the pending set while its replica had no heartbeat is listed again once it is renewed, and answered', async () => {
    const d = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'D', heartbeatMs: 3000 });
    const raw = new Redis(redis.url);
    try {
      const pending = call(d);
      const answered = d.hold(pending, new AbortController().signal);
      await eventually(async () => expect((await b.list(null)).map((each) => each.id)).toContain(pending.id));
      // What a lapse leaves: no heartbeat key, and the id gone from the set (as LIST removes it).
      await raw.multi().del('mcp-latch:replica:D').zrem('mcp-latch:pending', pending.id).exec();
      await eventually(async () => expect((await b.list(null)).map((each) => each.id)).toContain(pending.id), 10_000);
      expect(await raw.hget(`mcp-latch:call:${pending.id}`, 'state')).toBe('pending');
      expect(await b.decide(pending.id, answer('Allow once'))).toBe('decided');
      expect(await answered).toMatchObject({ decision: 'Allow once' });
    } finally {
      raw.disconnect();
      await d.close();
    }
  }, 30_000);
});
