import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { argsDigest } from '../../src/policy/digest.js';
import { readAudit } from '../../src/store/audit.js';
import { BIN, eventually, fixtureCalls, fixtureServer, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * A client's tools/call lines through the built gateway, written byte for byte: those the scanner
 * takes (gateway/call-scan.ts) are never parsed whole, and every line, taken or not, is decided,
 * recorded and forwarded exactly as the full parse reads it: the server receives JSON.parse's
 * arguments, the record carries their digest, a malformed line gets its JSON-RPC error.
 */
const MARKER = 'mcp-latch-test: count parses';
const ROOT = join(import.meta.dirname, '../..');

const line = (id: number, args: string, params = `"name":"fix__echo","arguments":${args}`) => `{"method":"tools/call","params":{${params}},"jsonrpc":"2.0","id":${id}}`;
const mark = (what: string) => `${MARKER} ${what}`;

/** Lines the scanner takes: never given to JSON.parse whole. */
const SCANNED: Array<[number, string]> = [
  [10, line(10, `{"text":"${mark('flat')}","n":-12,"ok":true,"none":null}`)],
  [11, line(11, `{"text":"${mark('nested')}","list":[1,{"x":null,"y":"日本😀"}]}`)],
  [12, line(12, `{"text":"${mark('escapes')} \\" \\\\ \\n \\u0001"}`)],
  [13, `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"fix__echo","arguments":{"text":"${mark('python')}","list":[{}]}}}`],
  // A client asking for progress (round 20): its token after the arguments, in both SDKs' envelopes.
  [14, line(14, `{"text":"${mark('meta')}"}`, `"name":"fix__echo","arguments":{"text":"${mark('meta')}"},"_meta":{"progressToken":"p"}`)],
  [15, `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"fix__echo","arguments":{"text":"${mark('python meta')}"},"_meta":{"progressToken":15}}}`],
];
/** Lines it refuses: parsed whole, as before. */
const PARSED: Array<[number, string]> = [
  [20, line(20, `{"text":"${mark('first')}","text":"${mark('repeated key, last')}"}`)],
  [21, line(21, `{"text":"${mark('proto')}","__proto__":{"polluted":1}}`)],
  [22, line(22, `{ "text" : "${mark('whitespace')} \\u0065\\/" }`)],
  [23, line(23, `{"text":"${mark('float')}","n":1.5,"big":1234567890123456}`)],
  [24, line(24, `{"text":"${mark('other meta')}"}`, `"name":"fix__echo","arguments":{"text":"${mark('other meta')}"},"_meta":{"progressToken":"p","x":1}`)],
  [25, line(25, `{"text":"${mark('repeated arguments, first')}"}`, `"name":"fix__echo","arguments":{"text":"${mark('x')}"},"arguments":{"text":"${mark('repeated arguments, last')}"}`)],
  [26, `{"method":"tools/call","params":{"name":"fix__echo","arguments":{"text":"${mark('string id')}"}},"jsonrpc":"2.0","id":"26"}`],
  [27, ` { "jsonrpc" : "2.0" , "id" : 27 , "method" : "tools/call" , "params" : { "arguments" : {"text":"${mark('spaced envelope')}"} , "name" : "fix__echo" } } `],
];

describe("a client's tools/call lines, scanned or parsed", () => {
  test('the scanned ones are never parsed whole; every one is forwarded, recorded and answered as JSON.parse reads it', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    const parses = join(dir, 'parses.jsonl');
    const config = writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', log) }, permissions: { allow: ['mcp__fix__echo'] } });
    const child = spawn(process.execPath, ['--import', join(ROOT, 'test/fixtures/count-parses.mjs'), BIN, 'serve', '--config', config], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, COUNT_PARSES_FILE: parses } });
    const messages: Array<Record<string, unknown>> = [];
    createInterface({ input: child.stdout }).on('line', (text) => messages.push(JSON.parse(text) as Record<string, unknown>));
    const response = (id: unknown) =>
      eventually(() => {
        const found = messages.find((message) => message.id === id);
        if (!found) throw new Error(`no response ${String(id)}`);
        return found;
      }, 30_000);
    const cut = line(30, `{"text":"${mark('cut short')}"}`).slice(0, -1);
    try {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
      await response(1);
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
      await response(2);
      // One at a time, then all in one write (one read at the gateway).
      for (const [id, text] of SCANNED.slice(0, 2)) {
        child.stdin.write(`${text}\n`);
        await response(id);
      }
      child.stdin.write([...SCANNED.slice(2), ...PARSED].map(([, text]) => `${text}\n`).join('') + `${cut}\n`);
      for (const [id, text] of [...SCANNED, ...PARSED]) {
        const answer = await response(typeof JSON.parse(text).id === 'string' ? String(id) : id);
        // An own `__proto__` key is refused: a JavaScript server may take it as the prototype (round 19).
        if (text.includes('__proto__')) {
          expect(answer.error, text).toMatchObject({ code: -32602, message: expect.stringContaining('arguments holds a key named __proto__, which mcp-latch does not forward') });
          continue;
        }
        const args = (JSON.parse(text) as { params: { arguments: unknown } }).params.arguments;
        expect(answer.result, text).toEqual({ content: [{ type: 'text', text: JSON.stringify(args) }] });
      }
      // Not JSON: the spec's parse error, with no id; the gateway goes on serving.
      expect(messages.find((message) => message.id === null)?.error).toMatchObject({ code: -32700 });
      child.stdin.write(`${line(31, '{"text":"after"}')}\n`);
      await response(31);
    } finally {
      child.stdin.end();
      await new Promise((done) => child.once('exit', done));
    }
    // The server received exactly what JSON.parse reads in each line (the last of repeated keys).
    const received = fixtureCalls(log).filter((entry) => entry.tool === 'echo').map((entry) => JSON.stringify(entry.args));
    const expected = [...SCANNED, ...PARSED].filter(([, text]) => !text.includes('__proto__')).map(([, text]) => JSON.stringify((JSON.parse(text) as { params: { arguments: unknown } }).params.arguments));
    expect(received.filter((text) => !text.includes(mark('proto'))).slice(0, expected.length).sort()).toEqual([...expected].sort());
    expect(received.some((text) => text.includes('repeated key, last') && !text.includes(mark('first')))).toBe(true);
    // Each was recorded, with the digest of the arguments as parsed, before the answer.
    const records = readAudit(join(dir, 'mcp-latch-audit.jsonl'), 1000).filter((record) => record.tool === 'echo' && record.decision === 'allow');
    for (const [, text] of [...SCANNED, ...PARSED].filter(([, each]) => !each.includes('__proto__'))) expect(records.map((record) => record.argsDigest)).toContain(argsDigest('fix', 'echo', (JSON.parse(text) as { params: { arguments: unknown } }).params.arguments));
    // The scanned lines never reached JSON.parse whole; the others did.
    const parsed = existsSync(parses) ? readFileSync(parses, 'utf8').split('\n').filter(Boolean).map((entry) => JSON.parse(entry) as { whole: boolean; text: string }) : [];
    const wholeFor = (what: string) => parsed.filter((entry) => entry.whole && entry.text.includes(mark(what))).length;
    for (const what of ['flat', 'nested', 'escapes', 'python', 'meta', 'python meta']) expect(wholeFor(what), what).toBe(0);
    for (const what of ['repeated key, last', 'proto', 'whitespace', 'float', 'other meta', 'repeated arguments, last', 'string id', 'spaced envelope', 'cut short']) expect(wholeFor(what), what).toBeGreaterThan(0);
  }, 60_000);
});
