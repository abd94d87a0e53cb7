import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clientRefusal, tokenTypeRefusal } from '../../src/team/identity.js';
import { RedisTeamStore } from '../../src/team/redis-store.js';
import { eventually } from '../helpers/gateway.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

/**
 * What the team gateway cuts for a person or the log is cut on a code point's boundary (round 32's
 * note; src/code-points.ts): until round 33 team/identity.ts quoted a token's `typ` and client with
 * `JSON.stringify(…).slice(0, 80)` and team/redis-store.ts logged a malformed message's
 * `slice(0, 200)`, each of which could end on the first half of an emoji (a lone surrogate, no
 * character: shown as U+FFFD, logged as `\ud83d`).
 */
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('refusals quoting a token', () => {
  // `"` and 78 letters: the 80th code unit is the emoji's first half.
  const long = `${'a'.repeat(78)}😀`;

  test('a typ or client id cut at 80 keeps whole characters', () => {
    const typ = tokenTypeRefusal(long, ['at+jwt'])!;
    expect(typ).toContain('a'.repeat(78));
    expect(typ).not.toMatch(LONE);
    const client = clientRefusal({ client_id: long }, ['other'], 'sub')!;
    expect(client).toContain('a'.repeat(78));
    expect(client).not.toMatch(LONE);
    const own = clientRefusal({ client_id: long, sub: long }, undefined, 'sub')!;
    expect(own).not.toMatch(LONE);
  });
});

describe('the Redis store logging a malformed message', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  test('cuts it at 200 code units on a code point boundary', async () => {
    const log = memoryLogger('warn');
    const store = await RedisTeamStore.connect({ url: redis.url, logger: log.logger, replica: 'A' });
    const other = new Redis(redis.url);
    try {
      // 199 letters, then an emoji whose first half is the 200th code unit.
      await other.publish('mcp-latch:grants', `${'x'.repeat(199)}😀`);
      await other.publish('mcp-latch:forgotten', `${'y'.repeat(199)}😀`);
      await eventually(async () => expect(await log.written()).toMatch(/malformed forgotten-rule message/));
      const written = await log.written();
      expect(written).toContain('x'.repeat(199));
      expect(written).toContain('y'.repeat(199));
      // pino writes a lone surrogate as its escape.
      expect(written).not.toMatch(/\\ud83d/i);
    } finally {
      other.disconnect();
      await store.close();
    }
  });
});
