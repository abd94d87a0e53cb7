import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES, runs } from '../helpers/policy.js';

/**
 * Round 24 (rules24): what round 23 left of the command rules (docs/threat-model.md "Round 24: …").
 *
 *   B1: bun's options that load code or settings (`bun test --preload ./x.js`, `--config=F`,
 *       `--env-file F`, `--cwd D`, `--tsconfig-override F`, `--inspect`), `bun exec TEXT`, `bun repl`
 *       and `bun run -` were allowed under `Bash(bun:*)`, while its harmless value options
 *       (`bun --port 3000 run dev`, `--filter app`) asked.
 *   Y3: berry's `yarn run --inspect[=HOST:PORT] BIN` (a debugger whoever connects runs code through).
 *
 * Premises run the real tools when present: bun from npm's `bun` package (`BUN_BIN`, a path to its
 * bin; round 24 used 1.4.5), yarn berry from `YARN_BERRY_JS` (@yarnpkg/cli-dist's bin/yarn.js, 4.18.1).
 * CI runs with CI=true, no stdin and no SHELL: each premise sets what it relies on.
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('rules24-'));
});

function shell(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideInWorkspace(command, mode, rules, W, home);
}

const BUN = process.env.BUN_BIN ?? (existsSync('/tmp/r24b/node_modules/.bin/bun') ? '/tmp/r24b/node_modules/.bin/bun' : 'bun');
const hasBun = runs(BUN, ['--version']);
const BERRY = process.env.YARN_BERRY_JS ?? '/tmp/r23y/node_modules/@yarnpkg/cli-dist/bin/yarn.js';
const hasBerry = existsSync(BERRY);

/** A bun project: x.js writes the marker PRE, y.js MAIN; scripts `nb` (node y.js) and `build`. */
function bunProject(name: string): { dir: string; env: NodeJS.ProcessEnv; ran: (file: string) => boolean; run: (args: string[], input?: string) => string } {
  const dir = join(T, name);
  mkdirSync(join(dir, 'other'), { recursive: true });
  const mark = (file: string): string => `require('fs').appendFileSync(${JSON.stringify(join(dir, file))}, 'x');\n`;
  writeFileSync(join(dir, 'x.js'), mark('PRE'));
  writeFileSync(join(dir, 'y.js'), mark('MAIN'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, scripts: { nb: 'node y.js', build: 'node y.js' } }));
  writeFileSync(join(dir, 'other', 'package.json'), JSON.stringify({ name: 'other', scripts: { build: `node ${join(dir, 'x.js')}` } }));
  const env = { ...process.env, HOME: dir, SHELL: '/bin/sh', DO_NOT_TRACK: '1', BUN_INSTALL_CACHE_DIR: join(dir, '.cache') };
  const ran = (file: string): boolean => existsSync(join(dir, file));
  const run = (args: string[], input?: string): string => {
    for (const file of ['PRE', 'MAIN']) rmSync(join(dir, file), { force: true });
    const result = spawnSync(BUN, args, { cwd: dir, env, input: input ?? '', timeout: 30_000 });
    return `${result.stdout}${result.stderr}`;
  };
  return { dir, env, ran, run };
}

const BUN_RULES = { allow: ['Bash(bun:*)'], deny: ['Bash(rm *)', 'Bash(bun run deploy *)'] };

