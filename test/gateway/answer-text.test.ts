import { describe, expect, test } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { QUEUED } from '../../src/downstream/lines.js';
import { ModernWire } from '../../src/gateway/era-2026.js';
import { ANSWERING, UpstreamCalls, type IncomingCall } from '../../src/gateway/upstream-calls.js';
import { VERSION_KEY } from '../../src/mcp-2026.js';

/**
 * A result passed on as the server wrote it (downstream/answer-scan.ts) leaves as a line made in
 * UpstreamCalls: sent only while the call is not cancelled, parsed again for a transport that takes
 * no lines, and stamped as any other answer when it answers a 2026-07-28 request.
 */
function fakeTransport(lines: boolean) {
  const sent: unknown[] = [];
  const sentLines: string[] = [];
  const transport: Transport & { sendLine?: (line: string, id: string | number) => Promise<void> } = {
    start: async () => undefined,
    close: async () => undefined,
    send: async (message: JSONRPCMessage) => void sent.push(message),
  };
  if (lines) transport.sendLine = (line) => (sentLines.push(line), QUEUED);
  return { transport, sent, sentLines };
}

function taking(lines: boolean) {
  const fake = fakeTransport(lines);
  const calls: IncomingCall[] = [];
  const upstream = new UpstreamCalls(new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } }), (group) => group.map((call) => (calls.push(call), ANSWERING)));
  fake.transport.onmessage = () => undefined;
  upstream.attach(fake.transport);
  const call = (id: string | number) => fake.transport.onmessage!({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } } as JSONRPCMessage);
  return { ...fake, calls, call };
}

describe('a call answered with its result text', () => {
  test('the line is the full path JSON.stringify, under the client id', async () => {
    const { call, calls, sentLines, sent } = taking(true);
    call('a"é');
    await Promise.resolve();
    calls[0]!.answerText!('{"content":[]}');
    expect(sentLines).toEqual([`${JSON.stringify({ jsonrpc: '2.0', id: 'a"é', result: { content: [] } })}\n`]);
    expect(sent).toEqual([]);
  });

  test('a cancelled call gets no answer', async () => {
    const { call, calls, sentLines, sent, transport } = taking(true);
    call(7);
    await Promise.resolve();
    transport.onmessage!({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } } as JSONRPCMessage);
    calls[0]!.answerText!('{"content":[]}');
    expect(sentLines).toEqual([]);
    expect(sent).toEqual([]);
  });

  test('a transport that takes no lines gets the parsed message', async () => {
    const { call, calls, sent } = taking(false);
    call(8);
    await Promise.resolve();
    calls[0]!.answerText!('{"content":[{"type":"text","text":"x"}]}');
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'x' }] } }]);
  });
});

test('an answer line to a 2026-07-28 request is stamped as the answer it is; any other is sent as it is', () => {
  const { transport, sent, sentLines } = fakeTransport(true);
  transport.onmessage = () => undefined;
  new ModernWire(transport, { serverInfo: { name: 'mcp-latch', version: '1' }, capabilities: {} });
  transport.onmessage!({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'x', _meta: { [VERSION_KEY]: '2026-07-28' } } } as JSONRPCMessage);
  void transport.sendLine!('{"jsonrpc":"2.0","id":5,"result":{"content":[]}}\n', 5);
  void transport.sendLine!('{"jsonrpc":"2.0","id":6,"result":{"content":[]}}\n', 6);
  expect(sentLines).toEqual(['{"jsonrpc":"2.0","id":6,"result":{"content":[]}}\n']);
  expect(sent).toHaveLength(1);
  expect((sent[0] as { result: Record<string, unknown> }).result).toMatchObject({ resultType: 'complete', content: [] });
});
