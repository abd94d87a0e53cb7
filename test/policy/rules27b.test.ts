import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES, freshPremisePlace, toucher, refused, runs } from '../helpers/policy.js';

/**
 * Round 27 (rules27b): the command rules round 26 left (docs/threat-model.md "Round 27: rules left by
 * round 26 (rules27b)"). Each was allowed under a prefix rule (`Bash(gh:*)`, `Bash(rustup:*)`,
 * `Bash(npm:*)`…), or by bypassPermissions past deny rules, and ran code nobody allowed:
 *
 *   S17: gh's aliases, program settings and extensions (`gh alias set --shell x CMD; gh x` ran CMD).
 *   T2:  rustup's toolchains by path on every proxy (`rustc +D`), `rustup toolchain link`, `rustup run D`.
 *   G3:  npm's global install by setting (`npm config set global true`, then `npm install ./pkg`).
 *   Y4:  yarn's settings that name code or folders (`yarn config set -- --cwd ../evil`, then `yarn dev`).
 *   B5:  `bun pm trust` runs dependencies' lifecycle scripts bun otherwise never runs, and trusts them for later installs.
 *   P6:  npm's and pnpm's setting variables in one home (variables.ts): the same decisions as before (a guard; no row failed before).
 *
 * Premises run the real tools when present (gh 2.23 from Debian, rustup 1.29, npm 11, yarn 1.22.22
 * from `YARN1_BIN`) and skip, saying so, when one is absent. CI runs with CI=true, no stdin and no
 * SHELL: each premise sets what it relies on.
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('rules27b-'));
});

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };
const shell = (command: string, mode: DefaultMode, rules: Rules) => decideInWorkspace(command, mode, rules, W, home);

/** A directory for a premise, with a marker file each attack touches. */
const place = (name: string) => freshPremisePlace(T, name);

/** Each command is not allowed (ask, or deny where the mode refuses what it would ask) in `mode`. */
function expectRefused(commands: readonly string[], mode: DefaultMode, rules: Rules): void {
  for (const command of commands) expect(shell(command, mode, rules).verdict, command).toBe(refused(mode));
}

function expectAllowed(commands: readonly string[], mode: DefaultMode, rules: Rules): void {
  for (const command of commands) expect(shell(command, mode, rules).verdict, command).toBe('allow');
}

const hasGh = runs('gh', ['--version']);

