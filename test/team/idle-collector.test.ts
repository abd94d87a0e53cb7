import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, FS_SERVER, eventually, fixtureCalls, fixtureServer, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * The team gateway gives memory back after a burst like `serve` does (gateway/idle-collector.ts):
 * once no client has sent anything for a period and no call of any session is in flight. Read from
 * the built gateway's debug log, where each quiet period's outcome is written.
 */
const X = 'token-of-xavier-collector-0123456789';

/** The outcomes the gateway logged, in order. */
function outcomes(team: TeamHarness): string[] {
  return [...team.stderr().matchAll(/"outcome":"([a-z-]+)"[^\n]*idle: heap checked after a burst/g)].map((match) => match[1]!);
}

describe('the team gateway collects when its clients are quiet', () => {
  let dir: string;
  let team: TeamHarness;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      workspace: [dir],
      permissions: { allow: ['mcp__every__echo'] },
      approval: { fallback: 'browser-manual', timeoutSeconds: 120 },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }] },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  test('after calls, a quiet period collects; a call waiting for a person holds it off until it is answered', async () => {
    const x = await teamClient(team.url, X);
    try {
      expect(textOf(await x.client.callTool({ name: 'every__echo', arguments: { message: 'hello' } }))).toContain('hello');
      // The first quiet period after start collects whatever the growth.
      await eventually(() => expect(outcomes(team)).toContain('collected'), 60_000);
      const collectedBefore = outcomes(team).filter((outcome) => outcome === 'collected').length;

      // A call that waits for a person: a request of the session stays unanswered.
      const file = join(dir, 'asked.txt');
      const call = x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'answered' } }, undefined, { timeout: 120_000 });
      const pending = await eventually(async () => {
        const listed = (await team.api('/api/pending', X)).body.pending as Array<{ id: string }>;
        expect(listed).toHaveLength(1);
        return listed[0]!;
      }, 30_000);
      const seen = outcomes(team).length;
      // Quiet from here on, but the call is in flight: the period ends without a collection.
      await eventually(() => expect(outcomes(team).slice(seen)).toContain('in-flight'), 60_000);
      expect(outcomes(team).slice(seen)).not.toContain('collected');
      expect(outcomes(team).filter((outcome) => outcome === 'collected')).toHaveLength(collectedBefore);

      expect((await team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
      await call;
      expect(readFileSync(file, 'utf8')).toBe('answered');
      // Answered, and quiet again: the period ends (collected, or too little growth to).
      const answered = outcomes(team).length;
      await eventually(() => expect(outcomes(team).slice(answered).some((outcome) => outcome === 'collected' || outcome === 'small')).toBe(true), 60_000);
      expect(existsSync(file)).toBe(true);
    } finally {
      await x.close();
    }
  });
});

describe('the team gateway warms its shell path again after a collection', () => {
  test('the warm-up runs once more after the first collection, reaching no server and no audit', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const team = await startTeam(dir, {
      mcpServers: { fix: fixtureServer('fix', log) },
      tools: { fix__echo: { kind: 'command' as const, command: 'text' } },
      workspace: [dir],
      audit: { enabled: true },
      permissions: { allow: ['Bash(echo *)'] },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }] },
    });
    try {
      const x = await teamClient(team.url, X);
      try {
        await x.client.listTools();
        const lines = () => team.stderr().split('\n');
        const at = (pattern: RegExp) => lines().flatMap((line, index) => (pattern.test(line) ? [index] : []));
        await eventually(() => {
          const collected = at(/"outcome":"collected"/);
          expect(collected.length).toBeGreaterThan(0);
          expect(at(/warmed the call pipeline/).filter((index) => index > collected[0]!).length).toBeGreaterThan(0);
        }, 60_000);
        expect(fixtureCalls(log)).toEqual([]);
        const audit = join(dir, 'mcp-latch-audit.jsonl');
        expect(existsSync(audit) ? readFileSync(audit, 'utf8') : '').toBe('');
      } finally {
        await x.close();
      }
    } finally {
      await team.close();
    }
  }, 90_000);
});
