import { join } from 'node:path';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventually, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';
import { faultServer } from '../helpers/faults.js';

/**
 * A server's flood of progress or log notifications (round 29 review P29-5, round 30 review P30-1):
 * relayed one for one, they queued ahead of every other server's answers (1–11 s for an echo). Now a
 * call's progress is sent at most PROGRESS_BURST at once and PROGRESS_PER_SECOND after, the latest
 * kept (src/gateway/progress.ts), and a server's log messages to a session at most
 * LOG_MESSAGES_PER_SECOND, the rest counted and told (src/gateway/log-rate.ts), and its resource
 * updates to a client at most RESOURCE_UPDATES_PER_SECOND, the resource subscribed to told once for
 * the rest (src/gateway/update-rate.ts; round 30 review P30-3). The built gateway
 * over stdio, the fault server's `flood` tool (test/fixtures/fault-server.mjs) beside one that works.
 */
let h: Harness;
const logs: LoggingMessageNotification['params'][] = [];
const updated: string[] = [];

beforeAll(async () => {
  const dir = tempDir();
  h = await startGateway({ mcpServers: { f: faultServer('progress-flood', join(dir, 'starts')), w: faultServer('works', join(dir, 'w-starts')) }, permissions: { allow: ['mcp__f', 'mcp__w'] } }, { dir, env: { MCP_LATCH_LOG_LEVEL: 'info' } });
  h.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
}, 60_000);

afterAll(async () => {
  await h.close();
});

test("a server's 200,000 progress updates for one call reach the client at most 10 at once and 10 a second, increasing, none after the answer; another server answers meanwhile", async () => {
  // Read off the wire: the SDK Client's own onprogress loses an update read with its answer (typescript-sdk#2580; test/faults/server-texts.test.ts).
  const wire: Array<{ progress: number; token: unknown } | { answered: unknown }> = [];
  const transport = (h.client as unknown as { transport: { onmessage?: (message: unknown, extra?: unknown) => void } }).transport;
  const inner = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    const record = message as { method?: string; id?: unknown; params?: { progress: number; progressToken: unknown } };
    if (record.method === 'notifications/progress') wire.push({ progress: record.params!.progress, token: record.params!.progressToken });
    else if (record.id !== undefined && record.method === undefined) wire.push({ answered: record.id });
    inner(message, extra);
  };
  const started = performance.now();
  let result: unknown;
  try {
    const flood = h.client.callTool({ name: 'f__flood', arguments: { count: 200_000, kb: 0 } }, undefined, { timeout: 120_000, onprogress: () => undefined });
    expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'meanwhile' } }))).toContain('meanwhile');
    result = await flood;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  } finally {
    transport.onmessage = inner;
  }
  expect(textOf(result)).toBe('sent 200000');
  const seconds = (performance.now() - started) / 1000;
  const updates = wire.filter((each) => 'progress' in each);
  const token = updates[0]!.token;
  expect(updates.every((each) => each.token === token)).toBe(true);
  // Before round 30 every one was relayed: ~200,000 (those past limits.messageMB waiting dropped while the client was behind).
  expect(updates.length).toBeLessThanOrEqual(10 + 10 * Math.ceil(seconds) + 1);
  for (let i = 1; i < updates.length; i++) expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
  const answeredAt = wire.findIndex((each) => 'answered' in each && each.answered === token);
  expect(answeredAt).toBeGreaterThan(wire.lastIndexOf(updates.at(-1)!));
}, 120_000);

test('the latest update held back is sent when the next may go: 50 at once, then the answer 1.5 s later, and the client has seen the 50th', async () => {
  const updates: number[] = [];
  const result = await h.client.callTool({ name: 'f__flood', arguments: { count: 50, kb: 0, waitMs: 1_500 } }, undefined, { timeout: 60_000, onprogress: (update: Progress) => void updates.push(update.progress) });
  expect(textOf(result)).toBe('sent 50');
  expect(updates.length).toBeLessThan(50);
  expect(updates.at(-1)).toBe(50);
}, 60_000);

test("a server's 200,000 log messages: at most 100 a second reach the client, and it is told how many were dropped, naming the limit", async () => {
  logs.length = 0;
  const started = performance.now();
  const flood = h.client.callTool({ name: 'f__flood', arguments: { count: 200_000, kb: 0, logs: true } }, undefined, { timeout: 120_000 });
  expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'meanwhile' } }))).toContain('meanwhile');
  expect(textOf(await flood)).toBe('sent 200000');
  const seconds = (performance.now() - started) / 1000;
  const told = await eventually(() => {
    const found = logs.filter((params) => params.logger === 'mcp-latch' && params.level === 'warning');
    expect(found.length).toBeGreaterThan(0);
    return found;
  });
  expect(String(told[0]!.data)).toMatch(/^mcp-latch dropped [\d,]+ log messages of server f in the last second, past the 100 a second it relays of one server \(LOG_MESSAGES_PER_SECOND; docs\/config\.md, "limits"\)$/);
  const relayed = logs.filter((params) => params.logger === 'f/flood');
  // Before round 30 each was relayed (those past limits.messageMB waiting dropped while the client was behind).
  expect(relayed.length).toBeLessThanOrEqual(100 * (Math.ceil(seconds) + 1));
  const dropped = told.reduce((sum, params) => sum + Number(String(params.data).match(/dropped ([\d,]+)/)![1]!.replace(/,/g, '')), 0);
  await eventually(() => expect(h.stderr()).toMatch(/"msg":"mcp-latch dropped [\d,]+ log messages of server f in the last second/));
  expect(relayed.length + dropped).toBeLessThanOrEqual(200_000);
}, 120_000);

test("a server's 100,000 updates of sub-resources of a subscribed resource: at most 100 a second reach the client, and the subscribed resource is told updated for the rest", async () => {
  await h.client.subscribeResource({ uri: 'fault://flooded' });
  updated.length = 0;
  const started = performance.now();
  const flood = h.client.callTool({ name: 'f__flood', arguments: { count: 100_000, kb: 0, updates: true } }, undefined, { timeout: 120_000 });
  expect(textOf(await h.client.callTool({ name: 'w__echo', arguments: { text: 'meanwhile' } }))).toContain('meanwhile');
  expect(textOf(await flood)).toBe('sent 100000');
  await eventually(() => expect(h.stderr()).toMatch(/"msg":"held back [\d,]+ resource update notifications of server f in the last second, past the 100 a second it relays of one server to a client \(RESOURCE_UPDATES_PER_SECOND; docs\/config\.md, \\"limits\\"\): the 1 resource\(s\) subscribed to that they are under are told updated once each"/));
  await eventually(() => expect(updated).toContain('fault://flooded'));
  const seconds = (performance.now() - started) / 1000;
  // Before round 30 each was relayed (past limits.messageMB waiting, each resource kept once while the client was behind).
  expect(updated.length).toBeLessThanOrEqual(101 * (Math.ceil(seconds) + 1));
  expect(updated.filter((uri) => uri !== 'fault://flooded').every((uri) => uri.startsWith('fault://flooded/'))).toBe(true);
}, 120_000);
