import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES, premiseEnv, premisePlace, refused, runs } from '../helpers/policy.js';

/**
 * Round 26 (rules26): the command rules round 25 left (docs/threat-model.md "Round 26: …"). Each
 * was allowed under a prefix rule (`Bash(make:*)`, `Bash(yarn:*)`), or by bypassPermissions past
 * deny rules, and ran code nobody allowed:
 *
 *   V1: a make variable outside the program lists given a path (`make BUILDER=./x all` ran ./x for
 *       the makefile's `$(BUILDER) all`) or a command (`make 'BUILDER=rm -rf victim' all`); the
 *       implicit rules' command lines and `$(MAKE)` (review26 S4: `make 'COMPILE.c=rm -rf victim --' x.o`).
 *   F2: compiler flags and gcc's variables that choose programs or build code from elsewhere into
 *       what the recipes run (`make CFLAGS=-I/tmp/evil test`, `make COMPILER_PATH=D x.o`).
 *   E3: a makefile's program variable set where its value is not seen (`printf -v PYTHON …;
 *       export PYTHON; make test`, `for PYTHON in …`).
 *   S4: settings by environment: bundler's `BUNDLE_*`, pnpm's `pnpm_config_*` and `npm_config_*`
 *       (`npm_config_pnpmfile=F pnpm install` loaded F), bun's caches; yarn 1's folders (`yarn
 *       --link-folder D dev` ran D/node_modules/.bin's program).
 *
 * Premises run the real tools when present (GNU Make 4.3 and gcc 12.2, bash 5.2, ruby 3.1's own
 * bundler 2.3.7, pnpm 9.15.9 from `PNPM_BIN` as review25-managers, yarn 1.22.22 from `YARN1_BIN`) and skip, saying so, when one is absent. CI
 * runs with CI=true, no stdin and no SHELL: each premise sets what it relies on.
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('rules26-'));
});

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };
const shell = (command: string, mode: DefaultMode, rules: Rules) => decideInWorkspace(command, mode, rules, W, home);

const hasMake = runs('make', ['--version']);
const hasGcc = runs('gcc', ['--version']);
const hasBash = runs('bash', ['-c', 'true']);
const PNPM = process.env.PNPM_BIN ?? (existsSync('/tmp/rb21/pn/node_modules/.bin/pnpm') ? '/tmp/rb21/pn/node_modules/.bin/pnpm' : 'pnpm');
const hasPnpm = runs(PNPM, ['--version']);
const BUNDLER = (() => {
  const found = spawnSync('ruby', ['-e', 'require "bundler"; print Gem.bin_path("bundler", "bundle")'], { encoding: 'utf8', timeout: 30_000 });
  return found.status === 0 && existsSync(found.stdout) ? found.stdout : null;
})();
const YARN1 = process.env.YARN1_BIN ?? (existsSync('/tmp/yn/node_modules/yarn/bin/yarn.js') ? '/tmp/yn/node_modules/yarn/bin/yarn.js' : null);
const hasYarn1 = YARN1 !== null && spawnSync(process.execPath, [YARN1, '--version'], { encoding: 'utf8', timeout: 30_000 }).stdout?.startsWith('1.');

/** The environment of a premise (test/helpers/policy.ts premiseEnv), without the variables these premises read. */
const baseEnv = (dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv =>
  premiseEnv(dir, /^(MAKEFLAGS|MFLAGS|CFLAGS|CPATH|C_INCLUDE_PATH|LIBRARY_PATH|COMPILER_PATH|GCC_EXEC_PREFIX|BUNDLE_.*|BUILDER|PYTHON)$/, extra);

/** A directory for a premise, with a marker file each attack touches. */
const place = (name: string) => premisePlace(T, name);

const MAKE_RULES: Rules = { allow: ['Bash(make:*)', 'Bash(./build.sh:*)'], deny: ['Bash(rm *)'] };

describe('V1. a make variable outside the program lists: a recipe may run its value', () => {
  test.skipIf(!hasMake)('premise: make runs a command-line or environment BUILDER for `$(BUILDER) all`, and a command in it', () => {
    const { dir, marker, ran } = place('v1');
    writeFileSync(join(dir, 'Makefile'), 'BUILDER ?= true\nall:\n\t$(BUILDER) all\n');
    writeFileSync(join(dir, 'x'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const make = (args: string[], extra: NodeJS.ProcessEnv = {}): void => void spawnSync('make', args, { cwd: dir, env: baseEnv(dir, extra), input: '', timeout: 60_000 });
    make(['all']);
    expect(ran(), 'make all').toBe(false);
    make(['BUILDER=./x', 'all']);
    expect(ran(), 'make BUILDER=./x all').toBe(true);
    make(['all'], { BUILDER: './x' });
    expect(ran(), 'BUILDER=./x make all').toBe(true);
    mkdirSync(join(dir, 'victim'), { recursive: true });
    make(['BUILDER=rm -rf victim', 'all']);
    expect(existsSync(join(dir, 'victim')), "make 'BUILDER=rm -rf victim' all").toBe(false);
  });
  test.skipIf(!hasMake || !hasGcc)('premise (review26 S4): make runs COMPILE.c and MAKE as command lines, and pastes TARGET_ARCH into the compiler\'s', () => {
    const { dir, marker, ran } = place('v1s4');
    writeFileSync(join(dir, 'x.c'), 'int x;\n');
    writeFileSync(join(dir, 'Makefile'), 'all:\n\t$(MAKE) -f other.mk\n');
    writeFileSync(join(dir, 'other.mk'), 'all:\n\ttrue\n');
    writeFileSync(join(dir, 'w.sh'), `#!/bin/sh\ntouch ${marker}\nexec "$@"\n`, { mode: 0o755 });
    const make = (args: string[]): void => {
      rmSync(join(dir, 'x.o'), { force: true });
      spawnSync('make', args, { cwd: dir, env: baseEnv(dir), input: '', timeout: 60_000 });
    };
    make(['x.o']);
    expect(ran(), 'make x.o').toBe(false);
    make(['COMPILE.c=./w.sh gcc -c', 'x.o']);
    expect(ran(), 'make COMPILE.c=./w.sh x.o').toBe(true);
    make(['TARGET_ARCH=-wrapper ./w.sh', 'x.o']);
    expect(ran(), "make 'TARGET_ARCH=-wrapper ./w.sh' x.o").toBe(true);
    make(['all']);
    expect(ran(), 'make all').toBe(false);
    make(['MAKE=./w.sh make', 'all']);
    expect(ran(), 'make MAKE=./w.sh all').toBe(true);
  });
  test.each(MODES)('%s: a command in the value meets deny rules', (mode) => {
    for (const command of ["make 'BUILDER=rm -rf victim' all", "make 'RUNNER=env rm -rf victim' test", "make 'FOO=sudo rm -rf victim'", "BUILDER='rm -rf victim' make all", "gmake 'BUILDER=rm -rf victim' all", "make 'COMPILE.c=rm -rf victim --' x.o", "make 'LINK.o=rm -rf victim' x", "make 'MAKE=rm -rf victim --' all", "env 'COMPILE.c=rm -rf victim --' make x.o"]) {
      const decision = shell(command, mode, MAKE_RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe('deny');
    }
  });
  test.each(MODES)('%s: a value spelled as a path is decided as the program it may be', (mode) => {
    // As `make PYTHON=./evil test` (round 25): bypassPermissions runs a program it can see, no other mode allows it here.
    for (const command of ['make BUILDER=./x all', 'make FOO=/tmp/evil all', "make 'RUNNER=env ./x' test", 'make TOOL=bin/gen', 'make O=/tmp/out/x all', "make 'ARGS=-v ./x'", 'make COMPILE.c=./w.sh x.o', "make 'COMPILE.c=ccache gcc -c' x.o", 'make MAKE=./evil all']) {
      const decision = shell(command, mode, MAKE_RULES);
      if (mode === 'bypassPermissions') expect(decision.verdict, command).toBe('allow');
      else expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  // The installation directories are no programs; outside the workspace they are writes since round 28 (rules28b.test.ts L2), so these name the workspace.
  test.each(['make', 'make V=1', "make 'TESTS=a b'", "make 'MSG=hello world' all", 'make PREFIX=./stage install', 'make prefix=stage install', 'make DESTDIR=./pkg install', 'make DESTDIR=./pkg bindir=/usr/local/bin install', 'make CC=gcc', 'make PYTHON=python3 test', 'make PYTHONPATH=src test', 'make CFLAGS=-O2', 'make URL=https://example.com/x fetch', 'make O=build', 'make -j4 test'])(
    'default, Bash(make:*): %j stays allowed',
    (command) => {
      const decision = shell(command, 'default', MAKE_RULES);
      expect(decision.verdict, decision.reason).toBe('allow');
    },
  );
});

describe('F2. compiler flags and gcc\'s variables that choose programs or build code from elsewhere', () => {
  test.skipIf(!hasMake || !hasGcc)('premise: -I D builds D\'s stdio.h into what `make test` runs; COMPILER_PATH and GCC_EXEC_PREFIX pick the assembler gcc runs', () => {
    const { dir, marker, ran } = place('f2');
    const work = join(dir, 'w');
    mkdirSync(join(work), { recursive: true });
    mkdirSync(join(dir, 'evil'), { recursive: true });
    writeFileSync(join(work, 'prog.c'), '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n');
    writeFileSync(join(work, 'x.c'), 'int x;\n');
    writeFileSync(join(work, 'Makefile'), 'test: prog\n\t./prog\nasm: x.s\n\t$(CC) -c x.s\nx.s: x.c\n\t$(CC) -S x.c\n');
    writeFileSync(join(dir, 'evil', 'stdio.h'), `#include_next <stdio.h>\n__attribute__((constructor)) static void evil(void) { fclose(fopen(${JSON.stringify(marker)}, "w")); }\n`);
    writeFileSync(join(dir, 'evil', 'as'), `#!/bin/sh\ntouch ${marker}\nexec as "$@"\n`, { mode: 0o755 });
    const make = (args: string[]): void => {
      for (const file of ['prog', 'x.o']) rmSync(join(work, file), { force: true });
      spawnSync('make', args, { cwd: work, env: baseEnv(dir), input: '', timeout: 60_000 });
    };
    make(['test']);
    expect(ran(), 'make test').toBe(false);
    make([`CFLAGS=-I${join(dir, 'evil')}`, 'test']);
    expect(ran(), 'make CFLAGS=-ID test').toBe(true);
    make(['asm']);
    expect(ran(), 'make asm').toBe(false);
    make([`COMPILER_PATH=${join(dir, 'evil')}`, 'asm']);
    expect(ran(), 'make COMPILER_PATH=D asm').toBe(true);
    make([`GCC_EXEC_PREFIX=${join(dir, 'evil')}/`, 'asm']);
    expect(ran(), 'make GCC_EXEC_PREFIX=D/ asm').toBe(true);
  });
  test.each(MODES)('%s: asks under Bash(make:*) (denied where the mode refuses)', (mode) => {
    for (const command of [
      'make CFLAGS=-I/tmp/evil test',
      "make 'CC=x; touch F' x.o",
      "make 'MAKE=x; touch F' all",
      "make 'TARGET_ARCH=-wrapper ./w.sh' x.o",
      "make 'OUTPUT_OPTION=-o x.o -wrapper ./w.sh' x.o",
      'make TARGET_ARCH=-fplugin=./p.so x.o',
      "make 'CXX_FLAGS=-fplugin=./p.so'",
      "make 'CFLAGS=-O2 -I /tmp/evil' test",
      'make CPPFLAGS=-isystem/tmp/evil test',
      'make CFLAGS=-iquote../other test',
      'make CFLAGS=--sysroot=/tmp/root test',
      'make CFLAGS=-isysroot/tmp/root test',
      'make LDFLAGS=-L/tmp/evil test',
      'make LDFLAGS=-Wl,-rpath,/tmp/evil test',
      'make LDFLAGS=-Wl,--dynamic-linker=/tmp/ld.so test',
      "make 'LDFLAGS=-Xlinker -rpath -Xlinker /tmp/evil' test",
      'make LDLIBS=/tmp/evil.o test',
      'make LDFLAGS=-Wl,@opts.txt',
      "make 'LDFLAGS=-Xlinker @opts.txt'",
      'make CFLAGS=--gcc-toolchain=/tmp/tc',
      'make CFLAGS=--gcc-install-dir=/tmp/tc',
      'make CFLAGS=-ccc-install-dir',
      'make CFLAGS=--config=./x.cfg',
      "make 'CFLAGS=-mllvm -load=./p.so'",
      'make COMPILER_PATH=/tmp/evil x.o',
      'make GCC_EXEC_PREFIX=/tmp/evil/ x.o',
      "make 'CCC_OVERRIDE_OPTIONS=+-fplugin=./p.so' x.o",
      'make CPATH=/tmp/evil test',
      'make LIBRARY_PATH=/tmp/evil test',
      'CFLAGS=-I/tmp/evil ./build.sh',
      'export CFLAGS=-I/tmp/evil; make test',
    ]) {
      const decision = shell(command, mode, MAKE_RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(MODES)('%s: before gcc or a program that starts others, gcc\'s program variables are not allowed', (mode) => {
    for (const command of ['TARGET_ARCH=-fplugin=./p.so make x.o', 'COMPILER_PATH=/tmp/evil make x.o', 'GCC_EXEC_PREFIX=/tmp/evil/ make x.o', 'COMPILER_PATH=/tmp/evil gcc -c x.c', 'export GCC_EXEC_PREFIX=/tmp/evil/; make x.o', 'CCC_OVERRIDE_OPTIONS=+-fplugin=./p.so ./build.sh']) {
      expect(shell(command, mode, MAKE_RULES).verdict, command).not.toBe('allow');
    }
  });
  test.each(['make CFLAGS=-I/usr/include/foo', "make 'CFLAGS=-O2 -g -Wall -Iinclude -I./src -DNDEBUG -DVERSION=3'", 'make LDFLAGS=-L/usr/local/lib', 'make LDFLAGS=-Wl,--as-needed', 'make CFLAGS=--sysroot=/usr/aarch64-linux-gnu', "make 'LDLIBS=-lm -lpthread'", 'make CFLAGS=-fuse-ld=lld', 'make CPATH=include', 'make TARGET_ARCH=-m64 x.o', 'make ARFLAGS=rv', 'make MAKE=make all'])(
    'default, Bash(make:*): %j stays allowed',
    (command) => {
      const decision = shell(command, 'default', MAKE_RULES);
      expect(decision.verdict, decision.reason).toBe('allow');
    },
  );
  test.each(['CFLAGS=-O2 make', 'CPATH=include make', 'LIBRARY_PATH=/usr/lib/x86_64-linux-gnu make', 'export CFLAGS=-Iinclude; make'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', MAKE_RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('E3. a makefile\'s program variable set where its value is not seen', () => {
  test.skipIf(!hasMake || !hasBash)('premise: bash\'s printf -v and for set an exported PYTHON that make runs for $(PYTHON)', () => {
    const { dir, marker, ran } = place('e3');
    writeFileSync(join(dir, 'Makefile'), 'PYTHON ?= true\ntest:\n\t$(PYTHON) -c 1\n');
    writeFileSync(join(dir, 'evil'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const bash = (text: string): void => void spawnSync('bash', ['-c', text], { cwd: dir, env: baseEnv(dir), input: '', timeout: 60_000 });
    bash('make test');
    expect(ran(), 'make test').toBe(false);
    bash('printf -v PYTHON %s ./evil; export PYTHON; make test');
    expect(ran(), 'printf -v').toBe(true);
    bash('for PYTHON in ./evil; do export PYTHON; make test; done');
    expect(ran(), 'for').toBe(true);
  });
  test.each(MODES)('%s: not allowed (the value is not seen)', (mode) => {
    for (const command of ["printf -v PYTHON %s 'rm -rf victim'; export PYTHON; make test", 'for PYTHON in ./evil; do export PYTHON; make test; done', "printf -v TEST_CMD %s 'rm -rf victim'; export TEST_CMD; make check", 'for SPHINXBUILD in ./x; do export SPHINXBUILD; make html; done']) {
      const decision = shell(command, mode, MAKE_RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).not.toBe('allow');
    }
  });
  test.each(MODES)('%s: a value seen meets deny rules, exported or set with set -a', (mode) => {
    for (const command of ["export PYTHON='rm -rf victim'; make test", "set -a; PYTHON='rm -rf victim'; make test", "PYTHON='rm -rf victim'; export PYTHON; make test"]) {
      expect(shell(command, mode, MAKE_RULES).verdict, command).toBe('deny');
    }
  });
  test.each(['export PYTHON=python3; make test', 'PYTHON=python3 make test', 'for f in a b; do make test; done'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', MAKE_RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('S4. bundler\'s, pnpm\'s and npm\'s settings by environment, bun\'s caches, yarn 1\'s folders', () => {
  test.skipIf(BUNDLER === null)('premise: bundler evaluates the Gemfile BUNDLE_GEMFILE names (bundle exec)', () => {
    const { dir, marker, ran } = place('s4b');
    mkdirSync(join(dir, 'evil'), { recursive: true });
    writeFileSync(join(dir, 'Gemfile'), '');
    writeFileSync(join(dir, 'evil', 'Gemfile'), `File.write(${JSON.stringify(marker)}, "")\n`);
    const bundle = (extra: NodeJS.ProcessEnv): void => void spawnSync('ruby', [BUNDLER!, 'exec', 'ruby', '-e', '1'], { cwd: dir, env: baseEnv(dir, extra), input: '', timeout: 120_000 });
    bundle({});
    expect(ran(), 'bundle exec').toBe(false);
    bundle({ BUNDLE_GEMFILE: join(dir, 'evil', 'Gemfile') });
    expect(ran(), 'BUNDLE_GEMFILE=F bundle exec').toBe(true);
  });
  test.skipIf(!hasPnpm)('premise: pnpm reads npm_config_pnpmfile and NPM_CONFIG_GLOBAL_PNPMFILE as its pnpmfile (loaded by install)', () => {
    const { dir, marker, ran } = place('s4p');
    mkdirSync(join(dir, 'w'), { recursive: true });
    writeFileSync(join(dir, 'w', 'package.json'), JSON.stringify({ name: 'w', version: '1.0.0' }));
    writeFileSync(join(dir, 'x.cjs'), `require('fs').writeFileSync(${JSON.stringify(marker)}, '');\nmodule.exports = { hooks: {} };\n`);
    const pnpm = (extra: NodeJS.ProcessEnv): void => void spawnSync(PNPM, ['install', '--offline'], { cwd: join(dir, 'w'), env: baseEnv(dir, { XDG_CONFIG_HOME: join(dir, '.config'), ...extra }), input: '', timeout: 120_000 });
    pnpm({});
    expect(ran(), 'pnpm install').toBe(false);
    pnpm({ npm_config_pnpmfile: join(dir, 'x.cjs') });
    expect(ran(), 'npm_config_pnpmfile=F pnpm install').toBe(true);
    pnpm({ NPM_CONFIG_GLOBAL_PNPMFILE: join(dir, 'x.cjs') });
    expect(ran(), 'NPM_CONFIG_GLOBAL_PNPMFILE=F pnpm install').toBe(true);
  });
  test.skipIf(!hasYarn1)('premise: yarn 1 puts --link-folder D\'s node_modules/.bin first in a script\'s PATH', () => {
    const { dir, marker, ran } = place('s4y');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'w', version: '1.0.0', scripts: { dev: 'tool' } }));
    mkdirSync(join(dir, 'l', 'node_modules', '.bin'), { recursive: true });
    writeFileSync(join(dir, 'l', 'node_modules', '.bin', 'tool'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const yarn = (args: string[]): void => void spawnSync(process.execPath, [YARN1!, ...args, 'dev'], { cwd: dir, env: baseEnv(dir), input: '', timeout: 120_000 });
    yarn([]);
    expect(ran(), 'yarn dev').toBe(false);
    yarn(['--link-folder', join(dir, 'l')]);
    expect(ran(), 'yarn --link-folder D dev').toBe(true);
  });
  const RULES: Rules = { allow: ['Bash(bundle:*)', 'Bash(npm:*)', 'Bash(pnpm:*)', 'Bash(yarn:*)', 'Bash(bun:*)', 'Bash(./build.sh:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: not allowed', (mode) => {
    for (const command of [
      'BUNDLE_GEMFILE=/tmp/evil/Gemfile bundle exec rspec',
      'BUNDLE_PATH=/tmp/gems bundle exec rake',
      'BUNDLE_APP_CONFIG=/tmp/c bundle install',
      'BUNDLE_BIN=/tmp/b bundle install',
      'export BUNDLE_GEMFILE=/tmp/evil/Gemfile; bundle exec rspec',
      'BUNDLE_GEMFILE=/tmp/evil/Gemfile ./build.sh',
      'pnpm_config_dir=../evil pnpm run dev',
      'PNPM_CONFIG_DIR=../evil pnpm run dev',
      'pnpm_config_pnpmfile=./x.cjs pnpm install',
      'pnpm_config_script_shell=./x pnpm test',
      'export pnpm_config_script_shell=./x; pnpm test',
      'npm_config_dir=../evil pnpm run dev',
      'npm_config_pnpmfile=./x.cjs pnpm install',
      'NPM_CONFIG_GLOBAL_PNPMFILE=./x.cjs pnpm install',
      "env 'npm_config_script-shell=./x' npm test",
      'BUN_RUNTIME_TRANSPILER_CACHE_PATH=/tmp/c bun run dev',
      'BUN_INSTALL_CACHE_DIR=/tmp/c bun install',
    ]) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).not.toBe('allow');
    }
  });
  test.each(MODES)('%s: yarn 1\'s folders ask under Bash(yarn:*) (denied where the mode refuses)', (mode) => {
    for (const command of ['yarn --modules-folder /tmp/m dev', 'yarn --link-folder /tmp/l dev', 'yarn --cache-folder /tmp/c install', 'yarn --preferred-cache-folder=/tmp/c install', 'yarn --global-folder /tmp/g global add x', 'yarn install --modules-folder /tmp/m']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(['yarn dev', 'yarn jest --cache', 'yarn test --link', 'yarn install --frozen-lockfile', 'bundle exec rspec', 'pnpm run dev', 'npm test'])('default: %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(['BUNDLE_JOBS=4 bundle install', 'BUNDLE_WITHOUT=development bundle install', 'BUNDLE_FROZEN=true bundle install', 'npm_config_loglevel=silent npm test', 'pnpm_config_reporter=silent pnpm test', 'NPM_CONFIG_FUND=false npm ci'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});
