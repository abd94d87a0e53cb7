import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Decision, DefaultMode } from '../../src/policy/types.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { decideFs, decideShell } from '../helpers/policy.js';
import { npmCommand } from '../../src/subjects/shell/npm-commands.js';
import { GIT_COMMANDS } from '../../src/programs.js';

/**
 * Round 21 review (review-bypass21): the program a command runs is not always the word written.
 * Each family is decided end to end (inspect → decide, as the gateway does for mcp-server-commands'
 * run_command), and where the premise is a program's behaviour it is run with the real program
 * first (git 2.39, npm 11), so the test fails if the premise stops holding rather than passing on
 * a guess. docs/threat-model.md, "Round 21: the command a word names".
 *
 *   B3: git-archive(1) tar.<format>.command is a shell command git runs (`-c`, `git config`, environment).
 *   B4: npm reads its command word through aliases and abbreviations (`npm exe` is `npm exec`).
 *   B1: git runs a word that is not one of its commands as an alias or the command help.autocorrect picks.
 *   B5: git's other commands that push (send-pack, http-push, subtree push) meet rules on `git push`.
 *   B4's family: cargo's built-in aliases (`cargo r` is run) and rustup's `+toolchain` word.
 *   B6: `npm init <initializer>`/`npm create` and `yarn|pnpm|bun create` fetch and run a package, as `npm exec` does.
 *   Client files: the MCP clients' user files below every application data folder clients/discover.ts reads.
 *   B8: a rule names its path whatever characters the path holds (the built-in ones, home, roots).
 *   B4's family: docker's spellings of one command (`docker container exec` is `docker exec`).
 *   B7: pnpm runs a first word that is not one of its commands as a script or that program.
 */

const MODES: DefaultMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'];

let T = '';
let W = '';
let home = '';

const fill = (text: string): string => text.replaceAll('<W>', W).replaceAll('<T>', T).replaceAll('<H>', home);

type Rules = { allow?: string[]; ask?: string[]; deny?: string[] };

function shell(command: string, mode: DefaultMode, rules: Rules): Decision {
  return decideShell(fill(command), {
    allow: (rules.allow ?? []).map(fill),
    ask: (rules.ask ?? []).map(fill),
    deny: (rules.deny ?? []).map(fill),
    mode,
    workspace: [W],
    cwd: W,
    home,
    configPath: join(W, 'mcp-latch.json'),
  });
}

