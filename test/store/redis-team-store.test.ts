import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { RedisTeamStore, type StoredAnswer } from '../../src/store/redis-team-store.js';
import { eventually, ROOT } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

/** Two stores on one real redis-server stand for two replicas of the gateway. */
let redis: TestRedis;
let a: RedisTeamStore;
let b: RedisTeamStore;

beforeAll(async () => {
  redis = await startRedis();
  a = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger() });
  b = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger() });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
});

const HOUR = 3600_000;

function pending(store: RedisTeamStore, user = 'alice', data: Record<string, unknown> = { tool: 'write_file' }) {
  return store.addPending({ user, session: 's1', deadline: Date.now() + HOUR, data });
}

describe('RedisTeamStore: answers any replica can give, taken once', () => {
  test('an answer given through B releases the call waiting on A, with that answer', async () => {
    const call = await pending(a);
    const waiting = a.wait(call.id, 'alice', new AbortController().signal);
    expect(await b.answer(call.id, 'alice', { decision: 'once', by: 'alice' })).toEqual({ ok: true });
    expect(await waiting).toEqual({ decision: 'once', by: 'alice' });
    // Taken: nothing is left to answer.
    expect(await b.answer(call.id, 'alice', { decision: 'deny' })).toEqual({ ok: false, reason: 'missing' });
  });

  test('two answers racing through A and B: exactly one wins, and the call gets the winner', async () => {
    for (let round = 0; round < 20; round += 1) {
      const call = await pending(a);
      const waiting = a.wait(call.id, 'alice', new AbortController().signal);
      const [first, second] = await Promise.all([a.answer(call.id, 'alice', { from: 'A' }), b.answer(call.id, 'alice', { from: 'B' })]);
      const winners = [first, second].filter((result) => result.ok);
      expect(winners).toHaveLength(1);
      expect([first, second].find((result) => !result.ok)).toEqual({ ok: false, reason: expect.stringMatching(/^(answered|missing)$/) });
      const answer = await waiting;
      expect(answer).toEqual(first.ok ? { from: 'A' } : { from: 'B' });
    }
  });

  test('an answer given before the replica started waiting is still delivered', async () => {
    const call = await pending(a);
    expect((await b.answer(call.id, 'alice', { decision: 'once' })).ok).toBe(true);
    expect(await a.wait(call.id, 'alice', new AbortController().signal)).toEqual({ decision: 'once' });
  });

  test('only the replica holding the call can take its answer', async () => {
    const call = await pending(a);
    const stolen = new AbortController();
    const onB = b.wait(call.id, 'alice', stolen.signal);
    const onA = a.wait(call.id, 'alice', new AbortController().signal);
    expect((await b.answer(call.id, 'alice', { decision: 'once' })).ok).toBe(true);
    expect(await onA).toEqual({ decision: 'once' });
    stolen.abort();
    expect(await onB).toBeNull();
  });

  test('a withdrawn call (cancelled, timed out) resolves null and cannot be answered later', async () => {
    const call = await pending(a);
    const abort = new AbortController();
    const waiting = a.wait(call.id, 'alice', abort.signal);
    abort.abort();
    expect(await waiting).toBeNull();
    expect(await b.answer(call.id, 'alice', { decision: 'once' })).toEqual({ ok: false, reason: 'missing' });
    expect(await b.getPending(call.id)).toBeNull();
  });

  test('each person lists their own pending calls; the admin view lists all', async () => {
    const mine = await pending(a, 'carol', { tool: 'one' });
    const theirs = await pending(b, 'dave:x', { tool: 'two' });
    expect((await b.listPending('carol')).map((call) => call.id)).toEqual([mine.id]);
    expect(await a.listPending('dave:x')).toEqual([expect.objectContaining({ id: theirs.id, user: 'dave:x', session: 's1', data: { tool: 'two' } })]);
    const all = (await a.listPending(null)).map((call) => call.id);
    expect(all).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    expect(await b.getPending(mine.id)).toMatchObject({ user: 'carol', replica: a.replica });
    for (const call of [mine, theirs]) expect((await a.answer(call.id, call.user, { decision: 'deny' })).ok).toBe(true);
    expect(await a.listPending('carol')).toEqual([]);
  });
});

