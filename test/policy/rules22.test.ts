import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { assessRisk } from '../../src/latch/risk.js';
import { GIT_LATER_COMMANDS } from '../../src/programs.js';
import type { DefaultMode } from '../../src/policy/types.js';
import { commandWorkspace, decideInWorkspace, decideShell, MODES } from '../helpers/policy.js';

/**
 * Round 22 (rules22): what the round 21 late review (review-late21 "Notes") and review-bypass21 left low.
 *
 *   N1: npm reads its options wherever they stand before `--` (nopt reads the whole line), not only
 *       before the command word: `npm run --cache D deploy` runs deploy, `npm pkg --json true set
 *       scripts.t=CMD` sets the script.
 *   N2: the git commands newer than git 2.39 (`replay`) are unknown words to an older git, which
 *       help.autocorrect turns into another command (`replay` ran `replace`).
 *   N3: `git --exec-path /tmp/x status` prints a path and runs nothing: no "not one of git's commands" ask.
 *   N4: the risk shown for `git psuh` (it may push) and `git -C dir push` was "low".
 *   N5: `GIT_CONFIG_GLOBAL=F git status` runs the code F names, as `git -c include.path=F` does (review-bypass21 B2).
 *   N6: a multi-call coreutils' `--coreutils-prog=rm` is rm.
 *   N7: pnpm, yarn and bun read options between `run` and the script's name as theirs (N1's family).
 */

let T = '';
let W = '';
let home = '';

beforeAll(async () => {
  ({ root: T, work: W, home } = await commandWorkspace('rules22-'));
  if (hasGit) execFileSync('git', ['init', '-q', '-b', 'main', W]);
});

function shell(command: string, mode: DefaultMode, rules: { allow?: string[]; ask?: string[]; deny?: string[] }) {
  return decideInWorkspace(command, mode, rules, W, home);
}

