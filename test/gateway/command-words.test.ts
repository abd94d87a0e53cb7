import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { COMMANDS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 21 review (review-bypass21), end to end: the built gateway in front of mcp-server-commands,
 * a real git repository with a local remote and a package.json. Each command runs another command
 * than the word it is written with (git's help.autocorrect, npm's abbreviations and aliases, git
 * archive's tar.<format>.command, git send-pack): none reaches the server, and the remote, the
 * files and the scripts are as they were (docs/threat-model.md, "Round 21: the command a word names";
 * round 23's rows: yarn's own release, make's settings by environment).
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const DENIED = /^Denied by mcp-latch/;
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd, env: { ...ENV, HOME: cwd } }).toString().trim();
}

async function gateway(mode: DefaultMode): Promise<{ work: string; remote: string }> {
  const root = realpathSync(tempDir('command-words-'));
  const work = join(root, 'w');
  const remote = join(root, 'remote.git');
  mkdirSync(join(work, 'victim'), { recursive: true });
  writeFileSync(join(work, 'victim', 'data'), 'keep\n');
  writeFileSync(join(work, 'README'), 'hi\n');
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { deploy: 'node -e "require(\'fs\').writeFileSync(\'deployed\', \'\')"', dev: 'node -e "require(\'fs\').writeFileSync(\'dev-ran\', process.argv.slice(1).join(\' \'))"' } }));
  // Round 23: a makefile, a program make would take for its shell and a makefile MAKEFILES would add.
  writeFileSync(join(work, 'Makefile'), 'all:\n\t@true\n');
  writeFileSync(join(work, 'sh'), `#!/bin/sh\ntouch ${join(work, 'made-shell')}\n`, { mode: 0o755 });
  writeFileSync(join(work, 'e.mk'), `$(shell touch ${join(work, 'made-makefiles')})\n`);
  writeFileSync(join(work, 'x.cjs'), "require('fs').writeFileSync('yarn-ran', '')\n");
  git(root, 'init', '-q', '--bare', remote);
  git(work, 'init', '-q', '-b', 'main', '.');
  git(work, 'add', 'README');
  git(work, 'commit', '-q', '-m', 'init');
  git(work, 'remote', 'add', 'origin', remote);
  harness = await startGateway({
    mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } },
    workspace: [work],
    permissions: {
      defaultMode: mode,
      allow: mode === 'default' ? ['Bash(git:*)', 'Bash(npm:*)', 'Bash(pnpm:*)', 'Bash(yarn:*)', 'Bash(make:*)', 'Bash(echo *)', 'Bash(corepack:*)', 'Bash(bun run:*)'] : [],
      ask: ['Bash(git push *)'],
      deny: ['Bash(rm *)', 'Bash(git clean *)', 'Bash(npm run deploy *)', 'Bash(yarn run deploy *)'],
    },
  });
  return { work, remote };
}

async function run(command: string, workdir: string): Promise<string> {
  return textOf(await harness!.client.callTool({ name: 'shell__run_command', arguments: { command, workdir } }));
}

const remoteHasMain = (remote: string): boolean => {
  try {
    git(remote, 'rev-parse', '--verify', '-q', 'main');
    return true;
  } catch {
    return false;
  }
};

for (const mode of ['default', 'bypassPermissions'] as const) {
  test(`${mode}: git's autocorrect, npm's short words and options, pnpm's and yarn's, tar.<format>.command and send-pack reach no server`, async () => {
    const { work, remote } = await gateway(mode);
    // The server runs what is allowed.
    if (mode === 'default') expect(await run('git status --short', work)).not.toMatch(DENIED);
    for (const command of [
      'git -c help.autocorrect=immediate psuh origin main', // asks (no client form): refused
      'git -c help.autocorrect=immediate cleab -fdx',
      'git send-pack ../remote.git main',
      'npm exe -- rm -rf victim',
      'npm rum deploy',
      "git -c tar.x.command='rm -rf victim && cat' archive --format=x HEAD",
      // Round 21 late review L1 and L5: a value option before the command word; yarn's script words (round 22).
      'npm --cache /tmp/c exec -- rm -rf victim',
      'npm --otp 1 run deploy',
      'pnpm --reporter silent exec rm -rf victim',
      'yarn --mutex file exec rm -rf victim',
      'yarn deploy',
      // Round 23: yarn's own release from a file; environment that picks make's settings.
      'yarn set version ./x.cjs',
      `MAKEFLAGS=SHELL=${join(work, 'sh')} make`,
      'MAKEFILES=e.mk make',
      'export MAKEFLAGS=SHELL=./sh; make',
      // Round 25 review R6, R7: npm's short words through corepack; bun run's program from PATH.
      'corepack npm exe -- rm -rf victim',
      'corepack npm rum deploy',
      'bun run rm -rf victim',
    ]) {
      expect(await run(command, work), command).toMatch(DENIED);
    }
    expect(remoteHasMain(remote)).toBe(false);
    expect(existsSync(join(work, 'victim', 'data'))).toBe(true);
    expect(existsSync(join(work, 'package.json'))).toBe(true);
    expect(existsSync(join(work, 'deployed'))).toBe(false);
    for (const file of ['made-shell', 'made-makefiles', 'yarn-ran', '.yarnrc.yml']) expect(existsSync(join(work, file)), file).toBe(false);
    // Round 23: a key npm does not know after the script's name no longer asks (round 22's N1 did).
    expect(await run('npm run dev --host 0.0.0.0', work)).not.toMatch(DENIED);
    expect(existsSync(join(work, 'dev-ran'))).toBe(true);
  });
}
