import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES } from '../helpers/policy.js';

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

const runs = (program: string, args: string[]): boolean => spawnSync(program, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;
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
