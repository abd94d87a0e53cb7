import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, ROOT, eventually, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * U+2028 and U+2029 in what the gateway writes. JSON.stringify leaves both raw inside strings, and
 * Node 24's readline ends a line at each: a server or client reading with it read one message as
 * pieces that are not JSON, and the call was never answered. The gateway writes both escaped
 * (`\u2028`), to the server and to the client, the same JSON value; it reads both forms.
 *
 * The peers are real readers built on node:readline: the server (test/fixtures/readline-server.mjs)
 * and this test as the client. Under Node 24 (run by hand, see docs/design.md, "Node versions") they
 * split at a raw separator; under Node 20 and 22 they do not, and the bytes each one received say
 * whether a raw separator was written.
 */
const SERVER = join(ROOT, 'test/fixtures/readline-server.mjs');
const RAW = /[\u2028\u2029]/;

describe('U+2028 and U+2029 between readline peers', () => {
  test('a call and its answer holding both reach a readline server and a readline client whole, escaped on the wire', async () => {
    const dir = tempDir();
    const wire = join(dir, 'wire.log');
    const config = writeConfig(dir, { mcpServers: { r: { command: process.execPath, args: [SERVER], env: { WIRE_LOG: wire } } }, permissions: { allow: ['mcp__r'] } });
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] });
    const bytes: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => bytes.push(chunk));
    const messages: Array<Record<string, unknown>> = [];
    const unreadable: string[] = [];
    createInterface({ input: child.stdout!, crlfDelay: Infinity }).on('line', (line) => {
      try {
        messages.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        unreadable.push(line);
      }
    });
    const answer = (id: number) => eventually(() => messages.find((message) => message.id === id) ?? Promise.reject(new Error('not yet')), 30_000);
    // The client's own line holds both raw, as JSON.stringify writes them.
    const send = (message: unknown) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    try {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'readline', version: '1' } } });
      await answer(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const text = 'one\u2028two\u2029three';
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'r__echo', arguments: { text } } });
      const result = (await answer(2)).result as { content: Array<{ text: string }> };
      // The server read the call whole, and echoed it; the answer reached this client whole.
      expect(JSON.parse(result.content[0]!.text)).toEqual({ text });
      expect(unreadable).toEqual([]);
      // On the wire, both directions: escaped, never raw.
      const received = readFileSync(wire, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as string);
      const call = received.find((line) => line.includes('"tools/call"'))!;
      expect(call).toContain(String.raw`one\u2028two\u2029three`);
      expect(received.filter((line) => RAW.test(line))).toEqual([]);
      const written = Buffer.concat(bytes).toString('utf8');
      expect(written).toContain(String.raw`one\u2028two\u2029three`);
      expect(RAW.test(written)).toBe(false);
    } finally {
      child.stdin!.end();
    }
  }, 60_000);
});
