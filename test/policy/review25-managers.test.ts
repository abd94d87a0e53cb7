import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES, runs } from '../helpers/policy.js';

/**
 * Round 25 review (review25.md), the package-manager findings (docs/threat-model.md "Round 25: the
 * review's package-manager findings"):
 *
 *   R15: nopt (npm, pnpm) strips every leading dash: `npm run dev ---prefix ../evil`, `-prefix=../evil`.
 *   R9:  pnpm reads glued one-letter shorthands as npm does: `pnpm run --sC ../evil dev`, `--C=../evil`.
 *   R8:  pnpm's `--config.KEY=VALUE` sets any setting: `pnpm --config.dir=../evil run dev`.
 *   R6:  npm's abbreviations through corepack: `corepack npm exe -- rm -rf victim`.
 *   R13: command aliases: pnpm `run-script`, `t`, `m run`; bun `i`, `a`, `rm`, `c`; bare `yarn`.
 *   R7:  `bun run rm -rf victim` runs PATH's rm.
 *   R12: `bun test /outside/evil.js` runs a file outside the workspace.
 *
 * Premises run the real tools when present, each with the environment it relies on set (CI runs
 * with CI=true, no SHELL, no stdin): npm from PATH, pnpm 9.15.9 from `PNPM_BIN` (a path to pnpm's
 * bin; npm's `pnpm` package, else `pnpm` on PATH), bun 1.4.5 from `BUN_BIN` (npm's `bun` package).
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('review25m-'));
});

function shell(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideInWorkspace(command, mode, rules, W, home);
}

const PNPM = process.env.PNPM_BIN ?? (existsSync('/tmp/rb21/pn/node_modules/.bin/pnpm') ? '/tmp/rb21/pn/node_modules/.bin/pnpm' : 'pnpm');
const BUN = process.env.BUN_BIN ?? (existsSync('/tmp/r24b/node_modules/.bin/bun') ? '/tmp/r24b/node_modules/.bin/bun' : 'bun');
const hasNpm = runs('npm', ['--version']);
const hasPnpm = runs(PNPM, ['--version']);
const hasBun = runs(BUN, ['--version']);

/**
 * Two sibling projects `w` and `evil` under a fresh directory, each with the scripts `dev`, `test`
 * and `release` writing a marker named after the project and the script into the parent directory.
 * `run(program, args)` runs the real tool in `w` and says which markers appeared.
 */
function siblings(name: string): { dir: string; work: string; ran: (marker: string) => boolean; run: (program: string, args: string[]) => string } {
  const dir = join(T, name);
  const work = join(dir, 'w');
  for (const project of ['w', 'evil']) {
    mkdirSync(join(dir, project), { recursive: true });
    const mark = (script: string): string => `node -e "require('fs').writeFileSync('${join(dir, `${project}-${script}`)}', '')"`;
    writeFileSync(join(dir, project, 'package.json'), JSON.stringify({ name: project, version: '1.0.0', scripts: { dev: mark('dev'), test: mark('test'), release: mark('release') } }));
  }
  writeFileSync(join(dir, 'shell.sh'), `#!/bin/sh\ntouch ${join(dir, 'script-shell')}\n`, { mode: 0o755 });
  // npm and pnpm: no user config, no update check, no prompt; sh for scripts whatever SHELL is.
  const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), CI: 'true', npm_config_update_notifier: 'false', npm_config_cache: join(dir, '.npm'), COREPACK_ENABLE_STRICT: '0' };
  const ran = (marker: string): boolean => existsSync(join(dir, marker));
  const run = (program: string, args: string[]): string => {
    for (const project of ['w', 'evil']) for (const script of ['dev', 'test', 'release']) rmSync(join(dir, `${project}-${script}`), { force: true });
    rmSync(join(dir, 'script-shell'), { force: true });
    const result = spawnSync(program, args, { cwd: work, env, input: '', timeout: 60_000 });
    return `${result.stdout}${result.stderr}`;
  };
  return { dir, work, ran, run };
}