describe('RedisTeamStore: a replica that dies', () => {
  test('its waiting call leaves the list, cannot be answered, and nothing takes it later', async () => {
    // A third replica in its own process, killed with SIGKILL while its call waits.
    const script = `
      const { RedisTeamStore } = await import(${JSON.stringify(join(ROOT, 'dist/store/redis-team-store.js'))});
      const { silentLogger } = await import(${JSON.stringify(join(ROOT, 'dist/log.js'))});
      const store = await RedisTeamStore.connect({ url: process.argv[1], logger: silentLogger(), heartbeatMs: 1500 });
      const call = await store.addPending({ user: 'erin', session: 's9', deadline: Date.now() + 3600000, data: {} });
      void store.wait(call.id, 'erin', new AbortController().signal).then(() => console.log('RELEASED'));
      console.log(call.id);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, redis.url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const id = await eventually(() => {
      const line = out.split('\n')[0]!;
      if (!out.includes('\n')) throw new Error('not yet');
      return line;
    }, 30_000);
    expect((await b.listPending('erin')).map((call) => call.id)).toEqual([id]);
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
    // Once its heartbeat has expired, the call is no longer offered, and an answer is refused.
    await eventually(async () => expect(await b.listPending('erin')).toEqual([]), 30_000, 200);
    expect((await b.answer(id, 'erin', { decision: 'once' })).ok).toBe(false);
    expect(await b.listPending(null)).not.toContainEqual(expect.objectContaining({ id }));
    expect(out).not.toContain('RELEASED');
  });

  test('a replica that stops withdraws its waiting calls first', async () => {
    const c = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger() });
    const call = await pending(c, 'frank');
    const waiting = c.wait(call.id, 'frank', new AbortController().signal);
    await c.close();
    expect(await waiting).toBeNull();
    expect(await a.answer(call.id, 'frank', { decision: 'once' })).toEqual({ ok: false, reason: 'missing' });
  });
});

describe('RedisTeamStore: grants and remembered rules', () => {
  test('session grants are per user and session', async () => {
    await a.addGrant('alice', 'sess-1', { type: 'rule', rule: 'Bash(npm test *)' });
    await a.addGrant('alice', 'sess-1', { type: 'call', digest: 'abc' });
    expect(await b.grants('alice', 'sess-1')).toEqual(expect.arrayContaining([{ type: 'rule', rule: 'Bash(npm test *)' }, { type: 'call', digest: 'abc' }]));
    expect(await b.grants('alice', 'sess-2')).toEqual([]);
    expect(await b.grants('bob', 'sess-1')).toEqual([]);
    await b.dropSession('alice', 'sess-1');
    expect(await a.grants('alice', 'sess-1')).toEqual([]);
  });

  test('a rule remembered through A is listed through B, and B is told', async () => {
    const told: string[] = [];
    const stop = b.onRulesChanged((user) => told.push(user));
    expect(await a.addRules('gina', 'allow', ['Edit(/w/**)', 'Bash(ls *)'])).toEqual(['Edit(/w/**)', 'Bash(ls *)']);
    expect(await a.addRules('gina', 'allow', ['Bash(ls *)'])).toEqual([]);
    expect(await b.rules('gina')).toEqual({ allow: ['Edit(/w/**)', 'Bash(ls *)'], ask: [], deny: [] });
    expect(await b.rules('hank')).toEqual({ allow: [], ask: [], deny: [] });
    expect(await b.ruleUsers()).toContain('gina');
    await eventually(() => expect(told).toContain('gina'));
    expect(await b.removeRules('gina', 'allow', ['Bash(ls *)', 'Read(x)'])).toEqual(['Bash(ls *)']);
    expect((await a.rules('gina')).allow).toEqual(['Edit(/w/**)']);
    stop();
  });
});

export type { StoredAnswer };
