import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { readAudit } from '../../src/store/audit.js';
import { tokenHash } from '../../src/team/identity.js';
import { faultServer } from '../helpers/faults.js';
import { eventually, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * A server answers with a result the MCP schema refuses (test/fixtures/fault-server.mjs,
 * invalid-answers and invalid-list). The client gets -32603 (the server is at fault, not its params)
 * with one line naming the server, what was asked and what is wrong; for a tools/call, that the call
 * was forwarded. The gateway keeps serving. Driven by the SDK Client through the built gateway.
 */
const FORWARDED = '; the call was forwarded to the server and may have had effects.';
const INVALID_CALL = `mcp-latch: server "f" answered tools/call "invalid_result" with an invalid result: content[0].type must be one of "text", "image", "audio", "resource_link", "resource"${FORWARDED}`;

async function rejection(request: Promise<unknown>): Promise<McpError> {
  const error = await request.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

/** The gateway's warnings that a server's answer was refused. */
function warnings(harness: Harness): Array<Record<string, unknown>> {
  return harness
    .stderr()
    .split('\n')
    .filter((line) => line.includes('answer refused by the MCP schema'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function calledTools(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

describe('serve: answers the schema refuses', () => {
  let dir: string;
  let harness: Harness;

  beforeAll(async () => {
    dir = tempDir();
    harness = await startGateway({ mcpServers: { f: faultServer('invalid-answers', join(dir, 'starts'), { FAULT_CALLS: join(dir, 'calls') }) }, permissions: { allow: ['mcp__f'] } }, { dir });
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
  });

  test('an invalid tools/call result: -32603 in one line that says the call was forwarded; the next call works; the audit holds the forwarded call', async () => {
    const error = await rejection(harness.client.callTool({ name: 'f__invalid_result', arguments: {} }));
    expect(error.code).toBe(-32603);
    expect(error.message).toBe(`MCP error -32603: ${INVALID_CALL}`);
    expect(error.message).not.toMatch(/not run|was not forwarded/);
    expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'after' } }))).toContain('after');
    expect(calledTools(join(dir, 'calls'))).toEqual(['invalid_result', 'echo']);
    // The audit records decisions, each before its call leaves: the invalid answer came after.
    const records = await eventually(() => {
      const read = readAudit(join(dir, 'mcp-latch-audit.jsonl'), 100).filter((record) => record.tool === 'invalid_result');
      expect(read).toHaveLength(1);
      return read;
    });
    expect(records[0]).toMatchObject({ server: 'f', decision: 'allow', by: 'rule', rule: 'mcp__f' });
    // The person running the gateway sees it in its log too.
    await eventually(() => expect(warnings(harness)).toContainEqual(expect.objectContaining({ level: 40, server: 'f', err: INVALID_CALL })));
  });

  test.each([
    ['resources/read', (h: Harness) => h.client.readResource({ uri: 'fault://readme' }), 'answered resources/read "fault://readme" with an invalid result: contents[0].text: expected string, received number.'],
    ['prompts/get', (h: Harness) => h.client.getPrompt({ name: 'f__greet' }), 'answered prompts/get "greet" with an invalid result: messages[0].role must be one of "user", "assistant".'],
    ['completion/complete', (h: Harness) => h.client.complete({ ref: { type: 'ref/prompt', name: 'f__greet' }, argument: { name: 'who', value: 'x' } }), 'answered completion/complete with an invalid result: completion.values: expected array, received string.'],
  ])('an invalid %s result: -32603 in one line; the gateway keeps serving', async (_method, request, problem) => {
    const error = await rejection(request(harness));
    expect(error.code).toBe(-32603);
    expect(error.message).toBe(`MCP error -32603: mcp-latch: server "f" ${problem}`);
    // The log reaches the test on stderr, which may come after the answer on stdout.
    await eventually(() => expect(warnings(harness)).toContainEqual(expect.objectContaining({ level: 40, server: 'f', err: `mcp-latch: server "f" ${problem}` })));
    expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'after' } }))).toContain('after');
  });

  // 120,000 invalid blocks in one answer held every other call 19 s while zod built an issue for each (round 13 review R12).
  test.each([
    ['10,001 text blocks', { count: 10_001 }, '10,001'],
    ['12,000 image blocks with invalid base64', { count: 12_000, block: { type: 'image', data: '!!', mimeType: 'x' } }, '12,000'],
  ])('a tools/call result of %s: a tool error naming the limit, not the blocks; the next call works', async (_name, args, count) => {
    const result = await harness.client.callTool({ name: 'f__wide_result', arguments: args });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: `mcp-latch: the result from f was dropped: it has ${count} entries in content, more than the 10,000 mcp-latch checks and passes on (docs/config.md, "limits"). The call was forwarded to the server and may have had effects.` }]);
    expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'after' } }))).toContain('after');
  });

  // A structuredContent of 300,000 keys cost the gateway ~1 s of CPU (parsed, walked, written again) while every other call waited (round 13 review R12).
  test('a tools/call answer of more than 100,000 values: dropped unparsed, a tool error naming the limit; one of 2,000 keys is passed on whole', async () => {
    const dropped = await harness.client.callTool({ name: 'f__wide_structured', arguments: { keys: 150_000 } });
    expect(dropped).toEqual({
      content: [{ type: 'text', text: 'mcp-latch: the result from f was dropped: it holds 150,009 values as written, more than the 100,000 mcp-latch checks in one answer (docs/config.md, "limits"). The call was forwarded to the server and may have had effects.' }],
      isError: true,
    });
    const passed = await harness.client.callTool({ name: 'f__wide_structured', arguments: { keys: 2_000 } });
    expect(passed.isError).toBeUndefined();
    expect(Object.keys(passed.structuredContent ?? {})).toHaveLength(2_000);
    expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'after' } }))).toContain('after');
    const records = readAudit(join(dir, 'mcp-latch-audit.jsonl'), 100).filter((record) => record.tool === 'wide_structured');
    expect(records.map((record) => [record.decision, record.args])).toEqual([['allow', { keys: 150_000 }], ['allow', { keys: 2_000 }]]);
  });

  test('10,000 blocks are passed on; an invalid block among them is named by its index', async () => {
    const result = await harness.client.callTool({ name: 'f__wide_result', arguments: { count: 10_000 } });
    expect(result.content).toHaveLength(10_000);
    const error = await rejection(harness.client.callTool({ name: 'f__wide_result', arguments: { count: 2, block: { type: 'resource_link', uri: 'file:///a', name: 7 } } }));
    expect(error.message).toBe('MCP error -32603: mcp-latch: server "f" answered tools/call "wide_result" with an invalid result: content[0].name: expected string, received number; the call was forwarded to the server and may have had effects.');
  });

  test.each([
    ['resources/read', (h: Harness) => h.client.readResource({ uri: 'fault://wide' }), 'the answer of server "f" to resources/read "fault://wide" was dropped: it has 10,001 entries in contents'],
    ['prompts/get', (h: Harness) => h.client.getPrompt({ name: 'f__wide' }), 'the answer of server "f" to prompts/get "wide" was dropped: it has 10,001 entries in messages'],
  ])('a %s answer of 10,001 entries: -32603 naming the limit', async (_method, request, said) => {
    const error = await rejection(request(harness));
    expect(error.code).toBe(-32603);
    expect(error.message).toBe(`MCP error -32603: mcp-latch: ${said}, more than the 10,000 mcp-latch checks and passes on (docs/config.md, "limits").`);
  });
});

