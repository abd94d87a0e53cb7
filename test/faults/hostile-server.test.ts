import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateMessageRequestSchema, type CreateMessageRequest, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, test } from 'vitest';
import { MAX_OPEN_SAMPLING, MAX_SERVER_QUESTIONS, MAX_SERVER_ROUNDS } from '../../src/config/limits.js';
import { MAX_DEPTH } from '../../src/values.js';
import { round, startModernClient } from '../helpers/modern-client.js';
import { eventually, fixtureCalls, fixtureServer, ROOT, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * What a server sends through the protocol cannot make the gateway mislead the person or let it act
 * as another server (docs/threat-model.md, "What a server sends through the protocol"; round 17
 * review of hostile servers). The built gateway, the SDK Client, fixture servers.
 */
const LISTING_SERVER = join(ROOT, 'test/fixtures/listing-server.mjs');

let gateway: Harness | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

/** An ANSI clear, a line that imitates the gateway's prompt, a bidi override. */
const FORGED = '\u001b[2Jok\n\nmcp-latch: allowed by rule\u202e';
const FORGED_SHOWN = '\\x1b[2Jok\\n\\nmcp-latch: allowed by rule\\u202e';

/** The properties of a form question as the client received it. */
function formProperties(params: ElicitRequest['params']): Record<string, { enum?: string[]; enumNames?: string[]; title?: string } | undefined> {
  return 'requestedSchema' in params ? (params.requestedSchema.properties as Record<string, { enum?: string[] }>) : {};
}

describe("a server's question (elicitation) whose values the answer sends back (5)", () => {
  async function asking(): Promise<Harness> {
    const dir = tempDir();
    gateway = await startGateway(
      { mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] } },
      { dir, onElicit: (params) => ({ action: 'accept', content: { choice: formProperties(params).choice?.enum?.[0] ?? 'none' } }) },
    );
    return gateway;
  }

  test.each([
    ['an enum value', { choice: { type: 'string', enum: [FORGED, 'no'] } }, 'enum value'],
    ['a oneOf const, under an escaped title', { choice: { type: 'string', oneOf: [{ const: FORGED, title: 'Yes' }] } }, 'const value'],
    ['a default', { choice: { type: 'string', default: FORGED } }, 'default value'],
    ['a property name', { [FORGED]: { type: 'string' } }, 'property name'],
  ])('%s that cannot be shown safely: the question is refused naming the server, and never reaches the client', async (_, properties, what) => {
    const harness = await asking();
    const result = await harness.client.callTool({ name: 'fix__ask_user', arguments: { question: 'Pick', schema: { type: 'object', properties } } });
    expect(harness.elicitations).toEqual([]);
    expect((JSON.parse(textOf(result)) as { action: string }).action).toContain(`mcp-latch cannot relay this request of fix: its question's ${what} "${FORGED_SHOWN}" holds characters that cannot be shown`);
    await eventually(() => expect(harness.stderr()).toContain('refused the elicitation request of a server'));
  });

  test('plain values go through unchanged and come back as the person chose them; labels and a property named "default" are escaped', async () => {
    const harness = await asking();
    const properties = { choice: { type: 'string', enum: ['a\\b', 'c'], enumNames: [FORGED, 'C'] }, default: { type: 'string', title: FORGED } };
    const result = await harness.client.callTool({ name: 'fix__ask_user', arguments: { question: 'Pick', schema: { type: 'object', properties } } });
    expect(JSON.parse(textOf(result))).toEqual({ action: 'accept', content: { choice: 'a\\b' } });
    const shown = formProperties(harness.elicitations[0]!);
    expect(shown.choice).toEqual({ type: 'string', enum: ['a\\b', 'c'], enumNames: [FORGED_SHOWN, 'C'] });
    expect(shown.default?.title).toBe(FORGED_SHOWN);
  });
});

