import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES } from '../helpers/policy.js';

/**
 * pnpm's, yarn's and bun's command word past options this gateway has no table for (round 21 late
 * review L5, L1's family): pnpm reads its options with nopt over npm's and its own keys, so any key
 * typed String or Number takes the next word (`pnpm --reporter silent dlx cowsay` runs dlx); yarn 1
 * (commander) does the same for an option declared with a value (`yarn --mutex file exec …`). A word
 * after an option not known here may be that option's value or the command: the analyser asks, and
 * deny and ask rules meet both readings (docs/rules.md, "Program options before the command word").
 */

let W = '';
let home = '';

beforeAll(async () => {
  ({ work: W, home } = await commandWorkspace('pm-options-'));
  writeFileSync(join(W, 'package.json'), JSON.stringify({ name: 'w', version: '1.0.0', scripts: { deploy: 'touch deployed', test: 'true' } }));
});

function shell(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideInWorkspace(command, mode, rules, W, home);
}

const pnpm = ((): string[] | null => {
  for (const candidate of [['pnpm'], ['corepack', 'pnpm']]) {
    try {
      execFileSync(candidate[0]!, [...candidate.slice(1), '--version'], { stdio: 'ignore', env: { ...process.env, COREPACK_ENABLE_DOWNLOAD_PROMPT: '0' }, timeout: 60_000 });
      return candidate;
    } catch {
      // not installed, or corepack cannot fetch it here
    }
  }
  return null;
})();

/** yarn 1 on PATH, for the premises (yarn 1.22.22 was checked). */
const yarn = ((): boolean => {
  try {
    return execFileSync('yarn', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 }).toString().startsWith('1.');
  } catch {
    return false;
  }
})();

describe('pnpm: an option this gateway does not know, followed by a word', () => {
  // pnpm 9.15.9 (parse-cli-args: nopt over its universal options and install's keys): a universal
  // option typed String takes the next word, a Boolean a following `true`, and the command is the
  // word after; an option it does not know takes none, and that word is the command (pnpm runs a
  // word that is not one of its commands as a program). Needs pnpm on PATH.
  test.skipIf(!pnpm).each([
    ['--reporter', 'silent'],
    ['--test-pattern', 'x'],
    ['--stream', 'true'],
  ])('premise: pnpm %s %s exec touch F runs touch', (option, value) => {
    const file = `ran-${option.replace(/-/g, '')}`;
    execFileSync(pnpm![0]!, [...pnpm!.slice(1), option, value, 'exec', 'touch', file], { cwd: W, stdio: 'ignore', env: { ...process.env, COREPACK_ENABLE_DOWNLOAD_PROMPT: '0' }, timeout: 60_000 });
    expect(existsSync(join(W, file))).toBe(true);
  });
  test.skipIf(!pnpm)('premise: pnpm --some-key touch F runs touch (the word after an unknown option is the command)', () => {
    execFileSync(pnpm![0]!, [...pnpm!.slice(1), '--some-key', 'touch', 'ran-unknown'], { cwd: W, stdio: 'ignore', env: { ...process.env, COREPACK_ENABLE_DOWNLOAD_PROMPT: '0' }, timeout: 60_000 });
    expect(existsSync(join(W, 'ran-unknown'))).toBe(true);
  });
  // yarn 1 (commander): `--mutex <type>` and the optional `--emoji [bool]` take the next word. Needs yarn 1 on PATH.
  test.skipIf(!yarn)('premise: yarn --use-yarnrc F runs the yarn-path F names, even after another option', () => {
    writeFileSync(join(W, 'evil.js'), "require('fs').writeFileSync('ran-yarnrc', '')");
    writeFileSync(join(W, 'notes.txt'), 'yarn-path "./evil.js"\n');
    execFileSync('yarn', ['--version', '--use-yarnrc', 'notes.txt'], { cwd: W, stdio: 'ignore', timeout: 60_000 });
    expect(existsSync(join(W, 'ran-yarnrc'))).toBe(true);
  });
  test.skipIf(!yarn).each([
    ['--mutex', 'file'],
    ['--network-timeout', '1000'],
    ['--emoji', 'true'],
  ])('premise: yarn %s %s exec touch F runs touch', (option, value) => {
    const file = `ran-yarn-${option.replace(/-/g, '')}`;
    execFileSync('yarn', [option, value, 'exec', 'touch', file], { cwd: W, stdio: 'ignore', timeout: 60_000 });
    expect(existsSync(join(W, file))).toBe(true);
  });

  const RULES = { allow: ['Bash(pnpm:*)', 'Bash(yarn:*)', 'Bash(bun:*)'], ask: ['Bash(pnpm publish *)', 'Bash(yarn publish *)'], deny: ['Bash(rm *)', 'Bash(pnpm run deploy *)', 'Bash(yarn run deploy *)'] };
  test.each([
    // a value option now known
    ['pnpm --reporter silent dlx cowsay', 'ask'],
    ['pnpm --reporter silent publish', 'ask'],
    ['pnpm --reporter silent exec rm -rf victim', 'deny'],
    ['pnpm --workspace-concurrency 2 exec rm -rf victim', 'deny'],
    ['pnpm --reporter=silent exec rm -rf victim', 'deny'],
    // an option not known here: either reading
    ['pnpm --registry http://r publish', 'ask'],
    ['pnpm --registry http://r exec rm -rf victim', 'deny'],
    ['pnpm --store-dir /tmp/s run deploy', 'deny'],
    ['pnpm --some-key v dlx cowsay', 'ask'],
    ['pnpm --some-key dlx cowsay', 'ask'],
    ['pnpm -Z v exec rm -rf victim', 'deny'],
    ['pnpm --stream true exec rm -rf victim', 'deny'],
    ['pnpm --color always publish', 'ask'],
    ['pnpm --reporter silent --some-key v --stream true exec rm -rf victim', 'deny'],
    ['pnpm --some-key v --reporter silent run deploy', 'deny'],
    // yarn 1: --mutex, --cache-folder, --network-timeout take a value
    ['yarn --mutex file exec rm -rf victim', 'deny'],
    ['yarn --mutex file dlx cowsay', 'ask'],
    ['yarn --cache-folder /tmp/c publish', 'ask'],
    ['yarn --network-timeout 1000 run deploy', 'deny'],
    ['yarn --foo bar exec rm -rf victim', 'deny'],
    // bun
    ['bun --foo bar x cowsay', 'ask'],
  ])('default, allow pnpm/yarn/bun: %j is not allowed (%s)', (command, verdict) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe(verdict);
  });
  test.each(MODES)('%s: deny and ask rules hold past an option not known here', (mode) => {
    for (const command of ['pnpm --registry http://r exec rm -rf victim', 'pnpm --store-dir /tmp/s run deploy', 'pnpm --registry http://r publish', 'yarn --mutex file exec rm -rf victim', 'yarn --foo bar run deploy']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).not.toBe('allow');
    }
  });
  test.each([
    'pnpm install', 'pnpm add -D vitest', 'pnpm --silent run test', 'pnpm -s test', 'pnpm --stream run build', 'pnpm --reporter silent test',
    'pnpm --reporter=silent test', 'pnpm --loglevel error test', 'pnpm --color test', 'pnpm --no-color test',
    'yarn install', 'yarn --silent test', 'yarn --frozen-lockfile install', 'yarn --offline install', 'yarn --verbose install', 'bun install', 'bun --silent run test',
  ])('default, allow pnpm/yarn/bun: everyday %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  // Options that move the package whose script runs ask as before (runners.ts PACKAGE_MOVERS, round 13
  // review A4), and yarn's --use-yarnrc, a settings file whose yarn-path yarn runs in its place.
  // pnpm's project pickers before the command word (`pnpm -r test`, `pnpm --filter web build`) are
  // read as written since round 23 (A2, rules23.test.ts); after it they still ask.
  test.each(['pnpm run test -r', 'pnpm build --filter web', 'pnpm -C sub install', 'yarn --cwd sub install', 'yarn --use-yarnrc notes.txt install', 'yarn --version --use-yarnrc=notes.txt'])('default: %j still asks (it moves the package, or names a settings file)', (command) => {
    expect(shell(command, 'default', RULES).verdict).toBe('ask');
  });
});

