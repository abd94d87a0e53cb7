import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, ROOT, eventually, fixtureServer, tempDir, writeConfig } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * MCP 2026-07-28 clients on the team gateway, round 22 (docs/team.md, "MCP 2026-07-28 clients").
 * The revision has no sessions over Streamable HTTP, and the gateway serves all of a member's such
 * clients in one standing session per replica: until round 22 "Allow for this session" answered in
 * one of them allowed the same calls of every other 2026-07-28 client of that member (another
 * agent, another machine with the same token) for as long as any of them kept posting.
 */
const WANDA = 'mlt_stateless-clients-test-token-wanda-0123';
const VERA = 'mlt_stateless-clients-test-token-vera-45678';
const VERA_APPROVER = 'mlt_stateless-clients-approver-vera-9876';

describe('2026-07-28 clients of one member on the team gateway', () => {
  let team: TeamHarness;
  let dir: string;
  let config: ConfigInput;
  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, (config = {
      mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')), fs: { command: process.execPath, args: [FS_SERVER, dir] }, conf: { command: process.execPath, args: [join(ROOT, 'test/fixtures/conformance-server.mjs')] },
        f: faultServer('progress-flood', join(dir, 'f-starts'), { FAULT_FLOODED: join(dir, 'flooded') }),
      },
      workspace: [dir],
      permissions: { allow: ['mcp__fix', 'mcp__conf', 'mcp__f'] },
      approval: { fallback: 'browser-manual', heartbeatSeconds: 0.5 },
      http: { tokens: [{ user: 'wanda', sha256: tokenHash(WANDA) }, { user: 'vera', sha256: tokenHash(VERA) }, { user: 'vera', role: 'approver', sha256: tokenHash(VERA_APPROVER) }] },
    }));
  }, 60_000);
  afterAll(async () => {
    await team?.close();
  });

  /** The official v2 Client pinned to 2026-07-28; its form answers `answer`, and each form it was shown is kept. */
  const modern = async (answer: string) => {
    const client = new Client({ name: 'stateless-clients-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const forms: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      forms.push(JSON.stringify(request.params));
      return { action: 'accept', content: { decision: answer } } as never;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${WANDA}` } } }), { timeout: 30_000 });
    return { client, forms };
  };

  test('"Allow for this session" is not offered to a 2026-07-28 client, and answering it grants nothing to the member\'s other clients; a session\'s client (2025) still has it', { timeout: 90_000 }, async () => {
    const file = join(dir, 'granted.txt');
    const first = await modern('Allow for this session');
    const second = await modern('Deny');
    try {
      const one = (await first.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'first' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(first.forms.length).toBeGreaterThan(0);
      for (const form of first.forms) expect(form).not.toContain('Allow for this session');
      // Not a choice it was offered: the call did not run on it.
      expect(one.isError).toBe(true);
      expect(existsSync(file)).toBe(false);
      // The member's other 2026-07-28 client is asked for the same call, and its Deny holds.
      const two = (await second.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'second' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(second.forms).toHaveLength(1);
      expect(two.isError).toBe(true);
      expect(two.content[0]!.text).toMatch(/^Denied by mcp-latch/);
      expect(existsSync(file)).toBe(false);
    } finally {
      await first.client.close().catch(() => undefined);
      await second.client.close().catch(() => undefined);
    }
    // A handshake-era client has a session of its own: the choice is offered there and holds in it.
    const old = await teamClient(team.url, WANDA, () => ({ action: 'accept', content: { decision: 'Allow for this session' } }));
    try {
      await old.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'old' } });
      expect(JSON.stringify(old.elicitations[0])).toContain('Allow for this session');
      expect(readFileSync(file, 'utf8')).toBe('old');
      await old.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'old again' } });
      expect(old.elicitations).toHaveLength(1);
      expect(readFileSync(file, 'utf8')).toBe('old again');
    } finally {
      await old.close();
    }
  });

  /** A raw 2026-07-28 POST of tools/call, as the revision's clients send it. */
  const call = (name: string, meta: Record<string, unknown>, accept = 'application/json, text/event-stream') =>
    fetch(team.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${WANDA}`, 'content-type': 'application/json', accept, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name, arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {}, ...meta } } }),
    });
  /** The JSON-RPC messages of an event stream, in order. */
  const events = (text: string) => text.split('\n\n').flatMap((frame) => frame.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown }));

  test("a call's progress reaches the v2 Client on its POST's event stream (before round 22 none did: one JSON answer)", { timeout: 60_000 }, async () => {
    const { client } = await modern('Deny');
    try {
      const progress: number[] = [];
      const result = (await client.callTool({ name: 'conf__test_tool_with_progress', arguments: {} }, { onprogress: (update) => progress.push(update.progress) })) as { content: Array<{ text: string }> };
      expect(result.content[0]!.text).toBeTruthy();
      // The gateway keeps progress increasing (gateway/progress.ts): the server's 0 comes as a hair above it.
      expect(progress).toHaveLength(3);
      expect(progress.slice(1)).toEqual([50, 100]);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  test('a server\'s log messages reach the request that named io.modelcontextprotocol/logLevel, at or above it, on an event stream ending with the answer; none without the field, or without text/event-stream in Accept', { timeout: 60_000 }, async () => {
    const streamed = await call('conf__test_tool_with_logging', { 'io.modelcontextprotocol/logLevel': 'info' });
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    expect(streamed.headers.get('x-accel-buffering')).toBe('no');
    const messages = events(await streamed.text());
    expect(messages.filter((each) => each.method === 'notifications/message').map((each) => each.params!.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    expect(messages.at(-1)).toMatchObject({ id: 'c1', result: { content: [{ text: 'Tool with logging executed successfully' }] } });
    // Above every message's level: none is sent, and the answer is one JSON object.
    const above = await call('conf__test_tool_with_logging', { 'io.modelcontextprotocol/logLevel': 'warning' });
    expect(above.headers.get('content-type')).toBe('application/json');
    expect(((await above.json()) as { id: unknown }).id).toBe('c1');
    const unasked = await call('conf__test_tool_with_logging', {});
    expect(unasked.headers.get('content-type')).toBe('application/json');
    const json = await call('conf__test_tool_with_progress', { progressToken: 7 }, 'application/json');
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(((await json.json()) as { id: unknown; result: unknown }).result).toBeDefined();
  });

  test('subscriptions/listen: the v2 Client is told the list changes and resource updates it opted in to (a sub-resource too), until it closes the listen; before round 22 the method was not found', { timeout: 60_000 }, async () => {
    const { client } = await modern('Deny');
    const changed: string[] = [];
    const updated: string[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed.push('tools'));
    client.setNotificationHandler('notifications/resources/updated', (notification) => void updated.push(String((notification.params as { uri: string }).uri)));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('more__echo');
      const uri = (await client.listResources()).resources.map((resource) => resource.uri).find((each) => each.includes('flooded'))!;
      expect(uri).toBeDefined();
      const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: [uri] });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [uri] });
      await client.callTool({ name: 'f__flood', arguments: { count: 3, kb: 1, updates: true } });
      await eventually(() => expect(updated).toHaveLength(3));
      for (const each of updated) expect(each.startsWith(uri)).toBe(true);
      // The operator adds a server: its tools are a change of the list the client was sent.
      writeConfig(dir, { ...config, mcpServers: { ...config.mcpServers, more: fixtureServer('more', join(dir, 'more.log')) } });
      await eventually(() => expect(changed.length).toBeGreaterThan(0), 30_000);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('more__echo');
      await subscription.close();
      const before = updated.length;
      await client.callTool({ name: 'f__flood', arguments: { count: 3, kb: 1, updates: true } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(updated).toHaveLength(before);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  test('subscriptions/listen on the wire: acknowledged first, stamped with the listen\'s id; a filter that is not one is -32602', { timeout: 60_000 }, async () => {
    const listen = (notifications: unknown) =>
      fetch(team.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${WANDA}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'L1', method: 'subscriptions/listen', params: { notifications, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
      });
    const bad = await listen('all');
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32602);
    const open = await listen({ promptsListChanged: true, toolsListChanged: false });
    expect(open.headers.get('content-type')).toBe('text/event-stream');
    const reader = open.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(events(first)[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { promptsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'L1' } } });
    await reader.cancel();
  });

  test("a call waiting for its member's approver credential sends the client heartbeats on its POST's stream meanwhile, then runs once approved", { timeout: 60_000 }, async () => {
    const file = join(dir, 'approved-later.txt');
    const client = new Client({ name: 'stateless-clients-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${VERA}` } } }), { timeout: 30_000 });
    try {
      const heartbeats: string[] = [];
      const result = client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'approved' } }, { onprogress: (update) => void heartbeats.push(String(update.message)) });
      await eventually(() => expect(heartbeats.length).toBeGreaterThan(1), 20_000);
      expect(heartbeats[0]).toBe('Waiting for approval: fs/write_file');
      expect(existsSync(file)).toBe(false);
      const pending = await team.api('/api/pending', VERA_APPROVER);
      const waiting = (pending.body.pending as Array<{ id: string; args: { path: string } }>).find((each) => each.args.path === file)!;
      expect((await team.api(`/api/pending/${waiting.id}`, VERA_APPROVER, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
      expect(((await result) as { isError?: boolean }).isError ?? false).toBe(false);
      expect(readFileSync(file, 'utf8')).toBe('approved');
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
