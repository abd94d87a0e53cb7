import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES } from '../helpers/policy.js';

/**
 * Round 25's review of round 24's command rules (docs/threat-model.md "Round 25: the review of
 * round 24"): R1 any make variable a recipe expands is shell text, R4 quoted names in NODE_OPTIONS
 * and BUN_OPTIONS, R5 corepack's own variables.
 */

let T = '';
let W = '';
let home = '';
beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('review25-'));
});

function shell(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideInWorkspace(command, mode, rules, W, home);
}

const installed = (program: string): boolean => {
  try {
    execFileSync(program, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
// CI runs without SHELL in the environment: make and corepack get a plain one (test/policy/rules23.test.ts).
const env = { ...process.env, SHELL: '/bin/sh', COREPACK_ENABLE_DOWNLOAD_PROMPT: '0' };

describe('R1. make: every variable a recipe expands is shell text', () => {
  test.skipIf(!installed('make'))("premise: GNU make runs `touch` put in CFLAGS by the built-in rule for x.o", () => {
    const dir = join(T, 'r1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'x.c'), 'int x;\n');
    try {
      execFileSync('make', ['CFLAGS=;touch PWNED;', 'x.o'], { cwd: dir, env, stdio: 'ignore' });
    } catch {
      // cc is given `-c -o x.o x.c` without a source after the `;`: it may fail after touch ran.
    }
    expect(existsSync(join(dir, 'PWNED'))).toBe(true);
  });
  const forms = [
    'make CFLAGS=";touch PWNED;" x.o',
    'make CPPFLAGS="|touch PWNED|" x.o',
    'make LDLIBS=";touch PWNED" x',
    'make TARGET_ARCH="&& touch PWNED" x.o',
    'make OUTPUT_OPTION="-o x.o; touch PWNED" x.o',
    "make MYFLAGS='a\"' x",
    'CFLAGS=";touch PWNED;" make x.o',
    'CFLAGS="|touch PWNED" npm run build',
    'export CFLAGS=";touch PWNED;"; make x.o',
    'CFLAGS=";touch PWNED;"; export CFLAGS; make x.o',
    'for i in 1 2; do make x.o; export CFLAGS=";touch PWNED;"; done',
  ];
  test.each(MODES)('%s: not allowed by Bash(make:*) / Bash(npm run build:*)', (mode) => {
    for (const command of forms) expect(shell(command, mode, { allow: ['Bash(make:*)', 'Bash(npm run build:*)'], deny: ['Bash(touch *)'] }).verdict, command).not.toBe('allow');
  });
  test.each(['make CFLAGS="-O2 -g" x.o', 'make -j4 V=1 DESTDIR=out install', 'make PREFIX=./usr/local/lib install'] /* outside the workspace a write since round 28 (rules28b L2) */)('default, Bash(make:*): %j stays allowed', (command) => {
    expect(shell(command, 'default', { allow: ['Bash(make:*)'] }).verdict).toBe('allow');
  });
  test('bypassPermissions: plain flags before make stay allowed', () => {
    expect(shell('CFLAGS="-O2 -g" make x.o', 'bypassPermissions', {}).verdict).toBe('allow');
  });
});

describe('R4. NODE_OPTIONS and BUN_OPTIONS: a quoted option name is that option', () => {
  test("premise: node takes the quotes off `\"--require\"` in NODE_OPTIONS", () => {
    const dir = join(T, 'r4');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'x.js'), "require('fs').writeFileSync(__dirname + '/LOADED', '')\n");
    execFileSync(process.execPath, ['-e', '1'], { cwd: dir, env: { ...env, NODE_OPTIONS: '"--require" ./x.js' }, stdio: 'ignore' });
    expect(existsSync(join(dir, 'LOADED'))).toBe(true);
  });
  const forms = [
    `NODE_OPTIONS='"--require" ./x.js' npm test`,
    `NODE_OPTIONS='--max-old-space-size=100 "--require=./x.js"' npm test`,
    `NODE_OPTIONS='--max-old-space-size 100' npm test`,
    `BUN_OPTIONS='"--preload" ./x.js' bun y.js`,
    `BUN_OPTIONS='-ur ./x.js' bun y.js`,
    `BUN_OPTIONS='--smol x.js' bun y.js`,
  ];
  test.each(MODES)('%s: not allowed', (mode) => {
    for (const command of forms) expect(shell(command, mode, { allow: ['Bash(npm test:*)', 'Bash(bun:*)'], deny: ['Bash(node *)'] }).verdict, command).not.toBe('allow');
  });
  test.each(['NODE_OPTIONS=--max-old-space-size=4096 npm test', 'BUN_OPTIONS=--smol bun y.js'])('bypassPermissions: %j stays allowed', (command) => {
    expect(shell(command, 'bypassPermissions', {}).verdict).toBe('allow');
  });
});

describe("R5. corepack's variables", () => {
  test.skipIf(!installed('corepack'))('premise: corepack runs the release it finds below COREPACK_HOME', () => {
    const dir = join(T, 'r5');
    const release = join(dir, 'home', 'v1', 'yarn', '1.22.99');
    mkdirSync(release, { recursive: true });
    writeFileSync(join(dir, 'home', 'lastKnownGood.json'), JSON.stringify({ yarn: '1.22.99' }));
    writeFileSync(join(release, '.corepack'), JSON.stringify({ hash: 'sha512.x', bin: { yarn: 'x.js' } }));
    writeFileSync(join(release, 'x.js'), `require('fs').writeFileSync(${JSON.stringify(join(dir, 'COREPACK-RAN'))}, '')\n`);
    try {
      execFileSync('corepack', ['yarn', '--version'], { cwd: dir, env: { ...env, COREPACK_HOME: join(dir, 'home'), COREPACK_ENABLE_NETWORK: '0' }, stdio: 'ignore' });
    } catch {
      // what the fake release prints does not matter
    }
    expect(existsSync(join(dir, 'COREPACK-RAN'))).toBe(true);
  });
  const forms = ['COREPACK_HOME=/tmp/d corepack yarn --version', 'export COREPACK_HOME=/tmp/d; yarn --version', 'COREPACK_NPM_REGISTRY=http://127.0.0.1:1 corepack yarn --version', 'COREPACK_ENV_FILE=./x.env pnpm install', 'COREPACK_ENABLE_AUTO_PIN=1 yarn install'];
  test.each(MODES)('%s: not allowed', (mode) => {
    for (const command of forms) expect(shell(command, mode, { allow: ['Bash(yarn:*)', 'Bash(pnpm:*)', 'Bash(corepack:*)'], deny: ['Bash(rm *)'] }).verdict, command).not.toBe('allow');
  });
  test('bypassPermissions: the prompt switch stays allowed', () => {
    expect(shell('COREPACK_ENABLE_DOWNLOAD_PROMPT=0 yarn --version', 'bypassPermissions', {}).verdict).toBe('allow');
  });
});

describe("R11. bun's debugger by environment", () => {
  test.each(MODES)('%s: BUN_INSPECT before bun, or exported, not allowed', (mode) => {
    for (const command of ['BUN_INSPECT=ws://0.0.0.0:6499/x bun test', 'export BUN_INSPECT=ws://0.0.0.0:6499/x; bun test', 'BUN_INSPECT_CONNECT_TO=ws://10.0.0.9:1/x npm test']) {
      expect(shell(command, mode, { allow: ['Bash(bun test:*)', 'Bash(npm test:*)'], deny: ['Bash(rm *)'] }).verdict, command).not.toBe('allow');
    }
  });
});

describe("R14. git starts others with its environment: hooks, aliases, editors", () => {
  test('premise: a pre-commit hook\'s node reads NODE_OPTIONS given to git commit', () => {
    const repo = join(T, 'r14');
    mkdirSync(join(repo, '.git-hooks'), { recursive: true });
    const gitEnv = { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
    execFileSync('git', ['init', '-q'], { cwd: repo, env: gitEnv });
    writeFileSync(join(repo, '.git-hooks', 'pre-commit'), `#!/bin/sh\n${JSON.stringify(process.execPath)} -e 1\n`, { mode: 0o755 });
    writeFileSync(join(repo, 'x.js'), "require('fs').writeFileSync(__dirname + '/X-LOADED', '')\n");
    execFileSync('git', ['-c', 'core.hooksPath=.git-hooks', 'commit', '-q', '--allow-empty', '-m', 'x'], { cwd: repo, env: { ...gitEnv, NODE_OPTIONS: `--require=${join(repo, 'x.js')}` }, stdio: 'ignore' });
    expect(existsSync(join(repo, 'X-LOADED'))).toBe(true);
  });
  test.each(MODES)('%s: settings of the programs git starts, before git, not allowed', (mode) => {
    for (const command of ['NODE_OPTIONS=--require=./x.js git commit -m x', 'BUN_OPTIONS=--preload=./x.js git commit -m x', 'MAKEFLAGS=SHELL=./sh git commit -m x', 'YARN_YARN_PATH=./x.cjs git push']) {
      expect(shell(command, mode, { allow: ['Bash(git commit:*)', 'Bash(git push:*)'], deny: ['Bash(rm *)'] }).verdict, command).not.toBe('allow');
    }
  });
  test.each(['GIT_AUTHOR_NAME=Me git commit -m x', 'LANG=C git status'])('bypassPermissions: %j stays allowed', (command) => {
    expect(shell(command, 'bypassPermissions', {}).verdict).toBe('allow');
  });
});
