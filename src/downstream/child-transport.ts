import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { StdioServer } from '../config/schema.js';
import type { Logger } from '../log.js';
import { escapeLineSeparators, LineReader, megabytes, oversizedText, parseMessage, QUEUED, serializeMessage, type LineSending, type LineTaking, type Oversized } from './lines.js';
import { KEPT_BACK, LatchError, NOT_WRITTEN, recordUnwritten } from '../errors.js';
import { escapeText } from '../latch/escape.js';
import { cutAtWord } from '../redact.js';
import type { RecordFailures } from '../store/audit.js';
import { PipeOut, pipeFd, readIntoSharedBuffer, readRest, watchPeerClose } from './pipes.js';
import { readEnded, readStarted } from '../read-end.js';
import { monotonicNow } from '../monotonic.js';
import { ownAnswer } from './own-answer.js';
import { OwnAnswers } from './server-requests.js';

/**
 * A stdio client transport that owns its whole process tree. The SDK's StdioClientTransport signals
 * only the direct child, so `npx` → `sh` → `node` grandchildren outlive the gateway
 * (https://github.com/modelcontextprotocol/typescript-sdk/issues/2023). Here the child leads its own process group on POSIX and close() signals
 * the group; on Windows `taskkill /T` kills the tree.
 *
 * Environment: the SDK's default inherited variables plus the configured `env`, exactly what the
 * client (Claude Desktop, Cursor) gave the server before mcp-latch was put in front of it.
 */
export interface ChildTransportOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Called with each line the child writes to stderr. */
  onStderrLine?: (line: string) => void;
  /** The largest message the child may send (`limits.messageMB`). */
  maxMessageBytes: number;
  /** The gateway's log (for the server's requests it drops); asked for at the first. */
  logger?: () => Logger;
}

/**
 * The variables a server inherits by default: the SDK's list (client/stdio.js, 1.32.2), kept here
 * because importing that module loads the SDK's whole protocol schema first (~70 ms), and `serve`
 * starts its servers before it loads that (downstream/prespawn.ts).
 */
const INHERITED_ENV = process.platform === 'win32'
  ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
  : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

export function defaultEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    // Security: exported shell functions are not passed on.
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return env;
}

/** The transport of a stdio server: its process, with its stderr lines in the log (`logger` is asked for at the first). */
export function childTransport(config: StdioServer, logger: () => Logger, maxMessageBytes: number): ChildTransport {
  return new ChildTransport({
    maxMessageBytes,
    logger,
    command: config.command,
    args: config.args ?? [],
    env: config.env ?? {},
    ...(config.cwd ? { cwd: config.cwd } : {}),
    onStderrLine: stderrLog(logger),
  });
}

/** The stderr lines of one server logged at info in a window of STDERR_WINDOW_MS; the rest of the window's are counted (stderrLog). */
export const STDERR_LOGGED_LINES = 100;
export const STDERR_WINDOW_MS = 10_000;

/**
 * The log of a server's stderr: the first STDERR_LOGGED_LINES lines of a window at info, the rest of
 * the window at debug (built only when debug is on: each is redacted), then one warning with their
 * count. A server's flood was a record each: ~11 MB/s of log, the gateway's one thread busy
 * redacting them (round 27 review, P27-4; as relay.ts refusalLog for refusals). The tail kept for
 * its errors (stderrTail) takes every line.
 */
function stderrLog(logger: () => Logger): (line: string) => void {
  let logged = 0;
  let more = 0;
  let window: NodeJS.Timeout | null = null;
  return (line) => {
    if (window === null) {
      window = setTimeout(() => {
        window = null;
        logged = 0;
        if (more > 0) logger().warn({ more }, `${more.toLocaleString('en-US')} more stderr lines of this server in ${STDERR_WINDOW_MS / 1000} s past the ${STDERR_LOGGED_LINES} logged (each at debug level)`);
        more = 0;
      }, STDERR_WINDOW_MS);
      window.unref();
    }
    if (logged < STDERR_LOGGED_LINES) {
      logged += 1;
      logger().info(stderrRecord(line), 'server stderr');
      return;
    }
    more += 1;
    if (logger().isLevelEnabled('debug')) logger().debug(stderrRecord(line), 'server stderr');
  };
}