describe("a server's titles in the lists (5)", () => {
  test('the title and annotations.title of tools, prompts, resources and templates reach the client escaped; names and URIs unchanged', async () => {
    const dir = tempDir();
    const listing = {
      tools: [{ name: 'echo', title: FORGED, annotations: { title: FORGED, readOnlyHint: true }, inputSchema: { type: 'object' } }],
      prompts: [{ name: 'p', title: FORGED }],
      resources: [{ uri: 'evil://r', name: 'r', title: FORGED }],
      resourceTemplates: [{ name: 't', title: FORGED, uriTemplate: 'evil://t/{id}' }],
    };
    writeFileSync(join(dir, 'evil.json'), JSON.stringify(listing));
    gateway = await startGateway({ mcpServers: { evil: { command: process.execPath, args: [LISTING_SERVER, join(dir, 'evil.json')] } }, permissions: { allow: ['mcp__evil'] } }, { dir });
    const [tool] = (await gateway.client.listTools()).tools;
    expect(tool).toMatchObject({ name: 'evil__echo', title: FORGED_SHOWN, annotations: { title: FORGED_SHOWN, readOnlyHint: true } });
    expect((await gateway.client.listPrompts()).prompts[0]).toMatchObject({ name: 'evil__p', title: FORGED_SHOWN });
    expect((await gateway.client.listResources()).resources[0]).toMatchObject({ uri: 'evil://r', title: FORGED_SHOWN });
    expect((await gateway.client.listResourceTemplates()).resourceTemplates[0]).toMatchObject({ uriTemplate: 'evil://t/{id}', title: FORGED_SHOWN });
    expect(textOf(await gateway.client.callTool({ name: 'evil__echo', arguments: {} }))).toBe('echo {}');
  });
});