describe('S17. gh: aliases, program settings and extensions run code in later gh commands', () => {
  const RULES: Rules = { allow: ['Bash(gh:*)'], deny: ['Bash(rm *)'] };
  /** gh with its config and data below `dir`, a token so no command stops to log in, no prompts. */
  const gh = (dir: string, args: string[], cwd = dir) =>
    spawnSync('gh', args, { cwd, input: '', timeout: 30_000, env: { ...process.env, GH_CONFIG_DIR: join(dir, 'cfg'), XDG_DATA_HOME: join(dir, 'data'), GH_TOKEN: 'unused', GH_NO_UPDATE_NOTIFIER: '1', GH_PROMPT_DISABLED: '1', SHELL: '/bin/sh', BROWSER: '' } });

  test.skipIf(!hasGh)('premise: gh alias set --shell NAME CMD (or a ! expansion), then gh NAME, runs CMD', () => {
    const p = place('s17-alias');
    gh(p.dir, ['alias', 'set', '--shell', 'sx', `touch '${p.marker}'`]);
    gh(p.dir, ['sx']);
    expect(p.ran()).toBe(true);
    gh(p.dir, ['alias', 'set', 'bx', `!touch '${p.marker}'`]);
    gh(p.dir, ['bx']);
    expect(p.ran()).toBe(true);
  });
  test.skipIf(!hasGh)('premise: gh config set browser P, then gh browse, runs P', () => {
    const p = place('s17-browser');
    mkdirSync(join(p.dir, 'repo'));
    spawnSync('git', ['init', '-q', '.'], { cwd: join(p.dir, 'repo') });
    spawnSync('git', ['remote', 'add', 'origin', 'https://github.com/o/r.git'], { cwd: join(p.dir, 'repo') });
    toucher(join(p.dir, 'x'), p.marker);
    gh(p.dir, ['config', 'set', 'browser', join(p.dir, 'x')]);
    expect(readFileSync(join(p.dir, 'cfg', 'config.yml'), 'utf8')).toContain(join(p.dir, 'x'));
    gh(p.dir, ['browse'], join(p.dir, 'repo'));
    expect(p.ran()).toBe(true);
  });
  test.skipIf(!hasGh)('premise: gh extension install DIR, then gh NAME, runs DIR/gh-NAME', () => {
    const p = place('s17-ext');
    mkdirSync(join(p.dir, 'gh-r27x'));
    toucher(join(p.dir, 'gh-r27x', 'gh-r27x'), p.marker);
    gh(p.dir, ['extension', 'install', '.'], join(p.dir, 'gh-r27x'));
    gh(p.dir, ['r27x']);
    expect(p.ran()).toBe(true);
  });

  test.each(MODES)('%s: writing an alias, a program setting or installing an extension is not allowed under Bash(gh:*)', (mode) => {
    expectRefused([
      "gh alias set --shell x 'touch F'",
      "gh alias set x '!touch F'",
      "gh alias set -s x 'touch F'",
      "gh alias set --clobber x '!./evil.sh'",
      "gh alias set co 'pr checkout'",
      'gh alias set x -',
      'gh alias set x "$CMD"',
      'gh alias import aliases.yml',
      'gh config set editor ./x',
      "gh config set pager 'less -R'",
      'gh config set browser ./x',
      'gh config set -h github.com browser ./x',
      'gh config set --host=github.com editor ./x',
      'gh config set http_unix_socket /tmp/s',
      'gh config set other value',
      'gh config set "$K" ./x',
      'gh extension install owner/gh-x',
      'gh ext install .',
      'gh extensions upgrade --all',
      'gh extension create x',
      'gh "$GROUP" set x ./y',
    ], mode, RULES);
  });
  test.each(MODES)('%s: a shell alias\'s command meets deny rules', (mode) => {
    for (const command of ["gh alias set x '!rm -rf victim'", "gh alias set --shell x 'rm -rf victim'"]) expect(shell(command, mode, RULES).verdict, command).toBe('deny');
  });
  test.each(MODES)('%s: gh\'s ordinary commands stay allowed', (mode) => {
    expectAllowed(['gh pr view 12', 'gh pr create --fill', 'gh issue list --label bug', 'gh api repos/o/r', 'gh config set git_protocol ssh', 'gh config set prompt disabled', 'gh config get editor', 'gh config list', 'gh alias list', 'gh alias delete co', 'gh extension list', 'gh extension remove x', 'gh repo view --web'], mode, RULES);
  });
});

const hasRustup = runs('rustup', ['--version']);