const NPM_RULES = { allow: ['Bash(npm run dev:*)', 'Bash(npm test:*)'], deny: ['Bash(rm *)'] };
const PNPM_RULES = { allow: ['Bash(pnpm:*)', 'Bash(pnpm run:*)', 'Bash(pnpm install:*)'], deny: ['Bash(rm *)'] };

describe('R15. nopt strips every leading dash: ---prefix, -prefix=, ---C move the package whose script runs', () => {
  test.skipIf(!hasNpm)('premise: npm runs ../evil\'s script for ---prefix, ----prefix=, -prefix= and ---no-no-ws style spellings', () => {
    const { ran, run } = siblings('r15npm');
    run('npm', ['run', 'dev']);
    expect(ran('w-dev') && !ran('evil-dev'), 'npm run dev').toBe(true);
    for (const args of [['run', 'dev', '---prefix', '../evil'], ['run', 'dev', '----prefix=../evil'], ['run', 'dev', '-prefix=../evil'], ['test', '---prefix=../evil']]) {
      run('npm', args);
      expect(ran(`evil-${args[0] === 'test' ? 'test' : 'dev'}`), `npm ${args.join(' ')}`).toBe(true);
    }
  }, 240_000);
  test.skipIf(!hasPnpm)('premise: pnpm runs ../evil\'s script for ---C DIR after run', () => {
    const { ran, run } = siblings('r15pnpm');
    run(PNPM, ['run', 'dev']);
    expect(ran('w-dev') && !ran('evil-dev'), 'pnpm run dev').toBe(true);
    run(PNPM, ['run', '---C', '../evil', 'dev']);
    expect(ran('evil-dev'), 'pnpm run ---C ../evil dev').toBe(true);
  }, 240_000);
  const BYPASSES = ['npm run dev ---prefix ../evil', 'npm run dev ----prefix=../evil', 'npm run dev -prefix=../evil', 'npm run dev ---workspace ../evil', 'npm test ---prefix=../evil', 'npm run dev ---no-no-ws', 'npm run dev -workspace=../evil', 'npm run dev --iw'];
  test.each(MODES)('%s: each spelling is not allowed under Bash(npm run dev:*), Bash(npm test:*)', (mode) => {
    for (const command of BYPASSES) expect(shell(command, mode, NPM_RULES).verdict, command).not.toBe('allow');
    for (const command of ['pnpm run ---C ../evil dev', 'pnpm ---C ../evil run dev', 'pnpm run ----dir=../evil dev', 'pnpm run -dir=../evil dev']) expect(shell(command, mode, PNPM_RULES).verdict, command).not.toBe('allow');
  });
  test.each(MODES)('%s: the project\'s own scripts stay allowed', (mode) => {
    for (const command of ['npm run dev', 'npm test', 'npm run dev -- --prefix x', 'npm run dev --host 0.0.0.0', 'npm run dev --silent', 'npm test -- --watch=false']) expect(shell(command, mode, NPM_RULES).verdict, command).toBe('allow');
  });
});