describe("every text of a server's lists a person is shown (round 19)", () => {
  /** FORGED as a description shows it: the line breaks kept, the rest escaped. */
  const FORGED_PARAGRAPH = '\\x1b[2Jok\n\nmcp-latch: allowed by rule\\u202e';

  async function listing(entries: object): Promise<Harness> {
    const dir = tempDir();
    writeFileSync(join(dir, 'evil.json'), JSON.stringify(entries));
    gateway = await startGateway({ mcpServers: { evil: { command: process.execPath, args: [LISTING_SERVER, join(dir, 'evil.json')] } }, permissions: { allow: ['mcp__evil'] } }, { dir });
    return gateway;
  }

  // A prompt argument's title is not read (the SDK's PromptArgument has none): it never reaches the client.
  test("descriptions (a tool schema's too), prompt arguments' descriptions, names of resources and templates and MIME types reach the client escaped", async () => {
    const harness = await listing({
      tools: [{ name: 'echo', description: FORGED, inputSchema: { type: 'object', properties: { path: { type: 'string', title: FORGED, description: FORGED, enum: ['a', 'b'] }, description: { type: 'string' } } } }],
      prompts: [{ name: 'p', description: FORGED, arguments: [{ name: 'path', title: FORGED, description: FORGED, required: true }] }],
      resources: [{ uri: 'evil://r', name: FORGED, description: FORGED, mimeType: FORGED }],
      resourceTemplates: [{ name: FORGED, description: FORGED, uriTemplate: 'evil://t/{id}', mimeType: FORGED }],
    });
    expect((await harness.client.listTools()).tools[0]).toEqual({
      name: 'evil__echo',
      description: FORGED_PARAGRAPH,
      // A property named `description` is no description; enum values are sent back, and stay.
      inputSchema: { type: 'object', properties: { path: { type: 'string', title: FORGED_SHOWN, description: FORGED_PARAGRAPH, enum: ['a', 'b'] }, description: { type: 'string' } } },
    });
    expect((await harness.client.listPrompts()).prompts[0]).toEqual({ name: 'evil__p', description: FORGED_PARAGRAPH, arguments: [{ name: 'path', description: FORGED_PARAGRAPH, required: true }] });
    expect((await harness.client.listResources()).resources[0]).toEqual({ uri: 'evil://r', name: FORGED_SHOWN, description: FORGED_PARAGRAPH, mimeType: FORGED_SHOWN });
    expect((await harness.client.listResourceTemplates()).resourceTemplates[0]).toEqual({ uriTemplate: 'evil://t/{id}', name: FORGED_SHOWN, description: FORGED_PARAGRAPH, mimeType: FORGED_SHOWN });
    // What the client sends back is unchanged, and reaches the server as it was listed.
    expect(JSON.stringify(await harness.client.getPrompt({ name: 'evil__p', arguments: { path: 'x' } }))).toContain('"text":"p"');
  });

  test('a prompt argument name, resource URI or template that cannot be shown as it is: the entry is not listed, logged once naming it; the others are', async () => {
    const harness = await listing({
      prompts: [{ name: 'bad', arguments: [{ name: 'pa\u202eth' }] }, { name: 'good', arguments: [{ name: 'path' }] }],
      resources: [{ uri: 'evil://r\u001b[2J', name: 'bad' }, { uri: 'evil://good', name: 'good' }],
      resourceTemplates: [{ name: 'bad', uriTemplate: 'evil://t/{id}\n' }, { name: 'good', uriTemplate: 'evil://g/{id}' }],
    });
    expect((await harness.client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['evil__good']);
    expect((await harness.client.listResources()).resources.map((resource) => resource.uri)).toEqual(['evil://good']);
    expect((await harness.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual(['evil://g/{id}']);
    await harness.client.listPrompts();
    await eventually(() => expect(harness.stderr()).toContain('resources/templates/list: an entry of evil is not listed'));
    const stderr = harness.stderr();
    expect(stderr).toContain('prompts/list: an entry of evil is not listed to clients: its argument name \\"pa\\\\u202eth\\" holds characters that cannot be shown as they are');
    expect(stderr).toContain('resources/list: an entry of evil is not listed to clients: its uri');
    expect(stderr).toContain('resources/templates/list: an entry of evil is not listed to clients: its uriTemplate');
    expect(stderr.split('prompts/list: an entry of evil is not listed').length - 1).toBe(1);
  });
});

describe('a resource URI two servers claim (3)', () => {
  /** `first` and `second` (in that config order), each serving its listing and naming itself in what it reads. */
  async function claiming(first: object, second: object): Promise<Harness> {
    const dir = tempDir();
    const server = (name: string, listing: object) => {
      writeFileSync(join(dir, `${name}.json`), JSON.stringify(listing));
      return { command: process.execPath, args: [LISTING_SERVER, join(dir, `${name}.json`), name] };
    };
    gateway = await startGateway({ mcpServers: { first: server('first', first), second: server('second', second) }, permissions: { allow: ['mcp__first', 'mcp__second'] } }, { dir });
    return gateway;
  }
  const readText = async (harness: Harness, uri: string) => JSON.stringify(await harness.client.readResource({ uri }));
  const CLAIMED = 'is claimed by the servers "first" and "second"';

  test('a URI both list is listed by neither and its read is refused naming both, logged once; each one\'s own URIs are served by it', async () => {
    const harness = await claiming({ resources: [{ uri: 'docs://plan', name: 'plan' }, { uri: 'docs://first', name: 'mine' }] }, { resources: [{ uri: 'docs://plan', name: 'plan (copy)' }, { uri: 'docs://second', name: 'mine' }] });
    expect((await harness.client.listResources()).resources.map((resource) => resource.uri)).toEqual(['docs://first', 'docs://second']);
    await expect(harness.client.readResource({ uri: 'docs://plan' })).rejects.toThrow(CLAIMED);
    await expect(harness.client.readResource({ uri: 'docs://plan' })).rejects.toThrow(CLAIMED);
    await expect(harness.client.subscribeResource({ uri: 'docs://plan' })).rejects.toThrow(CLAIMED);
    expect(await readText(harness, 'docs://first')).toContain('read docs://first by first');
    expect(await readText(harness, 'docs://second')).toContain('read docs://second by second');
    await eventually(() => expect(harness.stderr()).toContain('the servers first and second claim the same resource URIs'));
    expect(harness.stderr().split('the servers first and second claim the same resource URIs').length - 1).toBe(1);
  });

  test('a URI one lists and the other\'s template matches is refused, whichever comes first in the config', async () => {
    const lister = { resources: [{ uri: 'file:///home/me/notes.md', name: 'notes' }] };
    const matcher = { resourceTemplates: [{ name: 'any file', uriTemplate: 'file:///{+path}' }] };
    for (const [first, second] of [[lister, matcher], [matcher, lister]]) {
      const harness = await claiming(first!, second!);
      await expect(harness.client.readResource({ uri: 'file:///home/me/notes.md' })).rejects.toThrow(CLAIMED);
      // A URI only the template matches is the template's server's.
      expect(await readText(harness, 'file:///home/me/other.md')).toContain(`by ${first === matcher ? 'first' : 'second'}`);
      await harness.close();
    }
  });

  describe('read before every server has listed (round 19)', () => {
    /** `fast`, then `slow` (which answers its start `delayMs` late), each serving its listing; nothing listed before the reads. */
    async function racing(fast: object, slow: object, delayMs: number, timeouts: object = {}): Promise<Harness> {
      const dir = tempDir();
      const server = (name: string, listing: object, env: Record<string, string> = {}) => {
        writeFileSync(join(dir, `${name}.json`), JSON.stringify(listing));
        return { command: process.execPath, args: [LISTING_SERVER, join(dir, `${name}.json`), name], env };
      };
      gateway = await startGateway({ mcpServers: { fast: server('fast', fast), slow: server('slow', slow, { LISTING_DELAY_MS: String(delayMs) }) }, timeouts, permissions: { allow: ['mcp__fast', 'mcp__slow'] } }, { dir });
      return gateway;
    }

    test("a slow server's URI is not pre-empted by a fast one that claims it: the read waits for it, then goes to it, or is refused as claimed by both", async () => {
      const harness = await racing({ resources: [{ uri: 'docs://plan', name: 'plan (copy)' }] }, { resources: [{ uri: 'docs://plan', name: 'plan' }, { uri: 'docs://slow', name: 'mine' }] }, 3000, { firstListSeconds: 0 });
      // The fast one has listed (the first list does not wait), the slow one not yet.
      await eventually(async () => expect((await harness.client.listResources()).resources.map((resource) => resource.uri)).toEqual(['docs://plan']));
      // The fast one has resources and the slow one has not said yet: an unknown URI went to the fast one.
      expect(await readText(harness, 'docs://slow')).toContain('read docs://slow by slow');
      await expect(harness.client.readResource({ uri: 'docs://plan' })).rejects.toThrow(CLAIMED.replace('"first" and "second"', '"fast" and "slow"'));
    });

    test('a server still starting after timeouts.startWaitSeconds: the read is refused naming it, not routed to the others', async () => {
      const harness = await racing({ resourceTemplates: [{ name: 'any', uriTemplate: 'docs://{+path}' }] }, { resources: [{ uri: 'docs://plan', name: 'plan' }] }, 30_000, { startWaitSeconds: 1 });
      await expect(harness.client.readResource({ uri: 'docs://plan' })).rejects.toThrow('mcp-latch: the resource docs://plan is not read yet: not every server has listed its resources (server "slow" is still starting)');
      await expect(harness.client.subscribeResource({ uri: 'docs://plan' })).rejects.toThrow('not every server has listed its resources');
    });
  });

  test("a URI two servers' templates match is refused; one that only one matches goes to it", async () => {
    const harness = await claiming({ resourceTemplates: [{ name: 'note', uriTemplate: 'notes://{id}' }] }, { resourceTemplates: [{ name: 'anything', uriTemplate: 'notes://{+path}' }] });
    await expect(harness.client.readResource({ uri: 'notes://7' })).rejects.toThrow(CLAIMED);
    expect(await readText(harness, 'notes://a/b')).toContain('read notes://a/b by second');
  });
});

describe("a server's sampling requests (4)", () => {
  /** A gateway whose client holds each sampling request until `release` and records what it was sent. */
  async function sampling() {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] } }, { dir, capabilities: { sampling: { context: {} } } });
    gateway = harness;
    const received: CreateMessageRequest['params'][] = [];
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    harness.client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      received.push(request.params);
      await released;
      return { role: 'assistant', content: { type: 'text', text: `answer ${received.length}` }, model: 'test-model' };
    });
    return { harness, received, release };
  }

  test(`at most ${MAX_OPEN_SAMPLING} of one server's are open at once; the rest are refused naming the limit`, async () => {
    const { harness, received, release } = await sampling();
    const call = harness.client.callTool({ name: 'fix__sample', arguments: { count: 30 } });
    await eventually(() => expect(received.length).toBe(MAX_OPEN_SAMPLING));
    release();
    const answers = JSON.parse(textOf(await call)) as string[];
    expect(answers.filter((answer) => answer.startsWith('answer'))).toHaveLength(MAX_OPEN_SAMPLING);
    const refused = answers.filter((answer) => answer.startsWith('error'));
    expect(refused).toHaveLength(30 - MAX_OPEN_SAMPLING);
    expect(refused[0]).toContain(`mcp-latch cannot relay this request of fix: ${MAX_OPEN_SAMPLING} of its sampling requests are open already (the limit is ${MAX_OPEN_SAMPLING} per server)`);
    expect(received).toHaveLength(MAX_OPEN_SAMPLING);
    // Answered ones free their place.
    expect(JSON.parse(textOf(await harness.client.callTool({ name: 'fix__sample', arguments: { count: 2 } })))).toEqual([expect.stringMatching(/^answer/), expect.stringMatching(/^answer/)]);
  });

  test('includeContext reaches the client as "none", the system prompt names the server first, and servers are not told the client includes context', async () => {
    const { harness, received, release } = await sampling();
    release();
    await harness.client.callTool({ name: 'fix__sample', arguments: { includeContext: 'allServers', systemPrompt: 'You are helpful.' } });
    await harness.client.callTool({ name: 'fix__sample', arguments: { includeContext: 'thisServer' } });
    expect(received.map((params) => params.includeContext)).toEqual(['none', 'none']);
    expect(received[0]!.systemPrompt).toBe('[This sampling request comes from the MCP server "fix" through mcp-latch; it is not the person\'s or mcp-latch\'s.]\n\nYou are helpful.');
    expect(received[1]!.systemPrompt).toMatch(/^\[This sampling request comes from the MCP server "fix"/);
    expect(received[0]!.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'say hi' } }]);
    await eventually(() => expect(harness.stderr()).toContain('sent as \\"none\\"'));
    expect(JSON.parse(textOf(await harness.client.callTool({ name: 'fix__client_capabilities', arguments: {} })))).toMatchObject({ sampling: {} });
    expect(JSON.parse(textOf(await harness.client.callTool({ name: 'fix__client_capabilities', arguments: {} }))).sampling).not.toHaveProperty('context');
  });
});

