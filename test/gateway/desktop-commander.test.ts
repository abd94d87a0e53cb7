import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { ROOT, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Desktop Commander's processes through the built gateway (round 14 review T6;
 * docs/threat-model.md#desktop-commanders-shell). Desktop
 * Commander is not a devDependency: test/fixtures/desktop-commander.mjs runs its process tools as
 * 0.2.52 does (its shell choice, `SHELL -l -c`, stdin lines), and real shells run the commands.
 */
const DC = join(ROOT, 'test/fixtures/desktop-commander.mjs');
const ZSH = '/usr/bin/zsh';
const open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
});

/** A project with conf/secret/db.txt and victimdir, and a home for Desktop Commander's config. */
function project(): { dir: string; proj: string; home: string } {
  const dir = tempDir('dc-');
  const proj = join(dir, 'proj');
  mkdirSync(join(proj, 'conf/secret'), { recursive: true });
  mkdirSync(join(proj, 'victimdir'));
  mkdirSync(join(dir, 'home'));
  writeFileSync(join(proj, 'conf/secret/db.txt'), 'db-password=hunter2\n');
  writeFileSync(join(proj, 'victimdir/data.txt'), 'data\n');
  return { dir, proj, home: join(dir, 'home') };
}

function config(proj: string, home: string, shell: string, mode: 'bypassPermissions' | 'default' = 'bypassPermissions'): ConfigInput {
  return {
    mcpServers: { dc: { command: process.execPath, args: [DC], cwd: proj, env: { HOME: home, SHELL: shell } } },
    workspace: [proj],
    permissions: { defaultMode: mode, deny: ['Read(./conf/secret/**)', 'Edit(./conf/secret/**)', 'Bash(rm:*)'] },
  };
}

const call = async (h: { client: Harness['client'] }, name: string, args: Record<string, unknown>) => textOf(await h.client.callTool({ name: `dc__${name}`, arguments: args }));

test.skipIf(!existsSync(ZSH))("start_process reads the command as bash only when Desktop Commander's shell is bash or sh; setting defaultShell asks", async () => {
  const { dir, proj, home } = project();
  const h = await startGateway(config(proj, home, ZSH), { dir });
  open.push(h);
  // zsh's `=rm` is /usr/bin/rm; bash reads a program named `=rm`, which Bash(rm:*) does not name.
  const zsh = await call(h, 'start_process', { command: '=rm -rf victimdir && echo removed' });
  expect(zsh).toMatch(/^Denied by mcp-latch/);
  expect(zsh).toContain(`runs it in ${ZSH} (its defaultShell in ${join(home, '.claude-server-commander/config.json')})`);
  expect(existsSync(join(proj, 'victimdir/data.txt'))).toBe(true);
  // A bash named by the call, at a system path, is read as bash; one written into the project is not.
  expect(await call(h, 'start_process', { command: 'echo $0 ok', shell: '/bin/bash' })).toContain('/bin/bash ok');
  expect(await call(h, 'start_process', { command: 'echo ok', shell: './bash' })).toContain('a program of that name outside the system directories');
  // The shell of every later start_process, asked about in bypassPermissions too; a line limit is not.
  const before = readFileSync(join(home, '.claude-server-commander/config.json'), 'utf8');
  const set = await call(h, 'set_config_value', { key: 'defaultShell', value: '/bin/bash' });
  expect(set).toMatch(/^Denied by mcp-latch/);
  expect(set).toContain("it sets Desktop Commander's defaultShell, the shell every later start_process runs in");
  expect(await call(h, 'set_config_value', { key: 'allowedDirectories', value: [] })).toMatch(/^Denied by mcp-latch/);
  expect(readFileSync(join(home, '.claude-server-commander/config.json'), 'utf8')).toBe(before);
  expect(await call(h, 'set_config_value', { key: 'fileReadLineLimit', value: 500 })).toContain('Successfully set fileReadLineLimit');
}, 60_000);

test('with /bin/sh as its shell, start_process is read as bash and allowed as before', async () => {
  const { dir, proj, home } = project();
  const h = await startGateway(config(proj, home, '/bin/sh'), { dir });
  open.push(h);
  expect(await call(h, 'start_process', { command: 'echo ok' })).toMatch(/started with PID \d+ \(shell: \/bin\/sh\)\nInitial output:\nok/);
  expect(await call(h, 'start_process', { command: 'rm -rf victimdir' })).toContain('deny rule Bash(rm:*)');
}, 60_000);
