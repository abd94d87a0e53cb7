import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { escapeLineSeparators, InvalidMessage, LineReader, oversizedText, parseMessage, QUEUED, serializeMessage, type LineSending, type Oversized } from '../downstream/lines.js';
import { errorMessage, LatchError } from '../errors.js';
import { listJson } from './list-answer.js';
import { PipeOut, pipeFd } from '../downstream/pipes.js';
import { wideCallRefusal } from './upstream-calls.js';
import { atReadEnd, readEnded, readStarted } from '../read-end.js';
import { scanCall } from './call-scan.js';
import { mayBeDropped, UpdatesKept, updatedUri } from './client-behind.js';
import type { ClientInput } from './client-input.js';

/**
 * The gateway's upstream stdio transport (the client starts mcp-latch and talks over its stdin and
 * stdout). Unlike the SDK's StdioServerTransport it notices stdin EOF (https://github.com/modelcontextprotocol/typescript-sdk/issues/2002: a
 * gateway that does not would outlive its client and keep every server running), and it writes
 * the messages of one tick in one write: Node writes to a pipe synchronously, one system call and
 * one wake-up of the client per write.
 */
export class StdioUpstream implements Transport, LineSending {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Told of each tools/call refused before it is parsed (wideCallRefusal), with the reason sent: its audit record. */
  onrefused?: (reason: string) => void;

  private readonly reader: LineReader;
  /** The lines sent in this tick, joined as they come (a list emptied per write allocated its storage again for every message). */
  private pending = '';
  private scheduled = false;
  private closed = false;
  /** `output`, written with one system call when it holds nothing queued (downstream/pipes.ts). */
  private readonly out: PipeOut;
  /** Notifications dropped since the client fell behind (see `send`). */
  private dropped = 0;
  /** The resources told updated while the client was behind, each told once when it has read (see `send`). */
  private readonly updated = new UpdatesKept();
  /** The client's falling behind was logged (noteBehind). */
  private behindNoted = false;
  /** Characters handed to `out` so far: the stream writes in order, so its last `writableLength` are what waits. */
  private written = 0;
  /** The end (in `written` + `pending`) of each progress or log notification that may still wait, oldest first, and their characters. */
  private readonly heldEnds: number[] = [];
  private readonly heldSizes: number[] = [];
  private heldChars = 0;
  /**
   * This turn's progress notifications of requests not answered yet, written when the event loop's
   * turn ends unless the request is answered first (holdProgress, writeProgress). A list, as the
   * least that keeps their order and each one's count against the limit (sendDroppable): a map by
   * request reorders the requests' updates and counts them together (round 25 re-read; docs/approval.md).
   */
  private readonly progress: Array<{ id: RequestId; line: string }> = [];
  /** The end of the turn, when `progress` is written (holdProgress). */
  private progressTurn: NodeJS.Immediate | null = null;

  /**
   * `maxMessageBytes`: `limits.messageMB`, in bytes. `reusedChunks`: `input` writes each read over
   * the last one's chunk (client-input.ts).
   */
  constructor(
    maxMessageBytes: number,
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    reusedChunks = false,
  ) {
    this.reader = new LineReader(maxMessageBytes, reusedChunks);
    this.out = new PipeOut(output, pipeFd(output));
  }

  async start(): Promise<void> {
    // The client's socket read into one buffer takes the reader itself (client-input.ts).
    const input = this.input as ClientInput;
    if (input.onBytes === null) input.onBytes = this.onData;
    else this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.input.on('error', this.onError);
    this.output.on('error', this.onError);
    // A paused input (client-input.ts) starts reading here, with its reader in place.
    this.input.resume();
  }

  /**
   * The calls of a read are handed over, and what is sent meanwhile written, as it returns
   * (read-end.ts). `bytes`: the read's bytes in `chunk`, when the input hands over its one buffer
   * (client-input.ts).
   */
  private readonly onData = (chunk: Buffer, bytes = chunk.length): void => {
    readStarted();
    try {
      this.reader.push(chunk, this.onLine, this.onOversized, bytes);
    } finally {
      readEnded();
    }
  };

