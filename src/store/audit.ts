import { existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import pino from 'pino';
import type { Decision } from '../policy/types.js';

/**
 * The audit trail (SPEC §9): one JSON line per decided call, written with pino to a file next to
 * the config by default. Arguments are recorded with secrets redacted and long values cut; the
 * digest identifies the exact call.
 */
export interface AuditRecord {
  session: string;
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
  argsDigest: string;
  args: unknown;
  waitMs: number;
  note?: string;
}

export interface Audit {
  record(entry: AuditRecord): void;
  flush(): Promise<void>;
}

export function createAudit(file: string | null, onError: (error: unknown) => void = () => undefined): Audit {
  if (!file) return { record: () => undefined, flush: async () => undefined };
  // The file is opened here, synchronously: a record made right after start must have somewhere to go.
  mkdirSync(dirname(file), { recursive: true });
  const sink = new BufferedFile(openSync(file, 'a'), onError);
  const timer = setInterval(() => sink.flushSync(), FLUSH_MS);
  timer.unref();
  process.on('exit', () => sink.flushSync());
  const logger = pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime, messageKey: 'event' }, sink);
  return {
    record(entry) {
      logger.info({ ...entry, args: redactSecrets(entry.args) }, 'call');
    },
    async flush() {
      sink.flushSync();
    },
  };
}

const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 1_000;

/**
 * Where pino writes audit lines: held in memory and written with one system call per 64 KB or per
 * second (and on close and exit), so at most about a second of records is at risk if the process
 * is killed. pino's own destination (sonic-boom) measured the byte length of its whole pending
 * buffer on every line and handed each write to the thread pool: under load that was a quarter
 * of the gateway's CPU per call. A failed write is reported, never thrown into a call.
 */
class BufferedFile {
  private chunks: string[] = [];
  private size = 0;

  constructor(
    private readonly fd: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  write(line: string): boolean {
    this.chunks.push(line);
    this.size += line.length;
    if (this.size >= FLUSH_BYTES) this.flushSync();
    return true;
  }

  flushSync(): void {
    if (this.size === 0) return;
    const data = Buffer.from(this.chunks.length === 1 ? this.chunks[0]! : this.chunks.join(''));
    this.chunks = [];
    this.size = 0;
    try {
      for (let offset = 0; offset < data.length; ) offset += writeSync(this.fd, data, offset);
    } catch (error) {
      this.onError(error);
    }
  }
}

const SECRET_KEY = /(token|passw(or)?d|secret|api[-_]?key|authorization|auth|credential|private[-_]?key|cookie|session[-_]?id)/i;
const MAX_STRING = 300;

/** A copy with secret-looking keys replaced and long strings shortened (file contents, scripts). */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[nested]';
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…[${value.length - MAX_STRING} more]` : value;
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => redactSecrets(item, depth + 1));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) copy[key] = SECRET_KEY.test(key) ? '[redacted]' : redactSecrets((value as Record<string, unknown>)[key], depth + 1);
    return copy;
  }
  return value;
}

/** The last `count` records of an audit file, oldest first; unreadable lines are skipped. */
export function readAudit(file: string, count: number): Array<AuditRecord & { time: string }> {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '');
  const out: Array<AuditRecord & { time: string }> = [];
  for (const line of lines.slice(-count)) {
    try {
      out.push(JSON.parse(line) as AuditRecord & { time: string });
    } catch {
      // A line cut by a crash: skip it.
    }
  }
  return out;
}

/** The audit file: configured (relative to the config's directory), or next to the config file. */
export function auditFile(config: LoadedConfig): string | null {
  if (!config.file.audit.enabled) return null;
  return join(config.dir, config.file.audit.file ?? 'mcp-latch-audit.jsonl');
}
