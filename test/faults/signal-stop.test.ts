import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readAudit } from '../../src/store/audit.js';
import { faultServer } from '../helpers/faults.js';
import { tokenHash } from '../../src/team/identity.js';
import { eventually, isAlive, startGateway, tempDir } from '../helpers/gateway.js';
import { startTeam, teamClient } from '../helpers/team.js';

const TOKEN = 'token-of-xavier-0123456789';

/**
 * SIGTERM or SIGHUP while a call waits for its prompt (round 13 review R2): the gateway exited with
 * no audit record of the call, though every outcome is one record (docs/design.md, "Records"). It
 * is cancelled through the latch, recorded `by: "gateway"`, before the audit closes.
 */
describe('a signal while a call waits for its prompt', () => {
  test.each(['SIGTERM', 'SIGHUP'] as const)('%s: the call is recorded cancelled by the gateway, never forwarded', async (signal) => {
    const dir = tempDir();
    const calls = join(dir, 'calls');
    const harness = await startGateway({ mcpServers: { f: faultServer('works', join(dir, 'starts'), { FAULT_CALLS: calls }) }, approval: { fallback: 'deny', timeoutSeconds: 120 } }, { dir, onElicit: () => new Promise(() => undefined) });
    try {
      harness.client.callTool({ name: 'f__echo', arguments: { text: 'waiting' } }, undefined, { timeout: 120_000 }).catch(() => undefined);
      await eventually(() => expect(harness.elicitations).toHaveLength(1));
      const pid = harness.transport.pid!;
      process.kill(pid, signal);
      await eventually(() => expect(isAlive(pid)).toBe(false), 20_000);
      const records = readAudit(join(dir, 'mcp-latch-audit.jsonl'), 100);
      expect(records).toEqual([expect.objectContaining({ server: 'f', tool: 'echo', decision: 'cancelled', by: 'gateway', args: { text: 'waiting' } })]);
      expect(harness.stderr()).not.toContain('Failed to send cancellation');
      expect(existsSync(calls)).toBe(false);
    } finally {
      await harness.close();
    }
  }, 60_000);
});

/**
 * The same on the team gateway (`serve --http`, docs/team.md): a call waiting for a person on
 * /api/pending when the gateway got SIGTERM or SIGHUP had no audit record either (round 13's fix
 * was the stdio gateway's alone).
 */
describe('a signal while a team call waits for a person', () => {
  test.each([
    ['SIGTERM', 'page'],
    ['SIGHUP', 'page'],
    ['SIGTERM', 'prompt'],
  ] as const)('%s, waiting on the %s: the call is recorded cancelled by the gateway, never forwarded', async (signal, on) => {
    const dir = tempDir();
    const calls = join(dir, 'calls');
    const team = await startTeam(dir, {
      mcpServers: { f: faultServer('works', join(dir, 'starts'), { FAULT_CALLS: calls }) },
      approval: { fallback: 'browser-manual', timeoutSeconds: 120 },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(TOKEN) }] },
    });
    const x = await teamClient(team.url, TOKEN, on === 'prompt' ? () => new Promise(() => undefined) : undefined);
    try {
      x.client.callTool({ name: 'f__echo', arguments: { text: 'waiting' } }, undefined, { timeout: 120_000 }).catch(() => undefined);
      if (on === 'prompt') await eventually(() => expect(x.elicitations).toHaveLength(1), 30_000);
      else await eventually(async () => expect((await team.api('/api/pending', TOKEN)).body.pending).toHaveLength(1), 30_000);
      const pid = team.child.pid!;
      process.kill(pid, signal);
      await eventually(() => expect(isAlive(pid)).toBe(false), 20_000);
      const records = readAudit(join(dir, 'mcp-latch-audit.jsonl'), 100);
      expect(records).toEqual([expect.objectContaining({ server: 'f', tool: 'echo', decision: 'cancelled', by: 'gateway', user: 'xavier', args: { text: 'waiting' } })]);
      expect(existsSync(calls)).toBe(false);
    } finally {
      await x.close();
      await team.close();
    }
  }, 60_000);
});
