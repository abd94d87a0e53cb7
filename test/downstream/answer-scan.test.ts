import { describe, expect, test } from 'vitest';
import { scanAnswer, scanned, MAX_SCAN_DEPTH } from '../../src/downstream/answer-scan.js';
import { checkToolResult } from '../../src/gateway/call-result.js';
import { rng } from '../helpers/random.js';

/**
 * answer-scan.ts lets a server's tools/call answer skip JSON.parse, the result check and
 * JSON.stringify. Its promise: a line it takes is one whose result the full path would pass
 * unchanged (checkToolResult returns it as it is) and write again as the very same text, so the
 * client gets the same bytes either way; an answer that fails any check is never taken.
 *
 * Each line here is checked against the full path itself: JSON.parse, checkToolResult,
 * JSON.stringify. Cases where the scanner refuses are fine (the full path runs); the tests also
 * count that the fast path is taken often enough not to be vacuous.
 */

const ID = 1_000_000_007;

/** What the full path does with a line; null when it is not a plain answer with a number id. */
function fullPath(line: string): { id: unknown; text: string } | 'refused' | null {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof message !== 'object' || message === null || !('result' in message)) return null;
  try {
    const checked = checkToolResult(message.result, 's', 't');
    // The replacement for a result nested too deep is a change: it must not be taken either.
    if (checked !== message.result) return 'refused';
    return { id: message.id, text: JSON.stringify(checked) };
  } catch {
    return 'refused';
  }
}

/** Asserts the scanner agrees with the full path on `line`; true when it took the line. */
function agrees(line: string): boolean {
  if (!scanAnswer(line)) return false;
  const full = fullPath(line);
  expect(full, line).not.toBeNull();
  expect(full, line).not.toBe('refused');
  const { id, text } = full as { id: unknown; text: string };
  expect(scanned.id, line).toBe(id);
  expect(line.slice(scanned.resultStart, scanned.resultEnd), line).toBe(text);
  const message = JSON.parse(line) as Record<string, unknown>;
  expect(message.jsonrpc).toBe('2.0');
  expect(Object.keys(message).sort()).toEqual(['id', 'jsonrpc', 'result']);
  return true;
}

const line = (result: string, id: string = String(ID)) => `{"result":${result},"jsonrpc":"2.0","id":${id}}`;

describe('answer-scan: what it takes', () => {
  const taken: Array<[string, string]> = [
    ['an echo', line('{"content":[{"type":"text","text":"Echo: hello"}]}')],
    ['the SDK order of keys', `{"jsonrpc":"2.0","id":${ID},"result":{"content":[{"type":"text","text":"x"}]}}`],
    ['whitespace around the envelope', ` { "result" : {"content":[]} ,\t"jsonrpc" : "2.0" , "id" : ${ID} } `],
    ['empty content', line('{"content":[]}')],
    ['text first in a block', line('{"content":[{"text":"a","type":"text"}]}')],
    ['isError', line('{"content":[{"type":"text","text":"no"}],"isError":true}')],
    ['isError false first', line('{"isError":false,"content":[]}')],
    ['structuredContent', line('{"content":[],"structuredContent":{"a":[1,-2,0,"x",true,false,null,{}],"b":{"c":[]}}}')],
    ['escapes JSON.stringify writes', line(String.raw`{"content":[{"type":"text","text":"q\" b\\ \b\f\n\r\t \u0000 \u001f \u000b"}]}`)],
    ['unicode written raw', line('{"content":[{"type":"text","text":"é 日本 😀 \u2028 \u007f"}]}')],
    ['a key with escapes', line(String.raw`{"content":[],"structuredContent":{"a\"b":1,"a\\b":2}}`)],
    ['a large integer', line('{"content":[],"structuredContent":{"n":123456789012345}}')],
  ];
  test.each(taken)('%s', (_name, text) => {
    expect(agrees(text)).toBe(true);
  });
});