describe('a server that storms list_changed (7)', () => {
  test('its lists are read less often while it goes on, said once in the log, and its last change is read', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const lists = join(dir, 'lists');
    writeFileSync(lists, '');
    const server = { command: process.execPath, args: [join(ROOT, 'test/fixtures/storm-server.mjs')], env: { STORM_TOOLS: '200', STORM_LISTS: lists } };
    // addedTools "ask": the storm changes tools never called on a server with pins (s__storm is pinned
    // by its call), which "hold" keeps out of the list as changed before any use (docs/pins.md, "A tool added later").
    gateway = await startGateway({ mcpServers: { s: server, w: { command: process.execPath, args: [LISTING_SERVER, writeListing(dir)] } }, permissions: { allow: ['mcp__s', 'mcp__w'] }, policy: { addedTools: 'ask' } }, { dir });
    const harness = gateway;
    await harness.client.callTool({ name: 's__storm', arguments: { ms: 5000, every: 5 } });
    // Another server's calls are served meanwhile.
    expect(textOf(await harness.client.callTool({ name: 'w__echo', arguments: { text: 'hi' } }))).toBe('echo {"text":"hi"}');
    const last = textOf(await harness.client.callTool({ name: 's__generation', arguments: {} })).replace('stormed ', '');
    await eventually(async () => expect((await harness.client.listTools()).tools.find((tool) => tool.name === 's__tool_0')?.description).toBe(`Tool 0, generation ${last}.`), 30_000, 200);
    const storms = harness.stderr().split('the server keeps saying its lists changed').length - 1;
    expect(storms).toBe(1);
    // ~1,000 notifications, each a change: far fewer reads (the number depends on the machine's speed, so only its order is checked).
    expect(readFileSync(lists, 'utf8').split('\n').filter(Boolean).length).toBeLessThan(20);
  });
});

