/**
 * The audit trail (docs/design.md#records): one JSON line per decided call (pino's line format), written to a
 * file next to the config by default. Arguments, the command and the text quoting them are recorded
 * with secrets redacted (redact.ts) and long values cut; the digest identifies the exact call.
 *
 * Durability: the record of a call that is forwarded is handed to the OS (written to the file)
 * before the call is sent, so killing the process loses none; what reaches the disk on power loss
 * is what the OS had flushed. The calls of one read that go on at once are forwarded inside
 * `together()`: their records are written with one write when it returns, before any of them can
 * leave (a downstream transport writes in a later microtask, never inside `send()`). Records of calls
 * that were not forwarded (denied, cancelled) are queued and written with the next forwarded
 * call's, 64 at a time, within 20 ms, or when anything is sent to a client (`flush`), whichever
 * comes first: before a denial's result leaves. Record by record, between other processes' turns
 * on the CPU, the same work costs several times more (docs/performance.md#the-hot-path).
 *
 * Fail closed: a call whose record could not be written does not leave. Outside `together()`,
 * `record()` throws for it; inside, its message is already queued at its server's transport, which
 * sees `failures` move before it writes and answers the call with the error instead
 * (downstream/child-transport.ts; a remote server's send waits a microtask for the same check).
 */
import { closeSync, constants, existsSync, fchmodSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Decision } from '../policy/types.js';
import { isoTime } from '../iso-time.js';
import { errorMessage, recordUnwritten } from '../errors.js';
import { expandHome } from '../home.js';
import { redactSecrets, redactText } from '../redact.js';
import type { Digest } from '../policy/digest.js';
import { jsonString, type ArgsJson } from '../values.js';
import { encodeShared, sharedBytes } from '../text-bytes.js';
import { escapeJson, PAST_ASCII } from '../latch/escape.js';
// escapeText and escapeJson mark look-alike words once this is loaded (escape.ts useLookAlikeMarker).
import '../latch/look-alike.js';

/** One decided call, as the audit receives it. */
export interface AuditRecord {
  session: string;
  /** The authenticated user of a team gateway's session; absent over stdio. */
  user?: string;
  server: string;
  tool: string;
  kind: string;
  decision: 'allow' | 'deny' | 'cancelled';
  /** rule, mode, grant, user, timeout, fallback, error */
  by: string;
  rule: string | null;
  reason: string;
  paths: Decision['paths'];
  command: string | null;
  /** The digest of server, tool and arguments (policy/digest.ts; '' for a call with none); a function is called when the record is written. */
  argsDigest: Digest | '' | (() => Digest | '');
  args: unknown;
  /** The text of `args` when it was made already (values.ts): written for that very object only, so never for a redacted copy. */
  argsJson?: ArgsJson;
  waitMs: number;
  note?: string;
  /** The person changed the call before approving it: the digest of the call as the model sent it (`argsDigest` and `args` are the changed call's). */
  editedFrom?: Digest;
}

export interface Audit extends RecordFailures {
  /**
   * Records a decided call; one that is allowed is written to the file before this returns (so
   * before the call is forwarded), or inside `together()` when that returns. The audit owns
   * `entry` from then on (it is completed in place). `at`: the decision's time (epoch ms) when the
   * caller has just read the clock for it (gateway/call.ts forwardNow); else read here.
   */
  record(entry: AuditRecord, at?: number): void;
  /**
   * Runs `forwardAll`, which forwards calls decided together, and writes the records it made with
   * one write before returning: nothing it sends may reach the OS before it returns.
   */
  together<T>(forwardAll: () => T): T;
  /**
   * Writes the records queued (denials, cancellations) now: called before anything is sent to a
   * client, so a denial's record reaches the OS before its result leaves, as a forward's does
   * before its call (round 15 review A9). Nothing to do when none is queued.
   */
  flush(): void;
  /** Writes what is queued and closes the file; nothing may be recorded after. */
  close(): Promise<void>;
  /**
   * How many times records could not be written (the OS refused a write, or an allowed call's
   * record could not be made). A call queued to leave before this moves, and not sent yet, may have
   * no record: it is not sent.
   */
  readonly failures: number;
  /** Why the last one failed, naming the file (`audit log /path: ENOSPC: no space left on device, write`); null before any. */
  readonly lastFailure: string | null;
}

