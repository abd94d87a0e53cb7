import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Newline-delimited JSON-RPC over a byte stream (the MCP stdio framing), for both sides of the
 * gateway. Messages get a structural check of the envelope only: the SDK's Protocol classifies
 * every message again with its own schemas, and every request's params are validated by its
 * handler, so a second full zod parse per message here would be paid twice on every call.
 */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

export class LineReader {
  private buffered: Buffer | null = null;

  /** Adds a chunk and calls `onLine` for each complete line; throws when a line exceeds the limit. */
  push(chunk: Buffer, onLine: (line: string) => void): void {
    let data = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    let start = 0;
    for (let index = data.indexOf(10, start); index !== -1; index = data.indexOf(10, start)) {
      const end = index > start && data[index - 1] === 13 ? index - 1 : index;
      onLine(data.toString('utf8', start, end));
      start = index + 1;
    }
    data = start === 0 ? data : data.subarray(start);
    if (data.length > MAX_LINE_BYTES) {
      this.buffered = null;
      throw new Error(`a message longer than ${MAX_LINE_BYTES} bytes was discarded`);
    }
    this.buffered = data.length > 0 ? data : null;
  }
}

/** Parses one line into a JSON-RPC 2.0 message, or throws with why it is not one. */
export function parseMessage(line: string): JSONRPCMessage {
  const value = JSON.parse(line) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON-RPC message (not an object)');
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') throw new Error('not a JSON-RPC 2.0 message');
  const hasId = typeof message.id === 'string' || typeof message.id === 'number';
  if (typeof message.method === 'string') return message as unknown as JSONRPCMessage;
  if (hasId && ('result' in message || 'error' in message)) return message as unknown as JSONRPCMessage;
  throw new Error('not a JSON-RPC request, notification or response');
}

export function serializeMessage(message: JSONRPCMessage): string {
  return `${JSON.stringify(message)}\n`;
}
