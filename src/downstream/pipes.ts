import { fstatSync, readSync, writeSync } from 'node:fs';
import { getSystemErrorName } from 'node:util';
import type { Readable } from 'node:stream';
import { encodeShared, sharedBytes } from '../text-bytes.js';

/**
 * The pipes of the warm path without Node's stream machinery per message (docs/performance.md,
 * "Round 13: the warm path"). A `stream.write` that the pipe takes at once still made a write
 * request (an AsyncWrap), and a tick to finish it; a read of a child's stdout made a 64 KB
 * backing store, a Buffer, and a tick in the Readable's queue. Each tick also ran Node's
 * unhandled-rejection pass, which makes a Map every time.
 */

/**
 * Writes to a pipe or socket with one write(2) when the stream holds nothing queued; what the pipe
 * does not take (full: EAGAIN, or part of the text), and any error, go to the stream, which queues
 * the rest, or meets the same error and reports it as before. The stream stays the only writer
 * once it holds data, so the order of the bytes is kept.
 *
 * A text of up to TRY_WRITE_CHARS is handed to the stream's own handle (its `writeUtf8String`,
 * what `stream.write` ends in): libuv writes it at once when the pipe takes it whole, without the
 * Writable's request and tick, and without fs.writeSync's layer (its argument checks, its request,
 * and Node's look-up of the `node.fs.sync` trace category by name, twice a call): ~2k instructions
 * less a write (docs/performance.md, "Round 24: per-call CPU"). What the pipe does not take, libuv
 * keeps and writes in order before anything written after it (which goes through the stream until
 * then). The stream's `writableLength` does not count that rest (at most 16 KB): `waiting` does,
 * and is what the limits on a reader that is behind compare (gateway/stdio-upstream.ts, the client;
 * child-transport.ts, a server's unread input). A longer text goes through fs.writeSync, as the
 * handle would queue it without trying. These are Node's internals (the same in Node 20, 22 and
 * 24): a stream whose handle lacks them, or whose own write does not hand its handle a request to
 * learn, is written through fs.writeSync and the stream as before (test/downstream/pipes.test.ts,
 * "without Node's internal stream handle").
 */
export class PipeOut {
  /** The stream's handle, when it writes strings (a pipe or socket handle); null: fs.writeSync or the stream only. */
  private readonly handle: StreamHandle | null;
  /** The request handed to the handle, reused while each write is taken whole (libuv keeps none of them). */
  private request: WriteRequest | null = null;
  /** A write of the handle's own that libuv still holds (part of it): what follows goes through the stream. */
  private handleBusy = false;
  /**
   * Bytes of the stream's own writes that libuv queued behind that rest (the handle's
   * `writeQueueSize` counts both; the stream's `writableLength` counts these too).
   */
  private streamQueued = 0;

  constructor(
    private readonly stream: NodeJS.WritableStream & { readonly writableLength?: number },
    /** The descriptor, when writing to it directly is safe (pipeFd); null: the stream only. */
    private readonly fd: number | null,
    /**
     * `waiting` in bytes: every text the stream queues is handed to it encoded, so its
     * `writableLength` counts bytes as libuv's rest does (a server's stdin, child-transport.ts, whose
     * progress is what it read of what was written; until round 29 a text queued counted its
     * characters and a rest its bytes). Off the path of a write the pipe takes whole.
     */
    private readonly bytes = false,
  ) {
    this.handle = fd === null || requestType === false ? null : handleOf(stream);
  }

  /**
   * What waits to be taken by the pipe: the stream's `writableLength` (characters of the texts it
   * holds, or their bytes with `bytes`), and the bytes of a rest libuv holds for a write of the
   * handle's own. The stream's writes queued behind that rest are in both, and counted once.
   */
  get waiting(): number {
    const inStream = this.stream.writableLength ?? 0;
    if (!this.handleBusy || this.handle === null) return inStream;
    return inStream + Math.max(0, this.handle.writeQueueSize - this.streamQueued);
  }

