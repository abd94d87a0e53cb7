import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { commandWorkspace, decideInWorkspace, MODES, runs } from '../helpers/policy.js';

/**
 * Round 26 review (review26.md), the package-manager findings (docs/threat-model.md "Round 26: the
 * review of round 25"):
 *
 *   S13: `pnpm pkg set scripts.x=CMD && pnpm x`, `bun pm pkg set scripts.x=CMD && bun run x` write a script.
 *   S7:  `bun up` is `bun update`; `yarn --production` (an optional-value option, no command) is `yarn install`.
 *
 * Premises run the real tools when present (CI has npm only: the others skip, saying so), each with
 * the environment it relies on set (CI runs with CI=true, no SHELL, no stdin): pnpm 9.15.9 from
 * `PNPM_BIN`, bun 1.4.5 from `BUN_BIN`, yarn 1.22.22 from `YARN1_BIN` (npm's packages of those names).
 */

let W = '';
let home = '';
let T = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('review26m-'));
});

function shell(command: string, mode: (typeof MODES)[number], rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideInWorkspace(command, mode, rules, W, home);
}

const found = (env: string | undefined, path: string, name: string): string => env ?? (existsSync(path) ? path : name);
const PNPM = found(process.env.PNPM_BIN, '/tmp/rb21/pn/node_modules/.bin/pnpm', 'pnpm');
const BUN = found(process.env.BUN_BIN, '/tmp/r24b/node_modules/.bin/bun', 'bun');
const YARN1 = found(process.env.YARN1_BIN, '/tmp/yn/node_modules/.bin/yarn', 'yarn');
const hasPnpm = runs(PNPM, ['--version']);
const hasBun = runs(BUN, ['--version']);
const hasYarn1 = spawnSync(YARN1, ['--version'], { encoding: 'utf8', timeout: 30_000 }).stdout?.startsWith('1.') === true;

/** A fresh project `name` under the test's directory; `run` runs a real tool there with a quiet, isolated environment. */
function project(name: string, scripts: Record<string, string> = {}): { dir: string; run: (program: string, args: string[]) => string } {
  const dir = join(T, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', scripts }));
  const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), CI: 'true', DO_NOT_TRACK: '1', npm_config_update_notifier: 'false', npm_config_cache: join(dir, '.npm'), COREPACK_ENABLE_STRICT: '0' };
  const run = (program: string, args: string[]): string => {
    const result = spawnSync(program, args, { cwd: dir, env, input: '', timeout: 60_000 });
    return `${result.stdout}${result.stderr}`;
  };
  return { dir, run };
}

describe('S13. pnpm pkg set and bun pm pkg set write a script as npm pkg set does', () => {
  const RULES = { allow: ['Bash(pnpm:*)', 'Bash(bun:*)', 'Bash(npm:*)', 'Bash(corepack:*)'], deny: ['Bash(rm *)'] };
  test.skipIf(!hasPnpm)('premise: pnpm pkg set scripts.x=CMD writes the script and pnpm x runs it', () => {
    const { dir, run } = project('s13p');
    run(PNPM, ['pkg', 'set', `scripts.x=node -e "require('fs').writeFileSync('${join(dir, 'ran')}', '')"`]);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts.x).toMatch(/writeFileSync/);
    run(PNPM, ['x']);
    expect(existsSync(join(dir, 'ran'))).toBe(true);
  }, 240_000);
  test.skipIf(!hasBun)('premise: bun pm pkg set scripts.x=CMD writes the script and bun run x runs it', () => {
    const { dir, run } = project('s13b');
    run(BUN, ['pm', 'pkg', 'set', `scripts.x=node -e "require('fs').writeFileSync('${join(dir, 'ran')}', '')"`]);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts.x).toMatch(/writeFileSync/);
    run(BUN, ['run', 'x']);
    expect(existsSync(join(dir, 'ran'))).toBe(true);
  }, 240_000);
  test.each(MODES)('%s: the script is a nested command the deny rules meet, as npm\'s', (mode) => {
    for (const command of [
      'npm pkg set scripts.x="rm -rf victim" && npm run x',
      'pnpm pkg set scripts.x="rm -rf victim" && pnpm x',
      'pnpm --silent pkg set scripts.x="rm -rf victim"',
      'pnpm pkg set "scripts[x]=rm -rf victim"',
      'corepack pnpm pkg set scripts.x="rm -rf victim"',
      'bun pm pkg set scripts.x="rm -rf victim" && bun run x',
      'bun pm pkg set name=y scripts.x="rm -rf victim"',
      'bun pm pkg set Scripts.x="rm -rf victim"',
    ]) {
      expect(shell(command, mode, RULES).verdict, command).toBe('deny');
    }
  });
  test.each(['default', 'acceptEdits'] as const)('%s: a script that runs nothing denied is code all the same: not allowed', (mode) => {
    for (const command of ['pnpm pkg set scripts.x="echo hi"', 'bun pm pkg set scripts.x="echo hi"']) expect(shell(command, mode, RULES).verdict, command).not.toBe('allow');
  });
  test.each(MODES)('%s: other keys and other pkg commands stay allowed', (mode) => {
    for (const command of ['pnpm pkg set name=foo', 'pnpm pkg get name', 'bun pm pkg set version=2.0.0', 'bun pm pkg get name', 'bun pm ls', 'pnpm ls']) expect(shell(command, mode, RULES).verdict, command).toBe('allow');
  });
});