describe('T2. rustup: a toolchain named by path runs that directory\'s programs', () => {
  const RULES: Rules = { allow: ['Bash(rustup:*)', 'Bash(rustc:*)', 'Bash(rustdoc:*)', 'Bash(rustfmt:*)', 'Bash(cargo:*)', 'Bash(cargo-clippy:*)', 'Bash(clippy-driver:*)'], deny: ['Bash(rm *)'] };
  /** A toolchain directory D whose every program touches the marker, and an empty RUSTUP_HOME: nothing of the user's is read or changed. */
  const toolchain = (name: string) => {
    const p = place(name);
    const d = join(p.dir, 'D');
    mkdirSync(join(d, 'bin'), { recursive: true });
    mkdirSync(join(d, 'lib'));
    for (const program of ['rustc', 'rustdoc', 'rustfmt', 'cargo', 'cargo-clippy', 'clippy-driver']) toucher(join(d, 'bin', program), p.marker);
    const { RUSTUP_TOOLCHAIN: _unused, ...inherited } = process.env;
    const env = { ...inherited, RUSTUP_HOME: join(p.dir, 'rustup-home'), CI: 'true' };
    const run = (program: string, args: string[]) => spawnSync(program, args, { cwd: p.dir, env, input: '', timeout: 60_000 });
    return { ...p, d, run };
  };
  test.skipIf(!hasRustup)('premise: rustc +D, rustdoc +D, rustfmt +D, cargo-clippy +D and clippy-driver +D each run D/bin/<program>', () => {
    const t = toolchain('t2-plus');
    for (const program of ['rustc', 'rustdoc', 'rustfmt', 'cargo-clippy', 'clippy-driver']) {
      t.run(program, [`+${t.d}`, '--version']);
      expect(t.ran(), program).toBe(true);
    }
  });
  test.skipIf(!hasRustup)('premise: rustup run D rustc, and rustup toolchain link NAME D then rustc +NAME, run D/bin/rustc', () => {
    const t = toolchain('t2-run');
    t.run('rustup', ['run', t.d, 'rustc', '--version']);
    expect(t.ran()).toBe(true);
    t.run('rustup', ['toolchain', 'link', 'r27evil', t.d]);
    t.run('rustc', ['+r27evil', '--version']);
    expect(t.ran()).toBe(true);
  });

  test.each(MODES)('%s: a toolchain by path, a link, or rustup run\'s command are not allowed by the prefix rules', (mode) => {
    expectRefused([
      'rustc +/tmp/d x.rs',
      'rustc +./d x.rs',
      'rustdoc +/tmp/d src/lib.rs',
      'rustfmt +/tmp/d src/main.rs',
      'cargo-clippy +/tmp/d',
      'clippy-driver +../d x.rs',
      'cargo-fmt +/tmp/d',
      'rustc "$T" x.rs',
      'rustup +/tmp/d show',
      'rustup run /tmp/d rustc x.rs',
      'rustup run ./d cargo build',
      'rustup toolchain link dev /tmp/d',
      'rustup toolchain link dev ./build/stage1',
      'rustup default /tmp/d',
      'rustup override set /tmp/d',
      'rustup override set --path . ../d',
      'rustup "$SUB" dev /tmp/d',
      "rustup run stable bash -c 'touch x'",
    ], mode, RULES);
  });
  test.each(MODES)('%s: rustup run\'s command meets deny rules', (mode) => {
    for (const command of ['rustup run stable rm -rf victim', 'rustup run stable env rm -rf victim']) expect(shell(command, mode, RULES).verdict, command).toBe('deny');
  });
  test.each(MODES)('%s: installed toolchains by name stay allowed', (mode) => {
    expectAllowed(['rustc +stable x.rs', 'rustc x.rs', 'rustc src/main.rs -o out', 'rustfmt +nightly src/main.rs', 'cargo +nightly fmt', 'cargo build', 'cargo-clippy +1.80.0', 'rustup show', 'rustup update', 'rustup toolchain list', 'rustup toolchain install nightly', 'rustup component add clippy', 'rustup target add wasm32-unknown-unknown', 'rustup default stable', 'rustup override set nightly-2025-01-01', 'rustup override set --path . nightly', 'rustup which rustc', 'rustup run stable cargo build', 'rustup run nightly rustc x.rs'], mode, RULES);
  });
});