/** What was cut is said in a field of its own: inside the line, redaction may take it for a value (`token=…`). */
function stderrRecord(line: string): { stderr: string; cut?: string } {
  return line.length > STDERR_LOGGED ? { stderr: cutAtWord(line, STDERR_LOGGED), cut: `${line.length - STDERR_LOGGED} more characters; the log keeps ${STDERR_LOGGED} of a server's stderr line` } : { stderr: line };
}

const GRACE_MS = 2_000;
/**
 * How long a second stop signal lets the servers' process groups exit on SIGTERM before the gateway's
 * exit SIGKILLs them (terminateAll; cli/run-until-stopped.ts, cli/serve-boot.ts): within the 2 s an SDK
 * client waits after its SIGTERM before its SIGKILL, which the gateway's exit would not survive to
 * pass on (review of round 20 faults, F2).
 */
export const NOW_GRACE_MS = 1_000;
/**
 * A server counts as not reading its input (direct-calls.ts) once what was written to it has waited
 * STALL_MS while it read less than STALL_PROGRESS of it: progress over time, not the size alone. Until
 * round 28 any byte read started the second again, so a server reading a byte at a time never
 * counted, however little it read (docs/threat-model.md, "Round 28", G28-2). A server that reads
 * 16 KiB a second or more is reading (any server's read takes 4 KiB or more at a time, and the
 * pipe gives the gateway room a page at a time); a byte at a time is not.
 */
const STALL_MS = 1_000;
const STALL_PROGRESS = 16 * 1024;

/**
 * A server's answer read alone is followed by a short wait for the rest of its burst (readRest,
 * docs/performance.md, "Round 26: calls in flight") when at least BURST_CALLS more of its calls wait
 * (fewer: the answers still to come are not a burst, and a call at a time never waits), and its last
 * read was under BURST_GAP_MS ago (answers streaming, not a slow tool's). BURST_WAIT_US is the
 * futex's timeout; the kernel's timer slack for a thread (50 µs by default) lengthens it.
 */
const BURST_CALLS = 4;
const BURST_GAP_MS = 1;
const BURST_WAIT_US = 20;
const STDERR_TAIL_LINES = 5;
/**
 * The characters of a server's stderr line kept, in the tail and in the log (a line may be 64,000):
 * a line is redacted before it is logged, on the gateway's one thread (round 26 review, review26p
 * P2; docs/threat-model.md "Secrets in records").
 */
const STDERR_LOGGED = 500;
/**
 * How long after a server's pipe closed the transport waits for its exit before it takes the server
 * as still running and stops it: a process that exits closes its pipes first, and its exit is told
 * a moment later. Only what the texts say depends on it (it exited, or it closed a pipe).
 */
const PIPE_CLOSED_GRACE_MS = 200;

/**
 * A stdio pipe a server closed while it ran on; `input`: it left its stdin unread while the gateway's
 * answers to its own requests queued for it (STUCK_FACTOR).
 */
export type ClosedPipe = 'stdin' | 'stdout' | 'input';

/** What a server that closed `pipe` can no longer do, for every text that says so (docs/design.md, crash handling). */
export function closedPipeText(pipe: ClosedPipe): string {
  if (pipe === 'input') return `stopped reading its input (what was written to it waited unread, more than ${STUCK_FACTOR} × limits.messageMB)`;
  return pipe === 'stdin' ? 'closed its stdin (it reads nothing more)' : 'closed its stdout (it can answer nothing more)';
}

/**
 * How much may wait unread for a server, in limits.messageMB, before it is taken as stuck and
 * stopped (then started again with the backoff) as one that closed its stdin is. No request of the
 * gateway's is written past limits.messageMB unread (calls: direct-calls.ts; the others: send), so
 * its requests alone stay under twice it; what goes past it is the gateway's answers to the server's
 * own requests: a server that stopped reading and sent `ping`s queued their answers without bound,
 * until the gateway's heap ran out (round 27 review, P27-3). Until round 28 only calls were held
 * back: three prompts/get of 8 MB to a server busy for a few seconds had it stopped as stuck, mid-call
 * (round 28 review, P28-3).
 */
