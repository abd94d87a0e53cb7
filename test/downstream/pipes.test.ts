import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { closeSync, constants, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ChildTransport } from '../../src/downstream/child-transport.js';
import { DirectCalls } from '../../src/downstream/direct-calls.js';
import { StdioUpstream } from '../../src/gateway/stdio-upstream.js';
import { PipeOut, pipeFd, readIntoSharedBuffer, readRest, watchPeerClose } from '../../src/downstream/pipes.js';
import { encodeShared } from '../../src/text-bytes.js';
import { ROOT, eventually, tempDir } from '../helpers/gateway.js';

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

  // Texts of up to 5,461 UTF-16 units go to the stream's handle (its try-write), which libuv takes
  // whole, in part (the rest held by libuv with the request) or not at all (EAGAIN, all held); what
  // is written while libuv holds a rest goes through the stream, after it.
  test("a reader that is behind gets every byte in order when the texts go to the stream's handle", async () => {
    const file = join(tempDir(), 'out.txt');
    const child = spawn(process.execPath, ['-e', `setTimeout(() => process.stdin.pipe(require('fs').createWriteStream(${JSON.stringify(file)})), 400)`], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    const out = new PipeOut(child.stdin!, pipeFd(child.stdin));
    // The first write learns the handle's request type from the stream's own write.
    out.write('first\n');
    const handle = (child.stdin as unknown as { _handle: { writeUtf8String: (...args: unknown[]) => number; writeQueueSize: number } })._handle;
    const own = handle.writeUtf8String;
    let handed = 0;
    let held = 0;
    handle.writeUtf8String = function (this: unknown, ...args: unknown[]) {
      // Handed over by PipeOut itself: the stream counts what it hands the handle before it does.
      if (child.stdin!.writableLength === 0) handed += 1;
      const status = own.apply(this, args);
      if (handle.writeQueueSize > 0) held += 1;
      return status;
    };
    // 5,454 units of 1 to 4 bytes (~13 KB): the pipe's 64 KB fills after a few.
    const texts = ['first\n', ...Array.from({ length: 40 }, (_, index) => `${String(index).padStart(2, '0')}:${'aé€😀'.repeat(1_090)}\n`)];
    for (const text of texts.slice(1)) {
      expect(text.length).toBeLessThanOrEqual(5_461);
      out.write(text);
      encodeShared('€'.repeat(21_845));
      if (texts.indexOf(text) % 4 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // Handed to the handle by PipeOut, and some of them held by libuv; the others after them through the stream.
    expect(handed).toBeGreaterThan(0);
    expect(held).toBeGreaterThan(0);
    child.stdin!.end();
    await eventually(() => expect(received(file).length).toBe(texts.join('').length), 10_000);
    expect(received(file)).toBe(texts.join(''));
  });

  test('a rest libuv held that the reader never reads ends as the stream meets the error (EPIPE), as a stream write does', async () => {
    // Reads nothing and exits after 300 ms: what libuv holds can no longer be written.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300)'], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    const errors: Array<{ code?: string }> = [];
    child.stdin!.on('error', (error: NodeJS.ErrnoException) => errors.push(error));
    const out = new PipeOut(child.stdin!, pipeFd(child.stdin));
    out.write('first\n');
    const handle = (child.stdin as unknown as { _handle: { writeQueueSize: number } })._handle;
    // Until libuv holds a rest (the pipe, a socket pair, is full: a few hundred KB).
    for (let index = 0; index < 400 && handle.writeQueueSize === 0; index++) out.write(`${'x'.repeat(5_000)}\n`);
    expect(handle.writeQueueSize).toBeGreaterThan(0);
    await eventually(() => expect(errors.map((error) => error.code)).toContain('EPIPE'), 10_000);
  });

  /** A child that closes its stdin (the descriptor), writes `marker`, writes `bytes` into its stdin first when given, and runs on. */
  const closingReader = (marker: string, bytes = '') => {
    const write = bytes === '' ? '' : `fs.writeSync(0, ${JSON.stringify(bytes)}); `;
    const child = spawn(process.execPath, ['-e', `const fs = require('fs'); ${write}fs.closeSync(0); fs.writeFileSync(${JSON.stringify(marker)}, ''); setInterval(() => {}, 1000)`], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    return child;
  };
  const blockUntilExists = (file: string) => {
    for (let waited = 0; waited < 10_000 && !existsSync(file); waited += 20) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    expect(existsSync(file)).toBe(true);
  };

  test('a write the system refuses whole (EPIPE: the reader closed its end) answers false; the stream meets the error', async () => {
    const marker = join(tempDir(), 'closed');
    const child = closingReader(marker);
    const errors: Array<{ code?: string }> = [];
    child.stdin!.on('error', (error: NodeJS.ErrnoException) => errors.push(error));
    const out = new PipeOut(child.stdin!, pipeFd(child.stdin));
    blockUntilExists(marker);
    expect(out.write('first\n')).toBe(false);
    await eventually(() => expect(errors.map((error) => error.code)).toEqual(['EPIPE']));
  });

  test('a reader that reads answers true', async () => {
    const file = join(tempDir(), 'out.txt');
    const child = spawn(process.execPath, ['-e', `process.stdin.pipe(require('fs').createWriteStream(${JSON.stringify(file)}))`], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    const out = new PipeOut(child.stdin!, pipeFd(child.stdin));
    expect(out.write('first\n')).toBe(true);
    expect(out.write(`${'x'.repeat(30_000)}\n`)).toBe(true);
    await eventually(() => expect(received(file)).toBe(`first\n${'x'.repeat(30_000)}\n`));
  });

  test("a child's close of its stdin is seen without a write (Node 20, 22 and 24); bytes it writes into its stdin are not taken for it", async () => {
    const marker = join(tempDir(), 'closed');
    const child = closingReader(marker, 'noise\n');
    let seen = 0;
    expect(watchPeerClose(child.stdin, () => (seen += 1))).toBe(true);
    await eventually(() => expect(seen).toBe(1));
    // A child that lives on with its stdin open is not seen.
    const open = spawn(process.execPath, ['-e', `require('fs').writeSync(0, 'noise\\n'); setInterval(() => {}, 1000)`], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(open);
    let openSeen = 0;
    expect(watchPeerClose(open.stdin, () => (openSeen += 1))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(openSeen).toBe(0);
    open.kill('SIGKILL');
    await eventually(() => expect(openSeen).toBe(1));
  });

  test('a rest libuv held when the stream is destroyed is dropped with it, as the stream\'s own: no error', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)'], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    const errors: Error[] = [];
    child.stdin!.on('error', (error: NodeJS.ErrnoException) => errors.push(error));
    const out = new PipeOut(child.stdin!, pipeFd(child.stdin));
    out.write('first\n');
    const handle = (child.stdin as unknown as { _handle: { writeQueueSize: number } })._handle;
    for (let index = 0; index < 400 && handle.writeQueueSize === 0; index++) out.write(`${'x'.repeat(5_000)}\n`);
    expect(handle.writeQueueSize).toBeGreaterThan(0);
    const closed = new Promise((resolve) => child.stdin!.once('close', resolve));
    child.stdin!.destroy();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(errors).toEqual([]);
  });

  // pipes.ts writes through Node's internal stream handle (`_handle.writeUtf8String`, with the
  // request type learned from the stream's first write), as Node 20, 22 and 24 have it. A Node
  // without that shape must lose nothing, and not try again at every write: each case in a fresh
  // process (the type is learned once a process). Short texts the reader keeps up with, then long
  // ones that fill the pipe (fs.writeSync's EAGAIN, then the stream's queue).
  const WITHOUT = `
    import { spawn } from 'node:child_process';
    import { readFileSync } from 'node:fs';
    const { PipeOut, pipeFd } = await import(${JSON.stringify(join(ROOT, 'dist/downstream/pipes.js'))});
    const [file, shape] = process.argv.slice(-2);
    const child = spawn(process.execPath, ['-e', 'process.stdin.pipe(require("fs").createWriteStream(process.argv[1]))', file], { stdio: ['pipe', 'ignore', 'ignore'] });
    const stream = child.stdin;
    const handle = stream._handle;
    // Patched where Node has it, on the handle's prototype (PipeOut sets and deletes one on the handle itself while it learns).
    let wrap = Object.getPrototypeOf(handle);
    while (!Object.hasOwn(wrap, 'writeUtf8String')) wrap = Object.getPrototypeOf(wrap);
    const own = wrap.writeUtf8String;
    // The stream's writes while it holds nothing queued: PipeOut's own choice of it, not its queue's order.
    let chosen = 0;
    let handed = 0;
    let refused = 0;
    const write = stream.write;
    // A handle without the size of its write queue, which PipeOut reads (its stream writes as before).
    if (shape === 'no-queue-size') Object.defineProperty(handle, 'writeQueueSize', { value: undefined });
    // The stream's own write hands its handle a Buffer (writeBuffer), not the text.
    const asWritten = shape === 'stream-writes-buffers' ? (chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk) : (chunk) => chunk;
    stream.write = function (chunk, ...rest) { if (this.writableLength === 0) chosen++; return write.call(this, asWritten(chunk), ...rest); };
    // Requests Node's stream makes carry their handle; PipeOut's do not: counted, or refused as a Node that checks them would.
    wrap.writeUtf8String = function (request, text) {
      if (!request.handle && shape === 'handle-refuses') { refused++; throw new TypeError('Illegal invocation'); }
      if (!request.handle) handed++;
      return own.call(this, request, text);
    };
    const out = new PipeOut(stream, pipeFd(stream));
    const short = Array.from({ length: 40 }, (_, index) => String(index).padStart(2, '0') + ':' + 'aé€😀'.repeat(100) + '\\n');
    for (const text of short) {
      out.write(text);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const chosenShort = chosen;
    const long = Array.from({ length: 12 }, (_, index) => String(index).padStart(2, '0') + ':' + 'aé€😀'.repeat(index % 2 === 0 ? 6_000 : 1_090) + '\\n');
    for (const text of long) out.write(text);
    stream.end();
    await new Promise((resolve) => child.once('exit', resolve));
    console.log(JSON.stringify({ whole: readFileSync(file, 'utf8') === [...short, ...long].join(''), handed, refused, chosenShort }));`;

  const withShape = (shape: string) => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', WITHOUT, '--', join(tempDir(), 'out.txt'), shape], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout) as { whole: boolean; handed: number; refused: number; chosenShort: number };
  };

  test.each([
    ['no-queue-size', 'a handle without the size of its write queue'],
    ['stream-writes-buffers', 'a stream whose own write hands its handle no text'],
    ['handle-refuses', 'a handle that refuses the request learned'],
  ])("without Node's internal stream handle (%s: %s), every byte arrives in order through fs.writeSync and the stream", (shape) => {
    const result = withShape(shape);
    expect(result.whole).toBe(true);
    // PipeOut handed the handle nothing; the handle that refuses was tried once, then never again.
    expect(result.handed).toBe(0);
    expect(result.refused).toBe(shape === 'handle-refuses' ? 1 : 0);
    // The short texts through fs.writeSync: the stream only for the first, which learns (and the refused one).
    expect(result.chosenShort).toBeLessThanOrEqual(shape === 'no-queue-size' ? 0 : shape === 'handle-refuses' ? 2 : 1);
  });

  test("with Node's internal stream handle (Node 20, 22 and 24), short texts are handed to it", () => {
    const result = withShape('as-is');
    expect(result.whole).toBe(true);
    expect(result.handed).toBeGreaterThan(30);
    expect(result.chosenShort).toBe(1);
  });

  test('a terminal, a file or no descriptor is written through the stream only', () => {
    expect(pipeFd({ fd: 1, _handle: null })).toBeNull();
    expect(pipeFd({})).toBeNull();
  });
});

/**
 * The rest libuv holds for a write of PipeOut's own (its handle's try-write taken in part) is not in
 * the stream's `writableLength`; the limits on a reader that is behind (limits.messageMB: the
 * client's progress and log notifications, a server's unread input) count it through `waiting`.
 */
describe('what waits for a reader that is behind, the rest libuv holds included', () => {
  /** A reader that reads nothing until SIGUSR2 (once it has written `file`.ready), then copies its input to `file`. */
  const lateReader = async (file: string) => {
    const child = spawn(process.execPath, ['-e', `const fs = require('fs'); process.on('SIGUSR2', () => process.stdin.pipe(fs.createWriteStream(${JSON.stringify(file)}))); fs.writeFileSync(${JSON.stringify(`${file}.ready`)}, ''); setInterval(() => {}, 1000)`], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    await eventually(() => expect(existsSync(`${file}.ready`)).toBe(true), 10_000);
    return child;
  };
  const handleOf = (child: ChildProcess) => (child.stdin as unknown as { _handle: { writeQueueSize: number } })._handle;
  /** Until libuv holds a rest of a write of PipeOut's own while the stream holds nothing. */
  const untilHeld = async (child: ChildProcess, write: (index: number) => void | Promise<void>) => {
    for (let index = 0; index < 400; index++) {
      await write(index);
      await new Promise((resolve) => setImmediate(resolve));
      if (handleOf(child).writeQueueSize > 0) break;
    }
    expect(handleOf(child).writeQueueSize).toBeGreaterThan(0);
    expect(child.stdin!.writableLength).toBe(0);
  };

  test('waiting counts the rest once, and what the stream queues behind it once', async () => {
    const child = await lateReader(join(tempDir(), 'out.txt'));
    // The reader is killed with the rest unread: the stream meets EPIPE.
    child.stdin!.on('error', () => undefined);
    const out = new PipeOut(child.stdin!, pipeFd(child.stdin));
    out.write('first\n');
    await untilHeld(child, () => void out.write(`${'x'.repeat(5_000)}\n`));
    const rest = handleOf(child).writeQueueSize;
    expect(out.waiting).toBe(rest);
    out.write(`${'y'.repeat(3_000)}\n`);
    // libuv queued it behind the rest, and the stream counts it: in both, counted once.
    expect(handleOf(child).writeQueueSize).toBe(rest + 3_001);
    expect(child.stdin!.writableLength).toBe(3_001);
    expect(out.waiting).toBe(rest + 3_001);
  });

  test('a client behind by a rest libuv holds: a progress or log notification past limits.messageMB waiting is dropped, and the log says so', async () => {
    const file = join(tempDir(), 'out.txt');
    const child = await lateReader(file);
    const errors: string[] = [];
    // limits.messageMB of 6,000 bytes: one 5,000-character log message may wait, not two.
    const upstream = new StdioUpstream(6_000, new PassThrough(), child.stdin!);
    upstream.onerror = (error) => errors.push(error.message);
    await upstream.start();
    const log = (data: string): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });
    let sent = 0;
    await untilHeld(child, async (index) => {
      sent = index + 1;
      await upstream.send(log(`${index}:${'x'.repeat(5_000)}`));
    });
    // Part of the last one waits (libuv holds it): with this one two would wait, past the limit.
    await upstream.send(log(`dropped:${'z'.repeat(5_000)}`));
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.filter((error) => error.startsWith('the client is behind'))).toHaveLength(1);
    child.kill('SIGUSR2');
    await eventually(() => expect(received(file).endsWith('}\n') && received(file).split('\n').length).toBe(sent + 1), 10_000);
    // Once it has read, the next message says what it missed, and goes.
    await upstream.send(log('after'));
    await eventually(() => expect(received(file)).toContain('"after"'), 10_000);
    const lines = received(file).trimEnd().split('\n').map((line) => (JSON.parse(line) as { params: { data: string } }).params.data.split(':')[0]);
    expect(lines).toEqual([...Array.from({ length: sent }, (_, index) => String(index)), 'after']);
    expect(errors).toContain('the client has caught up: 1 progress and log notifications were dropped while it was behind');
    await upstream.close();
  });

  test("a server's unread input counts the rest libuv holds: past limits.messageMB for a second, it is sent no more calls", async () => {
    // A server that reads nothing; limits.messageMB of 1 byte, so any rest is past it.
    const transport = new ChildTransport({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: {}, maxMessageBytes: 1 });
    transports.push(transport);
    await transport.start();
    const child = (transport as unknown as { child: ChildProcess }).child;
    await untilHeld(child, () => transport.sendLine(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(5_000) } })}\n`));
    const rest = handleOf(child).writeQueueSize;
    // Only a backlog that has not emptied for a second counts (a burst to a server that reads is not
    // held back): a second by the transport's measure, the time either process waited for a CPU not
    // counted (round 28), so asked until it counts, not after a second of wall time.
    await eventually(() => expect(transport.unread()).toBe(rest), 30_000, 100);
    const calls = new DirectCalls(transport);
    await expect(calls.call({ name: 'echo', arguments: {} }, { timeout: 10_000 })).rejects.toThrow(/the server is not reading its input: .* MB written to it have waited unread for over a second/);
  });
  // Round 29 (docs/performance.md, "End of round 28"): a text the stream queued counted its characters, a rest
  // libuv or the stream held its bytes, and what the server read was `sent` (characters) less that.
  test("a server's unread input is counted in bytes, non-ASCII text too: over 1 MB of it (under 1 M characters) is past limits.messageMB of 1 MB", async () => {
    const transport = new ChildTransport({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: {}, maxMessageBytes: 1_000_000 });
    transports.push(transport);
    await transport.start();
    const stdin = (transport as unknown as { stdin: PipeOut }).stdin;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    // Two bytes a character: the first fills the pipe, its rest held; the second is queued behind it.
    await transport.sendLine(`${'é'.repeat(200_000)}\n`);
    await turn();
    const rest = stdin.waiting;
    expect(rest).toBeGreaterThan(0);
    await transport.sendLine(`${'é'.repeat(450_000)}\n`);
    await turn();
    expect(stdin.waiting).toBe(rest + 900_001);
    await eventually(() => expect(transport.unread()).toBe(rest + 900_001), 30_000, 100);
    const calls = new DirectCalls(transport);
    await expect(calls.call({ name: 'echo', arguments: {} }, { timeout: 10_000 })).rejects.toThrow(/the server is not reading its input/);
  });
});

describe("a server's stdout read into the shared buffer", () => {
  test('this Node lets child_process sockets read into it (else every read is a new 64 KB buffer again)', () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: ['pipe', 'pipe', 'ignore'] });
    children.push(child);
    expect(readIntoSharedBuffer(child.stdout!, () => undefined)).toBe(true);
  });

  test('each read is handed over as the shared buffer and its byte count, no view made for it', async () => {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("{\\"a\\":1}\\n")'], { stdio: ['pipe', 'pipe', 'ignore'] });
    children.push(child);
    const reads: Array<{ length: number; bytes: number }> = [];
    readIntoSharedBuffer(child.stdout!, (buffer, bytes) => reads.push({ length: buffer.length, bytes }));
    await new Promise((done) => child.stdout!.once('end', done));
    expect(reads).toEqual([{ length: 64 * 1024, bytes: 8 }]);
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

describe('the rest of a burst of answers (readRest; docs/performance.md, "Round 26: calls in flight")', () => {
  test("reads what a pipe holds after the wait, without blocking: nothing when it holds nothing", async () => {
    // A FIFO opened non-blocking, as libuv opens a server's stdout; a writer that writes one line, then another 300 ms later.
    const fifo = join(tempDir(), 'answers');
    spawnSync('mkfifo', [fifo]);
    const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const child = spawn(process.execPath, ['-e', `const fs = require('node:fs'); const fd = fs.openSync(${JSON.stringify(fifo)}, 'w'); fs.writeSync(fd, 'one\\n'); setTimeout(() => fs.writeSync(fd, 'two\\n'), 300); setInterval(() => {}, 1000)`], { stdio: 'ignore' });
    children.push(child);
    try {
      let got = '';
      await eventually(() => {
        got += readRest(fd, 20)?.toString('utf8') ?? '';
        expect(got).toBe('one\n');
      }, 10_000);
      // Empty (EAGAIN): null, at once, no throw.
      const started = performance.now();
      expect(readRest(fd, 20)).toBeNull();
      expect(performance.now() - started).toBeLessThan(250);
      await eventually(() => {
        got += readRest(fd, 20)?.toString('utf8') ?? '';
        expect(got).toBe('one\ntwo\n');
      }, 10_000);
    } finally {
      closeSync(fd);
    }
  });

  test('answers a server writes one at a time, with more of its calls waiting, arrive whole and in order, each cut in two writes', async () => {
    // Answers 32 calls once all have come, each in two writes (the line cut in its middle), one call after another.
    const script = `let buffered = ''; const ids = [];
      process.stdin.on('data', (chunk) => {
        buffered += chunk;
        let newline;
        while ((newline = buffered.indexOf('\\n')) >= 0) { ids.push(JSON.parse(buffered.slice(0, newline)).id); buffered = buffered.slice(newline + 1); }
        if (ids.length < 32) return;
        const fs = require('node:fs');
        for (const id of ids.splice(0)) {
          const line = JSON.stringify({ result: { content: [{ type: 'text', text: 'answer ' + id + ' ' + 'x'.repeat(300) }] }, jsonrpc: '2.0', id }) + '\\n';
          fs.writeSync(1, line.slice(0, 150));
          fs.writeSync(1, line.slice(150));
        }
      });`;
    const transport = new ChildTransport({ command: process.execPath, args: ['-e', script], env: {}, maxMessageBytes: 1 << 20 });
    transports.push(transport);
    await transport.start();
    const calls = new DirectCalls(transport);
    const results = await Promise.all(Array.from({ length: 32 }, (_, index) => calls.call({ name: 'echo', arguments: { index } }, { timeout: 10_000 })));
    expect(results.map((result) => (result as { content: Array<{ text: string }> }).content[0]!.text.replace(/ x+$/, ''))).toEqual(Array.from({ length: 32 }, (_, index) => `answer ${1_000_000_000 + index}`));
  });
});