describe('G3. npm\'s global install by setting: npm config set global true makes every later install global', () => {
  const RULES: Rules = { allow: ['Bash(npm:*)', 'Bash(npm install:*)', 'Bash(npm config:*)', 'Bash(pnpm:*)'], deny: ['Edit(/usr/**)'] };
  test.skipIf(!runs('npm', ['--version']))('premise: after npm config set global true, npm install ./pkg puts the package\'s bin in {prefix}/bin', () => {
    const p = place('g3');
    mkdirSync(join(p.dir, 'pkg'));
    writeFileSync(join(p.dir, 'pkg', 'package.json'), JSON.stringify({ name: 'g3-pkg', version: '1.0.0', bin: { 'g3-bin': 'cli.js' } }));
    writeFileSync(join(p.dir, 'pkg', 'cli.js'), '#!/usr/bin/env node\n');
    const prefix = join(p.dir, 'prefix');
    // None of the settings npm hands its scripts (`npx vitest` runs under npm_config_userconfig=~/.npmrc): the setting goes to this test's own.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
    const env = { ...inherited, HOME: p.dir, CI: 'true', npm_config_userconfig: join(p.dir, '.npmrc'), npm_config_prefix: prefix, npm_config_cache: join(p.dir, '.npm'), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
    const npm = (args: string[]) => spawnSync('npm', args, { cwd: p.dir, env, input: '', timeout: 120_000 });
    npm(['config', 'set', 'global', 'true']);
    expect(readFileSync(join(p.dir, '.npmrc'), 'utf8')).toContain('global=true');
    npm(['install', '--offline', './pkg']);
    expect(existsSync(join(prefix, 'bin', 'g3-bin'))).toBe(true);
  }, 240_000);

  test.each(MODES)('%s: a setting that makes later installs global is not allowed by npm\'s prefix rules', (mode) => {
    expectRefused([
      'npm config set global true',
      'npm config set global=true',
      'npm config set global',
      'npm set global true',
      'npm config set GLOBAL true',
      'npm config set location global',
      'npm config set --location=user location=global',
      'npm c set global true',
      'pnpm config set global true',
    ], mode, RULES);
  });
  test.each(MODES)('%s: the other spellings of a global install still ask (round 26 S10 and S4 read them)', (mode) => {
    expectRefused(['npm_config_global=true npm install x', 'NPM_CONFIG_GLOBAL=1 npm i x', 'npm_config_location=global npm install x', 'env npm_config_global=true npm install x', 'npm --global=true install x', 'npm install --location=global x', 'npm install --global=true x'], mode, RULES);
  });
  test.each(MODES)('%s: other settings and local installs stay allowed', (mode) => {
    expectAllowed(['npm config set global false', 'npm config set location project', 'npm config set save-exact true', 'npm config get global', 'npm config list', 'npm install x', 'npm install --save-dev x', 'pnpm config set save-exact true'], mode, RULES);
  });
});

const YARN1 = process.env.YARN1_BIN ?? '/tmp/yn/node_modules/yarn/bin/yarn.js';
const hasYarn1 = existsSync(YARN1) && spawnSync(process.execPath, [YARN1, '--version'], { encoding: 'utf8', timeout: 30_000 }).stdout?.startsWith('1.') === true;

describe('Y4. yarn: a setting yarn config set writes may name code or a folder code comes from', () => {
  const RULES: Rules = { allow: ['Bash(yarn:*)', 'Bash(yarn config:*)'], deny: ['Bash(rm *)'] };
  test.skipIf(!hasYarn1)('premise: yarn 1 turns a setting starting with -- into an option of every later call: yarn config set -- --cwd ../evil, then yarn dev, runs ../evil\'s dev', () => {
    // yarn 1 writes a root user's settings to /usr/local/share/.yarnrc and reads ~/.yarnrc: as root, run yarn as nobody with a home of its own.
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'rules27b-y4-')));
    chmodSync(dir, 0o755);
    for (const sub of ['home', 'proj', 'evil']) mkdirSync(join(dir, sub));
    const marker = join(dir, 'RAN');
    writeFileSync(join(dir, 'proj', 'package.json'), JSON.stringify({ name: 'proj', version: '1.0.0', license: 'MIT', scripts: { dev: 'true' } }));
    writeFileSync(join(dir, 'evil', 'package.json'), JSON.stringify({ name: 'evil', version: '1.0.0', license: 'MIT', scripts: { dev: `touch '${marker}'` } }));
    const root = process.getuid?.() === 0;
    if (root) for (const path of [dir, join(dir, 'home'), join(dir, 'proj'), join(dir, 'evil'), join(dir, 'proj', 'package.json'), join(dir, 'evil', 'package.json')]) chownSync(path, 65534, 65534);
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|yarn_)/i.test(name)));
    const yarn = (args: string[]) => spawnSync(process.execPath, [YARN1, ...args], { cwd: join(dir, 'proj'), input: '', timeout: 60_000, env: { ...inherited, HOME: join(dir, 'home'), YARN_IGNORE_PATH: '1', CI: 'true', SHELL: '/bin/sh' }, ...(root ? { uid: 65534, gid: 65534 } : {}) });
    yarn(['config', 'set', '--', '--cwd', '../evil']);
    expect(readFileSync(join(dir, 'home', '.yarnrc'), 'utf8')).toContain('"--cwd" "../evil"');
    yarn(['dev']);
    expect(existsSync(marker)).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  test.each(MODES)('%s: a setting naming code, a folder or another option of every call is not allowed under Bash(yarn:*)', (mode) => {
    expectRefused([
      'yarn config set -- --cwd ../evil',
      'yarn config set -- --link-folder /tmp/l',
      'yarn config set -- --install.modules-folder /tmp/m',
      'yarn config set yarn-offline-mirror /tmp/mirror',
      'yarn config set prefix /tmp/p',
      'yarn config set cache-folder /tmp/c',
      'yarn config set global-folder /tmp/g',
      'yarn config set preferred-cache-folder /tmp/c',
      'yarn config set env.NODE_OPTIONS --require=./x.js',
      'yarn config set cacheFolder /tmp/c',
      'yarn config set -H injectEnvironmentFiles .env.evil',
      'yarn config set pnpUnpluggedFolder /tmp/u',
      "yarn config set --json packageExtensions '{}'",
      'yarn config set --json plugins \'[{"path":"./p.cjs"}]\'',
    ], mode, RULES);
  });
  test.each(MODES)('%s: settings that pick versions, prefixes, the network or the output stay allowed', (mode) => {
    expectAllowed(['yarn config set registry https://registry.example', 'yarn config set init-license MIT', 'yarn config set initScope acme', 'yarn config set enableTelemetry false', 'yarn config set save-exact true', 'yarn config set version-git-message "v%s"', 'yarn config set network-timeout 600000', 'yarn config get cache-folder', 'yarn config list', 'yarn config delete prefix', 'yarn add x', 'yarn dev'], mode, RULES);
  });
});