describe('S7. bun up is bun update; yarn with only options (--production) is yarn install', () => {
  const RULES = { allow: ['Bash(bun:*)', 'Bash(yarn:*)'], deny: ['Bash(bun update *)', 'Bash(yarn install *)'] };
  test.skipIf(!hasBun)('premise: bun up --help prints update\'s usage', () => {
    const { run } = project('s7b');
    expect(run(BUN, ['up', '--help'])).toMatch(/Usage: bun update/);
  }, 240_000);
  test.skipIf(!hasYarn1)('premise: yarn 1 --production (no command) installs: it writes yarn.lock', () => {
    const { dir, run } = project('s7y');
    run(YARN1, ['--production']);
    expect(existsSync(join(dir, 'yarn.lock'))).toBe(true);
  }, 240_000);
  test.each(MODES)('%s: each meets the deny rule on its command', (mode) => {
    for (const command of ['bun up left-pad', 'bun up', 'bun --silent up', 'yarn --production', 'yarn --prod', 'yarn --production=true', 'yarn', 'yarn --offline']) {
      expect(shell(command, mode, RULES).verdict, command).toBe('deny');
    }
  });
  test.each(MODES)('%s: the other commands stay allowed', (mode) => {
    for (const command of ['bun run build', 'bun outdated', 'yarn build', 'yarn run build', 'yarn --silent build']) expect(shell(command, mode, RULES).verdict, command).toBe('allow');
  });
});

describe('S12. a runner\'s or fallback\'s command is read as the same words at top level (wrappers, aliases, abbreviations)', () => {
  const RULES = { allow: ['Bash(bun run:*)', 'Bash(pnpm:*)', 'Bash(uv run:*)', 'Bash(corepack:*)'], deny: ['Bash(rm *)', 'Bash(pnpm run release *)', 'Bash(pnpm test *)', 'Bash(npm run release *)'] };
  const victim = (dir: string): string => {
    mkdirSync(join(dir, 'victim'), { recursive: true });
    writeFileSync(join(dir, 'victim', 'data'), 'x');
    return join(dir, 'victim');
  };
  const SCRIPTS = { test: 'node -e "require(\'fs\').writeFileSync(\'tested\', \'\')"', release: 'node -e "require(\'fs\').writeFileSync(\'released\', \'\')"' };
  test.skipIf(!hasBun)('premise: bun run env rm -rf victim and bun run npm exe -- rm -rf victim remove victim (no script of those names)', () => {
    const { dir, run } = project('s12b', SCRIPTS);
    for (const args of [['run', 'env', 'rm', '-rf', 'victim'], ['run', 'nice', 'rm', '-rf', 'victim'], ['run', 'npm', 'exe', '--', 'rm', '-rf', 'victim']]) {
      const gone = victim(dir);
      run(BUN, args);
      expect(existsSync(gone), `bun ${args.join(' ')}`).toBe(false);
    }
    run(BUN, ['run', 'npm', 'rum', 'release']);
    expect(existsSync(join(dir, 'released')), 'bun run npm rum release').toBe(true);
  }, 240_000);
  test.skipIf(!hasPnpm)('premise: pnpm -- run-script release and pnpm -- t run those scripts; pnpm npm exe -- rm -rf victim removes victim', () => {
    const { dir, run } = project('s12p', SCRIPTS);
    run(PNPM, ['--', 'run-script', 'release']);
    expect(existsSync(join(dir, 'released')), 'pnpm -- run-script release').toBe(true);
    run(PNPM, ['--', 't']);
    expect(existsSync(join(dir, 'tested')), 'pnpm -- t').toBe(true);
    const gone = victim(dir);
    run(PNPM, ['npm', 'exe', '--', 'rm', '-rf', 'victim']);
    expect(existsSync(gone), 'pnpm npm exe -- rm -rf victim').toBe(false);
  }, 240_000);
  test.skipIf(!hasBun || !hasPnpm)('premise: bun run pnpm t runs the test script', () => {
    const { dir } = project('s12bp', SCRIPTS);
    const env = { ...process.env, HOME: dir, CI: 'true', DO_NOT_TRACK: '1', PATH: `${join(PNPM, '..')}:${process.env.PATH}` };
    spawnSync(BUN, ['run', 'pnpm', 't'], { cwd: dir, env, input: '', timeout: 60_000 });
    expect(existsSync(join(dir, 'tested'))).toBe(true);
  }, 240_000);
  test.each(MODES)('%s: each meets the deny rule on what it runs', (mode) => {
    for (const command of [
      'bun run npm exe -- rm -rf victim',
      'bun run env rm -rf victim',
      'bun run nice rm -rf victim',
      'bun run timeout 5 rm -rf victim',
      'bun run sudo rm -rf victim',
      'bun run env -i rm -rf victim',
      'bun run npm rum release',
      'bun run pnpm t',
      'bun run pnpm run-script release',
      'bun run pnpm -- t',
      'bun run corepack pnpm t',
      'pnpm -- run-script release',
      'pnpm -- t',
      'pnpm --silent -- run-script release',
      'corepack pnpm -- run-script release',
      'pnpm npm exe -- rm -rf victim',
      'pnpm nice rm -rf victim',
      'pnpm -- nice rm -rf victim',
      'uv run pnpm run-script release',
      'uv run env rm -rf victim',
      'uv run bun run env rm -rf victim',
    ]) {
      expect(shell(command, mode, RULES).verdict, command).toBe('deny');
    }
  });
  test.each(MODES)('%s: the project\'s scripts and other commands stay allowed', (mode) => {
    for (const command of ['bun run build', 'bun run dev --port 3000', 'bun run npm run build', 'bun run pnpm build', 'pnpm run build', 'pnpm -- run build', 'pnpm build', 'uv run pytest', 'bun run env FOO=1 node x.js']) {
      expect(shell(command, mode, RULES).verdict, command).toBe('allow');
    }
  });
});

