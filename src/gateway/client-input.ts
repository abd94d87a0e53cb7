import { fstatSync } from 'node:fs';
import { Socket, type OnReadOpts, type SocketConstructorOpts } from 'node:net';

/**
 * What the client writes to `serve`: a stream that emits `data`, `end`, `close` and `error`, and
 * counts `bytesRead`. `onBytes` is there (null) on the socket read into one buffer: a reader set
 * there is handed each read as that buffer and its byte count, and `data` (a view, a Buffer made
 * for the read) is emitted only when something else listens (docs/performance.md, "Round 26:
 * per-call work").
 */
export type ClientInput = NodeJS.ReadableStream & { bytesRead?: number; onBytes?: ((buffer: Buffer, bytes: number) => void) | null };

/**
 * The client's end of stdin. When it is a pipe or a socket (how MCP clients start `serve`), it is
 * read into one buffer kept for the life of the process (net.Socket's `onread`), and each read is
 * handed to `onBytes` as that buffer and its count, or else emitted as `data` with a view of it,
 * valid until the listener returns (the line reader copies what it keeps: downstream/lines.ts). process.stdin made a 64 KB backing store, a Buffer,
 * and a turn through the Readable stream's queue (push, a nextTick, read(0)) for every read
 * (docs/performance.md, "Round 11: the warm path").
 *
 * A terminal, a file, an IPC channel on fd 0 or Windows keep process.stdin. Either way this is the
 * only reader of fd 0: `serve` does not touch process.stdin when it gets the socket, as a second
 * handle on the same descriptor would take reads from the first.
 */
export function clientInput(): { input: ClientInput; reusedChunks: boolean } {
  if (process.platform === 'win32' || process.channel) return { input: process.stdin, reusedChunks: false };
  try {
    const stat = fstatSync(0);
    if (!stat.isFIFO() && !stat.isSocket()) return { input: process.stdin, reusedChunks: false };
  } catch {
    return { input: process.stdin, reusedChunks: false };
  }
  const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
  const onread: OnReadOpts = {
    buffer,
    callback: (bytes, into) => {
      const reader = socket.onBytes;
      if (reader) reader(into as Buffer, bytes);
      // A `data` listener besides (the idle collector's, set only while the client is quiet) still hears of the read.
      if (!reader || socket.listenerCount('data') > 0) socket.emit('data', (into as Buffer).subarray(0, bytes));
      // Not false: false would pause the socket.
      return true;
    },
  };
  // `onread` is a documented option of the constructor (Node 20's net.md) that @types/node gives only to net.connect.
  const socket: Socket & ClientInput = Object.assign(new Socket({ fd: 0, readable: true, writable: false, onread } as SocketConstructorOpts), { onBytes: null });
  // The socket starts reading as it is made, and a read with no `data` listener yet would be lost:
  // paused until its reader resumes it (StdioUpstream.start). pause() stops the reads of a socket
  // with `onread` (net.Socket.prototype.pause), where a plain stream only stops emitting.
  socket.pause();
  return { input: socket, reusedChunks: true };
}

/** What libuv reads at most at once into a Node stream (process.stdin's chunks are as large). */
const READ_BYTES = 64 * 1024;
