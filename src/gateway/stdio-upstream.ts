import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineReader, parseMessage, serializeMessage } from '../downstream/lines.js';

/** What send() returns: one shared settled promise, not one per message. */
const QUEUED = Promise.resolve();

/**
 * The gateway's upstream stdio transport (the client starts mcp-latch and talks over its stdin and
 * stdout). Unlike the SDK's StdioServerTransport it notices stdin EOF (typescript-sdk#2002: a
 * gateway that does not would outlive its client and keep every server running), and it writes
 * the messages of one tick in one write: Node writes to a pipe synchronously, one system call and
 * one wake-up of the client per write.
 */
export class StdioUpstream implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly reader = new LineReader();
  private pending: string[] = [];
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.input.on('error', this.onError);
    this.output.on('error', this.onError);
  }

  private readonly onData = (chunk: Buffer): void => {
    try {
      this.reader.push(chunk, (line) => {
        if (line.trim() === '') return;
        let message: JSONRPCMessage;
        try {
          message = parseMessage(line);
        } catch (error) {
          this.onerror?.(error as Error);
          return;
        }
        this.onmessage?.(message);
      });
    } catch (error) {
      this.onerror?.(error as Error);
    }
  };

  private readonly onEnd = (): void => {
    void this.close();
  };

  private readonly onError = (error: Error): void => {
    this.onerror?.(error);
  };

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the client connection is closed'));
    this.pending.push(serializeMessage(message));
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.flush);
    }
    return QUEUED;
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    if (!this.closed) this.output.write(text);
  };

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pending.length > 0) this.flush();
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.onclose?.();
  }
}