describe('B1. bun options that load code or settings; its harmless value options', () => {
  test.skipIf(!hasBun)('premise: bun loads the module, config, env file, project and tsconfig each option names', () => {
    const { dir, ran, run } = bunProject('b1');
    writeFileSync(join(dir, 'a.test.js'), "import { test } from 'bun:test';\ntest('a', () => {});\n");
    run(['test', '--preload', './x.js']);
    expect(ran('PRE'), 'test --preload').toBe(true);
    run(['test', '-r', './x.js']);
    expect(ran('PRE'), 'test -r').toBe(true);
    run(['run', '-r./x.js', 'y.js']);
    expect(ran('PRE'), 'run -r./x.js').toBe(true);
    // bunfig.toml's preload (bun docs, "bunfig.toml"): only with `=`; `-c F` is a flag and F the program.
    writeFileSync(join(dir, 'b.toml'), 'preload = ["./x.js"]\n[test]\npreload = ["./x.js"]\n');
    run(['run', '--config=b.toml', 'y.js']);
    expect(ran('PRE') && ran('MAIN'), 'run --config=b.toml').toBe(true);
    run(['test', '--config=b.toml']);
    expect(ran('PRE'), 'test --config=b.toml').toBe(true);
    expect(run(['-c', 'b.toml', 'y.js'])).toContain('b.toml');
    expect(ran('MAIN'), '-c takes no next word').toBe(false);
    // --env-file: the script's node reads NODE_OPTIONS from it.
    writeFileSync(join(dir, 'notes.env'), 'NODE_OPTIONS=--require ./x.js\n');
    run(['run', '--env-file', 'notes.env', 'nb']);
    expect(ran('PRE') && ran('MAIN'), 'run --env-file notes.env nb').toBe(true);
    run(['run', '--cwd', 'other', 'build']);
    expect(ran('PRE'), 'run --cwd other build ran other/build').toBe(true);
    // tsconfig `paths` sends an import elsewhere.
    writeFileSync(join(dir, 'notes.json'), JSON.stringify({ compilerOptions: { paths: { lib: ['./x.js'] } } }));
    writeFileSync(join(dir, 'z.ts'), 'import "lib";\n');
    mkdirSync(join(dir, 'node_modules', 'lib'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'lib', 'package.json'), JSON.stringify({ name: 'lib', main: 'i.js' }));
    writeFileSync(join(dir, 'node_modules', 'lib', 'i.js'), '\n');
    run(['z.ts']);
    expect(ran('PRE'), 'without the override').toBe(false);
    run(['--tsconfig-override', 'notes.json', 'z.ts']);
    expect(ran('PRE'), '--tsconfig-override').toBe(true);
    // Code on stdin, and bun's shell.
    run(['run', '-'], `require('fs').writeFileSync(${JSON.stringify(join(dir, 'PRE'))}, '')`);
    expect(ran('PRE'), 'run -').toBe(true);
    run(['repl'], `require('fs').writeFileSync(${JSON.stringify(join(dir, 'PRE'))}, '')\n.exit\n`);
    expect(ran('PRE'), 'repl').toBe(true);
    run(['exec', `true; touch ${join(dir, 'PRE')}`]);
    expect(ran('PRE'), 'exec').toBe(true);
  });
  test.skipIf(!hasBun)('premise: bun --inspect=HOST:PORT listens for a debugger', () => {
    const { dir, env } = bunProject('b1i');
    writeFileSync(join(dir, 's.js'), 'setTimeout(() => {}, 300);\n');
    // Port 0: the system picks a free one (a fixed port may be taken on a shared machine), which bun prints.
    const result = spawnSync(BUN, ['--inspect=127.0.0.1:0', 's.js'], { cwd: dir, env, input: '', timeout: 30_000 });
    expect(`${result.stdout}${result.stderr}`).toMatch(/Listening:\s+ws:\/\/127\.0\.0\.1:[1-9]\d*\//);
  });
  test.skipIf(!hasBun)('premise: bun takes the next word for its value options (--port, --filter, --elide-lines, --shell, --install, --define), a script past them', () => {
    const { ran, run } = bunProject('b1v');
    for (const args of [['--port', '3000', 'y.js'], ['run', '--shell', 'system', 'y.js'], ['run', '--install', 'auto', 'y.js'], ['--elide-lines', '3', 'y.js'], ['run', '--define', 'a:1', 'y.js'], ['--conditions', 'dev', 'y.js'], ['--console-depth', '3', 'y.js']]) {
      run(args);
      expect(ran('MAIN'), args.join(' ')).toBe(true);
    }
    // A value option before the command word: bun's command is the first word not starting with `-`.
    run(['--filter', 'b1v', 'nb']);
    expect(ran('MAIN'), '--filter b1v nb ran the script').toBe(true);
  });
  test.each(MODES)('%s: each option that loads code or settings is not allowed under Bash(bun:*)', (mode) => {
    for (const command of [
      'bun test --preload ./x.js',
      'bun test -r ./x.js',
      'bun -r ./x.js test',
      'bun --preload ./x.js run build',
      'bun run --preload ./x.js build',
      'bun run --require=./x.js y.js',
      'bun run --import ./x.js y.js',
      'bun run -r./x.js y.js',
      'bun -br ./x.js y.js',
      'bun --config=./b.toml run build',
      'bun run --config=b.toml y.js',
      'bun -c=b.toml test',
      'bun test --config=b.toml',
      'bun --env-file notes.env run build',
      'bun run --env-file=notes.env nb',
      'bun --cwd /tmp/x run build',
      'bun run --cwd other build',
      'bun install --cwd ../other',
      'bun --tsconfig-override notes.json z.ts',
      'bun run --tsconfig-override=notes.json z.ts',
      'bun --inspect y.js',
      'bun run --inspect=0.0.0.0:9229 dev',
      'bun run --inspect-brk y.js',
      'bun test --inspect-wait=127.0.0.1:1',
      'bun run --jsx-import-source ./j y.tsx',
      'bun run --shell ./sh build',
      'bun run -e 1',
      'bun exec ls',
      "bun exec 'rm -rf victim'",
      'echo x | bun repl',
      'echo x | bun run -',
      'bun run "$OPT" build',
    ]) expect(shell(command, mode, BUN_RULES).verdict, command).not.toBe('allow');
  });
  test.each(MODES)('%s: deny rules meet the script bun runs past a value option', (mode) => {
    // `bun --filter app deploy`, `bun --port 1 deploy`: bun's command is the first word not starting with `-`.
    for (const command of ['bun --filter app deploy', 'bun --port 1 deploy', 'bun run --port 1 deploy', "bun exec 'rm -rf victim'"]) {
      expect(shell(command, mode, BUN_RULES).verdict, command).toBe('deny');
    }
  });
  test.each([
    'bun run build',
    'bun test',
    'bun test --timeout 5000 a',
    'bun test -t name',
    'bun test --coverage --bail 2',
    'bun test -u',
    'bun install',
    'bun add -d vitest',
    'bun build ./a.ts --outdir dist',
    'bun --port 3000 run dev',
    'bun run --port 3000 dev',
    'bun --filter app build',
    'bun --elide-lines 5 --filter app build',
    'bun run --shell system build',
    'bun run --install force dev',
    'bun run --define a:1 build',
    'bun run --conditions dev build',
    'bun --silent run build',
    'bun --watch run dev',
    'bun --config run build',
    'bun run build --preload ./x.js',
    'bun run y.js',
    'bun y.js',
  ])('default, Bash(bun:*): %j stays allowed', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(bun:*)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

/** A berry project with a `portal:` dependency whose bin `bd` runs node. */
function berryProject(name: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = join(T, name);
  mkdirSync(join(dir, 'bindep'), { recursive: true });
  writeFileSync(join(dir, 'bindep', 'package.json'), JSON.stringify({ name: 'bindep', version: '1.0.0', bin: { bd: 'bd.js' } }));
  writeFileSync(join(dir, 'bindep', 'bd.js'), '\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, dependencies: { bindep: 'portal:./bindep' } }));
  // CI=true makes berry's installs immutable (a new lock file is refused), so say it outright.
  const env = { ...process.env, HOME: dir, SHELL: '/bin/sh', YARN_ENABLE_TELEMETRY: '0', YARN_ENABLE_GLOBAL_CACHE: '0', YARN_ENABLE_IMMUTABLE_INSTALLS: 'false', COREPACK_ENABLE_STRICT: '0' };
  execFileSync('node', [BERRY, 'install'], { cwd: dir, env, stdio: 'ignore', timeout: 120_000 });
  return { dir, env };
}

describe('Y3. berry run --inspect / --inspect-brk: node listens for a debugger', () => {
  test.skipIf(!hasBerry)('premise: berry `run --inspect=127.0.0.1:PORT bd` starts bd\'s node listening there', () => {
    const { dir, env } = berryProject('y3');
    // (`--inspect-brk` is forwarded the same way, berry's run source; its node waits for a debugger, so it is not run here.)
    const result = spawnSync('node', [BERRY, 'run', '--inspect=127.0.0.1:0', 'bd'], { cwd: dir, env, input: '', timeout: 60_000 });
    expect(`${result.stdout}${result.stderr}`).toMatch(/Debugger listening on ws:\/\/127\.0\.0\.1:[1-9]\d*\//);
    // Before `run` berry refuses it ("Invalid option name"); the policy does not allow it either.
    expect(spawnSync('node', [BERRY, '--inspect=127.0.0.1:0', 'bd'], { cwd: dir, env, input: '', timeout: 60_000 }).status).not.toBe(0);
  });
  test.each(MODES)('%s: --inspect and --inspect-brk before the script are not allowed under Bash(yarn:*)', (mode) => {
    for (const command of ['yarn run --inspect bd', 'yarn run --inspect=0.0.0.0:9229 bd', 'yarn run --inspect-brk bd', 'yarn run --inspect-brk=1.2.3.4:1 webpack', 'yarn --inspect bd', 'yarn run -T --inspect bd', 'yarn run --require x --inspect bd']) {
      expect(shell(command, mode, { allow: ['Bash(yarn:*)'], deny: ['Bash(rm *)'] }).verdict, command).not.toBe('allow');
    }
  });
  test.each(['yarn dev --inspect', 'yarn run dev --inspect', 'yarn test -- --inspect', 'yarn run build', 'yarn run -T build'])('default, Bash(yarn:*): %j stays allowed (the script\'s own words)', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(yarn:*)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});



const hasGit = runs('git', ['--version']);
const hasMake = runs('make', ['--version']);
const hasRustup = runs('rustup', ['--version']) && runs('cargo', ['--version']);
const hasKubectl = runs('kubectl', ['version', '--client']);

/** Every allow rule a careful user of these tools writes, and deny rules the commands below must not pass. */
const ENV_RULES = {
  allow: ['Bash(./build.sh:*)', 'Bash(./deploy.sh:*)', 'Bash(make:*)', 'Bash(cargo:*)', 'Bash(rustc:*)', 'Bash(go:*)', 'Bash(kubectl:*)', 'Bash(helm:*)', 'Bash(docker:*)', 'Bash(gh:*)', 'Bash(pytest:*)', 'Bash(python3:*)'],
  deny: ['Bash(rm *)'],
};

describe('E2. settings by environment before any program that starts others (a script, an interpreter, a test runner)', () => {
  test.skipIf(!hasGit)('premise: HOME=D ./build.sh runs the script\'s git with D/.gitconfig (its fsmonitor runs); GIT_CONFIG_GLOBAL=F too', () => {
    const dir = join(T, 'e2');
    const home2 = join(dir, 'h');
    mkdirSync(home2, { recursive: true });
    const env = { ...process.env, HOME: dir, SHELL: '/bin/sh', GIT_CONFIG_NOSYSTEM: '1' };
    execFileSync('git', ['init', '-q', dir], { env });
    writeFileSync(join(dir, 'fsm.sh'), `#!/bin/sh\ntouch ${join(dir, 'FSM-RAN')}\n`, { mode: 0o755 });
    writeFileSync(join(home2, '.gitconfig'), `[core]\n\tfsmonitor = ${join(dir, 'fsm.sh')}\n`);
    writeFileSync(join(dir, 'build.sh'), '#!/bin/sh\ngit status --short >/dev/null\n', { mode: 0o755 });
    execFileSync('./build.sh', [], { cwd: dir, env, stdio: 'ignore' });
    expect(existsSync(join(dir, 'FSM-RAN')), 'without the assignment').toBe(false);
    execFileSync('./build.sh', [], { cwd: dir, env: { ...env, HOME: home2 }, stdio: 'ignore' });
    expect(existsSync(join(dir, 'FSM-RAN')), 'HOME=D').toBe(true);
    rmSync(join(dir, 'FSM-RAN'));
    execFileSync('./build.sh', [], { cwd: dir, env: { ...env, GIT_CONFIG_GLOBAL: join(home2, '.gitconfig') }, stdio: 'ignore' });
    expect(existsSync(join(dir, 'FSM-RAN')), 'GIT_CONFIG_GLOBAL=F').toBe(true);
  });
  test.each(MODES)('%s: such an assignment before a script, an interpreter, a test runner or a CLI that runs git is not allowed', (mode) => {
    for (const command of [
      'HOME=/tmp/d ./build.sh',
      'XDG_CONFIG_HOME=/tmp/d ./build.sh',
      'GIT_CONFIG_GLOBAL=team.cfg ./build.sh',
      'GIT_CONFIG_SYSTEM=team.cfg ./deploy.sh',
      'HOME=$PWD/h ./build.sh',
      'env HOME=/tmp/d ./build.sh',
      'HOME=/tmp/d pytest',
      'HOME=/tmp/d python3 build.py',
      'HOME=/tmp/d bash build.sh',
      'MAKEFLAGS=SHELL=./sh ./build.sh',
      'MAKEFILES=e.mk ./build.sh',
      'YARN_YARN_PATH=./x.cjs ./build.sh',
      'CARGO_HOME=/tmp/c ./build.sh',
      'GOFLAGS=-toolexec=./t ./build.sh',
      'KUBECONFIG=./k ./deploy.sh',
      'HELM_PLUGINS=./p ./deploy.sh',
      'DOCKER_CONFIG=./d ./deploy.sh',
      'GH_CONFIG_DIR=./g ./deploy.sh',
      'GIT_CONFIG_GLOBAL=team.cfg go build',
      'HOME=/tmp/d cargo build',
      'GIT_CONFIG_GLOBAL=team.cfg gh pr checkout 1',
      'HOME=/tmp/d find . -exec git status ;',
    ]) expect(shell(command, mode, ENV_RULES).verdict, command).not.toBe('allow');
  });
  test.each(['./build.sh', 'HOME=/dev/null ./build.sh', 'MAKEFLAGS=-j4 ./build.sh', 'YARN_ENABLE_COLORS=0 ./build.sh', 'NODE_ENV=production ./build.sh', 'CI=1 ./build.sh', 'HOME=/tmp/d ls', 'HOME=/tmp/d cat x', 'CGO_ENABLED=0 go build', 'GOOS=linux GOARCH=arm64 go build ./...', 'RUSTUP_TOOLCHAIN=nightly cargo build', 'RUST_BACKTRACE=1 cargo test', 'GH_HOST=github.example.com gh pr list', 'KUBECONFIG=/dev/null kubectl version --client'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', ENV_RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('E3. each tool\'s own variables that load code or name a program (from their documentation)', () => {
  test.skipIf(!hasRustup)('premise: rustup runs the toolchain RUSTUP_TOOLCHAIN=DIR or RUSTUP_HOME=D names', () => {
    const dir = join(T, 'e3r');
    const marker = join(dir, 'TOOLCHAIN-RAN');
    const fake = `#!/bin/sh\ntouch ${marker}\n`;
    mkdirSync(join(dir, 'tc', 'bin'), { recursive: true });
    writeFileSync(join(dir, 'tc', 'bin', 'cargo'), fake, { mode: 0o755 });
    writeFileSync(join(dir, 'tc', 'bin', 'rustc'), fake, { mode: 0o755 });
    execFileSync('cargo', ['--version'], { cwd: dir, env: { ...process.env, RUSTUP_TOOLCHAIN: join(dir, 'tc') }, stdio: 'ignore' });
    expect(existsSync(marker), 'RUSTUP_TOOLCHAIN=DIR').toBe(true);
    rmSync(marker);
    const toolchain = join(dir, 'rh', 'toolchains', 'stable-x86_64-unknown-linux-gnu', 'bin');
    mkdirSync(toolchain, { recursive: true });
    writeFileSync(join(toolchain, 'cargo'), fake, { mode: 0o755 });
    writeFileSync(join(dir, 'rh', 'settings.toml'), 'default_toolchain = "stable-x86_64-unknown-linux-gnu"\nversion = "12"\n');
    execFileSync('cargo', ['--version'], { cwd: dir, env: { ...process.env, RUSTUP_HOME: join(dir, 'rh'), RUSTUP_TOOLCHAIN: '' }, stdio: 'ignore' });
    expect(existsSync(marker), 'RUSTUP_HOME=D').toBe(true);
  });
  test.skipIf(!hasKubectl)('premise: kubectl diff --help names KUBECTL_EXTERNAL_DIFF as the diff command it runs', () => {
    const text = execFileSync('kubectl', ['diff', '--help'], { env: { ...process.env, KUBECONFIG: '/dev/null' } }).toString();
    expect(text).toContain('KUBECTL_EXTERNAL_DIFF environment variable can be used to select your own diff command');
  });
  test.each(MODES)('%s: each is not allowed under the tool\'s own rule', (mode) => {
    for (const command of [
      // rustup (premise above) and cargo (The Cargo Book, "Environment variables" and "Configuration": credential providers, registries).
      'RUSTUP_TOOLCHAIN=/tmp/tc cargo build',
      'RUSTUP_HOME=/tmp/r cargo build',
      'RUSTUP_TOOLCHAIN=./tc rustc x.rs',
      'CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS=./p cargo publish',
      'CARGO_REGISTRIES_MINE_INDEX=https://example.com/index cargo build',
      'CARGO_INSTALL_ROOT=/tmp/r cargo install --path .',
      'RUSTC_WRAPPER=./w cargo build',
      'CARGO_BUILD_RUSTC_WRAPPER=./w cargo build',
      'RUSTFLAGS=-Clinker=./l cargo build',
      // go (`go help environment`).
      'GOROOT=/tmp/g go build',
      'GOPATH=/tmp/g go build',
      'GOMODCACHE=/tmp/g go build',
      'GOCACHE=/tmp/g go build',
      'GOWORK=/tmp/g.work go build',
      'GOPROXY=https://example.com go build',
      'GOSUMDB=off go get x',
      'GONOSUMDB=* go get x',
      'GOINSECURE=* go get x',
      'GOAUTH="command ./a" go get x',
      'CGO_LDFLAGS=-fplugin=./p.so go build',
      'CGO_CFLAGS=-B./bin go build',
      "GOCACHEPROG='./p' go build",
      // kubectl (`kubectl diff --help`, `kubectl edit --help`), helm (`helm help environment`).
      'KUBECTL_EXTERNAL_DIFF=./d kubectl diff -f y.yaml',
      'KUBE_EDITOR=./e kubectl edit pod p',
      'HELM_PLUGINS=./p helm list',
      'HELM_CONFIG_HOME=./c helm list',
      'HELM_DATA_HOME=./d helm list',
      // docker (its CLI's "Environment variables").
      'DOCKER_CONFIG=./d docker ps',
      'DOCKER_HOST=tcp://example.com:2375 docker ps',
      'DOCKER_CONTEXT=other docker ps',
      // gh (`gh help environment`).
      'GH_CONFIG_DIR=./g gh pr list',
      'GH_BROWSER=./b gh browse',
      'BROWSER=./b gh browse',
      'GH_PAGER=./p gh pr list',
      'GH_EDITOR=./e gh pr create',
      'GIT_EDITOR=./e gh pr create',
      'EDITOR=./e gh pr create',
      'export GOPROXY=https://example.com; go build',
      'export GH_PAGER=./p; gh pr list',
    ]) expect(shell(command, mode, ENV_RULES).verdict, command).not.toBe('allow');
  });
  test.each(MODES)('%s: a command in a variable some tool runs meets deny rules', (mode) => {
    for (const command of [
      "KUBECTL_EXTERNAL_DIFF='rm -rf victim' kubectl diff -f y.yaml",
      "KUBE_EDITOR='rm -rf victim' kubectl edit pod p",
      "GH_PAGER='rm -rf victim' gh pr list",
      "GH_BROWSER='rm -rf victim' gh browse",
      "GH_EDITOR='rm -rf victim' gh pr create",
      "GOCACHEPROG='rm -rf victim' go build",
      "CC='rm -rf victim' go build",
    ]) expect(shell(command, mode, ENV_RULES).verdict, command).toBe('deny');
  });
});

describe('M1. make\'s program variables (CC, CXX, AR, RM…) run their value', () => {
  test.skipIf(!hasMake)('premise: GNU make runs CC for its implicit rule, from the command line and from the environment', () => {
    const dir = join(T, 'm1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'x.c'), 'int x;\n');
    writeFileSync(join(dir, 'cc.sh'), `#!/bin/sh\ntouch ${join(dir, 'CC-RAN')}\n`, { mode: 0o755 });
    const env = { ...process.env, SHELL: '/bin/sh', MAKEFLAGS: '' };
    execFileSync('make', ['-f', '/dev/null', 'CC=./cc.sh', 'x.o'], { cwd: dir, env, stdio: 'ignore' });
    expect(existsSync(join(dir, 'CC-RAN')), 'make CC=./cc.sh x.o').toBe(true);
    rmSync(join(dir, 'CC-RAN'));
    execFileSync('make', ['-f', '/dev/null', 'x.o'], { cwd: dir, env: { ...env, CC: './cc.sh' }, stdio: 'ignore' });
    expect(existsSync(join(dir, 'CC-RAN')), 'CC=./cc.sh make x.o').toBe(true);
  });
  test.each(MODES)('%s: a command line in a program variable meets deny rules; a path is decided as its own command', (mode) => {
    for (const command of ["make CC='rm -rf victim' x.o", "CC='rm -rf victim' make x.o", "make RM='rm -rf victim' clean", "make 'CXX=rm -rf victim'", "CC='rm -rf victim' ./build.sh", "export CC='rm -rf victim'; make"]) {
      expect(shell(command, mode, ENV_RULES).verdict, command).toBe('deny');
    }
    // A path is decided as that program: bypassPermissions runs a program it can see (as `./cc.sh` alone), no other mode allows it here.
    for (const command of ['make CC=./cc.sh x.o', 'make LD=/tmp/ld', 'CC=./cc go build']) {
      const decision = shell(command, mode, ENV_RULES);
      if (mode === 'bypassPermissions') expect(decision.verdict, command).toBe('allow');
      else expect(decision.verdict, command).not.toBe('allow');
    }
    expect(shell('make CC="$X"', mode, ENV_RULES).verdict).not.toBe('allow');
  });
  test.each(['make', 'make CC=gcc', 'make CC=clang CXX=clang++', 'make CFLAGS=-O2', 'make PREFIX=./stage install', 'make -j4 test'] /* PREFIX=/usr: outside the workspace a write since round 28 (rules28b L2) */)('default, Bash(make:*): %j stays allowed', (command) => {
    const decision = shell(command, 'default', ENV_RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test.each(['CC=gcc make', 'CC=clang make x.o'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', ENV_RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('N1. NODE_OPTIONS and BUN_OPTIONS that load code, before any program that may start node or bun', () => {
  test('premise: NODE_OPTIONS=--require F makes the node an npm script starts run F', () => {
    const dir = join(T, 'n1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'x.js'), `require('fs').writeFileSync(${JSON.stringify(join(dir, 'PRE'))}, '');\n`);
    writeFileSync(join(dir, 'y.js'), '\n');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'n1', version: '1.0.0', scripts: { test: 'node y.js' } }));
    execFileSync('npm', ['test'], { cwd: dir, env: { ...process.env, SHELL: '/bin/sh', NODE_OPTIONS: `--require ${join(dir, 'x.js')}`, npm_config_update_notifier: 'false' }, stdio: 'ignore' });
    expect(existsSync(join(dir, 'PRE'))).toBe(true);
  });
  test.skipIf(!hasBun)('premise: BUN_OPTIONS=--preload F makes bun load F', () => {
    const { ran, run, env } = bunProject('n1b');
    env.BUN_OPTIONS = '--preload ./x.js';
    run(['y.js']);
    expect(ran('PRE')).toBe(true);
  });
  const RULES = { allow: ['Bash(npm:*)', 'Bash(bun:*)', 'Bash(vitest:*)', 'Bash(./build.sh:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s: not allowed', (mode) => {
    for (const command of ["NODE_OPTIONS='--require ./x.js' npm test", 'NODE_OPTIONS=--import=./x.mjs ./build.sh', "NODE_OPTIONS='--max-old-space-size=4096 --inspect=0.0.0.0:9229' npm start", 'NODE_OPTIONS=--env-file=notes.env vitest run', 'NODE_OPTIONS="$O" npm test', "BUN_OPTIONS='--preload ./x.js' bun y.js", 'BUN_OPTIONS=-r./x.js bun test', 'export NODE_OPTIONS=--require=./x.js; npm test']) {
      expect(shell(command, mode, RULES).verdict, command).not.toBe('allow');
    }
  });
  test.each(['NODE_OPTIONS=--max-old-space-size=4096 npm run build', "NODE_OPTIONS='--max-old-space-size=4096 --enable-source-maps' vitest run", 'NODE_OPTIONS=--openssl-legacy-provider npm start', 'BUN_OPTIONS=--smol bun run build', 'NODE_OPTIONS=--require=./x.js ls'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

const hasLess = runs('less', ['--version']);

describe('L1. less runs the LESSOPEN of the lesskey file its environment names', () => {
  test.skipIf(!hasLess)('premise: less (590) runs `#env LESSOPEN=|CMD` from LESSKEYIN=F, $XDG_CONFIG_HOME/lesskey and $HOME/.lesskey', () => {
    const dir = join(T, 'l1');
    mkdirSync(join(dir, 'h'), { recursive: true });
    mkdirSync(join(dir, 'x'), { recursive: true });
    const marker = join(dir, 'LESS-RAN');
    const lesskey = `#env\nLESSOPEN=|touch ${marker}; cat %s\n`;
    writeFileSync(join(dir, 'notes.txt'), lesskey);
    writeFileSync(join(dir, 'h', '.lesskey'), lesskey);
    writeFileSync(join(dir, 'x', 'lesskey'), lesskey);
    writeFileSync(join(dir, 'f.txt'), 'hi\n');
    const base = { ...process.env, HOME: join(dir, 'empty'), TERM: 'dumb', SHELL: '/bin/sh', LESSOPEN: '', LESSKEYIN: '', XDG_CONFIG_HOME: join(dir, 'empty') };
    for (const extra of [{ LESSKEYIN: join(dir, 'notes.txt') }, { XDG_CONFIG_HOME: join(dir, 'x') }, { HOME: join(dir, 'h') }]) {
      rmSync(marker, { force: true });
      spawnSync('less', ['-F', 'f.txt'], { cwd: dir, env: { ...base, ...extra }, input: '', timeout: 30_000 });
      expect(existsSync(marker), JSON.stringify(extra)).toBe(true);
    }
  });
  test.each(MODES)('%s: not allowed under Bash(less:*), nor before a script', (mode) => {
    for (const command of ['HOME=/tmp/d less f.txt', 'XDG_CONFIG_HOME=/tmp/x less f.txt', 'LESSKEYIN=notes.txt less f.txt', 'LESSKEY=k.bin less f.txt', 'LESSKEYIN=notes.txt ./build.sh']) {
      expect(shell(command, mode, { allow: ['Bash(less:*)', 'Bash(./build.sh:*)'], deny: ['Bash(rm *)'] }).verdict, command).not.toBe('allow');
    }
  });
  test.each(['less f.txt', 'HOME=/dev/null less f.txt'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', { deny: ['Bash(rm *)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

const hasCurl = runs('curl', ['--version']);

describe('C1. curl and wget write where the startup file their environment names says', () => {
  test.skipIf(!hasCurl)('premise: curl (7.88) writes `output = F` of $HOME/.curlrc, $XDG_CONFIG_HOME/.curlrc and $CURL_HOME/.curlrc', () => {
    const dir = join(T, 'c1');
    mkdirSync(join(dir, 'h'), { recursive: true });
    const wrote = join(dir, 'WROTE');
    writeFileSync(join(dir, 'h', '.curlrc'), `output = "${wrote}"\n`);
    writeFileSync(join(dir, 'src.txt'), 'hi\n');
    const base = { ...process.env, HOME: join(dir, 'empty'), XDG_CONFIG_HOME: join(dir, 'empty'), CURL_HOME: '' };
    for (const extra of [{ HOME: join(dir, 'h') }, { XDG_CONFIG_HOME: join(dir, 'h') }, { CURL_HOME: join(dir, 'h') }]) {
      rmSync(wrote, { force: true });
      spawnSync('curl', ['-s', `file://${join(dir, 'src.txt')}`], { cwd: dir, env: { ...base, ...extra }, input: '', timeout: 30_000 });
      expect(existsSync(wrote), JSON.stringify(extra)).toBe(true);
    }
  });
  test.each(MODES)('%s: not allowed under Bash(curl:*) / Bash(wget:*)', (mode) => {
    for (const command of ['HOME=/tmp/d curl -s https://example.com', 'CURL_HOME=/tmp/d curl -s https://example.com', 'XDG_CONFIG_HOME=/tmp/d curl https://example.com', 'WGETRC=/tmp/w wget https://example.com', 'HOME=/tmp/d wget https://example.com', 'CURL_HOME=/tmp/d ./build.sh']) {
      expect(shell(command, mode, { allow: ['Bash(curl:*)', 'Bash(wget:*)', 'Bash(./build.sh:*)'], deny: ['Edit(~/.ssh/**)'] }).verdict, command).not.toBe('allow');
    }
  });
  test.each(['curl -s https://example.com', 'HOME=/dev/null curl -s https://example.com'])('bypassPermissions with deny rules: %j stays allowed', (command) => {
    const decision = shell(command, 'bypassPermissions', { deny: ['Edit(~/.ssh/**)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});