/** The real program, run in W with a clean git environment. */
function run(program: string, args: string[], cwd = W): string {
  return execFileSync(program, args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1' }, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}

beforeAll(async () => {
  await initShellParser();
  T = realpathSync(tempDir('bypass21-'));
  home = join(T, 'home');
  W = join(T, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(W, { recursive: true });
  writeFileSync(join(W, 'README'), 'hi\n');
  writeFileSync(join(W, 'mcp-latch.json'), '{}');
  run('git', ['init', '-q', '-b', 'main', '.']);
  run('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', 'add', 'README']);
  run('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '-m', 'init']);
});

describe('B3. tar.<format>.command is a command git archive runs', () => {
  test('premise: git archive pipes its tar through the command, for --format and for -o x.<format>', () => {
    run('git', ['-c', 'tar.r21.command=touch ran-by-format && cat', 'archive', '--format=r21', 'HEAD']);
    expect(existsSync(join(W, 'ran-by-format'))).toBe(true);
    run('git', ['-c', 'tar.r21.command=touch ran-by-name && cat', 'archive', '-o', join(T, 'out.r21'), 'HEAD']);
    expect(existsSync(join(W, 'ran-by-name'))).toBe(true);
  });

  const cases = [
    "git -c tar.x.command='rm -rf victim' archive --format=x HEAD",
    "git -c tar.tar.xz.command='rm -rf victim' archive -o out.tar.xz HEAD",
    "git -c TAR.X.Command='rm -rf victim' archive --format=x HEAD", // keys are case-insensitive
    "git config tar.x.command 'rm -rf victim'",
    "git config set tar.x.command 'rm -rf victim'",
    `GIT_CONFIG_PARAMETERS="'tar.x.command'='rm -rf victim'" git archive --format=x HEAD`,
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=tar.x.command GIT_CONFIG_VALUE_0='rm -rf victim' git archive --format=x HEAD",
  ];
  for (const mode of MODES) {
    test.each(cases)(`${mode}: %j meets Bash(rm *)`, (command) => {
      const decision = shell(command, mode, { allow: ['Bash(git:*)'], deny: ['Bash(rm *)'] });
      expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'deny', rule: 'Bash(rm *)' });
    });
  }
  test('a value git runs is never allowed by Bash(git:*) alone', () => {
    const decision = shell("git -c tar.x.command='gzip -9' status", 'default', { allow: ['Bash(git:*)'] });
    expect(decision.verdict, decision.reason).toBe('ask');
  });
  test('tar.umask stays a harmless key', () => {
    const decision = shell('git -c tar.umask=022 status', 'default', { allow: ['Bash(git:*)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('B4. npm reads its command word through aliases and abbreviations', () => {
  // The installed npm's own table, when it is the version npm-commands.ts copies.
  const npmRoot = ((): string | null => {
    try {
      return execFileSync('npm', ['root', '-g']).toString().trim();
    } catch {
      return null;
    }
  })();
  const npmVersion = npmRoot && existsSync(join(npmRoot, 'npm', 'package.json')) ? (JSON.parse(readFileSync(join(npmRoot, 'npm', 'package.json'), 'utf8')) as { version: string }).version : null;

  test.skipIf(npmVersion !== '11.19.1')('npmCommand reads every prefix of every name as npm 11.19.1 deref does', () => {
    const { deref, commands, aliases } = createRequire(import.meta.url)(join(npmRoot!, 'npm', 'lib', 'utils', 'cmd-list.js')) as { deref: (c: string) => string | undefined; commands: string[]; aliases: Record<string, string> };
    const words = new Set(['runScript', 'installTest', 'EXec', 'Run', 'ex', 'sta']);
    for (const name of [...commands, ...Object.keys(aliases)]) for (let i = 1; i <= name.length; i++) words.add(name.slice(0, i)).add(`${name.slice(0, i)}q`);
    const differ = [...words].filter((word) => (deref(word) ?? null) !== npmCommand(word));
    expect(differ).toEqual([]);
  });

  test('premise: `npm exe` runs its command and `npm rum` a script', () => {
    const P = join(T, 'npm-project');
    mkdirSync(P, { recursive: true });
    writeFileSync(join(P, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { deploy: 'node -e "require(\'fs\').writeFileSync(\'deployed\', \'\')"' } }));
    run('npm', ['exe', '--', 'node', '-e', "require('fs').writeFileSync('ran-by-exe', '')"], P);
    expect(existsSync(join(P, 'ran-by-exe'))).toBe(true);
    run('npm', ['rum', 'deploy'], P);
    expect(existsSync(join(P, 'deployed'))).toBe(true);
  });

  const RULES = { allow: ['Bash(npm:*)'], ask: ['Bash(npm publish *)'], deny: ['Bash(rm *)', 'Bash(npm run deploy *)', 'Bash(npm unpublish *)'] };
  const denied: Array<[string, string]> = [
    ['npm exe -- rm -rf victim', 'Bash(rm *)'],
    ['npm --loglevel silent exe -- rm -rf victim', 'Bash(rm *)'],
    ['npm rum deploy', 'Bash(npm run deploy *)'],
    ['npm urn deploy', 'Bash(npm run deploy *)'],
    ['npm run-script deploy', 'Bash(npm run deploy *)'],
    ['npm runScript deploy', 'Bash(npm run deploy *)'],
    ['npm unpub pkg', 'Bash(npm unpublish *)'],
    ['npm unpublis pkg', 'Bash(npm unpublish *)'],
    ['npm explor pkg -- rm -rf victim', 'Bash(rm *)'],
    ["npm pk set scripts.x='rm -rf victim'", 'Bash(rm *)'],
  ];
  for (const mode of MODES) {
    test.each(denied)(`${mode}: %j → deny %s`, (command, rule) => {
      const decision = shell(command, mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'deny', rule });
    });
    test.each(['npm pub', 'npm publi --tag next', 'npm --loglevel silent pub'])(`${mode}: %j meets the ask rule on npm publish`, (command) => {
      const decision = shell(command, mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'ask', rule: 'Bash(npm publish *)' });
    });
  }
  // What runs code npm names is read as in its full spelling.
  test.each(['npm exe cowsay', 'npm confi set script-shell ./e.sh', 'npm c set script-shell ./e.sh', 'npm tst --script-sh=./e.sh'])('default: %j is never allowed by Bash(npm:*)', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(npm:*)'] });
    expect(decision.verdict, decision.reason).not.toBe('allow');
  });
  // An allow rule meets the command npm runs, whatever its spelling; the person is shown the words written.
  test.each(['npm rum test', 'npm run-script test', 'npm urn test'])('default: %j is allowed by Bash(npm run test)', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(npm run test)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
    expect(decision.reason).toContain(command);
  });
});

describe('B1. a word that is not one of git\'s commands may be any of them', () => {
  test('premise: with help.autocorrect, git pushes for `psuh` and cleans for `cleab`; an alias runs what it names', () => {
    const remote = join(T, 'remote.git');
    run('git', ['init', '-q', '--bare', remote]);
    const said = execFileSync('git', ['-c', 'help.autocorrect=immediate', 'psuh', remote, 'main'], { cwd: W, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    void said;
    expect(run('git', ['rev-parse', 'main'], remote).trim()).toBe(run('git', ['rev-parse', 'HEAD']).trim());
    writeFileSync(join(W, 'scratch.txt'), 'x');
    run('git', ['-c', 'help.autocorrect=immediate', 'cleab', '-f', 'scratch.txt']);
    expect(existsSync(join(W, 'scratch.txt'))).toBe(false);
    writeFileSync(join(W, 'scratch.txt'), 'x');
    run('git', ['-c', 'alias.sweep=clean -f', 'sweep', 'scratch.txt']);
    expect(existsSync(join(W, 'scratch.txt'))).toBe(false);
  });

  test('premise: GIT_COMMANDS holds every command of the installed git', () => {
    const listed = run('git', ['--list-cmds=main']).split('\n').filter((name) => name !== '');
    expect(listed.filter((name) => !GIT_COMMANDS.has(name))).toEqual([]);
  });

  const RULES = { allow: ['Bash(git:*)'], ask: ['Bash(git push *)'], deny: ['Bash(git clean *)'] };
  const cases = [
    'git -c help.autocorrect=immediate psuh origin main',
    'git psuh origin main',
    'git p origin main', // an alias of the user's
    'git -C . psuh',
    'git --no-pager cleab -fdx',
    'env git cleab -fdx',
    'git -c help.autocorrect=1 reest --hard',
    'git lfs push origin main', // git-lfs may not be there; then help.autocorrect picks
  ];
  for (const mode of MODES) {
    test.each(cases)(`${mode}: %j asks, naming a rule on git`, (command) => {
      const decision = shell(command, mode, RULES);
      expect(decision.verdict, decision.reason).toBe('ask');
      expect(['Bash(git clean *)', 'Bash(git push *)']).toContain(decision.rule);
      expect(decision.reason).toContain("is not one of git's commands");
    });
  }
  test.each(['git -c help.autocorrect=immediate psuh origin main', 'git sweep'])('an ask rule alone on git counts: %j', (command) => {
    const decision = shell(command, 'bypassPermissions', { ask: ['Bash(git push --force *)'] });
    expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'ask', rule: 'Bash(git push --force *)' });
  });
  // git's own commands are read as before; with no rule naming git, an alias is as any git command.
  test.each(['git status', 'git log -1', 'git -c color.ui=always diff', 'git --version', 'git help push', 'git stage README'])('default: %j is allowed by Bash(git:*) beside rules on git', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  // (An alias may still rewrite any tracked file: that is decided as before, docs/threat-model.md#git-rewrites-tracked-files.)
  test.each(['git lg', 'git lfs pull'])('bypassPermissions: %j is not asked about as another command when no rule names git', (command) => {
    const decision = shell(command, 'bypassPermissions', { deny: ['Bash(rm *)'] });
    expect(decision.reason).not.toContain("is not one of git's commands");
  });
});

describe('B5. git\'s other commands that push meet rules on git push', () => {
  test('premise: git send-pack updates the remote as git push does', () => {
    const remote = join(T, 'send-pack.git');
    run('git', ['init', '-q', '--bare', remote]);
    run('git', ['send-pack', remote, 'main']);
    expect(run('git', ['rev-parse', 'main'], remote).trim()).toBe(run('git', ['rev-parse', 'HEAD']).trim());
  });
  const RULES = { allow: ['Bash(git:*)'], ask: ['Bash(git push *)'], deny: ['Bash(git push --force *)'] };
  for (const mode of MODES) {
    test.each(['git send-pack ../r main', 'git -C . send-pack ../r main', 'git http-push https://h/r main', 'git subtree push -P lib r main', 'git subtree -P lib push r main'])(`${mode}: %j asks as a push`, (command) => {
      const decision = shell(command, mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'ask', rule: 'Bash(git push *)' });
    });
    test.each(['git send-pack --force ../r main', 'git subtree push -P lib r +main --force'])(`${mode}: %j is denied as a forced push`, (command) => {
      const decision = shell(command, mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'deny', rule: 'Bash(git push --force *)' });
    });
  }
  test.each(['git subtree split -P lib', 'git subtree add -P lib r main --squash', 'git status'])('default: %j is not a push', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.reason).not.toContain('Bash(git push');
  });
});