describe('answer-scan: what it refuses (the full path decides)', () => {
  const text = (value: string) => `{"type":"text","text":${value}}`;
  const refused: Array<[string, string]> = [
    // Not a plain answer.
    ['an error', `{"jsonrpc":"2.0","id":${ID},"error":{"code":-32000,"message":"x"}}`],
    ['a string id', line('{"content":[]}', `"${ID}"`)],
    ['a float id', line('{"content":[]}', `${ID}.0`)],
    ['an exponent id', line('{"content":[]}', '1e9')],
    ['a negative id', line('{"content":[]}', `-${ID}`)],
    ['id 0', line('{"content":[]}', '0')],
    ['an id of 16 digits', line('{"content":[]}', '1000000000000000')],
    ['a repeated id', `{"id":1,"result":{"content":[]},"jsonrpc":"2.0","id":${ID}}`],
    ['a repeated result', `{"result":{"content":[{"type":"text","text":"first"}]},"result":{"content":[]},"jsonrpc":"2.0","id":${ID}}`],
    ['jsonrpc 2.1', `{"result":{"content":[]},"jsonrpc":"2.1","id":${ID}}`],
    ['no jsonrpc', `{"result":{"content":[]},"id":${ID}}`],
    ['an extra key', `{"result":{"content":[]},"jsonrpc":"2.0","id":${ID},"x":1}`],
    ['an escaped key', `{"result":{"content":[]},"jsonrpc":"2.0","\\u0069d":${ID}}`],
    ['trailing text', `${line('{"content":[]}')} x`],
    ['two objects', `${line('{"content":[]}')}{}`],
    ['cut short', line('{"content":[]}').slice(0, -1)],
    ['not JSON', 'hello'],
    ['empty', ''],
    // Results the hand check does not pass as they are.
    ['no content', line('{"isError":true}')],
    ['content not an array', line('{"content":{}}')],
    ['an image block', line('{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}')],
    ['a video block', line('{"content":[{"type":"video","text":"x"}]}')],
    ['a block with annotations', line('{"content":[{"type":"text","text":"x","annotations":{}}]}')],
    ['a block without text', line('{"content":[{"type":"text"}]}')],
    ['a block with a number text', line('{"content":[{"type":"text","text":5}]}')],
    ['a repeated text key', line('{"content":[{"type":"text","text":"a","text":"b"}]}')],
    ['a repeated type key', line('{"content":[{"type":"text","type":"text","text":"b"}]}')],
    ['a null block', line('{"content":[null]}')],
    ['isError "yes"', line('{"content":[],"isError":"yes"}')],
    ['isError null', line('{"content":[],"isError":null}')],
    ['structuredContent an array', line('{"content":[],"structuredContent":[1]}')],
    ['structuredContent null', line('{"content":[],"structuredContent":null}')],
    ['_meta', line('{"content":[],"_meta":{}}')],
    ['__proto__ in the result', line('{"content":[],"__proto__":{}}')],
    ['__proto__ in a block', line(`{"content":[{"type":"text","text":"x","__proto__":{}}]}`)],
    ['a repeated content', line('{"content":[{"type":"text","text":"a"}],"content":[]}')],
    // Results that pass, written otherwise than JSON.stringify writes them.
    ['whitespace inside the result', line('{ "content":[]}')],
    ['whitespace in a block', line(`{"content":[ ${text('"x"')}]}`)],
    ['an escaped slash', line(`{"content":[${text(String.raw`"a\/b"`)}]}`)],
    ['an escaped letter', line(`{"content":[${text(String.raw`"\u0041"`)}]}`)],
    ['an escaped newline by code', line(`{"content":[${text(String.raw`"\u000a"`)}]}`)],
    ['an uppercase hex escape', line(`{"content":[${text(String.raw`"\u001F"`)}]}`)],
    ['an escaped surrogate pair', line(`{"content":[${text(String.raw`"\ud83d\ude00"`)}]}`)],
    ['an escaped lone surrogate', line(`{"content":[${text(String.raw`"\ud800"`)}]}`)],
    ['a raw lone surrogate', line(`{"content":[${text('"\ud800"')}]}`)],
    ['a raw low surrogate', line(`{"content":[${text('"\udc00x"')}]}`)],
    ['a raw control', line(`{"content":[${text('"a\u0001"')}]}`)],
    ['a bad escape', line(`{"content":[${text(String.raw`"\x"`)}]}`)],
    ['an unterminated string', `{"result":{"content":[{"type":"text","text":"x`],
    ['a float', line('{"content":[],"structuredContent":{"n":1.5}}')],
    ['a float written as an integer', line('{"content":[],"structuredContent":{"n":1.0}}')],
    ['an exponent', line('{"content":[],"structuredContent":{"n":1e3}}')],
    ['-0', line('{"content":[],"structuredContent":{"n":-0}}')],
    ['a leading zero', line('{"content":[],"structuredContent":{"n":01}}')],
    ['16 digits', line('{"content":[],"structuredContent":{"n":1234567890123456}}')],
    ['an integer key', line('{"content":[],"structuredContent":{"b":1,"1":2}}')],
    ['a repeated key', line('{"content":[],"structuredContent":{"a":1,"a":2}}')],
    ['a repeated key in an array', line('{"content":[],"structuredContent":{"l":[{"a":1,"a":2}]}}')],
    ['__proto__ in structuredContent', line('{"content":[],"structuredContent":{"__proto__":{"x":1}}}')],
    ['a key repeated past the 64th', line(`{"content":[],"structuredContent":{${Array.from({ length: 100 }, (_, index) => `"k${index}":0`).join(',')},"k3":1}}`)],
    ['TRUE', line('{"content":[],"isError":TRUE}')],
    ['nul', line('{"content":[],"structuredContent":{"a":nul}}')],
  ];
  test.each(refused)('%s', (_name, text) => {
    expect(scanAnswer(text)).toBe(false);
  });

  test('an object of many keys is taken, and a key repeated at any place refused (a Set past the 64th: round 13 review R12)', () => {
    const keys = (count: number) => Array.from({ length: count }, (_, index) => `"k${index}":0`).join(',');
    for (const count of [63, 64, 65, 99_000]) expect(agrees(line(`{"content":[],"structuredContent":{${keys(count)}}}`))).toBe(true);
    for (const [count, again] of [[64, 'k63'], [65, 'k0'], [65, 'k64'], [1000, 'k500']] as const) {
      expect(scanAnswer(line(`{"content":[],"structuredContent":{${keys(count)},"${again}":1}}`))).toBe(false);
    }
  });

  test(`nesting: taken to ${MAX_SCAN_DEPTH} levels below structuredContent, refused deeper and at the full path's own limit`, () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(agrees(line(`{"content":[],"structuredContent":{"a":${nested(MAX_SCAN_DEPTH - 1)}}}`))).toBe(true);
    expect(scanAnswer(line(`{"content":[],"structuredContent":{"a":${nested(MAX_SCAN_DEPTH)}}}`))).toBe(false);
    // Deeper than MAX_DEPTH: the full path replaces the result; never taken.
    const deep = line(`{"content":[],"structuredContent":{"a":${nested(150)}}}`);
    expect(fullPath(deep)).toBe('refused');
    expect(scanAnswer(deep)).toBe(false);
    // Thousands deep: refused without overflowing the stack.
    expect(scanAnswer(line(`{"content":[],"structuredContent":{"a":${nested(100_000)}}}`))).toBe(false);
  });

  test('a huge text is taken whole (1 MB, with escapes all through it)', () => {
    const big = 'ab"\\\n日😀'.repeat(150_000);
    const text = line(JSON.stringify({ content: [{ type: 'text', text: big }] }));
    expect(agrees(text)).toBe(true);
  });
});

