import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { MODES, premiseEnv, freshPremisePlace, toucher, refused, rememberedShell, runs, workspaceShell, type Rules } from '../helpers/policy.js';

/**
 * Round 28 (rules28b): round 27's command-rule leftovers, group B (docs/threat-model.md "Round 28:
 * round 27's command-rule leftovers, group B (rules28b)"). Each was allowed under a prefix rule
 * (`Bash(gh:*)`, `Bash(cargo:*)`, `Bash(make:*)`, `Bash(node:*)`…) and ran code nobody allowed:
 *
 *   L1: a setting made in an earlier call, used by name in a later one: `gh NAME` (an alias or an
 *       extension), `cargo +NAME` / `rustc +NAME` (a toolchain `rustup toolchain link` made).
 *   L2: make's installation directories outside the workspace: `make PREFIX=/tmp/evil check` runs
 *       `$(PREFIX)/bin/x`; `make PREFIX=/usr install` writes /usr.
 *   L3: an interpreter's script outside the workspace (`node /tmp/x.js`), as a shell's is.
 *
 * Premises run the real tools when present (gh 2.23 from Debian, rustup 1.29, GNU Make 4.3, node 20,
 * python 3, perl 5) and skip, saying so, when one is absent. CI runs with CI=true, no stdin and no
 * SHELL: each premise sets what it relies on.
 */

const ws = workspaceShell('rules28b-');
const { shell } = ws;

/** A directory for a premise, with a marker file each attack touches. */
const place = (name: string) => freshPremisePlace(ws.root, name);

/** Each command is not allowed (ask, or deny where the mode refuses what it would ask) in `mode`. */
function expectRefused(commands: readonly string[], mode: DefaultMode, rules: Rules): void {
  for (const command of commands) {
    const decision = shell(command, mode, rules);
    expect(decision.verdict, `${command}: ${decision.reason}`).toBe(refused(mode));
  }
}

function expectAllowed(commands: readonly string[], mode: DefaultMode, rules: Rules): void {
  for (const command of commands) {
    const decision = shell(command, mode, rules);
    expect(decision.verdict, `${command}: ${decision.reason}`).toBe('allow');
  }
}

const hasGh = runs('gh', ['--version']);
const hasRustup = runs('rustup', ['--version']);

