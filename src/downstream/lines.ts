import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LatchError } from '../errors.js';

/**
 * Newline-delimited JSON-RPC over a byte stream (the MCP stdio framing), for both sides of the
 * gateway. Messages get a structural check of the envelope only: the SDK's Protocol classifies
 * every message again with its own schemas, and every request's params are validated by its
 * handler, so a second full zod parse per message here would be paid twice on every call.
 */

/** A line longer than the limit: dropped, but its size and (if it could be found) its id are reported. */
export interface Oversized {
  bytes: number;
  id: string | number | null;
}

/** What a message over the limit is told, for both directions. */
export function oversizedText(what: string, oversized: { bytes: number | null }, limitBytes: number): string {
  return `${what}${oversized.bytes === null ? '' : ` of ${megabytes(oversized.bytes)} MB`} exceeds the limit of ${megabytes(limitBytes)} MB; raise \`limits.messageMB\` in the mcp-latch config to accept it`;
}

/** Bytes as MB (MiB) with at most one decimal, as the limits are stated. */
export function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '');
}

/** Bytes kept from each end of an over-long line: where a JSON-RPC id is (first or last key). */
const ENDS = 256;

/**
 * Splits a byte stream into lines in linear time: each chunk is searched once, and a line that
 * spans chunks is joined once, when it ends. A line over `maxBytes` is not kept: only its first
 * and last bytes, to find the id of the request or response it was, so it can be answered.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private partsBytes = 0;
  private over: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  /**
   * `maxBytes`: `limits.messageMB`, in bytes. `reusedChunks`: the reader writes its next read over
   * the chunk once `push` returns (gateway/client-input.ts), so a line's start is copied to be kept.
   */
  constructor(
    readonly maxBytes: number,
    private readonly reusedChunks = false,
  ) {}

  /**
   * Adds a chunk and calls `onLine` for each complete line, `onOversized` for each line over the
   * limit; answers how many lines ended in it. `end`: the chunk's bytes end there, and what follows is an earlier read's (a reader with one buffer
   * hands over the buffer and its count rather than a view made for every read: docs/performance.md,
   * "Round 26: per-call work").
   */
  push(chunk: Buffer, onLine: (line: string) => void, onOversized: (oversized: Oversized) => void, end = chunk.length): number {
    if (end > 0 && end <= this.maxBytes + 1 && this.partsBytes === 0 && !this.over && chunk[end - 1] === 10) {
      const ended = this.pushWhole(chunk, end, onLine);
      if (ended > 0) return ended;
    }
    // A read that does not end with a newline is taken as a view of its own bytes, so no search
    // reaches the stale ones after it; one that does end with one has no newline search pass it.
    if (end < chunk.length && (end === 0 || chunk[end - 1] !== 10)) chunk = chunk.subarray(0, end);
    let start = 0;
    let ended = 0;
    // A read mostly ends with its last line's newline: no search after it (each search is a call
    // into the runtime; docs/performance.md, "Round 24: per-call CPU").
    for (let index = chunk.indexOf(10); index !== -1 && index < end; index = start < end ? chunk.indexOf(10, start) : -1) {
      if (this.partsBytes === 0 && !this.over && index - start <= this.maxBytes) {
        onLine(utf8Text(chunk, start, index > start && chunk[index - 1] === 13 ? index - 1 : index));
      } else {
        this.append(chunk.subarray(start, index));
        this.endLine(onLine, onOversized);
      }
      start = index + 1;
      ended += 1;
    }
    if (start < end) this.append(start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end));
    return ended;
  }

  /**
   * A read of whole lines (it ends with a newline, nothing of an earlier read waits, and it is within
   * the limit), decoded as one text and cut at its newlines by the text's own search: one decode and
   * one search for the read, where each line took a search of the bytes and a decode of its own, both
   * calls into Node (~0.4k and ~0.8k instructions; docs/performance.md, "Round 32: the call path").
   * Each line is then a slice of the read's text, which it keeps alive while it lives (64 KiB at
   * most, client-input.ts). A read whose text is not one character a byte (UTF-8 past ASCII) and
   * holds several lines is left to push's search of the bytes (0 returned, nothing handed over), so
   * that no line is cut elsewhere than at its byte. No line is over the limit here: the read is not.
   */
  private pushWhole(chunk: Buffer, end: number, onLine: (line: string) => void): number {
    const text = utf8Text(chunk, 0, end - 1);
    let index = text.indexOf('\n');
    if (index === -1) {
      onLine(text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text);
      return 1;
    }
    if (text.length !== end - 1) return 0;
    let start = 0;
    let ended = 0;
    for (;;) {
      const stop = index === -1 ? text.length : index;
      onLine(text.slice(start, stop > start && text.charCodeAt(stop - 1) === 13 ? stop - 1 : stop));
      ended += 1;
      if (index === -1) return ended;
      start = index + 1;
      index = text.indexOf('\n', start);
    }
  }

  private append(piece: Buffer): void {
    if (this.over) {
      this.over.bytes += piece.length;
      this.over.tail = Buffer.from(lastBytes(piece.length >= ENDS ? piece : Buffer.concat([this.over.tail, piece])));
      return;
    }
    this.parts.push(this.reusedChunks ? Buffer.from(piece) : piece);
    this.partsBytes += piece.length;
    if (this.partsBytes > this.maxBytes) {
      const whole = Buffer.concat(this.parts);
      this.over = { bytes: whole.length, head: Buffer.from(whole.subarray(0, ENDS)), tail: Buffer.from(lastBytes(whole)) };
      this.parts = [];
      this.partsBytes = 0;
    }
  }

  private endLine(onLine: (line: string) => void, onOversized: (oversized: Oversized) => void): void {
    const over = this.over;
    if (over) {
      this.over = null;
      onOversized({ bytes: over.bytes, id: sniffId(over.head.toString('utf8'), over.tail.toString('utf8')) });
      return;
    }
    let line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.partsBytes = 0;
    if (line.length > 0 && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
    onLine(line.toString('utf8'));
  }
}

