import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { faultServer } from '../helpers/faults.js';
import { MIN_RELIST_MS } from '../../src/downstream/supervisor.js';
import { eventually, ROOT, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * What one server lists cannot end or stall the gateway (docs/config.md, "limits"): an entry nested
 * deeper than 100 levels is dropped, and one list keeps at most `limits.messageMB` of JSON, each
 * with one warning naming the limit (test/fixtures/fault-server.mjs, list-deep and list-huge).
 * Before, the gateway exited with a RangeError when it compared the lists it had sent the client.
 * Driven by the SDK Client through the built gateway, with a second server `w` that works.
 */

/** The gateway's warnings whose message contains `text`. */
function warnings(harness: Harness, text: string): Array<{ msg: string; dropped?: number; first?: string; listed?: number }> {
  return harness
    .stderr()
    .split('\n')
    .filter((line) => line.includes(text))
    .map((line) => JSON.parse(line) as { msg: string });
}

/** Both servers still answer calls (the gateway did not exit when it compared the lists, 50 ms after they changed). */
async function bothServe(harness: Harness): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(textOf(await harness.client.callTool({ name: 'w__echo', arguments: { text: 'w still served' } }))).toContain('w still served');
  expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'f still served' } }))).toContain('f still served');
}

describe('serve: entries nested past the limit', () => {
  test('a tool whose inputSchema nests 2,500 or 1,000 properties deep and a resource whose _meta nests 5,000 arrays deep are dropped, one warning a list naming the limit; the gateway lists and calls the rest and does not exit', async () => {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { f: faultServer('list-deep', join(dir, 'f-starts')), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] } }, { dir });
    try {
      const names = (await harness.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('w__echo');
      expect(names).toContain('f__echo');
      // 45 levels of properties, 92 levels of JSON as listed: within the limit.
      expect(names).toContain('f__shallow_enough');
      expect(names).not.toContain('f__deep_input');
      expect(names).not.toContain('f__deep_input_1000');
      const resources = (await harness.client.listResources()).resources.map((resource) => resource.uri);
      expect(resources).toEqual(['fault://readme']);
      // The log is read as it comes: the warning may follow the list's answer.
      const tools = await eventually(() => {
        const found = warnings(harness, 'entries of tools/list nested deeper');
        expect(found).toHaveLength(1);
        return found;
      });
      expect(tools[0]).toMatchObject({ dropped: 2, first: 'deep_input', msg: 'dropping entries of tools/list nested deeper than 100 levels, the most mcp-latch passes on (docs/config.md, "limits")' });
      await eventually(() => expect(warnings(harness, 'entries of resources/list nested deeper')).toMatchObject([{ dropped: 1, first: 'deep' }]));
      await bothServe(harness);
      expect(harness.stderr()).not.toContain('RangeError');
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe('serve: a list past limits.messageMB of JSON', () => {
  test('60 pages of one tool of 0.9 MB with limits.messageMB 1: the entries up to 1 MB are listed, the rest dropped with one warning naming the limit; both servers are served', async () => {
    const dir = tempDir();
    const harness = await startGateway(
      { mcpServers: { f: faultServer('list-huge', join(dir, 'f-starts'), { FAULT_MB: '0.9' }), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] }, limits: { messageMB: 1 } },
      { dir },
    );
    try {
      const names = (await harness.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('w__echo');
      expect(names).toContain('f__huge_0');
      expect(names).not.toContain('f__huge_1');
      const stopped = await eventually(() => {
        const found = warnings(harness, 'tools/list stopped');
        expect(found).toHaveLength(1);
        return found[0]!;
      });
      expect(stopped.msg).toBe(`tools/list stopped: its entries pass 1 MB of JSON (mcp-latch reads at most 100 pages, 10,000 entries and limits.messageMB (1 MB) of JSON of one list); the first ${stopped.listed} are listed`);
      expect(stopped.listed).toBe(names.filter((name) => name.startsWith('f__')).length);
      await bothServe(harness);
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe('serve: the servers\' lists together past limits.messageMB', () => {
  test('two servers listing 0.8 MB each with limits.messageMB 1: the answer stops at 1 MB of entries, the entries of the server listed last past it left out with one warning naming the limit; the list never fails, and the server listed last is still called', async () => {
    const dir = tempDir();
    const harness = await startGateway(
      {
        mcpServers: {
          w: faultServer('works', join(dir, 'w-starts')),
          // Each lists its tools, huge_0 and huge_1 (0.4 MB each), and stops at huge_2, past 1 MB of its own.
          a: faultServer('list-huge', join(dir, 'a-starts'), { FAULT_MB: '0.4' }),
          b: faultServer('list-huge', join(dir, 'b-starts'), { FAULT_MB: '0.4' }),
        },
        permissions: { allow: ['mcp__w', 'mcp__a', 'mcp__b'] },
        limits: { messageMB: 1 },
      },
      { dir },
    );
    try {
      const tools = (await harness.client.listTools()).tools;
      const names = tools.map((tool) => tool.name);
      expect(names).toContain('w__echo');
      expect(names).toContain('a__huge_1');
      expect(names).toContain('b__echo');
      expect(names).not.toContain('b__huge_0');
      expect(names).not.toContain('b__huge_1');
      expect(tools.reduce((bytes, tool) => bytes + Buffer.byteLength(JSON.stringify(tool)) + 1, 0)).toBeLessThanOrEqual(1024 * 1024);
      // Listed again: the same answer, and no second warning.
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toEqual(names);
      await eventually(() =>
        expect(warnings(harness, 'answers to clients stop')).toEqual([
          expect.objectContaining({ listed: names.length, leftOut: 2, msg: 'tools/list answers to clients stop at limits.messageMB (1 MB) of JSON, the servers\' lists together: 2 entries of the servers listed last (b) are left out (docs/config.md, "limits")' }),
        ]),
      );
      expect(textOf(await harness.client.callTool({ name: 'b__echo', arguments: { text: 'b served' } }))).toContain('b served');
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe('serve: a tool whose schema holds 150,000 strings', () => {
  test('under policy.toolDescriptions "hide" the list is answered, the tool scanned and listed, and its call allowed; before, the scan threw (a spread of 150,000 arguments) and every client\'s tools/list failed', async () => {
    const dir = tempDir();
    const harness = await startGateway(
      { mcpServers: { f: faultServer('list-wide', join(dir, 'f-starts')), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] }, policy: { toolDescriptions: 'hide' } },
      { dir },
    );
    try {
      const names = (await harness.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('w__echo');
      expect(names).toContain('f__wide_enum');
      // Forwarded: the fault server has no such tool to run, and says so.
      await expect(harness.client.callTool({ name: 'f__wide_enum', arguments: { pick: 'v7' } })).rejects.toThrow(/Unknown tool: wide_enum/);
      await bothServe(harness);
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe('serve: outputSchemas past the limit, and many to compile', () => {
  test('an outputSchema of 3,000 properties (~170 KB) is dropped uncompiled with one warning naming the limit; its tool is listed and called without it', async () => {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { f: faultServer('list-schemas', join(dir, 'f-starts')), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] } }, { dir });
    try {
      const tools = (await harness.client.listTools()).tools;
      const big = tools.find((tool) => tool.name === 'f__big_output');
      expect(big).toBeDefined();
      expect(big!.outputSchema).toBeUndefined();
      await eventually(() =>
        expect(warnings(harness, 'dropping outputSchemas over')).toEqual([
          expect.objectContaining({ dropped: 1, first: 'big_output', msg: 'dropping outputSchemas over 16 KB of JSON, the most mcp-latch compiles (docs/config.md, "limits"); their tools are listed without them' }),
        ]),
      );
      await bothServe(harness);
    } finally {
      await harness.close();
    }
  }, 60_000);

  test('40 tools with their own outputSchema (~3 KB each): another server is called while they are compiled; before, ajv compiled them all in one turn and every call waited', async () => {
    const dir = tempDir();
    const harness = await startGateway(
      {
        mcpServers: {
          f: faultServer('list-schemas', join(dir, 'f-starts'), { FAULT_SCHEMAS: '40', FAULT_LISTED: join(dir, 'f-listed') }),
          // w starts once f's list was sent: it is ready, and called, while the gateway reads f's list.
          w: faultServer('works', join(dir, 'w-starts'), { FAULT_CALLS_STDERR: '1', FAULT_INIT_AFTER: join(dir, 'f-listed') }),
        },
        permissions: { allow: ['mcp__f', 'mcp__w'] },
      },
      // A cache of its own: the schemas noted as compiling by an earlier run of this build (beside
      // the code cache, listing.ts) are not compiled again, and f was ready before w was called.
      { dir, env: { XDG_CACHE_HOME: join(dir, 'cache') } },
    );
    try {
      // One log, written in order: where w's call is, and where f became ready.
      const lineOf = (match: (line: string) => boolean) => harness.stderr().split('\n').findIndex(match);
      const fReady = () => lineOf((line) => line.includes('"server ready"') && line.includes('"server":"f"'));
      const wCalled = () => lineOf((line) => line.includes('fault: called echo'));
      await eventually(() => expect(lineOf((line) => line.includes('"server ready"') && line.includes('"server":"w"'))).toBeGreaterThanOrEqual(0));
      expect(textOf(await harness.client.callTool({ name: 'w__echo', arguments: { text: 'answered meanwhile' } }))).toContain('answered meanwhile');
      await eventually(() => expect(fReady()).toBeGreaterThanOrEqual(0), 120_000, 200);
      expect(wCalled()).toBeGreaterThanOrEqual(0);
      expect(wCalled()).toBeLessThan(fReady());
      const names = (await harness.client.listTools()).tools.filter((tool) => tool.name.startsWith('f__schema_') && tool.outputSchema);
      expect(names).toHaveLength(40);
    } finally {
      await harness.close();
    }
  }, 180_000);
});

describe('serve: a server that says its list changed, a thousand times', () => {
  test('one read of its lists at a time, and one after the notifications that came during it: 1,000 notifications are 2 reads, and a change during a read is listed', async () => {
    const dir = tempDir();
    const lists = join(dir, 'lists');
    // addedTools "ask": f adds a tool as it runs, which is listed at once (docs/pins.md, "A tool added later").
    const harness = await startGateway({ mcpServers: { f: faultServer('list-changed', join(dir, 'f-starts'), { FAULT_LISTS: lists }), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] }, policy: { addedTools: 'ask' } }, { dir });
    const reads = () => readFileSync(lists, 'utf8').split('\n').filter(Boolean).length;
    try {
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).not.toContain('f__added_after');
      expect(reads()).toBe(1);
      expect(textOf(await harness.client.callTool({ name: 'f__notify_changed', arguments: { count: 1000 } }))).toBe('notified');
      await eventually(async () => expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('f__added_after'));
      // f answers in order: once this call is answered, every list the gateway asked for before it was read.
      expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'f still served' } }))).toContain('f still served');
      expect(textOf(await harness.client.callTool({ name: 'w__echo', arguments: { text: 'w still served' } }))).toContain('w still served');
      // The start, the read the first notification began, and one after the notifications during it.
      expect(reads()).toBe(3);
    } finally {
      await harness.close();
    }
  }, 60_000);

  test('a server that says its list changed with every list it sends is read again at most once a second, not back to back for as long as it runs', async () => {
    const dir = tempDir();
    const lists = join(dir, 'lists');
    const harness = await startGateway({ mcpServers: { f: faultServer('list-changing', join(dir, 'f-starts'), { FAULT_LISTS: lists }), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] } }, { dir });
    const reads = () => readFileSync(lists, 'utf8').split('\n').filter(Boolean).length;
    try {
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('f__echo');
      expect(textOf(await harness.client.callTool({ name: 'f__notify_changed', arguments: { count: 1 } }))).toBe('notified');
      const from = { reads: reads(), at: Date.now() };
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const read = reads() - from.reads;
      const seconds = (Date.now() - from.at) / 1000;
      // Back to back, this was hundreds of reads a second; each still follows the last change.
      expect(read).toBeGreaterThanOrEqual(2);
      expect(read).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
      expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'f still served' } }))).toContain('f still served');
      expect(textOf(await harness.client.callTool({ name: 'w__echo', arguments: { text: 'w still served' } }))).toContain('w still served');
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe('serve: a server whose list changes while the gateway reads it at start', () => {
  test('the change is read once the server is ready: the tool it added is listed (before, the notification was dropped and the stale list stayed until the next one), a second after the start\'s read began as after any read (before, at once, while other servers were still starting)', async () => {
    const dir = tempDir();
    const lists = join(dir, 'lists');
    const harness = await startGateway({ mcpServers: { f: faultServer('list-changed', join(dir, 'f-starts'), { FAULT_LISTS: lists, FAULT_CHANGE_AT_START: '1' }), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] } }, { dir });
    try {
      await eventually(async () => expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('f__added_after'));
      const reads = readFileSync(lists, 'utf8').split('\n').filter(Boolean);
      expect(reads).toHaveLength(2);
      // When the server got each list request: MIN_RELIST_MS apart, less how long the first took to arrive.
      const [first, second] = reads.map((line) => Number(line.split(' ')[1]));
      expect(second! - first!).toBeGreaterThanOrEqual(MIN_RELIST_MS / 2);
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe('serve: the description scan when another server\'s list changes', () => {
  test('a tool\'s scan of its own text is kept, and only its check of the other tools\' names redone: a description naming the tool another server adds is flagged then (before, every server\'s scans were redone after any list change)', async () => {
    const dir = tempDir();
    const scans = join(dir, 'scans');
    const harness = await startGateway(
      {
        mcpServers: {
          f: faultServer('list-changed', join(dir, 'f-starts'), { FAULT_LISTS: join(dir, 'lists') }),
          w: faultServer('works', join(dir, 'w-starts'), { FAULT_ECHO_DESCRIPTION: 'mcp-latch-test: count scans. Echoes its text; call added_after first.' }),
        },
        permissions: { allow: ['mcp__f', 'mcp__w'] },
        // addedTools "ask": the tool f adds is listed at once (docs/pins.md, "A tool added later").
        policy: { toolDescriptions: 'deny', addedTools: 'ask' },
      },
      // Each pattern of the scan run on w's echo description is a line of `scans`.
      { dir, nodeArgs: ['--import', join(ROOT, 'test/fixtures/count-scans.mjs')], env: { COUNT_SCANS_FILE: scans } },
    );
    const scanned = () => (existsSync(scans) ? readFileSync(scans, 'utf8').split('\n').filter(Boolean).length : 0);
    try {
      expect(textOf(await harness.client.callTool({ name: 'w__echo', arguments: { text: 'before' } }))).toContain('before');
      const once = scanned();
      expect(once).toBeGreaterThan(0);
      expect(textOf(await harness.client.callTool({ name: 'f__notify_changed', arguments: { count: 1 } }))).toBe('notified');
      await eventually(async () => expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('f__added_after'));
      const denied = await harness.client.callTool({ name: 'w__echo', arguments: { text: 'after' } });
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).toContain('its description was flagged (other-tools)');
      expect(scanned()).toBe(once);
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe('serve: the comparison of the lists a client was sent', () => {
  test('a throw while comparing them, after a server\'s list changed, is logged and the gateway goes on serving; before the guard, it left the process', async () => {
    const dir = tempDir();
    const lists = join(dir, 'lists');
    const harness = await startGateway(
      {
        mcpServers: { f: faultServer('list-changed', join(dir, 'f-starts'), { FAULT_LISTS: lists, FAULT_ADDED_DESCRIPTION: 'mcp-latch-test: throw when hashed' }), w: faultServer('works', join(dir, 'w-starts')) },
        permissions: { allow: ['mcp__f', 'mcp__w'] },
      },
      // Nothing a server lists makes the comparison throw now (listing.ts bounds it): the fault is put there.
      { dir, nodeArgs: ['--import', join(ROOT, 'test/fixtures/throw-when-hashed.mjs')] },
    );
    try {
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('f__echo');
      expect(textOf(await harness.client.callTool({ name: 'f__notify_changed', arguments: { count: 1 } }))).toBe('notified');
      await eventually(() => expect(harness.stderr()).toContain('could not compare the lists with what the client was sent'));
      expect(harness.stderr()).toContain('a hash that throws');
      await bothServe(harness);
    } finally {
      await harness.close();
    }
  }, 60_000);
});