const STUCK_FACTOR = 2;

/** Every live child, so a gateway exiting abruptly can still kill what it started. */
const liveGroups = new Set<ChildTransport>();
let exitHookInstalled = false;

export class ChildTransport implements Transport, LineTaking, LineSending {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  takeLine: ((line: string) => boolean) | undefined = undefined;
  callsWaiting: (() => number) | undefined = undefined;
  written: (() => void) | undefined = undefined;
  /** The server's stdout, read here too when its answers come one at a time (readRest); null: only by its stream. */
  private stdoutFd: number | null = null;
  /** When the last read of the server's stdout was handled (monotonicNow() ms). */
  private lastRead = -Infinity;

  private child: ChildProcess | undefined;
  private reader: LineReader;
  /** The child's stdin, written with one system call when it holds nothing queued (pipes.ts). */
  private stdin: PipeOut | null = null;
  /** close() was called or the child exited: no more writes. */
  private closed = false;
  private notified = false;
  private exited: Promise<void> | undefined;
  /** Messages sent in the current tick, joined as they come and written together on the next. */
  private outgoing = '';
  /** The audit's failures (store/audit.ts), and their count when the first message of `outgoing` was queued. */
  private records: RecordFailures | null = null;
  private failuresAtQueue = 0;
  private starting: Promise<void> | null = null;
  /** The server's process group (its pid), while what is left of it may still have to be killed. */
  private group: number | null = null;
  /**
   * Since when what was written to the server's stdin has waited while the server read less than
   * STALL_PROGRESS of it (null: it is empty), and what the server had read by then (`sent` less what waited).
   */
  private backlogSince: number | null = null;
  private readAtMark = 0;
  /** Bytes read from the server's stdout, all told, and by the mark: a server writing its answers is working through its input. */
  private outputRead = 0;
  private outputAtMark = 0;
  /** The server sent requests the gateway answers itself since the mark: its output is no sign that it reads (a `ping` flood, P27-3). */
  private ownSinceMark = false;
  /** What the gateway and the server had waited for a CPU by the mark (ms, cpuWaitMs). */
  private cpuWaitAtMark = 0;
  /**
   * Bytes handed to the server's stdin while some of it waited, all told: what it has read is this
   * less what waits (PipeOut.waiting, in bytes too). A text the pipe takes whole with nothing waiting
   * is not counted: no backlog's progress spans it (its mark is made after it). Until round 29 this
   * counted characters and what waited was partly bytes: a server sent non-ASCII text read as
   * progressing less than it did.
   */
  private sent = 0;
  /** The last lines the child wrote to stderr: why a server that will not start does not. */
  readonly stderrTail: string[] = [];
  /** The server closed its stdin (or it is exiting): nothing more is written to it. */
  private inputClosed = false;
  /** The pipe whose close made the transport stop the server while it ran on; null: it exited or was closed. */
  stoppedFor: ClosedPipe | null = null;
  /** Stops the server's process group (set once it is spawned). */
  private stopGroup: (() => void) | null = null;
  /** The server's requests, those the gateway answers itself and those it relays, each at most 100 a second (server-requests.ts); past them its stdout is not read until the window ends. */
  private readonly ownAnswers = new OwnAnswers((fields, message) => this.options.logger?.().warn(fields, message), undefined, {
    stop: () => {
      this.readPaused = true;
      this.child?.stdout?.pause();
    },
    resume: () => {
      this.readPaused = false;
      if (!this.closed) this.child?.stdout?.resume();
    },
  });
  /** The server's stdout is not read until the window ends: it sent more requests than OWN_ANSWERS_PER_WINDOW. */
  private readPaused = false;

