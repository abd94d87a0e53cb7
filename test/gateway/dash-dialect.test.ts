import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { COMMANDS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 15 review P7/P6, end to end: the built gateway in front of mcp-server-commands, whose
 * run_command is `/bin/sh -c` (dash on Debian and Ubuntu). Texts one bash command to the model
 * and other commands to dash are not run: no file is written, the secret is not printed, the
 * directory a deny rule covers stays (docs/threat-model.md#the-shell-that-reads-the-text).
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const DENIED = /^Denied by mcp-latch/;

async function gateway(mode: DefaultMode): Promise<string> {
  const work = join(realpathSync(tempDir('dash-dialect-')), 'w');
  mkdirSync(join(work, 'conf', 'secret'), { recursive: true });
  mkdirSync(join(work, 'pub'));
  writeFileSync(join(work, 'conf', 'secret', 'key'), 'TOPSECRET\n');
  writeFileSync(join(work, 'pub', 'f'), 'keep\n');
  harness = await startGateway({
    mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } },
    workspace: [work],
    permissions: { defaultMode: mode, allow: [], deny: ['Bash(rm:*)', `Read(${work}/conf/secret/**)`] },
  });
  return work;
}

async function run(command: string, workdir: string): Promise<string> {
  return textOf(await harness!.client.callTool({ name: 'shell__run_command', arguments: { command, workdir } }));
}

test("P7 (default mode): echo $'\\'; touch pwned; cat conf/secret/key; #' is not run", async () => {
  const work = await gateway('default');
  // The server runs what is allowed: the same echo without the quote trick.
  expect(await run('echo hello', work)).toContain('hello');
  const text = await run(`echo $'\\'; touch pwned; cat conf/secret/key; #'`, work);
  expect(text).toMatch(DENIED);
  expect(text).toContain('sh-dialect');
  expect(text).not.toContain('TOPSECRET');
  expect(existsSync(join(work, 'pwned'))).toBe(false);
});

test('P6 (bypassPermissions with deny rules): ((rm -rf *pub)) is not run', async () => {
  const work = await gateway('bypassPermissions');
  expect(await run('((rm -rf *pub))', work)).toMatch(DENIED);
  expect(await run('((cat *conf/secret/key))', work)).not.toContain('TOPSECRET');
  expect(existsSync(join(work, 'pub', 'f'))).toBe(true);
});

test('plan mode: [[ a > conf/secret/key ]] does not empty the file', async () => {
  const work = await gateway('plan');
  expect(await run('[[ a > conf/secret/key ]]', work)).toMatch(DENIED);
  expect(readFileSync(join(work, 'conf', 'secret', 'key'), 'utf8')).toBe('TOPSECRET\n');
});