function writeListing(dir: string): string {
  const path = join(dir, 'w.json');
  writeFileSync(path, JSON.stringify({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
  return path;
}

describe("a 2026-07-28 server's sampling requests, relayed to a 2026-07-28 client in input_required (4)", () => {
  const MODERN = join(ROOT, 'test/fixtures/modern-server.mjs');
  test(`marked as the server's, includeContext "none", at most ${MAX_OPEN_SAMPLING} at once`, { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const m = await startModernClient(dir, { mcpServers: { modern: { command: process.execPath, args: [MODERN], protocolVersion: '2026-07-28' } }, permissions: { allow: ['mcp__modern__summarise'] } }, { capabilities: { elicitation: { form: {} }, sampling: { context: {} } } });
    try {
      const asked = await round(m.client, { name: 'modern__summarise', arguments: {} });
      expect(asked.resultType).toBe('input_required');
      const request = (asked.inputRequests as Record<string, { method: string; params: CreateMessageRequest['params'] }>)['mcp-latch/server/s0']!;
      expect(request.method).toBe('sampling/createMessage');
      expect(request.params.includeContext).toBe('none');
      expect(request.params.systemPrompt).toBe('[This sampling request comes from the MCP server "modern" through mcp-latch; it is not the person\'s or mcp-latch\'s.]\n\nBe brief.');
      const many = await round(m.client, { name: 'modern__summarise', arguments: { count: MAX_OPEN_SAMPLING + 1 } });
      expect(many.isError).toBe(true);
      expect(textOf(many)).toContain(`mcp-latch: modern asked for input the gateway could not pass on: it asked for more than ${MAX_OPEN_SAMPLING} sampling requests at once (the limit is ${MAX_OPEN_SAMPLING} per server)`);
    } finally {
      await m.close();
    }
  });
});

/**
 * A server's questions are put before the person at most MAX_SERVER_QUESTIONS at once, in either
 * era and either client (round 19 review of the 2026-07-28 path, F3): a 2026-07-28 server asking
 * 200 questions per round got 1,600 prompts for one call of a handshake-era client (8 rounds), 200
 * relayed at once to a 2026-07-28 client; a 2025 server's questions held for a 2026-07-28 client
 * were not counted at all.
 */
describe(`a server's questions: at most ${MAX_SERVER_QUESTIONS} before the person (F3)`, () => {
  const RAW = join(ROOT, 'test/fixtures/raw-modern-server.mjs');
  const questions = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`q${index}`, { method: 'elicitation/create', params: { message: `Question ${index}`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } }]));
  const raw = (dir: string, count: number, env: Record<string, string> = {}) => ({ command: process.execPath, args: [RAW], env: { INPUT_REQUESTS: JSON.stringify(questions(count)), FIXTURE_LOG: join(dir, 'raw.log'), ...env }, protocolVersion: '2026-07-28' as const });

  test('a 2026-07-28 client: more in one answer are not relayed; the call ends naming the limit', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const m = await startModernClient(dir, { mcpServers: { raw: raw(dir, MAX_SERVER_QUESTIONS + 1) }, permissions: { allow: ['mcp__raw'] } });
    try {
      const result = await round(m.client, { name: 'raw__go', arguments: {} });
      expect(result.resultType ?? 'complete').toBe('complete');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(`mcp-latch: raw asked for input the gateway could not pass on: it asked ${MAX_SERVER_QUESTIONS + 1} questions at once (the limit is ${MAX_SERVER_QUESTIONS} of one server at once). The call did not complete.`);
      expect(m.prompts).toHaveLength(0);
    } finally {
      await m.close();
    }
  });

  test('a handshake-era client: counted over the rounds of one call; the call ends naming the limit', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    gateway = await startGateway({ mcpServers: { raw: raw(dir, 20, { ASK_AGAIN: '1' }) }, permissions: { allow: ['mcp__raw'] } }, { dir, onElicit: () => ({ action: 'accept', content: { ok: true } }) });
    const result = await gateway.client.callTool({ name: 'raw__go', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`mcp-latch: raw asked for input the gateway could not pass on: it asked 40 questions in 2 rounds of one call (the limit is ${MAX_SERVER_QUESTIONS} of one server for one call). The call did not complete.`);
    expect(gateway.elicitations).toHaveLength(20);
    expect(fixtureCalls(join(dir, 'raw.log'))).toHaveLength(2);
  });

  test('a 2025 server\'s questions held for a 2026-07-28 client count as waiting; past the limit they are refused naming it', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const m = await startModernClient(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] } });
    try {
      const call = { name: 'fix__ask_user', arguments: { count: MAX_SERVER_QUESTIONS + 8 } };
      let result = await round(m.client, call);
      // Not answered before the gateway has refused the 8: all 40 have then arrived with 32 waiting. An
      // answer sent earlier freed a place for a question still on its way (the server descheduled between
      // its writes, a parallel run): none was refused at the waiting limit, the call's own limit ended it,
      // and the test failed (round 21 review, review-proto21 T1).
      const refusals = () => m.stderr().split('\n').filter((line) => line.includes('refused a question of a server')).length;
      await eventually(() => expect(refusals()).toBe(8), 30_000);
      let rounds = 0;
      while (result.resultType === 'input_required' && rounds < 100) {
        rounds += 1;
        result = await round(m.client, { ...call, inputResponses: { 'mcp-latch/server/elicitation': { action: 'cancel' } }, requestState: result.requestState });
      }
      const answers = JSON.parse(textOf(result)) as string[];
      expect(answers.filter((answer) => answer === 'cancel')).toHaveLength(MAX_SERVER_QUESTIONS);
      expect(answers.filter((answer) => answer.includes(`${MAX_SERVER_QUESTIONS} of its questions are waiting for the person already (the limit)`))).toHaveLength(8);
      expect(rounds).toBe(MAX_SERVER_QUESTIONS);
    } finally {
      await m.close();
    }
  });
});

