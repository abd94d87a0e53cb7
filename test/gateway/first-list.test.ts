import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ListToolsResultSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { listTools } from '../../src/cli/tools.js';
import { memoryOutput } from '../../src/cli/output.js';
import { eventually, fixtureServer, isAlive, tempDir, textOf, writeConfig } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness } from '../helpers/in-process.js';
import { GatewayCore } from '../../src/gateway/core.js';
import { SchemaValidators } from '../../src/schema-validators.js';

/**
 * The first tools/list does not wait for a slow server (docs/config.md#timeouts): it answers with
 * the servers that are ready, reports the others with their reason, and a list_changed follows
 * when the slow one is ready. The slow server here starts only once the test creates its gate file.
 * The gateway runs in this process (helpers/in-process.ts); the servers are real processes.
 */
let harness: InProcessHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function servers(dir: string) {
  return {
    fast: fixtureServer('fast', join(dir, 'fast.log')),
    broken: fixtureServer('broken', join(dir, 'broken.log'), ['--crash-on-start']),
    slow: fixtureServer('slow', join(dir, 'slow.log'), [], { FIXTURE_GATE: join(dir, 'gate') }),
  };
}

const UNAVAILABLE = 'mcp-latch/unavailable';

describe('the first tools/list', () => {
  test('answers with the ready servers, reports the others with their reason, and announces the late one', async () => {
    const dir = tempDir();
    harness = await inProcessGateway(
      { mcpServers: servers(dir), permissions: { allow: ['mcp__fast', 'mcp__slow'] }, timeouts: { firstListSeconds: 0, startWaitSeconds: 120 } },
      { dir, capabilities: {} },
    );
    const client = harness.client;
    const logs: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    let announced = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      announced += 1;
    });
    // The servers start when the client has initialized: the fast one ready, the broken one failed once.
    await eventually(() => expect(harness!.stderr()).toMatch(/"server":"fast"[^\n]*"msg":"server ready"/), 30_000);
    await eventually(() => expect(harness!.stderr()).toMatch(/"server":"broken"[^\n]*"msg":"server unavailable"/), 30_000);

    const first = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    const names = first.tools.map((tool) => tool.name);
    expect(names).toContain('fast__echo');
    expect(names.some((name) => name.startsWith('slow__') || name.startsWith('broken__'))).toBe(false);
    const unavailable = first._meta?.[UNAVAILABLE] as Array<{ server: string; state: string; reason: string }>;
    expect(unavailable.map((entry) => entry.server).sort()).toEqual(['broken', 'slow']);
    expect(unavailable.find((entry) => entry.server === 'slow')).toEqual({ server: 'slow', state: 'starting', reason: 'server "slow" is still starting' });
    expect(unavailable.find((entry) => entry.server === 'broken')?.reason).toMatch(/^server "broken" .*failed to start: .*crashing on start as asked/);
    // The same, as log messages a client shows in its MCP log: once per server and state.
    await eventually(() => {
      expect(logs.find((log) => String(log.data).startsWith('server "slow" is still starting'))).toMatchObject({ level: 'info', logger: 'mcp-latch' });
      expect(logs.find((log) => /^server "broken" .*crashing on start as asked/.test(String(log.data)))).toMatchObject({ logger: 'mcp-latch' });
    });

    // A call to the slow server's tool, not listed yet, waits for it instead of "unknown tool".
    let callSettled = false;
    const call = client.callTool({ name: 'slow__echo', arguments: { text: 'late' } }).finally(() => {
      callSettled = true;
    });
    // The gateway reads in order: once the ping is answered it holds the call.
    await client.ping();
    expect(callSettled).toBe(false);
    expect(announced).toBe(0);

    writeFileSync(join(dir, 'gate'), '');
    expect(textOf(await call)).toContain('late');
    await eventually(() => expect(announced).toBeGreaterThan(0), 30_000);
    const next = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    expect(next.tools.map((tool) => tool.name)).toContain('slow__echo');
    expect((next._meta?.[UNAVAILABLE] as Array<{ server: string }>).map((entry) => entry.server)).toEqual(['broken']);
  }, 90_000);

  test('a client known to use only its first list (Claude Desktop) gets a first list that waits for the slow server', async () => {
    const dir = tempDir();
    harness = await inProcessGateway({ mcpServers: { slow: servers(dir).slow }, timeouts: { firstListSeconds: 0, startWaitSeconds: 120 } }, { dir, clientName: 'claude-ai' });
    let listed = false;
    const list = harness.client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema).finally(() => {
      listed = true;
    });
    await harness.client.ping();
    expect(listed).toBe(false);
    writeFileSync(join(dir, 'gate'), '');
    const first = await list;
    expect(first.tools.map((tool) => tool.name)).toContain('slow__echo');
    expect(first._meta).toBeUndefined();
  }, 90_000);
});

