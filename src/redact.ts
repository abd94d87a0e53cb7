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

/**
 * A copy with secret-looking keys replaced and long strings shortened (file contents, scripts): what
 * the audit records of arguments. Plain data with nothing to replace is returned as it is, not
 * copied: nearly every call's arguments, and the copy was made for every audited call.
 */
export function redactSecrets(value: unknown): unknown {
  return keptAsIs(value, 0) ? value : redactedCopy(value, 0);
}

/** True when the copy would serialise as `value` does: plain data, no secret-looking key, no long string, not too deep. */
function keptAsIs(value: unknown, depth: number): boolean {
  if (depth > 8) return false;
  if (typeof value === 'string') return value.length <= MAX_STRING;
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    if (value.length > 50) return false;
    for (let index = 0; index < value.length; index++) if (!keptAsIs(value[index], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    // The copy drops an own `__proto__` key (assigning it sets the copy's prototype).
    if (key === '__proto__' || isSecretKey(key) || !keptAsIs((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function redactedCopy(value: unknown, depth: number): unknown {
  if (depth > 8) return '[nested]';
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…[${value.length - MAX_STRING} more]` : value;
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => redactedCopy(item, depth + 1));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) copy[key] = isSecretKey(key) ? REDACTED : redactedCopy((value as Record<string, unknown>)[key], depth + 1);
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
