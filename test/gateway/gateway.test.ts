import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CallToolResultSchema, ListToolsResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  BIN,
  EVERYTHING_SERVER,
  FS_SERVER,
  eventually,
  fixtureCalls,
  fixtureServer,
  isAlive,
  startGateway,
  tempDir,
  textOf,
  writeConfig,
} from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness } from '../helpers/in-process.js';

/**
 * The gateway as a faultless proxy: the SDK Client as the client, real servers behind it. Rules
 * allow the fixture and everything servers so these tests are about forwarding, not policy. The
 * proxy's own tests run the gateway in this process (helpers/in-process.ts); those about processes,
 * exit codes and the command line run the built gateway as a child process.
 */
describe('gateway in front of real servers', () => {
  let harness: InProcessHarness;
  let dir: string;
  let log: string;
  const listChanged: number[] = [];

  beforeAll(async () => {
    dir = tempDir();
    log = join(dir, 'fixture.log');
    writeFileSync(join(dir, 'hello.txt'), 'hello from disk\n');
    writeFileSync(join(dir, '.env'), 'SECRET=1');
    harness = await inProcessGateway(
      {
        mcpServers: {
          fs: { command: process.execPath, args: [FS_SERVER, dir] },
          everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] },
          fix: fixtureServer('fix', log, ['--noisy'], { FIXTURE_FILES: `${join(dir, 'hello.txt')}:${join(dir, '.env')}` }),
        },
        workspace: [dir],
        permissions: { allow: ['mcp__fix', 'mcp__everything'], deny: ['Read(**/.env)'] },
        // Fast restarts keep the crash test short.
        timeouts: { firstListSeconds: 30 },
      },
      { dir, onElicit: () => ({ action: 'accept', content: { answer: 'blue' } }) },
    );
    harness.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged.push(Date.now());
    });
  });

  afterAll(async () => {
    await harness?.close();
  });

  test('merges every server\'s tools as server__tool, valid for strict clients, in one page', async () => {
    const raw = await harness.client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    expect(raw.nextCursor).toBeUndefined();
    const names = raw.tools.map((tool) => tool.name);
    expect(names).toContain('fs__read_text_file');
    expect(names).toContain('everything__echo');
    expect(names).toContain('fix__echo');
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('fix__odd_name_with_spaces_');
    expect(names.filter((name) => name.startsWith('fix__very_long_tool_name'))).toHaveLength(1);
    // A tool with an outputSchema that does not compile must not break the client's whole list.
    const listed = await harness.client.listTools();
    expect(listed.tools.find((tool) => tool.name === 'fix__bad_output_schema')?.outputSchema).toBeUndefined();
  });

  test('forwards a call and returns the server\'s result', async () => {
    const result = await harness.client.callTool({ name: 'everything__echo', arguments: { message: 'through the latch' } });
    expect(textOf(result)).toContain('through the latch');
    const read = await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'hello.txt') } });
    expect(textOf(read)).toContain('hello from disk');
  });

  test('passes the client\'s _meta to the server, with the gateway\'s own progress token instead of the client\'s', async () => {
    await harness.client.request(
      { method: 'tools/call', params: { name: 'fix__echo', arguments: { text: 'with meta' }, _meta: { 'example.com/trace': 'abc-123', progressToken: 'client-token' } } },
      CallToolResultSchema,
    );
    const entry = fixtureCalls(log).find((call) => (call.args as { text?: string } | undefined)?.text === 'with meta');
    const meta = entry?.meta as Record<string, unknown> | undefined;
    expect(meta?.['example.com/trace']).toBe('abc-123');
    expect(meta?.progressToken).not.toBe('client-token');
    expect(meta?.progressToken).toEqual(expect.any(Number));
  });

  // Round 27 (docs/config.md, `timeouts.callSeconds`): the server sees what it would directly; every
  // call carried the gateway's token before, which the SDK's Server parses on each request.
  test('a call whose client asked for no progress reaches the server without a progress token', async () => {
    await harness.client.callTool({ name: 'fix__echo', arguments: { text: 'no progress asked' } });
    await harness.client.request({ method: 'tools/call', params: { name: 'fix__echo', arguments: { text: 'no progress, with meta' }, _meta: { 'example.com/trace': 'def-456' } } }, CallToolResultSchema);
    const calls = fixtureCalls(log);
    const bare = calls.find((call) => (call.args as { text?: string } | undefined)?.text === 'no progress asked');
    const withMeta = calls.find((call) => (call.args as { text?: string } | undefined)?.text === 'no progress, with meta');
    expect(bare).toBeDefined();
    expect(bare?.meta).toBeUndefined();
    expect(withMeta?.meta).toEqual({ 'example.com/trace': 'def-456' });
  });

  test('relays progress under the client\'s own progress token', async () => {
    const updates: number[] = [];
    const result = await harness.client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 1, steps: 4 } }, CallToolResultSchema, {
      onprogress: (progress) => updates.push(progress.progress),
      timeout: 20_000,
    });
    expect(result.isError).toBeFalsy();
    expect(updates.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < updates.length; i++) expect(updates[i]!).toBeGreaterThan(updates[i - 1]!);
  });

  test('passes a cancellation down: the server stops the call', async () => {
    const controller = new AbortController();
    const call = harness.client.callTool({ name: 'fix__slow', arguments: { ms: 20_000 } }, CallToolResultSchema, { signal: controller.signal });
    await eventually(() => expect(fixtureCalls(log).some((entry) => entry.tool === 'slow' && entry.args)).toBe(true));
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    await eventually(() => expect(fixtureCalls(log).some((entry) => entry.tool === 'slow' && entry.cancelled === true)).toBe(true));
    expect(fixtureCalls(log).some((entry) => entry.tool === 'slow' && entry.finished === true)).toBe(false);
  });

  test('merges resources, templates and prompts; reads and prompts are routed to their server', async () => {
    const { resources } = await harness.client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain('demo://resource/static/document/architecture.md');
    const read = await harness.client.readResource({ uri: 'demo://resource/static/document/architecture.md' });
    expect(read.contents.length).toBeGreaterThan(0);
    // A template-derived URI is routed to the server whose template matches.
    const { resourceTemplates } = await harness.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');
    const dynamic = await harness.client.readResource({ uri: 'demo://resource/dynamic/text/1' });
    expect(dynamic.contents[0]?.uri).toBe('demo://resource/dynamic/text/1');
    const { prompts } = await harness.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(['everything__simple-prompt', 'everything__args-prompt']));
    const prompt = await harness.client.getPrompt({ name: 'everything__args-prompt', arguments: { city: 'Oslo' } });
    expect(JSON.stringify(prompt.messages)).toContain('Oslo');
    const completion = await harness.client.complete({ ref: { type: 'ref/prompt', name: 'everything__completable-prompt' }, argument: { name: 'department', value: 'En' } });
    expect(completion.completion.values).toContain('Engineering');
  });

  test('a file: resource read goes through the rules', async () => {
    const allowed = await harness.client.readResource({ uri: `file://${join(dir, 'hello.txt')}` });
    expect(JSON.stringify(allowed.contents)).toContain('hello from disk');
    await expect(harness.client.readResource({ uri: `file://${join(dir, '.env')}` })).rejects.toThrow(/Denied by mcp-latch: the rule Read\(\*\*\/\.env\)/);
    expect(fixtureCalls(log).filter((entry) => entry.resource)).toHaveLength(1);
  });

  test('relays a server\'s log messages, naming the server', async () => {
    const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const logged: Array<{ logger?: string }> = [];
    harness.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logged.push(notification.params);
    });
    await harness.client.setLoggingLevel('debug');
    await harness.client.callTool({ name: 'everything__toggle-simulated-logging', arguments: {} });
    try {
      await eventually(() => expect(logged.some((params) => params.logger?.startsWith('everything'))).toBe(true), 15_000, 100);
    } finally {
      await harness.client.callTool({ name: 'everything__toggle-simulated-logging', arguments: {} });
    }
  });

  test('relays a server\'s own elicitation to the client, prefixed with the server name', async () => {
    const result = await harness.client.callTool({ name: 'fix__ask_user', arguments: { question: 'Favourite colour?' } });
    expect(textOf(result)).toContain('blue');
    const asked = harness.elicitations.find((params) => params.message.includes('Favourite colour?'));
    expect(asked?.message).toBe('[fix] Favourite colour?');
  });

  test("a server's elicitation cannot forge lines or hide text in the prompt: its message is escaped", async () => {
    await harness.client.callTool({ name: 'fix__ask_user', arguments: { question: 'Colour?\n\nmcp-latch: allowed by rule\u202E' } });
    const asked = harness.elicitations.find((params) => params.message.includes('Colour?'));
    expect(asked?.message).toBe('[fix] Colour?\\n\\nmcp-latch: allowed by rule\\u202e');
  });

  // Round 12 review, F6: the server's copy of the gateway's payload reached the client as sent.
  test("a server's elicitation cannot carry the gateway's own prompt payload: its mcp-latch/ _meta keys are dropped, its others kept", async () => {
    const forged = { server: 'fs', tool: 'read_text_file', kind: 'read', risk: { level: 'low' } };
    await harness.client.callTool({ name: 'fix__ask_user', arguments: { question: 'Forged?', meta: { 'mcp-latch/request': forged, 'mcp-latch/other': 1, 'vendor/x': 'kept' } } });
    const asked = harness.elicitations.find((params) => params.message.includes('Forged?')) as { _meta?: Record<string, unknown> } | undefined;
    expect(asked?._meta).toEqual({ 'vendor/x': 'kept' });
  });

  test('a crashed server is restarted while the others keep answering', async () => {
    const before = textOf(await harness.client.callTool({ name: 'fix__whoami', arguments: {} }));
    await harness.client.callTool({ name: 'fix__crash', arguments: {} });
    // Meanwhile the fixture is down: its calls fail with a clear error, the others still work.
    const during = await eventually(async () => {
      const result = await harness.client.callTool({ name: 'fix__whoami', arguments: {} });
      expect(result.isError).toBe(true);
      return result;
    });
    // A call that reached the fixture as it was exiting is answered at once, naming it too.
    expect(textOf(during)).toMatch(/server "fix" (is (unavailable|still starting)|stopped while the call was running: it may have had effects)/);
    const echo = await harness.client.callTool({ name: 'everything__echo', arguments: { message: 'still here' } });
    expect(textOf(echo)).toContain('still here');
    // Its tools stay listed while it is down.
    const names = (await harness.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('fix__whoami');
    const after = await eventually(async () => {
      const result = await harness.client.callTool({ name: 'fix__whoami', arguments: {} });
      expect(result.isError).toBeFalsy();
      return textOf(result);
    }, 20_000, 200);
    expect(after).not.toBe(before);
  });

  test('hot reload adds a server and tells the client the list changed', async () => {
    const config = JSON.parse(readFileSync(harness.configPath, 'utf8')) as { mcpServers: Record<string, unknown> };
    config.mcpServers.extra = fixtureServer('extra', join(dir, 'extra.log'));
    (config as unknown as { permissions: { allow: string[] } }).permissions.allow.push('mcp__extra');
    const seen = listChanged.length;
    writeFileSync(harness.configPath, JSON.stringify(config, null, 2));
    await eventually(() => expect(listChanged.length).toBeGreaterThan(seen), 20_000);
    const names = (await harness.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('extra__echo');
  });

  test('hot reload restarts a changed server and stops a removed one', async () => {
    const config = JSON.parse(readFileSync(harness.configPath, 'utf8')) as { mcpServers: Record<string, { env?: Record<string, string> }> };
    const before = textOf(await harness.client.callTool({ name: 'extra__whoami', arguments: {} }));
    config.mcpServers.extra!.env = { ...config.mcpServers.extra!.env, CHANGED: '1' };
    writeFileSync(harness.configPath, JSON.stringify(config, null, 2));
    const restarted = await eventually(async () => {
      const pid = textOf(await harness.client.callTool({ name: 'extra__whoami', arguments: {} }));
      expect(pid).toMatch(/^\d+$/);
      expect(pid).not.toBe(before);
      return Number(pid);
    }, 20_000, 200);
    expect(isAlive(Number(before))).toBe(false);
    delete config.mcpServers.extra;
    writeFileSync(harness.configPath, JSON.stringify(config, null, 2));
    await eventually(async () => expect((await harness.client.listTools()).tools.map((tool) => tool.name)).not.toContain('extra__whoami'), 20_000, 200);
    await eventually(() => expect(isAlive(restarted)).toBe(false), 10_000);
  });

  test('an invalid config on reload is refused and the last good one stays in force', async () => {
    const good = readFileSync(harness.configPath, 'utf8');
    writeFileSync(harness.configPath, good.replace('"mcpServers"', '"mcpServerz"'));
    await eventually(() => expect(harness.stderr()).toContain('config reload refused'));
    const echo = await harness.client.callTool({ name: 'everything__echo', arguments: { message: 'last good config' } });
    expect(textOf(echo)).toContain('last good config');
    writeFileSync(harness.configPath, good);
  });
});

