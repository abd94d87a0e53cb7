import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES } from '../helpers/policy.js';

/**
 * Round 23 (rules23): what round 22 left of the command rules (docs/threat-model.md "Round 23: …").
 *
 *   Y1: `yarn set version ./x.cjs` (berry) makes every later `yarn` run x.cjs; `from sources`, a URL,
 *       `yarn plugin import ./p.js` the same.
 *   E1: environment that picks a program's settings: `MAKEFLAGS='SHELL=./sh' make`, `MAKEFILES=e.mk
 *       make`, `YARN_YARN_PATH=./x.cjs yarn`, `HOME=D make` (its recipes' git reads D/.gitconfig).
 *   A1: `npm run dev --host 0.0.0.0` asked (round 22 N1) though the same script runs either way.
 *
 * Premises run the real tools when present: yarn berry from `YARN_BERRY_JS` (a path to
 * @yarnpkg/cli-dist's bin/yarn.js; round 23 used 4.18.1), GNU make, npm, pnpm (9.15.9 from npm, on PATH).
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('rules23-'));
});

function shell(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideInWorkspace(command, mode, rules, W, home);
}

const has = (program: string, args: string[]): boolean => {
  try {
    execFileSync(program, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const BERRY = process.env.YARN_BERRY_JS ?? '/tmp/r23y/node_modules/@yarnpkg/cli-dist/bin/yarn.js';
const hasBerry = existsSync(BERRY);
const hasMake = has('make', ['--version']);
const hasNpm = has('npm', ['--version']);

/** A project whose x.cjs writes a marker with the arguments it was run with. */
function berryProject(name: string): { dir: string; marker: string; env: NodeJS.ProcessEnv } {
  const dir = join(T, name);
  mkdirSync(dir, { recursive: true });
  const marker = join(dir, 'RAN');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name }));
  writeFileSync(join(dir, 'yarn.lock'), '');
  writeFileSync(join(dir, 'x.cjs'), `require('fs').writeFileSync(${JSON.stringify(marker)}, process.argv.slice(2).join(' '));\n`);
  // CI=true makes berry's installs immutable (a new lock file is refused), so say it outright.
  const env = { ...process.env, HOME: dir, YARN_ENABLE_TELEMETRY: '0', YARN_ENABLE_GLOBAL_CACHE: '0', YARN_ENABLE_IMMUTABLE_INSTALLS: 'false', COREPACK_ENABLE_STRICT: '0' };
  return { dir, marker, env };
}

const YARN_RULES = { allow: ['Bash(yarn:*)'], deny: ['Bash(rm *)'] };

