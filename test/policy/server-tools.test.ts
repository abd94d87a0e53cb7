import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Decision, DefaultMode, Verdict } from '../../src/policy/types.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { tempDir } from '../helpers/gateway.js';
import { decideServerTool } from '../helpers/policy.js';

/**
 * The tools of real MCP servers, decided through their built-in profiles (round 14 review of the
 * servers' tools, T4–T7). mcp-server-git and Desktop Commander are not devDependencies (the git
 * server's Python package needs mcp<2), so these are profile-level tests: inspect → decide as the
 * gateway runs them, on a real repository and tree made here. What each tool runs is from the
 * servers' own code: mcp-server-git 0.6.2 server.py, Desktop Commander 0.2.52 search-manager.js.
 */

let project = '';
let home = '';

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd: project, stdio: 'ignore' });
}

beforeAll(async () => {
  await initShellParser();
  project = tempDir('server-tools-');
  home = tempDir('server-tools-home-');
  mkdirSync(join(project, 'conf/secret'), { recursive: true });
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'conf/secret/db.txt'), 'db-password=hunter2\n');
  writeFileSync(join(project, 'conf/app.json'), '{}\n');
  writeFileSync(join(project, 'src/a.ts'), 'export {};\n');
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'one');
  // A branch as a fetched contributor's would be: the secret changed, a client hook planted.
  git('checkout', '-q', '-b', 'evil');
  writeFileSync(join(project, 'conf/secret/db.txt'), 'db-password=attacker\n');
  mkdirSync(join(project, '.claude'));
  writeFileSync(join(project, '.claude/settings.json'), '{"hooks":{}}\n');
  git('add', '.');
  git('commit', '-q', '-m', 'evil');
  git('checkout', '-q', 'main');
  // Changed after the commit, and an untracked, unignored .env.
  writeFileSync(join(project, 'conf/secret/db.txt'), 'db-password=hunter3\n');
  writeFileSync(join(project, '.env'), 'API_KEY=sk-live-123\n');
});

interface Setup {
  deny?: string[];
  allow?: string[];
  mode?: DefaultMode;
}

const SECRETS = ['Read(**/.env)', 'Read(./conf/secret/**)', 'Edit(./conf/secret/**)'];

function expectVerdict(decision: Decision, verdict: Verdict, reason?: RegExp): void {
  expect(decision.verdict, decision.reason).toBe(verdict);
  if (reason) expect(decision.reason).toMatch(reason);
}