  /**
   * Writes `text`, or queues what the pipe does not take yet. False when the system refused the
   * write with none of it written (EPIPE: the reader closed its end): the text is still handed to
   * the stream, which meets the same error and reports it, but it never reached the reader
   * (child-transport.ts answers the calls in it as not written).
   */
  write(text: string): boolean {
    if (this.handleBusy && this.handle !== null) {
      // libuv writes its queue in order: what the stream queues now is written after the rest.
      const queued = this.handle.writeQueueSize;
      this.queue(text);
      this.streamQueued += this.handle.writeQueueSize - queued;
      return true;
    }
    if (this.fd === null || this.stream.writableLength !== 0) {
      this.queue(text);
      return true;
    }
    if (this.handle !== null && requestType !== false && text.length <= TRY_WRITE_CHARS) return this.writeToHandle(this.handle, text);
    // Encoded once into the shared buffer (text-bytes.ts); a text too long for it is written as a string.
    const bytes = encodeShared(text);
    let written: number;
    try {
      written = bytes === -1 ? writeSync(this.fd, text) : writeSync(this.fd, sharedBytes(), 0, bytes);
    } catch (error) {
      // EAGAIN (the reader is behind) or the stream's own error to meet (EPIPE: the reader is gone).
      this.queue(text);
      return (error as NodeJS.ErrnoException).code === 'EAGAIN';
    }
    // The rest is copied out of the shared buffer, which the next write reuses.
    if (bytes === -1 && written !== Buffer.byteLength(text)) this.stream.write(Buffer.from(text).subarray(written));
    else if (bytes !== -1 && written !== bytes) this.stream.write(Buffer.from(sharedBytes().subarray(written, bytes)));
    return true;
  }

  /** `text` handed to the stream, which writes it after what it holds (encoded first with `bytes`). */
  private queue(text: string): void {
    this.stream.write(this.bytes ? Buffer.from(text) : text);
  }

  private writeToHandle(handle: StreamHandle, text: string): boolean {
    const Request = requestType;
    if (!Request) {
      // This process's first such write (a server's `initialize`) learns the type from the stream's own
      // (learnRequestType): a text, so a rest of it left waiting counts its characters.
      return learnRequestType(handle, () => this.stream.write(text)) === 0;
    }
    const request = (this.request ??= this.newRequest(Request));
    let status: number;
    try {
      status = handle.writeUtf8String(request, text);
    } catch {
      // A Node whose handle refuses the request it was learned from (its checks come before any
      // byte is written): this text and the later ones through the stream and fs.writeSync.
      requestType = false;
      this.queue(text);
      return true;
    }
    // Not written at all (libuv's try-write writes some or fails with none: EPIPE, the reader is
    // gone): the stream meets the same error and reports it.
    if (status !== 0) {
      this.queue(text);
      return false;
    }
    // Taken whole: libuv keeps nothing, and the request is free again.
    if (handle.writeQueueSize === 0) return true;
    // Taken in part, or not at all (EAGAIN): libuv holds the rest with this request until it is written.
    this.request = null;
    this.handleBusy = true;
    return true;
  }

  private newRequest(Request: new () => WriteRequest): WriteRequest {
    const request = new Request();
    request.oncomplete = this.completed;
    return request;
  }

  /** libuv wrote the rest of a write it held (status 0), or could not (the stream's own handling of a failed write: destroyed with the error). */
  private readonly completed = (status: number): void => {
    this.handleBusy = false;
    this.streamQueued = 0;
    if (status < 0) (this.stream as { destroy?: (error: Error) => void }).destroy?.(Object.assign(new Error(`write ${getSystemErrorName(status)}`), { code: getSystemErrorName(status), errno: status, syscall: 'write' }));
  };
}

/**
 * The most UTF-16 units the handle tries to write at once: Node's `writeUtf8String` tries a text
 * whose UTF-8 may take up to 16 KB (three bytes a unit) and queues a longer one without trying.
 */
const TRY_WRITE_CHARS = Math.floor(16_384 / 3);