describe('bad configs are refused with a message naming the key', () => {
  test('serve and validate both refuse and exit non-zero', () => {
    const dir = tempDir();
    const path = writeConfig(dir, {
      mcpServers: { 'bad.name': { command: 'x' }, ok: { command: 'node', args: [1 as unknown as string] } },
      permissions: { deny: ['Bash(rm * -rf)'], defaultMode: 'sometimes' as 'default' },
    });
    for (const command of ['serve', 'validate']) {
      const run = spawnSync(process.execPath, [BIN, command, '--config', path], { encoding: 'utf8', input: '', timeout: 20_000 });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('mcpServers["bad.name"]');
      expect(run.stderr).toContain('mcpServers.ok.args[0]');
      expect(run.stderr).toContain('permissions.defaultMode');
      expect(run.stdout).toBe('');
    }
  });

  test('a bad rule is named with its position', () => {
    const dir = tempDir();
    const path = writeConfig(dir, { permissions: { deny: ['Read(~/.ssh/**)', 'Bash(rm * -rf)'] } });
    const run = spawnSync(process.execPath, [BIN, 'validate', '--config', path], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('permissions.deny[1]');
    expect(run.stderr).toContain('Bash(rm * -rf)');
  });

  test('duplicate server names are refused (JSON.parse would silently keep the last)', () => {
    const dir = tempDir();
    const path = join(dir, 'dup.json');
    writeFileSync(path, '{"mcpServers": {"fs": {"command": "a"}, "fs": {"command": "b"}}}');
    const run = spawnSync(process.execPath, [BIN, 'validate', '--config', path], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('mcpServers.fs: duplicate key "fs"');
  });
});

// Round 13 review R15: a server's 2,000 questions during one call were all put before the person at once.
test('a server\'s questions reach the person one at a time, at most 32 waiting; the rest are refused with an error naming the limit, never a "decline" the person did not give', async () => {
  const dir = tempDir();
  let open = 0;
  let most = 0;
  let shown = 0;
  const harness = await inProcessGateway(
    { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix'] } },
    {
      dir,
      onElicit: async () => {
        open += 1;
        shown += 1;
        most = Math.max(most, open);
        await new Promise((resolve) => setImmediate(resolve));
        open -= 1;
        return { action: 'accept', content: { answer: 'yes' } };
      },
    },
  );
  try {
    const result = await harness.client.callTool({ name: 'fix__ask_user', arguments: { count: 200 } });
    const actions = JSON.parse(textOf(result)) as string[];
    // 32 wait at most at any moment; how many more are taken depends on how fast the person answers.
    expect(most).toBe(1);
    expect(actions.filter((action) => action === 'accept')).toHaveLength(shown);
    expect(shown).toBeGreaterThanOrEqual(32);
    const refused = actions.filter((action) => action !== 'accept');
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(['error: MCP error -32600: mcp-latch cannot relay this request: 32 of its questions are waiting for the person already (the limit)']));
    expect(actions).toHaveLength(200);
  } finally {
    await harness.close();
  }
});

describe('servers that fail or hang', () => {
  test('a call past its server\'s timeout is a tool error naming the server, and the server is told to stop', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    // Claude Code's per-server `timeout` (ms) applies to each call.
    const harness = await inProcessGateway({ mcpServers: { fix: { ...fixtureServer('fix', log), timeout: 600 } }, permissions: { allow: ['mcp__fix'] } }, { dir });
    try {
      // A call that reports progress keeps itself alive; one that is silent runs into the timeout.
      const result = await harness.client.callTool({ name: 'fix__hang', arguments: {} }, CallToolResultSchema, { timeout: 30_000 });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('mcp-latch: server "fix" did not answer within mcpServers.fix.timeout (0.6 s). The call was forwarded and then cancelled at the server: it may have had effects. Raise mcpServers.fix.timeout for slow tools.');
      await eventually(() => expect(fixtureCalls(log).some((entry) => entry.tool === 'hang' && entry.cancelled === true)).toBe(true));
      // The server is still fine for the next call.
      expect(textOf(await harness.client.callTool({ name: 'fix__echo', arguments: { text: 'after' } }))).toContain('after');
    } finally {
      await harness.close();
    }
  });

  test('a server that fails to start does not stop the others', async () => {
    const dir = tempDir();
    const harness = await inProcessGateway(
      {
        mcpServers: { broken: fixtureServer('broken', join(dir, 'b.log'), ['--crash-on-start']), fix: fixtureServer('fix', join(dir, 'f.log')) },
        permissions: { allow: ['mcp__fix'] },
      },
      { dir },
    );
    try {
      const result = await harness.client.callTool({ name: 'fix__echo', arguments: { text: 'alive' } });
      expect(textOf(result)).toContain('alive');
      expect(harness.stderr()).toContain('failed to start');
    } finally {
      await harness.close();
    }
  });
});

describe('lifecycle', () => {
  test('no child or grandchild process survives the gateway when the client goes away', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'grandchild.pid');
    const harness = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'log'), ['--spawn-child'], { FIXTURE_CHILD_PID_FILE: pidFile }) }, permissions: { allow: ['mcp__fix'] } }, { dir });
    const serverPid = Number(textOf(await harness.client.callTool({ name: 'fix__whoami', arguments: {} })));
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    const gatewayPid = harness.transport.pid!;
    expect(isAlive(serverPid) && isAlive(grandchild) && isAlive(gatewayPid)).toBe(true);
    await harness.close(); // closes the gateway's stdin
    await eventually(() => expect(isAlive(gatewayPid)).toBe(false), 15_000);
    await eventually(() => expect(isAlive(serverPid)).toBe(false), 15_000);
    await eventually(() => expect(isAlive(grandchild)).toBe(false), 15_000);
  });

  test('a server that exits during a call answers that call at once, with the reason', async () => {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix'] } }, { dir });
    try {
      const pid = Number(textOf(await harness.client.callTool({ name: 'fix__whoami', arguments: {} })));
      const call = harness.client.callTool({ name: 'fix__slow', arguments: { ms: 60_000 } }, CallToolResultSchema, { timeout: 90_000 });
      await eventually(() => expect(fixtureCalls(join(dir, 'log')).some((entry) => entry.tool === 'slow' && entry.args)).toBe(true));
      process.kill(pid, 'SIGKILL');
      const result = await call;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('server "fix" stopped while the call was running: it may have had effects.');
    } finally {
      await harness.close();
    }
  });
});