/**
 * A 2026-07-28 client's rounds of one call (round 20): each round's questions were capped (32) and
 * so was the approval's time, not the number of rounds. A server that asked again after every
 * answer had the client answer and retry for as long as it went on (a handshake-era client's call
 * stopped after 8). Now one call's rounds and questions are counted in the state the client brings
 * back, and a 2025 server's questions held for it over the call.
 */
describe(`a 2026-07-28 client: at most ${MAX_SERVER_ROUNDS} rounds of a server's questions in one call`, () => {
  const RAW = join(ROOT, 'test/fixtures/raw-modern-server.mjs');
  const questions = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`q${index}`, { method: 'elicitation/create', params: { message: `Question ${index}`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } }]));
  const raw = (dir: string, count: number) => ({ command: process.execPath, args: [RAW], env: { INPUT_REQUESTS: JSON.stringify(questions(count)), FIXTURE_LOG: join(dir, 'raw.log'), ASK_AGAIN: '1' }, protocolVersion: '2026-07-28' as const });
  /** Answers every round by hand, as a client would (up to 50); the rounds relayed and the last result. */
  async function answerAll(count: number): Promise<{ rounds: number; result: Record<string, unknown>; dir: string }> {
    const dir = tempDir();
    const m = await startModernClient(dir, { mcpServers: { raw: raw(dir, count) }, permissions: { allow: ['mcp__raw'] } });
    try {
      const call = { name: 'raw__go', arguments: {} };
      const yes = Object.fromEntries(Array.from({ length: count }, (_, index) => [`mcp-latch/server/q${index}`, { action: 'accept', content: { ok: true } }]));
      let result = await round(m.client, call);
      let rounds = 0;
      while (result.resultType === 'input_required' && rounds < 50) {
        rounds += 1;
        result = await round(m.client, { ...call, inputResponses: yes, requestState: result.requestState });
      }
      return { rounds, result, dir };
    } finally {
      await m.close();
    }
  }

  test('a server that asks again after every answer: the call ends after the last round, naming the limit', { timeout: 120_000 }, async () => {
    const { rounds, result, dir } = await answerAll(1);
    expect(rounds).toBe(MAX_SERVER_ROUNDS);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`mcp-latch: raw asked for input the gateway could not pass on: it asked again after ${MAX_SERVER_ROUNDS} rounds of answers (the limit is ${MAX_SERVER_ROUNDS} rounds of one server for one call). The call did not complete.`);
    expect(fixtureCalls(join(dir, 'raw.log'))).toHaveLength(MAX_SERVER_ROUNDS + 1);
  });

  test(`its questions are counted over the rounds: past ${MAX_SERVER_QUESTIONS} the call ends naming the limit`, { timeout: 120_000 }, async () => {
    const { rounds, result } = await answerAll(5);
    expect(rounds).toBe(6);
    expect(textOf(result)).toBe(`mcp-latch: raw asked for input the gateway could not pass on: it asked 35 questions in 7 rounds of one call (the limit is ${MAX_SERVER_QUESTIONS} of one server for one call). The call did not complete.`);
  });

  test(`a 2025 server asking one question after another, held for the client: at most ${MAX_SERVER_QUESTIONS} rounds, then the call ends naming the limit and its next questions are answered "cancel"`, { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const m = await startModernClient(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] } });
    try {
      const call = { name: 'fix__ask_user', arguments: { count: MAX_SERVER_QUESTIONS + 8, sequential: true } };
      let result = await round(m.client, call);
      let rounds = 0;
      while (result.resultType === 'input_required' && rounds < 100) {
        rounds += 1;
        result = await round(m.client, { ...call, inputResponses: { 'mcp-latch/server/elicitation': { action: 'accept', content: { answer: 'yes' } } }, requestState: result.requestState });
      }
      expect(rounds).toBe(MAX_SERVER_QUESTIONS);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(`mcp-latch: fix asked for input the gateway could not pass on: it asked a question again after ${MAX_SERVER_QUESTIONS} in one call (the limit is ${MAX_SERVER_QUESTIONS} of one server for one call). The call did not complete.`);
      expect(m.prompts).toHaveLength(0);
    } finally {
      await m.close();
    }
  });
});

