import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkToolResult } from '../../src/gateway/call-result.js';
import { escapeLineSeparators } from '../../src/downstream/lines.js';
import { onLines } from '../fixtures/json-lines.mjs';
import { BIN, ROOT, eventually, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * The bytes a client gets for a server's answer, through the built gateway: a result the gateway
 * passes on as the server wrote it (downstream/answer-scan.ts) must read exactly as the full path
 * writes it, JSON.stringify of the checked result under the client's id (U+2028 and U+2029
 * escaped); an answer that fails the check is -32603 either way. The server (test/fixtures/answer-lines-server.mjs) writes each answer
 * line the test gives it, byte for byte; the client's ids are unusual on purpose.
 */
const SERVER = join(ROOT, 'test/fixtures/answer-lines-server.mjs');

describe('serve: the answer the client reads', () => {
  let child: ReturnType<typeof spawn>;
  const lines: string[] = [];

  beforeAll(async () => {
    const dir = tempDir();
    const config = writeConfig(dir, { mcpServers: { a: { command: process.execPath, args: [SERVER] } }, permissions: { allow: ['mcp__a'] } });
    child = spawn(process.execPath, [BIN, 'serve', '--config', config], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] });
    // Lines end at "\n" only: one client id is U+2028, which Node 24's readline takes for a line's end.
    onLines(child.stdout!, (line) => lines.push(line));
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
    await eventually(() => expect(lines.length).toBe(1), 30_000);
    child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    // The tool's first call pins it and takes the promise's path; the calls below are warm ones.
    await call(2, '{"jsonrpc":"2.0","id":$ID,"result":{"content":[]}}');
  }, 60_000);

  afterAll(() => {
    child?.stdin?.end();
  });

  /** Sends one call whose answer is `line`; its reply as the client read it. */
  async function call(id: unknown, line: string): Promise<string> {
    const from = lines.length;
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'a__answer', arguments: { line } } })}\n`);
    return eventually(() => {
      const found = lines.slice(from).find((text) => JSON.stringify((JSON.parse(text) as { id: unknown }).id) === JSON.stringify(id));
      if (!found) throw new Error('not yet');
      return found;
    }, 30_000);
  }

  /** The full path's reply: the server's line parsed, its result checked, written again under the client's id. */
  function fullPath(id: unknown, line: string): string | 'invalid' {
    const result = (JSON.parse(line.replaceAll('$ID', '1000000001')) as { result: unknown }).result;
    try {
      // U+2028 and U+2029 escaped, as the gateway writes every line (lines.ts escapeLineSeparators).
      return escapeLineSeparators(JSON.stringify({ jsonrpc: '2.0', id, result: checkToolResult(result, 'a', 'answer') }));
    } catch {
      return 'invalid';
    }
  }

  const ids: unknown[] = [3, 0, -7, 9007199254740991, 1.5, 'x', '', 'é日😀', 'a"b\\c\n', '\u2028', '1000000005', 'ids/with/slashes'];
  const answers: Array<[string, string]> = [
    ['an echo (taken as written)', '{"result":{"content":[{"type":"text","text":"Echo: hello"}]},"jsonrpc":"2.0","id":$ID}'],
    ['the SDK key order, with spaces outside the result', ' { "jsonrpc" : "2.0" , "id" : $ID , "result" : {"content":[{"text":"a","type":"text"}],"isError":true} } '],
    ['escapes and unicode', String.raw`{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"q\" \\ \n\t \u0001 é 😀 \u2028"}]}}`],
    ['structuredContent', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"structuredContent":{"a":[1,-2,"x",null,{"b":true}]}}}'],
    ['whitespace inside the result (full path)', '{"jsonrpc":"2.0","id":$ID,"result":{ "content" : [ { "type" : "text" , "text" : "x" } ] }}'],
    ['escapes JSON.stringify does not write (full path)', String.raw`{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"\u0041\/\ud83d\ude00\u001F"}]}}`],
    ['a repeated key (full path: the last wins)', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"first","text":"last"}]}}'],
    ['a repeated result (full path)', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"first"}]},"result":{"content":[]}}'],
    ['__proto__ in structuredContent (full path)', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"structuredContent":{"__proto__":{"x":1},"y":2}}}'],
    ['an integer key (full path)', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"structuredContent":{"b":1,"2":3}}}'],
    ['floats (full path)', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"structuredContent":{"a":1.50,"b":-0,"c":1e2}}}'],
    ['an image block (full path, the schema)', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}'],
    ['no content (full path: the schema adds an empty one)', '{"jsonrpc":"2.0","id":$ID,"result":{"isError":true}}'],
    ['_meta (full path, the schema)', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"_meta":{"k":1}}}'],
    ['nested 150 deep (full path: replaced)', `{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"structuredContent":{"a":${'['.repeat(150)}${']'.repeat(150)}}}}`],
    ['a huge text', JSON.stringify({ jsonrpc: '2.0', id: 0, result: { content: [{ type: 'text', text: 'ab"\\\n日😀'.repeat(100_000) }] } }).replace('"id":0', '"id":$ID')],
  ];
  const invalid: Array<[string, string]> = [
    ['a block type MCP does not have', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"video","text":"x"}]}}'],
    ['isError a string', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"isError":"yes"}}'],
    ['structuredContent an array', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"structuredContent":[1]}}'],
  ];

  test.each(answers)('%s: the same bytes as the full path, under every kind of client id', async (_name, line) => {
    for (const id of ids) {
      const expected = fullPath(id, line);
      expect(expected).not.toBe('invalid');
      expect(await call(id, line)).toBe(expected);
    }
  }, 60_000);

  test.each(invalid)('%s: -32603, as the full path answers', async (_name, line) => {
    expect(fullPath(4, line)).toBe('invalid');
    const reply = JSON.parse(await call(4, line)) as { id: unknown; error?: { code: number; message: string } };
    expect(reply.id).toBe(4);
    expect(reply.error?.code).toBe(-32603);
    expect(reply.error?.message).toContain('with an invalid result');
  });
});
