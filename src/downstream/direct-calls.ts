import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { CancelListener, CancelSource } from '../cancellation.js';
import { errorMessage, KEPT_BACK, LatchError, NOT_WRITTEN, NotSent, RpcError } from '../errors.js';
import { QUEUED, type LineSending, type LineTaking } from './lines.js';
import { scanAnswer, scanned } from './answer-scan.js';
import { AnswerDropped, MAX_CHECKED_VALUES, tooManyValues } from './answer-entries.js';
import { jsonShape, mostCharsFor } from '../json-shape.js';
import { IdSlots } from '../id-slots.js';
import { monotonicNow } from '../monotonic.js';
import { MAX_DEPTH, jsonString, nestsDeeperThan } from '../values.js';

/**
 * tools/call requests written straight to a server's transport, beside the SDK Client that owns
 * the connection (it still does the handshake, the lists and the server's own requests).
 *
 * Without this, every call pays the Client Protocol's timer, abort controller, progress handler and
 * result schema pass (docs/performance.md#the-hot-path); the result is checked once, upstream, by
 * gateway/call-result.ts.
 *
 * Ids come from a range the SDK's counter (which starts at 0 and counts up) never reaches, so a
 * response is never mistaken for one of the Client's. Responses and progress for these ids are
 * taken before the Client sees the message; everything else goes to the Client unchanged.
 */
const FIRST_ID = 1_000_000_000;

export interface DirectCallOptions {
  /** Cancelling sends notifications/cancelled to the server and rejects with the reason. */
  cancel?: CancelSource;
  timeout: number;
  /**
   * Called for each progress update; each also restarts the timeout, as a working server is alive.
   * Only a call with it is sent with a progress token: the client asked for progress
   * (gateway/call.ts callOptions; docs/config.md, `timeouts.callSeconds`).
   */
  onprogress?: (progress: Progress) => void;
  /**
   * With `onprogress`: told when the call's wait ends, before its answer is passed on (`answered`)
   * or as it is given up (cancelled, timed out, the connection closed), so a relay that holds a
   * flood's updates back sends the last one before the answer, and none after it (gateway/progress.ts).
   */
  progressEnd?(answered: boolean): void;
  /**
   * Called when the call is given up (cancelled, timed out) while the server may still be working
   * on it: what it returns is ended when the server is done with the call — its late answer, the
   * connection's close — or when as long again as `timeout` has passed (a server that honours a
   * cancellation sends no answer to it, and one that ignores it may work on: nothing tells when it is done). The gateway keeps the call's origin with it, so what the
   * server asks or logs for that call meanwhile is not sent to another session (gateway/running-calls.ts;
   * docs/threat-model.md, "Round 27: the review of round 26", P27-2). A method of the options object
   * (gateway/call.ts CallWait), so no closure is made for it per call (docs/performance.md, "Round 28").
   */
  linger?(): { end(): void };
}

/** What keeps a request's origin after the gateway gave it up (DirectCallOptions.linger), for the SDK Client's requests (DirectCalls.clientRequest). */
export interface Lingers {
  linger(): { end(): void };
}

/**
 * Where a call's answer goes: the server's result object, or its error. The hot path passes the
 * answer on through these without a promise (docs/performance.md, "Round 8"); must not throw.
 */
export interface CallSettle {
  resolve(result: unknown): void;
  reject(error: unknown): void;
  /**
   * The result as the server wrote it, when answer-scan.ts found it to be what the full path would
   * write again (docs/performance.md, "Round 10: the answer's own bytes"). Without it the text is
   * parsed and given to `resolve`.
   */
  resolveText?(resultText: string): void;
}

/**
 * A call waiting for its server's answer. Its own cancellation's listener (CancelSource.listen):
 * a closure, an array and a remover made per call until round 33 (docs/performance.md, "Round 33:
 * the call path").
 */
class Pending implements CancelListener {
  /** The call's cancellation while this listens to it (`listen`); a source without `listen` is heard through `stopListening`. */
  listening: CancelSource | undefined = undefined;
  stopListening: (() => void) | undefined = undefined;

