import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { faultServer } from '../helpers/faults.js';
import { eventually, rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';
import { readFileSync, existsSync } from 'node:fs';

/**
 * A client sends a second tools/call under the id of one still in flight (round 13 review R4): it
 * was decided and run as a call of its own, and a cancel of that id reached only the second, so
 * the first, cancelled by the client, ran when approved. Raw lines: the SDK Client never repeats an id.
 */
let gateway: ReturnType<typeof rawGateway> | null = null;
afterEach(async () => {
  await gateway?.close();
  gateway = null;
});

describe('a tools/call under an id in flight', () => {
  test('is refused at once naming the id, never asked or forwarded; a cancel of the id then withdraws the first', async () => {
    const dir = tempDir();
    const calls = join(dir, 'calls');
    gateway = rawGateway(writeConfig(dir, { mcpServers: { f: faultServer('works', join(dir, 'starts'), { FAULT_CALLS: calls }) }, approval: { fallback: 'deny' } }));
    await gateway.initialize({ elicitation: { form: {} } });
    gateway.send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'f__echo', arguments: { text: 'first' } } });
    const prompt = await gateway.find((message) => message.method === 'elicitation/create');
    gateway.send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'f__echo', arguments: { text: 'second' } } });
    expect(await gateway.response(10)).toEqual({ jsonrpc: '2.0', id: 10, error: { code: -32600, message: 'Invalid request: request id 10 is already in use by a call in flight' } });
    gateway.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10, reason: 'the user cancelled request 10' } });
    // The first call's prompt is withdrawn: the cancel reached it.
    await gateway.find((message) => message.method === 'notifications/cancelled' && (message.params as { requestId?: unknown }).requestId === prompt.id);
    gateway.send({ jsonrpc: '2.0', id: prompt.id, result: { action: 'accept', content: { decision: 'Allow once' } } });
    // A call after it is answered (the gateway reads in order), and only one prompt was ever shown.
    gateway.send({ jsonrpc: '2.0', id: 11, method: 'tools/list', params: {} });
    await gateway.response(11);
    await eventually(() => expect(gateway!.messages.filter((message) => message.id === 10 && message.method === undefined)).toHaveLength(1));
    expect(gateway.messages.filter((message) => message.method === 'elicitation/create')).toHaveLength(1);
    expect(existsSync(calls) ? readFileSync(calls, 'utf8') : '').toBe('');
  });
});
