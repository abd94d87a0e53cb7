import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startTeam, teamClient, type TeamClient, type TeamHarness } from '../helpers/team.js';

/**
 * A remembered rule forgotten through the interactions API (`DELETE /api/rules`) holds nowhere once
 * the answer comes (docs/team.md, "Forgetting is in force at once"). Until round 24 the answer came
 * first: with the embedded store the rule stayed in the config in force until the file watcher read
 * the file again, and with Redis each replica (the one answering too) until its subscriber had the
 * message and its read came back, so a call made right after the forget ran unasked. The built
 * gateway, the SDK client, the real filesystem server, a real redis-server.
 */
const ALICE = 'token-of-alice-client-forget-0123456789';
const ALICE_APPROVER = 'token-of-alice-approver-forget-012345';
const KEY = 'Qm3xV8sT1fLp9cZr2hWk7NyB4dGj6AeU0oPi\n';
const TOKENS = [
  { user: 'alice', sha256: tokenHash(ALICE) },
  { user: 'alice', role: 'approver' as const, sha256: tokenHash(ALICE_APPROVER) },
];

interface Pending {
  id: string;
  choices: string[];
  args: { path: string; content: string };
}

/** alice's write of `content` to `file` through `client`, waited for on `api`'s pending list; the call and its pending entry. */
async function asked(client: TeamClient, api: TeamHarness, file: string, content: string) {
  const call = client.client.callTool({ name: 'fs__write_file', arguments: { path: file, content } }, undefined, { timeout: 90_000 });
  call.catch(() => undefined);
  const pending = await eventually(async () => {
    const mine = ((await api.api('/api/pending', ALICE_APPROVER)).body.pending as Pending[]).find((each) => each.args.content === content);
    expect(mine).toBeDefined();
    return mine!;
  }, 30_000);
  return { call, pending };
}

/** Answers a pending call "Always allow: …"; once the call has run (the rule is remembered before it does), the rule. */
async function always(api: TeamHarness, held: Awaited<ReturnType<typeof asked>>): Promise<string> {
  const choice = held.pending.choices.find((each) => each.startsWith('Always allow'))!;
  expect((await api.api(`/api/pending/${held.pending.id}`, ALICE_APPROVER, { method: 'POST', body: { decision: choice } })).status).toBe(200);
  expect(textOf(await held.call)).toContain('Successfully wrote');
  const rules = (await api.api('/api/rules', ALICE_APPROVER)).body.rules as string[];
  expect(rules).toHaveLength(1);
  return rules[0]!;
}

const forget = (api: TeamHarness, rule: string) => api.api('/api/rules', ALICE_APPROVER, { method: 'DELETE', body: { rule } });

