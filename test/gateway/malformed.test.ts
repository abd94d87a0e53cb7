import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, eventually, fixtureCalls, fixtureServer, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * Bad input from the client never crashes the gateway: garbage lines and malformed requests get
 * JSON-RPC errors, and the next good request is answered. Raw bytes on stdin, no SDK.
 */
describe('malformed input from the client', () => {
  test('garbage, bad envelopes and bad params get errors or are ignored; the gateway keeps serving', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } });
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config], { stdio: ['pipe', 'pipe', 'pipe'] });
    const responses: Array<Record<string, unknown>> = [];
    const stdoutLines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      stdoutLines.push(line);
      responses.push(JSON.parse(line) as Record<string, unknown>);
    });
    const send = (value: unknown) => child.stdin.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
    const byId = (id: number) => eventually(() => {
      const found = responses.find((response) => response.id === id);
      if (!found) throw new Error(`no response ${id}`);
      return found;
    }, 30_000);
    try {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await byId(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send('this is not json');
      send('{"jsonrpc": "1.0", "id": 2, "method": "tools/list"}');
      send('[1, 2, 3]');
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fix__echo', arguments: 'not an object' } });
      send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no__such_tool', arguments: {} } });
      send({ jsonrpc: '2.0', id: 5, method: 'no/such/method', params: {} });
      send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: 'still fine' } } });
      expect((await byId(3)).error).toMatchObject({ code: -32602, message: expect.stringContaining('arguments must be an object') });
      expect((await byId(4)).error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: no__such_tool') });
      expect((await byId(5)).error).toMatchObject({ code: -32601 });
      expect(JSON.stringify((await byId(6)).result)).toContain('still fine');
      // A message that is not JSON-RPC 2.0 gets the spec's error, with its id where it has a usable one.
      expect((await byId(2)).error).toMatchObject({ code: -32600 });
      expect(responses.filter((response) => response.id === null).map((response) => (response.error as { code: number }).code)).toEqual([-32700, -32600]);
      expect(fixtureCalls(join(dir, 'log')).map((entry) => entry.args)).toEqual([{ text: 'still fine' }]);
      expect(child.exitCode).toBeNull();
      // Nothing but JSON-RPC ever reached stdout.
      for (const line of stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    } finally {
      child.stdin.end();
      await new Promise((done) => child.once('exit', done));
    }
  });
});
