import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { escapeLineSeparators } from '../../src/downstream/lines.js';
import { scanCall } from '../../src/gateway/call-scan.js';
import { argsDigest } from '../../src/policy/digest.js';
import { redactSecrets } from '../../src/redact.js';
import { readAudit } from '../../src/store/audit.js';
import { BIN, ROOT, eventually, tempDir, writeConfig } from '../helpers/gateway.js';
import { rng } from '../helpers/random.js';

/**
 * The scanner's differential cases through the built gateway (round 19 review of call-scan.ts):
 * raw lines on its stdin, written the ways a client could make the scanner and JSON.parse disagree
 * (a repeated or escaped name, before or after the arguments, `__proto__` in the params, repeated
 * arguments and keys, numbers and ids JSON.stringify never writes, whitespace, CR, a byte order mark,
 * a batch, lines around the 4,096 characters of the scanner's flat arguments), against rules
 * allowing `allowed_tool` and denying `denied_tool`. The server (wire-log-server.mjs) logs every
 * line it reads byte for byte. Whatever the gateway took each line for, the server receives exactly
 * the call JSON.parse reads in it, or nothing: never the denied tool, never other arguments than
 * the ones decided, and each forwarded call has its record with that call's digest.
 */

const ALLOWED = 'w__allowed_tool';
const DENIED = 'w__denied_tool';