/**
 * What a start does once per server before the first tools/list competes with the servers' boot for
 * the cores (docs/performance.md, "Round 11: the first list"): nothing is built or worked out there
 * that nobody uses.
 */
describe('the start before the first tools/list', () => {
  test("builds no Ajv for a server's Client, and compares no lists before any was sent", async () => {
    const dir = tempDir();
    const toolsList = vi.spyOn(GatewayCore.prototype, 'toolsList');
    try {
      const mcpServers = { a: fixtureServer('a', join(dir, 'a.log')), b: fixtureServer('b', join(dir, 'b.log')), c: fixtureServer('c', join(dir, 'c.log')) };
      harness = await inProcessGateway({ mcpServers, permissions: { allow: ['mcp__a'] } }, { dir, capabilities: {} });
      const registry = harness.gateway.registry;
      await eventually(() => expect(registry.all().map((supervisor) => supervisor.state)).toEqual(['ready', 'ready', 'ready']), 30_000);
      // The list-changed check runs 50 ms after a change (upstream-session.ts): let it run.
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Nothing was sent to the client yet, so there was nothing to compare with.
      expect(toolsList).not.toHaveBeenCalled();
      for (const supervisor of registry.all()) {
        // The SDK's default is an Ajv instance with its formats, built with each Client and used only by
        // Client.listTools and callTool, which the gateway does not call.
        const validator = (supervisor as unknown as { client: { _jsonSchemaValidator: unknown } }).client._jsonSchemaValidator;
        expect(validator).toBeInstanceOf(SchemaValidators);
        expect((validator as unknown as { ajv: unknown }).ajv).toBeNull();
      }
      const listed = await harness.client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
      expect(listed.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['a__echo', 'b__echo', 'c__echo']));
      expect(toolsList).toHaveBeenCalledTimes(1);
    } finally {
      toolsList.mockRestore();
    }
  }, 60_000);
});

describe('just after the first tools/list', () => {
  test('the servers\' readiness, which the list already holds, is not compared with it again', async () => {
    const dir = tempDir();
    const toolsList = vi.spyOn(GatewayCore.prototype, 'toolsList');
    try {
      const mcpServers = { a: fixtureServer('a', join(dir, 'a.log')), b: fixtureServer('b', join(dir, 'b.log')), c: fixtureServer('c', join(dir, 'c.log')) };
      harness = await inProcessGateway({ mcpServers, permissions: { allow: ['mcp__a'] } }, { dir, capabilities: {} });
      const changed: unknown[] = [];
      harness.client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => void changed.push(notification));
      // Asked at once, as clients do: answered once the three are ready, their readiness' check (50 ms later, upstream-session.ts) still to come.
      const listed = await harness.client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
      expect(listed.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['a__echo', 'b__echo', 'c__echo']));
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Built once, for the answer: the check found nothing changed since (it built the list again, and hashed it, before).
      expect(toolsList).toHaveBeenCalledTimes(1);
      expect(changed).toEqual([]);
    } finally {
      toolsList.mockRestore();
    }
  }, 60_000);
});

describe('mcp-latch tools', () => {
  test('waits timeouts.firstListSeconds, not until a slow server is up, and names what is not ready', async () => {
    const dir = tempDir();
    const started = join(dir, 'slow.pid');
    const mcpServers = { ...servers(dir), slow: fixtureServer('slow', join(dir, 'slow.log'), [], { FIXTURE_GATE: join(dir, 'gate'), FIXTURE_START_FILE: started }) };
    const config = writeConfig(dir, { mcpServers, timeouts: { firstListSeconds: 10, connectSeconds: 600 } });
    const out = memoryOutput();
    // The slow server's gate never opens: only the first-list wait can end the command.
    expect(await listTools({ config, json: true }, out)).toBe(1);
    // The command stopped the server that was still starting: it does not outlive it.
    const pid = Number(readFileSync(started, 'utf8'));
    await eventually(() => expect(isAlive(pid)).toBe(false), 10_000);
    const result = JSON.parse(out.stdout.join('\n')) as { tools: Array<{ name: string }>; problems: Array<{ server: string; problem: string }> };
    expect(result.tools.map((tool) => tool.name)).toContain('fast__echo');
    expect(result.tools.some((tool) => tool.name.startsWith('slow__'))).toBe(false);
    expect(result.problems.find((problem) => problem.server === 'slow')?.problem).toBe('server "slow" is still starting after 10 s; wait longer with --wait SECONDS');
    expect(result.problems.find((problem) => problem.server === 'broken')?.problem).toMatch(/crashing on start as asked/);
  }, 60_000);

  test('--wait must be a number of seconds', async () => {
    const config = writeConfig(tempDir(), {});
    await expect(listTools({ config, wait: -1 }, memoryOutput())).rejects.toThrow('--wait takes a number of seconds, 0 or more');
  });
});
