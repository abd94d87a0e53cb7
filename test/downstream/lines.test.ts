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

  test('a read of whole lines is decoded once and cut by its text, its bytes never searched; any other read is searched until no newline is left', () => {
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
    reader.push(counted('{"x":1}\r\n{"y":2}\n\n{"z":3}\n'), (line) => lines.push(line), () => undefined);
    expect(searches).toEqual([]);
    reader.push(counted('{"b":2}\n{"c"'), (line) => lines.push(line), () => undefined);
    reader.push(counted(':3}\n'), (line) => lines.push(line), () => undefined);
    expect(searches).toEqual([0, 8, 0]);
    // Several lines past ASCII: cut at their bytes, as before.
    reader.push(counted('{"é":1}\n{"ü":2}\n'), (line) => lines.push(line), () => undefined);
    expect(searches).toEqual([0, 8, 0, 0, 9]);
    expect(lines).toEqual(['{"a":1}', '{"x":1}', '{"y":2}', '', '{"z":3}', '{"b":2}', '{"c":3}', '{"é":1}', '{"ü":2}']);
  });

  test('a read of whole lines gives the lines a search of its bytes gives: CR, empty lines, text past ASCII, bytes that are not UTF-8, lines at and over the limit', () => {
    // The lines as the bytes' own newlines cut them, each decoded alone (push before round 32).
    const byBytes = (bytes: Buffer): string[] => {
      const lines: string[] = [];
      let start = 0;
      for (let index = bytes.indexOf(10); index !== -1; start = index + 1, index = bytes.indexOf(10, start)) lines.push(bytes.toString('utf8', start, index > start && bytes[index - 1] === 13 ? index - 1 : index));
      return lines;
    };
    const reads = [
      '\n',
      '\r\n',
      'a\r\n\r\nb\n',
      '{"x":"é"}\n',
      '{"x":"é"}\n{"y":"✓"}\r\n',
      '{"x":"😀"}\n{"y":1}\n',
    ].map((text) => Buffer.from(text));
    // Bytes that are not UTF-8 around and between the newlines: a lead byte cut by a newline, a lone continuation byte, a CR after a cut sequence.
    reads.push(Buffer.from([0x61, 0xc3, 0x0a, 0x62, 0x0a]), Buffer.from([0x80, 0x0a, 0xe2, 0x82, 0x0a, 0x63, 0x0a]), Buffer.from([0xe2, 0x0d, 0x0a]), Buffer.from([0xff, 0x0a, 0xfe, 0x0d, 0x0a]));
    for (const bytes of reads) {
      const lines: string[] = [];
      const oversized: Oversized[] = [];
      new LineReader(1000).push(bytes, (line) => lines.push(line), (over) => oversized.push(over));
      expect(lines, JSON.stringify([...bytes])).toEqual(byBytes(bytes));
      expect(oversized).toEqual([]);
    }
    // The limit, in bytes: a line of exactly `maxBytes` is taken, one byte more is not.
    const at = (limit: number, text: string) => {
      const lines: string[] = [];
      const oversized: Oversized[] = [];
      new LineReader(limit).push(Buffer.from(text), (line) => lines.push(line), (over) => oversized.push(over));
      return { lines, oversized: oversized.map((over) => over.bytes) };
    };
    expect(at(5, 'abcde\n')).toEqual({ lines: ['abcde'], oversized: [] });
    expect(at(5, 'abcdef\n')).toEqual({ lines: [], oversized: [6] });
    expect(at(4, 'éé\n')).toEqual({ lines: ['éé'], oversized: [] });
    expect(at(3, 'éé\n')).toEqual({ lines: [], oversized: [4] });
    expect(at(5, 'ab\nabcdef\n')).toEqual({ lines: ['ab'], oversized: [6] });
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