  constructor(
    private readonly calls: DirectCalls,
    private readonly id: number,
    public settle: CallSettle,
    public onprogress: ((progress: Progress) => void) | undefined,
    /** The call's options, when it has `onprogress` and they are told when its wait ends (DirectCallOptions.progressEnd). */
    public progressEnd: Pick<DirectCallOptions, 'progressEnd'> | undefined,
    /** The call's options, when they say what keeps its origin once it is given up (DirectCallOptions.linger). */
    public linger: Lingers | undefined,
    readonly timeout: number,
    /** When it times out (monotonicNow() ms, performance.now(): a wall clock set back must not lengthen it); moved on by each progress update. */
    public deadline: number,
  ) {}

  whenCancelled(reason: unknown): void {
    this.calls.cancelled(this.id, reason);
  }

  /** Stops listening to the call's cancellation. */
  unlisten(): void {
    const listening = this.listening;
    if (listening !== undefined) {
      this.listening = undefined;
      listening.unlisten!(this);
    } else if (this.stopListening !== undefined) {
      const stop = this.stopListening;
      this.stopListening = undefined;
      stop();
    }
  }
}

/** What an emptied entry settles into: nothing (it is no longer in the map). */
const SETTLED: CallSettle = { resolve: () => undefined, reject: () => undefined };

export class DirectCalls {
  private readonly pending = new IdSlots<Pending>();
  private nextId = FIRST_ID;
  /**
   * One timer for every waiting call, due at the earliest deadline, rather than a timer set and
   * cleared per call (docs/performance.md#the-hot-path). Unreferenced: a waiting call's connection
   * keeps the process alive, not its timeout.
   */
  private timer: NodeJS.Timeout | null = null;
  /**
   * A message went to the Client in this turn: its handler runs a microtask later (the SDK's
   * Protocol). An answer read after it in the same turn is passed on after that handler, so the
   * server's order holds: a log line sent before the answer is routed while its call still runs.
   */
  private clientHandling = false;
  private readonly clientHandled = (): void => {
    this.clientHandling = false;
  };
  private timerDue = Infinity;

