import { describe, expect, test } from 'vitest';
import { scanCall, scannedCall } from '../../src/gateway/call-scan.js';
import { MAX_SCAN_DEPTH } from '../../src/downstream/answer-scan.js';
import { parseMessage } from '../../src/downstream/lines.js';
import { paramsProblem } from '../../src/gateway/upstream-calls.js';
import { rng } from '../helpers/random.js';
import { argsDigest, canonicalJson } from '../../src/policy/digest.js';
import { hash } from '../../src/node-crypto.js';
import { ArgsJson } from '../../src/values.js';

/**
 * call-scan.ts lets a client's tools/call line skip JSON.parse of the whole line, and keeps the
 * arguments' text as their JSON.stringify. Its promise: a line it takes is one the full path
 * (parseMessage) parses into the very same message, whose params pass paramsProblem, and whose
 * arguments JSON.stringify writes as exactly the text kept; anything else is refused, and the full
 * path parses it (or answers its JSON-RPC error) as before.
 */

/** Asserts the scanner agrees with the full path on `line`; true when it took the line. */
function agrees(line: string): boolean {
  const message = scanCall(line);
  if (!message) return false;
  const full = parseMessage(line) as unknown as Record<string, unknown>;
  expect(message, line).toEqual(full);
  expect(Object.keys(message).sort()).toEqual(['id', 'jsonrpc', 'method', 'params']);
  const params = (message as unknown as { params: Record<string, unknown> }).params;
  expect(scannedCall.params, line).toBe(params);
  expect(Object.keys(params)).toEqual(Object.keys(full.params as object));
  expect(['name,arguments', 'name,arguments,_meta']).toContain(Object.keys(params).join());
  expect(paramsProblem(params), line).toBeNull();
  expect(scannedCall.argsText, line).toBe(JSON.stringify((full.params as Record<string, unknown>).arguments));
  // The parsed arguments hold own data only: no prototype was set through a key.
  expect(Object.getPrototypeOf(params.arguments)).toBe(Object.prototype);
  // Arguments marked sorted are canonicalJson's own text (policy/digest.ts then takes it as it is),
  // and the digest of the call as upstream-calls.ts hands it on is canonicalJson's, marked or not.
  if (scannedCall.argsSorted) expect(canonicalJson(params.arguments), line).toBe(scannedCall.argsText);
  const json = new ArgsJson(params.arguments as Record<string, unknown>, scannedCall.argsText, scannedCall.argsSorted);
  expect(argsDigest('s', 't', params.arguments, json), line).toBe(hash('sha256', canonicalJson(['s', 't', params.arguments])));
  return true;
}

/** A call as the SDK Client writes it, with `args` as the arguments' text. */
const call = (args: string, name = '"everything__echo"', id = '7') => `{"method":"tools/call","params":{"name":${name},"arguments":${args}},"jsonrpc":"2.0","id":${id}}`;