describe('serve: a tools/list the schema refuses', () => {
  test('the entry it refuses is dropped with a warning naming it and what is wrong; the rest is listed and works', async () => {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { f: faultServer('invalid-list', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }, { dir });
    try {
      const listed = await harness.client.listTools();
      expect(listed._meta?.['mcp-latch/unavailable']).toBeUndefined();
      const names = listed.tools.map((tool) => tool.name);
      expect(names).toContain('f__echo');
      expect(names).not.toContain('f__no_schema');
      expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'listed' } }))).toContain('listed');
      const warning = harness.stderr().split('\n').find((line) => line.includes('dropping an entry of tools/list'));
      expect(JSON.parse(warning!)).toMatchObject({ level: 40, server: 'f', name: 'no_schema', problem: 'tools[12].inputSchema: expected object, received undefined' });
    } finally {
      await harness.close();
    }
  });
});

/** The first tools/list through the gateway with server f started as `fault`: what it says of f being unavailable. */
async function unavailableOnList(fault: string): Promise<Array<{ server: string; reason: string }>> {
  const dir = tempDir();
  const harness = await startGateway({ mcpServers: { f: faultServer(fault, join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }, { dir });
  try {
    const listed = await harness.client.listTools();
    return (listed._meta?.['mcp-latch/unavailable'] ?? []) as Array<{ server: string; reason: string }>;
  } finally {
    await harness.close();
  }
}

describe('serve: a tools/list page that is not a list', () => {
  test('the server is unavailable, with one line that names the list and what is wrong', async () => {
    expect(await unavailableOnList('invalid-page')).toEqual([expect.objectContaining({ server: 'f', reason: expect.stringMatching(/^server "f" is unavailable: failed to start: its tools\/list answer is invalid: tools: expected array, received string; restarting in \d+ s$/) })]);
  });
});

describe('serve --http: an invalid tools/call result', () => {
  const X = 'token-of-xavier-invalid-0123456789';
  let team: TeamHarness;

  beforeAll(async () => {
    const dir = tempDir();
    team = await startTeam(dir, { mcpServers: { f: faultServer('invalid-answers', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] }, http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }] } });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  test('-32603 in one line; the next call works', async () => {
    const x = await teamClient(team.url, X);
    try {
      const error = await rejection(x.client.callTool({ name: 'f__invalid_result', arguments: {} }));
      expect(error.code).toBe(-32603);
      expect(error.message).toBe(`MCP error -32603: ${INVALID_CALL}`);
      expect(textOf(await x.client.callTool({ name: 'f__echo', arguments: { text: 'after' } }))).toContain('after');
    } finally {
      await x.close();
    }
  });
});

describe('serve: a tools/list of many refused entries, named by the server', () => {
  test('the warnings are few and escape what the server named: 20,000 refused entries, the first named with a bidi override, a C1 CSI and a line separator', async () => {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { f: faultServer('invalid-list-hostile', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }, { dir });
    try {
      const listed = await harness.client.listTools();
      expect(listed._meta?.['mcp-latch/unavailable']).toBeUndefined();
      expect(listed.tools.map((tool) => tool.name)).toContain('f__echo');
      expect(listed.tools.filter((tool) => tool.name.startsWith('f__bad_'))).toEqual([]);
      expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'listed' } }))).toContain('listed');
      const lines = await eventually(() => {
        const found = harness.stderr().split('\n').filter((line) => line.includes('an entry of tools/list') || line.includes('entries of tools/list'));
        expect(found.some((line) => line.includes('more'))).toBe(true);
        return found;
      });
      // One line per refused entry was 20,000 lines in the log for one page.
      expect(lines.length).toBeLessThanOrEqual(11);
      for (const line of lines) expect(line).not.toMatch(/[\u0080-\u009f\u2028\u2029\u202a-\u202e]/);
      expect(JSON.parse(lines[0]!)).toMatchObject({ name: 'evil\\u202etxt.sh\\x9b31m\\u2028next' });
      // A tool kept without its outputSchema, which does not compile: its warning names it, escaped too.
      const dropped = await eventually(() => {
        const found = harness.stderr().split('\n').find((line) => line.includes('dropping an outputSchema'));
        expect(found).toBeDefined();
        return found!;
      });
      expect(dropped).not.toMatch(/[\u0080-\u009f\u2028\u2029\u202a-\u202e]/);
      expect(JSON.parse(dropped)).toMatchObject({ tool: 'ref\\u202e' });
    } finally {
      await harness.close();
    }
  }, 60_000);
});

