import { write, writeSync } from 'node:fs';
import pino, { stdSerializers, type Logger as PinoLogger, type LevelWithSilent } from 'pino';
import { PAST_ASCII } from './latch/escape.js';
import { redactLogRecord } from './redact.js';

/** The logger every module receives; created once, here. */
export type Logger = PinoLogger;

/**
 * Operational logs: pino to stderr only, because stdout is the MCP channel when serving over stdio.
 * `destination` is for tests (a sink stream).
 */
export function createLogger(options: { level?: LevelWithSilent; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? (process.env.MCP_LATCH_LOG_LEVEL as LevelWithSilent | undefined) ?? 'info',
      base: { name: 'mcp-latch' },
      // An error is made the record pino writes, then redacted like the rest (redact.ts).
      formatters: { log: (record) => redactLogRecord(record, stdSerializers.err) },
      // Made already: pino's would take the copy for an error again ("type": "Object").
      serializers: { err: (value: unknown) => value },
      hooks: { streamWrite: shownLogLine },
    },
    options.destination ?? new StderrSink(2),
  );
}

/**
 * A log line as stderr's terminal shows it: pino escapes C0 controls, quotes and backslashes, and
 * leaves C1 controls (U+009B is CSI), DEL, bidi controls, zero-width and line separators raw; a
 * server's stderr line or a tool's name holding them reordered or hid what the person read (round 30
 * review S30-5). Since round 33 (review S33-1) every character past ASCII is written `\uXXXX` (a
 * pair for one past U+FFFF), but the punctuation of the gateway's own sentences (LOG_ESCAPED): a server's
 * tool spelled with a look-alike letter (`gіthub_push`, Cyrillic `і`) read as the tool it imitates,
 * in a record's `tool` and in the sentence that names it. The same JSON; a line of ASCII is one test.
 */
export function shownLogLine(line: string): string {
  // Each line of pino's ends with its own newline, the one newline in it left raw.
  return PAST_ASCII.test(line) ? line.replace(LOG_ESCAPED, escapeUnits) : line;
}

/**
 * What the gateway's own log sentences hold past ASCII (`…`, `→`, `×`, `—`, `⟨520 spaces⟩`), kept:
 * none is a letter, a digit or a mark, none invisible. The rest past ASCII, and DEL, is escaped.
 */
// Written as escapes: esbuild leaves a regular expression's characters as they are, and the gateway's
// bundle is read as latin1 (cli/code-cache.ts; scripts/bundle.js checks it is ASCII).
const LOG_ESCAPED = /[^\u0000-\u007e\u2026\u2192\u2190\u21d2\u2014\u2013\u00d7\u00a7\u27e8\u27e9\u00b7\u2264\u2265\u23ce\u2500\u00b1\u2191\u2193]/gu;
const escapeUnits = (ch: string): string => ch.split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** A logger that drops everything (CLI commands that print their own output, unit tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** What the log holds back while stderr's reader is slow, before it drops lines (and says how many). */
const PENDING_LIMIT = 8 * 1024 * 1024;
/** At exit, how many times a full pipe (EAGAIN) is tried again before what is left is dropped. */
const EXIT_TRIES = 20;
const EXIT_PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * stderr for the log, written in order without blocking the gateway. A write error other than a
 * full pipe (EPIPE once the client that read stderr is gone) ends logging; at exit what is pending
 * is written once, synchronously, with a bounded number of tries. pino's own destination
 * (sonic-boom 4) retried any error for ever at exit, in a synchronous 100 ms sleep no signal could
 * interrupt: a gateway whose client died stayed alive (round 13 review R16).
 */
export class StderrSink {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private dropped = 0;
  private writing = false;
  private dead = false;
  private waiters: Array<() => void> = [];

  constructor(private readonly fd: number) {
    process.on('exit', () => this.flushSync());
  }

  write(chunk: string): boolean {
    if (this.dead) return true;
    if (this.pendingBytes + chunk.length > PENDING_LIMIT) {
      this.dropped += 1;
      return true;
    }
    if (this.dropped > 0) {
      this.queue(`{"level":40,"name":"mcp-latch","msg":"${this.dropped} log lines dropped: stderr was not read"}\n`);
      this.dropped = 0;
    }
    this.queue(chunk);
    if (!this.writing) this.next();
    return true;
  }

  /** Calls `done` once what is pending now has been written (or logging has ended). */
  flush(done: () => void = () => {}): void {
    if (!this.writing) done();
    else this.waiters.push(done);
  }

  private queue(text: string): void {
    const buffer = Buffer.from(text);
    this.pending.push(buffer);
    this.pendingBytes += buffer.length;
  }

  private next(): void {
    if (this.dead || this.pending.length === 0) return this.idle();
    const buffer = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.writing = true;
    write(this.fd, buffer, (error, written) => {
      if (error && error.code !== 'EAGAIN') return this.end();
      const rest = buffer.subarray(error ? 0 : written);
      if (rest.length > 0) {
        this.pending.unshift(rest);
        this.pendingBytes += rest.length;
      }
      // A full pipe: tried again soon; the timer keeps a process that is ending on its own alive until its lines are out.
      if (error) setTimeout(() => this.next(), 10);
      else this.next();
    });
  }

  private idle(): void {
    this.writing = false;
    for (const done of this.waiters.splice(0)) done();
  }

  private end(): void {
    this.dead = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.idle();
  }

  /** At exit: one synchronous write of what is pending; a full pipe is tried a few times, any other error ends it. */
  private flushSync(): void {
    if (this.dead || this.pending.length === 0) return;
    let buffer = Buffer.concat(this.pending);
    this.end();
    for (let tries = 0; buffer.length > 0 && tries < EXIT_TRIES; tries++) {
      try {
        buffer = buffer.subarray(writeSync(this.fd, buffer));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
        Atomics.wait(EXIT_PAUSE, 0, 0, 5); // the reader has 5 ms to make room
      }
    }
  }
}
