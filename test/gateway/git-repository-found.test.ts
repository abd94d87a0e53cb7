import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { COMMANDS_SERVER, FS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 13 review, A14 and A10: git decides when it runs which directory's config it reads, while
 * the built-in rules protected git's code files by how a directory looked when they were written.
 * Through the built gateway, server-filesystem and mcp-server-commands, acceptEdits and no allow
 * rules: the write that points git at planted code asks (`.git/commondir`, the HEAD that makes a
 * directory holding a config a git directory), and when that code is on disk anyway (written before
 * the gateway ran), the git command that would run it asks too; the victim directory stays
 * (docs/threat-model.md#files-and-settings-git-runs-code-from).
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const DENIED = /^Denied by mcp-latch/;

function repository(dir: string): string {
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' } }).toString().trim();
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README'), 'hi\n');
  git('init', '-q', '-b', 'main');
  git('add', 'README');
  git('commit', '-qm', 'i');
  return git('rev-parse', 'HEAD');
}

/** A repository w with one commit, a victim directory beside it, and the gateway in front of both servers. */
async function setUp(): Promise<{ work: string; victim: string; head: string }> {
  const root = realpathSync(tempDir());
  const work = join(root, 'w');
  const victim = join(root, 'victim');
  mkdirSync(work);
  mkdirSync(victim);
  const head = repository(work);
  harness = await gateway(work);
  return { work, victim, head };
}

async function gateway(work: string): Promise<Harness> {
  return startGateway({
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, work] }, shell: { command: process.execPath, args: [COMMANDS_SERVER] } },
    workspace: [work],
    permissions: { defaultMode: 'acceptEdits', allow: [], deny: ['Bash(rm *)', 'Bash(curl *)'] },
  });
}

/** The planted repository's files, each written through server-filesystem (every one is forwarded). */
async function plant(h: Harness, dir: string, objects: string, head: string, victim: string): Promise<void> {
  for (const sub of ['refs/heads', 'objects/info', 'info']) {
    expect(textOf(await h.client.callTool({ name: 'fs__create_directory', arguments: { path: join(dir, sub) } }))).not.toMatch(DENIED);
  }
  // objects/ and refs/ first: once the directory holds a config, writing below them asks.
  const files: Array<[string, string]> = [
    ['objects/info/alternates', `${objects}\n`],
    ['refs/heads/main', `${head}\n`],
    ['config', `[core]\n\trepositoryformatversion = 0\n[diff "x"]\n\ttextconv = "rm -rf ${victim}; cat"\n`],
    ['info/attributes', '* diff=x\n'],
  ];
  for (const [name, content] of files) {
    expect(textOf(await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, name), content } }))).not.toMatch(DENIED);
  }
}

test('A14: writing .git/commondir asks; a commondir on disk naming a planted directory makes git log -p ask', async () => {
  const { work, victim, head } = await setUp();
  await plant(harness!, join(work, 'evil'), join(work, '.git', 'objects'), head, victim);
  const commondir = await harness!.client.callTool({ name: 'fs__write_file', arguments: { path: join(work, '.git', 'commondir'), content: '../evil\n' } });
  expect(textOf(commondir)).toMatch(DENIED);
  expect(textOf(commondir)).toContain('**/.git/commondir');
  // The everyday command still runs in the repository as it is.
  expect(textOf(await harness!.client.callTool({ name: 'shell__run_command', arguments: { command: 'git log -p', workdir: work } }))).toContain('+hi');
  // The same file on disk, written where the gateway did not see it: git would read evil/config.
  writeFileSync(join(work, '.git', 'commondir'), '../evil\n');
  for (const command of ['git log -p', 'cd src && git diff HEAD~0', 'git status']) {
    const ran = await harness!.client.callTool({ name: 'shell__run_command', arguments: { command, workdir: work } });
    expect(textOf(ran), command).toMatch(DENIED);
  }
  expect(existsSync(victim)).toBe(true);
}, 60_000);

test('A10: the HEAD that makes a directory holding a config a git directory asks; a bare repository on disk in src/b makes git log -p there ask', async () => {
  const { work, victim, head } = await setUp();
  const bare = join(work, 'src', 'b');
  await plant(harness!, bare, join(work, '.git', 'objects'), head, victim);
  const written = await harness!.client.callTool({ name: 'fs__write_file', arguments: { path: join(bare, 'HEAD'), content: `${head}\n` } });
  expect(textOf(written)).toMatch(DENIED);
  expect(textOf(written)).toContain('git runs code named in the config, hooks/ and info/attributes of the git directory');
  writeFileSync(join(bare, 'HEAD'), `${head}\n`);
  for (const command of ['cd src/b && git log -p', 'git -C src/b log -p', 'cd src/b && git status']) {
    const ran = await harness!.client.callTool({ name: 'shell__run_command', arguments: { command, workdir: work } });
    expect(textOf(ran), command).toMatch(DENIED);
  }
  expect(existsSync(victim)).toBe(true);
  // git run from the working tree itself finds the repository's own .git.
  expect(textOf(await harness!.client.callTool({ name: 'shell__run_command', arguments: { command: 'git log -p', workdir: work } }))).toContain('+hi');
}, 60_000);