/** Lists the tools of one fault server; what it lists, what the list's _meta says is unavailable, and the log's warnings of a stopped list. */
async function listedPastLimit(fault: string): Promise<{ names: string[]; unavailable: unknown; warnings: string[]; called: string }> {
  const dir = tempDir();
  const harness = await startGateway({ mcpServers: { f: faultServer(fault, join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }, { dir });
  try {
    const listed = await harness.client.listTools();
    const warnings = await eventually(() => {
      const found = harness.stderr().split('\n').filter((line) => line.includes('tools/list stopped'));
      expect(found).not.toEqual([]);
      return found;
    });
    const called = textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'still served' } }));
    return { names: listed.tools.map((tool) => tool.name), unavailable: listed._meta?.['mcp-latch/unavailable'], warnings, called };
  } finally {
    await harness.close();
  }
}

describe('serve: a tools/list whose nextCursor repeats', () => {
  test('the list ends at the repeat and what was read is listed, with one warning naming the cursor; not listed page after page for ever (the first list never answered), and the server stays available', async () => {
    const { names, unavailable, warnings, called } = await listedPastLimit('invalid-list-loop');
    expect(unavailable).toBeUndefined();
    expect(names).toContain('f__echo');
    expect(called).toContain('still served');
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!).msg).toBe('tools/list stopped: its nextCursor "again" was already read (mcp-latch reads at most 100 pages, 10,000 entries and limits.messageMB (10 MB) of JSON of one list); the first ' + JSON.parse(warnings[0]!).listed.toLocaleString('en-US') + ' are listed');
  }, 60_000);
});

