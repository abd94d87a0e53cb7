import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES, premiseEnv, premisePlace, refused, runs } from '../helpers/policy.js';

/**
 * Round 27 (rules27a): the command rules round 26's review left open (docs/threat-model.md "Round
 * 27: rules left by round 26 (rules27a)"). Each was allowed under a prefix rule (`Bash(make:*)`,
 * `Bash(node:*)`, `Bash(deno:*)`), or by bypassPermissions past deny rules:
 *
 *   S5: a `GIT_*` variable given to make (`GIT_COMMIT=';touch F;' make`): the recipe check left
 *       git's names to git, while any recipe may paste them.
 *   S6: `CARGO_TARGET_DIR=D` given to make (`make CARGO_TARGET_DIR=D`, before it) or exported in an
 *       earlier segment (`export CARGO_TARGET_DIR=D; cargo build`): no write of D.
 *   I3: make's installation directories (`make PREFIX=/usr install`, `DESTDIR=D`, `bindir=…`) were
 *       not read as where `make install` writes: allowed past `Edit(/usr/**)`.
 *   E4: a variable this shell exports in an earlier segment, outside the named lists (`export
 *       BUILDER='rm -rf victim'; make`, `X=…; export X; make`, `set -a`, `declare -x`): make takes
 *       it as its own command line's, the walk did not give it to make.
 *   N5: `node --env-file=F` / `--env-file-if-exists=F`: F's `NODE_OPTIONS=--require ./x.js` ran x.js
 *       under `Bash(node:*)` (node 20.20).
 *   S8: `node --test PATH` (a file, a directory, a glob) and `deno test PATH` ran test files from
 *       outside the workspace under `Bash(node:*)` / `Bash(deno:*)`, where `bun test PATH` asks.
 *
 * Premises run the real tools when present (GNU Make 4.3, bash 5.2, cargo 1.95, this node) and skip, saying so, when one
 * is absent. CI runs with CI=true, no stdin and no SHELL: each premise sets what it relies on.
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('rules27-'));
});

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };
const shell = (command: string, mode: DefaultMode, rules: Rules) => decideInWorkspace(command, mode, rules, W, home);

const hasMake = runs('make', ['--version']);
const hasCargo = runs('cargo', ['--version']);
const hasBash = runs('bash', ['-c', 'true']);

/** The environment of a premise (test/helpers/policy.ts premiseEnv), without the variables these premises read. */
const baseEnv = (dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv =>
  premiseEnv(dir, /^(MAKEFLAGS|MFLAGS|GIT_.*|CARGO_.*|PREFIX|DESTDIR|BUILDER|NODE_OPTIONS)$/, extra);

/** A directory for a premise, with a marker file each attack touches. */
const place = (name: string) => premisePlace(T, name);

const MAKE_RULES: Rules = { allow: ['Bash(make:*)', 'Bash(git:*)', 'Bash(./build.sh:*)'], deny: ['Bash(rm *)', 'Bash(touch *)'] };

describe('S5. a GIT_* variable given to make: a recipe may paste it', () => {
  test.skipIf(!hasMake)('premise: make pastes an environment or command-line GIT_COMMIT into a recipe', () => {
    const { dir, marker, ran } = place('s5');
    writeFileSync(join(dir, 'Makefile'), 'all:\n\techo $(GIT_COMMIT)\n');
    const make = (args: string[], extra: NodeJS.ProcessEnv = {}): void => void spawnSync('make', args, { cwd: dir, env: baseEnv(dir, extra), input: '', timeout: 60_000 });
    make(['all'], { GIT_COMMIT: 'abc123' });
    expect(ran(), 'GIT_COMMIT=abc123 make').toBe(false);
    make(['all'], { GIT_COMMIT: `;touch ${marker};` });
    expect(ran(), "GIT_COMMIT=';touch F;' make").toBe(true);
    make([`GIT_COMMIT=;touch ${marker};`, 'all']);
    expect(ran(), "make 'GIT_COMMIT=;touch F;'").toBe(true);
  });
  test.each(MODES)('%s: shell syntax in a GIT_* value before make or a script is not allowed', (mode) => {
    for (const command of ["GIT_COMMIT=';touch F;' make", "GIT_BRANCH='x;touch F' make all", "env 'GIT_COMMIT=;touch F;' make", "GIT_COMMIT=';touch F;' ./build.sh", "GIT_COMMIT=';touch F;'; export GIT_COMMIT; git status; make"]) {
      const decision = shell(command, mode, MAKE_RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(MODES)('%s: a command in a GIT_* value given to make meets deny rules', (mode) => {
    for (const command of ["make 'GIT_COMMIT=rm -rf victim'", "GIT_COMMIT='rm -rf victim' make", "gmake 'GIT_VERSION=rm -rf victim' all"]) {
      const decision = shell(command, mode, MAKE_RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe('deny');
    }
  });
  test.each(['make GIT_COMMIT=abc123', 'make GIT_TAG=v1.2 all', 'git status', 'make'])('default, Bash(make:*): %j stays allowed', (command) => {
    const decision = shell(command, 'default', MAKE_RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(["GIT_CONFIG_PARAMETERS=\"'user.name'='x'\" git status", 'GIT_COMMIT=abc123 make', "GIT_AUTHOR_NAME='A B' git commit -m x"])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', MAKE_RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('S6. CARGO_TARGET_DIR given to make, or exported for a later cargo', () => {
  test.skipIf(!hasMake || !hasCargo)('premise: a recipe\'s cargo writes below the CARGO_TARGET_DIR given to make', () => {
    const { dir } = place('s6');
    const work = join(dir, 'w');
    mkdirSync(join(work, 'src'), { recursive: true });
    writeFileSync(join(work, 'Cargo.toml'), '[package]\nname = "w"\nversion = "0.1.0"\nedition = "2021"\n');
    writeFileSync(join(work, 'src', 'main.rs'), 'fn main() {}\n');
    writeFileSync(join(work, 'Makefile'), 'build:\n\tcargo build --offline -q\n');
    // rustup's proxy finds its toolchains from the real home.
    const rust = { RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), '.rustup'), CARGO_HOME: process.env.CARGO_HOME ?? join(homedir(), '.cargo') };
    const make = (args: string[], extra: NodeJS.ProcessEnv = {}): void => void spawnSync('make', args, { cwd: work, env: baseEnv(dir, { ...rust, ...extra }), input: '', timeout: 300_000 });
    make([`CARGO_TARGET_DIR=${join(dir, 'out1')}`, 'build']);
    expect(existsSync(join(dir, 'out1', 'debug')), 'make CARGO_TARGET_DIR=D').toBe(true);
    make(['build'], { CARGO_TARGET_DIR: join(dir, 'out2') });
    expect(existsSync(join(dir, 'out2', 'debug')), 'CARGO_TARGET_DIR=D make').toBe(true);
    expect(existsSync(join(work, 'target')), 'the project\'s own target/').toBe(false);
  }, 320_000);
  const RULES: Rules = { allow: ['Bash(make:*)', 'Bash(cargo:*)', 'Bash(npm:*)'], deny: ['Bash(rm *)', 'Edit(/tmp/prot/**)'] };
  test.each(MODES)('%s: the directory is a write deny rules meet', (mode) => {
    for (const command of ['make CARGO_TARGET_DIR=/tmp/prot/t', 'make build CARGO_TARGET_DIR=/tmp/prot/t', 'CARGO_TARGET_DIR=/tmp/prot/t make', 'env CARGO_TARGET_DIR=/tmp/prot/t gmake', 'CARGO_TARGET_DIR=/tmp/prot/t npm run build', 'export CARGO_TARGET_DIR=/tmp/prot/t; cargo build', 'CARGO_TARGET_DIR=/tmp/prot/t; export CARGO_TARGET_DIR; cargo build', 'export CARGO_TARGET_DIR=/tmp/prot/t; make']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe('deny');
    }
  });
  test.each(['make', 'cargo build', 'make CARGO_TARGET_DIR=', 'make CARGO_INCREMENTAL=0'])('default: %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(['make CARGO_TARGET_DIR=target2', 'export CARGO_TARGET_DIR=target2; cargo build', 'CARGO_TARGET_DIR=target2 make'])('bypassPermissions with deny rules: %j (below the workspace) stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('I3. make\'s installation directories are where `make install` writes', () => {
  test.skipIf(!hasMake)('premise: make install writes below the PREFIX and DESTDIR given to it', () => {
    const { dir } = place('i3');
    const work = join(dir, 'w');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'x'), 'x\n');
    writeFileSync(join(work, 'Makefile'), 'PREFIX ?= /usr/local\ninstall:\n\tinstall -D -m 644 x $(DESTDIR)$(PREFIX)/share/x\n');
    const make = (args: string[], extra: NodeJS.ProcessEnv = {}): void => void spawnSync('make', args, { cwd: work, env: baseEnv(dir, extra), input: '', timeout: 60_000 });
    make([`PREFIX=${join(dir, 'p1')}`, 'install']);
    expect(existsSync(join(dir, 'p1', 'share', 'x')), 'make PREFIX=D install').toBe(true);
    make(['install'], { PREFIX: join(dir, 'p2') });
    expect(existsSync(join(dir, 'p2', 'share', 'x')), 'PREFIX=D make install').toBe(true);
    make([`DESTDIR=${join(dir, 'stage')}`, 'PREFIX=/usr', 'install']);
    expect(existsSync(join(dir, 'stage', 'usr', 'share', 'x')), 'make DESTDIR=D PREFIX=/usr install').toBe(true);
  });
  const RULES: Rules = { allow: ['Bash(make:*)'], deny: ['Bash(rm *)', 'Edit(/usr/**)', 'Edit(/tmp/prot/**)'] };
  test.each(MODES)('%s: a directory deny rules cover is denied', (mode) => {
    for (const command of ['make PREFIX=/usr install', 'make prefix=/usr/local install', 'make bindir=/usr/local/bin install', 'make DESTDIR=/tmp/prot install', "make 'PREFIX = /usr' install", 'PREFIX=/usr make install', 'env DESTDIR=/tmp/prot gmake install', 'make DESTDIR=/tmp/prot PREFIX=/usr install', 'DESTDIR=/tmp/prot make PREFIX=/usr install']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe('deny');
    }
  });
  // dontAsk: since round 28 a directory outside the project and the system is also a read of the code a recipe may run there, refused there (rules28b.test.ts L2).
  test.each(MODES)('%s: a deny rule below the directory asks (a rule\'s ask, in every mode)', (mode) => {
    for (const command of ['make PREFIX=/tmp/home2/.local install', 'make PREFIX=/tmp/home2 install', 'make DESTDIR=/tmp/home2 PREFIX=/.local install']) {
      const decision = shell(command, mode, { ...RULES, deny: [...RULES.deny!, 'Edit(/tmp/home2/.local/bin/**)'] });
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(mode === 'dontAsk' ? 'deny' : 'ask');
    }
  });
  // Inside the workspace (outside it, a write as any other since round 28: rules28b.test.ts L2).
  test.each(['make install', 'make PREFIX=./opt/x install', 'make DESTDIR=./stage install', 'make DESTDIR=./stage PREFIX=/usr install', 'make PREFIX= install', 'make V=1 install'])('default and bypassPermissions: %j stays allowed', (command) => {
    for (const mode of ['default', 'bypassPermissions'] as const) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${mode}: ${decision.reason}`).toBe('allow');
    }
  });
});

describe('E4. a variable exported in an earlier segment is make\'s', () => {
  test.skipIf(!hasMake || !hasBash)('premise: bash\'s export, export NAME, declare -x and set -a give make BUILDER for `$(BUILDER) all`', () => {
    const { dir, marker, ran } = place('e4');
    writeFileSync(join(dir, 'Makefile'), 'BUILDER ?= true\nall:\n\t$(BUILDER) all\n');
    writeFileSync(join(dir, 'x'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const bash = (text: string): void => void spawnSync('bash', ['-c', text], { cwd: dir, env: baseEnv(dir), input: '', timeout: 60_000 });
    bash('BUILDER=./x; make all');
    expect(ran(), 'BUILDER=./x; make all (not exported)').toBe(false);
    for (const text of ['export BUILDER=./x; make all', 'BUILDER=./x; export BUILDER; make all', 'declare -x BUILDER=./x; make all', 'set -a; BUILDER=./x; make all', 'set -o allexport; BUILDER=./x; make all']) {
      bash(text);
      expect(ran(), text).toBe(true);
    }
  });
  const RULES: Rules = { allow: ['Bash(make:*)'], deny: ['Bash(rm *)', 'Edit(/usr/**)'] };
  test.each(MODES)('%s: a command in the value meets deny rules, and an installation directory its Edit rules', (mode) => {
    for (const command of [
      "export BUILDER='rm -rf victim'; make all",
      "BUILDER='rm -rf victim'; export BUILDER; make all",
      "set -a; BUILDER='rm -rf victim'; make all",
      "set -o allexport; BUILDER='rm -rf victim'; make all",
      "for i in 1 2; do make all; export BUILDER='rm -rf victim'; done",
      "export GIT_COMMIT='rm -rf victim'; make",
      'export PREFIX=/usr; make install',
      'PREFIX=/usr; export PREFIX; make install',
      'set -a; DESTDIR=/usr/x; gmake install',
    ]) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe('deny');
    }
  });
  test.each(["BUILDER='rm -rf victim'; make all", 'export V=1; make', 'export CFLAGS=-O2; make', 'PREFIX=/usr; make install', "export MSG='hello world'; make all", 'export PREFIX=/opt/x; make install'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('N5. node\'s --env-file: the file\'s NODE_OPTIONS loads code', () => {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  const nodeMinor = Number(process.versions.node.split('.')[1]);
  const hasIfExists = nodeMajor > 22 || (nodeMajor === 22 && nodeMinor >= 9) || (nodeMajor === 20 && nodeMinor >= 19);
  test('premise: node runs the --require of the NODE_OPTIONS an --env-file sets, either spelling', () => {
    const { dir, marker, ran } = place('n5');
    writeFileSync(join(dir, 'x.js'), `require('fs').writeFileSync(${JSON.stringify(marker)}, '');\n`);
    writeFileSync(join(dir, 's.js'), '');
    writeFileSync(join(dir, 'notes.env'), 'NODE_OPTIONS="--require ./x.js"\n');
    const node = (args: string[]): void => void spawnSync(process.execPath, args, { cwd: dir, env: baseEnv(dir), input: '', timeout: 60_000 });
    node(['s.js']);
    expect(ran(), 'node s.js').toBe(false);
    node(['--env-file=notes.env', 's.js']);
    expect(ran(), 'node --env-file=notes.env s.js').toBe(true);
    node(['--env-file', 'notes.env', 's.js']);
    expect(ran(), 'node --env-file notes.env s.js').toBe(true);
    if (hasIfExists) {
      node(['--env-file-if-exists=notes.env', 's.js']);
      expect(ran(), 'node --env-file-if-exists=notes.env s.js').toBe(true);
    }
  });
  const RULES: Rules = { allow: ['Bash(node:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: asks under Bash(node:*) (denied where the mode refuses)', (mode) => {
    for (const command of ['node --env-file=notes.env s.js', 'node --env-file notes.env s.js', 'node --env-file-if-exists=notes.env s.js', 'node --env-file-if-exists notes.env s.js', 'node --no-warnings --env-file=.env server.js', 'nodejs --env-file=.env s.js', 'node --env-file=.env --test']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(MODES)('%s: a Read deny rule on the file still denies', (mode) => {
    const decision = shell('node --env-file /tmp/prot/x.env s.js', mode, { ...RULES, deny: ['Read(/tmp/prot/**)'] });
    expect(decision.verdict, decision.reason).toBe('deny');
  });
  test.each(['node s.js', 'node s.js --env-file=x', 'node --no-env-file s.js', 'node --max-old-space-size=4096 s.js', 'node --version'])('default: %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('S8. node --test and deno test run the test files their paths name', () => {
  test('premise: node --test runs a test file, and the test files of a directory, outside the working directory', () => {
    const { dir, marker, ran } = place('s8');
    mkdirSync(join(dir, 'w'), { recursive: true });
    mkdirSync(join(dir, 'evil'), { recursive: true });
    writeFileSync(join(dir, 'evil', 'x.test.js'), `require('fs').writeFileSync(${JSON.stringify(marker)}, '');\n`);
    const node = (args: string[]): void => void spawnSync(process.execPath, args, { cwd: join(dir, 'w'), env: baseEnv(dir), input: '', timeout: 120_000 });
    node(['--test']);
    expect(ran(), 'node --test').toBe(false);
    node(['--test', '../evil/x.test.js']);
    expect(ran(), 'node --test ../evil/x.test.js').toBe(true);
    node(['--test', '../evil']);
    expect(ran(), 'node --test ../evil').toBe(true);
    node(['--test', '--test-concurrency', '2', '../evil/x.test.js']);
    expect(ran(), 'node --test --test-concurrency 2 ../evil/x.test.js').toBe(true);
  }, 130_000);
  const RULES: Rules = { allow: ['Bash(node:*)', 'Bash(nodejs:*)', 'Bash(deno:*)', 'Bash(bun:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: a test path outside the workspace is a read of code (asks, denied in dontAsk; bypassPermissions without a rule on it allows, as bun test)', (mode) => {
    for (const command of ['node --test /tmp/evil/t.test.js', 'node --test ../other/t.js', 'node --test ../other', "node --test '/tmp/evil/**/*.test.js'", 'node --test --test-reporter spec /tmp/evil/t.js', 'node --test --test-concurrency 2 /tmp/evil/t.js', 'node --test -r ./setup.js /tmp/evil/t.js', 'nodejs --test /tmp/evil/t.js', 'deno test /tmp/evil/t.ts', 'deno test ../other/', 'deno test -A /tmp/evil/t.ts', "deno test '/tmp/evil/**/*_test.ts'", 'deno -q test /tmp/evil/t.ts', 'deno test --filter foo /tmp/evil/t.ts', 'bun test /tmp/evil/t.js']) {
      const decision = shell(command, mode, RULES);
      // A read outside the workspace: asked in plan mode too (plan refuses writes and commands, not reads).
      if (mode === 'bypassPermissions') expect(decision.verdict, command).toBe('allow');
      else expect(decision.verdict, `${command}: ${decision.reason}`).toBe(mode === 'dontAsk' ? 'deny' : 'ask');
    }
  });
  test.each(MODES)('%s: a deny rule on the test files denies', (mode) => {
    for (const command of ['node --test /tmp/prot/t.js', 'node --test /tmp/prot', "node --test '/tmp/prot/**/*.test.js'", 'deno test /tmp/prot/t.ts']) {
      const decision = shell(command, mode, { ...RULES, deny: ['Read(/tmp/prot/**)'] });
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe('deny');
    }
  });
  test.each(['node --test', 'node --test test/', "node --test 'test/**/*.test.js'", 'node --test --test-reporter=spec test/a.test.js', 'node --test --test-name-pattern foo', 'deno test', 'deno test src/', 'deno test --filter foo src/', 'deno test -A', 'node s.js', 'bun test test/'])('default: %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});