/**
 * Seeded random answers: a random result, written by JSON.stringify (so often canonical), then
 * changed the ways servers write JSON otherwise (whitespace, escapes JSON.stringify would not write,
 * numbers in other forms, repeated and special keys, other block types, wrong types). Every line the
 * scanner takes must agree with the full path, and every one the full path refuses or replaces must
 * be refused.
 */
describe('answer-scan: one text block in the SDK order (its regular expressions, round 20)', () => {
  /**
   * The scanner against the full path on one line: taken only where the full path passes the same
   * text on; true when taken. Plain checks, not expect(): the 65,536 units' lines took minutes so.
   */
  function same(text: string): boolean {
    const full = fullPath(text);
    const took = scanAnswer(text);
    if (full === null || full === 'refused') {
      if (took) throw new Error(`taken, but the full path refuses it: ${JSON.stringify(text)}`);
      return false;
    }
    if (!took) return false;
    if (scanned.id !== full.id || text.slice(scanned.resultStart, scanned.resultEnd) !== full.text) throw new Error(`taken otherwise than the full path reads it: ${JSON.stringify(text)}`);
    const keys = Object.keys(JSON.parse(text) as object).sort().join();
    if (keys !== 'id,jsonrpc,result') throw new Error(`taken with the keys ${keys}: ${JSON.stringify(text)}`);
    return true;
  }
  const one = (text: string, id = String(ID), after = '') => `{"result":{"content":[{"type":"text","text":"${text}"}]${after}},"jsonrpc":"2.0","id":${id}}`;

  test('each of the 65,536 code units raw in the text, alone, after a plain run and after an escape; escaped', () => {
    let taken = 0;
    for (let code = 0; code <= 0xffff; code++) {
      const unit = String.fromCharCode(code);
      for (const text of [unit, `${'a'.repeat(40)}${unit}b`, `\\n${unit}`]) if (same(one(text))) taken++;
      if (code < 0x100 || (code & 0xff) === 0 || (code >= 0xd800 && code <= 0xdfff && (code & 0x3f) === 0)) same(one(`\\u${code.toString(16).padStart(4, '0')}`));
    }
    // Not vacuous: nearly every non-control, non-surrogate unit is taken (a quote or backslash alone is not JSON).
    expect(taken).toBeGreaterThan(3 * (0x10000 - 0x800 - 0x20 - 2) - 100);
  }, 60_000);

  test('ids, and what may follow the text block', () => {
    for (const id of ['0', '1', '7', '01', '-1', '1.0', '1e3', '123456789012345', '1234567890123456', '"7"', 'null', `${ID} `, `${ID}}`, `${ID},"x":1`]) same(one('x', id));
    for (const after of ['', ',"isError":false', ',"isError":true,"isError":false', ',"structuredContent":{}', ',"x":1']) same(one('x', String(ID), after));
    for (const line of [one('x').replace('}]}', '},{"type":"text","text":"y"}]}'), one('x').replace('"text":"x"', '"text":"x","text":"y"'), one('x').replace('"text":"x"', '"text":"x","type":"text"'), `${one('x')} `, `${one('x')}\t`, `${one('x')}}`, one('x').slice(0, -1), one('😀'), one('\ud83d'), one('\ud83d\\n'), one('\\u0041')]) same(line);
    expect(same(one('Echo: ping 12'))).toBe(true);
    expect(scanned.id).toBe(ID);
  });
});