describe('serve: a tools/list past the limits of one list (100 pages, 10,000 entries)', () => {
  test('a nextCursor that never repeats: 100 pages are read and listed, with one warning naming the limit; the gateway does not list for ever while it grows', async () => {
    const { names, unavailable, warnings, called } = await listedPastLimit('list-endless');
    expect(unavailable).toBeUndefined();
    expect(called).toContain('still served');
    expect(warnings).toHaveLength(1);
    const warning = JSON.parse(warnings[0]!) as { msg: string; listed: number };
    expect(warning.msg).toMatch(/^tools\/list stopped: more than 100 pages \(mcp-latch reads at most 100 pages, 10,000 entries and limits.messageMB \(10 MB\) of JSON of one list\); the first [\d,]+ are listed$/);
    // Each page lists the same few tools again: 100 pages of them were read, no more.
    expect(warning.listed % 100).toBe(0);
    expect(names).toContain('f__echo');
  }, 60_000);

  test('10,001 entries: the first 10,000 are listed, with one warning naming the limit', async () => {
    const { names, unavailable, warnings } = await listedPastLimit('list-many');
    expect(unavailable).toBeUndefined();
    expect(names).toHaveLength(10_000);
    expect(names).toContain('f__echo');
    expect(names).not.toContain('f__many_' + (10_001 - 10_000 + names.filter((name) => name.startsWith('f__many_')).length - 1));
    expect(JSON.parse(warnings[0]!).msg).toBe('tools/list stopped: more than 10,000 entries (mcp-latch reads at most 100 pages, 10,000 entries and limits.messageMB (10 MB) of JSON of one list); the first 10,000 are listed');
  }, 60_000);
});

describe('serve: a tools/list that names a tool twelve times', () => {
  test('the first of each name is listed and called, with one warning; before, naming the copies never ended and the whole gateway stopped answering', async () => {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { f: faultServer('list-duplicates', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }, { dir });
    try {
      const listed = await harness.client.listTools();
      const echoes = listed.tools.filter((tool) => tool.name.startsWith('f__echo'));
      expect(echoes).toHaveLength(1);
      expect(echoes[0]!.description).not.toBe('a copy');
      expect(new Set(listed.tools.map((tool) => tool.name)).size).toBe(listed.tools.length);
      expect(textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'once' } }))).toContain('once');
      const warning = await eventually(() => {
        const found = harness.stderr().split('\n').filter((line) => line.includes('whose name was listed before'));
        expect(found).toHaveLength(1);
        return JSON.parse(found[0]!) as { dropped: number };
      });
      expect(warning.dropped).toBe(11 * listed.tools.length);
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe("serve: a server's own text in the reason it is unavailable", () => {
  test('its stderr lines are escaped in the list\'s _meta and in the log: a bidi override, a C1 CSI and an ANSI clear stay visible as escapes, and backslashes are not doubled twice', async () => {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { f: faultServer('hostile-stderr', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }, { dir });
    try {
      const listed = await harness.client.listTools();
      const [unavailable] = (listed._meta?.['mcp-latch/unavailable'] ?? []) as Array<{ reason: string }>;
      expect(unavailable?.reason).toContain('its last stderr lines: evil\\u202etxt.sh \\x9b31m \\x1b[2J\\u2028next');
      const logged = () => harness.stderr().split('\n').filter((line) => line.includes('server unavailable') || line.includes('server failed'));
      await eventually(() => expect(logged().join('\n')).toContain('evil\\\\u202etxt.sh'));
      for (const line of logged()) expect(line).not.toMatch(/[\u0080-\u009f\u2028\u2029\u202a-\u202e]/);
    } finally {
      await harness.close();
    }
  }, 60_000);
});

// The reason a server is down is shown to the model (the tool error, the list's _meta) as well as
// logged; a server's stderr on a failed start holds the credentials the person gave it, which the
// gateway otherwise keeps from the model (round 18 review of the local surface, L11).
describe("serve: a server's credentials in the reason it is unavailable", () => {
  test('its stderr lines are redacted in the list\'s _meta, the tool error and the log', async () => {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { f: faultServer('secret-stderr', join(dir, 'starts')) }, permissions: { allow: ['mcp__f'] } }, { dir });
    try {
      const listed = await harness.client.listTools();
      const [unavailable] = (listed._meta?.['mcp-latch/unavailable'] ?? []) as Array<{ reason: string }>;
      expect(unavailable?.reason).toContain('its last stderr lines: config: GITHUB_TOKEN=[redacted]');
      expect(unavailable?.reason).toContain('postgres://app:[redacted]@db.internal/app');
      const error = textOf(await harness.client.callTool({ name: 'f__echo', arguments: { text: 'x' } }));
      expect(error).toContain('unavailable');
      for (const shown of [unavailable!.reason, error, harness.stderr()]) expect(shown).not.toMatch(/S3cretV4lue8/);
    } finally {
      await harness.close();
    }
  }, 60_000);
});
