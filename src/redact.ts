import { isPlainObject } from './values.js';

/**
 * What is a secret, for logs and the audit alike (docs/design.md#records): the value of any key that
 * looks like one, at any depth, and in logs every value of a server's `env` and `headers`.
 */
const SECRET_KEY = /(token|passw(or)?d|secret|api[-_]?key|authorization|auth|credential|private[-_]?key|cookie|session[-_]?id)/i;
const REDACTED = '[redacted]';
const MAX_STRING = 300;

function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** A copy with secret-looking keys replaced and long strings shortened (file contents, scripts): what the audit records of arguments. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[nested]';
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…[${value.length - MAX_STRING} more]` : value;
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => redactSecrets(item, depth + 1));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) copy[key] = isSecretKey(key) ? REDACTED : redactSecrets((value as Record<string, unknown>)[key], depth + 1);
    return copy;
  }
  return value;
}

/**
 * A log record with secret-looking keys replaced, and every value under `env` or `headers` (a
 * server's config). Only plain objects and arrays are copied: an Error stays an Error for pino's
 * serializer. Strings are kept whole.
 */
export function redactLogRecord(record: Record<string, unknown>): Record<string, unknown> {
  return redactKeys(record, 0, false) as Record<string, unknown>;
}

function redactKeys(value: unknown, depth: number, all: boolean): unknown {
  if (depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => redactKeys(item, depth + 1, false));
  if (!isPlainObject(value) || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = all || isSecretKey(key) ? REDACTED : redactKeys(item, depth + 1, key === 'env' || key === 'headers');
  }
  return copy;
}
