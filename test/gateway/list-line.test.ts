import { afterEach, describe, expect, test } from 'vitest';
import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { listAnswer } from '../../src/gateway/list-answer.js';
import { StdioUpstream } from '../../src/gateway/stdio-upstream.js';
import { serializeMessage } from '../../src/downstream/lines.js';

/**
 * A list's answer is written from the JSON listAnswer made of each entry to count its bytes, not
 * serialised entry by entry again (stdio-upstream.ts listLine; docs/performance.md, "Round 28: the
 * start and the first calls"). The line must be the one JSON.stringify makes of the message.
 */

const upstreams: StdioUpstream[] = [];
afterEach(async () => {
  for (const upstream of upstreams.splice(0)) await upstream.close();
});

async function written(message: JSONRPCMessage): Promise<string> {
  const writes: string[] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  const upstream = new StdioUpstream(1 << 20, new PassThrough(), output);
  upstreams.push(upstream);
  await upstream.start();
  await upstream.send(message);
  await new Promise((done) => setImmediate(done));
  return writes.join('');
}

const tools = () => [
  { name: 'a__echo', description: 'Echoes "quotes", \\ back-slashes and ünïcödé', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } },
  { name: 'a__sum', inputSchema: { type: 'object' }, annotations: { title: 'Sum' }, _meta: { 'x/y': [1, 2.5, null, true] } },
  { name: 'b__line', description: 'two\u2028lines', inputSchema: { type: 'object' } },
];

describe("a list's answer", () => {
  test.each([
    ['a number id', { result: { tools: 'list' }, jsonrpc: '2.0', id: 7 }],
    ['a string id', { jsonrpc: '2.0', id: 'req "1"', result: { tools: 'list' } }],
    ['with _meta after the list', { result: { tools: 'list', _meta: { 'mcp-latch/unavailable': [{ server: 'c', state: 'starting' }] } }, jsonrpc: '2.0', id: 1 }],
    ['with _meta before it and a nextCursor left undefined', { result: { _meta: {}, nextCursor: undefined, tools: 'list' }, jsonrpc: '2.0', id: 1 }],
  ])('is the line JSON.stringify writes (%s)', async (_name, shape) => {
    const answer = listAnswer(tools(), 1 << 20);
    const message = { ...shape, result: Object.fromEntries(Object.entries(shape.result).map(([key, value]) => [key, value === 'list' ? answer.entries : value])) } as unknown as JSONRPCMessage;
    const line = await written(message);
    // The line separator is escaped at the write, on both paths.
    expect(line).toBe(serializeMessage(message).replace('\u2028', '\\u2028'));
    expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(message)));
  });

  test('is written without reading its entries again', async () => {
    let reads = 0;
    const entry = { name: 'a__counted', inputSchema: { type: 'object' } } as Record<string, unknown>;
    Object.defineProperty(entry, 'description', { enumerable: true, get: () => `read ${++reads}` });
    const answer = listAnswer([entry, ...tools()], 1 << 20);
    expect(reads).toBe(1);
    const line = await written({ result: { tools: answer.entries }, jsonrpc: '2.0', id: 3 } as unknown as JSONRPCMessage);
    expect(reads).toBe(1);
    expect(JSON.parse(line).result.tools[0].description).toBe('read 1');
  });

  test('a list cut at its limit is written as cut; once its digest is made, or for a copy of it, the message is serialised as any other', async () => {
    const cut = listAnswer(tools(), Buffer.byteLength(JSON.stringify(tools()[0])) + 1);
    expect(cut.entries).toHaveLength(1);
    const cutMessage = { result: { tools: cut.entries }, jsonrpc: '2.0', id: 4 } as unknown as JSONRPCMessage;
    expect(await written(cutMessage)).toBe(serializeMessage(cutMessage));
    const answer = listAnswer(tools(), 1 << 20);
    expect(answer.digest).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const message = { result: { tools: answer.entries }, jsonrpc: '2.0', id: 5 } as unknown as JSONRPCMessage;
    expect(await written(message)).toBe(serializeMessage(message).replace('\u2028', '\\u2028'));
    const copy = { result: { tools: [...listAnswer(tools(), 1 << 20).entries] }, jsonrpc: '2.0', id: 6 } as unknown as JSONRPCMessage;
    expect(await written(copy)).toBe(serializeMessage(copy).replace('\u2028', '\\u2028'));
  });
});
