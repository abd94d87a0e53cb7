import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { fixtureCalls, fixtureServer, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * docs/design.md#classifying-an-unknown-tool-in-order, step 5: in a tool classified by guess, any
 * string argument that looks like a path meets the deny rules, declared or not, at any depth, and a
 * path under a `$ref` is a path (round 11 review §7). bypassPermissions, where nothing else stops
 * the call; the fixture server records every call it receives.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const TOOLS = [
  { name: 'send', inputSchema: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } } } },
  { name: 'browser_navigate', inputSchema: { type: 'object', properties: { url: { type: 'string', format: 'uri' } } } },
  // The shape FastMCP (pydantic) writes for a model argument.
  { name: 'read_file', inputSchema: { type: 'object', properties: { req: { $ref: '#/$defs/ReadRequest' } }, $defs: { ReadRequest: { type: 'object', properties: { path: { type: 'string' } } } } } },
];

async function setUp(mode: 'bypassPermissions' | 'default' = 'bypassPermissions', ask: string[] = []): Promise<{ dir: string; secret: string; log: string }> {
  const dir = tempDir('candidates-');
  const secret = join(dir, 'secret');
  mkdirSync(secret);
  writeFileSync(join(secret, 'id'), 'key\n');
  const log = join(dir, 'fixture.log');
  const definition = join(dir, 'definition.json');
  writeFileSync(definition, JSON.stringify({ $extra: TOOLS }));
  harness = await startGateway(
    { mcpServers: { fix: fixtureServer('fix', log, [], { FIXTURE_DEFINITION_FILE: definition }) }, workspace: [dir], permissions: { defaultMode: mode, ask, deny: [`Read(${secret}/**)`] } },
    { dir },
  );
  return { dir, secret, log };
}

describe('deny rules meet path-looking strings of any argument', () => {
  test('undeclared, nested, in arrays, file: URLs in a url argument, and paths under a $ref are denied; other strings pass', async () => {
    const { secret, log } = await setUp();
    const id = join(secret, 'id');
    const denied: Array<[tool: string, args: Record<string, unknown>]> = [
      ['send', { to: id }],
      ['send', { path: id }],
      ['send', { to: 'x', opts: { target: { deep: [id] } } }],
      ['send', { files: ['a.txt', id] }],
      ['send', { to: `file://${id}` }],
      ['browser_navigate', { url: `file://${id}` }],
      ['read_file', { req: { path: id } }],
    ];
    for (const [tool, args] of denied) {
      const result = await harness!.client.callTool({ name: `fix__${tool}`, arguments: args });
      expect(textOf(result), JSON.stringify(args)).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
    }
    const passed = await harness!.client.callTool({ name: 'fix__send', arguments: { to: 'alice@example.com', body: 'lunch at noon? see notes/today.md' } });
    expect(textOf(passed)).toBe('called send');
    expect(fixtureCalls(log).map((entry) => entry.tool)).toEqual(['send']);
  }, 60_000);

  test('a path under a $ref is a path argument: a read inside the workspace is allowed in default mode, outside it asks', async () => {
    const { dir, log } = await setUp('default');
    writeFileSync(join(dir, 'a.txt'), 'a');
    expect(textOf(await harness!.client.callTool({ name: 'fix__read_file', arguments: { req: { path: join(dir, 'a.txt') } } }))).toBe('called read_file');
    expect(textOf(await harness!.client.callTool({ name: 'fix__read_file', arguments: { req: { path: '/etc/hostname' } } }))).toContain('outside the workspace');
    expect(fixtureCalls(log)).toHaveLength(1);
  }, 60_000);

  test('a file: URL in a url argument is a read, decided as one: ask rules and a URI that names no local file ask (round 12)', async () => {
    const dir = tempDir('candidates-ask-');
    const { log } = await setUp('bypassPermissions', [`Read(${dir}/private/**)`]);
    mkdirSync(join(dir, 'private'));
    writeFileSync(join(dir, 'private', 'k'), 'k');
    writeFileSync(join(dir, 'a.txt'), 'a');
    expect(textOf(await harness!.client.callTool({ name: 'fix__browser_navigate', arguments: { url: `file://${join(dir, 'a.txt')}` } }))).toBe('called browser_navigate');
    expect(textOf(await harness!.client.callTool({ name: 'fix__browser_navigate', arguments: { url: 'https://example.com/' } }))).toBe('called browser_navigate');
    // Each was allowed: only deny rules met it.
    expect(textOf(await harness!.client.callTool({ name: 'fix__browser_navigate', arguments: { url: `file://${join(dir, 'private', 'k')}` } }))).toContain(`Read(${dir}/private/**)`);
    expect(textOf(await harness!.client.callTool({ name: 'fix__send', arguments: { to: 'x', opts: { resourceUri: `file://${join(dir, 'private', 'k')}` } } }))).toContain(`Read(${dir}/private/**)`);
    expect(textOf(await harness!.client.callTool({ name: 'fix__browser_navigate', arguments: { url: 'file://fileserver/share/k' } }))).toContain('bad file: URI');
    expect(fixtureCalls(log).map((entry) => entry.tool)).toEqual(['browser_navigate', 'browser_navigate']);
  }, 60_000);

  test('past the number of strings it checks, the call asks (here: refused, no client prompts)', async () => {
    const { log } = await setUp();
    const many = Array.from({ length: 101 }, (_, n) => `notes/${n}.md`);
    const result = await harness!.client.callTool({ name: 'fix__send', arguments: { to: 'a', files: many } });
    expect(textOf(result)).toContain('more than 100 strings that may be paths');
    const within = await harness!.client.callTool({ name: 'fix__send', arguments: { to: 'a', files: many.slice(0, 100) } });
    expect(textOf(within)).toBe('called send');
    expect(fixtureCalls(log)).toHaveLength(1);
  }, 60_000);
});

describe("a `tools` entry's other arguments (round 30 review, F30-3)", () => {
  test('a string at a place the entry does not name still meets the deny rules; the named path is decided as before', async () => {
    const { dir, secret, log } = await setUp();
    await harness!.close();
    // The user describes `send` as reading `files[]`; the server also takes `attachment.path` (a lenient server, a misspelt pointer).
    harness = await startGateway(
      {
        mcpServers: { fix: fixtureServer('fix', log, [], { FIXTURE_DEFINITION_FILE: join(dir, 'definition.json') }) },
        workspace: [dir],
        tools: { fix__send: { kind: 'read', paths: ['files[]'] } },
        permissions: { defaultMode: 'bypassPermissions', deny: [`Read(${secret}/**)`] },
      },
      { dir },
    );
    // Before: called (a `tools` entry was trusted to name every path).
    const other = await harness.client.callTool({ name: 'fix__send', arguments: { to: 'a', attachment: { path: join(secret, 'id') } } });
    expect(textOf(other)).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
    expect(textOf(await harness.client.callTool({ name: 'fix__send', arguments: { to: 'a', files: [join(secret, 'id')] } }))).toContain(`Read(${secret}/**)`);
    // 150 named paths are each decided, and do not count toward the 100 strings looked at elsewhere.
    const many = Array.from({ length: 150 }, (_, n) => `notes/${n}.md`);
    expect(textOf(await harness.client.callTool({ name: 'fix__send', arguments: { to: 'a', files: many, note: 'see ./README.md' } }))).toBe('called send');
    expect(fixtureCalls(log).map((entry) => entry.tool)).toEqual(['send']);
  }, 60_000);
});
