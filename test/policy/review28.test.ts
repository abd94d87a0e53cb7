import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES, premisePlace, runs } from '../helpers/policy.js';

/**
 * Round 28's review of round 27's command rules (docs/threat-model.md "Round 28: the review of
 * round 27"): each row was allowed before its fix in the modes the finding names, decided in a
 * fresh workspace; the premises run the real programs (each skips, saying which, when absent).
 */

let root = '';
let W = '';
let home = '';
beforeAll(async () => {
  ({ root, work: W, home } = await commandWorkspace('review28-'));
});

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };
const shell = (command: string, mode: DefaultMode, rules: Rules) => decideInWorkspace(command, mode, rules, W, home);
/** Refused in a mode that asks or denies; in bypassPermissions (deny rules present) asks at least. */
const notAllowed = (command: string, mode: DefaultMode, rules: Rules): void => {
  const decision = shell(command, mode, rules);
  expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
};
const denied = (command: string, mode: DefaultMode, rules: Rules): void => {
  const decision = shell(command, mode, rules);
  expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).toBe('deny');
};

const MAKE = { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] };
const NPM = { allow: ['Bash(npm:*)', 'Bash(npm install:*)', 'Bash(npm ci:*)', 'Bash(npm run:*)'], deny: ['Bash(rm *)'] };

describe('R28-1 npm settings reach node-gyp as gyp variables', () => {
  test.each(MODES)('%s: a `<!(CMD)` value is code, CMD meets deny rules', (mode) => {
    for (const command of ["npm install --foo='<!(rm -rf victim)'", "npm install --tag='<!(rm -rf victim)'", "npm install --tag '<!(rm -rf victim)'", "npm ci --foo='<!@(rm -rf victim)'", "npm rebuild --foo='<!(rm -rf victim)'", "npm run build --foo='<!(rm -rf victim)'", "npm config set tag '<!(rm -rf victim)'", "npm config set --location=project tag='<!(rm -rf victim)'"]) denied(command, mode, NPM);
    for (const command of ["npm ci --foo='<!pymod_do_main(os)'", "npm install --foo='<|(list.txt a)'", "npm install x --foo='>!(id)'"]) notAllowed(command, mode, NPM);
  });
  test('premise: node-gyp runs a setting\'s `<!(CMD)` (npm, node-gyp and node\'s headers)', (context) => {
    if (!runs('npm', ['--version']) || !runs('python3', ['--version']) || !existsSync('/usr/include/node/common.gypi')) return context.skip('needs npm, python3 and node\'s headers in /usr/include/node');
    const place = premisePlace(root, 'gyp');
    writeFileSync(join(place.dir, 'binding.gyp'), '{ "targets": [] }\n');
    writeFileSync(join(place.dir, 'package.json'), '{"name":"gyp-premise","version":"1.0.0","gypfile":true}\n');
    spawnSync('npm', ['install', '--nodedir=/usr', '--offline', `--foo=<!(touch ${place.marker})`], { cwd: place.dir, stdio: 'ignore', timeout: 120_000 });
    expect(place.ran()).toBe(true);
  }, 150_000);
});

describe('R28-2 make strips @, - and + before a recipe line\'s command', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ["make 'BUILDER=@rm -rf v' all", "make 'BUILDER=-rm -rf v' all", "make 'BUILDER=+rm -rf v' all", "make 'BUILDER=@-rm -rf v' all", "BUILDER='@rm -rf v' make all", "export BUILDER='@rm -rf v'; make all", "make 'CC=@rm -rf v' x.o", "export CC='@rm -rf v'; make x.o"]) denied(command, mode, MAKE);
    notAllowed("make 'BUILDER=@perl -e1' all", mode, MAKE);
  });
  test('premise: GNU make runs `rm` for `$(BUILDER)` = `@rm …`', (context) => {
    if (!runs('make', ['--version'])) return context.skip('needs GNU make');
    const place = premisePlace(root, 'make-prefix');
    writeFileSync(join(place.dir, 'Makefile'), 'all:\n\t$(BUILDER)\n');
    for (const prefix of ['@', '-', '+']) {
      spawnSync('make', [`BUILDER=${prefix}touch ${place.marker}`, 'all'], { cwd: place.dir, stdio: 'ignore' });
      expect(place.ran(), prefix).toBe(true);
    }
  });
});