  /** Every message gets an answer or is handled: one that is not valid JSON-RPC gets the spec's error. */
  private readonly onLine = (line: string): void => {
    if (line.trim() === '') return;
    const refusal = wideCallRefusal(line);
    if (refusal) {
      this.onrefused?.((refusal as { error: { message: string } }).error.message);
      void this.send(refusal).catch(() => undefined);
      return;
    }
    // A tools/call in the shape clients write is read by a scanner; anything else is parsed (call-scan.ts).
    let message = scanCall(line);
    if (message) {
      this.deliver(message);
      return;
    }
    try {
      message = parseMessage(line);
    } catch (error) {
      const invalid = error instanceof InvalidMessage ? error : new InvalidMessage(-32600, `Invalid Request: ${errorMessage(error)}`, null);
      this.onerror?.(invalid);
      void this.send({ jsonrpc: '2.0', id: invalid.id, error: { code: invalid.rpcCode, message: invalid.message } } as unknown as JSONRPCMessage).catch(() => undefined);
      return;
    }
    this.deliver(message);
  };

  /**
   * Hands a message on; what throws while it is handled is reported and the next line read, as the
   * SDK's own stdio transport does. Before round 33 a throw left the read: an answer to an id the
   * gateway never asked, its result nested 1,000,000 arrays deep, made the SDK Server's "unknown
   * message ID" error (JSON.stringify of the message) overflow the stack, and the gateway exited,
   * every server with it (round 33 review, P33-6).
   */
  private deliver(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(new LatchError('MESSAGE_INVALID', `could not handle a message of the client: ${errorMessage(error)}`, { cause: error }));
    }
  }

  private readonly onOversized = (oversized: Oversized): void => {
    const text = oversizedText('a request', oversized, this.reader.maxBytes);
    this.onerror?.(new LatchError('MESSAGE_TOO_LARGE', `${text} (dropped)`));
    void this.send({ jsonrpc: '2.0', id: oversized.id, error: { code: -32600, message: `Invalid Request: ${text}` } } as unknown as JSONRPCMessage).catch(() => undefined);
  };

  private readonly onEnd = (): void => {
    void this.close();
  };

  private readonly onError = (error: Error): void => {
    this.onerror?.(error);
  };

  /**
   * While more than `limits.messageMB` waits for the client (it does not read its input), progress
   * and log notifications are dropped, with one line in the log when it starts and one when it
   * ends; answers and requests are never dropped. A server streaming progress to a client that did
   * not read grew the gateway ~50 MB a second, 900 MB in 18 s, until the OOM killer took every
   * server with it (review of round 20 faults, F1; docs/config.md, "limits"). A dropped progress
   * update is superseded by the next one. A resource's `notifications/resources/updated` ("read it
   * again") is not queued either: its uri is kept, and told once when the client has read, however
   * many updates came meanwhile; they were held without bound too, a subscribed resource's 3,000
   * updates took the gateway to 321 MB (round 21 review, review-diff21 R1). Past `limits.messageMB`
   * of kept uris an update is dropped.
   */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.closed) return this.refused();
    if (this.behindNoted && this.pending === '' && this.waitingInStream() === 0) this.caughtUp();
    const { method, id } = message as { method?: unknown; id?: unknown };
    if (method === 'notifications/progress' && options?.relatedRequestId !== undefined) return this.holdProgress(options.relatedRequestId, safeSerialize(message, this.onerror));
    if (mayBeDropped(message)) return this.sendDroppable(safeSerialize(message, this.onerror));
    if (this.progress.length > 0 && method === undefined && (typeof id === 'string' || typeof id === 'number')) this.answered(id);
    if (this.behind()) {
      const uri = updatedUri(message);
      if (uri !== null) return this.keepUpdated(uri);
    }
    let line: string;
    try {
      line = safeSerialize(message, this.onerror);
    } catch (error) {
      // A request of the gateway's (a server's, relayed): its requester is told, not the client.
      return Promise.reject(error as Error);
    }
    return this.queue(line);
  }

  /**
   * A progress or log notification is dropped when the ones still waiting for the client, with it,
   * would be more than `limits.messageMB`; what else waits (an answer) does not count. Counted by
   * all that waited, one large answer being written to a client that read it (a tool's 9 MB file
   * under the default 10 MB) dropped every other call's progress until it was read (round 20
   * faults review, F1, left open). Characters, not bytes: the stream counts a string's characters.
   */
  private sendDroppable(line: string): Promise<void> {
    const read = this.written - this.waitingInStream();
    while (this.heldEnds.length > 0 && this.heldEnds[0]! <= read) {
      this.heldEnds.shift();
      this.heldChars -= this.heldSizes.shift()!;
    }
    if (this.heldChars + line.length > this.reader.maxBytes) return this.drop();
    this.heldEnds.push(this.written + this.pending.length + line.length);
    this.heldSizes.push(line.length);
    this.heldChars += line.length;
    return this.queue(line);
  }

  /** What waits for the client to read, the rest libuv holds for a write of PipeOut's own included (pipes.ts). */
  private waitingInStream(): number {
    return this.out.waiting;
  }

  /** A resource updated while the client is behind: told once when it has read (its stream drains). */
  private keepUpdated(uri: string): Promise<void> {
    const none = this.updated.size === 0;
    this.updated.keep(uri, this.reader.maxBytes);
    if (none && this.updated.size > 0) this.output.once('drain', this.onDrain);
    this.noteBehind();
    return QUEUED;
  }

  /** The client's stream emptied: what was kept is told, or, still behind (this tick queued more), at the next drain. */
  private readonly onDrain = (): void => {
    if (this.closed || this.updated.size === 0) return;
    if (this.behind()) this.output.once('drain', this.onDrain);
    else this.caughtUp();
  };

  /** The client has read what waited: the log says what it missed, and each resource kept is told updated. */
  private caughtUp(): void {
    if (this.dropped > 0) this.onerror?.(new LatchError('MESSAGE_TOO_LARGE', `the client has caught up: ${this.dropped.toLocaleString('en-US')} progress and log notifications were dropped while it was behind`));
    if (this.updated.size > 0) this.onerror?.(new LatchError('MESSAGE_TOO_LARGE', `the client has caught up: ${this.updated.size.toLocaleString('en-US')} resource(s) updated while it was behind are told updated once each`));
    if (this.updated.lost > 0) this.onerror?.(new LatchError('MESSAGE_TOO_LARGE', `the client has caught up: ${this.updated.lost.toLocaleString('en-US')} resource update notifications were dropped while it was behind, past limits.messageMB of resources kept to tell it of`));
    this.dropped = 0;
    this.behindNoted = false;
    const uris = this.updated.take();
    this.output.off('drain', this.onDrain);
    for (const uri of uris) this.queue(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":${JSON.stringify(uri)}}}\n`);
  }

  /** More than `limits.messageMB` is waiting for the client: what this tick queued, and what the stream holds. */
  private behind(): boolean {
    const waiting = this.pending.length + this.waitingInStream();
    return waiting > this.reader.maxBytes;
  }

  private drop(): Promise<void> {
    this.noteBehind();
    this.dropped += 1;
    return QUEUED;
  }

  /** The log's line when the client falls behind: once until it has caught up. */
  private noteBehind(): void {
    if (this.behindNoted) return;
    this.behindNoted = true;
    const mb = Math.round((this.reader.maxBytes / 1024 / 1024) * 10) / 10;
    this.onerror?.(new LatchError('MESSAGE_TOO_LARGE', `the client is behind: more than limits.messageMB (${mb} MB) waits for it to read, so progress and log notifications past that are dropped, and each resource updated meanwhile is told once, until it has read all that waits (docs/config.md, "limits")`));
  }

  /** A line made elsewhere (downstream/lines.ts, LineSending), written with this tick's others. */
  sendLine(line: string, id?: RequestId): Promise<void> {
    if (this.closed) return this.refused();
    if (this.progress.length > 0 && id !== undefined) this.answered(id);
    return this.queue(line);
  }

  /**
   * A request's progress notification waits for the end of the event loop's turn (setImmediate):
   * when the request is answered in the same turn (its server's update and answer read together,
   * as they mostly are), the update is not sent, the answer supersedes it. The TypeScript SDK's
   * Client handles a notification a microtask after the read it came in and an answer at once, so
   * an update it read with its answer was lost and its token reported unknown to `onerror`
   * (typescript-sdk#2580): 17 of 20 such updates through the gateway, none directly (docs/approval.md,
   * "What of a server's question is escaped"). Until round 31 the wait was the end of the read (or a
   * microtask), and an answer passed on through a promise (a call that waited for approval, a new
   * tool's first call, a remote or 2026-07-28 server) comes microtasks after it: the updates read
   * with it were written alone just before it, and a client reading the two writes at once lost
   * them by chance (round 31 review, P31-1). The answer of a call comes in the turn of its server's
   * answer on every path, so the rule is the same on each. An update of a request still running is
   * written when the turn ends.
   */
  private holdProgress(id: RequestId, line: string): Promise<void> {
    this.progress.push({ id, line });
    this.progressTurn ??= setImmediate(this.writeProgress);
    return QUEUED;
  }

  /** The turn ended: the progress held in it of requests still running is written, counted as any progress (sendDroppable). */
  private readonly writeProgress = (): void => {
    this.progressTurn = null;
    if (this.closed) return;
    for (const { line } of this.progress) void this.sendDroppable(line);
    this.progress.length = 0;
  };

  /** The request `id` is answered in this turn: its progress held in it is not sent. */
  private answered(id: RequestId): void {
    let kept = 0;
    for (const held of this.progress) if (held.id !== id) this.progress[kept++] = held;
    this.progress.length = kept;
  }

  private refused(): Promise<void> {
    return Promise.reject(new LatchError('CONNECTION_CLOSED', 'the client connection is closed'));
  }

  private queue(line: string): Promise<void> {
    this.pending += line;
    this.schedule();
    return QUEUED;
  }

  private schedule(): void {
    if (!this.scheduled) {
      this.scheduled = true;
      // Written when the read being handled (a server's answers, the client's own calls) returns, or
      // else a microtask later (read-end.ts; docs/performance.md, "Round 18: the warm path"). A
      // microtask, not a tick: a tick ran Node's unhandled-rejection pass, which makes a Map
      // (docs/performance.md, "Round 13: the warm path").
      if (!atReadEnd(this.flush)) void QUEUED.then(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    // U+2028/2029 escaped: Node 24's readline ends a line at them (downstream/lines.ts).
    const text = escapeLineSeparators(this.pending);
    this.pending = '';
    if (this.closed || text === '') return;
    this.written += text.length;
    try {
      this.out.write(text);
    } catch (error) {
      // Run as a microtask: a throw would be an unhandled rejection.
      this.onerror?.(error as Error);
    }
  };

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.scheduled) this.flush();
    this.closed = true;
    if (this.progressTurn !== null) clearImmediate(this.progressTurn);
    this.progressTurn = null;
    this.progress.length = 0;
    this.output.off('drain', this.onDrain);
    const input = this.input as ClientInput;
    if (input.onBytes === this.onData) input.onBytes = null;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.onclose?.();
  }
}