describe('yarn and bun: a first word that is not one of their commands runs the script of that name', () => {
  // yarn 1.22.22 (and berry, and bun) run `yarn deploy` as `yarn run deploy` (round 21 review B7 for pnpm; yarn and bun were left open).
  test.skipIf(!yarn)('premise: yarn deploy runs the script deploy', () => {
    execFileSync('yarn', ['deploy'], { cwd: W, stdio: 'ignore', timeout: 60_000 });
    expect(existsSync(join(W, 'deployed'))).toBe(true);
  });
  const RULES = { allow: ['Bash(yarn:*)', 'Bash(bun:*)'], ask: ['Bash(yarn run publish-docs *)'], deny: ['Bash(yarn run deploy *)', 'Bash(bun run deploy *)', 'Bash(rm *)'] };
  test.each(MODES)('%s: deny and ask rules on `yarn run NAME` meet `yarn NAME`', (mode) => {
    for (const [command, verdict] of [['yarn deploy', 'deny'], ['yarn --silent deploy --prod', 'deny'], ['bun deploy', 'deny'], ['yarn publish-docs', 'ask'], ['yarn --mutex file deploy', 'deny']] as const) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(verdict);
    }
  });
  test.each(['yarn install', 'yarn add -D vitest', 'yarn test', 'bun install', 'bun test', 'bun run test'])('default: %j stays allowed', (command) => {
    expect(shell(command, 'default', RULES).verdict).toBe('allow');
  });
});

describe('pnpm and yarn: config set of a key naming a program', () => {
  // yarn 1.22.22: `yarn config set script-shell P` wrote P to its global .yarnrc, and the next `yarn
  // deploy` ran P (not run here: it would change this machine's yarn). pnpm reads script-shell too.
  const RULES = { allow: ['Bash(yarn:*)', 'Bash(pnpm:*)'], deny: ['Bash(rm *)'] };
  test.each([
    ['yarn config set script-shell ./x.sh', 'ask'],
    ['yarn config set yarn-path ./x.js', 'ask'],
    ['yarn config set yarnPath ./x.js', 'ask'],
    ['pnpm config set script-shell ./x.sh', 'ask'],
    ['pnpm set script-shell=./x.sh', 'ask'],
    ['pnpm config set shell "rm -rf victim"', 'deny'],
  ])('default: %j is not allowed (%s)', (command, verdict) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe(verdict);
  });
  test.each(['yarn config set registry https://registry.example', 'pnpm config set store-dir /tmp/store', 'yarn config get script-shell', 'pnpm config list'])('default: %j stays allowed', (command) => {
    expect(shell(command, 'default', RULES).verdict).toBe('allow');
  });
});