describe('B4\'s family: cargo reads its built-in aliases and rustup\'s +toolchain', () => {
  const RULES = { deny: ['Bash(cargo run *)', 'Bash(cargo remove *)', 'Bash(rm *)'] };
  for (const mode of MODES) {
    test.each([
      ['cargo r', 'Bash(cargo run *)'],
      ['cargo r --bin x', 'Bash(cargo run *)'],
      ['cargo +nightly run', 'Bash(cargo run *)'],
      ['cargo +nightly r --release', 'Bash(cargo run *)'],
      ['cargo -Z unstable-options r', 'Bash(cargo run *)'],
      ['cargo rm serde', 'Bash(cargo remove *)'],
    ])(`${mode}: %j → deny %s`, (command, rule) => {
      const decision = shell(command, mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'deny', rule });
    });
  }
  test.each(['cargo b', 'cargo t', 'cargo +stable build'])('bypassPermissions: %j meets no rule', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('B6. npm init <initializer> and create fetch and run a package, as npm exec does', () => {
  // npm-init(1): "initializer in this case is an npm package named create-<initializer>, which will be
  // installed by npm-exec, and then have its main bin executed".
  const ALLOW = { allow: ['Bash(npm:*)', 'Bash(yarn:*)', 'Bash(pnpm:*)', 'Bash(bun:*)'] };
  test.each(['npm exec cowsay', 'npm init vite', 'npm create vite', 'npm innit vite', 'npm init @scope', 'npm --loglevel silent init vite', 'yarn create vite', 'pnpm create vite', 'bun create vite', 'npm init "$x"'])('default: %j is never allowed by the runner\'s rule', (command) => {
    const decision = shell(command, 'default', ALLOW);
    expect(decision.verdict, decision.reason).toBe('ask');
    expect(decision.reason).toContain('executor');
  });
  test.each(['npm init', 'npm init -y', 'npm init --yes'])('default: %j writes package.json and stays allowed', (command) => {
    const decision = shell(command, 'default', ALLOW);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('the MCP clients\' user files ask below every application data folder the clients use', () => {
  const write = (path: string) => decideFs('write_file', { path, content: '{"mcpServers":{"x":{"command":"sh"}}}' }, [W], { mode: 'bypassPermissions', home, deny: ['Bash(rm *)'], configPath: join(W, 'mcp-latch.json') });
  test.each([
    '<H>/Library/Application Support/Code/User/mcp.json', // VS Code on macOS
    '<H>/Library/Application Support/Code/User/settings.json',
    '<H>/AppData/Roaming/Code/User/mcp.json', // VS Code on Windows (%APPDATA%'s default)
    '<H>/AppData/Roaming/Claude/claude_desktop_config.json',
    '<H>/.config/Code/User/mcp.json',
    '<H>/.config/Claude/claude_desktop_config.json',
    '<H>/Library/Application Support/Claude/claude_desktop_config.json',
  ])('bypassPermissions: writing %s asks', (path) => {
    const decision = write(fill(path));
    expect({ verdict: decision.verdict, rule: decision.rule?.startsWith('built-in: an MCP client starts the servers') }, decision.reason).toEqual({ verdict: 'ask', rule: true });
  });
  test('a $XDG_CONFIG_HOME of its own is where the clients are looked for, and asked about', () => {
    const before = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = join(T, 'xdg-own');
    try {
      const decision = write(join(T, 'xdg-own', 'Code', 'User', 'mcp.json'));
      expect(decision.verdict, decision.reason).toBe('ask');
    } finally {
      if (before === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = before;
    }
  });
  test('another file there is not', () => {
    expect(write(fill('<H>/Library/Application Support/Code/User/keybindings.json')).verdict).toBe('allow');
  });
});

describe('B8. the gateway\'s own files, the home and the roots are named whatever characters their names hold', () => {
  // Every character a POSIX name may hold that a glob reads otherwise (minimatch: classes, braces, `*`, `?`,
  // `!`; extglob's parentheses, though rules are compiled without extglobs). A backslash is not among
  // them: paths are matched in forward-slash form (decide.ts matchForm), so `a\b` is read as `a/b`.
  const NAMES = ['proj (copy)', 'app[v2]', 'a{b,c}', 'x!y', 'star*', 'q?', '(x)', '[1]'];
  test.each(NAMES)('bypassPermissions: the config, its lock file and audit in %j are not written', (name) => {
    const dir = join(T, 'cfg', name);
    mkdirSync(dir, { recursive: true });
    const config = join(dir, 'mcp-latch.json');
    writeFileSync(config, '{}');
    for (const file of [config, join(dir, 'mcp-latch.lock.json'), join(dir, 'mcp-latch-init.json'), join(dir, '.mcp-latch-pages.json')]) {
      const decision = decideFs('write_file', { path: file, content: '{}' }, [dir], { mode: 'bypassPermissions', home, configPath: config });
      expect({ verdict: decision.verdict, builtIn: decision.rule?.startsWith('built-in protection of') }, `${file}: ${decision.reason}`).toEqual({ verdict: 'deny', builtIn: true });
    }
    // What the protection names is that file: a sibling is written.
    expect(decideFs('write_file', { path: join(dir, 'notes.txt'), content: 'x' }, [dir], { mode: 'bypassPermissions', home, configPath: config }).verdict).toBe('allow');
  });
  test.each(NAMES)('every mode: Read(./.env) in a workspace %j and Read(~/.ssh/**) in a home %j deny', (name) => {
    const root = join(T, 'roots', name);
    const own = join(T, 'homes', name);
    mkdirSync(root, { recursive: true });
    mkdirSync(join(own, '.ssh'), { recursive: true });
    for (const mode of MODES) {
      const env = decideFs('read_text_file', { path: join(root, '.env') }, [root], { mode, home: own, deny: ['Read(./.env)', 'Read(~/.ssh/**)'], configPath: join(root, 'mcp-latch.json') });
      expect({ verdict: env.verdict, rule: env.rule }, env.reason).toEqual({ verdict: 'deny', rule: 'Read(./.env)' });
      const key = decideFs('read_text_file', { path: join(own, '.ssh', 'id_rsa') }, [root], { mode, home: own, deny: ['Read(./.env)', 'Read(~/.ssh/**)'], configPath: join(root, 'mcp-latch.json') });
      expect({ verdict: key.verdict, rule: key.rule }, key.reason).toEqual({ verdict: 'deny', rule: 'Read(~/.ssh/**)' });
    }
  });
  // Allow rules anchored there hold too (before, they fell to the mode: asked, never allowed wrongly).
  test('default: Read(./**) allows a read in a workspace named app[v2]', () => {
    const root = join(T, 'roots', 'app[v2]');
    mkdirSync(root, { recursive: true });
    const decision = decideFs('read_text_file', { path: join(root, 'a.txt') }, [root], { mode: 'default', home, allow: ['Read(./**)'], configPath: join(root, 'mcp-latch.json') });
    expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'allow', rule: 'Read(./**)' });
  });
});

describe('B4\'s family: docker\'s spellings of one command meet a rule written in any of them', () => {
  const docker = ((): boolean => {
    try {
      execFileSync('docker', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  // Each command's --help lists its other spellings under "Aliases:" (no daemon needed).
  test.skipIf(!docker).each([
    ['container exec', ['docker container exec', 'docker exec']],
    ['image push', ['docker image push', 'docker push']],
    ['image rm', ['docker image rm', 'docker image remove', 'docker rmi']],
    ['container rm', ['docker container rm', 'docker container remove', 'docker rm']],
    ['container run', ['docker container run', 'docker run']],
    ['image build', ['docker image build', 'docker build', 'docker builder build']],
  ])('premise: docker %s --help names its spellings', (command, spellings) => {
    const help = execFileSync('docker', [...command.split(' '), '--help']).toString();
    const aliases = /Aliases:\s*\n\s*(.+)/.exec(help)?.[1]?.split(', ').map((alias) => alias.trim());
    expect(aliases).toEqual(spellings);
  });
  const RULES = { ask: ['Bash(docker push *)'], deny: ['Bash(docker exec *)', 'Bash(docker container rm *)', 'Bash(docker rmi *)', 'Bash(docker run --privileged *)'] };
  for (const mode of MODES) {
    test.each([
      ['docker container exec web sh', 'Bash(docker exec *)'],
      ['docker --context prod container exec web sh', 'Bash(docker exec *)'],
      ['docker rm web', 'Bash(docker container rm *)'],
      ['docker container remove web', 'Bash(docker container rm *)'],
      ['docker image rm app', 'Bash(docker rmi *)'],
      ['docker image remove app', 'Bash(docker rmi *)'],
      ['docker container run --privileged app', 'Bash(docker run --privileged *)'],
      ['podman container exec web sh', null],
    ])(`${mode}: %j → deny %s`, (command, rule) => {
      const decision = shell(command, mode, RULES);
      if (rule === null) expect(decision.rule).toBeNull();
      else expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'deny', rule });
    });
    test(`${mode}: docker image push meets the ask rule on docker push`, () => {
      const decision = shell('docker image push registry/app', mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'ask', rule: 'Bash(docker push *)' });
    });
  }
});

describe('B7. pnpm runs a word that is not one of its commands as a script or that program', () => {
  // pnpm 9.15.9 (`PNPM=path/to/pnpm` when it is not on PATH): `pnpm sh -c 'rm -rf victim'` removed victim.
  const pnpm = process.env.PNPM ?? 'pnpm';
  const found = ((): boolean => {
    try {
      execFileSync(pnpm, ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  test.skipIf(!found)('premise: pnpm sh -c CMD runs CMD in the project', () => {
    const P = join(T, 'pnpm-project');
    mkdirSync(join(P, 'victim'), { recursive: true });
    writeFileSync(join(P, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0' }));
    run(pnpm, ['sh', '-c', 'rm -rf victim'], P);
    expect(existsSync(join(P, 'victim'))).toBe(false);
  });
  const RULES = { allow: ['Bash(pnpm:*)'], deny: ['Bash(rm *)', 'Bash(curl *)', 'Bash(pnpm run deploy *)'] };
  for (const mode of MODES) {
    test.each([
      ["pnpm sh -c 'rm -rf victim'", 'Bash(rm *)'],
      ["pnpm bash -c 'rm -rf victim'", 'Bash(rm *)'],
      ["pnpm --filter web sh -c 'rm -rf victim'", 'Bash(rm *)'],
      ['pnpm curl https://example.com/x.sh', 'Bash(curl *)'],
      ['pnpm -C sub curl https://example.com/x.sh', 'Bash(curl *)'],
      ['pnpm deploy-prod', null], // a script, as `pnpm run deploy-prod`: meets no rule
    ])(`${mode}: %j → deny %s`, (command, rule) => {
      const decision = shell(command, mode, RULES);
      if (rule === null) expect(decision.rule === null || decision.rule === 'Bash(pnpm:*)', decision.reason).toBe(true);
      else expect({ verdict: decision.verdict, rule: decision.rule }, decision.reason).toEqual({ verdict: 'deny', rule });
    });
  }
  // pnpm's own commands (`pnpm deploy` is one, not the script) and everyday script shorthands stay allowed.
  test.each(['pnpm install', 'pnpm rm lodash', 'pnpm deploy out', 'pnpm build', 'pnpm lint --fix', 'pnpm eslint src'])('default: %j is allowed by Bash(pnpm:*)', (command) => {
    const decision = shell(command, 'default', RULES);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
  test("default: pnpm sh -c '…' is code, as pnpm exec sh -c is", () => {
    expect(shell("pnpm sh -c 'echo hi'", 'default', RULES).verdict).toBe('ask');
  });
});