/** What a transport holding calls until their records are written looks at (Audit's `failures` and `lastFailure`). */
export interface RecordFailures {
  readonly failures: number;
  readonly lastFailure: string | null;
  /**
   * Inside `together()`: runs `write` once its records are written, as together() returns (before
   * any other code of the turn), and answers true; outside it answers false and runs nothing. A
   * transport's queued lines leave there instead of a microtask later (docs/performance.md, "Round
   * 17: the warm path"); `write` still checks `failures`.
   */
  afterRecords?(write: () => void): boolean;
}

export function createAudit(file: string | null, onError: (error: unknown) => void = () => undefined, onNotice: (message: string) => void = () => undefined): Audit {
  if (!file) return { record: () => undefined, together: (forwardAll) => forwardAll(), flush: () => undefined, close: async () => undefined, failures: 0, lastFailure: null };
  // The file is opened here, synchronously: a record made right after start must have somewhere to go.
  mkdirSync(dirname(file), { recursive: true });
  // Writes the OS refused and allowed records that could not be made (`failures`), and the last
  // cause with the file: a write's error names only its descriptor, and the client's error is
  // where the person sees it (the log may not be read).
  let failures = 0;
  let lastFailure: string | null = null;
  const failed = (error: unknown): void => {
    failures += 1;
    lastFailure = `audit log ${file}: ${errorMessage(error)}`;
    onError(error);
  };
  const sink = new FileSink(file, failed, onError, onNotice);
  const lines = new RecordText();
  const lastTexts: LastTexts = { reason: null, redactedReason: '', rule: null, redactedRule: '' };
  // The time is the decision's, taken when the record is queued (formatted once per millisecond).
  let head = '';
  let timeOf = NaN;
  // Two parallel lists rather than a wrapper object per record, reused with a count: nothing
  // allocated per record here (emptying a list by its length gives its storage back, and the next
  // record allocated it again).
  const queued: Array<AuditRecord | null> = [];
  const queuedAt: number[] = [];
  let count = 0;
  let batchTimer: NodeJS.Timeout | null = null;
  // `now`: the time of a record queued in this very turn when there is one (the clock is read once a
  // call: docs/performance.md, "Round 28: per-call work"); what follow() compares with the last stat's.
  // `lag`: how many milliseconds old the last comparison of the path with the file may be (FileSink.follow).
  const writeQueued = (now: number = Date.now(), lag = 0): void => {
    if (batchTimer) clearTimeout(batchTimer);
    batchTimer = null;
    for (let index = 0; index < count; index++) {
      const entry = queued[index]!;
      queued[index] = null;
      try {
        const at = queuedAt[index]!;
        if (at !== timeOf) {
          timeOf = at;
          head = `${HEAD_START}${isoTime(at)}"`;
        }
        // The entry belongs to the audit once recorded: completed in place rather than copied.
        if (typeof entry.argsDigest === 'function') entry.argsDigest = entry.argsDigest();
        redactRecord(entry, lastTexts);
        const fields = lines.fixedFields(entry);
        sink.writeRecord(head, at, fields, lines.serial, lines.callFields(entry));
      } catch (error) {
        // Only an allowed call's record holds its call back: the others did not leave.
        if (entry.decision === 'allow') failed(error);
        else onError(error);
      }
    }
    count = 0;
    sink.flushSync(now, lag);
  };
  const writeAllQueued = (): void => writeQueued();
  process.on('exit', writeAllQueued);
  // Inside together(): allowed records wait for its end, where they are written at once, and then
  // the transports' writes registered by afterRecords run.
  let depth = 0;
  let allowedWaiting = false;
  const writers: Array<(() => void) | null> = [];
  let writerCount = 0;
  return {
    record(entry, at = Date.now()) {
      queuedAt[count] = at;
      queued[count] = entry;
      count += 1;
      if (entry.decision === 'allow' && depth > 0) allowedWaiting = true;
      else if (entry.decision === 'allow') {
        const before = failures;
        writeQueued(at);
        if (failures !== before) throw recordUnwritten(lastFailure);
      } else if (count >= BATCH_RECORDS) writeQueued();
      else if (!batchTimer) {
        batchTimer = setTimeout(writeAllQueued, BATCH_MS);
        batchTimer.unref();
      }
    },
    together(forwardAll) {
      depth += 1;
      try {
        return forwardAll();
      } finally {
        depth -= 1;
        if (depth === 0) {
          // The last record queued is the allowed one of this turn, or a later one: its time is now.
          const wrote = allowedWaiting;
          const at = wrote ? queuedAt[count - 1]! : 0;
          if (wrote) {
            allowedWaiting = false;
            // The path was compared with the file after the last such write (below): within FOLLOW_LAG_MS, not again before this one.
            writeQueued(at, FOLLOW_LAG_MS);
          }
          // After the write, failed or not: each writer checks `failures` and withholds the calls
          // whose records may be missing. Each runs, whatever another one throws.
          for (let index = 0; index < writerCount; index++) {
            const write = writers[index]!;
            writers[index] = null;
            try {
              write();
            } catch (error) {
              onError(error);
            }
          }
          writerCount = 0;
          // After the calls' writes: for a call at a time only the work before them is on the path
          // its client waits on (docs/performance.md, "Round 29: the call's critical path").
          if (wrote) sink.followAfter(at);
        }
      }
    },
    afterRecords(write) {
      if (depth === 0) return false;
      writers[writerCount++] = write;
      return true;
    },
    flush() {
      if (count > 0 && depth === 0) writeQueued();
    },
    async close() {
      writeQueued();
      process.off('exit', writeAllQueued);
      sink.close();
    },
    get failures() {
      return failures;
    },
    get lastFailure() {
      return lastFailure;
    },
  };
}