  constructor(private readonly options: ChildTransportOptions) {
    this.reader = new LineReader(options.maxMessageBytes);
  }

  /**
   * Holds the calls sent here to the audit's rule (docs/design.md#records): a tools/call queued
   * before a write of records failed and unsent until after it is not written to the server, but
   * answered with the error. A call's record is written after its send() and before the write here
   * (inside `Audit.together()`), so this is the last point at which it can still be kept back.
   */
  holdCallsOn(records: RecordFailures): void {
    this.records = records;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Spawns the child. Calling it again returns the same promise: a server started early (prespawn.ts) is started once. */
  start(): Promise<void> {
    this.starting ??= this.spawnChild();
    return this.starting;
  }

  private async spawnChild(): Promise<void> {
    installExitHook();
    // On Windows through cross-spawn (PATHEXT, `.cmd` shims, shebangs), loaded there only: elsewhere
    // it is child_process.spawn with its arguments copied, and loading it (which, isexe, path-key,
    // shebang-command) was ~0.4 ms of CPU before the first spawn, where no server's boot overlaps it
    // (docs/performance.md, "Round 22: start"). No await on the other systems: the spawn stays synchronous.
    const spawn = process.platform === 'win32' ? ((await import('cross-spawn')).default as unknown as typeof spawnProcess) : spawnProcess;
    await new Promise<void>((resolveStart, rejectStart) => {
      const child = spawn(this.options.command, this.options.args, {
        env: { ...defaultEnvironment(), ...this.options.env },
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
        // Security: a group of its own so the whole tree can be signalled on close.
        detached: process.platform !== 'win32',
      });
      this.child = child;
      // Counted from here, not from 'spawn': a gateway stopped before that event still kills the group (exit hook).
      this.group = child.pid ?? null;
      if (this.group !== null) liveGroups.add(this);
      this.exited = new Promise((done) => child.once('close', () => done()));
      child.once('error', (error) => {
        liveGroups.delete(this);
        rejectStart(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolveStart());
      // The process we started is the server: once it is gone, what is left of its group is not
      // supervised by anyone (a wrapper's child that ignores stdin EOF, commands the server
      // started). The group gets SIGTERM, then SIGKILL after the grace, whatever its pipes do: a
      // command that ignores SIGTERM and does not hold them ran on for ever once the pipes closed
      // at once (review of round 20 faults, F9). Until then it stays in `liveGroups`, so a gateway
      // exiting meanwhile kills it too.
      const stopGroup = () => {
        if (this.closed) return;
        this.closed = true;
        killTree(child, 'SIGTERM');
        const force = setTimeout(() => {
          killTree(child, 'SIGKILL');
          liveGroups.delete(this);
          this.group = null;
        }, GRACE_MS);
        force.unref();
      };
      this.stopGroup = stopGroup;
      child.once('exit', stopGroup);
      // A server that closed its stdout can answer nothing more, and one that closed its stdin can
      // read nothing more: it is stopped as if it had exited, so its calls are answered when it is
      // gone (close, below) and it is started again with the backoff. Running on, it held every call
      // for timeouts.callSeconds (round 13 review R11; its stdin, round 26). A process that exits
      // closes its pipes too, and its exit is told a moment later: it is stopped for the pipe only
      // when it has not exited by then, so the texts say which it was.
      const pipeClosed = (pipe: ClosedPipe) => {
        if (pipe === 'stdin') this.inputClosed = true;
        if (this.closed) return;
        setTimeout(() => {
          if (this.closed || child.exitCode !== null || child.signalCode !== null) return;
          this.stoppedFor ??= pipe;
          stopGroup();
        }, PIPE_CLOSED_GRACE_MS).unref();
      };
      child.stdout?.once('end', () => pipeClosed('stdout'));
      if (child.stdin) watchPeerClose(child.stdin, () => pipeClosed('stdin'));
      child.once('close', () => {
        // Its group is let go by stopGroup's SIGKILL, or by close() below.
        if (!this.closed) liveGroups.delete(this);
        this.child = undefined;
        this.closed = true;
        this.notifyClosed();
      });
      child.stdin?.on('error', (error: NodeJS.ErrnoException) => {
        // The server closed its stdin (a write met its closed end): not a transport fault to report on its own.
        if (error.code === 'EPIPE' || error.code === 'ECONNRESET') pipeClosed('stdin');
        else this.onerror?.(error);
      });
      // Destroyed by an error, or its end closed: nothing more can be written.
      child.stdin?.once('close', () => pipeClosed('stdin'));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      // What waits for the server in bytes, as `sent` counts (progressed).
      this.stdin = child.stdin ? new PipeOut(child.stdin, pipeFd(child.stdin), true) : null;
      // Read into the shared buffer when this Node allows it (pipes.ts); its reader then copies the start of a line it keeps.
      if (child.stdout && readIntoSharedBuffer(child.stdout, this.onStdout)) {
        this.reader = new LineReader(this.options.maxMessageBytes, true);
        this.stdoutFd = pipeFd(child.stdout);
      } else child.stdout?.on('data', this.onStdout);
      let pending = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => {
        pending += text;
        let newline = pending.indexOf('\n');
        while (newline >= 0) {
          const line = pending.slice(0, newline).replace(/\r$/, '');
          pending = pending.slice(newline + 1);
          if (line.trim() !== '') this.stderrLine(line);
          newline = pending.indexOf('\n');
        }
        // A server that never ends a line must not grow memory without bound.
        if (pending.length > 64_000) {
          this.stderrLine(pending);
          pending = '';
        }
      });
    });
  }

  private stderrLine(line: string): void {
    if (this.stderrTail.push(line.length > STDERR_LOGGED ? `${cutAtWord(line, STDERR_LOGGED)}…` : line) > STDERR_TAIL_LINES) this.stderrTail.shift();
    this.options.onStderrLine?.(line);
  }

  /**
   * The reader's callbacks are made once, not two closures for every read (docs/performance.md,
   * "Round 10"). The replies this read's answers make for the client are written as it returns
   * (read-end.ts).
   */
  private readonly onStdout = (chunk: Buffer, bytes = chunk.length): void => {
    this.outputRead += bytes;
    try {
      readStarted();
      try {
        const lines = this.reader.push(chunk, this.receive, this.refuse, bytes);
        // One answer alone while more of this server's calls wait, and answers streaming (the last
        // read under BURST_GAP_MS ago): the rest of the burst is waited for a few microseconds and
        // taken in this read, its replies in the same write to the client (pipes.ts, readRest).
        const now = monotonicNow();
        if (lines === 1 && this.stdoutFd !== null && !this.readPaused && now - this.lastRead < BURST_GAP_MS && (this.callsWaiting?.() ?? 0) >= BURST_CALLS) {
          const rest = readRest(this.stdoutFd, BURST_WAIT_US);
          if (rest !== null) this.reader.push(rest, this.receive, this.refuse);
        }
        this.lastRead = now;
      } finally {
        readEnded();
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
  };

  /** A message over the limit answers the request it was the response to, at once, with why. */
  private readonly refuse = (oversized: Oversized): void => {
    const text = oversizedText("the server's message", oversized, this.reader.maxBytes);
    this.onerror?.(new LatchError('MESSAGE_TOO_LARGE', `${text} (dropped${oversized.id === null ? '' : `; it answered request ${oversized.id}`})`));
    // Marked as the gateway's (remote-bounds.ts): a tools/call's text then says the call was forwarded (round 16 review H7).
    if (oversized.id !== null) this.onmessage?.({ jsonrpc: '2.0', id: oversized.id, error: { code: -32603, message: `mcp-latch: ${text}`, data: ownAnswer('too-large', text) } });
  };

  private readonly receive = (line: string): void => {
    if (this.takeLine?.(line) || line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = parseMessage(line);
    } catch (error) {
      // A non-JSON line on stdout (a noisy server): report it and keep reading.
      this.onerror?.(new LatchError('MESSAGE_INVALID', `ignored a line that is not JSON-RPC: ${(error as Error).message}`, { cause: error }));
      return;
    }
    if ('method' in message && 'id' in message) {
      // Its requests are answered on its stdin, relayed ones too: its output is no sign that it reads.
      this.ownSinceMark = true;
      if (!this.ownAnswers.takes(message.method)) return;
    }
    // What throws while a message is handled is reported, and the lines after it in the read are
    // still read: an answer to an id never sent, nested 100,000 levels deep, overflowed the stack in
    // the SDK Client's "unknown message ID" error and the rest of the read was lost, its calls'
    // answers with it (round 33 review, P33-6).
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  };

  send(message: JSONRPCMessage): Promise<void> {
    // A request (prompts/get, resources/read, a completion…) is held back as a call is (direct-calls.ts):
    // not written behind more than limits.messageMB that has waited unread for a second (STUCK_FACTOR).
    if ('method' in message && 'id' in message) {
      const unread = this.unread();
      if (unread > this.options.maxMessageBytes) return Promise.reject(new LatchError('SERVER_UNAVAILABLE', `the server is not reading its input: ${megabytes(unread)} MB written to it have waited unread for over a second, more than limits.messageMB (${megabytes(this.options.maxMessageBytes)} MB)`));
    }
    return this.sendLine(serializeMessage(message));
  }

  /** What the server has not read of what was written to its stdin yet (lines.ts, LineSending). */
  unread(): number {
    // The rest libuv holds for a write of PipeOut's own included (pipes.ts).
    const waiting = this.child?.stdin && this.stdin ? this.stdin.waiting : 0;
    if (waiting === 0 || this.backlogSince === null) return 0;
    // Only a backlog of which the server read less than STALL_PROGRESS in STALL_MS: a burst of large
    // calls waits for a server that reads, and is no sign it stopped. Until round 26 the backlog had
    // to empty within the second: a 14 MB burst read steadily but slower than that (a loaded machine)
    // was refused. Until round 28 a byte read was progress enough.
    const now = monotonicNow();
    this.progressed(waiting, now);
    if (now - this.backlogSince < STALL_MS) return 0;
    // The time the gateway or the server waited for a CPU is not the server's: on a machine at a
    // load over 20 either waited over a second (test/faults/deaf-server.test.ts, round 28).
    if (now - this.backlogSince - (this.cpuWaitMs() - this.cpuWaitAtMark) < STALL_MS) return 0;
    return waiting;
  }

  /**
   * How long the gateway's thread and the server's process have waited runnable for a CPU, all told,
   * in ms: the second field of Linux's /proc/PID/schedstat (ns), read only when a backlog's mark
   * moves and when it is a second old; 0 for what cannot be read (another system; a server behind
   * a wrapper is its wrapper's process, which sleeps).
   */
  private cpuWaitMs(): number {
    return waitedForCpu('/proc/thread-self/schedstat') + (this.child?.pid === undefined ? 0 : waitedForCpu(`/proc/${this.child.pid}/schedstat`));
  }

  /**
   * The server read STALL_PROGRESS or more since the mark, or wrote as much (and no request the
   * gateway answers itself): the mark moves to now. A server that answers a burst of large calls
   * blocks writing each answer until the gateway has read it, and reads nothing meanwhile: on a
   * machine at a load over 20 the gateway took over a second to read one, and its next call was
   * refused as "not reading" (test/faults/deaf-server.test.ts, round 28).
   */
  private progressed(waiting: number, now: number): void {
    const read = this.sent - waiting;
    if (read - this.readAtMark < STALL_PROGRESS && (this.ownSinceMark || this.outputRead - this.outputAtMark < STALL_PROGRESS)) return;
    this.mark(now, read);
  }

  private mark(now: number, read: number): void {
    this.cpuWaitAtMark = this.cpuWaitMs();
    this.backlogSince = now;
    this.readAtMark = read;
    this.outputAtMark = this.outputRead;
    this.ownSinceMark = false;
  }

  get unreadLimit(): number {
    return this.options.maxMessageBytes;
  }

  /** A line made elsewhere (lines.ts, LineSending: a call made from its arguments' text, direct-calls.ts). */
  sendLine(line: string): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.stoppedFor !== null) return Promise.reject(this.unwritable(this.stoppedFor));
    if (!stdin || this.closed) return Promise.reject(new LatchError('SERVER_UNAVAILABLE', `the server process (${escapeText(this.options.command)}) is not running`));
    if (this.inputClosed) return Promise.reject(this.unwritable('stdin'));
    // Messages sent in the same turn go out in one write, joined by hand: as the audit's together()
    // that sent them returns, right after it has written their records, or else a microtask later
    // (docs/performance.md#the-hot-path, "Round 13: the warm path", "Round 17: the warm path"). The
    // stream buffers what the pipe cannot take yet (pipes.ts).
    if (this.outgoing === '') {
      if (!this.records?.afterRecords?.(this.flushOutgoing)) void QUEUED.then(this.flushOutgoing);
      this.failuresAtQueue = this.records?.failures ?? 0;
    }
    this.outgoing += line;
    return QUEUED;
  }

  /** Writes what was queued; never throws (run by the audit's together() or as a microtask). */
  private readonly flushOutgoing = (): void => {
    if (this.outgoing === '') return;
    let text = this.outgoing;
    this.outgoing = '';
    try {
      // The calls' owner makes their entries before any is answered here (LineTaking.written).
      if (this.records && this.records.failures !== this.failuresAtQueue) {
        this.written?.();
        text = this.withholdCalls(text);
      }
      const stdin = this.stdin;
      // The server closed its stdin (or stdout) since this was queued: none of it is written.
      if ((this.inputClosed || this.stoppedFor !== null) && text !== '') {
        this.written?.();
        this.answerUnwritten(text);
      } else if (stdin && this.child?.stdin && !this.closed && text !== '') {
        // Refused with none of it written: the server had closed its stdin. U+2028/2029 escaped (lines.ts).
        const line = escapeLineSeparators(text);
        const before = stdin.waiting;
        const accepted = stdin.write(line);
        // What is not needed before the write comes after it: for a call at a time, only the work
        // before it is on the path the client waits on (docs/performance.md, "Round 29: the call's critical path").
        this.written?.();
        // Since when the server's input has waited while it read too little of it (unread()).
        if (before === 0) this.backlogSince = null;
        else if (this.backlogSince !== null) this.progressed(before, monotonicNow());
        if (!accepted) {
          this.inputClosed = true;
          this.answerUnwritten(text);
        }
        const after = stdin.waiting;
        if (before > 0 || after > 0) this.sent += Buffer.byteLength(line);
        if (this.backlogSince === null && after > 0) this.mark(monotonicNow(), this.sent - after);
        // Stuck: stopped as if it had closed its stdin (its calls answered, started again with the backoff).
        if (this.unread() > STUCK_FACTOR * this.options.maxMessageBytes && this.stoppedFor === null) {
          this.stoppedFor = 'input';
          this.stopGroup?.();
        }
      }
    } catch (error) {
      // A throw would be an unhandled rejection (a microtask) or end the audit's together().
      this.onerror?.(error as Error);
    } finally {
      // Written or not (a closed transport drops it), no call is left without its entry: closeAll answers it.
      this.written?.();
    }
  };

  /**
   * `text` without its tools/call requests, each answered with the error instead, as refuse()
   * answers: their records may not be in the audit file. Off the hot path (a write just failed), so
   * the lines are parsed again.
   */
  private withholdCalls(text: string): string {
    const kept: string[] = [];
    const withheld: Array<string | number> = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const message = JSON.parse(line) as { method?: unknown; id?: unknown };
      if (message.method === 'tools/call' && (typeof message.id === 'number' || typeof message.id === 'string')) withheld.push(message.id);
      else kept.push(`${line}\n`);
    }
    const { code, message } = recordUnwritten(this.records?.lastFailure ?? null);
    for (const id of withheld) this.onmessage?.({ jsonrpc: '2.0', id, error: { code, message, data: KEPT_BACK } });
    return kept.join('');
  }

  /** Why a message cannot be written now: the server closed its stdin (or its stdout, and was stopped for it). */
  private unwritable(pipe: ClosedPipe): LatchError {
    return new LatchError('SERVER_UNAVAILABLE', `the server process (${escapeText(this.options.command)}) ${closedPipeText(pipe)}: the call was not written to it; the server is stopped and started again`);
  }

  /**
   * The requests in `text`, which never reached the server (it had closed its stdin), each
   * answered in its place, with NOT_WRITTEN as the error's data (direct-calls.ts answers a call with
   * it as not run). Off the hot path, so the lines are parsed again.
   */
  private answerUnwritten(text: string): void {
    const { message } = this.unwritable(this.stoppedFor ?? 'stdin');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const request = JSON.parse(line) as { method?: unknown; id?: unknown };
      if (typeof request.method === 'string' && (typeof request.id === 'number' || typeof request.id === 'string')) {
        this.onmessage?.({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message, data: NOT_WRITTEN } });
      }
    }
  }

  /** End stdin, wait, then SIGTERM and SIGKILL the whole process group. */
  async close(): Promise<void> {
    const child = this.child;
    const exited = this.exited;
    if (!child || !exited) {
      this.closed = true;
      this.notifyClosed();
      return;
    }
    // What was sent in this tick (a last notifications/cancelled) still goes out before stdin ends.
    this.flushOutgoing();
    this.closed = true;
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    const gone = (ms: number) => Promise.race([exited.then(() => true), delay(ms).then(() => false)]);
    if (!(await gone(GRACE_MS))) {
      killTree(child, 'SIGTERM');
      if (!(await gone(GRACE_MS))) {
        killTree(child, 'SIGKILL');
        await gone(GRACE_MS);
      }
    }
    // The leader may be gone while descendants linger in its group (a server that forked workers).
    killTree(child, 'SIGKILL');
    liveGroups.delete(this);
    this.group = null;
    this.notifyClosed();
  }

  private notifyClosed(): void {
    if (this.notified) return;
    this.notified = true;
    this.onclose?.();
  }

  /** Kill immediately, synchronously: used when the gateway itself is exiting. */
  killNow(): void {
    if (this.group !== null) killTree({ pid: this.group }, 'SIGKILL');
  }

  /** SIGTERM to the server's process group now (terminateAll); its group, or null when none is left. */
  terminateNow(): number | null {
    if (this.group !== null) killTree({ pid: this.group }, 'SIGTERM');
    return this.group;
  }
}