/**
 * The line for a message that cannot be serialised (nested too deep for JSON.stringify, a BigInt):
 * an answer becomes an error answer to the same request that says why; a request (a server's
 * sampling, elicitation or roots request, relayed) throws, so that its requester is told (send
 * rejects it); a notification is reported and dropped. Until round 33 a request became an "answer"
 * under its own id, which is an id of the gateway's requests, and the client matched it against its
 * own in flight: a call of the client's under that id was answered by the error while it ran, and
 * the server's request waited for an answer that never came (round 33 review, P33-2).
 */
function safeSerialize(message: JSONRPCMessage, onerror: ((error: Error) => void) | undefined): string {
  try {
    return listLine(message) ?? serializeMessage(message);
  } catch (error) {
    const { id, method } = message as { id?: unknown; method?: unknown };
    onerror?.(new LatchError('MESSAGE_INVALID', `could not serialise a message to the client: ${errorMessage(error)}`, { cause: error }));
    if (typeof id !== 'string' && typeof id !== 'number') return '';
    if (typeof method === 'string') throw new LatchError('MESSAGE_INVALID', `the request ${method} could not be sent to the client: ${errorMessage(error)}`, { cause: error });
    return serializeMessage({ jsonrpc: '2.0', id, error: { code: -32603, message: `mcp-latch could not send this answer: ${errorMessage(error)}` } });
  }
}

