import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BIN, ROOT, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * Round 31 review S31-4: `mcp-latch check` named a server's tools in its error as the server wrote
 * them, so a tool name holding ECMA-48's ESC sequences (clear the screen, a colour) or U+202E
 * reached the terminal raw. Through the built CLI, against a server listing such a name.
 */
test("check's error naming a server's tools shows a hostile name escaped", () => {
  const dir = tempDir();
  const listing = join(dir, 'listing.json');
  const hostile = 'x\u001b[2J\u001b[31mred\u202eexe';
  writeFileSync(listing, JSON.stringify({ tools: [{ name: hostile, inputSchema: { type: 'object' } }] }));
  const config = writeConfig(dir, { mcpServers: { look: { command: process.execPath, args: [join(ROOT, 'test/fixtures/listing-server.mjs'), listing] } } });
  const run = spawnSync(process.execPath, [BIN, 'check', '--config', config, '--tool', 'look__nope\u001b[1m'], { encoding: 'utf8', timeout: 60_000 });
  expect(run.stderr).toContain('has no tool named');
  expect(run.stderr).not.toMatch(/[\u001b\u202e]/);
  expect(run.stderr).toContain('x\\x1b[2J\\x1b[31mred\\u202eexe');
});