/** The last record's reason and rule, as given and redacted. */
interface LastTexts {
  reason: string | null;
  redactedReason: string;
  rule: string | null;
  redactedRule: string;
}

/**
 * The record's secrets replaced (redact.ts): its arguments, and the text the decision copied from
 * them (the command, a path as written, a reason or rule quoting either, the person's note). The
 * decision's own objects are not changed: a copy where a text changes.
 */
function redactRecord(entry: AuditRecord, last: LastTexts): void {
  entry.args = redactSecrets(entry.args);
  if (entry.command !== null) entry.command = redactText(entry.command);
  // A tool's calls repeat their reason and rule: the last one's text is reused, not scanned again.
  if (entry.reason !== last.reason) last.redactedReason = redactText((last.reason = entry.reason));
  entry.reason = last.redactedReason;
  if (entry.rule !== null) {
    if (entry.rule !== last.rule) last.redactedRule = redactText((last.rule = entry.rule));
    entry.rule = last.redactedRule;
  }
  if (entry.note !== undefined) entry.note = redactText(entry.note);
  if (entry.paths.length > 0) {
    entry.paths = entry.paths.map((path) => {
      // The resolved path and real path are the input made absolute: the same secret (round 18 review, L7).
      const input = redactText(path.input);
      const resolved = redactText(path.path);
      const realPath = path.realPath === null ? null : redactText(path.realPath);
      const problem = path.problem === undefined ? undefined : redactText(path.problem);
      if (input === path.input && resolved === path.path && realPath === path.realPath && problem === path.problem) return path;
      return { ...path, input, path: resolved, realPath, ...(problem === undefined ? {} : { problem }) };
    });
  }
}

/**
 * A record's JSON in two parts: the fields that describe the decision (session to command), and the
 * call's own (its digest, arguments, wait, note). The line is what `JSON.stringify(entry)` wrote
 * (pino's line before that): the same keys, in the order of AuditRecord, undefined ones left out.
 * The decision's part is the same for every call of a tool decided the same way, so its text is
 * kept while the next record's fields are equal: one JSON.stringify of the whole record cost about
 * twice the time and bytes, on the hot path, where a record is written before its call is sent.
 */
class RecordText {
  private decided: Pick<AuditRecord, 'session' | 'user' | 'server' | 'tool' | 'kind' | 'decision' | 'by' | 'rule' | 'reason' | 'command'> | null = null;
  private decidedText = '';
  /** Counts the decision texts made: fixedFields' text is the last one while this is the same (FileSink.encodeOne). */
  serial = 0;

