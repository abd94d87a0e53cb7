import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { tokenHash } from '../../src/team/identity.js';
import { ROOT, eventually, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * Desktop Commander's processes through the built gateway (round 14 review T6, T7, T12;
 * docs/threat-model.md#desktop-commanders-shell and #desktop-commanders-processes). Desktop
 * Commander is not a devDependency: test/fixtures/desktop-commander.mjs runs its process tools as
 * 0.2.52 does (its shell choice, `SHELL -l -c`, stdin lines), and real shells run the commands.
 */
const DC = join(ROOT, 'test/fixtures/desktop-commander.mjs');
const ZSH = '/usr/bin/zsh';
const open: Array<Harness | TeamHarness> = [];
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
const pidOf = (answer: string) => Number(/started with PID (\d+)/.exec(answer)?.[1]);

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

test('interact_with_process: input to a process that is not a bash this session started asks; a bash whose state changed asks too', async () => {
  const { dir, proj, home } = project();
  // The person allows each start_process and denies anything else asked.
  const answer = (params: ElicitRequest['params']) => ({ action: 'accept' as const, content: { decision: 'message' in params && params.message.includes('start_process') ? 'Allow once' : 'Deny' } });
  const h = await startGateway(config(proj, home, '/bin/bash'), { dir, onElicit: answer });
  open.push(h);
  // xargs runs find with each line as its arguments: `conf/secret -delete` is find's, not a program's.
  const xargs = pidOf(await call(h, 'start_process', { command: 'xargs -L1 find' }));
  expect(xargs).toBeGreaterThan(0);
  const typed = await call(h, 'interact_with_process', { pid: xargs, input: 'conf/secret -delete' });
  expect(typed).toMatch(/^Denied by mcp-latch/);
  expect(h.elicitations.at(-1)).toMatchObject({ message: expect.stringContaining('xargs -L1 find') });
  expect(existsSync(join(proj, 'conf/secret/db.txt'))).toBe(true);
  // A pid this session did not start.
  expect(await call(h, 'interact_with_process', { pid: 999_999_999, input: 'echo hi' })).toMatch(/^Denied by mcp-latch/);

  // A bash reading lines: each is analysed as a command, from the directory it started in.
  const bash = pidOf(await call(h, 'start_process', { command: 'bash' }));
  expect(await call(h, 'interact_with_process', { pid: bash, input: 'echo hi' })).toBe('Output:\nhi\n');
  expect(await call(h, 'interact_with_process', { pid: bash, input: 'cat conf/secret/db.txt' })).toContain('Read(./conf/secret/**)');
  // After `cd conf` its relative paths are not the ones the next line would be analysed against.
  const asked = h.elicitations.length;
  expect(await call(h, 'interact_with_process', { pid: bash, input: 'cd conf' })).toMatch(/^Output:/);
  const after = await call(h, 'interact_with_process', { pid: bash, input: 'cat secret/db.txt' });
  expect(after).toMatch(/^Denied by mcp-latch/);
  expect(after).not.toContain('hunter2');
  expect(h.elicitations.length).toBe(asked + 1);
}, 60_000);

test('a server started again under the same entry (it crashed) keeps none of the processes noted before: input to one of their pids asks (round 31 review, P31-4)', async () => {
  const { dir, proj, home } = project();
  const answer = (params: ElicitRequest['params']) => ({ action: 'accept' as const, content: { decision: 'message' in params && params.message.includes('start_process') ? 'Allow once' : 'Deny' } });
  const h = await startGateway(config(proj, home, '/bin/bash'), { dir, onElicit: answer });
  open.push(h);
  const bash = pidOf(await call(h, 'start_process', { command: 'bash' }));
  expect(await call(h, 'interact_with_process', { pid: bash, input: 'echo hi' })).toBe('Output:\nhi\n');
  // The shell's parent is the server: killed, it is started again (a new process, none of its pids noted).
  const server = Number(readFileSync(`/proc/${bash}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  process.kill(server, 'SIGKILL');
  await eventually(async () => expect(pidOf(await call(h, 'start_process', { command: 'bash' }))).toBeGreaterThan(0), 30_000);
  // Before round 31 the old pid was still read as this session's bash: `echo hi` was decided as a bash command and forwarded.
  const asked = h.elicitations.length;
  expect(await call(h, 'interact_with_process', { pid: bash, input: 'echo hi' })).toMatch(/^Denied by mcp-latch/);
  expect(h.elicitations.length).toBe(asked + 1);
}, 60_000);

test("team gateway: a member's process is refused to another member; one nobody started through the gateway asks", async () => {
  const { dir, proj, home } = project();
  const tokens = { alice: 'token-of-alice-dc-0123456789', bob: 'token-of-bob-dc-0123456789' };
  const team = await startTeam(dir, { ...config(proj, home, '/bin/bash'), http: { tokens: Object.entries(tokens).map(([user, token]) => ({ user, sha256: tokenHash(token) })) } });
  open.push(team);
  const alice = await teamClient(team.url, tokens.alice);
  const bob = await teamClient(team.url, tokens.bob);
  try {
    const pid = pidOf(await call(alice, 'start_process', { command: 'sleep 1; echo alice-output; sleep 30' }));
    expect(pid).toBeGreaterThan(0);
    for (const [name, args] of [
      ['read_process_output', { pid }],
      ['interact_with_process', { pid, input: 'echo hi' }],
      ['force_terminate', { pid }],
    ] as const) {
      const refused = await call(bob, name, args);
      expect(refused, name).toMatch(/^Denied by mcp-latch/);
      expect(refused).toContain("was started by another member's session");
    }
    expect(await call(bob, 'read_process_output', { pid: 999_999_999 })).toContain("was not started by this member's sessions");
    await new Promise((done) => setTimeout(done, 1500));
    expect(await call(alice, 'read_process_output', { pid })).toContain('alice-output');
    expect(await call(alice, 'force_terminate', { pid })).toContain('Successfully');
  } finally {
    await Promise.all([alice.close(), bob.close()]);
  }
}, 60_000);