describe('answer-scan: seeded random answers agree with the full path', () => {
  const STRINGS = ['', 'a', 'Echo: hello', '"', '\\', '\n\t\r\b\f', '\u0000\u001f\u007f', '\u2028\u2029', 'é日本', '😀', '\ud83d', '\ude00', '/', '</script>', '__proto__', '1', 'text', 'type'];
  const KEYS = ['a', 'b', 'text', 'type', 'content', '__proto__', '1', '01', '-1', 'a"b', 'k\n', 'é', '😀', 'constructor', 'toString'];

  function value(random: () => number, depth: number): unknown {
    const pick = random();
    if (depth > 4 || pick < 0.3) {
      const scalar = random();
      if (scalar < 0.3) return STRINGS[Math.floor(random() * STRINGS.length)];
      if (scalar < 0.45) return Math.floor(random() * 2000) - 1000;
      if (scalar < 0.5) return random() * 10;
      if (scalar < 0.55) return [-0, 0, 1e21, 2 ** 53, 1e-7, -1.5][Math.floor(random() * 6)];
      if (scalar < 0.7) return random() < 0.5;
      return null;
    }
    if (pick < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => value(random, depth + 1));
    const object: Record<string, unknown> = {};
    const count = Math.floor(random() * 4);
    for (let index = 0; index < count; index++) {
      const key = random() < 0.3 ? KEYS[Math.floor(random() * KEYS.length)]! : `k${Math.floor(random() * 5)}`;
      Object.defineProperty(object, key, { value: value(random, depth + 1), enumerable: true, configurable: true, writable: true });
    }
    return object;
  }

  function block(random: () => number): unknown {
    const pick = random();
    const text = random() < 0.9 ? STRINGS[Math.floor(random() * STRINGS.length)] : value(random, 3);
    if (pick < 0.75) return random() < 0.5 ? { type: 'text', text } : { text, type: 'text' };
    if (pick < 0.8) return { type: 'image', data: 'AA==', mimeType: 'image/png' };
    if (pick < 0.85) return { type: 'text', text, annotations: { priority: 0.5 } };
    if (pick < 0.9) return { type: 'text' };
    if (pick < 0.95) return { type: 'texts', text };
    return value(random, 3);
  }

  function result(random: () => number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const order = ['content', 'isError', 'structuredContent', '_meta', 'other'].sort(() => random() - 0.5);
    for (const key of order) {
      const pick = random();
      if (key === 'content' && pick < 0.95) out.content = random() < 0.95 ? Array.from({ length: Math.floor(random() * 4) }, () => block(random)) : value(random, 2);
      if (key === 'isError' && pick < 0.4) out.isError = random() < 0.8 ? random() < 0.5 : value(random, 4);
      if (key === 'structuredContent' && pick < 0.4) out.structuredContent = random() < 0.8 ? { data: value(random, 1) } : value(random, 1);
      if (key === '_meta' && pick < 0.05) out._meta = {};
      if (key === 'other' && pick < 0.05) out.other = 1;
    }
    return out;
  }

  /** Changes a JSON text the ways a server may write it otherwise. */
  function mutate(random: () => number, text: string): string {
    const pick = random();
    const at = Math.floor(random() * (text.length + 1));
    if (pick < 0.5) return text;
    if (pick < 0.6) return `${text.slice(0, at)} ${text.slice(at)}`;
    if (pick < 0.65) return text.replace('/', '\\/');
    if (pick < 0.7) return text.replace(/[a-z]/, (letter) => `\\u00${letter.charCodeAt(0).toString(16)}`);
    if (pick < 0.75) return text.replace(/\\u00([0-9a-f]{2})/, (_all, hex: string) => `\\u00${hex.toUpperCase()}`);
    if (pick < 0.8) return text.replace(/(\d+)/, '$1.0');
    if (pick < 0.85) return text.replace('{"type":"text"', '{"type":"text","type":"text"');
    if (pick < 0.9) return text.replace('"content":', '"content":[],"content":');
    if (pick < 0.95) return text.replace('"text":"', '"text":"x","text":"');
    return text.replace(/😀/, '\\ud83d\\ude00');
  }

  test('20,000 answers', () => {
    const random = rng(20261127);
    let taken = 0;
    let refusedByFullPath = 0;
    for (let index = 0; index < 20_000; index++) {
      const resultText = mutate(random, JSON.stringify(result(random)));
      const id = random() < 0.9 ? String(ID + index) : ['"7"', '0', '-3', '1.5', '1e9', 'null'][index % 6]!;
      const envelope = random() < 0.5 ? `{"result":${resultText},"jsonrpc":"2.0","id":${id}}` : `{"jsonrpc":"2.0","id":${id},"result":${resultText}}`;
      const answer = random() < 0.1 ? mutate(random, envelope) : envelope;
      const full = fullPath(answer);
      if (full === 'refused') {
        refusedByFullPath++;
        expect(scanAnswer(answer), answer).toBe(false);
      } else if (agrees(answer)) {
        taken++;
      }
    }
    // Not vacuous: a good share is taken, and a good share is refused by the full path's own check.
    expect(taken).toBeGreaterThan(3_000);
    expect(refusedByFullPath).toBeGreaterThan(2_000);
  });
});
