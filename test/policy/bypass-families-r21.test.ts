import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Decision, DefaultMode } from '../../src/policy/types.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { decideShell } from '../helpers/policy.js';

/**
 * Round 21 review (review-bypass21): the program a command runs is not always the word written.
 * Each family is decided end to end (inspect → decide, as the gateway does for mcp-server-commands'
 * run_command), and where the premise is a program's behaviour it is run with the real program
 * first (git 2.39, npm 11), so the test fails if the premise stops holding rather than passing on
 * a guess. docs/threat-model.md, "Round 21: the command a word names".
 *
 *   B3: git-archive(1) tar.<format>.command is a shell command git runs (`-c`, `git config`, environment).
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