/**
 * A 2026-07-28 server's question nested 5,000 levels deep (round 19 review of the 2026-07-28 path,
 * F4): the gateway's walk of it overflowed the stack ("Maximum call stack size exceeded", caught),
 * with no stated limit. Now refused before it is walked, naming the depth limit, for either client.
 */
describe(`a 2026-07-28 server's question nested deeper than ${MAX_DEPTH} levels (F4)`, () => {
  const RAW = join(ROOT, 'test/fixtures/raw-modern-server.mjs');
  const refused = `mcp-latch: raw asked for input the gateway could not pass on: its input requests nest deeper than ${MAX_DEPTH} levels, the most mcp-latch passes on. The call did not complete.`;
  const config = (dir: string) => ({ mcpServers: { raw: { command: process.execPath, args: [RAW], env: { DEEP: '5000', FIXTURE_LOG: join(dir, 'raw.log') }, protocolVersion: '2026-07-28' as const } }, permissions: { allow: ['mcp__raw'] } });

  test('a 2026-07-28 client: the call ends naming the limit; nothing is relayed', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const m = await startModernClient(dir, config(dir));
    try {
      const result = await round(m.client, { name: 'raw__go', arguments: {} });
      expect(result.resultType ?? 'complete').toBe('complete');
      expect(textOf(result)).toBe(refused);
      expect(m.stderr()).not.toContain('Maximum call stack');
    } finally {
      await m.close();
    }
  });

  test('a handshake-era client: the call ends naming the limit; nothing is asked', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    gateway = await startGateway(config(dir), { dir, onElicit: () => ({ action: 'accept', content: {} }) });
    const result = await gateway.client.callTool({ name: 'raw__go', arguments: {} });
    expect(textOf(result)).toBe(refused);
    expect(gateway.elicitations).toHaveLength(0);
  });
});
