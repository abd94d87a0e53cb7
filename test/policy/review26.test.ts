import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { lessOptions } from '../../src/subjects/shell/less-options.js';
import { commandWorkspace, decideInWorkspace, MODES, refused, runs } from '../helpers/policy.js';

/**
 * Round 26's review of round 25's command rules (docs/threat-model.md "Round 26: the review of
 * round 25"): S2 pnpm's pnpmfile options, settings and variables; S3 less reading on past a number
 * or a value in the same word. Premises run the real tools when present (less 590 in round 26) and
 * skip, saying so, when one is absent.
 */

let T = '';
let W = '';
let home = '';
beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('review26-'));
});

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };
const shell = (command: string, mode: DefaultMode, rules: Rules) => decideInWorkspace(command, mode, rules, W, home);

const hasLess = runs('less', ['--version']);
const hasLesskey = runs('lesskey', ['--version']);

describe('S3. less reads on past a number or a value: the rest of the word is more options', () => {
  test.skipIf(!hasLess)('premise: less runs a lesskey file\'s LESSOPEN named after -b1, -b (no number), -x4, -5, a -P prompt ended by $, on its command line and in LESS', () => {
    const dir = join(T, 's3');
    mkdirSync(dir, { recursive: true });
    const marker = join(dir, 'RAN');
    writeFileSync(join(dir, 'keysrc'), `#env\nLESSOPEN=|touch ${marker}; cat %s\n`);
    writeFileSync(join(dir, 'f'), 'hi\n');
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'empty-home'), TERM: 'dumb', SHELL: '/bin/sh' };
    for (const name of ['LESS', 'LESSOPEN', 'LESSKEYIN', 'LESSKEY']) delete env[name];
    const ran = (args: string[], extra: NodeJS.ProcessEnv = {}): boolean => {
      rmSync(marker, { force: true });
      spawnSync('less', [...args, 'f'], { cwd: dir, env: { ...env, ...extra }, input: '', timeout: 30_000 });
      return existsSync(marker);
    };
    expect(ran(['-b1']), 'without a lesskey option').toBe(false);
    for (const word of ['-b1--lesskey-src=keysrc', '-b--lesskey-src=keysrc', '-x4--lesskey-src=keysrc', '-z5--lesskey-src=keysrc', '-Pabc$--lesskey-src=keysrc']) {
      expect(ran([word]), word).toBe(true);
    }
    expect(ran([], { LESS: '-y3--lesskey-src=keysrc' }), 'LESS=-y3--lesskey-src=F').toBe(true);
    if (!hasLesskey) return; // the compiled form needs lesskey(1) to write it
    execFileSync('lesskey', ['-o', join(dir, 'compiled'), join(dir, 'keysrc')], { cwd: dir, stdio: 'ignore' });
    for (const word of ['-b1kcompiled', '-bkcompiled', '-5kcompiled']) expect(ran([word]), word).toBe(true);
  });

  const RULES: Rules = { allow: ['Bash(less:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: a lesskey file, log or start-up command after a number or value asks under Bash(less:*)', (mode) => {
    for (const command of [
      'less -b1--lesskey-src=keysrc f',
      'less -z5--lesskey-src=keysrc f',
      'less -h2--lesskey-src=keysrc f',
      'less -b--lesskey-src=keysrc f',
      'less -x4--lesskey-src=keysrc f',
      'less -b1kcompiled f',
      'less -b1-kcompiled f',
      'less -bkcompiled f',
      'less -5kcompiled f',
      'less -x4,8kcompiled f',
      "less '-Pabc$kcompiled' f",
      'less -b1o/tmp/log f',
      'less -S+!touch\\ x f',
      'LESS=-b1--lesskey-src=keysrc less f',
      'LESS=-b1kkeysrc less f',
      "LESS='--mouse kkeysrc' less f",
    ]) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(['less -R f', 'less -b1 f', 'less -x4,8 -j.5 f', 'less --window=-5 f', 'less -- kfile', 'less -N +G f', 'less -j.5--lesskey-src=keysrc f'])('default, Bash(less:*): %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(['LESS=-R less f', 'LESS=FRX less f', "LESS='-R --mouse' less f", 'LESS=-j.5 less f', 'LESS=-b64z-4 less f'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test('lessOptions reads as option.c does: numbers, character sets, values to a $, long names', () => {
    const names = (text: string): string[] => lessOptions(text).map((option) => option.name);
    expect(names('-b1kF')).toEqual(['b', 'k']);
    expect(names('-bkF')).toEqual(['b', 'k']);
    expect(names('-x4,8kF')).toEqual(['x', 'k']);
    expect(names('-j.5--lesskey-src=F')).toEqual(['j', '?']); // `-` is one of -j's characters; `l` is no option
    // less 590 takes `\` literally unless `--use-backslash` came first (round 27 R27-12): both readings.
    expect(names('-Pa\\$b$kF')).toEqual(['P', 'b', 'k', 'P', 'k']);
    expect(lessOptions('-Pa\\$b$kF')[0]!.value).toBe('a\\');
    expect(lessOptions('-Pa\\$b$kF')[3]!.value).toBe('a$b');
    expect(names('FRX')).toEqual(['F', 'R', 'X']);
    expect(names('--mouse kF')).toEqual(['mouse', 'k']);
    expect(names('--lesskey-s=F')).toEqual(['k']);
    expect(names('--log=F')).toEqual(['o']);
    expect(names('--mouse=1')).toEqual(['?']);
    expect(names('-5')).toEqual(['z']);
  });
});

