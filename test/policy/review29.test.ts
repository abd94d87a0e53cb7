import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, freshPremisePlace, MODES, runs } from '../helpers/policy.js';

/**
 * Round 29's review of round 28's command rules (docs/threat-model.md "Round 29: the review of
 * round 28"): each row was allowed before its fix in the modes the finding names, decided in a
 * fresh workspace; the premises run the real programs (each skips, saying which, when absent).
 */

let root = '';
let W = '';
let home = '';
beforeAll(async () => {
  ({ root, work: W, home } = await commandWorkspace('review29-'));
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

const CC = { allow: ['Bash(gcc:*)', 'Bash(cc:*)', 'Bash(g++:*)', 'Bash(clang:*)', 'Bash(ld:*)', 'Bash(x86_64-linux-gnu-gcc-12:*)'], deny: ['Bash(rm *)'] };

describe('R29-1 a compiler\'s own options that run or load code', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ['gcc -wrapper rm,-rf,v x.c', "gcc -wrapper /bin/sh,-c,'rm -rf v' x.c", 'x86_64-linux-gnu-gcc-12 -wrapper rm,-rf,v -c x.c']) denied(command, mode, CC);
    for (const command of ['gcc -wrapper ./x.sh x.c', 'cc -wrapper ./x.sh x.c', 'g++ -wrapper ./x.sh x.cc', 'gcc -fplugin=./x.so x.c', 'gcc -B ./evil x.c', 'gcc -B./evil x.c', 'gcc -specs=./x.specs x.c', 'gcc --specs=./x.specs x.c', 'gcc @args x.c', 'gcc -Wl,-plugin=./x.so x.c', 'gcc -Xlinker -plugin -Xlinker ./x.so x.c', 'gcc -fuse-ld=./ld x.c', 'clang -Xclang -load -Xclang ./x.so x.c', 'clang -fpass-plugin=./x.so x.c', 'ld -plugin ./x.so x.o']) notAllowed(command, mode, CC);
  });
  test('premise: gcc runs its subprograms through `-wrapper`\'s program', (context) => {
    if (!runs('gcc', ['--version'])) return context.skip('needs gcc');
    const place = freshPremisePlace(root, 'gcc-wrapper');
    writeFileSync(join(place.dir, 'x.c'), 'int main(void) { return 0; }\n');
    writeFileSync(join(place.dir, 'w.sh'), `#!/bin/sh\ntouch '${place.marker}'\nexec "$@"\n`);
    spawnSync('chmod', ['+x', join(place.dir, 'w.sh')]);
    spawnSync('gcc', ['-wrapper', './w.sh', '-c', 'x.c'], { cwd: place.dir, stdio: 'ignore', timeout: 60_000 });
    expect(place.ran()).toBe(true);
  }, 90_000);
});

const SQLITE = { allow: ['Bash(sqlite3:*)'], deny: ['Bash(rm *)', 'Edit(/tmp/r29-prot/**)'] };

describe('R29-2 sqlite3 takes its long options with one dash', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ["sqlite3 -cmd '.shell rm -rf v' db 'select 1'", "sqlite3 -cmd '.system rm -rf v' db"]) denied(command, mode, SQLITE);
    for (const command of ["sqlite3 -cmd '.output /tmp/r29-prot/x' db 'select 1'", "sqlite3 -cmd '.shell touch x' db 'select 1'", 'sqlite3 -init x.sql db', "sqlite3 -init x.sql db 'select 1'", "sqlite3 -cmd '.read x.sql' db 'select 1'", "sqlite3 -bail -init x.sql db 'select 1'"]) notAllowed(command, mode, SQLITE);
  });
  test('premise: sqlite3 runs the dot-commands of `-init FILE` and of `-cmd \'.read FILE\'`', (context) => {
    if (!runs('sqlite3', ['-version'])) return context.skip('needs sqlite3');
    const place = freshPremisePlace(root, 'sqlite-init');
    writeFileSync(join(place.dir, 'x.sql'), `.shell touch '${place.marker}'\n`);
    spawnSync('sqlite3', ['-init', 'x.sql', 'db', 'select 1'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
    spawnSync('sqlite3', ['-cmd', '.read x.sql', 'db', 'select 1'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
  });
});

describe('stay allowed (default)', () => {
  test.each([
    ['gcc -O2 -Wall -g -o app main.c -lm', CC],
    ['gcc -c x.c -o x.o', CC],
    ['gcc -c plugin.c', CC],
    ['gcc -I/opt/x/include -c x.c', CC],
    ['gcc -include config.h -c x.c', CC],
    ['gcc -Wl,-rpath,/usr/lib x.o -o app', CC],
    ['clang -fsanitize=address -o app x.c', CC],
    ['ld -o a x.o -lc', CC],
    ["sqlite3 db 'select 1'", SQLITE],
    ["sqlite3 -bail -csv -header db 'select * from t'", SQLITE],
    ["sqlite3 -readonly -json db 'select 1'", SQLITE],
  ])('%s', (command, rules) => {
    const decision = shell(command, 'default', rules);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