describe('call-scan: arguments known canonical (round 28)', () => {
  test('flat arguments are marked sorted only when every key comes after the one before', () => {
    const sorted = (args: string): boolean => {
      expect(agrees(call(args)), args).toBe(true);
      return scannedCall.argsSorted;
    };
    expect(sorted('{}')).toBe(true);
    expect(sorted('{"message":"hello"}')).toBe(true);
    expect(sorted('{"a":1,"b":"x","c":null}')).toBe(true);
    expect(sorted('{"B":1,"a":2}')).toBe(true);
    expect(sorted('{"b":1,"a":2}')).toBe(false);
    expect(sorted('{"a":1,"c":2,"b":3}')).toBe(false);
    expect(sorted('{"a":1,"aa":2,"Z":3}')).toBe(false);
    // Made by JSON.parse (a nested value): never marked, so the digest checks the object itself.
    expect(sorted('{"a":[1],"b":2}')).toBe(false);
    expect(sorted('{"b":{"y":1,"x":2},"a":1}')).toBe(false);
  });

  test("the last call's keys, kept by place, stand for a key only where the line has that very key (round 28)", () => {
    const sequence = [
      '{"message":"a"}',
      '{"messages":"b"}',
      '{"message":"c","x":1}',
      '{"mess":1,"x":2}',
      '{"message":1,"x":2}',
      '{"message\\n":1,"x\\"":2}',
      '{"message":{"nested":1},"x":3}',
      '{"x":1,"message":2}',
      '{"message":1,"message":2}',
      '{"message" :1}',
      '{"message":1}',
      '{"messagex:1}',
      '{"message":1,"x":1}',
      '{"message":1,"xy:1}',
      '{"__proto__":1}',
      '{"message":1,"__proto__":2}',
      '{"1":1}',
    ];
    // Taken, as the very message JSON.parse makes (agrees), but for a repeat, whitespace, a key not closed (not JSON), __proto__ and an integer key.
    const refused = new Set(['{"message":1,"message":2}', '{"message" :1}', '{"messagex:1}', '{"message":1,"xy:1}', '{"__proto__":1}', '{"message":1,"__proto__":2}', '{"1":1}']);
    for (const args of sequence) expect(agrees(call(args)), args).toBe(!refused.has(args));
  });

  test('a repeated key is refused whether the keys before it were in order or not (only keys out of order are looked up)', () => {
    for (const args of ['{"a":1,"a":2}', '{"a":1,"b":2,"a":3}', '{"a":1,"b":2,"b":3}', '{"b":1,"a":2,"b":3}', '{"c":1,"a":2,"b":3,"a":4}', '{"a\\u0062":1,"ab":2}']) {
      expect(scanCall(call(args)), args).toBeNull();
    }
  });
});

describe('call-scan: what it takes', () => {
  const taken: Array<[string, string]> = [
    ['an echo, as the SDK writes it', call('{"message":"hello"}')],
    ['as the Python SDK writes it', `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"a":1,"b":[{"c":"d"}]}}}`],
    ['as the Python SDK writes it, id 0', `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"t","arguments":{}}}`],
    ['id 0', call('{}', '"t"', '0')],
    ['an id of 15 digits', call('{}', '"t"', '999999999999999')],
    ['empty arguments', call('{}')],
    ['every kind of value', call('{"a":[1,-2,0,"x",true,false,null,{}],"b":{"c":[]},"n":-12345678901234,"m":123456789012345}')],
    ['escapes JSON.stringify writes', call(String.raw`{"s":"q\" b\\ \b\f\n\r\t \u0000 \u001f \u000b"}`)],
    ['unicode written raw', call('{"s":"é 日本 😀 \u2028 \u007f"}')],
    ['a key with escapes', call(String.raw`{"a\"b":1,"a\\b":2,"":3}`)],
    ['a name with escapes', call('{}', String.raw`"a\"b\\c\n"`)],
    ['a name in unicode', call('{}', '"日本__😀"')],
    ['a command', call('{"command":"rm -rf /tmp/x; echo \\"done\\""}', '"shell__run"')],
    ['keys named like the envelope', call('{"jsonrpc":"1.0","id":"x","method":"m","params":{},"name":"n","arguments":[]}')],
    ['keys named after Object.prototype', call('{"constructor":1,"toString":"x","hasOwnProperty":null,"valueOf":{}}')],
    // A client asking for progress (round 20): its token after the arguments, as both SDKs write it.
    ['a progress token', `{"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":1}},"jsonrpc":"2.0","id":1}`],
    ['a progress token of 15 digits', call('{"a":1},"_meta":{"progressToken":999999999999999}')],
    ['a progress token 0', call('{"a":1},"_meta":{"progressToken":0}')],
    ['a string progress token', call('{"a":[1]},"_meta":{"progressToken":"tok-1"}')],
    ['an empty string progress token', call('{},"_meta":{"progressToken":""}')],
    ['a progress token, as the Python SDK writes it', `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"a":1},"_meta":{"progressToken":3}}}`],
  ];
  test.each(taken)('%s', (_name, text) => {
    expect(agrees(text)).toBe(true);
  });
});