/**
 * The bytes `start` to `end` of `chunk` as UTF-8 text: `toString('utf8', start, end)` without its
 * arguments' checks and its look-up of the encoding's functions, which cost ~0.2k instructions a
 * line, two lines a call (docs/performance.md, "Round 32: the call path"). `utf8Slice` is the method
 * Buffer's toString calls for UTF-8 (Node 20 to 24); `start` and `end` are within the chunk here.
 */
function utf8Text(chunk: Buffer, start: number, end: number): string {
  return (chunk as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(start, end);
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length > ENDS ? buffer.subarray(buffer.length - ENDS) : buffer;
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** A message whose first keys are `jsonrpc` and `id` (how clients and the SDK write requests). */
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
/** A message whose last key is `id` (how the SDK writes responses: result, jsonrpc, id). */
const TAIL_ID = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);

/** The id of a message known only by its two ends, or null. */
export function sniffId(head: string, tail: string): string | number | null {
  const found = HEAD_ID.exec(head)?.[1] ?? TAIL_ID.exec(tail)?.[1];
  if (found === undefined) return null;
  try {
    return JSON.parse(found) as string | number;
  } catch {
    return null;
  }
}

/**
 * A line that is not a JSON-RPC 2.0 message, with the error the spec gives it: -32700 for text that
 * is not JSON, -32600 for anything else (a batch array, an id that is null, an object, an array or
 * a boolean); `id` is the message's id when it has a usable one, else null.
 */
export class InvalidMessage extends LatchError {
  constructor(
    /** The JSON-RPC error code the answer carries. */
    readonly rpcCode: -32700 | -32600,
    message: string,
    readonly id: string | number | null,
  ) {
    super('MESSAGE_INVALID', message);
  }
}

/** Parses one line into a JSON-RPC 2.0 message, or throws an InvalidMessage saying why it is not one. */
export function parseMessage(line: string): JSONRPCMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new InvalidMessage(-32700, `Parse error: ${(error as Error).message}`, null);
  }
  if (Array.isArray(value)) throw new InvalidMessage(-32600, 'Invalid Request: JSON-RPC batches are not supported; send one message per line', null);
  if (typeof value !== 'object' || value === null) throw new InvalidMessage(-32600, 'Invalid Request: not a JSON-RPC message (not an object)', null);
  const message = value as Record<string, unknown>;
  const hasId = typeof message.id === 'string' || (typeof message.id === 'number' && Number.isFinite(message.id));
  const id = hasId ? (message.id as string | number) : null;
  if (message.jsonrpc !== '2.0') throw new InvalidMessage(-32600, 'Invalid Request: not a JSON-RPC 2.0 message', id);
  if ('id' in message && !hasId) throw new InvalidMessage(-32600, 'Invalid Request: an id must be a string or a number', null);
  if (typeof message.method === 'string') return message as unknown as JSONRPCMessage;
  if (hasId && ('result' in message || 'error' in message)) return message as unknown as JSONRPCMessage;
  throw new InvalidMessage(-32600, 'Invalid Request: not a JSON-RPC request, notification or response', id);
}

