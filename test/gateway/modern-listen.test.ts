import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { eventually, fixtureServer, tempDir, writeConfig } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';
import { MAX_OPEN_LISTENS } from '../../src/gateway/era-2026.js';
import { startModernClient, type Modern } from '../helpers/modern-client.js';

/**
 * `subscriptions/listen` over stdio (docs/approval.md, "List changes and resource updates"): a
 * 2026-07-28 client is sent a change notification only on a listen that asked for it ("The server
 * MUST NOT send notification types the client has not explicitly requested",
 * basic/patterns/subscriptions), each stamped with the listen's id, until it cancels the listen.
 * Until round 23 the stdio gateway answered the method "not found" and sent every list change and
 * resource update to such a client unasked.
 */
const open: Modern[] = [];
afterAll(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

function setup() {
  const dir = tempDir();
  const config: ConfigInput = {
    mcpServers: { f: faultServer('progress-flood', join(dir, 'f-starts'), { FAULT_FLOODED: join(dir, 'flooded') }) },
    workspace: [dir],
    permissions: { allow: ['mcp__f', 'mcp__more'] },
  };
  return { dir, config };
}

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

/** Every message the client's transport reads, as it came (`wire`), and its transport's own send, for messages the SDK Client has no method for. */
function tapped(m: Modern) {
  const wire: Array<Record<string, unknown>> = [];
  const transport = (m.client as unknown as { transport: { onmessage?: (message: unknown, extra?: unknown) => void; send(message: unknown): Promise<void> } }).transport;
  const inner = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    wire.push(message as Record<string, unknown>);
    inner(message, extra);
  };
  return { wire, send: (message: Record<string, unknown>) => transport.send(message) };
}

test('a 2026-07-28 stdio client is told the list changes and resource updates its listen opted in to, stamped with its id, and nothing once it cancels it', { timeout: 60_000 }, async () => {
  const { dir, config } = setup();
  const m = await startModernClient(dir, config);
  open.push(m);
  const changed: string[] = [];
  const updated: string[] = [];
  m.client.setNotificationHandler('notifications/tools/list_changed', () => void changed.push('tools'));
  m.client.setNotificationHandler('notifications/resources/updated', (notification) => void updated.push(String((notification.params as { uri: string }).uri)));
  expect((await m.client.listTools()).tools.map((tool) => tool.name)).not.toContain('more__echo');
  const uri = (await m.client.listResources()).resources.map((resource) => resource.uri).find((each) => each.includes('flooded'))!;
  expect(uri).toBeDefined();
  const subscription = await m.client.listen({ toolsListChanged: true, resourceSubscriptions: [uri] });
  expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [uri] });
  await m.client.callTool({ name: 'f__flood', arguments: { count: 3, kb: 1, updates: true } });
  await eventually(() => expect(updated).toHaveLength(3));
  for (const each of updated) expect(each.startsWith(uri)).toBe(true);
  // A server added to the config is a change of the tool list the client was sent.
  writeConfig(dir, { ...config, mcpServers: { ...config.mcpServers, more: fixtureServer('more', join(dir, 'more.log')) } });
  await eventually(() => expect(changed.length).toBeGreaterThan(0), 30_000);
  expect((await m.client.listTools()).tools.map((tool) => tool.name)).toContain('more__echo');
  await subscription.close();
  const before = updated.length;
  await m.client.callTool({ name: 'f__flood', arguments: { count: 3, kb: 1, updates: true } });
  // A marker call after it: anything the flood's updates caused has been read by now (stdio keeps order).
  await m.client.listTools();
  expect(updated).toHaveLength(before);
});