describe('S2. pnpm loads the pnpmfile its options, settings and variables name', () => {
  const RULES: Rules = { allow: ['Bash(pnpm:*)', 'Bash(pnpm install:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: asks under Bash(pnpm:*)', (mode) => {
    for (const command of [
      'pnpm install --pnpmfile /tmp/evil.cjs',
      'pnpm install --pnpmfile=/tmp/evil.cjs',
      'pnpm i --pnpmfile /tmp/evil.cjs',
      'pnpm add x --pnpmfile /tmp/evil.cjs',
      'pnpm install --global-pnpmfile /tmp/evil.cjs',
      'pnpm install ---pnpmf=/tmp/evil.cjs',
      'pnpm install --script-shell=./x',
      'pnpm config set pnpmfile /tmp/evil.cjs',
      'pnpm config set pnpmfile /tmp/evil.cjs --location project',
      'pnpm config set global-pnpmfile /tmp/evil.cjs',
      'pnpm set pnpmfile=/tmp/evil.cjs',
      'npm_config_pnpmfile=/tmp/evil.cjs pnpm install',
      'export npm_config_pnpmfile=/tmp/evil.cjs; pnpm install',
      'env npm_config_pnpmfile=/tmp/evil.cjs pnpm install',
      'NPM_CONFIG_GLOBAL_PNPMFILE=/tmp/evil.cjs pnpm install',
      'pnpm_config_pnpmfile=/tmp/evil.cjs pnpm install',
      'pnpm_config_script_shell=/tmp/x pnpm install',
    ]) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(['pnpm install', 'pnpm install --frozen-lockfile', 'pnpm add lodash', 'pnpm config set store-dir /tmp/s', 'pnpm run build', 'pnpm -r run build'])('default, Bash(pnpm:*): %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(['pnpm_config_loglevel=silent pnpm install', 'npm_config_loglevel=silent pnpm install'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('S14. npm reads its code keys with any dashes and any number of no- (nopt), as it reads the movers', () => {
  const RULES: Rules = { allow: ['Bash(npm test:*)', 'Bash(npm run:*)', 'Bash(npm:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: asks under Bash(npm test:*)', (mode) => {
    for (const command of [
      'npm test ---script-shell=./x.sh',
      'npm test -script-shell=./x.sh',
      'npm test ----script-shell ./x.sh',
      'npm test --no-no-script-shell=./x.sh',
      'npm test ---node-options=--require=/tmp/x.js',
      'npm test -node-options=--require=/tmp/x.js',
      'npm test ---userconfig /tmp/x',
      'npm ---script-shell=./x.sh test',
      'npm -script-shell=./x.sh test',
      'npm run ---script-shell=./x.sh test',
    ]) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(['npm test', 'npm run build -- --watch', 'npm ci --no-audit', 'npm run dev --host 0.0.0.0', 'npm test -- -c foo'])('default: %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('S9. a revision a test runner hands to git is not an option to git', () => {
  const RULES: Rules = { allow: ['Bash(bun test:*)', 'Bash(vitest:*)', 'Bash(jest:*)'], deny: ['Edit(/tmp/r26prot/**)'] };
  test.each(MODES)('%s: --changed=--output=F asks (or is denied)', (mode) => {
    for (const command of [
      'bun test --changed=--output=/tmp/r26prot/x',
      'vitest run --changed=--output=/tmp/r26prot/x',
      'vitest related --changed=--output=/tmp/r26prot/x',
      'vitest run --coverage.changed=--output=/tmp/r26prot/x',
      'jest --changedSince=--output=/tmp/r26prot/x',
    ]) {
      const decision = shell(command, mode, RULES);
      expect(['ask', 'deny'], `${command}: ${decision.reason}`).toContain(decision.verdict);
    }
  });
  test.each(['bun test --changed=HEAD', 'bun test --changed', 'vitest run --changed', 'vitest run --changed HEAD~1', 'vitest run --changed=origin/main', 'jest --changedSince=main'])('default: %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('S11, S18. start-up variables of bun (files it writes) and of other runtimes', () => {
  const RULES: Rules = { deny: ['Bash(rm *)', 'Edit(/tmp/r26prot2/**)'] };
  test.each([
    'BUN_OPTIONS=--redirect-warnings=/tmp/r26prot2/w bun x.ts',
    'BUN_OPTIONS=--cpu-prof-dir=/tmp/r26prot2 bun --cpu-prof x.ts',
    'JAVA_TOOL_OPTIONS=-javaagent:/tmp/x.jar mvn test',
    'JAVA_TOOL_OPTIONS=-javaagent:/tmp/x.jar java -version',
    'export JAVA_TOOL_OPTIONS=-javaagent:/tmp/x.jar; ./gradlew build',
    '_JAVA_OPTIONS=-XX:OnError=x make',
    'VIMINIT=":!rm -rf victim" vim f',
    'EXINIT=":!touch x" vi f',
    'export VIMINIT=x; git commit',
    'DOTNET_STARTUP_HOOKS=/tmp/x.dll dotnet test',
    'LUA_INIT=@/tmp/x.lua lua s.lua',
    'PHP_INI_SCAN_DIR=/tmp/evil php s.php',
  ])('bypassPermissions with deny rules: %j asks', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('ask');
  });
  test.each(['BUN_OPTIONS=--silent bun x.ts', 'MAVEN_OPTS=-Xmx2g mvn test', 'JAVA_OPTS="-Xmx1g -Dfile.encoding=UTF-8" ./run.sh', 'vim f'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('S15. cargo +TOOLCHAIN: a directory is a toolchain to run', () => {
  const RULES: Rules = { allow: ['Bash(cargo:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: a path after + asks', (mode) => {
    for (const command of ['cargo +/tmp/r26tc build', 'cargo +./tc build', 'cargo +../evil/tc test', 'cargo "+$T" build']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(['cargo +nightly build', 'cargo +1.80.0 test', 'cargo +stable-x86_64-unknown-linux-gnu build'])('default: %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('S16. node --inspect past loopback opens a debugger whoever connects runs code in', () => {
  const RULES: Rules = { deny: ['Bash(rm *)'] };
  test.each(['node --inspect=0.0.0.0:9229 s.js', 'node --inspect-brk=0.0.0.0 s.js', 'node --inspect-port=0.0.0.0:9229 s.js', "node '--inspect-wait=[::]:9229' s.js"])('bypassPermissions with deny rules: %j asks', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('ask');
  });
  test.each(['node --inspect s.js', 'node --inspect=9229 s.js', 'node --inspect=127.0.0.1:9229 s.js', 'node --inspect=localhost s.js'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('S1. a declaration builtin reads a quoted NAME=value word as an assignment (make pastes it into recipes)', () => {
  const RULES: Rules = { deny: ['Bash(touch *)'] };
  test.each([
    'export "CFLAGS=;touch PWNED;"; make x.o',
    "export 'TARGET_ARCH=;touch PWNED;'; make x.o",
    'export TARGET_ARCH\\=\\;touch\\ PWNED\\;; make x.o',
    'export "TARGET_ARCH"=";touch PWNED;"; make x.o',
    'export "MSG=x;touch PWNED"; npm run build',
    'readonly "MSG=x;touch PWNED"; export MSG; make all',
    'export "$V"; make all',
  ])('bypassPermissions with deny rules: %j asks', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('ask');
  });
  test.each(['export "CFLAGS=-O2"; make x.o', 'export FOO; make'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});
