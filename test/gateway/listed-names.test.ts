import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { FS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 14 review T11: server-filesystem's directory_tree and search_files listed the names below a
 * directory whose own list_directory a `Read` rule denies. Each directory below is now read as a
 * listing of it (docs/threat-model.md#recursive-reads). The built gateway, the real server.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

test('directory_tree and search_files over a Read-denied folder ask; a tree whose names no rule covers is listed', async () => {
  const proj = join(tempDir('names-'), 'proj');
  mkdirSync(join(proj, 'conf/secret'), { recursive: true });
  mkdirSync(join(proj, 'src'));
  writeFileSync(join(proj, 'conf/secret/customer-acme-breach.txt'), 'x\n');
  writeFileSync(join(proj, 'conf/app.json'), '{}\n');
  writeFileSync(join(proj, 'src/a.ts'), 'export {}\n');
  writeFileSync(join(proj, '.env'), 'K=1\n');
  writeFileSync(join(proj, 'src/.env'), 'K=1\n');
  harness = await startGateway({
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, proj] } },
    workspace: [proj],
    permissions: { defaultMode: 'acceptEdits', deny: ['Read(./conf/secret/**)', 'Read(**/.env)'] },
  });
  for (const [name, args] of [
    ['fs__directory_tree', { path: 'conf' }],
    ['fs__directory_tree', { path: '.' }],
    ['fs__search_files', { path: '.', pattern: '**/*breach*' }],
  ] as const) {
    const listed = textOf(await harness.client.callTool({ name, arguments: args }));
    expect(listed, `${name} ${JSON.stringify(args)}`).toMatch(/^Denied by mcp-latch/);
    expect(listed).toContain('Read(./conf/secret/**)');
    expect(listed).not.toContain('customer-acme-breach');
  }
  // `.env`'s name in a folder no rule covers is listed, as `ls` lists it: the rule protects its content.
  expect(textOf(await harness.client.callTool({ name: 'fs__directory_tree', arguments: { path: 'src' } }))).toContain('a.ts');
}, 60_000);
