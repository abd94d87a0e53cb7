import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { JSONRPCErrorResponseSchema, JSONRPCNotificationSchema, JSONRPCRequestSchema, JSONRPCResultResponseSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { errorResponseKind, notificationKind, requestKind, resultResponseKind } from '../../src/downstream/message-kinds.js';

// The kinds stand in front of the SDK's zod guards in the serve bundle (scripts/bundle.js): where
// one answers, it must say what the schema says.
const inherited = Object.assign(Object.create({ result: {} }), { jsonrpc: '2.0', id: 1 });
const MESSAGES: unknown[] = [
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 'a', result: { tools: [{ name: 'x' }] } },
  { jsonrpc: '2.0', id: 0, result: { content: [], isError: false } },
  { jsonrpc: '2.0', id: -7, result: { nested: { _meta: 1 } } },
  { jsonrpc: '2.0', id: 1.5, result: {} },
  { jsonrpc: '2.0', id: 2 ** 53, result: {} },
  { jsonrpc: '2.0', id: Number.NaN, result: {} },
  { jsonrpc: '2.0', id: Infinity, result: {} },
  { jsonrpc: '2.0', id: null, result: {} },
  { jsonrpc: '2.0', id: true, result: {} },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', id: 1, result: null },
  { jsonrpc: '2.0', id: 1, result: 'x' },
  { jsonrpc: '2.0', id: 1, result: undefined },
  { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 1 } } },
  { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: {} } } },
  { jsonrpc: '2.0', id: 1, result: { _meta: null } },
  { jsonrpc: '2.0', id: 1, result: { _meta: undefined } },
  { jsonrpc: '2.0', id: 1, result: {}, extra: 1 },
  { jsonrpc: '2.0', id: 1, result: {}, extra: undefined },
  { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } },
  { jsonrpc: '1.0', id: 1, result: {} },
  { id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'no' } },
  { jsonrpc: '2.0', error: { code: -32600, message: 'no' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'no' } },
  { jsonrpc: '2.0', id: 1, error: null },
  { jsonrpc: '2.0', id: 1, error: undefined },
  { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '2.0', id: 1 },
  { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: undefined, method: 'x' },
  { jsonrpc: '2.0', id: 1, method: 'x', params: undefined },
  { jsonrpc: '2.0', id: 1, method: 'x', params: [] },
  { jsonrpc: '2.0', id: 1, method: 'x', params: null },
  { jsonrpc: '2.0', id: 1.5, method: 'x' },
  { jsonrpc: '2.0', id: 1, method: 'x', extra: 1 },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: [] } } },
  { jsonrpc: '2.0', method: 'x', params: { _meta: 5 } },
  { jsonrpc: '2.0', method: 'x', params: 'text' },
  { jsonrpc: '2.0', method: 'x', id: null },
  { jsonrpc: '1.0', method: 'x' },
  { method: 'x' },
  Object.assign(Object.create({ jsonrpc: '2.0' }), { method: 'x' }),
  inherited,
  [],
  [{ jsonrpc: '2.0', id: 1, result: {} }],
  null,
  undefined,
  'text',
  42,
];

describe('message kinds against the SDK schemas', () => {
  test.each([
    ['result', resultResponseKind, JSONRPCResultResponseSchema],
    ['error', errorResponseKind, JSONRPCErrorResponseSchema],
    ['request', requestKind, JSONRPCRequestSchema],
    ['notification', notificationKind, JSONRPCNotificationSchema],
  ] as const)('%s: a kind given is the schema’s answer', (_, kind, schema) => {
    for (const message of MESSAGES) {
      const known = kind(message);
      if (known !== undefined) expect([message, known]).toEqual([message, schema.safeParse(message).success]);
    }
  });

  test('the messages a server sends at its start are told without zod', () => {
    // An answer, as the SDK's Protocol reads it: its kind and that it is no error answer.
    for (const answer of [
      { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } },
      { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } },
      { jsonrpc: '2.0', id: 'call-9', result: { content: [{ type: 'text', text: 'hi' }] } },
    ]) {
      expect(resultResponseKind(answer)).toBe(true);
    }
    // A notification or request: not an answer of either kind.
    for (const message of [
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', id: 3, method: 'roots/list' },
    ]) {
      expect(resultResponseKind(message)).toBe(false);
      expect(errorResponseKind(message)).toBe(false);
    }
    expect(requestKind({ jsonrpc: '2.0', method: 'notifications/message', params: {} })).toBe(false);
    expect(notificationKind({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } })).toBe(true);
    expect(requestKind({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } })).toBe(true);
  });

  test('the serve bundle asks them before the SDK’s schemas', () => {
    const bundle = readFileSync(fileURLToPath(new URL('../../dist/serve/gateway.cjs', import.meta.url)), 'utf8');
    expect(bundle).toContain('isJSONRPCResultResponse=value=>resultResponseKind(value)??JSONRPCResultResponseSchema$().safeParse(value).success');
    expect(bundle).toContain('isJSONRPCErrorResponse=value=>errorResponseKind(value)??JSONRPCErrorResponseSchema$().safeParse(value).success');
    expect(bundle).toContain('isJSONRPCRequest=value=>requestKind(value)??JSONRPCRequestSchema$().safeParse(value).success');
    expect(bundle).toContain('isJSONRPCNotification=value=>notificationKind(value)??JSONRPCNotificationSchema$().safeParse(value).success');
  });
});