describe('S10. a global install writes the global prefix, whose bin directory is on PATH', () => {
  const RULES = { allow: ['Bash(npm install:*)', 'Bash(npm:*)', 'Bash(pnpm:*)', 'Bash(bun:*)', 'Bash(yarn:*)'], deny: ['Edit(/usr/**)'] };
  /** A package with a bin, and a prefix of its own; `bin` says whether the package's bin landed in a global bin directory. */
  const pkg = (name: string): { dir: string; prefix: string; env: NodeJS.ProcessEnv } => {
    const dir = join(T, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'pkg'), { recursive: true });
    writeFileSync(join(dir, 'pkg', 'package.json'), JSON.stringify({ name: `${name}-pkg`, version: '1.0.0', bin: { [`${name}-bin`]: 'cli.js' } }));
    writeFileSync(join(dir, 'pkg', 'cli.js'), '#!/usr/bin/env node\nconsole.log("replaced")\n');
    const prefix = join(dir, 'prefix');
    const env = { ...process.env, HOME: dir, CI: 'true', DO_NOT_TRACK: '1', npm_config_prefix: prefix, npm_config_cache: join(dir, '.npm'), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false', BUN_INSTALL: join(dir, '.bun') };
    return { dir, prefix, env };
  };
  test.skipIf(!runs('npm', ['--version']))('premise: npm install -g ./pkg and npm link put the package\'s bin in {prefix}/bin', () => {
    const { dir, prefix, env } = pkg('s10n');
    spawnSync('npm', ['install', '-g', '--offline', './pkg'], { cwd: dir, env, input: '', timeout: 120_000 });
    expect(existsSync(join(prefix, 'bin', 's10n-bin'))).toBe(true);
    rmSync(prefix, { recursive: true, force: true });
    spawnSync('npm', ['link', '--offline'], { cwd: join(dir, 'pkg'), env, input: '', timeout: 120_000 });
    expect(existsSync(join(prefix, 'bin', 's10n-bin'))).toBe(true);
  }, 240_000);
  test.skipIf(!hasBun)('premise: bun link and bun add -g put the package\'s bin in $BUN_INSTALL/bin', () => {
    const { dir, env } = pkg('s10b');
    spawnSync(BUN, ['link'], { cwd: join(dir, 'pkg'), env, input: '', timeout: 120_000 });
    expect(existsSync(join(dir, '.bun', 'bin', 's10b-bin'))).toBe(true);
  }, 240_000);
  test.each(MODES)('%s: each is not allowed under Bash(npm install:*) and the others past Edit(/usr/**)', (mode) => {
    for (const command of [
      'npm install -g ./pkg',
      'npm install -g --force ./pkg',
      'npm i --global x',
      'npm install ---global x',
      'npm install -gf x',
      'npm install --location=global x',
      'npm install --location global x',
      'npm install x -g',
      'npm update -g',
      'npm ci -g',
      'npm link',
      'npm link ../x',
      'npm ln',
      'pnpm add -g ./pkg',
      'pnpm add --global x',
      'pnpm link --global',
      'pnpm i -g x',
      'bun add -g ./pkg',
      'bun add --global x',
      'bun i -g x',
      'bun link',
      'yarn global add x',
      'yarn global upgrade',
    ]) {
      expect(shell(command, mode, RULES).verdict, command).not.toBe('allow');
    }
  });
  test.each(MODES)('%s: local installs and global queries stay allowed', (mode) => {
    for (const command of ['npm install', 'npm install x', 'npm i -D vitest', 'npm ls -g', 'npm root -g', 'npm install --local x', 'npm install --location=project x', 'pnpm add x', 'pnpm ls -g', 'bun add x', 'bun link x', 'bun pm bin -g', 'yarn global list', 'yarn add x']) {
      expect(shell(command, mode, RULES).verdict, command).toBe('allow');
    }
  });
});