describe('R9. pnpm reads glued one-letter shorthands with two dashes as nopt does (--sC, --C=, --sF)', () => {
  test.skipIf(!hasPnpm)('premise: pnpm runs ../evil\'s script for --sC DIR, --C DIR and --C=DIR, before and after run', () => {
    const { ran, run } = siblings('r9');
    for (const args of [['run', '--sC', '../evil', 'dev'], ['--sC', '../evil', 'run', 'dev'], ['run', '--C', '../evil', 'dev'], ['--C=../evil', 'run', 'dev'], ['run', '--C=../evil', 'dev']]) {
      run(PNPM, args);
      expect(ran('evil-dev'), `pnpm ${args.join(' ')}`).toBe(true);
    }
  }, 240_000);
  test.each(MODES)('%s: each is not allowed under Bash(pnpm:*), Bash(pnpm run:*)', (mode) => {
    for (const command of ['pnpm run --sC ../evil dev', 'pnpm run --wC ../evil dev', 'pnpm --C=../evil run dev', 'pnpm run --C=../evil dev', 'pnpm run --C ../evil dev', 'pnpm test --sC ../evil', 'pnpm install --sC ../evil', 'pnpm run --sF "[--output=/tmp/r25/target.sh]" dev', 'pnpm run --F app dev']) {
      expect(shell(command, mode, PNPM_RULES).verdict, command).not.toBe('allow');
    }
  });
  test.each(MODES)('%s: pnpm\'s ordinary forms stay allowed under Bash(pnpm:*)', (mode) => {
    for (const command of ['pnpm run dev', 'pnpm run --silent dev', 'pnpm -s run dev', 'pnpm --filter app build', 'pnpm -F app run test', 'pnpm --filter=app build', 'pnpm -r build', 'pnpm -w add -D vitest', 'pnpm install', 'pnpm test']) {
      expect(shell(command, mode, PNPM_RULES).verdict, command).toBe('allow');
    }
  });
});

describe('R8. pnpm --config.KEY=VALUE sets any setting (dir, pnpmfile, script-shell)', () => {
  test.skipIf(!hasPnpm)('premise: pnpm --config.dir=../evil runs ../evil\'s script; --config.script-shell=F runs F as the scripts\' shell', () => {
    const { dir, ran, run } = siblings('r8');
    run(PNPM, ['--config.dir=../evil', 'run', 'dev']);
    expect(ran('evil-dev'), 'pnpm --config.dir=../evil run dev').toBe(true);
    run(PNPM, [`--config.script-shell=${join(dir, 'shell.sh')}`, 'run', 'dev']);
    expect(ran('script-shell'), 'pnpm --config.script-shell=F run dev').toBe(true);
  }, 240_000);
  test.each(MODES)('%s: not allowed under Bash(pnpm:*), Bash(pnpm install:*)', (mode) => {
    for (const command of ['pnpm --config.dir=../evil run dev', 'pnpm install --config.pnpmfile=./x.cjs', 'pnpm --config.global-pnpmfile=./x.cjs install', 'pnpm --config.script-shell=/tmp/r25/evil.sh run dev', 'pnpm ---config.node-options=--require=./x.js run dev', 'pnpm install -config.pnpmfile=./x.cjs']) {
      expect(shell(command, mode, PNPM_RULES).verdict, command).not.toBe('allow');
    }
  });
});

const COREPACK_HOME = process.env.COREPACK_NPM_HOME ?? '/tmp/r25cph';
const hasCorepackNpm = existsSync(join(COREPACK_HOME, 'v1', 'npm'));

describe('R6. npm\'s abbreviations through corepack: corepack npm exe, corepack npm rum', () => {
  const RULES = { allow: ['Bash(corepack:*)', 'Bash(corepack npm:*)'], deny: ['Bash(rm *)', 'Bash(npm run release *)', 'Bash(npm publish *)'] };
  test.skipIf(!hasNpm)('premise: npm reads `rum` as run and `exe` as exec', () => {
    const { dir, ran, run } = siblings('r6');
    run('npm', ['rum', 'release']);
    expect(ran('w-release'), 'npm rum release').toBe(true);
    run('npm', ['exe', '--', 'node', '-e', `require('fs').writeFileSync('${join(dir, 'w-dev')}', '')`]);
    expect(ran('w-dev'), 'npm exe -- node -e …').toBe(true);
  }, 240_000);
  // corepack needs npm in its cache (no registry here): COREPACK_NPM_HOME names a COREPACK_HOME holding v1/npm/<version>.
  test.skipIf(!hasCorepackNpm)('premise: corepack npm rum release runs the release script (corepack hands npm the words as written)', () => {
    const { dir, work, ran } = siblings('r6c');
    spawnSync('corepack', ['npm', 'rum', 'release'], { cwd: work, env: { ...process.env, HOME: dir, CI: 'true', COREPACK_HOME, COREPACK_ENABLE_STRICT: '0', COREPACK_ENABLE_DOWNLOAD_PROMPT: '0', npm_config_cache: join(dir, '.npm') }, input: '', timeout: 60_000 });
    expect(ran('w-release')).toBe(true);
  }, 240_000);
  test.each(MODES)('%s: denied as the plain npm spellings are', (mode) => {
    for (const command of ['corepack npm exe -- rm -rf victim', 'corepack npm rum release', 'corepack npm urn release', 'corepack npm@11 run-script release', 'corepack npm pu', 'corepack npm --cache /tmp/c exe -- rm -rf victim']) {
      expect(shell(command, mode, RULES).verdict, command).toBe('deny');
    }
  });
  test.each(MODES)('%s: corepack npm\'s other commands stay allowed', (mode) => {
    for (const command of ['corepack npm run build', 'corepack npm test', 'corepack npm ls']) expect(shell(command, mode, RULES).verdict, command).toBe('allow');
  });
});

