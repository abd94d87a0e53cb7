import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES } from '../helpers/policy.js';

/**
 * Round 27's review: failing rows, one per finding (the package managers' rows are in review27.test.ts), decided in a fresh
 * workspace. Each row is what the finding says should happen; today each is allowed.
 */

let W = '';
let home = '';
beforeAll(async () => {
  ({ work: W, home } = await commandWorkspace('review27-'));
});

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };
const shell = (command: string, mode: DefaultMode, rules: Rules) => decideInWorkspace(command, mode, rules, W, home);
/** Refused in a mode that asks or denies; in bypassPermissions (deny rules present) asks at least. */
const notAllowed = (command: string, mode: DefaultMode, rules: Rules): void => {
  const decision = shell(command, mode, rules);
  expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).not.toBe('allow');
};

const rows: Array<[string, Rules, string[]]> = [
  ['R27-1 make recipe variable with inline code', { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] }, ["make 'BUILDER=perl -esystem+q{rm},q{-rf},q{victim}' all", "make 'BUILDER=perl -Mevil' all", "make 'RUN=sh -c rm' all", "make 'RUN=env node -e 1' all"]],
  ['R27-5 git init DIR', { allow: ['Bash(git:*)'], deny: ['Edit(/etc/**)'] }, ['git init /etc/x', 'git init --bare /etc/x', 'git init --separate-git-dir=/etc/x', 'git --git-dir=/etc/x init', 'git init -q /etc/x']],
  ['R27-7 cargo rustc -- -C linker', { allow: ['Bash(cargo:*)'], deny: ['Bash(rm *)'] }, ['cargo rustc -- -C linker=./x.sh', 'cargo rustc -- -Clinker=./x.sh', 'cargo rustdoc -- -C linker=./x.sh', 'cargo rustc --release -- -C link-arg=-fuse-ld=./x', 'cargo rustc -- --codegen=linker=./x.sh', 'cargo rustc -- -Zcodegen-backend=./x.so', 'cargo rustdoc -- --test-builder ./x.sh']],
  ['R27-7 rustc -C linker', { allow: ['Bash(rustc:*)', 'Bash(rustdoc:*)'], deny: ['Bash(rm *)'] }, ['rustc -C linker=./x.sh m.rs', 'rustc -Clinker=./x.sh m.rs', 'rustc --extern evil=./libevil.so m.rs', 'rustdoc --test --test-builder ./x.sh m.rs']],
  ['R27-11 mypy abbreviations', { allow: ['Bash(mypy:*)'], deny: ['Bash(rm *)'] }, ['mypy --python-exec ./x.sh a.py', 'mypy --python-ex=./x.sh a.py', 'mypy --config-f x.ini a.py', 'mypy --custom-types ./ts a.py', 'mypy --shadow-f a.py b.py a.py']],
  ['R27-11 mypy abbreviated writes', { allow: ['Bash(mypy:*)'], deny: ['Edit(/etc/**)'] }, ['mypy --junit-x /etc/x a.py', 'mypy --cache-d=/etc/x a.py', 'mypy --html-rep /etc/x a.py']],
  ['R27-12 less backslash', { allow: ['Bash(less:*)'], deny: ['Bash(rm *)'] }, ["less '-Pa\\$--lesskey-src=keysrc' f", "less '-Da\\$--lesskey-src=keysrc' f", "less '-Pa\\$kkeysrc' f", "less --use-backslash '-Pa\\$kkeysrc' f"]],
  ['R27-16 git interpret-trailers FILE', { allow: ['Bash(git:*)'], deny: ['Read(**/.env)', 'Read(~/.ssh/**)'] }, ['git interpret-trailers .env', 'git interpret-trailers ~/.ssh/id_rsa', 'git interpret-trailers --parse ~/.ssh/id_rsa', 'git apply --stat ~/.ssh/id_rsa', 'git apply -p1 --check .env', 'git verify-pack -v ~/.ssh/id_rsa', 'git bundle verify .env', 'git bundle list-heads ~/.ssh/id_rsa']],
];

describe.each(rows)('%s', (_name, rules, commands) => {
  test.each(MODES)('%s: not allowed', (mode) => {
    for (const command of commands) notAllowed(command, mode, rules);
  });
});

test('R27-1 a module run from the value asks where `python3 -mevil` itself would (default)', () => {
  expect(shell("make 'BUILDER=python3 -mevil' all", 'default', { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] }).verdict).toBe('ask');
});

test('R27-1 the same value in make\'s environment (bypassPermissions)', () => {
  expect(shell("BUILDER='perl -esystem+q{rm},q{-rf},q{victim}' make all", 'bypassPermissions', { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] }).verdict).not.toBe('allow');
});

test('R27-12 LESS with a backslash before the `$` (bypassPermissions)', () => {
  expect(shell("LESS='-Pa\\$kkeysrc' less f", 'bypassPermissions', { allow: ['Bash(less:*)'], deny: ['Bash(rm *)'] }).verdict).toBe('ask');
});