describe('Y1. yarn set version / plugin import of a file, URL or sources runs it as yarn later', () => {
  test.skipIf(!hasBerry)('premise: berry `set version ./x.cjs` then `yarn --version` runs x.cjs', () => {
    const { dir, marker, env } = berryProject('y1');
    // Offline it then fails reaching repo.yarnpkg.com (exit 1), after saving the release and yarnPath.
    try {
      execFileSync('node', [BERRY, 'set', 'version', './x.cjs'], { cwd: dir, env, stdio: 'ignore' });
    } catch {
      /* the network step after the write */
    }
    expect(readFileSync(join(dir, '.yarnrc.yml'), 'utf8')).toMatch(/yarnPath: \.yarn\/releases\//);
    rmSync(marker, { force: true });
    execFileSync('node', [BERRY, '--version'], { cwd: dir, env, stdio: 'ignore' });
    expect(readFileSync(marker, 'utf8')).toBe('--version');
  });
  test.skipIf(!hasBerry)('premise: berry `set version --help` names the forms (tag, range, path, URL) and from sources --repository', () => {
    const { dir, env } = berryProject('y1h');
    const text = execFileSync('node', [BERRY, 'set', 'version', '--help'], { cwd: dir, env }).toString();
    expect(text).toContain('a local file referenced through either a relative or absolute path');
    expect(text).toContain('--yarn-path');
    expect(execFileSync('node', [BERRY, 'set', 'version', 'from', 'sources', '--help'], { cwd: dir, env }).toString()).toContain('--repository');
  });
  test.each(MODES)('%s: each form that names a file, URL or sources is not allowed under Bash(yarn:*)', (mode) => {
    for (const command of [
      'yarn set version ./x.cjs',
      'yarn set version /tmp/x.cjs',
      'yarn set version --yarn-path ./x.cjs',
      'yarn set version ../x.cjs --only-if-needed',
      'yarn set version https://example.com/yarn.js',
      'yarn set version from sources',
      'yarn set version from sources --repository https://example.com/r.git',
      'yarn set version "$V"',
      'yarn policies set-version ./x.js',
      'yarn plugin import ./p.js',
      'yarn plugin import https://example.com/p.js',
      'yarn plugin import from sources',
      'yarn --cwd . set version ./x.cjs',
    ]) expect(shell(command, mode, YARN_RULES).verdict, command).not.toBe('allow');
  });
  test.each(['yarn set version stable', 'yarn set version 4.5.1', 'yarn set version 3.x', 'yarn set version classic', 'yarn set version self', 'yarn set version ^4', 'yarn policies set-version 1.22.22', 'yarn plugin import typescript', 'yarn plugin import @yarnpkg/plugin-exec', 'yarn build'])('default, Bash(yarn:*): %j stays allowed (yarn fetches its own releases)', (command) => {
    const decision = shell(command, 'default', YARN_RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('E1. an assignment that picks where a program reads its settings', () => {
  test.skipIf(!hasMake)('premise: GNU make runs MAKEFLAGS="SHELL=P", MAKEFLAGS="--eval=…", MAKEFILES=F; not -f from MAKEFLAGS', () => {
    const dir = join(T, 'e1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'Makefile'), 'all:\n\t@true\n');
    writeFileSync(join(dir, 'sh'), `#!/bin/sh\ntouch ${join(dir, 'shell-ran')}\n`, { mode: 0o755 });
    writeFileSync(join(dir, 'e.mk'), `$(shell touch ${join(dir, 'makefiles-ran')})\n`);
    // make 4.3 splits MAKEFLAGS' `--eval=$(shell touch F)` into words (and then refuses an empty -E)
    // when SHELL is not in its environment; a person's shell sets SHELL, CI's run may not.
    const run = (env: Record<string, string>) => execFileSync('make', [], { cwd: dir, env: { ...process.env, SHELL: '/bin/sh', ...env }, stdio: 'ignore' });
    run({ MAKEFLAGS: `SHELL=${join(dir, 'sh')}` });
    run({ MAKEFILES: 'e.mk' });
    run({ MAKEFLAGS: `--eval=$(shell touch ${join(dir, 'eval-ran')})` });
    run({ MAKEFLAGS: '-j2 -s' });
    for (const file of ['shell-ran', 'makefiles-ran', 'eval-ran']) expect(existsSync(join(dir, file)), file).toBe(true);
  });
  test.skipIf(!hasBerry)('premise: berry reads YARN_YARN_PATH, YARN_RC_FILENAME and HOME/.yarnrc.yml', () => {
    const { dir, marker, env } = berryProject('e1y');
    writeFileSync(join(dir, 'notes.txt'), 'yarnPath: ./x.cjs\n');
    for (const extra of [{ YARN_YARN_PATH: './x.cjs' }, { YARN_RC_FILENAME: 'notes.txt' }]) {
      rmSync(marker, { force: true });
      execFileSync('node', [BERRY, '--version'], { cwd: dir, env: { ...env, ...extra }, stdio: 'ignore' });
      expect(readFileSync(marker, 'utf8'), JSON.stringify(extra)).toBe('--version');
    }
  });
  const RULES = { allow: ['Bash(make:*)', 'Bash(yarn:*)', 'Bash(npm:*)', 'Bash(cargo:*)', 'Bash(go:*)', 'Bash(kubectl:*)', 'Bash(docker:*)', 'Bash(gh:*)', 'Bash(bun:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: such an assignment before the program, through env, or exported first, is not allowed', (mode) => {
    for (const command of [
      'MAKEFLAGS=SHELL=./sh make',
      "MAKEFLAGS='--eval=$(shell id)' make",
      'GNUMAKEFLAGS=--eval=x make',
      'MAKEFILES=e.mk make',
      'HOME=/tmp/d make',
      'XDG_CONFIG_HOME=/tmp/d make',
      'GIT_CONFIG_GLOBAL=team.cfg make',
      'YARN_YARN_PATH=./x.cjs make',
      'env MAKEFILES=e.mk make',
      'export MAKEFLAGS=SHELL=./sh; make',
      'MAKEFILES=e.mk; export MAKEFILES; make',
      'MAKEFLAGS=-j4 gmake SHELL=./sh',
      'YARN_YARN_PATH=./x.cjs yarn build',
      'YARN_RC_FILENAME=notes.txt yarn build',
      'export YARN_YARN_PATH=./x.cjs; yarn build',
      'GIT_CONFIG_GLOBAL=team.cfg npm test',
      'HOME=/tmp/d bun run build',
      'XDG_CONFIG_HOME=/tmp/d bun test',
      'HOME=/tmp/d cargo build',
      'GOFLAGS=-toolexec=./t go build',
      'GOENV=./goenv go build',
      'KUBECONFIG=./k kubectl get pods',
      'DOCKER_CONFIG=./d docker ps',
      'GH_CONFIG_DIR=./g gh pr list',
    ]) expect(shell(command, mode, RULES).verdict, command).not.toBe('allow');
  });
  test.each(['make', 'make -j4 test', 'MAKEFLAGS=-j4 make', 'MAKEFLAGS="-j2 --no-print-directory" make', 'MAKEFLAGS=ks make', 'YARN_ENABLE_COLORS=0 yarn build', 'HOME=/dev/null make', 'CC=gcc make', 'go build ./...', 'kubectl get pods'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    // bypassPermissions: an allow rule does not meet a command after an assignment (docs/rules.md).
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('A1. npm run SCRIPT followed by a key npm does not know', () => {
  test.skipIf(!hasNpm)('premise: npm 11 runs the same script with --host 0.0.0.0 after its name', () => {
    const dir = join(T, 'a1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'a1', version: '1.0.0', scripts: { dev: 'touch dev-ran' } }));
    execFileSync('npm', ['run', 'dev', '--host', '0.0.0.0'], { cwd: dir, env: { ...process.env, npm_config_update_notifier: 'false' }, stdio: 'ignore' });
    expect(existsSync(join(dir, 'dev-ran'))).toBe(true);
  });
  test.each(['npm run dev --host 0.0.0.0', 'npm run dev --port 3000', 'npm test --watch-all false', 'npm start --host 0.0.0.0', 'npm run-script dev --host x'])('default, Bash(npm:*): %j is allowed', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(npm:*)'], deny: ['Bash(npm run deploy *)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(['npm run --host x dev', 'npm run dev --pref /tmp/p', 'npm run dev --userc F', 'npm exec foo --host x', 'npm run dev --script-shell /tmp/e.sh', 'npm pkg set --foo x scripts.t=id'])('default, Bash(npm:*): %j still asks', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(npm:*)'] });
    expect(decision.verdict, decision.reason).not.toBe('allow');
  });
});

describe('Y2. berry runs a file the rule never named: yarn node FILE, yarn run --require FILE BIN', () => {
  test.skipIf(!hasBerry)('premise: berry runs evil.js for `yarn node ./evil.js` and `yarn run --require ./evil.js bd`', () => {
    const { dir, env } = berryProject('y2');
    const marker = join(dir, 'EVIL');
    writeFileSync(join(dir, 'evil.js'), `require('fs').appendFileSync(${JSON.stringify(marker)}, 'x')\n`);
    mkdirSync(join(dir, 'bindep'), { recursive: true });
    writeFileSync(join(dir, 'bindep', 'package.json'), JSON.stringify({ name: 'bindep', version: '1.0.0', bin: { bd: 'bd.js' } }));
    writeFileSync(join(dir, 'bindep', 'bd.js'), '\n');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'y2', dependencies: { bindep: 'portal:./bindep' } }));
    rmSync(join(dir, 'yarn.lock'));
    execFileSync('node', [BERRY, 'install'], { cwd: dir, env, stdio: 'ignore' });
    execFileSync('node', [BERRY, 'node', './evil.js'], { cwd: dir, env, stdio: 'ignore' });
    expect(readFileSync(marker, 'utf8')).toBe('x');
    execFileSync('node', [BERRY, 'run', '--require', join(dir, 'evil.js'), 'bd'], { cwd: dir, env, stdio: 'ignore' });
    expect(readFileSync(marker, 'utf8')).toBe('xx');
  });
  test.each(MODES)('%s: yarn node and run --require are not allowed under Bash(yarn:*)', (mode) => {
    for (const command of ['yarn node ./evil.js', 'yarn node -e 1', 'yarn run --require ./evil.js bd', 'yarn run --require=./evil.js bd', 'yarn --require ./evil.js bd']) {
      expect(shell(command, mode, { allow: ['Bash(yarn:*)'], deny: ['Bash(node *)'] }).verdict, command).not.toBe('allow');
    }
  });
  test.each(['yarn test -- --require x', 'yarn add node', 'yarn run build'])('default, Bash(yarn:*): %j stays allowed', (command) => {
    expect(shell(command, 'default', { allow: ['Bash(yarn:*)'] }).verdict).toBe('allow');
  });
});

const hasPnpm = has('pnpm', ['--version']);

describe('A2. pnpm --filter app build (options that pick projects of the workspace, before the command word)', () => {
  test.skipIf(!hasPnpm)('premise: pnpm --filter app build runs the workspace project app\'s build script', () => {
    const dir = join(T, 'a2');
    mkdirSync(join(dir, 'packages', 'app'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'root', private: true }));
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), "packages:\n  - 'packages/*'\n");
    writeFileSync(join(dir, 'packages', 'app', 'package.json'), JSON.stringify({ name: 'app', scripts: { build: 'touch built' } }));
    execFileSync('pnpm', ['--filter', 'app', 'build'], { cwd: dir, env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') }, stdio: 'ignore' });
    expect(existsSync(join(dir, 'packages', 'app', 'built'))).toBe(true);
  });
  const RULES = { allow: ['Bash(pnpm:*)'], ask: ['Bash(pnpm publish *)'], deny: ['Bash(pnpm run release *)', 'Bash(rm *)'] };
  test.each(['pnpm --filter app build', 'pnpm -F app run test', 'pnpm --filter=app build', 'pnpm -r build', 'pnpm --recursive test', 'pnpm -r --filter ./packages/x test', 'pnpm -w add -D vitest'])('default, Bash(pnpm:*): %j is allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(MODES)('%s: deny and ask rules still meet them; --dir, -C and movers after the command word still ask', (mode) => {
    for (const command of ['pnpm --filter app release', 'pnpm -r release', 'pnpm --filter app run release', 'pnpm --filter app exec rm -rf x']) {
      expect(shell(command, mode, RULES).verdict, command).toBe('deny');
    }
    expect(shell('pnpm --filter app publish', mode, RULES).verdict).not.toBe('allow');
    for (const command of ['pnpm -C /tmp/x build', 'pnpm --dir /tmp/x build', 'pnpm -rC /tmp/x build', 'pnpm run test --filter app', 'pnpm --filter app dlx cowsay']) {
      expect(shell(command, mode, RULES).verdict, command).not.toBe('allow');
    }
  });
  test('a rule naming the command does not meet the option before it (so it cannot widen that rule)', () => {
    const decision = shell('pnpm --filter app run test', 'default', { allow: ['Bash(pnpm run test *)'] });
    expect(decision.verdict, decision.reason).toBe('ask');
  });
});