describe('R13. command aliases: pnpm run-script, t, tst, m run; bun i, a, rm, r, c; bare yarn', () => {
  const RULES = {
    allow: ['Bash(pnpm:*)', 'Bash(bun:*)', 'Bash(yarn:*)'],
    deny: ['Bash(rm *)', 'Bash(pnpm run release *)', 'Bash(pnpm test *)', 'Bash(bun install *)', 'Bash(bun add *)', 'Bash(bun remove *)', 'Bash(bun create *)', 'Bash(yarn install *)'],
  };
  test.skipIf(!hasPnpm)('premise: pnpm runs the scripts for t, tst, run-script and m run', () => {
    const { ran, run } = siblings('r13p');
    for (const [args, marker] of [[['t'], 'w-test'], [['tst'], 'w-test'], [['run-script', 'release'], 'w-release'], [['m', 'run', 'release'], 'w-release'], [['recursive', 'run-script', 'release'], 'w-release']] as const) {
      run(PNPM, [...args]);
      expect(ran(marker), `pnpm ${args.join(' ')}`).toBe(true);
    }
  }, 240_000);
  test.skipIf(!hasBun)('premise: bun i, ci, a, rm, r, uninstall are install, add and remove (each prints that command\'s usage)', () => {
    const { dir, work } = siblings('r13b');
    const usage = (args: string[]): string => {
      const result = spawnSync(BUN, [...args, '--help'], { cwd: work, env: { ...process.env, HOME: dir, DO_NOT_TRACK: '1' }, input: '', timeout: 60_000 });
      return /Usage: bun (\w+)/.exec(`${result.stdout}${result.stderr}`)?.[1] ?? '';
    };
    for (const [alias, command] of [['i', 'install'], ['ci', 'install'], ['a', 'add'], ['rm', 'remove'], ['r', 'remove'], ['uninstall', 'remove']]) expect(usage([alias!]), `bun ${alias}`).toBe(command);
  }, 240_000);
  const BERRY = process.env.YARN_BERRY_JS ?? '/tmp/r23y/node_modules/@yarnpkg/cli-dist/bin/yarn.js';
  test.skipIf(!existsSync(BERRY))('premise: yarn (berry) with no command installs', () => {
    const { dir, work } = siblings('r13y');
    const env = { ...process.env, HOME: dir, CI: 'true', YARN_ENABLE_TELEMETRY: '0', YARN_ENABLE_GLOBAL_CACHE: '0', YARN_ENABLE_IMMUTABLE_INSTALLS: 'false', COREPACK_ENABLE_STRICT: '0' };
    spawnSync('node', [BERRY], { cwd: work, env, input: '', timeout: 120_000 });
    expect(existsSync(join(work, 'yarn.lock'))).toBe(true);
  }, 240_000);
  test.each(MODES)('%s: each alias meets the deny rule on its command', (mode) => {
    for (const command of ['pnpm run-script release', 'pnpm t', 'pnpm tst', 'pnpm m run release', 'pnpm multi run release', 'pnpm recursive run-script release', 'corepack pnpm t', 'bun i', 'bun ci', 'bun a left-pad', 'bun rm left-pad', 'bun r left-pad', 'bun uninstall left-pad', 'bun c vite', 'yarn', 'yarn --frozen-lockfile', 'yarnpkg']) {
      expect(shell(command, mode, RULES).verdict, command).toBe('deny');
    }
  });
  test.each(MODES)('%s: the other commands stay allowed', (mode) => {
    for (const command of ['pnpm run build', 'pnpm m run build', 'pnpm ls', 'pnpm run-script build', 'bun run build', 'bun outdated', 'yarn build', 'yarn run build']) expect(shell(command, mode, RULES).verdict, command).toBe('allow');
  });
});

