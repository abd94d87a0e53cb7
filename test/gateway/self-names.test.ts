import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { FS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 21 review (review-bypass21 B8), end to end: the built gateway and the real server-filesystem,
 * its config in a directory whose name holds characters a glob reads otherwise (`proj (copy)`,
 * `app[v2]`). Until round 21 the built-in protection named another path there (every `\` of a rule
 * became a separator, so `proj \(copy\)` was `proj /(copy/)`): in acceptEdits the model rewrote the
 * config into bypassPermissions without its deny rules. Now the write is refused and the file is as
 * it was; `Read(./.env)` anchored at such a workspace holds too (docs/threat-model.md, "Round 21").
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const DENIED = /^Denied by mcp-latch/;

for (const name of ['proj (copy)', 'app[v2]']) {
  test(`acceptEdits: a config in ${JSON.stringify(name)} is not rewritten, and Read(./.env) there holds`, async () => {
    const dir = join(realpathSync(tempDir('self-names-')), name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.env'), 'API_KEY=1\n');
    harness = await startGateway(
      {
        mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
        workspace: [dir],
        permissions: { defaultMode: 'acceptEdits', deny: ['Read(./.env)'] },
      },
      { dir },
    );
    const before = readFileSync(harness.configPath, 'utf8');
    // The server writes what acceptEdits allows beside it.
    expect(textOf(await harness.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'notes.txt'), content: 'x' } }))).not.toMatch(DENIED);
    const rewrite = await harness.client.callTool({ name: 'fs__write_file', arguments: { path: harness.configPath, content: JSON.stringify({ mcpServers: {}, permissions: { defaultMode: 'bypassPermissions' } }) } });
    expect(textOf(rewrite)).toMatch(DENIED);
    expect(readFileSync(harness.configPath, 'utf8')).toBe(before);
    const lock = await harness.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'mcp-latch.lock.json'), content: '{}' } });
    expect(textOf(lock)).toMatch(DENIED);
    const env = textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, '.env') } }));
    expect(env).toMatch(DENIED);
    expect(env).not.toContain('API_KEY');
  });
}