/** What of a pipe's or socket's handle (Node's LibuvStreamWrap) PipeOut uses. */
interface StreamHandle {
  /** Writes `text` (libuv's try-write, the rest queued with `request`): 0, or a negative errno when nothing could be written. */
  writeUtf8String(request: WriteRequest, text: string): number;
  /** Bytes libuv holds to write (its write queue). */
  readonly writeQueueSize: number;
}

/** Node's WriteWrap: `oncomplete` is called when a write libuv held is done. */
interface WriteRequest {
  oncomplete?: (status: number) => void;
}

/** Node's write request type, learned from a stream's own write; null until then; false: that write handed the handle none (texts go through fs.writeSync). */
let requestType: (new () => WriteRequest) | null | false = null;

/** `stream`'s handle when it is a pipe's or a socket's, with the fields used here. */
function handleOf(stream: unknown): StreamHandle | null {
  const handle = (stream as { _handle?: Partial<StreamHandle> | null })._handle;
  return handle && typeof handle.writeUtf8String === 'function' && typeof handle.writeQueueSize === 'number' ? (handle as StreamHandle) : null;
}

/**
 * Runs `write` (a stream's write) with the handle's `writeUtf8String` watched, to learn the type of
 * the request the stream hands it: Node makes it with a constructor it does not export
 * (`internalBinding('stream_wrap').WriteWrap`), and the handle takes no other object. Answers the
 * handle's status (0, or the error of a write refused whole), 0 when it was not called.
 */
function learnRequestType(handle: StreamHandle, write: () => void): number {
  const own = handle.writeUtf8String;
  let status = 0;
  handle.writeUtf8String = function (this: StreamHandle, request: WriteRequest, text: string): number {
    requestType ??= (request as { constructor: new () => WriteRequest }).constructor;
    status = own.call(this, request, text);
    return status;
  };
  try {
    write();
  } finally {
    // The handle's own method again (the prototype's).
    delete (handle as Partial<StreamHandle>).writeUtf8String;
    // A Node whose stream writes a text otherwise: not tried again at every write.
    requestType ??= false;
  }
  return status;
}

/**
 * The descriptor of a stream over a pipe or a socket that libuv opened non-blocking (a child's
 * stdin, or process.stdout on a pipe), or null: Windows, a terminal, a file, or no descriptor.
 * A blocking descriptor would stall the gateway while its reader does not read.
 */
export function pipeFd(stream: unknown): number | null {
  if (process.platform === 'win32') return null;
  const candidate = stream as { fd?: unknown; _handle?: { fd?: unknown } | null; _type?: unknown };
  const fd = typeof candidate._handle?.fd === 'number' ? candidate._handle.fd : candidate.fd;
  if (typeof fd !== 'number' || fd < 0 || candidate._handle === null || candidate._handle === undefined) return null;
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket() ? fd : null;
  } catch {
    return null;
  }
}

/** One buffer that every child's stdout is read into: each read is handled before the next (the line reader copies what it keeps). */
let shared: Buffer | null = null;
const READ_BYTES = 64 * 1024;

/**
 * Has `socket` (a child's stdout, made by child_process before any read) read into one buffer kept
 * for the process, each read passed to `onChunk` as that buffer and the count of its bytes, valid
 * until it returns (no view made for every read: docs/performance.md, "Round 26: per-call work"): what net.Socket's
 * documented `onread` option does for a socket made with it (gateway/client-input.ts), applied to a
 * socket child_process made, through the same fields of the socket and its handle. False, and
 * nothing changed, when this Node does not have them: the caller then listens to `data`.
 */
