import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import * as shellModel from '../../src/subjects/shell/index.js';
import { BIN, COMMANDS_SERVER, ROOT, eventually, fixtureServer, tempDir, textOf, writeConfig } from '../helpers/gateway.js';

/**
 * What `serve` (the bundle in dist/serve/) keeps out of memory until it is needed
 * (docs/performance.md, "Memory"), checked in a real gateway process: pino's transport machinery
 * (Node's worker threads) never, and jsonc-parser until a rule is remembered, when it must load
 * and edit the file; the shell model (dist/serve/shell.cjs) and its grammar only with a tool that
 * takes shell commands. TurboFan is off while it starts (its pages stay out of an idle gateway's memory)
 * and must be on again once it serves: the hot path runs optimised.
 */
const LOADED_PROBE = join(ROOT, 'test/fixtures/loaded-modules.mjs');
const OPTIMISING_PROBE = join(ROOT, 'test/fixtures/optimising-probe.mjs');
/** V8's optimisation status bit for code made by TurboFan (%GetOptimizationStatus). */
const TURBOFANNED = 1 << 6;

interface Loaded {
  builtins: string[];
  commonjs: string[];
  /** The bundles serve compiled itself (read, then compiled with the code cache). */
  bundles: string[];
}

/** A gateway started with LOADED_PROBE, whose loaded modules are read on demand. */
function probed(configPath: string, dir: string, out: string, env: Record<string, string> = {}): { transport: StdioClientTransport; loaded: () => Promise<Loaded> } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', LOADED_PROBE, BIN, 'serve', '--config', configPath],
    env: { MCP_LATCH_LOG_LEVEL: 'warn', LOADED_MODULES_OUT: out, ...env },
    stderr: 'pipe',
    cwd: dir,
  });
  const loaded = async (): Promise<Loaded> => {
    rmSync(out, { force: true });
    process.kill(transport.pid!, 'SIGUSR2');
    return eventually(() => {
      if (!existsSync(out)) throw new Error('the gateway has not written what it loaded yet');
      return JSON.parse(readFileSync(out, 'utf8')) as Loaded;
    });
  };
  return { transport, loaded };
}

/** The shell model's file and the grammar's package, as the gateway loaded them. */
const shellParts = (modules: Loaded) => [...modules.commonjs, ...modules.bundles].filter((file) => file.endsWith('/dist/serve/shell.cjs') || file.includes('/web-tree-sitter/'));