describe('L1. gh: a word that is not one of gh\'s commands runs an alias or an extension set up earlier', () => {
  const RULES: Rules = { allow: ['Bash(gh:*)'], deny: ['Bash(rm *)'] };
  /** gh with its config and data below `dir`, a token so no command stops to log in, no prompts. */
  const gh = (dir: string, args: string[], cwd = dir) =>
    spawnSync('gh', args, { cwd, input: '', timeout: 30_000, env: { ...process.env, GH_CONFIG_DIR: join(dir, 'cfg'), XDG_DATA_HOME: join(dir, 'data'), GH_TOKEN: 'unused', GH_NO_UPDATE_NOTIFIER: '1', GH_PROMPT_DISABLED: '1', SHELL: '/bin/sh', BROWSER: '' } });

  test.skipIf(!hasGh)('premise: gh alias set co \'!CMD\' (over gh\'s own default `co`), then gh co 12, runs CMD', () => {
    const p = place('l1-alias');
    expect(gh(p.dir, ['alias', 'list']).stdout.toString()).toContain('co: pr checkout');
    gh(p.dir, ['alias', 'set', 'co', `!touch '${p.marker}'`]);
    gh(p.dir, ['co', '12']);
    expect(p.ran()).toBe(true);
  });
  test.skipIf(!hasGh)('premise: gh extension install DIR, then gh NAME (and gh help NAME), runs DIR/gh-NAME', () => {
    const p = place('l1-ext');
    mkdirSync(join(p.dir, 'gh-r28x'));
    toucher(join(p.dir, 'gh-r28x', 'gh-r28x'), p.marker);
    gh(p.dir, ['extension', 'install', '.'], join(p.dir, 'gh-r28x'));
    gh(p.dir, ['r28x']);
    expect(p.ran()).toBe(true);
  });

  const OTHER = [
    'gh co 12',
    'gh co',
    'gh rx',
    'gh r28x --flag',
    'gh -R o/r co 12',
    'env gh co 12',
    '/usr/bin/gh co 12',
    // gh 2.31 on: an alias nested under a group (cli/cli pkg/cmd/alias/shared ValidAliasNameFunc).
    'gh pr co 12',
    'gh repo deploy-key mine',
    'gh pr -R o/r co 12',
    // `gh help NAME` runs extension NAME with --help (cmd/gh); `gh extension exec NAME` runs it.
    'gh help r28x',
    'gh extension exec r28x',
    'gh ext exec r28x',
    // An extension until gh 2.8x, then a command that fetches GitHub's Copilot CLI and runs it.
    'gh copilot suggest x',
    'gh pr "$SUB"',
  ];
  test.each(MODES)('%s: not allowed under Bash(gh:*), nor Bash(gh *), nor bare Bash', (mode) => {
    expectRefused(OTHER, mode, RULES);
    expectRefused(['gh co 12', 'gh pr co 12'], mode, { allow: ['Bash(gh *)'], deny: ['Bash(rm *)'] });
    expectRefused(['gh co 12'], mode, { allow: ['Bash'], deny: ['Bash(rm *)'] });
  });
  test.each(MODES)('%s: gh\'s own commands stay allowed', (mode) => {
    expectAllowed([
      'gh pr list',
      'gh pr checkout 12',
      'gh pr ls --state open',
      'gh pr -R o/r list',
      'gh issue view 3 --comments',
      'gh issue new --title x --body y',
      'gh repo clone o/r',
      'gh repo deploy-key list',
      'gh repo set-default o/r',
      'gh api repos/o/r/pulls',
      'gh run watch 123',
      'gh workflow run ci.yml',
      'gh cs list',
      'gh ext list',
      'gh extension list',
      'gh alias list',
      'gh alias delete co',
      'gh help pr',
      'gh help',
      'gh --version',
      'gh version',
      'gh status',
      'gh search repos mcp',
      'gh auth status',
      'gh release view v1.0',
      'gh secret list',
      'gh environment',
    ], mode, RULES);
  });
  test.each(MODES)('%s: an allow rule naming the word says what it is, as for git\'s (Bash(gh co *))', (mode) => {
    expectAllowed(['gh co 12', 'gh co'], mode, { allow: ['Bash(gh:*)', 'Bash(gh co *)'], deny: ['Bash(rm *)'] });
    expectAllowed(['gh pr co 12'], mode, { allow: ['Bash(gh pr co *)'], deny: ['Bash(rm *)'] });
    expectAllowed(['gh extension exec r28x'], mode, { allow: ['Bash(gh extension exec r28x)'], deny: ['Bash(rm *)'] });
    // Another word than the one named, or the word with an assignment before it (it may move gh's config), still asks.
    expectRefused(['gh rx', 'GH_CONFIG_DIR=/tmp/c gh co 12'], mode, { allow: ['Bash(gh:*)', 'Bash(gh co *)'], deny: ['Bash(rm *)'] });
  });
  test('deny and ask rules naming the word still meet it', () => {
    for (const mode of MODES) expect(shell('gh co 12', mode, { allow: ['Bash(gh:*)'], deny: ['Bash(gh co *)'] }).verdict).toBe('deny');
  });
  test('bypassPermissions runs it when the config holds no deny or ask rule', () => {
    expect(shell('gh co 12', 'bypassPermissions', { allow: ['Bash(gh:*)'] }).verdict).toBe('allow');
  });
  test('"Always allow" of `gh co 12` saves that command, which names co: it is allowed again, `gh co 13` still asks', () => {
    const saved = rememberedShell('gh co 12', { allow: ['Bash(gh:*)'], deny: ['Bash(rm *)'], mode: 'default', workspace: [ws.work], cwd: ws.work, home: ws.home, configPath: join(ws.work, 'mcp-latch.json') });
    expect(saved.rules).toEqual([`Bash(gh co 12) in ${ws.work}`]);
    expect(saved.after('gh co 12').verdict).toBe('allow');
    expect(saved.after('gh co 13').verdict).toBe('ask');
  });
});