describe('a server\'s own requests are relayed when the client supports them', () => {
  test('sampling and roots reach the client; the client\'s roots join the workspace', async () => {
    const { CreateMessageRequestSchema, ListRootsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const dir = tempDir();
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const configPath = writeConfig(dir, {
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] }, fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      permissions: { allow: ['mcp__everything'] },
    });
    writeFileSync(join(dir, 'a.txt'), 'inside the client root');
    const client = new Client({ name: 'relay-test', version: '1' }, { capabilities: { sampling: {}, roots: { listChanged: true } } });
    const sampled: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      sampled.push(JSON.stringify(request.params.messages));
      return { role: 'assistant', content: { type: 'text', text: 'sampled answer' }, model: 'test-model' };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file://${dir}`, name: 'project' }] }));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', configPath], stderr: 'ignore' }));
    try {
      const sampling = await client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 5 } });
      expect(textOf(sampling)).toContain('sampled answer');
      expect(sampled.join()).toContain('say hi');
      const roots = await client.callTool({ name: 'everything__get-roots-list', arguments: {} });
      expect(textOf(roots)).toContain(dir);
      // No workspace in the config: only the client's root makes this read "inside the workspace".
      const read = await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'a.txt') } });
      expect(textOf(read)).toBe('inside the client root');
    } finally {
      await client.close();
    }
  });
});
