import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { check } from '../../src/cli/check.js';
import { memoryOutput } from '../../src/cli/output.js';
import { addRule } from '../../src/cli/rules.js';
import { listTools } from '../../src/cli/tools.js';
import { showAudit } from '../../src/cli/audit.js';
import { validate } from '../../src/cli/validate.js';
import { BIN, FS_SERVER, fixtureServer, tempDir, writeConfig } from '../helpers/gateway.js';

/** The CLI through the function behind each command, plus spawn tests for exit codes. */
let dir: string;
let config: string;

beforeAll(() => {
  dir = tempDir();
  writeFileSync(join(dir, '.env'), 'SECRET=1');
  config = writeConfig(dir, {
    mcpServers: {
      // Never started by `check`: the profile classifies it from the command line alone.
      shell: { command: '/nonexistent/bin/mcp-server-commands' },
      fs: { command: process.execPath, args: [FS_SERVER, dir] },
      fix: fixtureServer('fix', join(dir, 'fix.log')),
    },
    workspace: [dir],
    permissions: { allow: ['Bash(git status)', 'Bash(npm run test *)'], deny: ['Read(**/.env)', 'Bash(rm *)'] },
  });
});

describe('mcp-latch check', () => {
  test('decides a shell command without starting any server (profile)', async () => {
    const out = memoryOutput();
    const code = await check({ config, tool: 'shell__run_command', args: JSON.stringify({ command: 'git status && rm -rf build', workdir: dir }), json: true }, out);
    expect(code).toBe(0);
    const result = JSON.parse(out.stdout.join('\n'));
    expect(result).toMatchObject({ decision: 'deny', kind: 'command', rule: 'Bash(rm *)', serverStarted: false, kindSource: 'profile:commands' });
    expect(result.commandInfo.segments.map((segment: { name: string }) => segment.name)).toEqual(['git', 'rm']);
    expect(result.reason).toContain('Bash(rm *)');
  });

  test('--exit-code: 0 allow, 2 ask, 3 deny', async () => {
    const shell = (command: string) => check({ config, tool: 'shell__run_command', args: JSON.stringify({ command, workdir: dir }), exitCode: true }, memoryOutput());
    expect(await shell('git status')).toBe(0);
    expect(await shell('git push origin main')).toBe(2);
    expect(await shell('rm -rf build')).toBe(3);
  });

  test('reports the paths of a denied .env read', async () => {
    const out = memoryOutput();
    await check({ config, tool: 'fs__read_text_file', args: JSON.stringify({ path: join(dir, '.env') }), json: true }, out);
    const result = JSON.parse(out.stdout.join('\n'));
    expect(result).toMatchObject({ decision: 'deny', kind: 'read', rule: 'Read(**/.env)', serverStarted: false });
    expect(result.paths[0]).toMatchObject({ path: join(dir, '.env'), realPath: join(dir, '.env'), access: 'read', inWorkspace: true });
  });

  test('starts the server when only heuristics can classify the tool', async () => {
    const out = memoryOutput();
    await check({ config, tool: 'fix__echo', args: '{"text":"hi"}', json: true }, out);
    const result = JSON.parse(out.stdout.join('\n'));
    expect(result.serverStarted).toBe(true);
    expect(result.decision).toBe('ask');
  });

  test('prints a readable report without --json', async () => {
    const out = memoryOutput();
    await check({ config, tool: 'shell__run_command', args: JSON.stringify({ command: 'npm run test -- --run', workdir: dir }) }, out);
    const text = out.stdout.join('\n');
    expect(text).toContain('Decision: ALLOW');
    expect(text).toContain('Rule:     Bash(npm run test *)');
    expect(text).toContain('signature: npm run test');
  });

  test('bad usage is one clear error', async () => {
    await expect(check({ config, tool: 'nounderscores', json: true }, memoryOutput())).rejects.toThrow(/SERVER__TOOL/);
    await expect(check({ config, tool: 'nope__x', json: true }, memoryOutput())).rejects.toThrow(/no server named "nope"/);
    await expect(check({ config, tool: 'shell__run_command', args: '{oops', json: true }, memoryOutput())).rejects.toThrow(/--args is not valid JSON/);
  });
});