describe('L1. rustup: `+NAME` of a toolchain that is no channel\'s name is one `rustup toolchain link` made', () => {
  const RULES: Rules = { allow: ['Bash(cargo:*)', 'Bash(rustc:*)', 'Bash(rustdoc:*)', 'Bash(rustup:*)'], deny: ['Bash(rm *)'] };
  /** A fake toolchain directory whose rustc and cargo touch the marker, linked as each of `names` below a fresh RUSTUP_HOME. */
  function linked(names: string[]): { p: ReturnType<typeof place>; run: (program: string, args: string[], env?: NodeJS.ProcessEnv) => void } {
    const p = place('l1-rust');
    const tc = join(p.dir, 'tc');
    mkdirSync(join(tc, 'bin'), { recursive: true });
    mkdirSync(join(tc, 'lib'));
    for (const program of ['rustc', 'cargo']) toucher(join(tc, 'bin', program), p.marker);
    const env: NodeJS.ProcessEnv = { ...process.env, RUSTUP_HOME: join(p.dir, 'rh'), RUST_BACKTRACE: '0' };
    delete env.RUSTUP_TOOLCHAIN;
    for (const name of names) spawnSync('rustup', ['toolchain', 'link', name, tc], { env, input: '', timeout: 60_000 });
    return { p, run: (program, args, extra = {}) => void spawnSync(program, args, { cwd: p.dir, env: { ...env, ...extra }, input: '', timeout: 60_000 }) };
  }

  test.skipIf(!hasRustup)('premise: after rustup toolchain link evil D, rustc +evil and cargo +evil run D\'s programs; so do stable-evil, RUSTUP_TOOLCHAIN=evil and rustup run evil', () => {
    const { p, run } = linked(['evil', 'stable-evil', '1.80-foo']);
    run('rustc', ['+evil', 'x.rs']);
    expect(p.ran()).toBe(true);
    run('cargo', ['+evil', 'build']);
    expect(p.ran()).toBe(true);
    run('cargo', ['+stable-evil', 'build']);
    expect(p.ran()).toBe(true);
    run('cargo', ['+1.80-foo', 'build']);
    expect(p.ran()).toBe(true);
    run('cargo', ['build'], { RUSTUP_TOOLCHAIN: 'evil' });
    expect(p.ran()).toBe(true);
    run('rustup', ['run', 'evil', 'cargo', 'build']);
    expect(p.ran()).toBe(true);
  });
  test.skipIf(!hasRustup)('premise: rustup refuses to link a channel\'s name, with or without a date and host', () => {
    const { p } = linked([]);
    for (const name of ['stable', 'nightly-2025-01-01', 'stable-msvc', 'nightly-2025-01-01-x86_64', '1.80.0', 'beta-x86_64-unknown-linux-gnu']) {
      const result = spawnSync('rustup', ['toolchain', 'link', name, join(p.dir, 'tc')], { env: { ...process.env, RUSTUP_HOME: join(p.dir, 'rh'), RUST_BACKTRACE: '0' }, input: '', timeout: 60_000 });
      expect(result.stderr.toString(), name).toContain('invalid custom toolchain name');
    }
  });

  test.each(MODES)('%s: a linked toolchain\'s name is not allowed under the proxies\' and rustup\'s rules', (mode) => {
    expectRefused([
      'rustc +evil x.rs',
      'cargo +evil build',
      'cargo +stable-evil build',
      'cargo +1.80-foo build',
      'cargo +nightly-2025-01-01-evil test',
      'rustdoc +stage1 src/lib.rs',
      'rustup +evil show',
      'rustup run evil cargo build',
      'rustup default evil',
      'rustup override set evil',
      'RUSTUP_TOOLCHAIN=evil cargo build',
      'RUSTUP_TOOLCHAIN=stable-evil rustc x.rs',
    ], mode, RULES);
  });
  test.each(MODES)('%s: channels, versions, dates and hosts stay allowed', (mode) => {
    expectAllowed([
      'cargo build',
      'cargo +nightly build',
      'cargo +beta test',
      'cargo +stable check',
      'rustc +1.80.0 x.rs',
      'rustc +1.80 x.rs',
      'cargo +1.81.0-beta.3 check',
      'cargo +nightly-2025-01-01 build',
      'cargo +nightly-2025-01-01-x86_64 build',
      'cargo +stable-x86_64-unknown-linux-gnu build',
      'cargo +stable-aarch64-apple-darwin build',
      'cargo +stable-msvc build',
      'cargo +nightly-x86_64-pc-windows-gnu build',
      'rustup run stable cargo build',
      'rustup run nightly-2025-01-01 rustc --version',
      'rustup default nightly',
      'rustup override set 1.80.0',
    ], mode, RULES);
    // An assignment before a program is not looked past by an allow rule; a channel's name is no setting that asks in bypassPermissions.
    if (mode === 'bypassPermissions') expectAllowed(['RUSTUP_TOOLCHAIN=nightly cargo build', 'RUSTUP_TOOLCHAIN=1.80.0 cargo test'], mode, RULES);
  });
});

