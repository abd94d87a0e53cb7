import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { faultServer } from '../helpers/faults.js';
import { eventually, rawGateway, tempDir, textOf, writeConfig } from '../helpers/gateway.js';

/**
 * A client that does not read what the gateway sends while a server streams progress: every
 * notification was held for it, without bound (a server's 64 KB updates grew the gateway to 900 MB
 * in 18 s; round 20 review of faults, F1). Past limits.messageMB waiting, progress and log
 * notifications are dropped; the call's answer is not.
 */
describe('a client that falls behind while a server streams progress', () => {
  test('past limits.messageMB waiting for it, progress is dropped and the log says so; the answer still arrives whole', async () => {
    const dir = tempDir();
    const flooded = join(dir, 'flooded');
    const count = 300;
    const config = writeConfig(dir, { mcpServers: { f: faultServer('progress-flood', join(dir, 'starts'), { FAULT_FLOODED: flooded }) }, permissions: { allow: ['mcp__f__flood'] }, limits: { messageMB: 1 } });
    const gateway = rawGateway(config);
    let stderr = '';
    gateway.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await gateway.initialize();
      gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      await gateway.response(2);
      // The client stops reading; the server sends 300 updates of 64 KB (19 MB) and answers.
      gateway.child.stdout.pause();
      gateway.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'f__flood', arguments: { count, kb: 64 }, _meta: { progressToken: 'p' } } });
      await eventually(() => expect(existsSync(flooded)).toBe(true), 30_000);
      gateway.child.stdout.resume();
      const answer = await gateway.response(3);
      expect(textOf(answer.result)).toBe(`sent ${count}`);
      const progress = gateway.messages.filter((message) => message.method === 'notifications/progress');
      // What waited within the limit (1 MB, ~16 updates) and the pipe's buffer, not all 300.
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.length).toBeLessThan(count / 2);
      await eventually(() => expect(stderr).toContain('progress and log notifications are dropped until it has read it'));
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