describe('the serve path loads what it needs when it needs it', () => {
  test('no worker threads ever, jsonc-parser neither for a rule appended to a list laid out one a line nor before one is remembered into an empty list, and no shell model without a shell tool', async () => {
    const dir = tempDir();
    const configPath = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] }, tools: { fix__whoami: { kind: 'write' as const }, fix__client_capabilities: { kind: 'write' as const } } });
    const { transport, loaded } = probed(configPath, dir, join(dir, 'loaded.json'));
    const client = new Client({ name: 'mcp-latch-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
      const schema = request.params as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } };
      const always = schema.requestedSchema.properties.decision.enum.find((choice) => choice.startsWith('Always allow'));
      if (!always) throw new Error(`no Always allow among ${schema.requestedSchema.properties.decision.enum.join(' | ')}`);
      return { action: 'accept', content: { decision: always } };
    });
    const jsonc = (modules: Loaded) => modules.commonjs.filter((file) => file.includes('/jsonc-parser/'));
    try {
      await client.connect(transport, { timeout: 30_000 });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      expect(textOf(await client.callTool({ name: 'fix__echo', arguments: { text: 'hello' } }))).toContain('hello');
      const before = await loaded();
      expect(before.builtins).not.toContain('NativeModule worker_threads');
      expect(jsonc(before)).toEqual([]);
      expect(shellParts(before)).toEqual([]);

      // "Always allow" appends the rule to the list in the config file's text, without jsonc-parser.
      const asked = await client.callTool({ name: 'fix__whoami', arguments: {} });
      expect(asked.isError, textOf(asked)).toBeFalsy();
      const saved = JSON.parse(readFileSync(configPath, 'utf8')) as { permissions: { allow: string[] } };
      expect(saved.permissions.allow).toContain('mcp__fix__whoami');
      const appended = await loaded();
      expect(jsonc(appended)).toEqual([]);

      // Into an empty list (laid out by jsonc-parser), jsonc-parser is loaded for it.
      writeFileSync(configPath, JSON.stringify({ ...saved, permissions: { ...saved.permissions, allow: [] } }, null, 2));
      const second = await client.callTool({ name: 'fix__client_capabilities', arguments: {} });
      expect(second.isError, textOf(second)).toBeFalsy();
      expect((JSON.parse(readFileSync(configPath, 'utf8')) as { permissions: { allow: string[] } }).permissions.allow).toEqual(['mcp__fix__client_capabilities']);
      const after = await loaded();
      expect(jsonc(after).length).toBeGreaterThan(0);
      expect(after.builtins).not.toContain('NativeModule worker_threads');
      expect(shellParts(after)).toEqual([]);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  test('with a shell tool, the shell model and its grammar are loaded and the first commands are decided from their words', async () => {
    const dir = tempDir();
    const configPath = writeConfig(dir, { mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'], deny: ['Bash(rm *)'] } });
    const { transport, loaded } = probed(configPath, dir, join(dir, 'loaded.json'));
    const client = new Client({ name: 'mcp-latch-test', version: '1.0.0' }, { capabilities: {} });
    try {
      await client.connect(transport, { timeout: 30_000 });
      // The first calls, no list before them, no elicitation: a command not analysed would be asked, so denied.
      const [allowed, denied] = await Promise.all([
        client.callTool({ name: 'shell__run_command', arguments: { command: 'echo first-call', workdir: dir } }),
        client.callTool({ name: 'shell__run_command', arguments: { command: 'rm -rf build', workdir: dir } }),
      ]);
      expect(textOf(allowed)).toContain('first-call');
      expect(textOf(denied)).toMatch(/^Denied by mcp-latch/);
      expect(textOf(denied)).toContain('Bash(rm *)');
      const parts = shellParts(await loaded());
      expect(parts.filter((file) => file.endsWith('/dist/serve/shell.cjs'))).toHaveLength(1);
      expect(parts.some((file) => file.includes('/web-tree-sitter/'))).toBe(true);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  test("a code cache made after a shell command's call holds no shell model: a start without a shell tool still loads none", async () => {
    // The cache is made again after the first call (src/cli/code-cache.ts), with the code that call
    // compiled: for a shell command, the gateway's side of the shell model's entry too.
    const dir = tempDir();
    const cacheHome = join(dir, 'cache');
    const withShell = writeConfig(dir, { mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } }, 'shell.json');
    const first = probed(withShell, dir, join(dir, 'loaded-shell.json'), { XDG_CACHE_HOME: cacheHome });
    const client = new Client({ name: 'mcp-latch-test', version: '1.0.0' }, { capabilities: {} });
    try {
      await client.connect(first.transport, { timeout: 30_000 });
      expect(textOf(await client.callTool({ name: 'shell__run_command', arguments: { command: 'echo cached', workdir: dir } }))).toContain('cached');
      // The byte after the file's checksum: 2 once made after the first call.
      await eventually(() => {
        const names = readdirSync(join(cacheHome, 'mcp-latch')).filter((name) => name.endsWith('.v8cache'));
        // The gateway's, the shell model's bundle's and serve's own.
        expect(names.map((name) => readFileSync(join(cacheHome, 'mcp-latch', name))[4])).toEqual([2, 2, 2]);
      }, 30_000);
    } finally {
      await client.close().catch(() => undefined);
    }

    const without = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } });
    const second = probed(without, dir, join(dir, 'loaded.json'), { XDG_CACHE_HOME: cacheHome, MCP_LATCH_LOG_LEVEL: 'info' });
    let stderr = '';
    second.transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const other = new Client({ name: 'mcp-latch-test', version: '1.0.0' }, { capabilities: {} });
    try {
      await other.connect(second.transport, { timeout: 30_000 });
      expect((await other.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      expect(textOf(await other.callTool({ name: 'fix__echo', arguments: { text: 'hello' } }))).toContain('hello');
      expect(stderr).toContain('"codeCache":"accepted"');
      expect(shellParts(await second.loaded())).toEqual([]);
    } finally {
      await other.close().catch(() => undefined);
    }
  });

  test('the shell model is in shell.cjs alone, and what the gateway calls of it are functions', () => {
    // gateway.cjs has only a stand-in for the model's entry (scripts/bundle.js); its functions load shell.cjs at their first call.
    const sources = (file: string) => (JSON.parse(readFileSync(join(ROOT, 'dist/serve', file), 'utf8')) as { sources: string[] }).sources;
    const shellFiles = (list: string[]) => list.filter((source) => source.includes('src/subjects/shell/'));
    expect(shellFiles(sources('gateway.cjs.map')).filter((source) => !source.startsWith('shell-model:'))).toEqual([]);
    expect(shellFiles(sources('shell.cjs.map')).length).toBeGreaterThan(20);
    expect(sources('shell.cjs.map').filter((source) => !source.includes('src/subjects/shell/') && !source.startsWith('gateway:'))).toEqual([]);
    // A constant exported here would reach the gateway as a function.
    expect(Object.entries(shellModel).filter(([, value]) => typeof value !== 'function')).toEqual([]);
  });

  test('TurboFan optimises code again once the gateway has answered its first call, not at its first list', async () => {
    const dir = tempDir();
    const configPath = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } });
    const out = join(dir, 'optimising.json');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--allow-natives-syntax', '--no-concurrent-recompilation', '--import', OPTIMISING_PROBE, BIN, 'serve', '--config', configPath],
      env: { MCP_LATCH_LOG_LEVEL: 'warn', OPTIMISING_OUT: out },
      stderr: 'pipe',
      cwd: dir,
    });
    const client = new Client({ name: 'mcp-latch-test', version: '1.0.0' }, { capabilities: {} });
    try {
      await client.connect(transport, { timeout: 30_000 });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      const probedStatus = async () => {
        rmSync(out, { force: true });
        process.kill(transport.pid!, 'SIGUSR2');
        return eventually(() => {
          if (!existsSync(out)) throw new Error('the gateway has not run the probe yet');
          return (JSON.parse(readFileSync(out, 'utf8')) as { status: number }).status;
        });
      };
      // Listed, not yet called: turned on at the list, TurboFan compiled what the start-up made hot
      // inside the client's first call (docs/performance.md, "Round 19: start").
      const listed = await probedStatus();
      expect(listed & TURBOFANNED, `optimisation status ${listed.toString(2)}`).toBe(0);
      expect(textOf(await client.callTool({ name: 'fix__echo', arguments: { text: 'first' } }))).toContain('first');
      // Turned on just after the answer (cli/serve.ts).
      const status = await eventually(async () => {
        const now = await probedStatus();
        expect(now & TURBOFANNED, `optimisation status ${now.toString(2)}`).toBe(TURBOFANNED);
        return now;
      });
      expect(status & TURBOFANNED).toBe(TURBOFANNED);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