  /**
   * Attach after the Client has connected: it has set `transport.onmessage`, which is wrapped here.
   * `onSettleError` hears of an answer handler that threw (a CallSettle must not): the other
   * answers of the same read, timeout sweep or close are delivered all the same.
   */
  constructor(
    private readonly transport: Transport,
    private readonly onSettleError: (error: unknown) => void = () => undefined,
  ) {
    const toClient = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (this.take(message)) return;
      if (!this.clientHandling) {
        this.clientHandling = true;
        queueMicrotask(this.clientHandled);
      }
      toClient?.(message, extra);
    };
    // The id of a request the Client writes while clientRequest sends it.
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (this.capturing && this.captured === undefined && 'method' in message && 'id' in message) this.captured = message.id;
      return send(message, options);
    };
    if ('takeLine' in transport) {
      (transport as LineTaking).takeLine = this.takeLine;
      (transport as LineTaking).callsWaiting = this.callsWaiting;
      if ('written' in transport) {
        (transport as LineTaking).written = this.registerWritten;
        this.afterWrite = true;
      }
    }
    this.lines = 'sendLine' in transport ? (transport as unknown as LineSending) : null;
  }

  /** The transport tells when it has written what was sent (LineTaking.written): a call's entry is made then. */
  private readonly afterWrite: boolean = false;
  /**
   * Calls queued at the transport whose entries wait for its write (registerWritten): parallel
   * lists reused with a count, nothing allocated per call for them.
   */
  private readonly queuedIds: number[] = [];
  private readonly queuedSettles: Array<CallSettle | null> = [];
  private readonly queuedOptions: Array<DirectCallOptions | null> = [];
  private queuedCount = 0;

  private readonly callsWaiting = (): number => this.pending.size;

  /** The transport, when it takes lines made here (ChildTransport). */
  private readonly lines: LineSending | null;

  /**
   * Reads, for nothing, what send() reads of the transport before each call: whether the server's
   * unread input is over its limit now. A stdio server's transport is in boot.cjs, which has no
   * code cache, so `unread` and `unreadLimit` were compiled in the first call to it; the shell
   * warm-up runs this on the real server (docs/performance.md, "Round 23: first shell command").
   * Changes nothing.
   */
  overUnreadLimit(): boolean {
    return (this.lines?.unread?.() ?? 0) > (this.lines?.unreadLimit ?? Infinity);
  }

  /** Sends one tools/call and resolves with the server's result object (or rejects with its error). */
  call(params: Record<string, unknown>, options: DirectCallOptions): Promise<unknown> {
    return new Promise((resolve, reject) => this.send(params, options, { resolve, reject }));
  }

  /**
   * Sends one tools/call; its answer goes to `settle`, once (within this call only when it was
   * cancelled already or could not be written). `argsText`: JSON.stringify(params.arguments), when
   * the params are `{ name, arguments }` only: the line is then made from it, as serializeMessage
   * would write the message (docs/performance.md, "Round 10: the answer's own bytes, and each text made once").
   */
  send(params: Record<string, unknown>, options: DirectCallOptions, settle: CallSettle, argsText?: string): void {
    const cancel = options.cancel;
    if (cancel?.cancelled) {
      this.deliver(settle, false, cancel.reason);
      return;
    }
    // A server that stopped reading its input: the call is not written behind what it has not read
    // (40 calls of 5 MB to one were held in the gateway, 715 MB, each answered after callSeconds
    // as "forwarded and then cancelled at the server"; review of round 20 faults, F4).
    const unread = this.lines?.unread?.() ?? 0;
    const limit = this.lines?.unreadLimit ?? Infinity;
    if (unread > limit) {
      this.deliver(settle, false, new LatchError('SERVER_UNAVAILABLE', `the server is not reading its input: ${megabytes(unread)} MB written to it have waited unread for over a second, more than limits.messageMB (${megabytes(limit)} MB)`));
      return;
    }
    const id = this.nextId++;
    // Over a transport that tells of its writes (ChildTransport), the call's entry, timer and
    // cancellation listener are made after its line is written, in the same turn: for a call at a
    // time only the work before that write is on the path the client waits on, and no answer to the
    // line can be read before the write's turn ends (docs/performance.md, "Round 29: the call's
    // critical path"). Over any other transport, before it is sent, as a transport may answer within send().
    if (!this.afterWrite) this.register(id, settle, options);
    // Settled once: whatever fails here reaches `settle` through the pending entry, as an answer would.
    let handed = false;
    try {
      const lines = this.lines;
      // The server gets a progress token only when the client asked for progress: the SDK's Server
      // parses and keeps one on every request it comes with, ~2 µs of a server's CPU a call
      // (docs/performance.md, "Round 27: calls in flight"); and a server's progress restarts the
      // call's timeout only for a client that waits for it (docs/config.md, `timeouts.callSeconds`).
      const progress = options.onprogress !== undefined;
      const sent =
        argsText !== undefined && lines && typeof params.name === 'string'
          ? lines.sendLine(
              progress
                ? `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${this.nameText(params.name)},"arguments":${argsText},"_meta":{"progressToken":${id}}}}\n`
                : `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${this.nameText(params.name)},"arguments":${argsText}}}\n`,
              id,
            )
          : this.transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params: progress ? withProgressToken(params, id) : params } as JSONRPCMessage);
      handed = true;
      if (this.afterWrite) {
        if (sent === QUEUED) {
          const index = this.queuedCount++;
          this.queuedIds[index] = id;
          this.queuedSettles[index] = settle;
          this.queuedOptions[index] = options;
          return;
        }
        // Not queued (the transport refused it): its refusal settles it through the entry, as before.
        this.register(id, settle, options);
      }
      if (sent !== QUEUED) sent.catch((error: unknown) => this.deliver(this.remove(id), false, error));
    } catch (thrown) {
      // A line-sending transport (ChildTransport) writes in a later turn, so what throws before it
      // took the message (its serialisation: arguments or _meta nested past the stack) wrote
      // nothing: the call was not run, and is not said to have been. Another transport may have
      // written part of it before throwing.
      const error = handed || this.lines === null ? thrown : new NotSent(errorMessage(thrown), thrown);
      if (this.afterWrite && !this.pending.has(id)) this.deliver(settle, false, error);
      else this.deliver(this.remove(id), false, error);
    }
  }

  /**
   * The entries of the calls the transport has just written (LineTaking.written), or is about to
   * answer itself. A call cancelled, or a connection closed, between its send and this is given up
   * here as the cancellation's listener or closeAll would have given it up.
   */
  private readonly registerWritten = (): void => {
    const count = this.queuedCount;
    if (count === 0) return;
    this.queuedCount = 0;
    for (let index = 0; index < count; index++) {
      const id = this.queuedIds[index]!;
      const settle = this.queuedSettles[index]!;
      const options = this.queuedOptions[index]!;
      this.queuedSettles[index] = null;
      this.queuedOptions[index] = null;
      if (this.closed) {
        this.deliver(settle, false, new ConnectionLost());
        continue;
      }
      this.register(id, settle, options);
      const cancel = options.cancel;
      if (cancel?.cancelled) {
        this.cancel(id, String(cancel.reason ?? 'cancelled'));
        this.deliver(this.giveUp(id), false, cancel.reason);
      }
    }
  };

  /** The entry of call `id`: where its answer goes, its deadline (the timer set for it when it is the earliest), its cancellation's listener. */
  private register(id: number, settle: CallSettle, options: DirectCallOptions): void {
    const deadline = monotonicNow() + options.timeout;
    const entry = new Pending(this, id, settle, options.onprogress, options.onprogress !== undefined && options.progressEnd !== undefined ? options : undefined, options.linger ? (options as Lingers) : undefined, options.timeout, deadline);
    const cancel = options.cancel;
    if (cancel?.listen !== undefined) {
      entry.listening = cancel;
      cancel.listen(entry);
    } else if (cancel) entry.stopListening = cancel.onCancel((reason) => this.cancelled(id, reason));
    this.pending.set(id, entry);
    if (deadline < this.timerDue) this.expireAt(deadline);
  }

  /** Call `id` was cancelled while it waited: the server is told, and the call given up with the reason. */
  cancelled(id: number, reason: unknown): void {
    this.cancel(id, String(reason ?? 'cancelled'));
    this.deliver(this.giveUp(id), false, reason);
  }

  /** The last call's tool name and its JSON text: a tool's calls come one after another. */
  private lastName = '';
  private lastNameText = '""';

  private nameText(name: string): string {
    if (name !== this.lastName) {
      this.lastNameText = jsonString(name);
      this.lastName = name;
    }
    return this.lastNameText;
  }

  private expireAt(due: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    // A whole number of milliseconds, rounded up (a sweep before a deadline sets the timer again):
    // the first timer with a fractional delay in the process turned Node's Timeout objects' delay
    // field from a small integer to a double (V8's --trace-generalization: `_idleTimeout`), a new
    // shape for every timer and the code made for the old one dropped, inside a fresh gateway's
    // first call (docs/performance.md, "Round 28: the start and the first calls").
    this.timer = setTimeout(this.expire, Math.max(0, Math.ceil(due - monotonicNow())));
    this.timer.unref();
  }

  /** Times out every call past its deadline, and sets the timer for the next one. */
  private readonly expire = (): void => {
    this.timer = null;
    this.timerDue = Infinity;
    const now = monotonicNow();
    let next = Infinity;
    for (const [id, entry] of this.pending.entries()) {
      if (entry.deadline > now) {
        next = Math.min(next, entry.deadline);
        continue;
      }
      this.cancel(id, 'timeout');
      // What the server had not read then: the call, and its cancellation, may not have reached it (gateway/call.ts timeoutResult).
      const unread = this.lines?.unread?.() ?? 0;
      this.deliver(this.giveUp(id), false, McpError.fromError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: entry.timeout, unread }));
    }
    if (next < Infinity) this.expireAt(next);
  };

  /** Fails every call still waiting (the connection closed); `why`: what the server did, when the gateway stopped it for that (ConnectionLost). */
  closeAll(why: string | null = null, stoppedFor: string | null = null): void {
    // Calls queued and not written yet are failed with the others (registerWritten, before `closed`).
    this.registerWritten();
    this.closed = true;
    for (const id of this.pending.keys()) this.deliver(this.remove(id), false, new ConnectionLost(why, stoppedFor));
    for (const id of [...this.lingering.keys()]) this.doneAtServer(id);
    this.clientWaiting.clear();
  }

  /** closeAll ran: the connection is gone, nothing more lingers on it. */
  private closed = false;
  /** The SDK Client's requests sent through clientRequest that the server has not answered yet, by the Client's id. */
  private readonly clientWaiting = new Set<number>();
  /** clientRequest is sending: the id of the request the Client writes now is kept in `captured`. */
  private capturing = false;
  private captured: unknown = undefined;

  /**
   * One request of the SDK Client's (`send` makes it: prompts/get, completion/complete,
   * resources/read) that lingers as a call does (DirectCallOptions.linger): when the Client gives it
   * up (its client cancelled it, or it timed out) before the server answered, `lingers.linger()` is
   * called and what it returns is ended at the server's late answer (dropped here: the Client no
   * longer waits for it), the connection's close, or `timeout` later. Until round 28 these ended
   * their origin at once, so what the server then asked or logged for them went to another session
   * (docs/threat-model.md, "Round 28", G28-4). The request's id is the one the Client writes
   * while `send` runs (the SDK's Protocol writes it synchronously).
   */
  clientRequest<T>(send: () => Promise<T>, timeout: number, lingers: Lingers): Promise<T> {
    this.capturing = true;
    this.captured = undefined;
    let request: Promise<T>;
    try {
      request = send();
    } finally {
      this.capturing = false;
    }
    const id = this.captured;
    this.captured = undefined;
    if (typeof id !== 'number' || this.closed) return request;
    this.clientWaiting.add(id);
    const answered = (): void => void this.clientWaiting.delete(id);
    request.then(answered, () => {
      // Still unanswered: the Client gave it up while the server may work on.
      if (this.clientWaiting.delete(id) && !this.closed) this.lingerFor(id, lingers, timeout);
    });
    return request;
  }

  /** Calls given up while their server may still work on them: what ends each when it is done (DirectCallOptions.linger). */
  private readonly lingering = new Map<number, { end(): void; timer: NodeJS.Timeout }>();

  /** remove() for a call the gateway stops waiting for while its server may go on: its `linger` is kept until the server is done. */
  private giveUp(id: number): CallSettle | undefined {
    const entry = this.pending.get(id);
    if (entry?.linger) this.lingerFor(id, entry.linger, entry.timeout);
    return this.remove(id);
  }

  private lingerFor(id: number, lingers: Lingers, timeout: number): void {
    const held = lingers.linger();
    const timer = setTimeout(() => this.doneAtServer(id), timeout);
    timer.unref();
    this.lingering.set(id, { end: () => held.end(), timer });
  }

  private doneAtServer(id: number): void {
    const held = this.lingering.get(id);
    if (!held) return;
    this.lingering.delete(id);
    clearTimeout(held.timer);
    held.end();
  }

  private take(message: JSONRPCMessage): boolean {
    const record = message as Record<string, unknown>;
    if (record.id !== undefined && ('result' in record || 'error' in record)) {
      const id = asId(record.id);
      const settle = this.remove(id, true);
      // A late answer to one of ours (it timed out or was cancelled) is dropped: the Client never sent it.
      if (!settle) {
        if (id !== undefined && id < FIRST_ID) return this.clientAnswer(id);
        if (id === undefined) return false;
        if (this.lingering.size > 0) this.doneAtServer(id);
        return true;
      }
      if (this.clientHandling) {
        queueMicrotask(() => this.answer(settle, record));
        return true;
      }
      this.answer(settle, record);
      return true;
    }
    if (record.method === 'notifications/progress') {
      const params = record.params as (Progress & { progressToken?: unknown }) | undefined;
      const token = asId(params?.progressToken);
      const entry = token === undefined ? undefined : this.pending.get(token);
      if (!entry || !params) return token !== undefined && token >= FIRST_ID;
      // A call sent without a token (its client asked for no progress): a server's progress for it is
      // dropped, and does not keep it alive past its timeout (docs/config.md, `timeouts.callSeconds`).
      if (entry.onprogress === undefined) return true;
      entry.deadline = monotonicNow() + entry.timeout;
      const { progressToken: _token, ...progress } = params;
      entry.onprogress?.(progress as Progress);
      return true;
    }
    return false;
  }

  /**
   * An answer to one of the SDK Client's requests: passed on to it (false), unless it is the late
   * answer of one the Client gave up while its origin lingers (clientRequest), which ends the
   * lingering and is dropped here (the Client would only report an unknown id).
   */
  private clientAnswer(id: number): boolean {
    if (this.clientWaiting.size > 0) this.clientWaiting.delete(id);
    if (this.lingering.size === 0 || !this.lingering.has(id)) return false;
    this.doneAtServer(id);
    return true;
  }

  /**
   * A line of the server's, before it is parsed: an answer to one of ours that answer-scan.ts can
   * pass on as written is taken here; anything else is parsed and goes through `take`.
   */
  private readonly takeLine = (line: string): boolean => {
    if (line.length > mostCharsFor(MAX_CHECKED_VALUES) && this.takeWide(line)) return true;
    if (!scanAnswer(line) || !this.pending.has(scanned.id)) return false;
    const text = line.slice(scanned.resultStart, scanned.resultEnd);
    const settle = this.remove(scanned.id, true)!;
    if (this.clientHandling) queueMicrotask(() => this.answerText(settle, text));
    else this.answerText(settle, text);
    return true;
  };

  /**
   * A line long enough to hold more values than an answer may (answer-entries.ts): counted on its
   * text, and an answer to one of ours past the limit is dropped unparsed. Parsing 300,000 keys of
   * a structuredContent, then walking and writing them again, took ~1 s while every other call
   * waited (round 13 review R12). Anything else goes on as usual.
   */
  private takeWide(line: string): boolean {
    const shape = jsonShape(line);
    if (shape.values <= MAX_CHECKED_VALUES || typeof shape.id !== 'number') return false;
    const settle = this.remove(shape.id, true);
    if (!settle) return false;
    const dropped = new AnswerDropped(tooManyValues(shape.values));
    if (this.clientHandling) queueMicrotask(() => this.deliver(settle, false, dropped));
    else this.deliver(settle, false, dropped);
    return true;
  }

  private answerText(settle: CallSettle, text: string): void {
    try {
      if (settle.resolveText) settle.resolveText(text);
      else settle.resolve(JSON.parse(text));
    } catch (error) {
      this.onSettleError(error);
    }
  }

  /** A server's answer (result or error) handed to where its call waits. */
  private answer(settle: CallSettle, record: Record<string, unknown>): void {
    if ('error' in record) {
      const error = (record.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
      // The transport's own answer for a call it kept back: the gateway's error, not the server's.
      if (error.data === KEPT_BACK) return this.deliver(settle, false, new RpcError(error.code as number, error.message as string));
      // The transport's own answer for a call it could not write (the server had closed its stdin): not run.
      if (error.data === NOT_WRITTEN) return this.deliver(settle, false, new LatchError('SERVER_UNAVAILABLE', error.message as string));
      // Data nested too deep to be written again is left out (see values.ts).
      const data = nestsDeeperThan(error.data) ? `[left out by mcp-latch: nested deeper than ${MAX_DEPTH} levels]` : error.data;
      this.deliver(settle, false, new ServerReplyError(typeof error.code === 'number' ? error.code : ErrorCode.InternalError, typeof error.message === 'string' ? error.message : 'error without a message', data));
    } else {
      this.deliver(settle, true, record.result);
    }
  }

  /**
   * Hands an answer on. A handler that throws would otherwise stop the loop it runs in: the rest of
   * a read's answers, a timeout sweep (and its next timer), or a close.
   */
  private deliver(settle: CallSettle | undefined, ok: boolean, value: unknown): void {
    if (!settle) return;
    try {
      if (ok) settle.resolve(value);
      else settle.reject(value);
    } catch (error) {
      this.onSettleError(error);
    }
  }

  /**
   * Removes a waiting call and its listener, and gives where its answer goes; undefined when it was
   * already settled. The entry is emptied: one that waited long is in a Map (id-slots.ts), whose
   * replaced tables keep what they held reachable until the next full collection. `answered`: the
   * server's answer is about to be passed on (DirectCallOptions.progressEnd).
   */
  private remove(id: number | undefined, answered = false): CallSettle | undefined {
    if (id === undefined) return undefined;
    const entry = this.pending.get(id);
    if (!entry) return undefined;
    this.pending.delete(id);
    entry.unlisten();
    const settle = entry.settle;
    entry.settle = SETTLED;
    entry.onprogress = undefined;
    if (entry.progressEnd !== undefined) {
      const ends = entry.progressEnd;
      entry.progressEnd = undefined;
      try {
        ends.progressEnd!(answered);
      } catch (error) {
        this.onSettleError(error);
      }
    }
    entry.linger = undefined;
    return settle;
  }

  private cancel(id: number, reason: string): void {
    if (!this.pending.has(id)) return;
    this.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }).catch(() => undefined);
  }
}

