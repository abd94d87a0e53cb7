import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/server.js';
import { silentLogger } from '../../src/log.js';
import { ruleIssues } from '../../src/policy/policy.js';
import { isShellParserRequested } from '../../src/subjects/shell/parser.js';
import { shellToolsExpected } from '../../src/subjects/shell-tools.js';
import { COMMANDS_SERVER, fixtureCalls, fixtureServer, startGateway, tempDir, textOf } from '../helpers/gateway.js';
import { inProcessGateway } from '../helpers/in-process.js';
import { ServerRegistry } from '../../src/downstream/registry.js';

/**
 * The shell grammar (WASM, about 30 MiB) is loaded only when some tool takes shell commands, and
 * then in the background, early enough that the first command is decided from its words.
 */

describe('the shell grammar', () => {
  // These two run in order, in this file's own process: the first must find the grammar never loaded.
  test('a gateway without a shell tool never loads it, through listing and calls', async () => {
    const dir = tempDir();
    const { client, close } = await inProcessGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } }, { dir });
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      const result = await client.callTool({ name: 'fix__echo', arguments: { text: 'hello' } });
      expect(textOf(result)).toContain('hello');
      expect(isShellParserRequested()).toBe(false);
    } finally {
      await close();
    }
  });

  test('a tool the config says takes commands loads it before the client even initializes', async () => {
    const dir = tempDir();
    const config = { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, tools: { fix__echo: { kind: 'command' as const, command: 'text' } } };
    const loaded = parseConfigText(JSON.stringify(config), join(dir, 'mcp-latch.json'), ruleIssues);
    const gateway = new Gateway({ config: loaded, logger: silentLogger() });
    try {
      // A turn of the event loop later (core.ts, loadShell): serve has then set its lasting V8 flags.
      await new Promise((resolve) => setImmediate(resolve));
      expect(isShellParserRequested()).toBe(true);
    } finally {
      await gateway.close();
    }
  });

  test('the warm-up decides commands for nothing: none is forwarded, audited or pinned', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    // The warm-up's own audit goes to a temporary directory, removed at once: this test's, while it runs.
    const scratch = tempDir();
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    const harness = await inProcessGateway(
      { mcpServers: { fix: fixtureServer('fix', log) }, tools: { fix__echo: { kind: 'command' as const, command: 'text' } }, workspace: [dir], audit: { enabled: true }, permissions: { allow: ['Bash(echo *)', 'Bash(ls *)', 'Bash(git *)'] } },
      { dir },
    );
    try {
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      // One allowed command ran through the whole call pipeline (its own session, permits, audit and
      // server), its reply back, before the first list was answered: nothing of it is left to run
      // into the client's first command (upstream-session.ts, whenFirstListsReady).
      expect(harness.stderr()).toContain('warmed the call pipeline');
      expect(JSON.parse(harness.stderr().split('\n').find((line) => line.includes('warmed the decision path'))!).decided).toBeGreaterThan(1);
      expect(JSON.parse(harness.stderr().split('\n').find((line) => line.includes('warmed the call pipeline'))!).answered).toBe(true);
      expect(fixtureCalls(log)).toEqual([]);
      const audit = join(dir, 'mcp-latch-audit.jsonl');
      expect(existsSync(audit) ? readFileSync(audit, 'utf8') : '').toBe('');
      // Nothing pinned (the lock file records what the server listed: round 20, docs/pins.md "A tool added later").
      const lock = join(dir, 'mcp-latch.lock.json');
      expect(existsSync(lock) ? (JSON.parse(readFileSync(lock, 'utf8')) as { servers: Record<string, { tool?: unknown }> }).servers.fix?.tool : undefined).toBeUndefined();
      expect(readdirSync(scratch)).toEqual([]);
      // Nor logged (the log is at debug level here): no line names the tool or a warm-up command but the warm-up's own.
      expect(harness.stderr().split('\n').filter((line) => /echo|ls -la|git status|README/.test(line) && !/warmed the (decision path|call pipeline)/.test(line))).toEqual([]);

      // The client's own first command is decided, forwarded and audited as usual.
      const result = await harness.client.callTool({ name: 'fix__echo', arguments: { text: 'echo first' } });
      expect(textOf(result)).toContain('echo first');
      expect(fixtureCalls(log)).toHaveLength(1);
      const records = readFileSync(audit, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { decision: string; command: string });
      expect(records.map((record) => [record.decision, record.command])).toEqual([['allow', 'echo first']]);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
      await harness.close();
    }
  });

  test('a shell server known by its profile: the first command is decided from its words', async () => {
    const dir = tempDir();
    const harness = await startGateway({
      mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } },
      workspace: [dir],
      permissions: { allow: ['Bash(echo *)'], deny: ['Bash(rm *)'] },
    });
    try {
      // No tools/list first, and no elicitation: a command that could not be analysed would be denied as "ask".
      const [allowed, denied] = await Promise.all([
        harness.client.callTool({ name: 'shell__run_command', arguments: { command: 'echo first-call', workdir: dir } }),
        harness.client.callTool({ name: 'shell__run_command', arguments: { command: 'rm -rf build', workdir: dir } }),
      ]);
      expect(textOf(allowed)).toContain('first-call');
      expect(textOf(denied)).toMatch(/^Denied by mcp-latch/);
      expect(textOf(denied)).toContain('Bash(rm *)');
    } finally {
      await harness.close();
    }
  });

  test('a shell tool known only once its server lists it: the first command waits for the grammar', async () => {
    const dir = tempDir();
    // The same server under a name no profile knows: its run_command is classified from its schema.
    const unknown = join(dir, 'unknown-server.js');
    symlinkSync(COMMANDS_SERVER, unknown);
    const harness = await startGateway({ mcpServers: { sh: { command: process.execPath, args: [unknown] } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } });
    try {
      const result = await harness.client.callTool({ name: 'sh__run_command', arguments: { command: 'echo heuristics', workdir: dir } });
      expect(textOf(result)).toContain('heuristics');
    } finally {
      await harness.close();
    }
  });
});