const sdk = (params: string, id: string) => `{"method":"tools/call","params":{${params}},"jsonrpc":"2.0","id":${id}}`;
const python = (params: string, id: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${params}}}`;

/** The params' name part: every way a name may be written twice or escaped. */
const NAMES: Array<(args: string) => string> = [
  (args) => `"name":"${ALLOWED}","arguments":${args}`,
  (args) => `"name":"${DENIED}","arguments":${args}`,
  (args) => `"name":"${DENIED}","name":"${ALLOWED}","arguments":${args}`,
  (args) => `"name":"${ALLOWED}","name":"${DENIED}","arguments":${args}`,
  (args) => `"name":"${ALLOWED}","arguments":${args},"name":"${DENIED}"`,
  (args) => `"name":"${DENIED}","arguments":${args},"name":"${ALLOWED}"`,
  (args) => `"name":"w__\\u0061llowed_tool","arguments":${args}`,
  (args) => `"name":"w__\\u0064enied_tool","arguments":${args}`,
  (args) => `"n\\u0061me":"${DENIED}","name":"${ALLOWED}","arguments":${args}`,
  (args) => `"name":"${ALLOWED}","n\\u0061me":"${DENIED}","arguments":${args}`,
  (args) => `"__proto__":{"name":"${ALLOWED}"},"name":"${DENIED}","arguments":${args}`,
  (args) => `"name":"${ALLOWED}","arguments":${args},"_meta":{"progressToken":"p"}`,
  (args) => `"_meta":{"progressToken":1},"name":"${ALLOWED}","arguments":${args}`,
  (args) => `"arguments":${args},"name":"${ALLOWED}"`,
  (args) => `"name": "${ALLOWED}" ,"arguments":\t${args}`,
  // A progress token after the arguments, as clients asking for progress write it (the scanner takes these since round 20), and around it.
  (args) => `"name":"${ALLOWED}","arguments":${args},"_meta":{"progressToken":7}`,
  (args) => `"name":"${ALLOWED}","arguments":${args},"_meta":{"progressToken":"tok"}`,
  (args) => `"name":"${DENIED}","arguments":${args},"_meta":{"progressToken":8}`,
  (args) => `"name":"${ALLOWED}","arguments":${args},"_meta":{"progressToken":9},"name":"${DENIED}"`,
  (args) => `"name":"${DENIED}","arguments":${args},"_meta":{"progressToken":9},"name":"${ALLOWED}"`,
  (args) => `"name":"${DENIED}","arguments":${args},"_meta":{"progressToken":9,"progressToken":"x"}`,
  (args) => `"name":"${ALLOWED}","arguments":${args},"_meta":{"progressToken":1},"_meta":{"progressToken":2}`,
];

/** The arguments, each holding the line's tag where JSON.parse reads it. */
const ARGS: Array<(tag: string) => string> = [
  (tag) => `{"tag":"${tag}"}`,
  (tag) => `{"tag":"${tag}","n":-12,"ok":true,"none":null}`,
  (tag) => `{"command":"ls","tag":"${tag}","command":"rm -rf /"}`,
  (tag) => `{"tag":"${tag}","path":"/ok","p\\u0061th":"/etc/shadow"}`,
  (tag) => `{"tag":"${tag}","__proto__":{"path":"/etc/shadow"}}`,
  (tag) => `{"tag":"${tag}","s":"\\ud800 \\u2028 \u2028 \\u0000 \\/ \\u0041"}`,
  (tag) => `{"tag":"${tag}","n":1e400,"m":-0,"b":12345678901234567890,"f":1.0}`,
  (tag) => `{"tag":"${tag}","o":{"a":1,"a":[2,{"b":3,"b":4}]}}`,
  (tag) => `{"tag":"${tag}","list":[1,{"x":null,"y":"日本😀"}],"e":"\\n\\t\\u001f"}`,
  (tag) => `{"tag":"${tag}","path":"/tmp/x","deep":{"a":[1,2,{"b":null,"c":"\\\""}]}}`,
  (tag) => `{"tag":"${tag}","s":"  é \u000b","n":123456789012345,"m":-12345678901234}`,
  (tag) => `{ "tag" : "${tag}" }`,
  (tag) => `{"tag":"${tag}"}, "arguments":{"tag":"${tag}","command":"rm -rf /"}`,
];

/** How a call's id is written: plainly, or as other numbers and strings JSON.parse reads. */
const IDS: Array<(id: number) => string> = [(id) => String(id), (id) => `${id}.0`, (id) => `${id}e0`, (id) => `"${id}"`, (id) => `${id * 10}e-1`];

/** A whole line and what it becomes as written: CRLF, a byte order mark, a batch, whitespace. */
const WRAPS: Array<(line: string) => string> = [(line) => line, (line) => line, (line) => line, (line) => `${line}\r`, (line) => `\ufeff${line}`, (line) => `[${line}]`, (line) => ` ${line}`];

/** What the full path would run: JSON.parse's call, when it is a tools/call to the allowed tool that may be run; else null. */
function expectedCall(line: string): { id: string | number; arguments: Record<string, unknown>; progress: boolean } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.endsWith('\r') ? line.slice(0, -1) : line);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const message = parsed as Record<string, unknown>;
  const params = message.params as Record<string, unknown> | undefined;
  if (message.jsonrpc !== '2.0' || message.method !== 'tools/call' || !params || params.name !== ALLOWED) return null;
  const args = params.arguments;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return null;
  // Refused: an own `__proto__` key anywhere in the arguments (upstream-calls.ts paramsProblem, round 19).
  if (holdsProto(args)) return null;
  const meta = params._meta;
  const progress = typeof meta === 'object' && meta !== null && (meta as Record<string, unknown>).progressToken !== undefined;
  return { id: message.id as string | number, arguments: args as Record<string, unknown>, progress };
}

function holdsProto(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (Object.hasOwn(value, '__proto__') || Object.values(value).some(holdsProto));
}

describe("the scanner's differential cases through the built gateway", () => {
  test('the server receives exactly the call JSON.parse reads, or nothing; never the denied tool; each forwarded call recorded with its digest', async () => {
    const random = rng(0x19_5ca4);
    const lines: Array<{ tag: string; line: string; id: number }> = [];
    let next = 100;
    const add = (build: (id: string, tag: string) => string, idForm = IDS[0]!) => {
      const id = next++;
      const tag = `t${id}`;
      lines.push({ tag, id, line: build(idForm(id), tag) });
    };
    // Every name form with every argument form, in both envelopes.
    for (const name of NAMES) {
      for (const args of ARGS) {
        add((id, tag) => sdk(name(args(tag)), id));
        add((id, tag) => python(name(args(tag)), id));
      }
    }
    // Ids, repeated envelope keys and wrappings, seeded.
    for (let index = 0; index < 120; index++) {
      const name = NAMES[Math.floor(random() * NAMES.length)]!;
      const args = ARGS[Math.floor(random() * ARGS.length)]!;
      const envelope = random() < 0.5 ? sdk : python;
      const wrap = WRAPS[Math.floor(random() * WRAPS.length)]!;
      add((id, tag) => wrap(envelope(name(args(tag)), id)), IDS[Math.floor(random() * IDS.length)]!);
    }
    // Repeated envelope keys: the method, the id, the params.
    add((id, tag) => sdk(`"name":"${DENIED}","arguments":{"tag":"${tag}"}`, id).replace('"jsonrpc"', `"params":{"name":"${ALLOWED}","arguments":{"tag":"${tag}","second":1}},"jsonrpc"`));
    add((id, tag) => python(`"name":"${ALLOWED}","arguments":{"tag":"${tag}"}`, id).replace('"method":"tools/call"', '"method":"tools/call","method":"tools/list"'));
    add((id, tag) => python(`"name":"${ALLOWED}","arguments":{"tag":"${tag}"}`, id).replace(',"method"', `,"id":${id}.5,"method"`));
    // Around the scanner's 4,096 characters of flat arguments, plain and with a repeated key.
    for (const target of [4094, 4095, 4096, 4097, 4098]) {
      for (const repeated of [false, true]) {
        add((id, tag) => {
          const build = (pad: number) => sdk(`"name":"${ALLOWED}","arguments":{"tag":"${tag}","pad":"${'x'.repeat(pad)}"${repeated ? ',"pad":"y"' : ''}}`, id);
          return build(Math.max(0, target - build(0).length));
        });
      }
    }

    const dir = tempDir();
    const wire = join(dir, 'wire.jsonl');
    const config = writeConfig(dir, {
      mcpServers: { w: { command: process.execPath, args: [join(ROOT, 'test/fixtures/wire-log-server.mjs')], env: { WIRE_LOG: wire } } },
      permissions: { allow: [`mcp__w__allowed_tool`], deny: [`mcp__w__denied_tool`] },
    });
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr.resume();
    const messages: Array<Record<string, unknown>> = [];
    createInterface({ input: child.stdout }).on('line', (text) => messages.push(JSON.parse(text) as Record<string, unknown>));
    const response = (id: unknown) =>
      eventually(() => {
        const found = messages.find((message) => message.id === id);
        if (!found) throw new Error(`no response ${String(id)}`);
        return found;
      }, 30_000);
    try {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
      await response(1);
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
      const list = (await response(2)) as { result: { tools: Array<{ name: string }> } };
      expect(list.result.tools.map((tool) => tool.name).sort()).toEqual([ALLOWED, DENIED]);
      // The allowed name's lines one at a time (a call alone in its read is forwarded at once, its
      // line made from the kept text: call.ts forwardNow), then the rest in writes of a few lines
      // each (one read may hold several calls, which go through the latch's batch).
      const single = 2 * ARGS.length;
      for (const { line } of lines.slice(0, single)) {
        child.stdin.write(`${line}\n`);
        const call = expectedCall(line);
        if (call) await response(call.id);
      }
      for (let index = single; index < lines.length; index += 4) child.stdin.write(lines.slice(index, index + 4).map(({ line }) => `${line}\n`).join(''));
      child.stdin.write(`${sdk(`"name":"${ALLOWED}","arguments":{"tag":"last"}`, '99')}\n`);
      await response(99);
      // Every call JSON.parse reads is answered under its id (a refused line under null, or as a parse error).
      for (const { line } of lines) {
        const call = expectedCall(line);
        if (call) await response(call.id);
      }
    } finally {
      child.stdin.end();
      await new Promise((done) => child.once('exit', done));
    }

    // What the server read: each tools/call line is canonical (one reading for any parser).
    const received = readFileSync(wire, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((entry) => JSON.parse(entry) as string)
      .filter((text) => text.includes('"tools/call"'));
    const calls = received.map((text) => {
      const message = JSON.parse(text) as { params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> } };
      // JSON.stringify's, with U+2028 and U+2029 escaped as the gateway writes every line (lines.ts escapeLineSeparators).
      expect(escapeLineSeparators(JSON.stringify(message)), 'the server got a line two parsers may read otherwise').toBe(text);
      // The server gets the gateway's own progress token only, never the client's (call.ts
      // forwardedMeta), and only with a call whose client sent one (round 27; checked by line below).
      if (message.params._meta !== undefined) {
        expect(Object.keys(message.params._meta), text).toEqual(['progressToken']);
        expect(message.params._meta.progressToken, text).toBeGreaterThanOrEqual(1_000_000_000);
      }
      return message.params;
    });
    expect(calls.every((call) => call.name === 'allowed_tool'), 'the denied tool reached the server').toBe(true);
    const byTag = new Map<unknown, Array<Record<string, unknown>>>();
    const tokenByTag = new Map<unknown, boolean[]>();
    for (const call of calls) {
      byTag.set(call.arguments.tag, [...(byTag.get(call.arguments.tag) ?? []), call.arguments]);
      tokenByTag.set(call.arguments.tag, [...(tokenByTag.get(call.arguments.tag) ?? []), call._meta !== undefined]);
    }
    // The audit file as written (readAudit drops an own __proto__ as it reads: the check is of what was written).
    const records = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text) as { tool: string; decision: string; argsDigest: string; args: unknown });
    expect(readAudit(join(dir, 'mcp-latch-audit.jsonl'), 100_000).length).toBe(records.length);
    let forwarded = 0;
    for (const { tag, line } of lines) {
      const call = expectedCall(line);
      const got = byTag.get(tag) ?? [];
      if (!call) {
        expect(got, `not a call JSON.parse reads as the allowed tool's, yet forwarded: ${line.slice(0, 300)}`).toEqual([]);
        continue;
      }
      forwarded++;
      // Exactly once, with JSON.parse's arguments key for key (the last of repeated keys).
      expect(got.map((args) => JSON.stringify(args)), line.slice(0, 300)).toEqual([JSON.stringify(call.arguments)]);
      expect(tokenByTag.get(tag), `a progress token reached the server without the client's, or the other way: ${line.slice(0, 300)}`).toEqual([call.progress]);
      const digest = argsDigest('w', 'allowed_tool', call.arguments);
      const record = records.find((entry) => entry.tool === 'allowed_tool' && entry.argsDigest === digest);
      expect(record?.decision, `no allow record with the forwarded call's digest: ${line.slice(0, 300)}`).toBe('allow');
      // The record's args are redact.ts's copy of them (long strings cut, an own __proto__ dropped); its digest, checked above, is of the whole call.
      expect(JSON.stringify(record?.args), line.slice(0, 300)).toBe(JSON.stringify(redactSecrets(call.arguments)));
    }
    // Not vacuous: many forwarded, many refused or denied, and the denied tool's calls were recorded as denied.
    expect(forwarded).toBeGreaterThan(60);
    // Both paths: the scanner takes a good share of the lines (the rest are parsed whole).
    const scanned = lines.filter(({ line }) => scanCall(line) !== null).length;
    expect(scanned).toBeGreaterThan(20);
    expect(lines.filter(({ line }) => line.includes('"_meta":{"progressToken"') && scanCall(line) !== null).length).toBeGreaterThan(10);
    expect(lines.length - scanned).toBeGreaterThan(100);
    expect(lines.length - forwarded).toBeGreaterThan(100);
    expect(records.filter((entry) => entry.tool === 'denied_tool' && entry.decision === 'deny').length).toBeGreaterThan(30);
  }, 120_000);
});
