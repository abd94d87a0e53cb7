import { describe, expect, test } from 'vitest';
import { CallToolResultSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { RpcError } from '../../src/errors.js';
import { checkToolResult } from '../../src/gateway/call-result.js';

/**
 * checkToolResult takes a hand-written fast path for plain-text results and the SDK's schema for
 * the rest. The promise is that the two together accept exactly what CallToolResultSchema accepts,
 * so each input below is run through both and the answers compared. The third column is what the
 * schema is expected to say, so a table that silently became all-accept (or all-reject) would fail
 * here rather than make the comparison vacuous.
 *
 * The inputs are JSON values: results reach the check parsed off a transport. (Objects JSON cannot
 * carry, such as a Map or a Date as structuredContent, pass the hand check and fail the schema.)
 */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const text = (value: string) => ({ type: 'text', text: value });

const cases: Array<[name: string, value: unknown, valid: boolean]> = [
  // Plain text: the hand-checked path.
  ['one text block', { content: [text('hello')] }, true],
  ['several text blocks', { content: [text('a'), text('b'), text('')] }, true],
  ['empty content', { content: [] }, true],
  ['isError true', { content: [text('failed')], isError: true }, true],
  ['isError false', { content: [text('fine')], isError: false }, true],
  ['structuredContent object', { content: [text('{"n":1}')], structuredContent: { n: 1, nested: { list: [1, 2] } } }, true],
  ['structuredContent empty object', { content: [], structuredContent: {} }, true],
  // Near misses of the hand check that the schema must decide.
  ['isError "yes"', { content: [text('x')], isError: 'yes' }, false],
  ['isError 1', { content: [text('x')], isError: 1 }, false],
  ['isError null', { content: [text('x')], isError: null }, false],
  ['structuredContent array', { content: [text('x')], structuredContent: [1, 2] }, false],
  ['structuredContent null', { content: [text('x')], structuredContent: null }, false],
  ['structuredContent string', { content: [text('x')], structuredContent: 'x' }, false],
  ['an extra top-level key', { content: [text('x')], vendorField: { a: 1 } }, true],
  ['_meta object', { content: [text('x')], _meta: { trace: 'abc' } }, true],
  ['_meta with a progressToken', { content: [text('x')], _meta: { progressToken: 7 } }, true],
  ['_meta a string', { content: [text('x')], _meta: 'nope' }, false],
  ['_meta with a bad progressToken', { content: [text('x')], _meta: { progressToken: { a: 1 } } }, false],
  ['text block with annotations', { content: [{ ...text('x'), annotations: { audience: ['user'], priority: 0.5 } }] }, true],
  ['text block with bad annotations', { content: [{ ...text('x'), annotations: { priority: 2 } }] }, false],
  ['text block with _meta', { content: [{ ...text('x'), _meta: { k: 'v' } }] }, true],
  ['text block with an unknown key', { content: [{ ...text('x'), colour: 'red' }] }, true],
  ['text block missing text', { content: [{ type: 'text' }] }, false],
  ['text block with numeric text', { content: [{ type: 'text', text: 5 }] }, false],
  ['text block with null text', { content: [{ type: 'text', text: null }] }, false],
  ['block of unknown type', { content: [{ type: 'video', url: 'x' }] }, false],
  ['block without type', { content: [{ text: 'x' }] }, false],
  ['null block', { content: [null] }, false],
  ['string block', { content: ['hello'] }, false],
  ['array block', { content: [[text('x')]] }, false],
  ['image block', { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }, true],
  ['image block with bad base64', { content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] }, false],
  ['image block without mimeType', { content: [{ type: 'image', data: PNG }] }, false],
  ['text then image', { content: [text('caption'), { type: 'image', data: PNG, mimeType: 'image/png' }] }, true],
  ['text then bad image', { content: [text('caption'), { type: 'image', data: 42, mimeType: 'image/png' }] }, false],
  ['audio block', { content: [{ type: 'audio', data: PNG, mimeType: 'audio/wav' }] }, true],
  ['resource link', { content: [{ type: 'resource_link', uri: 'file:///tmp/a.txt', name: 'a.txt' }] }, true],
  ['embedded resource', { content: [{ type: 'resource', resource: { uri: 'file:///tmp/a.txt', text: 'body' } }] }, true],
  ['embedded resource without uri', { content: [{ type: 'resource', resource: { text: 'body' } }] }, false],
  // content itself wrong or absent.
  ['content a string', { content: 'hello' }, false],
  ['content an object', { content: text('hello') }, false],
  ['content null', { content: null }, false],
  ['missing content', {}, true],
  ['missing content, isError', { isError: true }, true],
  ['missing content, structuredContent', { structuredContent: { a: 1 } }, true],
  ['missing content, isError "yes"', { isError: 'yes' }, false],
  // Not an object at all.
  ['null', null, false],
  ['undefined', undefined, false],
  ['empty array', [], false],
  ['array holding a result', [{ content: [text('x')] }], false],
  ['string', 'hello', false],
  ['number', 42, false],
  ['boolean', true, false],
];

