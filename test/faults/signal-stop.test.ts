import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readAudit } from '../../src/store/audit.js';
import { faultServer } from '../helpers/faults.js';
import { eventually, isAlive, startGateway, tempDir } from '../helpers/gateway.js';

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
