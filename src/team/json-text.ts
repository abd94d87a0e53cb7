import type { ServerResponse } from 'node:http';
import { escapeLineSeparators } from '../downstream/lines.js';

/**
 * The team gateway's JSON texts, written with U+2028 and U+2029 escaped (`\u2028`, the same JSON
 * value), as every line the stdio gateway writes has been since round 26 (downstream/lines.ts
 * escapeLineSeparators; docs/design.md "Node versions"). JSON.stringify leaves both raw inside
 * strings, and a client that splits what it reads at them (Node 24's readline, a JavaScript
 * `split(/\r\n|[\n\r\u2028\u2029]/)`, an editor's line reader) read one event's `data:` line or one
 * JSON body as pieces that are not JSON (round 27).
 */
export function jsonText(value: unknown): string {
  return escapeLineSeparators(JSON.stringify(value));
}

/** U+2028 and U+2029 in UTF-8: E2 80 A8, E2 80 A9. */
const SEPARATOR_LEAD = Buffer.from([0xe2, 0x80]);
const ESCAPED_2028 = Buffer.from('\\u2028');
const ESCAPED_2029 = Buffer.from('\\u2029');

/**
 * `res` made to write U+2028 and U+2029 escaped, for the SDK's Streamable HTTP transport, which
 * writes its event streams and JSON bodies itself (JSON.stringify, then bytes through
 * @hono/node-server). Outside JSON strings neither may stand in JSON nor in an event stream's
 * fields, so the escape changes no value. Its Content-Length is dropped (the escape is longer; the
 * body goes chunked), and a character split across two writes is escaped whole: its first bytes wait
 * for the next write or the end.
 */
export function escapingLineSeparators(res: ServerResponse): ServerResponse {
  let held: Buffer | null = null;
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  const escaped = (chunk: unknown): unknown => {
    if (typeof chunk === 'string') {
      const text = escapeLineSeparators(chunk);
      if (held === null) return text;
      const bytes = Buffer.concat([held, Buffer.from(text)]);
      held = null;
      return bytes;
    }
    if (!(chunk instanceof Uint8Array)) return chunk;
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (held !== null) {
      bytes = Buffer.concat([held, bytes]);
      held = null;
    }
    // The first bytes of a separator at the end wait for the rest (E2, or E2 80).
    const tail = bytes.length > 0 && bytes[bytes.length - 1] === 0xe2 ? 1 : bytes.length > 1 && bytes[bytes.length - 2] === 0xe2 && bytes[bytes.length - 1] === 0x80 ? 2 : 0;
    if (tail > 0) {
      held = Buffer.from(bytes.subarray(bytes.length - tail));
      bytes = bytes.subarray(0, bytes.length - tail);
    }
    return escapedBytes(bytes);
  };
  res.writeHead = ((...args: unknown[]) => {
    if (res.hasHeader('content-length')) res.removeHeader('content-length');
    return writeHead(...args.map(withoutLength));
  }) as ServerResponse['writeHead'];
  res.write = ((chunk: unknown, ...rest: unknown[]) => write(escaped(chunk), ...rest)) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    if (args.length > 0 && typeof args[0] !== 'function') args[0] = escaped(args[0]);
    if (held !== null) {
      const rest = held;
      held = null;
      args = typeof args[0] === 'function' || args.length === 0 ? [rest, ...args] : [Buffer.concat([rest, Buffer.from(args[0] as Uint8Array | string)]), ...args.slice(1)];
    }
    return end(...args);
  }) as ServerResponse['end'];
  return res;
}

/** `bytes` with each UTF-8 U+2028 and U+2029 written as its JSON escape; `bytes` itself when it holds none (most). */
function escapedBytes(bytes: Buffer): Buffer {
  let at = bytes.indexOf(SEPARATOR_LEAD);
  if (at === -1) return bytes;
  const parts: Buffer[] = [];
  let from = 0;
  while (at !== -1 && at + 2 < bytes.length) {
    const last = bytes[at + 2];
    if (last === 0xa8 || last === 0xa9) {
      parts.push(bytes.subarray(from, at), last === 0xa8 ? ESCAPED_2028 : ESCAPED_2029);
      from = at + 3;
    }
    at = bytes.indexOf(SEPARATOR_LEAD, at + 2);
  }
  if (from === 0) return bytes;
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

/** A writeHead argument without its Content-Length (headers as an object or as a flat list of names and values). */
function withoutLength(arg: unknown): unknown {
  if (Array.isArray(arg)) {
    const kept: unknown[] = [];
    for (let index = 0; index + 1 < arg.length; index += 2) if (String(arg[index]).toLowerCase() !== 'content-length') kept.push(arg[index], arg[index + 1]);
    return kept.length === arg.length ? arg : kept;
  }
  if (typeof arg !== 'object' || arg === null) return arg;
  const names = Object.keys(arg).filter((name) => name.toLowerCase() === 'content-length');
  if (names.length === 0) return arg;
  const kept = { ...(arg as Record<string, unknown>) };
  for (const name of names) delete kept[name];
  return kept;
}