describe('R7. bun run NAME runs the program NAME from PATH when no script or file has that name', () => {
  const RULES = { allow: ['Bash(bun run:*)'], deny: ['Bash(rm *)', 'Bash(sh *)'] };
  test.skipIf(!hasBun)('premise: bun run rm -rf victim removes victim (no script named rm)', () => {
    const { dir, work } = siblings('r7');
    mkdirSync(join(work, 'victim'), { recursive: true });
    writeFileSync(join(work, 'victim', 'data'), 'x');
    spawnSync(BUN, ['run', 'rm', '-rf', 'victim'], { cwd: work, env: { ...process.env, HOME: dir, DO_NOT_TRACK: '1' }, input: '', timeout: 60_000 });
    expect(existsSync(join(work, 'victim'))).toBe(false);
  }, 240_000);
  test.each(MODES)('%s: denied by the rule on the program it runs', (mode) => {
    for (const command of ['bun run rm -rf victim', 'bun run --silent rm -rf victim', 'bun run sh -c "rm -rf victim"', 'bun --bun run rm -rf victim']) expect(shell(command, mode, RULES).verdict, command).toBe('deny');
  });
  test.each(MODES)('%s: the project\'s scripts and files stay allowed under Bash(bun run:*)', (mode) => {
    for (const command of ['bun run build', 'bun run dev --port 3000', 'bun run ./scripts/x.ts', 'bun run index.ts']) expect(shell(command, mode, RULES).verdict, command).toBe('allow');
  });
});

describe('R12. bun test PATH runs the files at PATH: a path outside the workspace asks, as pytest\'s', () => {
  const RULES = { allow: ['Bash(bun test:*)', 'Bash(pytest:*)'] };
  test.skipIf(!hasBun)('premise: bun test ../evil/evil.js runs evil.js', () => {
    const { dir, work } = siblings('r12');
    writeFileSync(join(dir, 'evil', 'evil.js'), `require('fs').writeFileSync('${join(dir, 'evil-ran')}', '');\n`);
    spawnSync(BUN, ['test', '../evil/evil.js'], { cwd: work, env: { ...process.env, HOME: dir, DO_NOT_TRACK: '1' }, input: '', timeout: 60_000 });
    expect(existsSync(join(dir, 'evil-ran'))).toBe(true);
  }, 240_000);
  test.each(['default', 'plan', 'dontAsk', 'acceptEdits'] as DefaultMode[])('%s: a test path outside the workspace is not allowed', (mode) => {
    for (const command of ['bun test /tmp/r25/evil.js', 'bun test ../evil/evil.js', 'bun test ~/evil.test.ts', 'bun test --bail /tmp/r25/evil.js']) expect(shell(command, mode, RULES).verdict, command).not.toBe('allow');
  });
  test.each(MODES)('%s: tests of the workspace stay allowed', (mode) => {
    for (const command of ['bun test', 'bun test ./src', 'bun test math', 'bun test --watch', 'bun test src/a.test.ts']) expect(shell(command, mode, RULES).verdict, command).toBe('allow');
  });
});