describe('R28-3 a make value whose program\'s own model finds code', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ["make 'BUILDER=git -c alias.x=!rm x -rf v' all", "make 'BUILDER=git -c core.pager=rm log' all", "BUILDER='git -c alias.x=!rm x -rf v' make all"]) denied(command, mode, MAKE);
    notAllowed("make 'BUILDER=git -c alias.x=!touch x' all", mode, MAKE);
  });
  test('premise: git runs the alias a make variable gives it', (context) => {
    if (!runs('make', ['--version']) || !runs('git', ['--version'])) return context.skip('needs GNU make and git');
    const place = premisePlace(root, 'make-git');
    writeFileSync(join(place.dir, 'Makefile'), 'all:\n\t$(BUILDER)\n');
    spawnSync('make', [`BUILDER=git -c alias.x=!touch x ${place.marker}`, 'all'], { cwd: place.dir, stdio: 'ignore' });
    expect(place.ran()).toBe(true);
  });
});

describe('R28-7 rustup +TOOLCHAIN run CMD', () => {
  const RUSTUP = { allow: ['Bash(rustup:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s', (mode) => {
    for (const command of ['rustup +stable run stable rm -rf v', 'rustup -q +stable run stable rm -rf v', 'rustup --verbose +stable run stable rm -rf v', 'rustup +stable run --install stable rm -rf v']) denied(command, mode, RUSTUP);
    notAllowed("rustup +stable run stable sh -c 'echo x'", mode, RUSTUP);
  });
  test('premise: rustup runs the command after `+stable run stable`', (context) => {
    if (!runs('rustup', ['run', 'stable', 'true'])) return context.skip('needs rustup with a stable toolchain');
    const place = premisePlace(root, 'rustup');
    spawnSync('rustup', ['+stable', 'run', 'stable', 'touch', place.marker], { cwd: place.dir, stdio: 'ignore', timeout: 60_000 });
    expect(place.ran()).toBe(true);
  });
});

describe('R28-8 node --test -- PATH', () => {
  test.each(MODES)('%s: meets Read deny rules', (mode) => {
    denied('node --test -- /tmp/r28-evil/t.test.js', mode, { allow: ['Bash(node:*)'], deny: ['Read(/tmp/r28-evil/**)'] });
  });
  test.each(['default', 'acceptEdits', 'plan', 'dontAsk'] as DefaultMode[])('%s: outside the workspace it is not allowed', (mode) => {
    notAllowed('node --test -- /tmp/r28-evil/t.test.js', mode, { allow: ['Bash(node:*)'] });
    notAllowed('node --test -- test/a.test.js ../other/t.test.js', mode, { allow: ['Bash(node:*)'] });
  });
  test('premise: node --test runs the files after `--`', (context) => {
    if (!runs('node', ['--version'])) return context.skip('needs node');
    const place = premisePlace(root, 'node-test');
    const file = join(place.dir, 'x.test.js');
    writeFileSync(file, `require('node:fs').writeFileSync(${JSON.stringify(place.marker)}, '')\n`);
    mkdirSync(join(place.dir, 'cwd'), { recursive: true });
    spawnSync('node', ['--test', '--', file], { cwd: join(place.dir, 'cwd'), stdio: 'ignore', timeout: 60_000 });
    expect(place.ran()).toBe(true);
  });
});

describe('stay allowed (default)', () => {
  test.each([
    ['make V=1 all', MAKE],
    ["make 'TESTS=a b' test", MAKE],
    ['make CC=clang x.o', MAKE],
    ['make CC=@gcc x.o', MAKE],
    ["make 'CFLAGS=-O2 -g' x.o", MAKE],
    ["make 'EXTRA=-O2 -g' all", MAKE],
    ['make O=build', MAKE],
    ["make 'CMD=git status' all", MAKE],
    ['make BUILDER=clang all', MAKE],
    ['make PREFIX=/usr install', MAKE],
    ['npm install --tag=beta', NPM],
    ['npm install --save-dev typescript', NPM],
    ['npm config set tag next', NPM],
    ["npm test -- --grep '<x>'", NPM],
    ["npm run build -- --define='<!(x)'", NPM],
    ['rustup +stable run stable cargo build', { allow: ['Bash(rustup:*)'], deny: ['Bash(rm *)'] }],
    ['rustup run stable cargo build', { allow: ['Bash(rustup:*)'], deny: ['Bash(rm *)'] }],
    ['node --test -- test/a.test.js', { allow: ['Bash(node:*)'] }],
    ['node --test test/', { allow: ['Bash(node:*)'] }],
  ] as Array<[string, Rules]>)('%s', (command, rules) => {
    const decision = shell(command, 'default', rules);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});