/** The second field of a /proc schedstat file (ns waited runnable for a CPU), in ms; 0 when it cannot be read. */
function waitedForCpu(file: string): number {
  if (process.platform !== 'linux') return 0;
  try {
    const waited = Number(readFileSync(file, 'latin1').split(' ')[1]);
    return Number.isFinite(waited) ? waited / 1e6 : 0;
  } catch {
    return 0;
  }
}

/**
 * Every server's process group is sent SIGTERM now; resolves once none of them is left, or after
 * `ms`. A second stop signal's step before the exit, whose hook SIGKILLs what is left
 * (run-until-stopped.ts): SIGKILLed at once, a server that saves its state on SIGTERM lost it at
 * every stop by an SDK client (its SIGTERM comes 2 s after stdin EOF, as the gateway's own to the
 * server did; round 21 review, review-diff21 R3).
 */
export async function terminateAll(ms: number): Promise<void> {
  const groups = [...liveGroups].map((transport) => transport.terminateNow()).filter((group): group is number => group !== null);
  const deadline = performance.now() + ms;
  while (groups.some(groupAlive) && performance.now() < deadline) await delay(20);
}

function groupAlive(group: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-group, 0);
    return true;
  } catch (error) {
    // EPERM: a member runs as another user, still there.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killTree(child: { readonly pid?: number | undefined }, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (process.platform === 'win32') {
    spawnProcess('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => undefined);
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const transport of liveGroups) transport.killNow();
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}
