import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { faultServer } from '../helpers/faults.js';
import { rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';
import { readFileSync, existsSync } from 'node:fs';

/**
 * What a client or a server sends that the gateway cannot take: values nested thousands of levels
 * deep, messages over `limits.messageMB`, garbage, batches and invalid ids. Each gets an answer
 * that says why, and the gateway keeps serving.
 */
type Raw = ReturnType<typeof rawGateway>;
let gateway: Raw | null = null;
afterEach(async () => {
  await gateway?.close();
  gateway = null;
});

function calledTools(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

async function start(limits?: { messageMB: number }): Promise<{ gateway: Raw; calls: string; audit: string }> {
  const dir = tempDir();
  const calls = join(dir, 'calls');
  const config = writeConfig(dir, {
    mcpServers: { f: faultServer('works', join(dir, 'starts'), { FAULT_CALLS: calls }) },
    permissions: { allow: ['mcp__f'] },
    ...(limits ? { limits } : {}),
  });
  gateway = rawGateway(config);
  await gateway.initialize();
  return { gateway, calls, audit: join(dir, 'mcp-latch-audit.jsonl') };
}

let nextId = 100;
async function call(raw: Raw, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const id = nextId++;
  raw.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  return raw.response(id);
}

function text(answer: Record<string, unknown>): string {
  return JSON.stringify(answer);
}

describe('values nested thousands of levels deep', () => {
  test('a deep result becomes a tool error that says why; the gateway keeps serving', async () => {
    const { gateway } = await start();
    const answer = await call(gateway, 'f__deep_result', { depth: 5000 });
    expect((answer.result as { isError?: boolean }).isError).toBe(true);
    expect(text(answer)).toContain('nests deeper than 100 levels');
    expect(text(await call(gateway, 'f__echo', { text: 'still here' }))).toContain('still here');
  });

  test("a deep error's data is left out of the server's error; the gateway keeps serving", async () => {
    const { gateway } = await start();
    const answer = await call(gateway, 'f__deep_error', { depth: 5000 });
    expect(answer.error).toMatchObject({ code: -32603, message: '[f] deep error' });
    expect(text(answer)).toContain('nested deeper than 100 levels');
    expect(text(await call(gateway, 'f__echo', { text: 'still here' }))).toContain('still here');
  });

  test('deep arguments are refused before any decision: not forwarded, the gateway keeps serving', async () => {
    const { gateway, calls } = await start();
    const depth = 3500;
    const id = nextId++;
    gateway.child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"f__echo","arguments":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}\n`);
    const answer = await gateway.response(id);
    expect(answer.error).toMatchObject({ code: -32602 });
    expect(text(answer)).toContain('arguments nest deeper than 100 levels');
    expect(text(await call(gateway, 'f__echo', { text: 'after' }))).toContain('after');
    expect(calledTools(calls)).toEqual(['echo']);
  });
});

describe('messages over limits.messageMB', () => {
  test('a result over the limit answers its call at once, naming the limit and the key, and saying it was forwarded; the next call works', async () => {
    const { gateway } = await start({ messageMB: 2 });
    const answer = await call(gateway, 'f__huge_result', { mb: 3 });
    expect(text(answer)).toContain('exceeds the limit of 2 MB; raise `limits.messageMB`');
    // A tool error, not a protocol error a model may simply retry: the call ran (round 16 review H7).
    expect((answer.result as { isError?: boolean }).isError).toBe(true);
    expect(text(answer)).toContain('The call was forwarded to the server and may have had effects.');
    expect(text(await call(gateway, 'f__echo', { text: 'after' }))).toContain('after');
  });

  test('a request over the limit gets a JSON-RPC error with its id; the next call works', async () => {
    const { gateway, calls } = await start({ messageMB: 1 });
    const id = nextId++;
    gateway.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'f__echo', arguments: { text: 'y'.repeat(2 * 1024 * 1024) } } });
    const answer = await gateway.response(id);
    expect(answer.error).toMatchObject({ code: -32600 });
    expect(text(answer)).toContain('exceeds the limit of 1 MB; raise `limits.messageMB`');
    expect(text(await call(gateway, 'f__echo', { text: 'after' }))).toContain('after');
    expect(calledTools(calls)).toEqual(['echo']);
  });

  test('lines a server writes that are not JSON-RPC are skipped; its answers still arrive', async () => {
    const { gateway } = await start();
    expect(text(await call(gateway, 'f__garbage_then_echo'))).toContain('after garbage');
    expect(text(await call(gateway, 'f__echo', { text: 'after' }))).toContain('after');
  });
});

describe('JSON-RPC the client gets wrong', () => {
  test('a batch, invalid ids and text that is not JSON each get the spec error; the gateway keeps serving', async () => {
    const { gateway } = await start();
    const bad = [
      JSON.stringify([{ jsonrpc: '2.0', id: 7, method: 'tools/list' }]),
      JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '2.0', id: [1], method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '2.0', id: true, method: 'tools/list' }),
      '{not json',
    ];
    gateway.child.stdin.write(bad.map((line) => `${line}\n`).join(''));
    const errors = await eventuallyCount(gateway, 6);
    expect(errors.map((message) => (message.error as { code: number }).code)).toEqual([-32600, -32600, -32600, -32600, -32600, -32700]);
    for (const message of errors) expect(message.id).toBeNull();
    expect(text(await call(gateway, 'f__echo', { text: 'after' }))).toContain('after');
  });
});

async function eventuallyCount(raw: Raw, count: number): Promise<Array<Record<string, unknown>>> {
  await raw.find(() => raw.messages.filter((message) => message.id === null).length >= count);
  return raw.messages.filter((message) => message.id === null);
}
