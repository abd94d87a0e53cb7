import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES, premiseEnv, premisePlace, refused, runs } from '../helpers/policy.js';

/**
 * Round 25 (rules25): what round 24 left of the command rules (docs/threat-model.md "Round 25: …").
 * A command allowed by a prefix rule, or by bypassPermissions past deny rules, ran code nobody allowed:
 *
 *   I1: interpreters' start-up variables before a program (`PYTHONPATH=/tmp/x python3 s.py`,
 *       `PERL5OPT=-Mevil perl x.pl`, `RUBYOPT=-revil ruby x.rb`, `NODE_PATH=/tmp/x node y.js`…).
 *   L2: less's lesskey options on the command line (`less -k k.bin f.txt` under `Bash(less:*)`) and
 *       in `LESS` (`LESS=-kk.bin less f.txt`).
 *   M2: make's command-line variables: compiler flags that run code (`make CFLAGS=-fplugin=./p.so`),
 *       a makefile's own program variables (`make PYTHON=./evil test`), values pasted into recipes
 *       (`make 'MSG=x; touch F'`), and the recipes' environment (`make PYTHONPATH=/tmp/x test`).
 *   C2: `CARGO_TARGET_DIR=D cargo build` writes below D.
 *
 * Premises run the real tools when present (python 3.11, perl 5.36, ruby 3.1, node, less 590, GNU
 * Make 4.3 with gcc 12, cargo 1.95 in round 25) and skip, saying so, when one is absent. CI runs with
 * CI=true, no stdin and no SHELL: each premise sets what it relies on.
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('rules25-'));
});

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };
const shell = (command: string, mode: DefaultMode, rules: Rules) => decideInWorkspace(command, mode, rules, W, home);

const hasPython = runs('python3', ['-c', 'pass']);
const hasPerl = runs('perl', ['-e', '1']);
const hasRuby = runs('ruby', ['-e', '1']);
const hasLess = runs('less', ['--version']);
const hasLesskey = runs('lesskey', ['--version']);
const hasMake = runs('make', ['--version']);
const hasGcc = runs('gcc', ['--version']);
const hasCargo = runs('cargo', ['--version']);

/** The environment of a premise (test/helpers/policy.ts premiseEnv), without the variables these premises read. */
const baseEnv = (dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv =>
  premiseEnv(dir, /^(PYTHONPATH|PYTHONHOME|PYTHONUSERBASE|PYTHONPYCACHEPREFIX|PYTHONSTARTUP|PYTHONDONTWRITEBYTECODE|PYTHONNOUSERSITE|PERL5OPT|PERL5LIB|PERLLIB|PERL5DB|RUBYOPT|RUBYLIB|NODE_PATH|NODE_OPTIONS|LESS|LESSOPEN|LESSKEYIN|LESSKEY|MAKEFLAGS|MFLAGS|CFLAGS|CARGO_TARGET_DIR)$/, extra);

/** A directory for a premise, with a marker file each attack touches. */
const place = (name: string) => premisePlace(T, name);


describe('I1. interpreters\' start-up variables run code from where they say', () => {
  test.skipIf(!hasPython)('premise: python3 imports PYTHONPATH\'s sitecustomize, runs PYTHONUSERBASE\'s .pth lines and PYTHONPYCACHEPREFIX\'s compiled module; PYTHONSTARTUP only when interactive', () => {
    const { dir, marker, ran } = place('i1py');
    const touch = `open(${JSON.stringify(marker)}, "w").close()\n`;
    writeFileSync(join(dir, 'script.py'), 'print("script")\n');
    mkdirSync(join(dir, 'x'), { recursive: true });
    writeFileSync(join(dir, 'x', 'sitecustomize.py'), touch);
    const python = (args: string[], extra: NodeJS.ProcessEnv, input = ''): void => void spawnSync('python3', args, { cwd: dir, env: baseEnv(dir, extra), input, timeout: 30_000 });
    python(['script.py'], {});
    expect(ran(), 'without the variable').toBe(false);
    python(['script.py'], { PYTHONPATH: join(dir, 'x') });
    expect(ran(), 'PYTHONPATH=D').toBe(true);
    // The user site below PYTHONUSERBASE: a `.pth` line starting with `import` is run (site(3)).
    const userSite = execFileSync('python3', ['-c', 'import site; print(site.getusersitepackages())'], { env: baseEnv(dir, { PYTHONUSERBASE: join(dir, 'ub') }) }).toString().trim();
    mkdirSync(userSite, { recursive: true });
    writeFileSync(join(userSite, 'x.pth'), `import os; ${touch}`);
    python(['script.py'], { PYTHONUSERBASE: join(dir, 'ub') });
    expect(ran(), 'PYTHONUSERBASE=D').toBe(true);
    // PYTHONPYCACHEPREFIX: a compiled module there, stamped with its source's time and size, runs in place of the source.
    mkdirSync(join(dir, 'lib'), { recursive: true });
    writeFileSync(join(dir, 'lib', 'mod.py'), 'X = 1\n');
    writeFileSync(join(dir, 'uses.py'), `import sys; sys.path.insert(0, ${JSON.stringify(join(dir, 'lib'))}); import mod\n`);
    const prefix = join(dir, 'pc');
    execFileSync('python3', ['-c', [
      'import importlib._bootstrap_external as be, importlib.util, os, sys',
      `src = ${JSON.stringify(join(dir, 'lib', 'mod.py'))}; st = os.stat(src)`,
      `code = compile(${JSON.stringify(touch)}, src, "exec")`,
      `sys.pycache_prefix = ${JSON.stringify(prefix)}; out = importlib.util.cache_from_source(src)`,
      'os.makedirs(os.path.dirname(out), exist_ok=True); open(out, "wb").write(be._code_to_timestamp_pyc(code, int(st.st_mtime), st.st_size))',
    ].join('\n')], { env: baseEnv(dir) });
    python(['uses.py'], {});
    expect(ran(), 'the source alone').toBe(false);
    python(['uses.py'], { PYTHONPYCACHEPREFIX: prefix });
    expect(ran(), 'PYTHONPYCACHEPREFIX=D').toBe(true);
    // PYTHONSTARTUP's scope: python reading commands interactively (`-i` without a script), not a script.
    writeFileSync(join(dir, 'st.py'), touch);
    python(['script.py'], { PYTHONSTARTUP: join(dir, 'st.py') });
    expect(ran(), 'PYTHONSTARTUP before a script').toBe(false);
    python(['-i'], { PYTHONSTARTUP: join(dir, 'st.py') });
    expect(ran(), 'PYTHONSTARTUP with -i').toBe(true);
  });
  test.skipIf(!hasPerl)('premise: perl loads PERL5OPT\'s -M module from PERL5LIB, PERLLIB or -I, and PERL5DB with -d', () => {
    const { dir, marker, ran } = place('i1pl');
    mkdirSync(join(dir, 'pl'), { recursive: true });
    writeFileSync(join(dir, 'pl', 'evil.pm'), `package evil; open(my $f, '>', ${JSON.stringify(marker)}); 1;\n`);
    writeFileSync(join(dir, 'x.pl'), 'print "x\\n";\n');
    writeFileSync(join(dir, 'y.pl'), 'use evil; print "y\\n";\n');
    const perl = (file: string, extra: NodeJS.ProcessEnv, args: string[] = []): void => void spawnSync('perl', [...args, file], { cwd: dir, env: baseEnv(dir, extra), input: '', timeout: 30_000 });
    perl('x.pl', {});
    expect(ran(), 'without the variables').toBe(false);
    perl('x.pl', { PERL5OPT: '-Mevil', PERL5LIB: join(dir, 'pl') });
    expect(ran(), 'PERL5OPT=-Mevil PERL5LIB=D').toBe(true);
    perl('x.pl', { PERL5OPT: `-I${join(dir, 'pl')} -Mevil` });
    expect(ran(), 'PERL5OPT=-ID -Mevil').toBe(true);
    perl('y.pl', { PERLLIB: join(dir, 'pl') });
    expect(ran(), 'PERLLIB=D').toBe(true);
    perl('x.pl', { PERL5DB: `BEGIN { open(my $f, '>', ${JSON.stringify(marker)}) } sub DB::DB {}` }, ['-d']);
    expect(ran(), 'PERL5DB with -d').toBe(true);
  });
  test.skipIf(!hasRuby)('premise: ruby requires RUBYOPT\'s -r file and finds libraries in RUBYLIB first', () => {
    const { dir, marker, ran } = place('i1rb');
    mkdirSync(join(dir, 'rb'), { recursive: true });
    const touch = `File.write(${JSON.stringify(marker)}, "")\n`;
    writeFileSync(join(dir, 'rb', 'evil.rb'), touch);
    writeFileSync(join(dir, 'rb', 'json.rb'), touch);
    writeFileSync(join(dir, 'x.rb'), 'puts "x"\n');
    writeFileSync(join(dir, 'y.rb'), 'require "json"; puts "y"\n');
    const ruby = (file: string, extra: NodeJS.ProcessEnv): void => void spawnSync('ruby', [file], { cwd: dir, env: baseEnv(dir, extra), input: '', timeout: 30_000 });
    ruby('y.rb', {});
    expect(ran(), 'without the variables').toBe(false);
    ruby('x.rb', { RUBYOPT: `-r${join(dir, 'rb', 'evil')}` });
    expect(ran(), 'RUBYOPT=-rF').toBe(true);
    ruby('y.rb', { RUBYLIB: join(dir, 'rb') });
    expect(ran(), 'RUBYLIB=D').toBe(true);
  });
  test('premise: node resolves a bare require through NODE_PATH', () => {
    const { dir, marker, ran } = place('i1node');
    mkdirSync(join(dir, 'np', 'evil'), { recursive: true });
    writeFileSync(join(dir, 'np', 'evil', 'index.js'), `require('fs').writeFileSync(${JSON.stringify(marker)}, '');\n`);
    writeFileSync(join(dir, 'y.js'), "try { require('evil'); } catch {}\n");
    spawnSync(process.execPath, ['y.js'], { cwd: dir, env: baseEnv(dir), timeout: 30_000 });
    expect(ran(), 'without NODE_PATH').toBe(false);
    spawnSync(process.execPath, ['y.js'], { cwd: dir, env: baseEnv(dir, { NODE_PATH: join(dir, 'np') }), timeout: 30_000 });
    expect(ran(), 'NODE_PATH=D').toBe(true);
  });

  const RULES: Rules = { allow: ['Bash(python3:*)', 'Bash(pytest:*)', 'Bash(perl:*)', 'Bash(ruby:*)', 'Bash(node:*)', 'Bash(./build.sh:*)', 'Bash(make:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: each asks (denied where the mode refuses)', (mode) => {
    for (const command of [
      'PYTHONPATH=/tmp/x python3 script.py',
      'PYTHONPATH=src:/tmp/x python3 script.py',
      'PYTHONPATH=../other pytest',
      'PYTHONPATH=~/x pytest',
      'PYTHONPATH="$D" python3 script.py',
      'PYTHONHOME=/tmp/h python3 script.py',
      'PYTHONUSERBASE=/tmp/u python3 script.py',
      'PYTHONPYCACHEPREFIX=/tmp/pc python3 script.py',
      'PYTHONPLATLIBDIR=../../tmp python3 script.py',
      'PYTHONSTARTUP=/tmp/s.py python3 -i',
      'PYTHONINSPECT=1 python3 script.py',
      'PYTHONPATH=/tmp/x ./build.sh',
      'env PYTHONPATH=/tmp/x python3 script.py',
      'PERL5OPT=-Mevil perl x.pl',
      'PERL5OPT="-w -Mevil" perl x.pl',
      'PERL5OPT=-d PERL5DB="system(q(touch x))" perl x.pl',
      'PERL5LIB=/tmp/x perl x.pl',
      'PERLLIB=/tmp/x perl x.pl',
      'RUBYOPT=-revil ruby x.rb',
      'RUBYOPT=-I/tmp/x ruby x.rb',
      'RUBYLIB=/tmp/x ruby x.rb',
      'GEM_PATH=/tmp/g ruby x.rb',
      'NODE_PATH=/tmp/x node y.js',
      'PERL5OPT=-Mevil make test',
    ]) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(MODES)('%s: exported, each changes later commands', (mode) => {
    for (const command of ['export PYTHONUSERBASE=/tmp/u; python3 script.py', 'export PYTHONPYCACHEPREFIX=/tmp/pc; python3 script.py', 'export PERLLIB=/tmp/x; perl x.pl', 'export GEM_PATH=/tmp/g; ruby x.rb']) {
      expect(shell(command, mode, RULES).verdict, command).not.toBe('allow');
    }
  });
  test.each([
    'PYTHONPATH=src pytest',
    'PYTHONPATH=.:src/lib python3 script.py',
    'PYTHONPATH=./src python3 script.py',
    'PYTHONPATH= python3 script.py',
    'PYTHONUNBUFFERED=1 python3 script.py',
    'PYTHONDONTWRITEBYTECODE=1 pytest',
    'PYTHONSAFEPATH=1 python3 script.py',
    'PERL5OPT=-w perl x.pl',
    'PERL5LIB=lib perl x.pl',
    'RUBYOPT=-W0 ruby x.rb',
    "RUBYOPT='-w --disable-gems' ruby x.rb",
    'RUBYLIB=lib ruby x.rb',
    'NODE_PATH=src node y.js',
  ])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('L2. less reads the lesskey file its options and LESS name (its #env LESSOPEN runs)', () => {
  test.skipIf(!hasLess)('premise: less runs LESSOPEN from --lesskey-src=F, -k F and --lesskey-file=F, on its command line and in LESS', () => {
    const { dir, marker, ran } = place('l2');
    writeFileSync(join(dir, 'notes.txt'), `#env\nLESSOPEN=|touch ${marker}; cat %s\n`);
    writeFileSync(join(dir, 'f.txt'), 'hi\n');
    const less = (args: string[], extra: NodeJS.ProcessEnv = {}): void => void spawnSync('less', [...args, 'f.txt'], { cwd: dir, env: baseEnv(dir, { TERM: 'dumb', ...extra }), input: '', timeout: 30_000 });
    less([]);
    expect(ran(), 'without the option').toBe(false);
    less(['--lesskey-src=notes.txt']);
    expect(ran(), '--lesskey-src=F').toBe(true);
    less([], { LESS: '--lesskey-src=notes.txt' });
    expect(ran(), 'LESS=--lesskey-src=F').toBe(true);
    if (!hasLesskey) return; // the compiled form needs lesskey(1) to write it
    execFileSync('lesskey', ['-o', join(dir, 'k.bin'), join(dir, 'notes.txt')], { cwd: dir, stdio: 'ignore' });
    less(['-k', 'k.bin']);
    expect(ran(), '-k F').toBe(true);
    less(['--lesskey-file=k.bin']);
    expect(ran(), '--lesskey-file=F').toBe(true);
    less([], { LESS: '-kk.bin' });
    expect(ran(), 'LESS=-kF').toBe(true);
  });
  const RULES: Rules = { allow: ['Bash(less:*)', 'Bash(./build.sh:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: asks under Bash(less:*) (denied where the mode refuses)', (mode) => {
    for (const command of [
      'less -k k.bin f.txt',
      'less -Rk k.bin f.txt',
      'less -kk.bin f.txt',
      'less --lesskey-file=k.bin f.txt',
      'less --lesskey-src=notes.txt f.txt',
      'less --lesskey-src notes.txt f.txt',
      'less --lesskey-s=notes.txt f.txt',
      'less --lesskey-content=x f.txt',
      'LESS=-kk.bin less f.txt',
      "LESS='-R --lesskey-src=notes.txt' less f.txt",
      "LESS='+!touch x' less f.txt",
      'LESS=-o/tmp/log less f.txt',
      'LESS=-kk.bin ./build.sh',
      'LESS="$O" less f.txt',
    ]) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(MODES)('%s: a command in LESSGLOBALTAGS or LESSEDIT meets deny rules', (mode) => {
    for (const command of ["LESSGLOBALTAGS='rm -rf victim' less -t main", "LESSEDIT='rm -rf victim' less f.txt"]) {
      expect(shell(command, mode, RULES).verdict, command).toBe('deny');
    }
  });
  test.each(['less f.txt', 'less -R f.txt', 'less -N +G f.txt', 'less -P "?f%f" f.txt'])('default, Bash(less:*): %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(['LESS=-R less f.txt', 'LESS=FRX less f.txt', "LESS='-R -i' less f.txt", "LESS='--RAW-CONTROL-CHARS --quit-if-one-screen' less f.txt", 'LESS=-R ./build.sh'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('M2. make\'s command-line variables: flags that run code, a makefile\'s programs, recipe text, the recipes\' environment', () => {
  test.skipIf(!hasMake || !hasGcc)('premise: gcc runs what CFLAGS names for make\'s implicit rule: -fplugin, -B, -wrapper, -specs', () => {
    const { dir, marker, ran } = place('m2cc');
    writeFileSync(join(dir, 'x.c'), 'int x;\n');
    writeFileSync(join(dir, 'plug.c'), `#include <stdio.h>\nint plugin_is_GPL_compatible;\nint plugin_init(void *a, void *b) { FILE *f = fopen(${JSON.stringify(marker)}, "w"); if (f) fclose(f); return 0; }\n`);
    execFileSync('gcc', ['-shared', '-fPIC', '-o', 'plug.so', 'plug.c'], { cwd: dir, stdio: 'ignore' });
    const wrap = (program: string): string => `#!/bin/sh\ntouch ${marker}\nexec ${program} "$@"\n`;
    mkdirSync(join(dir, 'bdir'), { recursive: true });
    writeFileSync(join(dir, 'bdir', 'as'), wrap('as'), { mode: 0o755 });
    writeFileSync(join(dir, 'w.sh'), wrap(''), { mode: 0o755 });
    writeFileSync(join(dir, 'as.sh'), wrap('as'), { mode: 0o755 });
    writeFileSync(join(dir, 's.specs'), `*invoke_as:\n%{!S:-o %|.s |\n ${join(dir, 'as.sh')} %(asm_options) %m.s %A }\n\n`);
    const make = (variable: string): void => {
      rmSync(join(dir, 'x.o'), { force: true });
      spawnSync('make', ['-f', '/dev/null', variable, 'x.o'], { cwd: dir, env: baseEnv(dir), input: '', timeout: 60_000 });
    };
    make('CFLAGS=-O2');
    expect(ran(), 'CFLAGS=-O2').toBe(false);
    make('CFLAGS=-fplugin=./plug.so');
    expect(ran(), '-fplugin').toBe(true);
    make('CFLAGS=-B./bdir/');
    expect(ran(), '-B').toBe(true);
    make('CFLAGS=-wrapper ./w.sh');
    expect(ran(), '-wrapper').toBe(true);
    make('CFLAGS=-specs=./s.specs');
    expect(ran(), '-specs').toBe(true);
  });
  test.skipIf(!hasMake)('premise: make runs a command-line PYTHON for $(PYTHON), pastes a value into recipe text, and exports it to the recipe', () => {
    const { dir, marker, ran } = place('m2mk');
    writeFileSync(join(dir, 'Makefile'), 'test:\n\t$(PYTHON) -c "print(1)"\nall:\n\t@echo $(MSG)\nenv:\n\t@echo "[$$PYTHONPATH]" > seen.txt\n');
    writeFileSync(join(dir, 'evil'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const make = (args: string[]): void => void spawnSync('make', args, { cwd: dir, env: baseEnv(dir), input: '', timeout: 60_000 });
    make(['PYTHON=./evil', 'test']);
    expect(ran(), 'make PYTHON=./evil test').toBe(true);
    make([`MSG=x; touch ${marker}`, 'all']);
    expect(ran(), "make 'MSG=x; touch F' all").toBe(true);
    make(['PYTHONPATH=/tmp/x', 'env']);
    expect(execFileSync('cat', [join(dir, 'seen.txt')]).toString().trim()).toBe('[/tmp/x]');
  });
  const RULES: Rules = { allow: ['Bash(make:*)', 'Bash(./build.sh:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: asks under Bash(make:*) (denied where the mode refuses)', (mode) => {
    for (const command of [
      'make CFLAGS=-fplugin=./p.so x.o',
      "make 'CFLAGS=-O2 -fplugin=./p.so' x.o",
      'make CFLAGS=-B./d/ x.o',
      "make 'CFLAGS=-wrapper ./w.sh' x.o",
      'make CFLAGS=-specs=./s.specs x.o',
      'make CFLAGS=--specs=./s.specs x.o',
      'make CXXFLAGS=@opts.txt',
      'make LDFLAGS=-Wl,-plugin,./p.so',
      'make CPPFLAGS=-include./x.h',
      'make CFLAGS+=-fplugin=./p.so',
      'make CFLAGS="$F"',
      "make 'MSG=x; touch p' all",
      'make "MSG=a|b" all',
      'make PYTHONPATH=/tmp/x test',
      'make PERL5OPT=-Mevil test',
      'make PATH=./bin test',
      'make LD_PRELOAD=./x.so test',
      'make NODE_OPTIONS=--require=./x.js test',
      'make HOME=/tmp/d test',
      'make GIT_CONFIG_GLOBAL=./g test',
      'make LESS=-kk.bin test',
      'make RUSTC_WRAPPER=./w build',
      'CFLAGS=-fplugin=./p.so make x.o',
      'export CFLAGS=-fplugin=./p.so; make x.o',
      'CFLAGS=-fplugin=./p.so; make x.o',
      'CFLAGS=-fplugin=./p.so ./build.sh',
      'LDFLAGS=-Wl,--plugin=./p.so ./build.sh',
    ]) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  test.each(MODES)('%s: a makefile\'s program variable is decided as a command of its own', (mode) => {
    for (const command of ["make PYTHON='rm -rf victim' test", "make SPHINXBUILD='rm -rf victim' html", "make INSTALL='rm -rf victim' install", "make TEST_CMD='rm -rf victim' check", "make GIT_EXTERNAL_DIFF='rm -rf victim' test"]) {
      expect(shell(command, mode, RULES).verdict, command).toBe('deny');
    }
    // A path is decided as that program: bypassPermissions runs a program it can see (as `./evil` alone), no other mode allows it here.
    for (const command of ['make PYTHON=./evil test', 'make PYTHON3=/tmp/py test', 'make SPHINXBUILD=./x html']) {
      const decision = shell(command, mode, RULES);
      if (mode === 'bypassPermissions') expect(decision.verdict, command).toBe('allow');
      else expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
    }
  });
  // `make PREFIX=/usr install` was here: since round 28 a write outside the workspace (rules28b.test.ts L2).
  test.each(['make', 'make CFLAGS=-O2', "make 'CFLAGS=-O2 -g -Wall'", 'make CFLAGS=-I/usr/include/foo', 'make PREFIX=./stage install', 'make PYTHON=python3 test', 'make PYTHON=python3.11 test', 'make V=1', 'make -j4 test', 'make CC=gcc', "make 'TESTS=a b'"])('default, Bash(make:*): %j stays allowed', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(['CFLAGS=-O2 make', "CFLAGS='-O2 -g' ./build.sh", 'LDFLAGS=-L/usr/local/lib make', 'export CFLAGS=-O2; make'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('C2. CARGO_TARGET_DIR names the directory cargo writes', () => {
  test.skipIf(!hasCargo)('premise: CARGO_TARGET_DIR=D cargo build writes below D', () => {
    const { dir } = place('c2');
    const project = join(dir, 'p');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'Cargo.toml'), '[package]\nname = "c2"\nversion = "0.1.0"\nedition = "2021"\n');
    writeFileSync(join(project, 'src', 'main.rs'), 'fn main() {}\n');
    const target = join(dir, 'elsewhere');
    spawnSync('cargo', ['build', '--offline', '-q'], { cwd: project, env: { ...process.env, CARGO_TARGET_DIR: target, CARGO_TERM_COLOR: 'never' }, input: '', timeout: 300_000 });
    expect(existsSync(join(target, 'debug')), 'D/debug').toBe(true);
    expect(existsSync(join(project, 'target')), 'the project\'s own target/').toBe(false);
  });
  const RULES: Rules = { allow: ['Bash(cargo:*)', 'Bash(./build.sh:*)', 'Edit(./**)'], deny: ['Edit(~/.ssh/**)', 'Bash(rm *)'] };
  test.each(MODES)('%s: a target directory a deny rule covers is denied', (mode) => {
    for (const command of ['CARGO_TARGET_DIR=~/.ssh cargo build', 'CARGO_TARGET_DIR=~/.ssh/t cargo test', 'CARGO_TARGET_DIR=~/.ssh ./build.sh', 'env CARGO_TARGET_DIR=~/.ssh cargo build']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe('deny');
    }
  });
  test.each(MODES)('%s: outside the workspace it is not allowed; cargo\'s other code settings still ask', (mode) => {
    for (const command of ['CARGO_TARGET_DIR=/tmp/t cargo build', 'CARGO_TARGET_DIR="$T" cargo build', 'RUSTC_WRAPPER=./w cargo build', 'RUSTFLAGS=-Clinker=./l cargo build', 'CARGO_HOME=/tmp/c cargo build', "cargo --config 'build.rustc-wrapper=\"./w\"' build"]) {
      if (mode === 'bypassPermissions' && command.startsWith('CARGO_TARGET_DIR=/tmp')) continue; // a write no rule denies: bypassPermissions allows it, as `cargo build --target-dir /tmp/t`
      expect(shell(command, mode, RULES).verdict, command).not.toBe('allow');
    }
    expect(shell("RUSTC_WRAPPER='rm -rf victim' cargo build", mode, RULES).verdict).toBe('deny');
  });
  test.each(['cargo build', 'CARGO_TARGET_DIR=target/ci cargo build', 'CARGO_TARGET_DIR= cargo build'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});