describe('mcp-latch tools', () => {
  test('lists every exposed tool with its kind and where the kind came from', async () => {
    const own = writeConfig(tempDir(), { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, fix: fixtureServer('fix', join(dir, 'x.log')) } });
    const out = memoryOutput();
    expect(await listTools({ config: own, json: true }, out)).toBe(0);
    const { tools } = JSON.parse(out.stdout.join('\n')) as { tools: Array<{ name: string; kind: string; source: string }> };
    expect(tools.find((tool) => tool.name === 'fs__write_file')).toMatchObject({ kind: 'write', source: 'profile:filesystem' });
    expect(tools.find((tool) => tool.name === 'fs__read_text_file')).toMatchObject({ kind: 'read', source: 'profile:filesystem' });
    expect(tools.find((tool) => tool.name === 'fix__crash')?.source).not.toMatch(/^profile/);
  });

  test('--scope lists only that scope\'s servers, and names too long for clients are warned about', async () => {
    const long = 'a-server-name-that-is-long-enough-to-hurt';
    const own = writeConfig(tempDir(), {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, [long]: fixtureServer('long', join(dir, 'y.log')) },
      scopes: { 'cursor-project:/p': { servers: [long] } },
    });
    const out = memoryOutput();
    await listTools({ config: own, scope: 'cursor-project:/p' }, out);
    expect(out.stdout.slice(1).every((line) => line.startsWith(`${long}__`))).toBe(true);
    // mcp__latch-project__ (20) + the name: 20 + 41 + 2 + 4 (echo) = 67 > 64.
    expect(out.stderr.join('\n')).toContain(`warning: mcp__latch-project__${long}__echo is 67 characters; clients that cap tool names at 64`);
    expect(out.stderr.join('\n')).not.toMatch(/warning: .*__fs__/);
  });
});

describe('mcp-latch allow / deny', () => {
  test('allow warns when a deny or ask rule already in the file makes it dead', async () => {
    const own = writeConfig(tempDir(), { permissions: { deny: ['Bash(git push *)', 'mcp__fs'], ask: ['Read'] } });
    const out = memoryOutput();
    await addRule('allow', 'Bash(git push origin main)', { config: own }, out);
    await addRule('allow', 'mcp__fs__write_file', { config: own }, out);
    await addRule('allow', 'Read(src/**)', { config: own }, out);
    await addRule('allow', 'Bash(git status)', { config: own }, out);
    expect(out.stderr).toEqual([
      'warning: the deny rule Bash(git push *) also matches what Bash(git push origin main) allows; deny wins over allow, so this allow has no effect there',
      'warning: the deny rule mcp__fs also matches what mcp__fs__write_file allows; deny wins over allow, so this allow has no effect there',
      'warning: the ask rule Read also matches what Read(src/**) allows; ask wins over allow, so this allow has no effect there',
    ]);
  });

  test('adds rules to the config file; a bad rule is refused and nothing is written', async () => {
    const own = writeConfig(tempDir(), { permissions: { allow: [] } });
    const out = memoryOutput();
    await addRule('allow', 'Bash(make *)', { config: own }, out);
    await addRule('deny', 'Read(~/.aws/**)', { config: own }, out);
    expect(out.stdout).toEqual([`Added Bash(make *) to permissions.allow in ${own}.`, `Added Read(~/.aws/**) to permissions.deny in ${own}.`]);
    const saved = JSON.parse(readFileSync(own, 'utf8'));
    expect(saved.permissions).toMatchObject({ allow: ['Bash(make *)'], deny: ['Read(~/.aws/**)'] });
    const before = readFileSync(own, 'utf8');
    await expect(addRule('allow', 'Bash(git * main)', { config: own }, memoryOutput())).rejects.toThrow(/only allowed at the end/);
    expect(readFileSync(own, 'utf8')).toBe(before);
  });
});

describe('mcp-latch audit', () => {
  test('prints recent decisions readably, escaping what calls supplied', () => {
    const own = tempDir();
    const path = writeConfig(own, {});
    const record = { level: 30, time: '2026-11-26T01:00:00.000Z', session: 's', server: 'shell', tool: 'run_command', kind: 'command', decision: 'deny', by: 'rule', rule: 'Bash(rm *)', reason: 'x', paths: [], command: 'rm -rf /\u001b[2J', argsDigest: 'd', args: {}, waitMs: 0, event: 'call' };
    writeFileSync(join(own, 'mcp-latch-audit.jsonl'), `${JSON.stringify(record)}\n{"cut by a cra`);
    const out = memoryOutput();
    showAudit({ config: path, limit: 10 }, out);
    expect(out.stdout).toEqual(['2026-11-26 01:00:00Z  DENY      shell/run_command by rule (Bash(rm *)): `rm -rf /\\x1b[2J`']);
  });
});

