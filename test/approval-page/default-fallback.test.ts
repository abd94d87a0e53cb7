import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, FS_SERVER, eventually, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Claude Desktop by default: a client named like it (declares elicitation, never renders it) and a
 * config that does not choose `approval.fallback`. The approval page is used and opened once, by
 * the launcher in `BROWSER` (a recorder here, not a browser); `mcp-latch page` lists it; and a batch
 * of three asks that nobody answers is answered within the client's limit — one clock for the batch,
 * not one per prompt (3 × timeoutSeconds would exceed the client's request timeout below).
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

const PENDING_TEXT = "waiting for the user's approval on the mcp-latch approval page";
const TIMEOUT_SECONDS = 3;
/** The client gives up after this; three prompts of TIMEOUT_SECONDS each would not fit. */
const CLIENT_LIMIT_MS = 7_000;

test('no fallback configured: the page is opened once by the launcher, listed by `mcp-latch page`, and a batch of three unanswered asks is answered in time', async () => {
  const dir = tempDir();
  const record = join(dir, 'browser-launches.txt');
  const launcher = join(dir, 'record-browser.sh');
  writeFileSync(launcher, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${record}'\n`);
  chmodSync(launcher, 0o755);
  const h = await startGateway(
    { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } }, workspace: [dir], approval: { timeoutSeconds: TIMEOUT_SECONDS } },
    { dir, clientName: 'claude-ai', capabilities: { elicitation: {} }, productDefaults: true, env: { BROWSER: launcher } },
  );
  harnesses.push(h);

  const calls = ['one', 'two', 'three'].map((name) =>
    h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, `${name}.txt`), content: name } }, CallToolResultSchema, { timeout: CLIENT_LIMIT_MS }),
  );
  const results = await Promise.all(calls);
  for (const result of results) expect(textOf(result)).toContain(PENDING_TEXT);
  for (const name of ['one', 'two', 'three']) expect(existsSync(join(dir, `${name}.txt`))).toBe(false);
  expect(h.elicitations).toHaveLength(0);

  // Opened once, with a one-time link to the page's address (the one in the log).
  const url = /"msg":"approval page: (http:\/\/127\.0\.0\.1:\d+\/)"/.exec(h.stderr())?.[1];
  expect(url).toBeDefined();
  const launches = await eventually(() => {
    const lines = readFileSync(record, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    return lines;
  });
  // The launcher gets a file of the person's holding the link, never the link itself (round 18 review, L1).
  expect(launches[0]).toMatch(/^file:\/\/\/.*\/\.mcp-latch-open\/open-[0-9a-z]+\.[A-Za-z0-9_-]{22}\.html$/);
  const opened = /content="0; url=([^"]+)"/.exec(readFileSync(fileURLToPath(launches[0]!), 'utf8'))?.[1];
  expect(opened?.startsWith(`${url}?nonce=`)).toBe(true);

  // The state file next to the config is private, and `mcp-latch page` prints a link of its own.
  const stateFile = join(dir, '.mcp-latch-pages.json');
  expect(statSync(stateFile).mode & 0o777).toBe(0o600);
  const listed = spawnSync(process.execPath, [BIN, 'page', '--config', h.configPath], { encoding: 'utf8' });
  expect(listed.status, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(new RegExp(`^${url!.replace(/[.?]/g, '\\$&')}\\?nonce=\\S+  \\(claude-ai 1\\.0\\.0, gateway pid `));
  expect(listed.stdout).not.toContain(opened);
});
