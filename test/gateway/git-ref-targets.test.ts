import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { COMMANDS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 16 left open (docs/threat-model.md#what-git-prints): a commit `git commit-tree` made around
 * a stored blob counts as unknown content until a ref names it, and `git branch x C` or `git reset
 * --soft C` made a ref name it: a later `git show x` printed the ignored .env (git 2.39). Through the
 * built gateway and mcp-server-commands, default mode, `Bash(git *)` allowed and `Read(**\/.env)`
 * denied: the commands that point a ref at C are refused (a client without prompts), so no later
 * call prints the secret; a ref pointed at HEAD is set as before.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const SECRET = 'API_KEY=REAL-SECRET';
const DENIED = /^Denied by mcp-latch/;

test('git branch x C, git reset --soft C and the like are refused for a commit no ref named; git show then prints no stored .env', async () => {
  const work = join(realpathSync(tempDir('git-targets-')), 'w');
  mkdirSync(work);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
  const git = (input: string, ...args: string[]): string => execFileSync('git', args, { cwd: work, env, encoding: 'utf8', input }).trim();
  git('', 'init', '-q', '-b', 'main');
  git('', 'config', 'user.email', 'a@b');
  git('', 'config', 'user.name', 'a');
  writeFileSync(join(work, '.gitignore'), '.env\n');
  writeFileSync(join(work, 'a.txt'), 'a\n');
  git('', 'add', '.');
  git('', 'commit', '-qm', 'one');
  writeFileSync(join(work, '.env'), `${SECRET}\n`);
  // The review's sequence: the ignored .env stored, a tree and a commit around it.
  const blob = git('', 'hash-object', '-w', '.env');
  const tree = git(`100644 blob ${blob}\tx\n`, 'mktree');
  const made = git('', 'commit-tree', tree, '-m', 'm');
  harness = await startGateway({
    mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } },
    workspace: [work],
    permissions: { defaultMode: 'default', allow: ['Bash(git *)'], deny: ['Read(**/.env)'] },
  });
  const run = async (command: string): Promise<string> => textOf(await harness!.client.callTool({ name: 'shell__run_command', arguments: { command, workdir: work } }));
  for (const command of [`git branch x ${made}`, `git tag t ${made}`, `git reset --soft ${made}`, `git update-ref refs/heads/x ${made}`, `git checkout -b x ${made}`, `git switch -c x ${made}`, `git stash store ${made}`, `git branch x ${made} && git show x`, `git read-tree ${tree} && git checkout-index -f x`]) {
    expect(await run(command), command).toMatch(DENIED);
  }
  for (const command of ['git show x', 'git show t', 'git show', 'git log -p -1 HEAD', 'git show stash@{0}', 'cat x']) expect(await run(command), command).not.toContain(SECRET);
  // The everyday form runs: a branch at HEAD, shown.
  expect(await run('git branch y HEAD')).not.toMatch(DENIED);
  expect(await run('git show y')).toContain('+a');
  expect(git('', 'rev-parse', 'y')).toBe(git('', 'rev-parse', 'main'));
}, 60_000);

/**
 * `REV:PATH` is from the top of the working tree in REV's tree (gitrevisions(7)): `cd src && git
 * cat-file -p HEAD:config/prod.json` printed the top's config/prod.json (git 2.39), read until
 * round 17 as src/config/prod.json; `git show T:x` of a tree made around a stored .env printed it.
 */
test('REV:PATH: the path from the top meets the rule; a tree made around a stored blob is refused', async () => {
  const work = join(realpathSync(tempDir('git-stored-')), 'w');
  mkdirSync(join(work, 'src'), { recursive: true });
  mkdirSync(join(work, 'config'));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
  const git = (input: string, ...args: string[]): string => execFileSync('git', args, { cwd: work, env, encoding: 'utf8', input }).trim();
  git('', 'init', '-q', '-b', 'main');
  writeFileSync(join(work, '.gitignore'), '.env\n');
  writeFileSync(join(work, 'src', 'a.ts'), 'a\n');
  writeFileSync(join(work, 'config', 'prod.json'), 'db=prod-pass\n');
  git('', 'add', '.');
  git('', 'commit', '-qm', 'one');
  writeFileSync(join(work, '.env'), `${SECRET}\n`);
  const tree = git(`100644 blob ${git('', 'hash-object', '-w', '.env')}\tx\n`, 'mktree');
  harness = await startGateway({
    mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } },
    workspace: [work],
    permissions: { defaultMode: 'default', allow: ['Bash(git *)'], deny: ['Read(**/.env)', `Read(${work}/config/**)`] },
  });
  const run = async (command: string, workdir = work): Promise<string> => textOf(await harness!.client.callTool({ name: 'shell__run_command', arguments: { command, workdir } }));
  for (const command of ['git cat-file -p HEAD:config/prod.json', 'git cat-file -p :config/prod.json']) {
    const printed = await run(command, join(work, 'src'));
    expect(printed, command).toMatch(DENIED);
    expect(printed, command).not.toContain('prod-pass');
  }
  for (const command of [`git show ${tree}:x`, `git cat-file -p ${tree}:x`]) expect(await run(command), command).toMatch(DENIED);
  expect(await run('git cat-file -p HEAD:src/a.ts', join(work, 'src'))).toBe('a\n');
}, 60_000);