describe('L3. a runtime\'s script outside the workspace is code read from there, as a shell\'s script is', () => {
  const RULES: Rules = { allow: ['Bash(node:*)', 'Bash(nodejs:*)', 'Bash(python3:*)', 'Bash(perl:*)', 'Bash(ruby:*)', 'Bash(deno:*)', 'Bash(bun:*)', 'Bash(bash:*)', 'Bash(sh:*)'] };
  /** What a read outside the workspace gets with no rule naming it (docs/rules.md "Modes"). */
  const READ_OUTSIDE: Record<DefaultMode, string> = { default: 'ask', acceptEdits: 'ask', plan: 'ask', dontAsk: 'deny', bypassPermissions: 'allow' };
  const scripts = (dir: string) => [`node ${dir}/x.js`, `nodejs ${dir}/x.js`, `node --no-warnings ${dir}/x.js arg`, `node -r ./setup.js ${dir}/x.js`, `python3 ${dir}/x.py`, `python3 -u ${dir}/x.py`, `python3 -- ${dir}/x.py`, `perl -w ${dir}/x.pl`, `ruby ${dir}/x.rb`, `deno run -A ${dir}/x.ts`, `deno run --config deno.json ${dir}/x.ts`, `deno serve ${dir}/x.ts`, `deno ${dir}/x.ts`, `deno run file://${dir}/x.ts`, `bun ${dir}/x.js`, `bun run ${dir}/x.ts`, `bash ${dir}/x.sh`, `sh ${dir}/x.sh`, 'node ../x.js', 'node ~/x.js'];

  test('premise: node, python3 and perl run a script outside the working directory', () => {
    const p = place('l3');
    writeFileSync(join(p.dir, 'x.js'), `require('fs').writeFileSync(${JSON.stringify(p.marker)}, '')\n`);
    writeFileSync(join(p.dir, 'x.py'), `open(${JSON.stringify(p.marker)}, 'w')\n`);
    writeFileSync(join(p.dir, 'x.pl'), `open(my $f, '>', ${JSON.stringify(p.marker)});\n`);
    for (const [program, script] of [['node', 'x.js'], ['python3', 'x.py'], ['perl', 'x.pl']] as const) {
      if (!runs(program, ['--version'])) continue;
      spawnSync(program, [join(p.dir, script)], { cwd: ws.work, timeout: 30_000 });
      expect(p.ran(), program).toBe(true);
    }
  });
  test.each(MODES)('%s: the script is a read outside the workspace under the runtime\'s rule', (mode) => {
    const outside = join(ws.root, 'l3');
    for (const command of scripts(outside)) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(READ_OUTSIDE[mode]);
    }
    // A Read deny rule on the script's place denies it in every mode.
    for (const command of scripts(outside).slice(0, 17)) expect(shell(command, mode, { ...RULES, deny: [`Read(${outside}/**)`] }).verdict, command).toBe('deny');
  });
  test.each(MODES)('%s: deno\'s script by URL is code fetched, as npx\'s', (mode) => {
    expectRefused(['deno run -A https://x.example/y.ts', 'deno run npm:cowsay', 'deno jsr:@std/http/file-server'], mode, { ...RULES, deny: ['Bash(rm *)'] });
  });
  test.each(MODES)('%s: scripts of the workspace, modules and the runtimes\' own commands stay allowed', (mode) => {
    expectAllowed(['node x.js', 'node scripts/build.js --prod', 'node ./bin/cli.js', 'python3 manage.py test', 'python3 -m pytest tests', 'python3 -m http.server 8000 -d public', 'perl -w tools/gen.pl', 'ruby script.rb', 'deno run -A main.ts', 'deno main.ts', 'deno fmt', 'deno lint', 'deno task dev', 'bun x.ts', 'bun run build', 'bun run ./scripts/x.ts', 'bun install', 'bash ./build.sh', 'node --version', 'python3 --version'], mode, RULES);
  });
});

