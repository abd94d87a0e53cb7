import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { BIN, ROOT, eventually, fixtureServer, tempDir, textOf, writeConfig } from '../helpers/gateway.js';

/**
 * What `serve` (the bundle in dist/serve/) keeps out of memory until it is needed
 * (docs/performance.md, "Memory"), checked in a real gateway process: pino's transport machinery
 * (Node's worker threads) never, and jsonc-parser until a rule is remembered, when it must load
 * and edit the file. TurboFan is off while it starts (its pages stay out of an idle gateway's memory)
 * and must be on again once it serves: the hot path runs optimised.
 */
const LOADED_PROBE = join(ROOT, 'test/fixtures/loaded-modules.mjs');
const OPTIMISING_PROBE = join(ROOT, 'test/fixtures/optimising-probe.mjs');
/** V8's optimisation status bit for code made by TurboFan (%GetOptimizationStatus). */
const TURBOFANNED = 1 << 6;

interface Loaded {
  builtins: string[];
  commonjs: string[];
}

describe('the serve path loads what it needs when it needs it', () => {
  test('no worker threads ever, and jsonc-parser only once a rule is remembered', async () => {
    const dir = tempDir();
    const configPath = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] }, tools: { fix__whoami: { kind: 'write' as const } } });
    const out = join(dir, 'loaded.json');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', LOADED_PROBE, BIN, 'serve', '--config', configPath],
      env: { MCP_LATCH_LOG_LEVEL: 'warn', LOADED_MODULES_OUT: out },
      stderr: 'pipe',
      cwd: dir,
    });
    const client = new Client({ name: 'mcp-latch-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
      const schema = request.params as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } };
      const always = schema.requestedSchema.properties.decision.enum.find((choice) => choice.startsWith('Always allow'));
      if (!always) throw new Error(`no Always allow among ${schema.requestedSchema.properties.decision.enum.join(' | ')}`);
      return { action: 'accept', content: { decision: always } };
    });
    const loaded = async (): Promise<Loaded> => {
      rmSync(out, { force: true });
      process.kill(transport.pid!, 'SIGUSR2');
      return eventually(() => {
        if (!existsSync(out)) throw new Error('the gateway has not written what it loaded yet');
        return JSON.parse(readFileSync(out, 'utf8')) as Loaded;
      });
    };
    const jsonc = (modules: Loaded) => modules.commonjs.filter((file) => file.includes('/jsonc-parser/'));
    try {
      await client.connect(transport, { timeout: 30_000 });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      expect(textOf(await client.callTool({ name: 'fix__echo', arguments: { text: 'hello' } }))).toContain('hello');
      const before = await loaded();
      expect(before.builtins).not.toContain('NativeModule worker_threads');
      expect(jsonc(before)).toEqual([]);

      // "Always allow" writes the rule into the config file, with jsonc-parser loaded for it.
      const asked = await client.callTool({ name: 'fix__whoami', arguments: {} });
      expect(asked.isError, textOf(asked)).toBeFalsy();
      const saved = JSON.parse(readFileSync(configPath, 'utf8')) as { permissions: { allow: string[] } };
      expect(saved.permissions.allow).toContain('mcp__fix__whoami');
      const after = await loaded();
      expect(jsonc(after).length).toBeGreaterThan(0);
      expect(after.builtins).not.toContain('NativeModule worker_threads');
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  test('TurboFan optimises code again once the gateway serves', async () => {
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
      process.kill(transport.pid!, 'SIGUSR2');
      const { status } = await eventually(() => {
        if (!existsSync(out)) throw new Error('the gateway has not run the probe yet');
        return JSON.parse(readFileSync(out, 'utf8')) as { status: number };
      });
      expect(status & TURBOFANNED, `optimisation status ${status.toString(2)}`).toBe(TURBOFANNED);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
