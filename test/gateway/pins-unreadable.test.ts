import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { faultServer } from '../helpers/faults.js';
import { startGateway, tempDir, textOf } from '../helpers/gateway.js';

/**
 * A lock file that could not be read once (a write cut short) kept the tool refused after the user
 * fixed or removed it as the refusal said, with a reason no longer true (round 13 review R5). A
 * changed file is read again on the next call. Through the built gateway, a client without prompts.
 */
describe('a lock file unreadable once, then fixed', () => {
  test.each([
    ['removed', (lock: string) => rmSync(lock)],
    ['made valid', (lock: string) => writeFileSync(lock, JSON.stringify({ version: 1, servers: {} }))],
  ])('%s: the next call is checked against it again and runs', async (_how, fix) => {
    const dir = tempDir();
    const lock = join(dir, 'mcp-latch.lock.json');
    const harness = await startGateway({ mcpServers: { f: faultServer('works', join(dir, 'starts')) }, permissions: { allow: ['mcp__f__echo'] } }, { dir });
    try {
      await harness.client.listTools();
      writeFileSync(lock, '{"version": 1, "serv');
      // A tool with no pin here is looked up in the changed file first (another gateway of the
      // config may have pinned it: round 17 review S1); a file that cannot be read refuses it.
      for (const text of ['first', 'second']) {
        const refused = await harness.client.callTool({ name: 'f__echo', arguments: { text } });
        expect(textOf(refused)).toContain('the lock file cannot be read');
      }
      fix(lock);
      expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'third' } }))).toContain('third');
    } finally {
      await harness.close();
    }
  }, 60_000);
});
