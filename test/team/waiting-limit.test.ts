import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamClient, type TeamHarness } from '../helpers/team.js';

/**
 * One member's waiting calls are bounded (docs/team.md, "Where a call waits"): the round 16 review
 * (T2) left 40 asked calls of 9 MB waiting in one session and the shared gateway died of heap
 * exhaustion for every member. Past `http.maxWaitingMBPerUser` or `http.maxWaitingCallsPerUser` a
 * call is denied at once, naming the key, and audited; another member's call still waits and runs.
 * The built gateway, SDK clients, the real filesystem server.
 */
const B = 'token-of-bob-client-0123456789ab';
const A = 'token-of-alice-client-0123456789';

describe('serve --http: http.maxWaitingCallsPerUser and http.maxWaitingMBPerUser', () => {
  let dir: string;
  let team: TeamHarness;
  const open: TeamClient[] = [];

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: { tokens: [{ user: 'bob', sha256: tokenHash(B) }, { user: 'alice', sha256: tokenHash(A) }], maxWaitingCallsPerUser: 3, maxWaitingMBPerUser: 1 },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await team?.close();
  });

  const write = (client: TeamClient, name: string, content: string) => client.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, name), content } }, undefined, { timeout: 60_000 });
  const waitingOf = async (token: string) => ((await team.api('/api/pending', token)).body.pending as Array<{ id: string }>).length;

  test("a member's call past either limit is denied at once, naming the key; another member's call still waits and runs", async () => {
    const bob = await teamClient(team.url, B);
    const bob2 = await teamClient(team.url, B);
    const bob3 = await teamClient(team.url, B);
    open.push(bob, bob2, bob3);
    void write(bob, 'big-1.txt', 'x'.repeat(600 * 1024)).catch(() => undefined);
    await eventually(async () => expect(await waitingOf(B)).toBe(1), 30_000);
    // 0.6 MB waiting and 0.6 MB more: past the 1 MB, from another session of the same user.
    const tooBig = textOf(await write(bob2, 'big-2.txt', 'y'.repeat(600 * 1024)));
    expect(tooBig).toContain('Denied by mcp-latch: this call may not wait for approval');
    expect(tooBig).toContain('http.maxWaitingMBPerUser');

    void write(bob2, 'small-1.txt', 'a').catch(() => undefined);
    void write(bob3, 'small-2.txt', 'b').catch(() => undefined);
    await eventually(async () => expect(await waitingOf(B)).toBe(3), 30_000);
    const tooMany = textOf(await write(bob, 'small-3.txt', 'c'));
    expect(tooMany).toContain('bob has 3 calls waiting already');
    expect(tooMany).toContain('http.maxWaitingCallsPerUser');
    expect(existsSync(join(dir, 'big-2.txt'))).toBe(false);
    expect(existsSync(join(dir, 'small-3.txt'))).toBe(false);

    const alice = await teamClient(team.url, A);
    open.push(alice);
    const call = write(alice, 'alice.txt', 'for alice');
    const pending = await eventually(async () => {
      const listed = (await team.api('/api/pending', A)).body.pending as Array<{ id: string }>;
      expect(listed).toHaveLength(1);
      return listed[0]!;
    }, 30_000);
    expect((await team.api(`/api/pending/${pending.id}`, A, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
    expect(textOf(await call)).toContain('Successfully wrote');

    const records = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const refused = records.filter((record) => record.user === 'bob' && record.by === 'gateway');
    expect(refused.map((record) => [record.decision, record.tool, /http\.maxWaiting(MB|Calls)PerUser/.exec(String(record.reason))?.[0]])).toEqual([
      ['deny', 'write_file', 'http.maxWaitingMBPerUser'],
      ['deny', 'write_file', 'http.maxWaitingCallsPerUser'],
    ]);
  });
});

/**
 * A call answered "pending" (its person did not answer within approval.timeoutSeconds) stays in the
 * team store, its arguments included, until approval.retryWindowSeconds ends: until round 31 it
 * counted nowhere, so a member's client answered "pending" once a second (timeoutSeconds 1) kept
 * every call of the last ten minutes (retryWindowSeconds 600), past http.maxWaitingCallsPerUser
 * (round 31 review, T31-1). Now it keeps its place in the member's waiting calls until answered or
 * expired.
 */
describe('serve --http: a call kept for its retry window counts in http.maxWaitingCallsPerUser', () => {
  let dir: string;
  let team: TeamHarness;
  const open: TeamClient[] = [];

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 1, retryWindowSeconds: 600 },
      http: { tokens: [{ user: 'bob', sha256: tokenHash(B) }, { user: 'alice', sha256: tokenHash(A) }], maxWaitingCallsPerUser: 3 },
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    await team?.close();
  });

  const write = (client: TeamClient, name: string) => client.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, name), content: name } }, undefined, { timeout: 60_000 });
  const pendingOf = async (token: string) => (await team.api('/api/pending', token)).body.pending as Array<{ id: string; retryUntil: string | null }>;

  test('the fourth call is denied at once while three wait for a retry; an answer gives its place back', async () => {
    const bob = await teamClient(team.url, B);
    open.push(bob);
    for (const name of ['p1.txt', 'p2.txt', 'p3.txt']) expect(textOf(await write(bob, name))).toContain('this call is waiting for the user\'s approval');
    const kept = await pendingOf(B);
    expect(kept).toHaveLength(3);
    expect(kept.every((call) => call.retryUntil !== null)).toBe(true);
    // Before round 31 this one waited too (and a fifth, sixth…): 4 listed, then 5.
    const refused = textOf(await write(bob, 'p4.txt'));
    expect(refused).toContain('this call may not wait for approval');
    expect(refused).toContain('bob has 3 calls waiting already (3 of them answered "pending"');
    expect(refused).toContain('http.maxWaitingCallsPerUser');
    expect(await pendingOf(B)).toHaveLength(3);

    // Another member is not touched.
    const alice = await teamClient(team.url, A);
    open.push(alice);
    expect(textOf(await write(alice, 'a1.txt'))).toContain('this call is waiting for the user\'s approval');

    // bob's answer (a denial) ends one hold: his next call waits again.
    expect((await team.api(`/api/pending/${kept[0]!.id}`, B, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
    await eventually(async () => expect(await pendingOf(B)).toHaveLength(2), 30_000);
    expect(textOf(await write(bob, 'p5.txt'))).toContain('this call is waiting for the user\'s approval');
    expect(await pendingOf(B)).toHaveLength(3);
    expect(existsSync(join(dir, 'p4.txt'))).toBe(false);
  });
});
