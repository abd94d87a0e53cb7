import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, MODES } from '../helpers/policy.js';

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

const runs = (program: string, args: string[]): boolean => {
  try {
    execFileSync(program, args, { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
};
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
    const port = 46000 + (process.pid % 1000);
    const result = spawnSync(BUN, [`--inspect=127.0.0.1:${port}`, 's.js'], { cwd: dir, env, input: '', timeout: 30_000 });
    expect(`${result.stdout}${result.stderr}`).toContain(`ws://127.0.0.1:${port}/`);
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
    const port = 47000 + (process.pid % 1000);
    // (`--inspect-brk` is forwarded the same way, berry's run source; its node waits for a debugger, so it is not run here.)
    const result = spawnSync('node', [BERRY, 'run', `--inspect=127.0.0.1:${port}`, 'bd'], { cwd: dir, env, input: '', timeout: 60_000 });
    expect(`${result.stdout}${result.stderr}`).toContain(`Debugger listening on ws://127.0.0.1:${port}/`);
    // Before `run` berry refuses it ("Invalid option name"); the policy does not allow it either.
    expect(spawnSync('node', [BERRY, `--inspect=127.0.0.1:${port}`, 'bd'], { cwd: dir, env, input: '', timeout: 60_000 }).status).not.toBe(0);
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