describe('call-scan: what it refuses (the full path parses it, or answers its error)', () => {
  const refused: Array<[string, string]> = [
    // Not a tools/call as clients write it.
    ['arguments before the name', `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"a":1},"name":"t"}}`],
    ['another order of the envelope', `{"id":3,"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","arguments":{}}}`],
    ['whitespace around the envelope', ` {"method":"tools/call","params":{"name":"t","arguments":{}},"jsonrpc":"2.0","id":3}`],
    ['whitespace inside the envelope', `{"method": "tools/call","params":{"name":"t","arguments":{}},"jsonrpc":"2.0","id":3}`],
    ['whitespace after it', `${call('{}')} `],
    ['a Python call with trailing text', `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}}}`],
    ['a Python call cut short', `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}`],
    ['a Python call with a float id', `{"jsonrpc":"2.0","id":3.5,"method":"tools/call","params":{"name":"t","arguments":{}}}`],
    ['a Python call with a string id', `{"jsonrpc":"2.0","id":"3","method":"tools/call","params":{"name":"t","arguments":{}}}`],
    ['a Python call with more after the params', `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}},"method":"x"}`],
    ['a key after the id', `${call('{}').slice(0, -1)},"method":"tools/list"}`],
    ['another method', call('{}').replace('tools/call', 'tools/list')],
    ['a notification (no id)', `{"method":"tools/call","params":{"name":"t","arguments":{}},"jsonrpc":"2.0"}`],
    ['a string id', call('{}', '"t"', '"7"')],
    ['a null id', call('{}', '"t"', 'null')],
    ['a float id', call('{}', '"t"', '7.0')],
    ['an exponent id', call('{}', '"t"', '7e0')],
    ['a negative id', call('{}', '"t"', '-7')],
    ['a leading zero', call('{}', '"t"', '07')],
    ['an id of 16 digits', call('{}', '"t"', '1000000000000000')],
    ['a repeated id', call('{}').replace('"jsonrpc"', '"id":1,"jsonrpc"')],
    ['a repeated method', call('{}').replace('"jsonrpc"', '"method":"tools/list","jsonrpc"')],
    ['a repeated params', call('{}').replace('"jsonrpc"', '"params":{"name":"u","arguments":{}},"jsonrpc"')],
    ['a repeated jsonrpc', call('{}').replace('"jsonrpc":"2.0"', '"jsonrpc":"2.0","jsonrpc":"2.0"')],
    ['jsonrpc 2.1', call('{}').replace('"2.0"', '"2.1"')],
    ['no jsonrpc', `{"method":"tools/call","params":{"name":"t","arguments":{}},"id":1}`],
    ['an extra key', call('{}').replace('"jsonrpc"', '"x":1,"jsonrpc"')],
    ['an escaped key in the envelope', call('{}').replace('"method"', String.raw`"\u006dethod"`)],
    ['an escaped method', call('{}').replace('"tools/call"', String.raw`"tools\/call"`)],
    ['__proto__ in the envelope', call('{}').replace('"jsonrpc"', '"__proto__":{},"jsonrpc"')],
    ['trailing text', `${call('{}')} x`],
    ['two objects', `${call('{}')}{}`],
    ['cut short', call('{}').slice(0, -1)],
    ['a batch', `[${call('{}')}]`],
    ['not JSON', 'hello'],
    ['empty', ''],
    ['a byte order mark', `\ufeff${call('{}')}`],
    // params not as clients write them plainly.
    ['params not an object', `{"method":"tools/call","params":[],"jsonrpc":"2.0","id":1}`],
    ['no arguments', `{"method":"tools/call","params":{"name":"t"},"jsonrpc":"2.0","id":1}`],
    ['no name', `{"method":"tools/call","params":{"arguments":{}},"jsonrpc":"2.0","id":1}`],
    ['a number name', call('{}', '5')],
    ['a null name', call('{}', 'null')],
    ['arguments an array', call('[]')],
    ['arguments a string', call('"x"')],
    ['arguments null', call('null')],
    ['a _meta before the name', `{"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"t","arguments":{}},"jsonrpc":"2.0","id":1}`],
    ['a _meta with another key', call('{},"_meta":{"progressToken":1,"x":2}')],
    ['a _meta with another key first', call('{},"_meta":{"x":2,"progressToken":1}')],
    ['a _meta without a token', call('{},"_meta":{}')],
    ['a repeated progress token', call('{},"_meta":{"progressToken":1,"progressToken":2}')],
    ['a repeated _meta', call('{},"_meta":{"progressToken":1},"_meta":{"progressToken":2}')],
    ['a name after the _meta', call('{},"_meta":{"progressToken":1},"name":"rm"')],
    ['an escaped _meta key', call(String.raw`{},"_m\u0065ta":{"progressToken":1}`)],
    ['an escaped progressToken key', call(String.raw`{},"_meta":{"progress\u0054oken":1}`)],
    ['a float progress token', call('{},"_meta":{"progressToken":1.5}')],
    ['a negative progress token', call('{},"_meta":{"progressToken":-1}')],
    ['a progress token of 16 digits', call('{},"_meta":{"progressToken":1234567890123456}')],
    ['a progress token with a leading zero', call('{},"_meta":{"progressToken":01}')],
    ['an escaped progress token', call(String.raw`{},"_meta":{"progressToken":"a\nb"}`)],
    ['a null progress token', call('{},"_meta":{"progressToken":null}')],
    ['an object progress token', call('{},"_meta":{"progressToken":{}}')],
    ['a _meta not an object', call('{},"_meta":1')],
    ['whitespace in the _meta', call('{},"_meta":{ "progressToken":1}')],
    ['a repeated name', `{"method":"tools/call","params":{"name":"rm","name":"t","arguments":{}},"jsonrpc":"2.0","id":1}`],
    ['a repeated arguments', `{"method":"tools/call","params":{"name":"t","arguments":{"command":"rm -rf /"},"arguments":{"command":"ls"}},"jsonrpc":"2.0","id":1}`],
    ['an extra params key', `{"method":"tools/call","params":{"name":"t","arguments":{},"task":{}},"jsonrpc":"2.0","id":1}`],
    ['__proto__ in params', `{"method":"tools/call","params":{"name":"t","arguments":{},"__proto__":{"x":1}},"jsonrpc":"2.0","id":1}`],
    ['an escaped name with a lone surrogate', call('{}', String.raw`"\ud800"`)],
    ['a name with an escaped slash', call('{}', String.raw`"a\/b"`)],
    ['a name with a raw control', call('{}', '"a\u0001"')],
    // Arguments written otherwise than JSON.stringify writes them.
    ['a repeated key', call('{"command":"ls","command":"rm -rf /"}')],
    ['a repeated key deep', call('{"l":[{"a":1,"a":2}]}')],
    ['a key repeated past the 64th', call(`{${Array.from({ length: 100 }, (_, index) => `"k${index}":0`).join(',')},"k3":1}`)],
    ['__proto__ in the arguments', call('{"__proto__":{"isAdmin":true}}')],
    ['__proto__ deep', call('{"a":{"__proto__":[]}}')],
    ['an escaped __proto__', call(String.raw`{"__proto\u005f_":{}}`)],
    ['an integer key', call('{"b":1,"1":2}')],
    ['whitespace inside the arguments', call('{ "a":1}')],
    ['whitespace after a colon', call('{"a": 1}')],
    ['an escaped slash', call(String.raw`{"a":"x\/y"}`)],
    ['an escaped letter', call(String.raw`{"a":"\u0041"}`)],
    ['an escaped key letter', call(String.raw`{"\u0061":1}`)],
    ['an escaped newline by code', call(String.raw`{"a":"\u000a"}`)],
    ['an uppercase hex escape', call(String.raw`{"a":"\u001F"}`)],
    ['an escaped surrogate pair', call(String.raw`{"a":"\ud83d\ude00"}`)],
    ['a raw lone surrogate', call('{"a":"\ud800"}')],
    ['a raw control', call('{"a":"a\u0001"}')],
    ['a bad escape', call(String.raw`{"a":"\x"}`)],
    ['a float', call('{"n":1.5}')],
    ['a float written as an integer', call('{"n":1.0}')],
    ['an exponent', call('{"n":1e3}')],
    ['-0', call('{"n":-0}')],
    ['a leading zero', call('{"n":01}')],
    ['16 digits', call('{"n":1234567890123456}')],
    ['NaN', call('{"n":NaN}')],
    ['TRUE', call('{"n":TRUE}')],
    ['a trailing comma', call('{"a":1,}')],
    ['a single-quoted string', call("{'a':1}")],
    ['an unterminated string', `{"method":"tools/call","params":{"name":"t","arguments":{"a":"x`],
  ];
  test.each(refused)('%s', (_name, text) => {
    expect(scanCall(text)).toBeNull();
  });

  test('a repeated key is refused, so the decision never reads another value than the server would', () => {
    // JSON.parse keeps the last; another parser may keep the first. The full path decides on what
    // JSON.parse made and sends JSON.stringify of it, one key; the scanner never keeps such text.
    const line = call('{"command":"ls","command":"rm -rf /"}');
    expect(scanCall(line)).toBeNull();
    expect((parseMessage(line) as unknown as { params: { arguments: unknown } }).params.arguments).toEqual({ command: 'rm -rf /' });
  });

  test('an object of many keys is taken, and a key repeated at any place refused', () => {
    const keys = (count: number) => Array.from({ length: count }, (_, index) => `"k${index}":0`).join(',');
    for (const count of [63, 64, 65, 5_000]) expect(agrees(call(`{${keys(count)}}`))).toBe(true);
    for (const [count, again] of [[64, 'k63'], [65, 'k0'], [65, 'k64'], [1000, 'k500']] as const) expect(scanCall(call(`{${keys(count)},"${again}":1}`))).toBeNull();
  });

  test(`nesting: taken to ${MAX_SCAN_DEPTH} levels of arguments, refused deeper, and without overflowing the stack`, () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(agrees(call(`{"a":${nested(MAX_SCAN_DEPTH - 1)}}`))).toBe(true);
    expect(scanCall(call(`{"a":${nested(MAX_SCAN_DEPTH)}}`))).toBeNull();
    // Deeper than MAX_DEPTH: the full path refuses the params (-32602).
    const deep = call(`{"a":${nested(150)}}`);
    expect(scanCall(deep)).toBeNull();
    expect(paramsProblem((parseMessage(deep) as unknown as { params: unknown }).params)).toMatch(/deeper than 100/);
    expect(scanCall(call(`{"a":${nested(100_000)}}`))).toBeNull();
    expect(scanCall(call(`{"a":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`))).toBeNull();
  });

  test('a large argument is taken whole (1 MB, with escapes all through it)', () => {
    const big = 'ab"\\\n日😀'.repeat(150_000);
    expect(agrees(call(JSON.stringify({ text: big })))).toBe(true);
  });
});

