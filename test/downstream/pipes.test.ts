import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ChildTransport } from '../../src/downstream/child-transport.js';
import { PipeOut, pipeFd, readIntoSharedBuffer } from '../../src/downstream/pipes.js';
import { encodeShared } from '../../src/text-bytes.js';
import { eventually, tempDir } from '../helpers/gateway.js';

/**
 * The warm path's pipes without the stream machinery per message (src/downstream/pipes.ts): what
 * a pipe does not take at once still arrives, whole and in order, and lines a server writes across
 * reads are whole though every server's stdout is read into one shared buffer.
 */
const children: ChildProcess[] = [];
const transports: ChildTransport[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const transport of transports.splice(0)) await transport.close();
});

const received = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

describe('PipeOut', () => {
  // Texts over 21,845 UTF-16 units are written as strings; shorter ones are encoded into the
  // buffer the process shares (src/text-bytes.ts), which the next write reuses: the part the pipe
  // did not take must have been copied out of it.
  test.each([
    ['written as strings', 65_535, 9_000],
    ['encoded into the shared buffer', 50_000, 4_000],
  ])('a reader that is behind gets every byte in order: the part the pipe did not take, and what was written after, go through the stream (%s)', async (_, filler, repeats) => {
    const file = join(tempDir(), 'out.txt');
    // Reads nothing for 400 ms: the pipe (64 KB) fills, a write is taken in part, then not at all (EAGAIN).
    const child = spawn(process.execPath, ['-e', `setTimeout(() => process.stdin.pipe(require('fs').createWriteStream(${JSON.stringify(file)})), 400)`], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    const fd = pipeFd(child.stdin);
    expect(fd).toEqual(expect.any(Number));
    const out = new PipeOut(child.stdin!, fd);
    // The first fills the pipe (64 KB; or all but ~15 KB, so the second is taken in part): the next is
    // not taken at all (EAGAIN). Then characters of 1 to 4 bytes in UTF-8, so a write taken in part
    // ends inside one (a byte offset, not a character's).
    const texts = [`${'f'.repeat(filler)}\n`, ...Array.from({ length: 12 }, (_, index) => `${index}:${'aé€😀'.repeat(repeats + index)}\n`)];
    for (const text of texts) {
      out.write(text);
      // Another writer (the audit, another pipe) encodes its text over the whole shared buffer meanwhile.
      encodeShared('€'.repeat(21_845));
      await new Promise((resolve) => setImmediate(resolve));
    }
    child.stdin!.end();
    await eventually(() => expect(received(file).length).toBe(texts.join('').length), 10_000);
    expect(received(file)).toBe(texts.join(''));
  });

  test('a terminal, a file or no descriptor is written through the stream only', () => {
    expect(pipeFd({ fd: 1, _handle: null })).toBeNull();
    expect(pipeFd({})).toBeNull();
  });
});

describe("a server's stdout read into the shared buffer", () => {
  test('this Node lets child_process sockets read into it (else every read is a new 64 KB buffer again)', () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: ['pipe', 'pipe', 'ignore'] });
    children.push(child);
    expect(readIntoSharedBuffer(child.stdout!, () => undefined)).toBe(true);
  });

  test('lines two servers write in pieces, at once, arrive whole: the start of a line is copied before the next read writes over it', async () => {
    const message = (server: string, index: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `${server}-${index}-${'x'.repeat(200)}` } });
    // Each line in three writes, 30 ms apart, so each piece is a read of its own; the two servers' pieces alternate.
    const script = (server: string, offset: number) =>
      `const lines = Array.from({ length: 4 }, (_, i) => JSON.stringify(${JSON.stringify(message(server, 0))}).replace('${server}-0-', '${server}-' + i + '-') + '\\n');
       const pieces = lines.flatMap((line) => [line.slice(0, 50), line.slice(50, 150), line.slice(150)]);
       pieces.forEach((piece, i) => setTimeout(() => process.stdout.write(piece), ${offset} + i * 30));
       setTimeout(() => {}, ${offset} + pieces.length * 30 + 2000);`;
    const got: Record<string, JSONRPCMessage[]> = { a: [], b: [] };
    for (const [server, offset] of [['a', 0], ['b', 15]] as const) {
      const transport = new ChildTransport({ command: process.execPath, args: ['-e', script(server, offset)], env: {}, maxMessageBytes: 1 << 20 });
      transports.push(transport);
      transport.onmessage = (received) => got[server]!.push(received);
      await transport.start();
    }
    await eventually(() => expect(got.a!.length + got.b!.length).toBe(8), 10_000);
    for (const server of ['a', 'b']) expect(got[server]).toEqual([0, 1, 2, 3].map((index) => message(server, index)));
  });
});