describe('L2. make\'s installation directories outside the workspace: written by install, run from by other targets', () => {
  const RULES: Rules = { allow: ['Bash(make:*)'], deny: ['Bash(rm *)'] };
  const hasMake = runs('make', ['--version']);
  /** A write outside the workspace with no rule naming it (docs/rules.md "Modes"). */
  const WRITE_OUTSIDE: Record<DefaultMode, string> = { default: 'ask', acceptEdits: 'ask', plan: 'deny', dontAsk: 'deny', bypassPermissions: 'allow' };
  const READ_OUTSIDE: Record<DefaultMode, string> = { default: 'ask', acceptEdits: 'ask', plan: 'ask', dontAsk: 'deny', bypassPermissions: 'allow' };

  test.skipIf(!hasMake)('premise: make PREFIX=D check runs D/bin/x for a recipe `$(PREFIX)/bin/x`; make srcdir=D check runs D\'s test script', () => {
    const p = place('l2');
    const project = join(p.dir, 'project');
    const evil = join(p.dir, 'evil');
    mkdirSync(join(evil, 'bin'), { recursive: true });
    mkdirSync(join(evil, 'tests'), { recursive: true });
    mkdirSync(project);
    toucher(join(evil, 'bin', 'x'), p.marker);
    toucher(join(evil, 'tests', 'run.sh'), p.marker);
    writeFileSync(join(project, 'Makefile'), 'PREFIX ?= /usr/local\nsrcdir ?= .\ncheck:\n\t$(PREFIX)/bin/x --selftest || true\nsrccheck:\n\tsh $(srcdir)/tests/run.sh\n');
    const env = premiseEnv(p.dir, /^(MAKEFLAGS|MFLAGS|PREFIX|srcdir)$/);
    spawnSync('make', ['-s', `PREFIX=${evil}`, 'check'], { cwd: project, env, timeout: 30_000 });
    expect(p.ran()).toBe(true);
    spawnSync('make', ['-s', `srcdir=${evil}`, 'srccheck'], { cwd: project, env, timeout: 30_000 });
    expect(p.ran()).toBe(true);
  });

  test.each(MODES)('%s: an installation directory outside the workspace is a write there, and run from when outside the project and the system', (mode) => {
    const outside = join(ws.root, 'l2', 'evil');
    for (const command of [`make PREFIX=${outside} check`, `PREFIX=${outside} make check`, `make prefix=${outside} test`, `make bindir=${outside}/bin all`, 'make PREFIX=/usr install', 'make PREFIX=/usr/local install', `make DESTDIR=${outside} install`, 'make PREFIX=/opt/app all']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(WRITE_OUTSIDE[mode]);
    }
    for (const command of [`make srcdir=${outside} check`, `make DESTDIR=./stage PREFIX=${outside} check`, 'make srcdir=../other check']) {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).toBe(READ_OUTSIDE[mode]);
    }
    // An Edit allow rule on the place allows the install (the system directory is no code read from elsewhere).
    expectAllowed(['make PREFIX=/usr install', 'make PREFIX=/usr/local install'], mode, { ...RULES, allow: [...RULES.allow!, 'Edit(/usr/**)'] });
    // Deny rules on the place or below it still meet it (round 27).
    for (const command of ['make PREFIX=/usr install', `make PREFIX=${outside} check`]) expect(shell(command, mode, { ...RULES, deny: ['Edit(/usr/**)', `Edit(${outside}/**)`] }).verdict, command).toBe('deny');
  });
  test.each(MODES)('%s: installation directories in the workspace, and make without them, stay allowed', (mode) => {
    expectAllowed(['make install', 'make check', 'make V=1 check', 'make PREFIX=./stage install', 'make PREFIX=stage install', 'make DESTDIR=./pkg install', 'make DESTDIR=./pkg PREFIX=/usr install', 'make DESTDIR=pkg prefix=/usr/local install', 'make srcdir=. check', 'make srcdir=src all'], mode, RULES);
  });
});
