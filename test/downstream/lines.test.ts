import { describe, expect, test } from 'vitest';
import { escapeLineSeparators, InvalidMessage, LineReader, parseMessage, type Oversized } from '../../src/downstream/lines.js';

function read(reader: LineReader, chunks: string[]): { lines: string[]; oversized: Oversized[] } {
  const lines: string[] = [];
  const oversized: Oversized[] = [];
  for (const chunk of chunks) reader.push(Buffer.from(chunk), (line) => lines.push(line), (over) => oversized.push(over));
  return { lines, oversized };
}

describe('LineReader', () => {
  test('lines split across chunks, several per chunk, CRLF', () => {
    expect(read(new LineReader(1000), ['ab', 'c\r\nde\nf', 'g\n', '\n']).lines).toEqual(['abc', 'de', 'fg', '']);
  });

  test('a read that ends with its newline is searched once; one with more after it, until none is left', () => {
    const searches: number[] = [];
    const counted = (text: string): Buffer => {
      const chunk = Buffer.from(text);
      const search = chunk.indexOf.bind(chunk);
      chunk.indexOf = ((value: number, from?: number) => {
        searches.push(from ?? 0);
        return search(value, from);
      }) as typeof chunk.indexOf;
      return chunk;
    };
    const lines: string[] = [];
    const reader = new LineReader(1000);
    reader.push(counted('{"a":1}\n'), (line) => lines.push(line), () => undefined);
    expect(searches).toEqual([0]);
    reader.push(counted('{"b":2}\n{"c"'), (line) => lines.push(line), () => undefined);
    reader.push(counted(':3}\n'), (line) => lines.push(line), () => undefined);
    expect(searches).toEqual([0, 0, 8, 0]);
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  test('chunks written over once pushed (a reader with one buffer): a line across them is whole', () => {
    const chunks = ['{"a":1}\n{"b"', ':"xy', 'z"}\r', '\n{"c":3}\n'];
    const buffer = Buffer.alloc(64);
    const lines: string[] = [];
    const reader = new LineReader(1000, true);
    for (const chunk of chunks) {
      const length = buffer.write(chunk);
      reader.push(buffer.subarray(0, length), (line) => lines.push(line), () => undefined);
      buffer.fill(0x21);
    }
    expect(lines).toEqual(['{"a":1}', '{"b":"xyz"}', '{"c":3}']);
  });

  test('a reader with one buffer hands over the buffer and its byte count: lines end at the count, the stale bytes after it are never read', () => {
    // What follows the count is an earlier, longer read's, newlines and all (pipes.ts, client-input.ts).
    const buffer = Buffer.alloc(256, 0x21);
    const lines: string[] = [];
    const reader = new LineReader(1000, true);
    const push = (text: string): void => {
      buffer.write(`${'#'.repeat(200)}\nstale\n`, 0);
      const bytes = buffer.write(text, 0);
      reader.push(buffer, (line) => lines.push(line), () => undefined, bytes);
    };
    push('{"a":1}\n');
    push('{"b":2}\n{"c"');
    push(':3}\r\n{"d":');
    push('4}\n');
    push('');
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}', '{"d":4}']);
  });

  test('a line over the limit is reported with its size and id (first or last key), and the next line is whole', () => {
    const reader = new LineReader(100);
    const request = `{"jsonrpc":"2.0","id":7,"method":"x","params":{"text":"${'a'.repeat(300)}"}}`;
    const response = `{"result":{"text":"${'b'.repeat(300)}"},"jsonrpc":"2.0","id":"r-1"}`;
    const noId = `{"method":"y","params":{"id":3,"text":"${'c'.repeat(300)}"}}`;
    const { lines, oversized } = read(reader, [request.slice(0, 50), request.slice(50), '\n', `${response}\n${noId}\nnext\n`]);
    expect(oversized).toEqual([
      { bytes: request.length, id: 7 },
      { bytes: response.length, id: 'r-1' },
      { bytes: noId.length, id: null },
    ]);
    expect(lines).toEqual(['next']);
  });
});

describe('parseMessage', () => {
  test.each([
    ['[]', -32600],
    ['{"jsonrpc":"2.0","id":null,"method":"m"}', -32600],
    ['{"jsonrpc":"2.0","id":true,"method":"m"}', -32600],
    ['{"jsonrpc":"2.0","id":{},"method":"m"}', -32600],
    ['{"jsonrpc":"1.0","id":1,"method":"m"}', -32600],
    ['nope', -32700],
  ])('%s is refused with %i', (line, code) => {
    let error: unknown;
    try {
      parseMessage(line);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidMessage);
    expect((error as InvalidMessage).rpcCode).toBe(code);
    expect((error as InvalidMessage).code).toBe('MESSAGE_INVALID');
  });
});

describe('escapeLineSeparators', () => {
  test('U+2028 and U+2029 are written as escapes, the same JSON value; a text without them is the same string', () => {
    const line = `${JSON.stringify({ text: 'a\u2028b\u2029c', key: '\u2028' })}\n`;
    const escaped = escapeLineSeparators(line);
    expect(escaped).toBe(String.raw`{"text":"a\u2028b\u2029c","key":"\u2028"}` + '\n');
    expect(/[\u2028\u2029]/.test(escaped)).toBe(false);
    expect(JSON.parse(escaped)).toEqual(JSON.parse(line));
    const plain = `${JSON.stringify({ text: 'é日😀 \\u2028' })}\n`;
    expect(escapeLineSeparators(plain)).toBe(plain);
  });
});