describe('whether a config says a tool takes shell commands before any server lists one', () => {
  // The early read of the file (cli/serve.ts) and the gateway both ask this.
  test('a server known by its profile, or an override, says so; other servers do not', () => {
    const cwd = tempDir();
    expect(shellToolsExpected({ shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, [], cwd)).toBe(true);
    expect(shellToolsExpected({ fix: { command: 'node', args: ['fixture.js'] } }, [{ kind: 'command', command: 'text' }], cwd)).toBe(true);
    expect(shellToolsExpected({ fix: { command: 'node', args: ['fixture.js'] } }, [{ kind: 'read', paths: ['path'] }, null, 'text'], cwd)).toBe(false);
    expect(shellToolsExpected({ everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] } }, [], cwd)).toBe(false);
  });
});

describe('tool classes across list changes', () => {
  test('a tool relisted with another input schema is classified again; the other server\'s tools keep theirs', async () => {
    const dir = tempDir();
    const definitionFile = join(dir, 'echo-definition.json');
    const harness = await inProcessGateway(
      {
        mcpServers: { fix: fixtureServer('fix', join(dir, 'log'), [], { FIXTURE_DEFINITION_FILE: definitionFile }), other: fixtureServer('other', join(dir, 'other-log')) },
        workspace: [dir],
        permissions: { allow: ['mcp__fix__echo', 'mcp__fix__relist', 'mcp__other__echo'], deny: ['Bash(rm *)'] },
        // fix has a pin (relist's call) and echo none: under "hold" its changed echo is held as changed before any use (docs/pins.md, "A tool added later").
        policy: { addedTools: 'ask' },
      },
      { dir },
    );
    try {
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['fix__echo', 'other__echo']));
      expect(textOf(await harness.client.callTool({ name: 'other__echo', arguments: { text: 'rm -rf x' } }))).toContain('rm -rf x');
      // Now fix's echo takes a command: relisted, it is decided as one (a deny rule on rm), not by the allow rule on the tool.
      writeFileSync(definitionFile, JSON.stringify({ inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }));
      await harness.client.callTool({ name: 'fix__relist', arguments: {} });
      await vi.waitFor(async () => expect(JSON.stringify((await harness.client.listTools()).tools.find((tool) => tool.name === 'fix__echo'))).toContain('"command"'), { timeout: 30_000, interval: 50 });
      const denied = await harness.client.callTool({ name: 'fix__echo', arguments: { command: 'rm -rf x' } });
      expect(textOf(denied)).toMatch(/^Denied by mcp-latch/);
      expect(textOf(denied)).toContain('Bash(rm *)');
      expect(textOf(await harness.client.callTool({ name: 'other__echo', arguments: { text: 'rm -rf y' } }))).toContain('rm -rf y');
    } finally {
      await harness.close();
    }
  });
});

describe('the shell-tool check at each server\'s readiness', () => {
  // After the first describe: the second test loads the grammar in this process.
  test('looks at the servers whose list changed, without the routes: the first list builds them once', async () => {
    const dir = tempDir();
    const toolRoutesList = vi.spyOn(ServerRegistry.prototype, 'toolRoutesList');
    const harness = await inProcessGateway({ mcpServers: Object.fromEntries(['a', 'b', 'c', 'd'].map((name) => [name, fixtureServer(name, join(dir, `${name}-log`))])), permissions: { allow: ['mcp__a__echo'] } }, { dir });
    try {
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['a__echo', 'd__echo']));
      // Each server's readiness looked up every route (a rebuild of them all each time): 4 calls and more before the list's own.
      expect(toolRoutesList).toHaveBeenCalledTimes(1);
    } finally {
      toolRoutesList.mockRestore();
      await harness.close();
    }
  });

  test('a tool that takes commands, known only from its server\'s list, loads the grammar and warms the decision path before any call', async () => {
    const dir = tempDir();
    const definitionFile = join(dir, 'echo-definition.json');
    writeFileSync(definitionFile, JSON.stringify({ inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }));
    const harness = await inProcessGateway(
      { mcpServers: { plain: fixtureServer('plain', join(dir, 'plain-log')), sh: fixtureServer('sh', join(dir, 'log'), [], { FIXTURE_DEFINITION_FILE: definitionFile }) }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } },
      { dir },
    );
    try {
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('sh__echo');
      // Not waited for by this first list, asked for before the server was ready (upstream-session.ts, whenFirstListsReady).
      await vi.waitFor(() => expect(harness.stderr()).toContain('warmed the decision path'), { timeout: 30_000, interval: 20 });
      expect(textOf(await harness.client.callTool({ name: 'sh__echo', arguments: { command: 'echo listed' } }))).toContain('echo listed');
    } finally {
      await harness.close();
    }
  });
});
