import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { COMMANDS_SERVER, FS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 33's review of file-path decisions on the wire (docs/threat-model.md "Round 33: the review of
 * round 32 (file tools' paths)"): the built gateway, the SDK Client, the real server-filesystem and
 * mcp-server-commands, in bypassPermissions. Each call printed or changed the covered file before.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function workspace(): string {
  const w = tempDir('links-binds-');
  for (const dir of ['conf/secret', 'pub', 'node_modules/.pnpm/x/node_modules/x']) mkdirSync(join(w, dir), { recursive: true });
  writeFileSync(join(w, 'conf/secret/db.txt'), 'TOPSECRET\n');
  writeFileSync(join(w, 'node_modules/.pnpm/x/node_modules/x/.env'), 'TOKEN=1\n');
  writeFileSync(join(w, 'pub/a.txt'), 'hi\n');
  // Another process's hard links (F32-5's premise): a covered file below node_modules, and the denied file.
  linkSync(join(w, 'node_modules/.pnpm/x/node_modules/x/.env'), join(w, 'pub/e.txt'));
  linkSync(join(w, 'conf/secret/db.txt'), join(w, 'pub/h.txt'));
  return w;
}

describe('links and binds (round 33 review F33-1, F33-2, F33-3)', () => {
  test('a link of a covered file below node_modules, a write through a link, a bwrap bind of the denied tree', async () => {
    const w = workspace();
    harness = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, w] }, cmd: { command: process.execPath, args: [COMMANDS_SERVER] } },
      workspace: [w],
      permissions: { defaultMode: 'bypassPermissions', deny: ['Read(./conf/secret/**)', 'Read(.env)'] },
    });
    // F33-2: F32-5's walk left node_modules out.
    const read = textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(w, 'pub/e.txt') } }));
    expect(read).toContain('Denied by mcp-latch: the rule Read(.env)');
    expect(read).not.toContain('TOKEN=1');
    // F33-3: a write through the other name truncated the denied file.
    const write = textOf(await harness.client.callTool({ name: 'cmd__run_command', arguments: { command: 'echo planted > pub/h.txt', workdir: w } }));
    expect(write).toContain('Denied by mcp-latch: the rule Read(./conf/secret/**)');
    expect(readFileSync(join(w, 'conf/secret/db.txt'), 'utf8')).toBe('TOPSECRET\n');
    // F33-1: bwrap shows conf at /mnt/x (bubblewrap 0.8 prints the file without the gateway).
    if (spawnSync('bwrap', ['--ro-bind', '/', '/', 'true']).status === 0) {
      const bind = textOf(await harness.client.callTool({ name: 'cmd__run_command', arguments: { command: 'bwrap --ro-bind / / --tmpfs /mnt --bind conf /mnt/x cat /mnt/x/secret/db.txt', workdir: w } }));
      expect(bind).not.toContain('TOPSECRET');
    }
    // What no rule covers still runs.
    expect(textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(w, 'pub/a.txt') } }))).toContain('hi');
  }, 120_000);
});
