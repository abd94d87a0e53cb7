import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { BIN, FS_SERVER, startGateway, writeConfig, tempDir, textOf, type Harness } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * The gateway's secrets are not read by its tools. In the round 12 review (F1) a member's model read
 * the team config with server-filesystem (a read inside the workspace, allowed in default mode), took
 * the Redis password from `store.url`, and with it answered another member's waiting call and
 * planted remembered rules for her; the same read of the audit gave the other members' calls. Now the
 * config, a team's audit and `store.passwordFile` are denied by built-in rules, the password can stay
 * out of the config (`store.passwordEnv`, `store.passwordFile`), and a literal one is warned about.
 * Built gateways, SDK clients, a real redis-server that requires a password.
 */
const A = 'token-of-alice-secrets-0123456789';
const B = 'token-of-bob-secrets-0123456789ab';
const PASSWORD = 'team-redis-s3cret';
const LITERAL_WARNING = 'store.url holds the Redis password';

const opened: Array<TeamHarness | Harness> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((each) => each.close()));
});

describe('serve --http with a Redis store that requires a password', () => {
  let redis: TestRedis;

  beforeAll(async () => {
    redis = await startRedis({ password: PASSWORD });
  });

  afterAll(async () => {
    await redis?.stop();
  });

  function teamConfig(dir: string, store: Record<string, string>) {
    return {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      http: { tokens: [{ user: 'alice', sha256: tokenHash(A) }, { user: 'bob', sha256: tokenHash(B) }] },
      store,
    };
  }

  test("a member's tools read neither the config, nor the team's audit, nor the password file; other workspace files as before", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'redis-password'), `${PASSWORD}\n`);
    writeFileSync(join(dir, 'notes.txt'), 'plain notes');
    const team = await startTeam(dir, teamConfig(dir, { url: redis.url, passwordFile: 'redis-password' }));
    opened.push(team);
    const alice = await teamClient(team.url, A);
    const bob = await teamClient(team.url, B);
    try {
      // Alice's call puts her arguments in the audit.
      expect(textOf(await alice.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'notes.txt') } }))).toBe('plain notes');
      for (const file of [team.configPath, join(dir, 'mcp-latch-audit.jsonl'), join(dir, 'redis-password')]) {
        const result = await bob.client.callTool({ name: 'fs__read_text_file', arguments: { path: file } });
        expect(result.isError, file).toBe(true);
        expect(textOf(result)).toContain(`Denied by mcp-latch: the rule built-in protection of ${file} (a secret of the gateway)`);
      }
      expect(team.stderr()).not.toContain(LITERAL_WARNING);
      // No store.signingKeyFile: said at start (docs/team.md#two-replicas).
      expect(team.stderr()).toContain('answers, remembered rules and session grants in Redis are not signed');
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  }, 60_000);

  test('the password from store.passwordEnv; a literal one in store.url still works, with a warning at start', async () => {
    const dir = tempDir();
    process.env.MCP_LATCH_TEST_REDIS_PASSWORD = PASSWORD;
    try {
      const fromEnv = await startTeam(dir, teamConfig(dir, { url: redis.url, passwordEnv: 'MCP_LATCH_TEST_REDIS_PASSWORD' }));
      opened.push(fromEnv);
      expect(fromEnv.stderr()).not.toContain(LITERAL_WARNING);
    } finally {
      delete process.env.MCP_LATCH_TEST_REDIS_PASSWORD;
    }
    const literal = await startTeam(tempDir(), teamConfig(dir, { url: redis.url.replace('redis://', `redis://:${PASSWORD}@`) }));
    opened.push(literal);
    expect(literal.stderr()).toContain(LITERAL_WARNING);
    // Neither is the text of the password in the log.
    expect(literal.stderr() + opened[0]!.stderr()).not.toContain(PASSWORD);
    // Without it, Redis refuses the gateway: it does not start.
    const refused = spawnSync(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', writeConfig(tempDir(), teamConfig(dir, { url: redis.url }))], { encoding: 'utf8', timeout: 30_000 });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('cannot use the team store');
  }, 60_000);
});

test('over stdio the config is not read by a tool either; the person\'s own audit is', async () => {
  const dir = tempDir();
  const h = await startGateway({ mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } }, workspace: [dir] }, { dir });
  opened.push(h);
  const config = await h.client.callTool({ name: 'fs__read_text_file', arguments: { path: h.configPath } });
  expect(textOf(config)).toContain(`Denied by mcp-latch: the rule built-in protection of ${h.configPath} (a secret of the gateway)`);
  const audit = await h.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'mcp-latch-audit.jsonl') } });
  expect(audit.isError).toBeFalsy();
  expect(textOf(audit)).toContain('"tool":"read_text_file"');
});