/**
 * The line of an answer whose result holds a list answer's entries (`tools`, `resources`,
 * `resourceTemplates` or `prompts`: list-answer.ts listJson), made from the JSON of each entry
 * taken for the list's limit, the rest of the message serialised as JSON.stringify does (its keys
 * in their order); undefined for any other message, which serializeMessage writes.
 */
function listLine(message: JSONRPCMessage): string | undefined {
  const { result } = message as { result?: unknown };
  if (typeof result !== 'object' || result === null) return undefined;
  const { tools, resources, resourceTemplates, prompts } = result as Record<string, unknown>;
  const list = tools ?? resources ?? resourceTemplates ?? prompts;
  if (!Array.isArray(list)) return undefined;
  const listed = listJson(list);
  if (listed === undefined) return undefined;
  const fields = (object: object, made: (key: string, value: unknown) => string | undefined) =>
    Object.entries(object)
      .map(([key, value]) => {
        const json = made(key, value);
        return json === undefined ? null : `${JSON.stringify(key)}:${json}`;
      })
      .filter((field) => field !== null)
      .join(',');
  const resultJson = `{${fields(result, (_key, value) => (value === list ? listed : JSON.stringify(value)))}}`;
  return `{${fields(message, (key, value) => (key === 'result' ? resultJson : JSON.stringify(value)))}}\n`;
}