  /** `,"session":…,"command":…`: the decision's fields. */
  fixedFields(entry: AuditRecord): string {
    const last = this.decided;
    // A decision with paths is written afresh: its list is not compared.
    const samePaths = Array.isArray(entry.paths) && entry.paths.length === 0;
    if (last && samePaths && last.session === entry.session && last.user === entry.user && last.server === entry.server && last.tool === entry.tool && last.kind === entry.kind && last.decision === entry.decision && last.by === entry.by && last.rule === entry.rule && last.reason === entry.reason && last.command === entry.command) {
      return this.decidedText;
    }
    const { session, user, server, tool, kind, decision, by, rule, reason, paths, command } = entry;
    const text = JSON.stringify({ session, user, server, tool, kind, decision, by, rule, reason, paths, command });
    this.decided = samePaths ? { session, user, server, tool, kind, decision, by, rule, reason, command } : null;
    this.decidedText = text.length > 2 ? `,${shownInFile(text.slice(1, -1))}` : '';
    this.serial += 1;
    return this.decidedText;
  }

  /** `,"argsDigest":…,"args":…,"waitMs":…` and the note and the original digest when there are. */
  callFields(entry: AuditRecord): string {
    const argsText = entry.argsJson?.textOf(entry.args);
    // A digest is written as it is: argsDigest's hex (or '') needs no escape, and only argsDigest
    // makes a Digest (policy/digest.ts); jsonString's test of its 64 characters was ~1k instructions
    // a call (docs/performance.md, "Round 23: 16 in flight").
    return `,"argsDigest":"${entry.argsDigest as Digest | ''}"${argsText === undefined ? field('args', entry.args) : `,"args":${shownInFile(argsText)}`}${field('waitMs', entry.waitMs)}${field('note', entry.note)}${entry.editedFrom === undefined ? '' : `,"editedFrom":"${entry.editedFrom}"`}`;
  }
}

/**
 * A record's JSON as `tail -f` and `less` show the file: what JSON.stringify leaves raw and a
 * terminal obeys or reorders (ECMA-48's C1 controls, U+009B being CSI; DEL; UAX #9's bidi controls;
 * zero-width and other invisible characters; U+2028/U+2029) written `\uXXXX` (latch/escape.ts
 * escapeJson): the same JSON, the same values when read back. Until round 31 the file held them raw
 * (round 30 review's "Left"; round 31 review S31-1). A text of ASCII, nearly every call's, costs one
 * test; the decision's fields are made once per decision text (RecordText).
 */
function shownInFile(json: string): string {
  return PAST_ASCII.test(json) ? escapeJson(json) : json;
}

/**
 * `,"key":value`, or nothing for a value JSON leaves out. Undefined, finite numbers and strings are
 * written without JSON.stringify where they can be, each a call into the runtime (docs/performance.md,
 * "Round 9: the warm path" and "Round 10: the answer's own bytes, and each text made once"): its text for them is nothing,
 * `String(value)`, and values.ts's jsonString.
 */
function field(key: string, value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'number' && Number.isFinite(value)) return `,"${key}":${value}`;
  if (typeof value === 'string') return `,"${key}":${shownInFile(jsonString(value))}`;
  const text = JSON.stringify(value);
  return text === undefined ? '' : `,"${key}":${shownInFile(text)}`;
}

/**
 * `text` from `from` copied into `bytes` at the same place when every character is ASCII (one byte
 * each); false, with the bytes partly written, when one is not.
 */
function copyAscii(text: string, from: number, bytes: Buffer): boolean {
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0x7f) return false;
    bytes[index] = code;
  }
  return true;
}

const BATCH_RECORDS = 64;
/**
 * How old, in milliseconds, the last comparison of the audit file's path with the file may be when
 * the records of calls forwarded together are written: each such write is followed by one
 * (FileSink.followAfter) once its calls are written, so a stat is not on the path a call waits on.
 */
const FOLLOW_LAG_MS = 1;
const BATCH_MS = 20;

const RECORD_TAIL = ',"event":"call"}\n';
/** What every record's line starts with; its time follows. */
const HEAD_START = '{"level":30,"time":"';
/** The bytes FileSink keeps a lone record's in (writeOne); a longer one is written as a batch is. */
const RECORD_BYTES = 16 * 1024;

/**
 * Where audit lines go: joined as one string and written with one system call per batch of records
 * (see above). A failed write is reported, never thrown into a call.
 *
 * One string, not a reused buffer the pieces are copied into: each `Buffer.write` was a call into
 * the runtime (~1.4k instructions, four a record), where the string is flattened and encoded once
 * per batch, at the write (docs/performance.md, "Round 14: the warm path"; text-bytes.ts).
 */