describe('checkToolResult against CallToolResultSchema', () => {
  test.each(cases)('%s', (_name, value, valid) => {
    const parsed = CallToolResultSchema.safeParse(value);
    expect(parsed.success).toBe(valid);
    let thrown: unknown;
    let result: unknown;
    try {
      result = checkToolResult(value, 's', 't');
    } catch (error) {
      thrown = error;
    }
    if (parsed.success) {
      expect(thrown).toBeUndefined();
      // Whatever path took it, the caller gets what the schema would have produced.
      expect(result).toEqual(parsed.data);
    } else {
      expect(thrown).toBeInstanceOf(RpcError);
      // The server is at fault, not the client's params: -32603, not -32602.
      expect((thrown as RpcError).code).toBe(ErrorCode.InternalError);
      // The message as written (the client's SDK puts "MCP error <code>: " before it), on one line.
      expect((thrown as RpcError).message).toMatch(/^mcp-latch: server "s" answered tools\/call "t" with an invalid result: .+; the call was forwarded to the server and may have had effects\.$/);
      expect((thrown as RpcError).message).not.toContain('\n');
    }
  });

  test('the table holds plenty of both answers', () => {
    expect(cases.filter(([, , valid]) => valid).length).toBeGreaterThan(10);
    expect(cases.filter(([, , valid]) => !valid).length).toBeGreaterThan(10);
  });
});

describe('what comes back', () => {
  test('a plain-text result is returned as the same object, not a copy', () => {
    const value = { content: [text('a'), text('b')], isError: false, structuredContent: { n: 1 } };
    expect(checkToolResult(value, 's', 't')).toBe(value);
  });

  test('a result the schema has to parse comes back as the parsed copy', () => {
    // The unknown key on the block is dropped by the schema, which is how we can tell it went there.
    const value = { content: [{ ...text('x'), colour: 'red' }] };
    const result = checkToolResult(value, 's', 't');
    expect(result).not.toBe(value);
    expect(result.content).toEqual([text('x')]);
  });

  test('a result without content gets content: [], the schema default', () => {
    expect(checkToolResult({}, 's', 't')).toEqual({ content: [] });
    expect(checkToolResult({ isError: true }, 's', 't')).toEqual({ content: [], isError: true });
    expect(checkToolResult({ structuredContent: { a: 1 } }, 's', 't')).toEqual({ content: [], structuredContent: { a: 1 } });
  });
});

describe('a result of many blocks (docs/config.md, "limits")', () => {
  test('the check stops at the first block the schema refuses: the blocks after it are not checked', () => {
    // zod built an issue for every refused block: 120,000 took 18 s (round 13 review R12).
    let read = 0;
    const watched = { get type() { read++; return 'image'; }, data: '!!', mimeType: 'x' };
    const bad = { type: 'image', data: '!!', mimeType: 'x' };
    expect(() => checkToolResult({ content: [text('a'), bad, watched, watched] }, 's', 't')).toThrow(/content\[1\]\.data: Invalid Base64 string/);
    // Each is read once, by the walk that measures how deep the result nests; zod read each again for every form of its union.
    expect(read).toBe(2);
  });

  test('more than 10,000 blocks, or more than 100,000 values in the blocks zod checks: a tool error naming the limit', () => {
    const over = checkToolResult({ content: Array.from({ length: 10_001 }, () => text('x')) }, 's', 't');
    expect(over).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('it has 10,001 entries in content, more than the 10,000 mcp-latch checks and passes on') }] });
    const wide = { type: 'resource_link', uri: 'file:///a', name: 'a', annotations: { audience: Array.from({ length: 100_000 }, () => 'robot') } };
    const values = checkToolResult({ content: [wide] }, 's', 't');
    expect(values).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('its content hold more than 100,000 values besides plain text, the most mcp-latch checks in one answer') }] });
    expect(checkToolResult({ content: Array.from({ length: 10_000 }, () => text('x')) }, 's', 't').content).toHaveLength(10_000);
  });

  test('a structuredContent counts toward the 100,000 values: alone past them, or with the blocks zod checks (a remote server\'s answer, counted once parsed)', () => {
    const wide = (keys: number) => Object.fromEntries(Array.from({ length: keys }, (_, index) => [`k${index}`, 1]));
    expect(checkToolResult({ content: [], structuredContent: wide(100_000) }, 'rf', 't')).toEqual({
      content: [{ type: 'text', text: 'mcp-latch: the result from rf was dropped: its structuredContent holds more than 100,000 values, the most mcp-latch checks in one answer (docs/config.md, "limits"). The call was forwarded to the server and may have had effects.' }],
      isError: true,
    });
    const link = { type: 'resource_link', uri: 'file:///a', name: 'a', annotations: { audience: Array.from({ length: 60_000 }, () => 'robot') } };
    expect(checkToolResult({ content: [link], structuredContent: wide(50_000) }, 'rf', 't')).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('its content and structuredContent hold more than 100,000 values besides plain text') }] });
    expect(checkToolResult({ content: [text('x')], structuredContent: wide(99_998) }, 'rf', 't').structuredContent).toEqual(wide(99_998));
  });
});