test.each(["echo 'rm -rf v' | at now", "printf 'rm -rf v\\n' | batch", "echo 'rm -rf v' | at -m now + 1 hour"])('R27-17 %s: its stdin is a script (bypassPermissions)', (command) => {
  expect(shell(command, 'bypassPermissions', { deny: ['Bash(rm *)'] }).verdict).toBe('deny');
});

test.each(MODES)('R27-9 rsync --rsync-path is a remote command: %s', (mode) => {
  for (const command of ["rsync --rsync-path='rm -rf v;' a h:b", "rsync --rsync-path='rm -rf v' a localhost:b", "rsync -M--rsync-path='rm -rf v;' a h:b"]) {
    expect(shell(command, mode, { allow: ['Bash(rsync:*)'], deny: ['Bash(rm *)'] }).verdict, `${mode} ${command}`).toBe('deny');
  }
});

test('R27-5 git init sub: a write in the workspace, allowed where writes are (acceptEdits)', () => {
  expect(shell('git init sub', 'acceptEdits', { allow: ['Bash(git:*)'], deny: ['Edit(/etc/**)'] }).verdict).toBe('allow');
  // `git init` alone is `git init .` (round 28, rules28a I1): the same.
  expect(shell('git init', 'acceptEdits', { allow: ['Bash(git:*)'], deny: ['Edit(/etc/**)'] }).verdict).toBe('allow');
});

test.each(MODES)('R27-14 git config --global/--system changes are writes of their file: %s', (mode) => {
  for (const command of ['git config --system a.b c', 'git config --global user.email x@y', 'git config --global --unset user.email', 'git config set --global a.b c', 'git config --global url.https://evil.example/.insteadOf https://github.com/']) {
    expect(shell(command, mode, { allow: ['Bash(git:*)'], deny: ['Edit(/etc/**)', 'Edit(~/.gitconfig)'] }).verdict, `${mode} ${command}`).toBe('deny');
  }
});

test('R27-16 a file outside the workspace is a read there (default, no deny rule)', () => {
  expect(shell('git interpret-trailers /etc/hostname', 'default', { allow: ['Bash(git:*)'] }).verdict).toBe('ask');
});

describe('stay allowed', () => {
  test.each([
    ['make V=1 all', { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] }],
    ["make 'TESTS=a b' test", { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] }],
    ['make BUILDER=clang all', { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] }],
    ["make 'CFLAGS=-O2 -g' all", { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] }],
    ['rsync -a src/ h:dst/', { allow: ['Bash(rsync:*)'], deny: ['Bash(rm *)'] }],
    ['git config user.email x@y', { allow: ['Bash(git:*)'], deny: ['Edit(/etc/**)', 'Edit(~/.gitconfig)'] }],
    ['git config --global --get user.email', { allow: ['Bash(git:*)'], deny: ['Edit(/etc/**)', 'Edit(~/.gitconfig)'] }],
    ['git config -l', { allow: ['Bash(git:*)'], deny: ['Edit(/etc/**)', 'Edit(~/.gitconfig)'] }],
    ['cargo rustc -- -C opt-level=3', { allow: ['Bash(cargo:*)'], deny: ['Bash(rm *)'] }],
    ['cargo rustc --release -- -D warnings', { allow: ['Bash(cargo:*)'], deny: ['Bash(rm *)'] }],
    ['cargo test -- --nocapture', { allow: ['Bash(cargo:*)'], deny: ['Bash(rm *)'] }],
    ['rustc -O --edition 2021 -C opt-level=3 m.rs', { allow: ['Bash(rustc:*)'], deny: ['Bash(rm *)'] }],
    ['mypy --strict src', { allow: ['Bash(mypy:*)'], deny: ['Bash(rm *)'] }],
    ['mypy --python-version 3.11 src', { allow: ['Bash(mypy:*)'], deny: ['Bash(rm *)'] }],
    ['less -R f', { allow: ['Bash(less:*)'], deny: ['Bash(rm *)'] }],
    ["less '-Pfoo$' f", { allow: ['Bash(less:*)'], deny: ['Bash(rm *)'] }],
    ["less '-Pa\\$' f", { allow: ['Bash(less:*)'], deny: ['Bash(rm *)'] }],
    ['git interpret-trailers msg.txt', { allow: ['Bash(git:*)'], deny: ['Read(**/.env)'] }],
    ["git interpret-trailers --trailer 'x: y' < msg.txt", { allow: ['Bash(git:*)'], deny: ['Read(**/.env)'] }],
    ['git apply --stat fix.patch', { allow: ['Bash(git:*)'], deny: ['Read(**/.env)'] }],
  ] as Array<[string, Rules]>)('default: %s', (command, rules) => {
    const decision = shell(command, 'default', rules);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