describe('DELETE /api/rules, embedded store', () => {
  let dir: string;
  let team: TeamHarness;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: { tokens: TOKENS },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  test('the next call asks, made as soon as the forget is answered', async () => {
    const alice = await teamClient(team.url, ALICE);
    try {
      const file = join(dir, 'note.txt');
      const reloads = () => (team.stderr().match(/config reloaded/g) ?? []).length;
      const before = reloads();
      const first = await asked(alice, team, file, 'one');
      const rule = await always(team, first);
      expect(JSON.parse(readFileSync(team.configPath, 'utf8')).users.alice.permissions.allow).toEqual([rule]);
      // The gateway has the file with the rule in force (since round 24 at once; before, once the
      // file watcher had read it): a forget right after the write would find it only in the file.
      await eventually(() => expect(reloads()).toBeGreaterThan(before), 20_000);

      expect((await forget(team, rule)).body).toEqual({ removed: true });
      // At once, before the file watcher (150 ms after the write at the least) has read the file.
      const second = await asked(alice, team, file, 'two');
      expect(readFileSync(file, 'utf8')).toBe('one');
      expect((await team.api(`/api/pending/${second.pending.id}`, ALICE_APPROVER, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
      expect(textOf(await second.call)).toMatch(/^Denied by mcp-latch/);
      expect(readFileSync(file, 'utf8')).toBe('one');
      expect((await team.api('/api/rules', ALICE_APPROVER)).body.rules).toEqual([]);
    } finally {
      await alice.close();
    }
  }, 120_000);
});

/**
 * A TCP relay between replica A and Redis that can hold what Redis sends A: A then hears of no
 * change (its subscriber) and gets no reply, as a replica behind a slow link or stopped for a while.
 */
class HoldableLink {
  private held = false;
  private cutOff = false;
  private readonly queued: Array<() => void> = [];
  private readonly sockets = new Set<Socket>();
  constructor(readonly server: Server) {}

  static async to(port: number): Promise<HoldableLink> {
    const link: HoldableLink = new HoldableLink(
      createServer((client) => {
        if (link.cutOff) {
          client.destroy();
          return;
        }
        const upstream = connect(port, '127.0.0.1');
        link.sockets.add(client).add(upstream);
        client.on('data', (chunk) => upstream.write(chunk));
        upstream.on('data', (chunk) => (link.held ? link.queued.push(() => client.write(chunk)) : client.write(chunk)));
        const end = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('close', end).on('error', end);
        upstream.on('close', end).on('error', end);
      }),
    );
    await new Promise<void>((done) => link.server.listen(0, '127.0.0.1', done));
    return link;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const send of this.queued.splice(0)) send();
  }

  /** Ends every connection through the link and refuses new ones until `restore`. */
  cut(): void {
    this.cutOff = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.cutOff = false;
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }
}

describe('DELETE /api/rules, two replicas on one signed Redis', () => {
  let root: string;
  let redis: TestRedis;
  let link: HoldableLink;
  let a: TeamHarness;
  let b: TeamHarness;

  beforeAll(async () => {
    root = tempDir();
    redis = await startRedis();
    link = await HoldableLink.to(redis.port);
    const start = (name: string, port: number) => {
      const dir = join(root, name);
      mkdirSync(dir);
      writeFileSync(join(dir, '.team-signing-key'), KEY, { mode: 0o600 });
      return startTeam(dir, {
        mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, root] } },
        workspace: [root],
        approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
        http: { tokens: TOKENS },
        store: { url: `redis://127.0.0.1:${port}`, signingKeyFile: '.team-signing-key' },
      });
    };
    // A reaches Redis through the link; B directly.
    a = await start('host-a', link.port);
    b = await start('host-b', redis.port);
  }, 90_000);

  afterAll(async () => {
    link?.restore();
    link?.release();
    await a?.close();
    await b?.close();
    link?.close();
    await redis?.stop();
  });

  test("a forget through B answers once A no longer holds the rule; A's next call asks", async () => {
    const alice = await teamClient(a.url, ALICE);
    try {
      const file = join(root, 'a.txt');
      const first = await asked(alice, b, file, 'one');
      const rule = await always(b, first);

      // A hears nothing for now: the forget must not answer while A would still allow the rule.
      link.hold();
      let answered = false;
      const forgot = forget(b, rule).then((reply) => {
        answered = true;
        return reply;
      });
      await new Promise((done) => setTimeout(done, 1_000));
      // Before round 24 the forget was answered at once, A still allowing the rule meanwhile.
      expect(answered).toBe(false);
      link.release();
      const reply = await forgot;
      expect([reply.status, reply.body]).toEqual([200, { removed: true }]);

      // At once, on A.
      const second = await asked(alice, b, file, 'two');
      expect(readFileSync(file, 'utf8')).toBe('one');
      expect((await b.api(`/api/pending/${second.pending.id}`, ALICE_APPROVER, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
      expect(textOf(await second.call)).toMatch(/^Denied by mcp-latch/);
    } finally {
      link.release();
      await alice.close();
    }
  }, 120_000);

  // Until round 25 the forget waited for as many confirmations as PUBLISH counted subscribers, so
  // a client that is no replica, subscribed to the channel (a `redis-cli SUBSCRIBE` left open),
  // made every forget wait 5 s and answer 202. Replicas now announce themselves, by name.
  test('a stray subscriber of mcp-latch:forgotten is not waited for: the forget through B is answered 200, and A asks', async () => {
    const stray = new Redis(redis.url);
    const alice = await teamClient(a.url, ALICE);
    try {
      await stray.subscribe('mcp-latch:forgotten');
      const file = join(root, 'stray.txt');
      const first = await asked(alice, b, file, 'one');
      const rule = await always(b, first);
      const reply = await forget(b, rule);
      expect([reply.status, reply.body]).toEqual([200, { removed: true }]);
      // The log line reaches the test through the gateway's stderr, which may come after the HTTP answer (it failed 1 of 3 alone without the wait).
      await eventually(() => expect(b.stderr()).toContain('did not announce themselves as replicas'));

      const second = await asked(alice, b, file, 'two');
      expect((await b.api(`/api/pending/${second.pending.id}`, ALICE_APPROVER, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
      expect(textOf(await second.call)).toMatch(/^Denied by mcp-latch/);
      expect(readFileSync(file, 'utf8')).toBe('one');
    } finally {
      stray.disconnect();
      await alice.close();
    }
  }, 120_000);

  test('a replica that does not confirm in time is counted in the answer (202), and it asks once it has heard', async () => {
    const alice = await teamClient(a.url, ALICE);
    try {
      const file = join(root, 'b.txt');
      const first = await asked(alice, b, file, 'three');
      const rule = await always(b, first);

      const reread = () => (a.stderr().match(/read again after a forget/g) ?? []).length;
      const before = reread();
      link.hold();
      const reply = await forget(b, rule);
      expect(reply.status).toBe(202);
      expect(reply.body).toMatchObject({ removed: true, unconfirmed: 1 });
      expect(reply.body.error).toContain('1 replica(s) did not confirm within 5 s that it no longer holds there');
      await eventually(() => expect(b.stderr()).toContain('not every replica confirmed that it no longer holds there'));
      link.release();
      // What A logs once it has read alice's rules again (the forget no longer waits for it).
      await eventually(() => expect(reread()).toBeGreaterThan(before), 30_000);

      const second = await asked(alice, b, file, 'four');
      expect(readFileSync(file, 'utf8')).toBe('three');
      expect((await b.api(`/api/pending/${second.pending.id}`, ALICE_APPROVER, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
      expect(textOf(await second.call)).toMatch(/^Denied by mcp-latch/);
    } finally {
      link.release();
      await alice.close();
    }
  }, 120_000);

  // A replica whose subscriber is gone is not counted by the forget's PUBLISH, so it cannot be
  // waited for: until round 24 it kept deciding from its copy, the forgotten rule allowing there.
  // Now none of its remembered rules holds until it hears again.
  test('a replica cut off from Redis holds no remembered rule: the forget through B is answered, and the call on A is not run', async () => {
    const alice = await teamClient(a.url, ALICE);
    try {
      const file = join(root, 'c.txt');
      const first = await asked(alice, b, file, 'five');
      const rule = await always(b, first);
      const deaf = () => (a.stderr().match(/the subscriber connection closed/g) ?? []).length;
      const before = deaf();
      link.cut();
      await eventually(() => expect(deaf()).toBeGreaterThan(before), 30_000);
      expect((await forget(b, rule)).body).toEqual({ removed: true });
      const cutOff = await alice.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'six' } }, undefined, { timeout: 90_000 });
      expect(cutOff.isError).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe('five');
      link.restore();

      const again = await asked(alice, b, file, 'seven');
      expect((await b.api(`/api/pending/${again.pending.id}`, ALICE_APPROVER, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
      expect(textOf(await again.call)).toMatch(/^Denied by mcp-latch/);
      expect(readFileSync(file, 'utf8')).toBe('five');
    } finally {
      link.restore();
      await alice.close();
    }
  }, 120_000);
});