/**
 * A transport that offers each line it reads to `takeLine` before parsing it; a line taken (true)
 * is not parsed (downstream/answer-scan.ts).
 */
export interface LineTaking {
  takeLine: ((line: string) => boolean) | undefined;
  /** How many calls sent through `takeLine`'s owner still wait for their answer (child-transport.ts, a server's answers one at a time). */
  callsWaiting?: (() => number) | undefined;
  /**
   * Set by `takeLine`'s owner when the transport has it: called right after each write of the lines
   * sent through it, and before the transport answers any of them itself (a write refused, records
   * that failed: child-transport.ts). The owner makes its calls' entries there, after the write that
   * a waiting client's latency runs through (direct-calls.ts; docs/performance.md, "Round 29: the
   * call's critical path"). No answer to a line can be read before it returns.
   */
  written?: (() => void) | undefined;
}

/**
 * A transport that can send a line made elsewhere: the answer to request `id`, written as its
 * serializeMessage would write it (gateway/upstream-calls.ts, `answeredText`). `id` lets a wrapper
 * that changes some answers (gateway/era-2026.ts) take those back to its own path.
 */
export interface LineSending {
  sendLine(line: string, id: string | number): Promise<void>;
  /**
   * The bytes written to the peer that it has not read yet and that have waited without the
   * backlog emptying for a second, when the transport can tell (a stdio server's stdin), else 0: a
   * server that stopped reading is not sent more calls past `limits.messageMB` of them
   * (docs/config.md, "limits").
   */
  unread?(): number;
  /** The most `unread()` may be before calls are refused (`limits.messageMB`, in bytes). */
  readonly unreadLimit?: number;
}

/**
 * What the stdio transports' send() returns once a message is queued for the next write: one shared
 * settled promise, not one per message. A caller on the hot path compares against it rather than
 * adding a `.catch`, which cost every message a promise, a closure and a microtask.
 */
export const QUEUED: Promise<void> = Promise.resolve();

/**
 * `text`, JSON lines, with U+2028 and U+2029 written as the escapes `\u2028` and `\u2029`: the
 * gateway's own writes to a peer (a server's stdin, the client), whatever made their lines
 * (JSON.stringify, a server's answer passed on as written, a client's arguments). JSON.stringify
 * leaves both raw inside strings, and Node 24's readline ends a line at each (a reader built on
 * it, as many servers and clients are, read one message as two invalid ones); the SDK's own
 * ReadBuffer, and the gateway's LineReader, end a line at "\n" only and read both forms. Outside
 * strings neither may stand in JSON, so the escape is the same value. Checked first, and on a text
 * of one-byte characters (most) the check ends at once: V8 finds no two-byte character in it
 * (docs/performance.md, "Round 26: line separators").
 */
export function escapeLineSeparators(text: string): string {
  if (text.indexOf('\u2028') === -1 && text.indexOf('\u2029') === -1) return text;
  return text.replace(LINE_SEPARATORS, escapedSeparator);
}

const LINE_SEPARATORS = /[\u2028\u2029]/g;

function escapedSeparator(separator: string): string {
  return separator === '\u2028' ? '\\u2028' : '\\u2029';
}

export function serializeMessage(message: JSONRPCMessage): string {
  return `${JSON.stringify(message)}\n`;
}
