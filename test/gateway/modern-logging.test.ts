import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { ROOT, startGateway, tempDir, textOf } from '../helpers/gateway.js';
import { startModernClient, type Modern } from '../helpers/modern-client.js';

/**
 * Log messages on stdio by era (docs/design.md, "MCP 2026-07-28"): a 2026-07-28 client is sent a
 * server's log messages only for a request that named `io.modelcontextprotocol/logLevel` in its
 * `_meta`, at or above that level (server/utilities/logging: "The server MUST NOT emit
 * notifications/message for a request that does not include this field"); a client that did `initialize` keeps the 2025 way.
 */
const CONFORMANCE = join(ROOT, 'test/fixtures/conformance-server.mjs');
const config = (dir: string): ConfigInput => ({ mcpServers: { conf: { command: process.execPath, args: [CONFORMANCE] } }, workspace: [dir], permissions: { allow: ['mcp__conf'] } });
const STEPS = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];

const open: Modern[] = [];
afterAll(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

test('a 2026-07-28 client gets a call\'s log messages only when the call named io.modelcontextprotocol/logLevel, at or above it', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const m = await startModernClient(dir, config(dir));
  open.push(m);
  const logged: string[] = [];
  m.client.setNotificationHandler('notifications/message', (notification) => void logged.push(String((notification.params as { data: unknown }).data)));
  const call = async (meta: Record<string, unknown>) => {
    logged.length = 0;
    const result = await m.client.callTool({ name: 'conf__test_tool_with_logging', arguments: {}, _meta: meta });
    expect(textOf(result)).toContain('Tool with logging executed successfully');
    // A marker call after it: anything the first sent has been read by now (stdio keeps order).
    await m.client.callTool({ name: 'conf__test_simple_text', arguments: {} });
    return [...logged];
  };
  expect(await call({})).toEqual([]);
  expect(await call({ 'io.modelcontextprotocol/logLevel': 'warning' })).toEqual([]);
  expect(await call({ 'io.modelcontextprotocol/logLevel': 'info' })).toEqual(STEPS);
  expect(await call({ 'io.modelcontextprotocol/logLevel': 'debug' })).toEqual(STEPS);
});

test('a client that did initialize (2025) still gets a call\'s log messages without naming a level, and logging/setLevel still filters them', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const h = await startGateway(config(dir), { dir });
  try {
    const logged: string[] = [];
    h.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logged.push(String(notification.params.data)));
    await h.client.callTool({ name: 'conf__test_tool_with_logging', arguments: {} });
    await h.client.callTool({ name: 'conf__test_simple_text', arguments: {} });
    expect(logged.filter((each) => STEPS.includes(each))).toEqual(STEPS);
    logged.length = 0;
    await h.client.setLoggingLevel('warning');
    await h.client.callTool({ name: 'conf__test_tool_with_logging', arguments: {} });
    await h.client.callTool({ name: 'conf__test_simple_text', arguments: {} });
    expect(logged.filter((each) => STEPS.includes(each))).toEqual([]);
  } finally {
    await h.close();
  }
});