describe('mcp-server-git tools print and rewrite what the shell\'s git commands do (round 14 review T4, T9)', () => {
  const GIT = { command: 'uvx', args: ['mcp-server-git'] };
  const call = (tool: string, args: Record<string, unknown>, setup: Setup = {}): Decision =>
    decideServerTool(GIT, tool, { repo_path: project, ...args }, project, { workspace: [project], home, mode: setup.mode ?? 'acceptEdits', deny: setup.deny ?? SECRETS, allow: setup.allow ?? [] });

  const cases: Array<[tool: string, args: Record<string, unknown>, verdict: Verdict, reason: RegExp, setup?: Setup]> = [
    // git diff prints the tracked, changed conf/secret/db.txt (T4).
    ['git_diff_unstaged', { context_lines: 3 }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    ['git_diff_staged', {}, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    ['git_diff', { target: 'evil' }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    // git_show prints the commit's patch: the first commit added conf/secret/db.txt.
    ['git_show', { revision: 'HEAD' }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    // `git add .` stores the untracked .env (then git_diff_staged prints it).
    ['git_add', { files: ['.'] }, 'ask', /\.env.*Read\(\*\*\/\.env\)/],
    ['git_add', { files: ['conf'] }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    ['git_add', { files: ['.env'] }, 'deny', /Read\(\*\*\/\.env\)/],
    // Switching branches rewrites conf/secret/db.txt and plants .claude/settings.json (T9).
    ['git_checkout', { branch_name: 'evil' }, 'ask', /git rewrite of every file under .*Edit\(\.\/conf\/secret\/\*\*\)/],
    ['git_checkout', { branch_name: 'evil' }, 'ask', /git rewrite of every file under .*Edit\(\.\/conf\/secret\/\*\*\)/, { mode: 'bypassPermissions' }],
    // It plants .claude/settings.json: like the shell's `git checkout`, it needs a rule of its own.
    ['git_checkout', { branch_name: 'evil' }, 'ask', /no rule matched srv__git_checkout \(kind all\)/, { deny: [] }],
    ['git_checkout', { branch_name: 'evil' }, 'allow', /allow rule mcp__srv__git_checkout/, { deny: [], allow: ['mcp__srv__git_checkout'] }],
    // Controls: no rule names anything below, nothing changes in the working tree, or nothing is printed.
    ['git_diff_unstaged', {}, 'allow', /read inside the workspace/, { deny: ['Read(**/.npmrc)'] }],
    ['git_add', { files: ['src/a.ts'] }, 'allow', /write inside the workspace/],
    ['git_log', { max_count: 5 }, 'allow', /read inside the workspace/],
    ['git_status', {}, 'allow', /read inside the workspace/],
  ];
  test.each(cases)('%s %j → %s', (tool, args, verdict, reason, setup) => {
    expectVerdict(call(tool, args, setup), verdict, reason);
  });

  test('an argument the command line needs that is not a string asks', () => {
    expectVerdict(call('git_checkout', { branch_name: 7 }, { deny: [] }), 'ask', /cannot check/);
    expectVerdict(call('git_add', { files: '.' }, { deny: [] }), 'ask', /cannot check/);
  });
});

describe('Desktop Commander (round 14 review T5–T7)', () => {
  const DC = { command: 'npx', args: ['-y', '@wonderwhy-er/desktop-commander'] };
  const call = (tool: string, args: Record<string, unknown>, setup: Setup = {}): Decision =>
    decideServerTool(DC, tool, args, project, { workspace: [project], home, mode: setup.mode ?? 'default', deny: setup.deny ?? SECRETS, allow: setup.allow ?? [] });

  // T5: a content search prints the lines of every file below its path, as `grep -r` does.
  test.each([
    [{ path: '.', pattern: 'API_KEY=.*', searchType: 'content', includeHidden: true }, 'ask', /\.env.*Read\(\*\*\/\.env\)/],
    [{ path: 'conf', pattern: 'db-password', searchType: 'content' }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    [{ path: 'conf', pattern: 'x', searchType: 'other' }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    [{ path: 'src', pattern: 'export', searchType: 'content' }, 'allow', /read inside the workspace/],
    [{ path: 'src', pattern: 'a', searchType: 'files' }, 'allow', /read inside the workspace/],
  ] as Array<[Record<string, unknown>, Verdict, RegExp]>)('start_search %j → %s', (args, verdict, reason) => {
    expectVerdict(call('start_search', args), verdict, reason);
  });

  // T11's names: a search of file names and list_directory {depth} list the names below a directory
  // a Read rule covers, as server-filesystem's directory_tree did.
  test.each([
    ['start_search', { path: '.', pattern: 'db', searchType: 'files' }, 'ask', /listing of every name under .*conf\/secret.*Read\(\.\/conf\/secret\/\*\*\)/],
    ['start_search', { path: 'conf', pattern: 'db' }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    ['list_directory', { path: 'conf' }, 'ask', /the directory .*conf\/secret among them/],
    ['list_directory', { path: '.', depth: 3 }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    ['list_directory', { path: 'conf', depth: 1 }, 'allow', /read inside the workspace/],
    ['list_directory', { path: '.', depth: 2 }, 'allow', /read inside the workspace/],
    ['list_directory', { path: '.', depth: 'all' }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
    ['search_files', { path: 'conf', pattern: 'db' }, 'ask', /Read\(\.\/conf\/secret\/\*\*\)/],
  ] as Array<[string, Record<string, unknown>, Verdict, RegExp]>)('%s %j → %s', (tool, args, verdict, reason) => {
    expectVerdict(call(tool, args), verdict, reason);
  });

  // Round 15 left open: start_process's text was read as a sh that may be dash even when Desktop
  // Commander runs it with bash (`spawn(command, { shell })` is `bash -c`), so bash's own forms
  // asked there. A bash's text is read as bash now; sh and dash stay a sh that may be dash (each
  // form proven with bash 5.2 and dash in dash-dialect.test.ts).
  test.each([
    [{ command: 'echo {a,b}', shell: '/bin/bash' }, 'allow', /allow rule Bash\(echo \*\)/],
    [{ command: '[[ -f x ]] && echo y', shell: 'bash' }, 'allow', /allow rule Bash\(echo \*\)/],
    [{ command: "echo $'\\'; rm -rf pub; #'", shell: '/usr/bin/bash' }, 'allow', /allow rule Bash\(echo \*\)/],
    [{ command: '[[ -f x ]] && rm -rf pub', shell: '/bin/bash' }, 'deny', /Bash\(rm \*\)/],
    [{ command: 'echo {a,b}', shell: '/bin/sh' }, 'ask', /sh-dialect/],
    [{ command: "echo $'\\'; rm -rf pub; #'", shell: 'dash' }, 'ask', /sh-dialect/],
    [{ command: 'echo {a,b}', shell: '/tmp/x/bash' }, 'ask', /outside the system directories/],
  ] as Array<[Record<string, unknown>, Verdict, RegExp]>)('start_process %j → %s', (args, verdict, reason) => {
    expectVerdict(call('start_process', { timeout_ms: 1000, ...args }, { allow: ['Bash(echo *)'], deny: [...SECRETS, 'Bash(rm *)'] }), verdict, reason);
  });

  // T12: the history holds other calls' outputs (another member's on a team gateway, another session's on stdio).
  test.each([['get_recent_tool_calls'], ['get_usage_stats']])('%s asks in default mode', (tool) => {
    expectVerdict(call(tool, { maxResults: 3 }), 'ask', /kind all/);
  });
});