/**
 * `{ ...params, _meta: { ...params._meta, progressToken: id } }`, for a call whose client asked for
 * progress: the request's own id is its
 * progress token, as the SDK does, so progress can be matched; the caller's object is not written
 * to. Copied key by key: that literal took V8's slow define path, ~1 µs per call
 * (docs/performance.md, "Round 9: the warm path"). Symbol keys, which a spread would copy, are not JSON.
 */
function withProgressToken(params: Record<string, unknown>, id: number): Record<string, unknown> {
  const meta = params._meta as Record<string, unknown> | undefined;
  const token = meta ? { ...meta, progressToken: id } : { progressToken: id };
  const copy: Record<string, unknown> = {};
  for (const key in params) {
    if (!Object.hasOwn(params, key)) continue;
    // Only a define makes `__proto__` an own key; an assignment would set the prototype.
    if (key === '__proto__') return { ...params, _meta: token };
    copy[key] = params[key];
  }
  copy._meta = token;
  return copy;
}

/** Bytes as megabytes, one decimal. */
function megabytes(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

/**
 * A JSON-RPC error the server itself answered: passed on to the client as the server's, with its
 * code and message unchanged (an McpError would prefix "MCP error <code>:" to the message, and a
 * server's -32000 or -32001 would read as the gateway's own "connection closed" or "timed out").
 */
export class ServerReplyError extends RpcError {}

/** The connection closed while the call was at the server: it may have run. */
export class ConnectionLost extends LatchError {
  /**
   * `why`: what the server did that made the gateway stop it (it closed its stdin: child-transport.ts
   * closedPipeText), or null. `stoppedFor`: why the gateway stopped it of its own accord (a config
   * reload: Supervisor.stop), or null.
   */
  constructor(
    readonly why: string | null = null,
    readonly stoppedFor: string | null = null,
  ) {
    super('CONNECTION_CLOSED', why === null ? (stoppedFor === null ? 'the connection to the server closed' : `the server was stopped: ${stoppedFor}`) : `the server ${why}`);
  }
}

/**
 * One of our ids, as a number. A server that sends it back as a string ("1000000003") is matched
 * too, as the SDK's Client does (Number(id)); anything else is not ours.
 */
function asId(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}
