import { fstatSync, writeSync } from 'node:fs';
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
 */
export class PipeOut {
  constructor(
    private readonly stream: NodeJS.WritableStream & { readonly writableLength?: number },
    /** The descriptor, when writing to it directly is safe (pipeFd); null: the stream only. */
    private readonly fd: number | null,
  ) {}

  write(text: string): void {
    if (this.fd === null || this.stream.writableLength !== 0) {
      this.stream.write(text);
      return;
    }
    // Encoded once into the shared buffer (text-bytes.ts); a text too long for it is written as a string.
    const bytes = encodeShared(text);
    let written: number;
    try {
      written = bytes === -1 ? writeSync(this.fd, text) : writeSync(this.fd, sharedBytes(), 0, bytes);
    } catch {
      // EAGAIN (the reader is behind) or the stream's own error to meet (EPIPE: the reader is gone).
      this.stream.write(text);
      return;
    }
    // The rest is copied out of the shared buffer, which the next write reuses.
    if (bytes === -1 && written !== Buffer.byteLength(text)) this.stream.write(Buffer.from(text).subarray(written));
    else if (bytes !== -1 && written !== bytes) this.stream.write(Buffer.from(sharedBytes().subarray(written, bytes)));
  }
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
 * for the process, each read passed to `onChunk` as a view valid until it returns: what net.Socket's
 * documented `onread` option does for a socket made with it (gateway/client-input.ts), applied to a
 * socket child_process made, through the same fields of the socket and its handle. False, and
 * nothing changed, when this Node does not have them: the caller then listens to `data`.
 */
export function readIntoSharedBuffer(socket: Readable, onChunk: (chunk: Buffer) => void): boolean {
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
    onChunk(into.subarray(0, bytes));
    // Not false: false would stop the reads.
    return true;
  };
  (handle.useUserBuffer as (buffer: Buffer) => void).call(handle, buffer);
  // Flowing, as a `data` listener would make it: the end of the pipe is still pushed through the stream ('end', then 'close').
  socket.resume();
  return true;
}