/**
 * Seeded random calls: random arguments written by JSON.stringify (so often canonical), then changed
 * the ways clients write JSON otherwise (whitespace, escapes, numbers, repeated and special keys,
 * other envelopes). Every line the scanner takes must agree with the full path; the counts check
 * that both ways are exercised.
 */
describe('call-scan: seeded random calls agree with the full path', () => {
  const STRINGS = ['', 'a', 'hello', '"', '\\', '\n\t\r\b\f', '\u0000\u001f\u007f', '\u2028\u2029', 'é日本', '😀', '\ud83d', '\ude00', '/', '</script>', '__proto__', '1', 'rm -rf /', '$(id)'];
  const KEYS = ['a', 'b', 'command', 'path', 'id', 'method', '__proto__', '1', '01', '-1', 'a"b', 'k\n', 'é', '😀', 'constructor', 'toString', ''];

  function value(random: () => number, depth: number): unknown {
    const pick = random();
    if (depth > 5 || pick < 0.3) {
      const scalar = random();
      if (scalar < 0.3) return STRINGS[Math.floor(random() * STRINGS.length)];
      if (scalar < 0.45) return Math.floor(random() * 2000) - 1000;
      if (scalar < 0.5) return random() * 10;
      if (scalar < 0.55) return [-0, 0, 1e21, 2 ** 53, 1e-7, -1.5, 123456789012345][Math.floor(random() * 7)];
      if (scalar < 0.7) return random() < 0.5;
      return null;
    }
    if (pick < 0.55) return Array.from({ length: Math.floor(random() * 4) }, () => value(random, depth + 1));
    return object(random, depth);
  }

  function object(random: () => number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const count = Math.floor(random() * 4);
    for (let index = 0; index < count; index++) {
      const key = random() < 0.3 ? KEYS[Math.floor(random() * KEYS.length)]! : `k${Math.floor(random() * 5)}`;
      Object.defineProperty(out, key, { value: value(random, depth + 1), enumerable: true, configurable: true, writable: true });
    }
    return out;
  }

  /** Changes a JSON text the ways a client may write it otherwise. */
  function mutate(random: () => number, text: string): string {
    const pick = random();
    const at = Math.floor(random() * (text.length + 1));
    if (pick < 0.45) return text;
    if (pick < 0.5) return `${text.slice(0, at)} ${text.slice(at)}`;
    if (pick < 0.53) return `${text.slice(0, at)}\t${text.slice(at)}`;
    if (pick < 0.56) return text.slice(0, at) + text.slice(at + 1);
    if (pick < 0.6) return text.replace('/', '\\/');
    if (pick < 0.65) return text.replace(/[a-z]/, (letter) => `\\u00${letter.charCodeAt(0).toString(16)}`);
    if (pick < 0.68) return text.replace(/\\u00([0-9a-f]{2})/, (_all, hex: string) => `\\u00${hex.toUpperCase()}`);
    if (pick < 0.72) return text.replace(/(\d+)/, '$1.0');
    if (pick < 0.75) return text.replace(/:(\d)/, ':0$1');
    if (pick < 0.8) return text.replace('"arguments":{', '"arguments":{"k0":1,');
    if (pick < 0.84) return text.replace('"arguments":', '"arguments":{},"arguments":');
    if (pick < 0.87) return text.replace('"name":', '"name":"other","name":');
    if (pick < 0.9) return text.replace('"params":{', '"params":{"_meta":{"progressToken":1},');
    if (pick < 0.93) return text.replace('"arguments":{', '"arguments":{"__proto__":{"polluted":1},');
    if (pick < 0.96) return text.replace(/😀/, '\\ud83d\\ude00');
    return text.replace('"jsonrpc":"2.0"', '"jsonrpc":"2.0","id":9');
  }

  test('20,000 calls', () => {
    const random = rng(20261128);
    let taken = 0;
    let refused = 0;
    for (let index = 0; index < 20_000; index++) {
      const args = object(random, 0);
      const name = random() < 0.9 ? 'srv__tool' : STRINGS[Math.floor(random() * STRINGS.length)]!;
      const id = random() < 0.9 ? String(index) : ['"7"', '0', '-3', '1.5', '1e9', 'null', '007'][index % 7]!;
      const parts = [`"method":"tools/call"`, `"params":${JSON.stringify(random() < 0.85 ? { name, arguments: args } : { arguments: args, name })}`, `"jsonrpc":"2.0"`, `"id":${id}`];
      // The TypeScript SDK's order, the Python SDK's, or any.
      const order = random();
      if (order < 0.3) parts.push(...parts.splice(0, 2));
      else if (order < 0.45) parts.sort(() => random() - 0.5);
      const line = mutate(random, `{${parts.join(',')}}`);
      let full: unknown = null;
      try {
        full = parseMessage(line);
      } catch {
        full = null;
      }
      if (agrees(line)) taken++;
      else refused++;
      // Nothing the full path refuses is taken (agrees() parses every taken line without a throw).
      if (full === null) expect(scanCall(line), line).toBeNull();
    }
    // Not vacuous: both ways are taken often.
    expect(taken).toBeGreaterThan(4_000);
    expect(refused).toBeGreaterThan(4_000);
  });
});