describe('mcp-latch audit: lines that are not records', () => {
  // Round 13 review R8: one such line made the command throw and show nothing.
  test('are skipped and named; the records are shown, a server\'s tool name escaped', () => {
    const own = tempDir();
    const path = writeConfig(own, {});
    const record = { level: 30, time: '2026-11-26T01:00:00.000Z', session: 's', server: 'fs', tool: 'read\u001b[2J', kind: 'read', decision: 'allow', by: 'rule', rule: null, reason: 'x', paths: [{ access: 'read', path: '/w/a' }], command: null, argsDigest: 'd', args: {}, waitMs: 0, event: 'call' };
    const foreign = ['{"pre":"x"}', '{}', 'null', '[1]', '7', '{"time":5,"decision":"allow"}', '{"time":"x","server":{"a":1},"tool":[1],"decision":"allow"}'];
    writeFileSync(join(own, 'mcp-latch-audit.jsonl'), [JSON.stringify(record), ...foreign, JSON.stringify({ ...record, tool: 'list' })].join('\n') + '\n');
    const out = memoryOutput();
    expect(showAudit({ config: path, limit: 10 }, out)).toBe(0);
    expect(out.stdout).toEqual(['2026-11-26 01:00:00Z  ALLOW     fs/read\\x1b[2J by rule: read /w/a', '2026-11-26 01:00:00Z  ALLOW     fs/list by rule: read /w/a']);
    expect(out.stderr).toEqual([`7 lines of ${join(own, 'mcp-latch-audit.jsonl')} are not mcp-latch records and were skipped (lines 2, 3, 4, 5, 6, …).`]);
  });
});

describe('mcp-latch validate', () => {
  test('warns on rules naming servers that are not configured and on leftover VS Code inputs', () => {
    const own = tempDir();
    const path = writeConfig(own, {
      mcpServers: { github: { command: 'gh-mcp', args: ['--token', '${input:token}'] } },
      permissions: { allow: ['mcp__githb__create_issue', 'mcp__github__list_issues', 'Read(src/**)'], deny: ['mcp__slack'] },
    });
    const out = memoryOutput();
    expect(validate({ config: path }, out)).toBe(0);
    expect(out.stderr).toEqual([
      'warning: mcpServers.github.args[1]: ${input:token} is a VS Code input, which only VS Code can ask for; the server would get it literally: write the value, or ${env:NAME}',
      'warning: permissions.deny[0]: "mcp__slack" names the server "slack", which is not in mcpServers, so it matches nothing',
      'warning: permissions.allow[0]: "mcp__githb__create_issue" names the server "githb", which is not in mcpServers, so it matches nothing (did you mean "github"?)',
    ]);
  });
});

describe('exit codes', () => {
  test('usage errors exit 1 with one line', () => {
    const run = spawnSync(process.execPath, [BIN, 'check', '--config', config], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Missing required argument: tool');
  });

  test('a missing config file is named', () => {
    const run = spawnSync(process.execPath, [BIN, 'validate', '--config', join(dir, 'nope.json')], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('nope.json does not exist');
  });

  test('a reader that leaves early (`| true`, `| head`) ends the output, not the command: its exit code, no EPIPE trace', () => {
    // The reader is gone before node has started, so the first write meets a closed pipe (round 14 review).
    const errors = join(dir, 'check-stderr');
    const script = '"$0" "$1" check --config "$2" --tool shell__run_command --args \'{"command":"rm -rf build"}\' --exit-code 2>"$3" | true; echo "${PIPESTATUS[0]}"';
    const run = spawnSync('bash', ['-c', script, process.execPath, BIN, config, errors], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stdout.trim()).toBe('3');
    expect(readFileSync(errors, 'utf8')).toBe('');
  });

  test('validate prints a summary and exits 0 on a good file', () => {
    const run = spawnSync(process.execPath, [BIN, 'validate', '--config', config], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('is valid: 3 servers, 2 allow / 0 ask / 2 deny rules, mode default.');
  });
});