const BUN = process.env.BUN_BIN ?? 'bun';
const hasBun = runs(BUN, ['--version']);

describe('B5. bun pm trust runs the lifecycle scripts bun blocked, and every later install runs them', () => {
  const RULES: Rules = { allow: ['Bash(bun:*)', 'Bash(bun pm:*)', 'Bash(bun add:*)', 'Bash(bun install:*)'], deny: ['Bash(rm *)'] };
  test.skipIf(!hasBun)('premise: bun install leaves a file: dependency\'s postinstall unrun; bun pm trust NAME runs it', () => {
    const p = place('b5');
    mkdirSync(join(p.dir, 'dep'));
    writeFileSync(join(p.dir, 'dep', 'package.json'), JSON.stringify({ name: 'dep', version: '1.0.0', scripts: { postinstall: `touch '${p.marker}'` } }));
    writeFileSync(join(p.dir, 'package.json'), JSON.stringify({ name: 'b5', version: '1.0.0', dependencies: { dep: 'file:./dep' } }));
    const env = { ...process.env, HOME: p.dir, BUN_INSTALL_CACHE_DIR: join(p.dir, '.cache'), CI: 'true' };
    spawnSync(BUN, ['install'], { cwd: p.dir, env, input: '', timeout: 120_000 });
    expect(p.ran()).toBe(false);
    spawnSync(BUN, ['pm', 'trust', 'dep'], { cwd: p.dir, env, input: '', timeout: 120_000 });
    expect(p.ran()).toBe(true);
    expect(readFileSync(join(p.dir, 'package.json'), 'utf8')).toContain('trustedDependencies');
  }, 240_000);

  test.each(MODES)('%s: trusting dependencies is not allowed under bun\'s prefix rules', (mode) => {
    expectRefused(['bun pm trust dep', 'bun pm trust --all', 'bun pm trust -a', 'bun pm -g trust dep', 'bun add --trust dep', 'bun install --trust', 'bun i --trust dep', 'bun pm pkg set trustedDependencies=\'["dep"]\''], mode, RULES);
  });
  test.each(MODES)('%s: bun\'s installs and queries stay allowed', (mode) => {
    expectAllowed(['bun install', 'bun add dep', 'bun pm untrusted', 'bun pm default-trusted', 'bun pm ls', 'bun pm cache rm', 'bun pm pkg get name', 'bun run trust'], mode, RULES);
  });
});

describe('P6. npm\'s and pnpm\'s setting variables have one home (variables.ts MANAGER_CONFIG): the same decisions', () => {
  const RULES: Rules = { allow: ['Bash(npm:*)', 'Bash(pnpm:*)', 'Bash(yarn:*)', 'Bash(bun:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: a setting by environment asks before the package managers, a program setting meets deny rules, the output settings stay', (mode) => {
    expectRefused(['npm_config_pnpmfile=F pnpm install', 'pnpm_config_pnpmfile=F pnpm install', 'PNPM_CONFIG_GLOBAL_PNPMFILE=F pnpm i', 'NPM_CONFIG_USERCONFIG=F npm test', 'pnpm_config_dir=../x pnpm run dev', 'npm_config_registry=http://x npm i', 'env npm_config_node-options=--require=./x.js npm test', 'npm_config_script_shell=./x npm test', 'pnpm_config_script_shell=./x pnpm test', 'export pnpm_config_dir=../x; pnpm run dev', 'npm_config_prefix=../x yarn dev'], mode, RULES);
    for (const command of ["npm_config_script_shell='rm -rf victim' npm test", "PNPM_CONFIG_SHELL='rm -rf victim' pnpm test"]) expect(shell(command, mode, RULES).verdict, command).toBe('deny');
    expectAllowed(['npm test', 'pnpm test'], mode, RULES);
    // An assignment before a program keeps allow rules from matching it (docs/rules.md); the output settings are no setting that loads code.
    for (const command of ['npm_config_loglevel=warn npm test', 'pnpm_config_reporter=silent pnpm test', 'NPM_CONFIG_FUND=false npm i']) expect(shell(command, mode, RULES).reason, command).not.toMatch(/cannot be fully analysed/);
  });
});
