import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES } from '../helpers/policy.js';

/**
 * Round 24's review of round 23's command rules (docs/threat-model.md "Round 24: the review's rule
 * findings"): F1 npm's glued shorthands and `no-no-` after the script name, F2 pnpm's since-selector
 * handed to git, F6/F9/F10 settings by environment (podman exported, berry's lower-case names,
 * `BUN_OPTIONS`), F8 `yarnpkg` and `corepack yarn|pnpm`.
 */

let T = '';
let W = '';
let home = '';
beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('review24-'));
});

function shell(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideInWorkspace(command, mode, rules, W, home);
}

const hasNpm = (() => {
  try {
    execFileSync('npm', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('F1. npm after the script name: keys nopt reads as its own, however written', () => {
  test.skipIf(!hasNpm)('premise: npm 11 runs ../evil\'s dev script for `npm run dev --yC ../evil` (--yes --prefix)', () => {
    const proj = join(T, 'f1', 'proj');
    const evil = join(T, 'f1', 'evil');
    mkdirSync(proj, { recursive: true });
    mkdirSync(evil, { recursive: true });
    writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { dev: 'true' } }));
    writeFileSync(join(evil, 'package.json'), JSON.stringify({ name: 'e', version: '1.0.0', scripts: { dev: 'touch EVIL-RAN' } }));
    execFileSync('npm', ['run', 'dev', '--yC', '../evil'], { cwd: proj, env: { ...process.env, npm_config_update_notifier: 'false' }, stdio: 'ignore' });
    expect(existsSync(join(evil, 'EVIL-RAN'))).toBe(true);
  });
  const forms: [string, string][] = [
    ['npm run dev --fC ../evil', 'Bash(npm run dev:*)'],
    ['npm run dev --yC ../evil', 'Bash(npm run dev:*)'],
    ['npm test --yC /tmp/evil', 'Bash(npm test:*)'],
    ['npm run dev --yC /tmp/evil', 'Bash(npm:*)'],
    ['npm run dev --fw packages/a', 'Bash(npm run dev:*)'],
    ['npm run dev --no-no-workspaces', 'Bash(npm run dev:*)'],
    ['npm run dev --NO-no-ws', 'Bash(npm run dev:*)'],
    ['npm start --Cy ../evil', 'Bash(npm start:*)'],
  ];
  test.each(MODES)('%s: not allowed', (mode) => {
    for (const [command, rule] of forms) expect(shell(command, mode, { allow: [rule], deny: ['Bash(npm run deploy *)'] }).verdict, command).not.toBe('allow');
  });
  test.each(['npm run dev --host 0.0.0.0', 'npm run dev --port 3000', 'npm run dev --open', 'npm test --watch-all false', 'npm run dev --mode production'])('default, Bash(npm:*): %j stays allowed', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(npm:*)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('F2. pnpm --filter [SINCE]: the selector is handed to git diff', () => {
  const forms = [
    'pnpm --filter "[--output=$HOME/.bashrc]" run dev',
    "pnpm --filter '[--output=/home/u/.bashrc]' run dev",
    "pnpm -F '[--output=/home/u/.bashrc]' test",
    "pnpm --filter='[--output=/home/u/.bashrc]' build",
    "pnpm --filter '...[--output=/home/u/.profile]' -r test",
    'pnpm --filter "$F" build',
    "pnpm --filter '-x' build",
    "pnpm --filter 'a b' build",
    'pnpm -rF app build',
    // pnpm 9.15.9 runs DIR's script for --prefix DIR before the command word; after it, as every mover there, it asks.
    'pnpm --prefix ../evil run dev',
    'pnpm --prefix=../evil run dev',
    'pnpm run dev --prefix ../evil',
  ];
  test.each(MODES)('%s: not allowed under Bash(pnpm:*) with deny rules on the files', (mode) => {
    for (const command of forms) {
      expect(shell(command, mode, { allow: ['Bash(pnpm:*)'], deny: ['Bash(rm:*)', 'Edit(~/.bashrc)', 'Edit(~/.profile)'] }).verdict, command).not.toBe('allow');
    }
  });
  test.each(['pnpm --filter app build', 'pnpm --filter "...[origin/main]" test', "pnpm --filter '@scope/*' build", 'pnpm --filter ./packages/x test', 'pnpm --filter=!app -r build', 'pnpm -F app test'])('default, Bash(pnpm:*): %j stays allowed', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(pnpm:*)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('F6, F9, F10. settings by environment: podman exported, berry\'s names in any case, BUN_OPTIONS', () => {
  const forms = [
    'yarn_yarn_path=./x.cjs yarn --version',
    'Yarn_Yarn_Path=./x.cjs yarn test',
    'yarn_rc_filename=notes.txt yarn test',
    'export yarn_yarn_path=./x.cjs; yarn test',
    'yarn_yarn_path=./x.cjs ./build.sh',
    'export CONTAINERS_CONF=./c.conf; podman ps',
    'export CONTAINERS_REGISTRIES_CONF=./r.conf; podman ps',
    'printf -v CONTAINERS_CONF %s ./c.conf; export CONTAINERS_CONF; podman ps',
    `BUN_OPTIONS="--eval=require('fs').rmSync('victim',{recursive:true})" bun main.ts`,
    'BUN_OPTIONS="--preload ./evil.ts" bun main.ts',
    'export BUN_OPTIONS="--preload ./evil.ts"; bun test',
    'BUN_OPTIONS=-r./evil.ts npm test',
  ];
  test.each(forms)('bypassPermissions with deny rules: %j is not allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', { deny: ['Bash(rm *)', 'Bash(node *)'] });
    expect(decision.verdict, decision.reason).not.toBe('allow');
  });
  test.each(['yarn_enable_colors=0 yarn build', 'YARN_ENABLE_COLORS=0 yarn build', 'makeflags=x make', 'bun test', 'podman ps'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', { deny: ['Bash(rm *)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('F8. yarnpkg and corepack run the same managers: the same checks', () => {
  const forms: [string, string][] = [
    ['yarnpkg node ./evil.js', 'Bash(yarnpkg:*)'],
    ['yarnpkg set version ./x.cjs', 'Bash(yarnpkg:*)'],
    ['yarnpkg run --require ./evil.js bd', 'Bash(yarnpkg:*)'],
    ['yarnpkg --cwd ../evil test', 'Bash(yarnpkg:*)'],
    ['yarnpkg config set yarnPath ./x.cjs', 'Bash(yarnpkg:*)'],
    ['yarnpkg --use-yarnrc notes.txt test', 'Bash(yarnpkg:*)'],
    ['/usr/bin/yarnpkg set version ./x.cjs', 'Bash(/usr/bin/yarnpkg:*)'],
    ['corepack yarn set version ./x.cjs', 'Bash(corepack:*)'],
    ['corepack yarn@4.5.1 node ./evil.js', 'Bash(corepack:*)'],
    ['corepack yarnpkg set version ./x.cjs', 'Bash(corepack:*)'],
    ['corepack pnpm --filter "[--output=/tmp/x]" test', 'Bash(corepack:*)'],
    ['corepack npm run dev --prefix ../evil', 'Bash(corepack:*)'],
    ['corepack yarn@https://example.com/yarn.js build', 'Bash(corepack:*)'],
  ];
  test.each(MODES)('%s: not allowed', (mode) => {
    for (const [command, rule] of forms) expect(shell(command, mode, { allow: [rule], deny: ['Bash(rm *)'] }).verdict, command).not.toBe('allow');
  });
  test.each(['yarnpkg exec rm -rf x', 'corepack yarn exec rm -rf x'])('default: %j is denied by Bash(rm *)', (command) => {
    expect(shell(command, 'default', { allow: ['Bash(yarnpkg:*)', 'Bash(corepack:*)'], deny: ['Bash(rm *)'] }).verdict).toBe('deny');
  });
  // `corepack enable` writes the shims beside node on PATH: it asks since round 28 (rules28a C1); `corepack install` (the project's release, into the cache) stays allowed.
  test.each([['yarnpkg build', 'Bash(yarnpkg:*)'], ['yarnpkg set version stable', 'Bash(yarnpkg:*)'], ['corepack yarn build', 'Bash(corepack:*)'], ['corepack yarn@4.5.1 install', 'Bash(corepack:*)'], ['corepack pnpm --filter app build', 'Bash(corepack:*)'], ['corepack install', 'Bash(corepack:*)']])('default: %j stays allowed under %s', (command, rule) => {
    const decision = shell(command, 'default', { allow: [rule] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});