class FileSink {
  private pending = '';
  /**
   * The record queued while it is the only one (`pending` is then ''), in its three parts: a call
   * forwarded alone. Its head (the time) and decision fields are the last one's more often than
   * not, and their bytes are kept encoded in `bytes`: only its call's own fields are encoded for it
   * (writeOne; docs/performance.md, "Round 29: the call's critical path").
   */
  private oneHead = '';
  private oneAt = 0;
  private oneFields = '';
  private oneFieldsSerial = 0;
  private oneCall: string | null = null;
  /**
   * The UTF-8 bytes of the head of the time `bytesAt` (NaN: none; `headLength` characters) and of
   * the decision's fields numbered `bytesFields` (-1: none), at its start (the fields' end at
   * `fieldsEnd`), then the last lone record's call fields.
   */
  private bytes: Buffer | null = null;
  private bytesAt = NaN;
  private headLength = 0;
  private bytesFields = -1;
  private fieldsEnd = 0;
  /** The last write failed part way through a line (see writeAll). */
  private cut = false;
  private fd: number;
  /** The file `fd` is, to see whether `path` still names it. */
  private ino: number;
  private dev: number;
  /** When `path` was last compared with `fd` (ms). */
  private followedAt = 0;
  constructor(
    private readonly path: string,
    private readonly onFailure: (error: unknown) => void,
    private readonly onError: (error: unknown) => void,
    private readonly onNotice: (message: string) => void,
  ) {
    this.fd = this.open();
    ({ ino: this.ino, dev: this.dev } = fstatSync(this.fd));
  }