const hasNpm = ((): boolean => {
  try {
    execFileSync('npm', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('N1. npm reads an option after the command word as it reads one before it', () => {
  test.skipIf(!hasNpm)('premise: npm run --cache D deploy runs deploy; npm pkg --regis URL set scripts.u=CMD writes the script', () => {
    const dir = join(T, 'n1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'n1', version: '1.0.0', scripts: { deploy: 'touch deployed' } }));
    const env = { ...process.env, npm_config_update_notifier: 'false' };
    execFileSync('npm', ['run', '--cache', join(T, 'c'), 'deploy'], { cwd: dir, env, stdio: 'ignore' });
    expect(readFileSync(join(dir, 'deployed'), 'utf8')).toBe('');
    execFileSync('npm', ['pkg', '--regis', 'http://127.0.0.1:9', 'set', 'scripts.u=touch u-ran'], { cwd: dir, env, stdio: 'ignore' });
    expect((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.u).toBe('touch u-ran');
  });
  const RULES = { allow: ['Bash(npm:*)'], deny: ['Bash(npm run deploy *)'] };
  test.each(MODES)('%s: deny Bash(npm run deploy *) meets npm run --cache D deploy, npm run -C D deploy, npm rum --otp 1 deploy', (mode) => {
    for (const command of ['npm run --cache /tmp/c deploy', 'npm run -C /tmp/p deploy', 'npm rum --otp 1 deploy', 'npm run --tag x deploy --prod']) {
      const decision = shell(command, mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, `${command}: ${decision.reason}`).toEqual({ verdict: 'deny', rule: 'Bash(npm run deploy *)' });
    }
  });
  test.each([
    'npm pkg --json true set scripts.test="rm -rf victim"',
    'npm pkg --regis http://r set scripts.test="rm -rf victim"',
    'npm config --json true set script-shell /tmp/e.sh',
    'npm run --foo x deploy',
  ])('default, Bash(npm:*): %j is not allowed (nopt may read the words otherwise)', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(npm:*)'] });
    expect(decision.verdict, decision.reason).toBe('ask');
  });
  test.each(['npm run test', 'npm run build --silent', 'npm i -D vitest', 'npm ls --depth 0', 'npm version patch -m "v%s"', 'npm test -- --coverage x'])('default, Bash(npm:*): everyday %j stays allowed', (command) => {
    const decision = shell(command, 'default', { allow: ['Bash(npm:*)'], deny: ['Bash(npm run deploy *)'] });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

const hasGit = ((): boolean => {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const gitVersion = hasGit ? execFileSync('git', ['--version']).toString().trim() : '';
const GIT_RULES = { allow: ['Bash(git:*)'], ask: ['Bash(git push *)'], deny: ['Bash(git replace *)'] };

describe('N2. a git command newer than git 2.39 is an unknown word to an older git', () => {
  test.skipIf(gitVersion !== 'git version 2.39.5')('premise: git 2.39.5 lists none of them', () => {
    const listed = execFileSync('git', ['--list-cmds=main']).toString().split('\n');
    for (const word of GIT_LATER_COMMANDS) expect(listed, word).not.toContain(word);
  });
  test.skipIf(!hasGit)('premise: git 2.39 autocorrect says it continues with replace', () => {
    let text = '';
    try {
      execFileSync('git', ['-c', 'help.autocorrect=immediate', 'replay'], { cwd: T, stdio: 'pipe' });
    } catch (error) {
      text = String((error as { stderr: Buffer }).stderr);
    }
    if (gitVersion === 'git version 2.39.5') expect(text).toContain("you meant 'replace'");
  });
  test.each(MODES)('%s: git replay (and refs, repo) asks or is denied under git rules, naming the rule', (mode) => {
    for (const command of ['git replay --onto main topic', 'git refs migrate', 'git repo info']) {
      const decision = shell(command, mode, GIT_RULES);
      expect(decision.verdict, `${command}: ${decision.reason}`).not.toBe('allow');
      if (mode !== 'dontAsk' && mode !== 'plan') expect(decision.reason, command).toContain('newer than 2.39');
    }
  });
  test('an allow rule naming the word itself still says what it is (L4): Bash(git replay *)', () => {
    // The config outside the workspace: an unknown git word may rewrite the whole tree, config included.
    const decision = decideShell('git replay --onto main topic', { ...GIT_RULES, allow: ['Bash(git replay *)'], mode: 'default', workspace: [W], cwd: W, home, configPath: join(home, 'mcp-latch.json') });
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

describe('N3. git --exec-path, --html-path, --version, --help run no command word', () => {
  test.skipIf(!hasGit)('premise: git --exec-path /tmp/x status prints the exec path and exits 0', () => {
    expect(execFileSync('git', ['--exec-path', '/tmp/x', 'status'], { cwd: T }).toString().trim()).toBe(execFileSync('git', ['--exec-path']).toString().trim());
  });
  test.each(['git --exec-path /tmp/x status', 'git --html-path psuh', 'git --version psuh', 'git --help psuh'])('default: %j is not asked as an unknown git word', (command) => {
    const decision = shell(command, 'default', GIT_RULES);
    expect(decision.reason).not.toContain("not one of git's commands");
  });
  test('git -C d psuh and git --exec-path=/tmp/x psuh still ask', () => {
    for (const command of ['git -C d psuh', 'git --exec-path=/tmp/x psuh']) expect(shell(command, 'bypassPermissions', GIT_RULES).verdict, command).not.toBe('allow');
  });
});

describe('N4. the risk shown for a git word that may be any command', () => {
  const risk = (command: string) => assessRisk('run_command', shell(command, 'default', GIT_RULES));
  test.each(['git psuh origin main', 'git lg', 'git replay x', 'git -C sub push'])('%j is not low', (command) => {
    expect(risk(command).level).not.toBe('low');
  });
  test('git status stays low', () => {
    expect(risk('git status').level).toBe('low');
  });
});

describe('N5. git pointed at another configuration file by the environment runs its code', () => {
  test.skipIf(!hasGit)('premise: GIT_CONFIG_GLOBAL=F git status runs F\'s core.fsmonitor', () => {
    const repo = join(T, 'n5');
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(T, 'team.cfg'), `[core]\n\tfsmonitor = touch ${join(T, 'n5-ran')}; false\n`);
    execFileSync('git', ['status'], { cwd: repo, env: { ...process.env, GIT_CONFIG_GLOBAL: join(T, 'team.cfg') }, stdio: 'ignore' });
    expect(existsSync(join(T, 'n5-ran'))).toBe(true);
  });
  const RULES = { deny: ['Bash(rm *)'] };
  test.each([
    'GIT_CONFIG_GLOBAL=team.cfg git status',
    'env GIT_CONFIG_GLOBAL=team.cfg git status',
    'GIT_CONFIG_SYSTEM=team.cfg git log',
    'GIT_CONFIG=team.cfg git status',
    'HOME=/tmp/h git status',
    'XDG_CONFIG_HOME=/tmp/x git status',
    'HOME=/tmp/h npm run build',
    'HOME=/tmp/h yarn build',
  ])('bypassPermissions with a deny rule: %j asks (interpreter)', (command) => {
    const decision = shell(command, 'bypassPermissions', RULES);
    expect({ verdict: decision.verdict, reason: decision.reason }).toEqual({ verdict: 'ask', reason: expect.stringContaining('interpreter') as string });
  });
  test('GIT_CONFIG_GLOBAL=/dev/null git status (no config) stays allowed in bypassPermissions', () => {
    expect(shell('GIT_CONFIG_GLOBAL=/dev/null git status', 'bypassPermissions', RULES).verdict).toBe('allow');
  });
});

describe('N6. a multi-call coreutils runs the program its option names', () => {
  test.each(MODES)('%s: deny Bash(rm *) meets coreutils --coreutils-prog=rm -rf x and coreutils rm -rf x', (mode) => {
    for (const command of ['coreutils --coreutils-prog=rm -rf x', 'coreutils --coreutils-prog-shebang=rm script -rf x', 'coreutils rm -rf x']) {
      const decision = shell(command, mode, { deny: ['Bash(rm *)'] });
      expect({ verdict: decision.verdict, rule: decision.rule }, `${command}: ${decision.reason}`).toEqual({ verdict: 'deny', rule: 'Bash(rm *)' });
    }
  });
  test('bypassPermissions with a deny rule: coreutils --coreutils-prog=shred x asks (its paths are not read here)', () => {
    expect(shell('coreutils --coreutils-prog=shred x', 'bypassPermissions', { deny: ['Edit(x)'] }).verdict).toBe('ask');
  });
});

describe('N7. pnpm, yarn and bun: an option between run and the script name', () => {
  // pnpm 9.15.9 on PATH, or named by PNPM=: `pnpm run --reporter silent deploy` ran deploy. (yarn
  // 1.22.22 refused `yarn run --mutex file deploy`, "argument missing": its rows only add readings.)
  const pnpm = process.env.PNPM ?? 'pnpm';
  const hasPnpm = ((): boolean => {
    try {
      execFileSync(pnpm, ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  test.skipIf(!hasPnpm)('premise: pnpm run --reporter silent deploy and pnpm run --filter . deploy run deploy', () => {
    const dir = join(T, 'n7');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'n7', version: '1.0.0', scripts: { deploy: 'touch deployed' } }));
    execFileSync(pnpm, ['run', '--reporter', 'silent', 'deploy'], { cwd: dir, stdio: 'ignore' });
    expect(existsSync(join(dir, 'deployed'))).toBe(true);
  });
  const RULES = { allow: ['Bash(pnpm:*)', 'Bash(yarn:*)', 'Bash(bun:*)'], deny: ['Bash(pnpm run deploy *)', 'Bash(yarn run deploy *)', 'Bash(bun run deploy *)'] };
  test.each(MODES)('%s: the deny rule meets the script past the options', (mode) => {
    for (const command of ['pnpm run --filter app deploy', 'pnpm run --reporter silent deploy', 'pnpm run -r deploy', 'pnpm run-script --foo x deploy', 'yarn run --mutex file deploy', 'yarn run --cwd /tmp deploy --prod', 'yarn run --foo x deploy', 'bun run --cwd /tmp deploy', 'bun run --bun deploy']) {
      const decision = shell(command, mode, RULES);
      expect({ verdict: decision.verdict, rule: decision.rule }, `${command}: ${decision.reason}`).toMatchObject({ verdict: 'deny' });
    }
  });
  test.each(['pnpm run --silent build', 'yarn run --silent build', 'bun run build'])('default: %j stays allowed', (command) => {
    expect(shell(command, 'default', RULES).verdict).toBe('allow');
  });
});