export function readIntoSharedBuffer(socket: Readable, onChunk: (buffer: Buffer, bytes: number) => void): boolean {
  const handle = (socket as unknown as { _handle?: { useUserBuffer?: unknown } | null })._handle;
  if (!handle || typeof handle.useUserBuffer !== 'function') return false;
  const fields = socket as unknown as Record<symbol, unknown>;
  const find = (name: string) => Object.getOwnPropertySymbols(socket).find((key) => key.description === name);
  const bufferKey = find('kBuffer');
  const callbackKey = find('kBufferCb');
  const generatorKey = find('kBufferGen');
  // Each is null on a socket made without `onread`; anything else is a Node this was not written for.
  if (!bufferKey || !callbackKey || !generatorKey || fields[bufferKey] !== null || fields[callbackKey] !== null || fields[generatorKey] !== null) return false;
  shared ??= Buffer.allocUnsafeSlow(READ_BYTES);
  const buffer = shared;
  fields[bufferKey] = buffer;
  fields[callbackKey] = (bytes: number, into: Buffer): boolean => {
    onChunk(into, bytes);
    // Not false: false would stop the reads.
    return true;
  };
  (handle.useUserBuffer as (buffer: Buffer) => void).call(handle, buffer);
  // Flowing, as a `data` listener would make it: the end of the pipe is still pushed through the stream ('end', then 'close').
  socket.resume();
  return true;
}

/**
 * Calls `onClosed` once the process at the other end of `socket` (a child's stdin, written only)
 * closes its end, or `onClosed` is never called when this Node does not allow the watch (false).
 * A child's stdio pipes are socket pairs (libuv): the gateway's end sees EOF when the child closes
 * its own, but Node never reads a stream opened for writing, so the only sign was the EPIPE of the
 * next write, and a call the server had been sent waited for timeouts.callSeconds
 * (docs/design.md, crash handling). The handle is read here with its `onread` (what net.Socket's
 * own reading calls): a read without bytes is the end (EOF) or an error, either the end of the
 * child's reading; bytes a child writes into its own stdin are dropped.
 */
export function watchPeerClose(socket: unknown, onClosed: () => void): boolean {
  const handle = (socket as { _handle?: { readStart?: unknown; readStop?: unknown; onread?: unknown } | null })._handle;
  if (!handle || typeof handle.readStart !== 'function' || typeof handle.readStop !== 'function' || typeof handle.onread !== 'function') return false;
  const { readStart, readStop } = handle as { readStart: () => number; readStop: () => number };
  handle.onread = (bytes?: ArrayBuffer): void => {
    if (bytes !== undefined) return;
    readStop.call(handle);
    onClosed();
  };
  return readStart.call(handle) === 0;
}

/**
 * The rest of a burst of answers (child-transport.ts): waits `waitUs` microseconds with the thread
 * asleep, then reads what `fd` (a non-blocking pipe or socket, pipeFd) holds by then, without
 * blocking, into a buffer kept for the process; a view valid until the next call, or null when it
 * holds nothing (or cannot be read: the stream's own read meets the same error and reports it).
 *
 * Why: a server writes each answer in a write of its own, and where it has a scheduling group of
 * its own (Linux autogroups: it is spawned in a session of its own) the gateway, woken by each, took
 * the server's core for every one, passed that one answer on and slept, and the client woke for each
 * answer too: the chain fell into lock-step, ~0.6x the throughput of its rounds in bursts
 * (docs/performance.md, "Round 26: calls in flight"). Asleep for a few microseconds, the gateway
 * lets the server write the next answers, and takes them in the same read and the same write to the
 * client. No event-loop timer is that short (1 ms); the futex wait of Atomics.wait is.
 */
export function readRest(fd: number, waitUs: number): Buffer | null {
  Atomics.wait(sleeper, 0, 0, waitUs / 1000);
  rest ??= Buffer.allocUnsafeSlow(READ_BYTES);
  // EAGAIN (nothing yet) is the common answer: an Error without a stack costs a tenth.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let bytes = 0;
  try {
    bytes = readSync(fd, rest, 0, rest.length, null);
  } catch {
    bytes = 0;
  } finally {
    Error.stackTraceLimit = limit;
  }
  // 0: the end of the pipe, which the stream's next read finds and reports as well.
  return bytes > 0 ? rest.subarray(0, bytes) : null;
}

/** What readRest sleeps on: a word no one ever changes, so the wait always runs to its timeout. */
const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** readRest's buffer, made at its first use. */
let rest: Buffer | null = null;