  /**
   * Created readable by its owner only: records hold every call's arguments (round 12 review, F10).
   * An existing file was used whatever it was (round 18 review, L9): a link is not followed, a file
   * another user owns is refused (they could read, truncate and forge the trail; the error reaches
   * the start, or fails the write, and a call whose record is not written is not forwarded), and
   * group or other bits (a file made before round 12, or by hand) are dropped, with a log line.
   */
  private open(): number {
    const fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o600);
    try {
      const stat = fstatSync(fd);
      const uid = process.getuid?.();
      // A device is held to the same rule: `/dev/null` is root's, and records sent there are not
      // kept; the way to keep none is said (round 19; docs/config.md#audit).
      if (uid !== undefined && stat.uid !== uid && !stat.isFile()) throw new Error(`the audit file ${this.path} is ${stat.isCharacterDevice() ? 'a device' : 'not a regular file'} of uid ${stat.uid}, not this user's (uid ${uid}): refused. To keep no audit trail, set "audit": { "enabled": false } in the config; otherwise set audit.file to a file of yours`);
      if (uid !== undefined && stat.uid !== uid) throw new Error(`the audit file ${this.path} belongs to uid ${stat.uid}, not to this user (uid ${uid}): refused, since its owner could read and rewrite the records; remove it or set audit.file to a file of yours`);
      // A device (/dev/null, /dev/full in a test) keeps its mode: it is not a file of records.
      if (stat.isFile() && (stat.mode & 0o077) !== 0) {
        fchmodSync(fd, stat.mode & 0o700);
        this.onNotice(`the audit file ${this.path} was readable or writable by others (mode ${(stat.mode & 0o777).toString(8)}): made ${(stat.mode & 0o700).toString(8)}`);
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  }

  /**
   * The file the config names, opened again when that name is now another file or none: rotated by
   * rename (logrotate's default), deleted, or replaced by another gateway's new file. Records went
   * to the renamed file or to a deleted one, while their calls were forwarded (round 17 review S2).
   * One stat per millisecond at most (~1-2 µs each: per batch it was a few percent of a warm call's
   * CPU), so a batch written in the millisecond a file was deleted can still go to it; the records of
   * calls forwarded together, in the two milliseconds (FOLLOW_LAG_MS), as the stat is made after
   * their calls are written (followAfter).
   */
  private follow(time: number): void {
    if (time === this.followedAt) return;
    this.followedAt = time;
    const now = statSync(this.path, { throwIfNoEntry: false });
    if (now && now.ino === this.ino && now.dev === this.dev) return;
    if (!now) mkdirSync(dirname(this.path), { recursive: true });
    const fd = this.open();
    const opened = fstatSync(fd);
    try {
      closeSync(this.fd);
    } catch (error) {
      this.onError(error);
    }
    this.fd = fd;
    this.ino = opened.ino;
    this.dev = opened.dev;
    // A line the old file was left cut in stays there; this one starts whole.
    this.cut = false;
  }

  /**
   * follow(), after a write of records whose calls have left since (Audit.together): for the next
   * write. A failure (a link put in the file's place) is reported, and the next write looks again
   * before it writes, and fails.
   */
  followAfter(time: number): void {
    try {
      this.follow(time);
    } catch (error) {
      this.followedAt = -Infinity;
      this.onError(error);
    }
  }

  /**
   * Queues the line `head` + `fields` + `callFields` + `,"event":"call"}` and a newline. `head` is
   * HEAD_START, the time `at` (isoTime) and a quote; `fieldsSerial` numbers the fields: the same
   * number, the same text.
   */
  writeRecord(head: string, at: number, fields: string, fieldsSerial: number, callFields: string): void {
    if (this.pending === '' && this.oneCall === null) {
      this.oneHead = head;
      this.oneAt = at;
      this.oneFields = fields;
      this.oneFieldsSerial = fieldsSerial;
      this.oneCall = callFields;
      return;
    }
    this.takeOne();
    this.pending += `${head}${fields}${callFields}${RECORD_TAIL}`;
  }

  /** The lone record queued, if any, moved to `pending`: a second one joins it there. */
  private takeOne(): void {
    if (this.oneCall === null) return;
    this.pending = `${this.oneHead}${this.oneFields}${this.oneCall}${RECORD_TAIL}`;
    this.oneCall = null;
  }

  close(): void {
    this.flushSync(Date.now());
    try {
      closeSync(this.fd);
    } catch (error) {
      this.onError(error);
    }
  }

  /** `now`: the time (epoch ms) follow() takes as the present; `lag`: how old its last comparison may be (FOLLOW_LAG_MS). */
  flushSync(now: number, lag = 0): void {
    if (this.oneCall !== null) {
      const call = this.oneCall;
      this.oneCall = null;
      const count = this.encodeOne(this.oneHead, this.oneAt, this.oneFields, this.oneFieldsSerial, call);
      if (count !== -1) return this.writeAll(null, count, now, lag);
      this.pending = `${this.oneHead}${this.oneFields}${call}${RECORD_TAIL}`;
    }
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.writeAll(text, 0, now, lag);
  }

  /**
   * The record `head` + `fields` + `call` + RECORD_TAIL encoded in `bytes`, from its start, its
   * head and fields encoded again only when they are not the last record's: the byte count, or -1
   * when it may not fit (written as a string then). The head is ASCII (HEAD_START and the time): a
   * new time of the same length is written in place with no call into the runtime (newTime).
   */
  private encodeOne(head: string, at: number, fields: string, fieldsSerial: number, call: string): number {
    const bytes = (this.bytes ??= Buffer.allocUnsafeSlow(RECORD_BYTES));
    if (fieldsSerial !== this.bytesFields || head.length !== this.headLength || (at !== this.bytesAt && !this.newTime(head, at, bytes))) {
      // Nothing is kept until the two are encoded whole.
      this.bytesAt = NaN;
      this.bytesFields = -1;
      if ((head.length + fields.length) * 3 > RECORD_BYTES / 2) return -1;
      this.fieldsEnd = bytes.write(`${head}${fields}`, 0, 'utf8');
      this.bytesFields = fieldsSerial;
      this.headLength = head.length;
    }
    this.bytesAt = at;
    const rest = `${call}${RECORD_TAIL}`;
    if (rest.length * 3 > RECORD_BYTES - this.fieldsEnd) return -1;
    return this.fieldsEnd + bytes.write(rest, this.fieldsEnd, 'utf8');
  }

  /**
   * The head of the time `at` written over the last one's in `bytes`, of the same length: in the
   * same second (isoTime's own text, `YYYY-MM-DDTHH:MM:SS.mmmZ`), its milliseconds' three digits;
   * else the time's characters, when ASCII (false when not). A head's text read character by
   * character first cost a call into the runtime to flatten it (~1k instructions).
   */
  private newTime(head: string, at: number, bytes: Buffer): boolean {
    const last = this.bytesAt;
    const inSecond = at % 1000;
    if (head.length === HEAD_START.length + 25 && Number.isInteger(at) && at >= 0 && last >= 0 && at - inSecond === last - (last % 1000)) {
      const digits = HEAD_START.length + 20;
      bytes[digits] = 48 + Math.floor(inSecond / 100);
      bytes[digits + 1] = 48 + (Math.floor(inSecond / 10) % 10);
      bytes[digits + 2] = 48 + (inSecond % 10);
      return true;
    }
    return copyAscii(head, HEAD_START.length, bytes);
  }

  /**
   * Writes `text` whole. A regular file takes a write whole unless it fails part way (a disk that
   * filled, a file size limit): the rest is then written from its bytes, and a write that failed
   * after part of a line was written cut that line, which is truncated away (uncut).
   */
  private writeAll(text: string | null, encoded: number, now: number, lag: number): void {
    let data: Buffer | null = null;
    let offset = 0;
    try {
      if (!(now >= this.followedAt && now - this.followedAt <= lag)) this.follow(now);
      if (this.cut) {
        writeSync(this.fd, '\n');
        this.cut = false;
      }
      if (text === null) {
        // A lone record, `encoded` bytes of `bytes` (encodeOne).
        offset = writeSync(this.fd, this.bytes!, 0, encoded);
        if (offset === encoded) return;
        data = this.bytes!.subarray(0, encoded);
      } else {
        // Encoded once into the shared buffer (text-bytes.ts); a text too long for it is written as a string.
        const bytes = encodeShared(text);
        offset = bytes === -1 ? writeSync(this.fd, text) : writeSync(this.fd, sharedBytes(), 0, bytes);
        if (offset === (bytes === -1 ? Buffer.byteLength(text) : bytes)) return;
        data = Buffer.from(text);
      }
      while (offset < data.length) offset += writeSync(this.fd, data, offset, data.length - offset);
    } catch (error) {
      if (offset > 0) this.uncut(data ?? Buffer.from(text!), offset);
      this.onFailure(error);
    }
  }

  /**
   * Takes back the part of a line a failed write left (a disk that filled): it read as the start of
   * an allowed record of a call that was not forwarded (round 13 review R9). Only when the file ends
   * with that part: another gateway appending to the same file may have written after it (round 17
   * review S2), and its record is not this one's to cut. Otherwise, or when that fails too, the next
   * write ends the line first.
   */
  private uncut(data: Buffer, written: number): void {
    const partial = written - (data.lastIndexOf(0x0a, written - 1) + 1);
    if (partial === 0) return;
    try {
      const size = fstatSync(this.fd).size;
      const end = Buffer.alloc(partial);
      const read = size >= partial ? readSync(this.fd, end, 0, partial, size - partial) : 0;
      if (read === partial && end.equals(data.subarray(written - partial, written))) ftruncateSync(this.fd, size - partial);
      else this.cut = true;
    } catch {
      this.cut = true;
    }
  }
}

/**
 * The last `count` records, or the last `count` of one user's calls, oldest first. A line that is
 * not a record (cut by a crash, written by hand or by another program) is skipped and its number
 * given to `skipped`.
 */
export function readAudit(file: string, count: number, user?: string, skipped?: (line: number) => void): Array<AuditRecord & { time: string }> {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Array<AuditRecord & { time: string }> = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      record = null;
    }
    if (!isAuditLine(record)) skipped?.(index + 1);
    else if (user === undefined || record.user === user) out.push(record);
  });
  return out.slice(-count);
}

/** The fields `mcp-latch audit` shows, of the types it shows them as (round 13 review R8: `{}` made it throw). */
function isAuditLine(value: unknown): value is AuditRecord & { time: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  const text = (key: string): boolean => typeof record[key] === 'string';
  const optional = (key: string): boolean => record[key] === undefined || typeof record[key] === 'string';
  return (
    text('time') && text('server') && text('tool') && text('decision') && text('by') && text('reason') &&
    (record.rule === null || text('rule')) && (record.command === null || text('command')) && optional('note') && optional('user') &&
    Array.isArray(record.paths) && record.paths.every((path: unknown) => typeof path === 'object' && path !== null && typeof (path as { access?: unknown }).access === 'string' && typeof (path as { path?: unknown }).path === 'string')
  );
}

/**
 * The audit file: configured (absolute, `~/…`, or relative to the config's directory), or next to the
 * config file. `join` put an absolute path under the config's directory (round 11 review).
 */
export function auditFile(config: LoadedConfig): string | null {
  if (!config.file.audit.enabled) return null;
  return resolve(config.dir, expandHome(config.file.audit.file ?? 'mcp-latch-audit.jsonl', homedir()));
}
