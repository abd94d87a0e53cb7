import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * With `store.signingKeyFile`, what a team gateway keeps in Redis is signed with a key Redis does
 * not have: an answer, a remembered rule or a session grant written straight into Redis (as whoever
 * holds the Redis password can: round 12 review, F1) is taken as absent and logged. Before round
 * 13, `HSET call:<id> state answered answer …` + `PUBLISH` ran xavier's waiting call, and `ZADD
 * rules:xavier mcp__fs__write_file` let his next write through unasked. The built gateway, a real
 * redis-server, the real filesystem server, the SDK client.
 */
const X = 'token-of-xavier-signing-0123456789';

describe('serve --http with store.signingKeyFile', () => {
  let dir: string;
  let redis: TestRedis;
  let team: TeamHarness;
  let raw: Redis;

  beforeAll(async () => {
    dir = tempDir();
    redis = await startRedis();
    writeFileSync(join(dir, '.team-signing-key'), 'k7P1vJr0c2mQx9YbN4sWf6LtH8eZa3Ud5GiR\n', { mode: 0o600 });
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }] },
      store: { url: redis.url, signingKeyFile: '.team-signing-key' },
    });
    raw = new Redis(redis.url);
  }, 90_000);

  afterAll(async () => {
    raw?.disconnect();
    await team?.close();
    await redis?.stop();
  });

  /** A write by xavier that asks and waits in the store; its pending entry once listed. */
  async function waiting(file: string) {
    const x = await teamClient(team.url, X);
    const call = x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'written' } }, undefined, { timeout: 60_000 });
    call.catch(() => undefined);
    const pending = await eventually(async () => {
      const listed = (await team.api('/api/pending', X)).body.pending as Array<{ id: string; session: string; args: { path: string } }>;
      const mine = listed.find((each) => each.args.path === file);
      expect(mine).toBeDefined();
      return mine!;
    }, 30_000);
    return { x, call, pending };
  }

  test('an answer written into Redis, not signed by a replica, releases nothing; the call ends unanswered and the log says why', async () => {
    const file = join(dir, 'forged-answer.txt');
    const { x, call, pending } = await waiting(file);
    try {
      await raw.hset(`mcp-latch:call:${pending.id}`, 'state', 'answered', 'answer', JSON.stringify({ decision: 'Allow once', by: 'xavier', at: new Date().toISOString() }));
      await raw.publish('mcp-latch:answered', pending.id);
      expect(textOf(await call)).toContain('Denied by mcp-latch: the approval prompt was dismissed without an answer');
      expect(existsSync(file)).toBe(false);
      await eventually(() => expect(team.stderr()).toContain('does not verify against store.signingKeyFile'), 10_000);
    } finally {
      await x.close();
    }
  });

  test("the key is no tool's to read, and a gateway with it does not warn that Redis is unsigned", async () => {
    const x = await teamClient(team.url, X);
    try {
      const key = join(dir, '.team-signing-key');
      expect(textOf(await x.client.callTool({ name: 'fs__read_text_file', arguments: { path: key } }))).toContain(`Denied by mcp-latch: the rule built-in protection of ${key} (a secret of the gateway)`);
      // Nor may a tool lower the generations of remembered rules this replica keeps (docs/team.md, "Forgetting is final").
      const generations = join(dir, '.mcp-latch-rules-generations.json');
      expect(textOf(await x.client.callTool({ name: 'fs__write_file', arguments: { path: generations, content: '{}' } }))).toContain(`Denied by mcp-latch: the rule built-in protection of ${generations}`);
      expect(team.stderr()).not.toContain('are not signed');
    } finally {
      await x.close();
    }
  });

  test("a rule or a session grant written into Redis does not hold: xavier's next write still asks, and a signed answer runs it", async () => {
    await raw.zadd('mcp-latch:rules:xavier', 1, 'mcp__fs__write_file');
    await raw.publish('mcp-latch:rules', 'xavier');
    expect((await team.api('/api/rules', X)).body.rules).toEqual([]);

    const first = join(dir, 'after-forged-rule.txt');
    const { x, call, pending } = await waiting(first);
    try {
      await raw.rpush(`mcp-latch:grants:xavier:${encodeURIComponent(pending.session)}`, JSON.stringify({ rules: ['mcp__fs__write_file'] }));
      await raw.publish('mcp-latch:grants', JSON.stringify(['xavier', pending.session]));
      // The answer the API gives is signed by the replica: it runs the call.
      expect((await team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
      expect(textOf(await call)).toContain('Successfully wrote');

      // Same session, after the forged grant: still asks.
      const second = join(dir, 'after-forged-grant.txt');
      const next = x.client.callTool({ name: 'fs__write_file', arguments: { path: second, content: 'written' } }, undefined, { timeout: 60_000 });
      next.catch(() => undefined);
      await eventually(async () => expect((await team.api('/api/pending', X)).body.pending.map((each: { args: { path: string } }) => each.args.path)).toEqual([second]), 30_000);
      expect(existsSync(second)).toBe(false);
    } finally {
      await x.close();
    }
  });

  test('a forgotten rule written back (its old signed value) does not hold, nor the whole set written back with its generation; the rules kept still do', async () => {
    // Two "Always allow" answers, by the person through the API.
    const always = async (name: string) => {
      const file = join(dir, name);
      const { x, call, pending } = await waiting(file);
      try {
        const choice = (pending as unknown as { choices: string[] }).choices.find((each) => each.startsWith('Always allow'))!;
        expect(choice).toBe(`Always allow: Edit(${file})`);
        expect((await team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: choice } })).status).toBe(200);
        expect(textOf(await call)).toContain('Successfully wrote');
      } finally {
        await x.close();
      }
      return `Edit(${file})`;
    };
    const forgotten = await always('forgotten.txt');
    const kept = await always('kept.txt');
    // What whoever can read Redis copies now (a backup, a replica, MONITOR).
    const copy = await raw.zrange('mcp-latch:rules:xavier', '0', '-1', 'WITHSCORES');
    const copiedGeneration = await raw.get('mcp-latch:rules:xavier:gen');
    const writeBack = async () => {
      for (let index = 0; index + 1 < copy.length; index += 2) await raw.zadd('mcp-latch:rules:xavier', copy[index + 1]!, copy[index]!);
      await raw.publish('mcp-latch:rules', 'xavier');
    };

    expect((await team.api('/api/rules', X, { method: 'DELETE', body: { rule: forgotten } })).status).toBe(200);
    expect((await team.api('/api/rules', X)).body.rules).toEqual([kept]);
    expect(JSON.parse(readFileSync(join(dir, '.mcp-latch-rules-generations.json'), 'utf8'))).toEqual({ xavier: 1 });

    // The forgotten rule's old value written back: it does not verify, the write asks again.
    const verifyWarnings = () => team.stderr().split('\n').filter((line) => line.includes('does not verify against store.signingKeyFile')).length;
    const before = verifyWarnings();
    await writeBack();
    await eventually(() => expect(verifyWarnings()).toBeGreaterThan(before), 10_000);
    expect((await team.api('/api/rules', X)).body.rules).toEqual([kept]);
    const again = await waiting(join(dir, 'forgotten.txt'));
    await again.x.close();
    // The rule kept still holds: a write under it runs unasked.
    const x = await teamClient(team.url, X);
    try {
      expect(textOf(await x.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'kept.txt'), content: 'again' } }))).toContain('Successfully wrote');
    } finally {
      await x.close();
    }

    // The whole set written back as it was, generation and all: older than the replica has seen; none holds.
    await raw.del('mcp-latch:rules:xavier', 'mcp-latch:rules:xavier:gen');
    if (copiedGeneration !== null) await raw.set('mcp-latch:rules:xavier:gen', copiedGeneration);
    await writeBack();
    await eventually(() => expect(team.stderr()).toContain('of an older generation than this replica has seen'), 10_000);
    expect((await team.api('/api/rules', X)).body.rules).toEqual([]);
    const rolledBack = await waiting(join(dir, 'forgotten.txt'));
    await rolledBack.x.close();
  });

  // Round 20 review, T20-5: after Redis lost xavier's rules (FLUSHALL, a restart without persistence)
  // each "Always allow" failed for good ("older generation than this replica has seen") and the
  // message named keys already gone. Now his rules start one generation past the newest seen.
  test('after Redis lost the rules (FLUSHALL), "Always allow" holds again; values of before the loss, written back, do not', async () => {
    const before = await raw.zrange('mcp-latch:rules:xavier', '0', '-1', 'WITHSCORES');
    expect(before.length).toBeGreaterThan(0);
    await raw.flushall();
    const lostAt = Date.now();
    const file = join(dir, 'after-loss.txt');
    // The replica's heartbeat went with the rest: its calls are listed once it is renewed.
    await eventually(async () => expect(await raw.keys('mcp-latch:replica:*')).toHaveLength(1), 20_000);
    const { x, call, pending } = await waiting(file);
    try {
      const choice = (pending as unknown as { choices: string[] }).choices.find((each) => each.startsWith('Always allow'))!;
      expect((await team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: choice } })).status).toBe(200);
      expect(textOf(await call)).toContain('Successfully wrote');
    } finally {
      await x.close();
    }
    expect((await team.api('/api/rules', X)).body.rules).toEqual([`Edit(${file})`]);
    // Started at the clock (round 22 review, R22-1: past what any replica can have seen), not at 2.
    expect(JSON.parse(readFileSync(join(dir, '.mcp-latch-rules-generations.json'), 'utf8')).xavier).toBeGreaterThanOrEqual(lostAt);
    const again = await teamClient(team.url, X);
    try {
      expect(textOf(await again.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'again' } }))).toContain('Successfully wrote');
    } finally {
      await again.close();
    }
    // What was kept before the loss, written back: of an older generation, it does not verify.
    for (let index = 0; index + 1 < before.length; index += 2) await raw.zadd('mcp-latch:rules:xavier', before[index + 1]!, before[index]!);
    await raw.publish('mcp-latch:rules', 'xavier');
    await eventually(async () => expect((await team.api('/api/rules', X)).body.rules).toEqual([`Edit(${file})`]), 10_000);
  }, 120_000);
});