test('on the wire: no change notification without a listen; acknowledged first with the listen\'s id; a bad filter -32602; a listen\'s cancel gets no answer', { timeout: 60_000 }, async () => {
  const { dir, config } = setup();
  const m = await startModernClient(dir, config);
  open.push(m);
  const { wire, send } = tapped(m);
  await m.client.listTools();
  const uri = (await m.client.listResources()).resources.map((resource) => resource.uri).find((each) => each.includes('flooded'))!;
  // Without a listen the server's updates and the config's change reach the client as nothing. The
  // tool list's change is told 50 ms after the new server is ready (upstream-session.ts): the
  // client lists nothing meanwhile (a list would take the change as sent), then a marker request.
  await m.client.callTool({ name: 'f__flood', arguments: { count: 2, kb: 1, updates: true } });
  writeConfig(dir, { ...config, mcpServers: { ...config.mcpServers, more: fixtureServer('more', join(dir, 'more.log')) } });
  await eventually(() => expect(m.stderr()).toMatch(/"server":"more".*"server ready"|server ready.*"server":"more"/), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  await m.client.listPrompts();
  const changes = (message: Record<string, unknown>) => typeof message.method === 'string' && /list_changed|resources\/updated/.test(message.method);
  expect(wire.filter(changes)).toEqual([]);
  expect((await m.client.listTools()).tools.map((tool) => tool.name)).toContain('more__echo');

  await send({ jsonrpc: '2.0', id: 'L0', method: 'subscriptions/listen', params: { _meta: META, notifications: 'all' } });
  await eventually(() => expect(wire.find((each) => each.id === 'L0')).toMatchObject({ error: { code: -32602 } }));
  await send({ jsonrpc: '2.0', id: 'L1', method: 'subscriptions/listen', params: { _meta: META, notifications: { resourceSubscriptions: [uri], promptsListChanged: false } } });
  await eventually(() => expect(wire.some((each) => each.method === 'notifications/subscriptions/acknowledged')).toBe(true));
  expect(wire.find((each) => each.method === 'notifications/subscriptions/acknowledged')).toEqual({
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: { resourceSubscriptions: [uri] }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'L1' } },
  });
  await m.client.callTool({ name: 'f__flood', arguments: { count: 2, kb: 1, updates: true } });
  await eventually(() => expect(wire.filter(changes)).toHaveLength(2));
  for (const each of wire.filter(changes)) {
    expect(each.method).toBe('notifications/resources/updated');
    expect((each.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/subscriptionId']).toBe('L1');
  }
  await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L1' } });
  await m.client.callTool({ name: 'f__flood', arguments: { count: 2, kb: 1, updates: true } });
  await m.client.listTools();
  expect(wire.filter(changes)).toHaveLength(2);
  expect(wire.filter((each) => each.id === 'L1')).toEqual([]);
});

test(`a stdio client holds at most ${MAX_OPEN_LISTENS} listens open (MAX_OPEN_LISTENS): the next is refused naming the limit, and one cancelled makes room`, { timeout: 60_000 }, async () => {
  const { dir, config } = setup();
  const m = await startModernClient(dir, config);
  open.push(m);
  const { wire, send } = tapped(m);
  const listen = (id: string) => send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true } } });
  const acknowledged = () => wire.filter((each) => each.method === 'notifications/subscriptions/acknowledged').length;
  for (let i = 0; i < MAX_OPEN_LISTENS; i++) await listen(`L${i}`);
  await eventually(() => expect(acknowledged()).toBe(MAX_OPEN_LISTENS));
  await listen('over');
  await eventually(() => expect(wire.find((each) => each.id === 'over')).toBeDefined());
  expect((wire.find((each) => each.id === 'over')!.error as { message: string }).message).toContain('MAX_OPEN_LISTENS');
  await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L0' } });
  await listen('again');
  await eventually(() => expect(acknowledged()).toBe(MAX_OPEN_LISTENS + 1));
});

test('a listen opened before any list is told when the tools change (round 23: a list the client was never sent was no news, and such a listen was told nothing)', { timeout: 60_000 }, async () => {
  const { dir, config } = setup();
  const m = await startModernClient(dir, config);
  open.push(m);
  const changed: string[] = [];
  m.client.setNotificationHandler('notifications/tools/list_changed', () => void changed.push('tools'));
  const subscription = await m.client.listen({ toolsListChanged: true });
  expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
  // A call answered: the session's servers are up and its first lists in (no list sent), then the operator adds a server.
  await m.client.callTool({ name: 'f__echo', arguments: { message: 'up' } });
  writeConfig(dir, { ...config, mcpServers: { ...config.mcpServers, more: fixtureServer('more', join(dir, 'more.log')) } });
  await eventually(() => expect(changed.length).toBeGreaterThan(0), 30_000);
  expect((await m.client.listTools()).tools.map((tool) => tool.name)).toContain('more__echo');
  await subscription.close();
});

test("a listen's resources: the server is sent one subscribe while any open listen names one, the unsubscribe with the last listen's cancel; one its server refuses is a warning in the log naming it and the server's reason", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const subscriptions = join(dir, 'subscriptions');
  const config: ConfigInput = {
    mcpServers: { f: faultServer('progress-flood', join(dir, 'f-starts'), { FAULT_FLOODED: join(dir, 'flooded'), FAULT_SUBSCRIPTIONS: subscriptions }) },
    workspace: [dir],
    permissions: { allow: ['mcp__f'] },
  };
  const m = await startModernClient(dir, config);
  open.push(m);
  const { wire, send } = tapped(m);
  const uri = (await m.client.listResources()).resources.map((resource) => resource.uri).find((each) => each.includes('flooded'))!;
  const sent = () => (existsSync(subscriptions) ? readFileSync(subscriptions, 'utf8').split('\n').filter(Boolean) : []);
  const listen = (id: string, uris: string[]) => send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: META, notifications: { resourceSubscriptions: uris } } });
  const cancel = (id: string) => send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
  // A call to the server answered: it has read every line the gateway wrote it before the call (stdio keeps order).
  const marker = () => m.client.callTool({ name: 'f__echo', arguments: { message: 'marker' } });
  const acknowledged = () => wire.filter((each) => each.method === 'notifications/subscriptions/acknowledged').length;

  await listen('L1', [uri]);
  await eventually(() => expect(sent()).toEqual([`resources/subscribe ${uri}`]));
  await listen('L2', [uri]);
  await eventually(() => expect(acknowledged()).toBe(2));
  await cancel('L1');
  await marker();
  expect(sent()).toEqual([`resources/subscribe ${uri}`]);
  await cancel('L2');
  await eventually(() => expect(sent()).toEqual([`resources/subscribe ${uri}`, `resources/unsubscribe ${uri}`]));

  await listen('L3', ['nowhere://x']);
  await eventually(() => expect(m.stderr()).toMatch(/"uri":"nowhere:\/\/x","error":"\[f\] no such resource: nowhere:\/\/x".*would not subscribe to/));
  expect(wire.filter((each) => each.id !== undefined && String(each.id).startsWith('L'))).toEqual([]);
});
