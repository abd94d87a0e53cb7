import { createServer, connect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { RedisTeamStore } from '../../src/team/redis-store.js';
import { eventually } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

/**
 * A replica's subscriber connection coming back (Redis restarted, a link cut). ioredis 6 emits
 * 'ready' once it has sent its SUBSCRIBE again, before Redis has answered it: until round 26 the
 * replica took 'ready' as hearing again, read its users' rules (on its other connection) and let
 * them hold, while a forget published before Redis had the SUBSCRIBE neither reached it nor waited
 * for it (its hello was not listed). The link here holds what a connection sends from its first
 * SUBSCRIBE on, so that window stays open for as long as the test needs.
 */
class SubscribeHoldingLink {
  readonly server: Server;
  readonly sockets = new Set<Socket>();
  /** Hold what a connection sends from its SUBSCRIBE on. */
  holding = false;
  /** Writes held, in order, to send at release. */
  readonly queued: Array<() => void> = [];
  /** Each connection's: whether what it sends is held. */
  private readonly states = new Set<{ held: boolean }>();

  private constructor(target: number) {
    this.server = createServer((client) => {
      const upstream = connect(target, '127.0.0.1');
      this.sockets.add(client).add(upstream);
      const state = { held: false };
      this.states.add(state);
      client.on('data', (chunk: Buffer) => {
        state.held ||= this.holding && /subscribe/i.test(chunk.toString('latin1'));
        if (state.held) this.queued.push(() => upstream.write(chunk));
        else upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => client.write(chunk));
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
  }

  static async to(target: number): Promise<SubscribeHoldingLink> {
    const link = new SubscribeHoldingLink(target);
    await new Promise<void>((done) => link.server.listen(0, '127.0.0.1', done));
    return link;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Ends every connection through the link (each client connects again). */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  release(): void {
    this.holding = false;
    for (const state of this.states) state.held = false;
    for (const write of this.queued.splice(0)) write();
  }

  close(): void {
    this.cut();
    this.server.close();
  }
}

let redis: TestRedis;
let b: RedisTeamStore;

beforeAll(async () => {
  redis = await startRedis();
  b = await RedisTeamStore.connect({ url: redis.url, logger: silentLogger(), replica: 'B' });
});

afterAll(async () => {
  await b?.close();
  await redis?.stop();
});

describe('a subscriber connection that comes back', () => {
  test("ioredis 6 emits 'ready' after a reconnect before Redis has its subscriptions again (the premise)", async () => {
    const link = await SubscribeHoldingLink.to(redis.port);
    const subscriber = new Redis(`redis://127.0.0.1:${link.port}`, { lazyConnect: true });
    const direct = new Redis(redis.url);
    try {
      await subscriber.connect();
      await subscriber.subscribe('premise');
      expect(await direct.pubsub('NUMSUB', 'premise')).toEqual(['premise', 1]);
      link.holding = true;
      const ready = new Promise<void>((done) => subscriber.once('ready', () => done()));
      link.cut();
      await ready;
      // 'ready', and Redis does not have the subscription: a message published now is lost.
      expect(await direct.pubsub('NUMSUB', 'premise')).toEqual(['premise', 0]);
      link.release();
      await eventually(async () => expect(await direct.pubsub('NUMSUB', 'premise')).toEqual(['premise', 1]));
      // Answered after ioredis's own SUBSCRIBE, on the same connection: a disconnect before it was answered rejects ioredis's promise for it, unhandled.
      await subscriber.subscribe('premise');
    } finally {
      subscriber.disconnect();
      direct.disconnect();
      link.close();
    }
  }, 30_000);

  test('a replica hears forgets again, and its users’ rules hold again, only once Redis has its subscriptions', async () => {
    const link = await SubscribeHoldingLink.to(redis.port);
    const c = await RedisTeamStore.connect({ url: `redis://127.0.0.1:${link.port}`, logger: silentLogger(), replica: 'C' });
    // What the gateway's copy of a user's rules does (team/user-context.ts load): none while the replica does not hear.
    const copies: Array<string[] | null> = [];
    c.onRulesChanged(async (user) => {
      if (user !== 'uma') return;
      const rules = c.hearsRuleChanges() ? await c.rememberedRules(user) : null;
      copies.push(c.hearsRuleChanges() ? rules : null);
    });
    try {
      await b.remember('uma', ['Read(/u/**)'], 500);
      expect(await c.rememberedRules('uma')).toEqual(['Read(/u/**)']);
      expect(c.hearsRuleChanges()).toBe(true);
      link.holding = true;
      link.cut();
      // Its SUBSCRIBE was sent (ioredis sends it, then emits 'ready' a tick later): held by the link.
      await eventually(() => expect(link.queued.length).toBeGreaterThan(0), 20_000);
      // What the replica read meanwhile (on its other connection) is in: a read of its own after it.
      await c.rememberedRules('someone-else');
      await new Promise((done) => setImmediate(done));
      expect(c.hearsRuleChanges()).toBe(false);
      expect(copies.at(-1) ?? null).toBe(null);
      // A forget now neither reaches C nor waits for it: C holds no copy, so nothing allows there.
      expect(await b.forget('uma', 'Read(/u/**)')).toEqual({ unconfirmed: 0 });
      link.release();
      await eventually(() => expect(c.hearsRuleChanges()).toBe(true), 20_000);
      await eventually(() => expect(copies.at(-1)).toEqual([]), 20_000);
    } finally {
      link.release();
      await c.close();
      link.close();
    }
  }, 60_000);
});
