/** A JSON object (not null, not an array): what arguments, results and config entries must be. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * How deep a JSON value may nest (arguments, results, error data). Everything that walks a value
 * (digest, audit, escaping, result check, the write to the client) recurses, and a value nested a
 * few thousand levels overflows the stack: such values are refused where they arrive.
 */
export const MAX_DEPTH = 100;

/**
 * True when `value` nests arrays or objects deeper than `limit` levels. Recursion stops at `limit`
 * frames, so it cannot overflow; it allocates nothing (it runs on every call's arguments and result).
 */
export function nestsDeeperThan(value: unknown, limit: number = MAX_DEPTH): boolean {
  walkLeft = Infinity;
  return deeper(value, limit);
}

/**
 * nestsDeeperThan, walking at most `budget` values: null when `value` holds more (the walk stopped
 * there). A remote server's result of a million keys was walked whole, on the one thread every
 * call waits on (round 16 review H4).
 */
export function nestsDeeperWithin(value: unknown, budget: number, limit: number = MAX_DEPTH): boolean | null {
  walkLeft = budget;
  const deep = deeper(value, limit);
  const left = walkLeft;
  walkLeft = Infinity;
  return left < 0 ? null : deep;
}

/** The values the current walk of `deeper` may still visit: once below 0 it stops, as if it found a deep value. */
let walkLeft = Infinity;

function deeper(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit <= 0) return true;
  // An array by index: `for…in` enumerated its indices as strings through a runtime call (1% of
  // the gateway's CPU per call, docs/performance.md, "Round 9: the warm path"). The values come
  // from JSON.parse (or zod's copies of it), whose arrays have no holes and no keys but their indices.
  if (Array.isArray(value)) {
    if ((walkLeft -= value.length) < 0) return true;
    for (let index = 0; index < value.length; index++) if (deeper(value[index], limit - 1)) return true;
    return false;
  }
  for (const key in value) if (--walkLeft < 0 || deeper((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}

/**
 * `budget` less the values in `value` (itself, each array entry and object value below it);
 * negative once it runs out, and the walk stops there. A stack, not recursion: the budget alone
 * would let a value nest deeper than the call stack holds.
 */
export function valuesLeft(value: unknown, budget: number): number {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (--budget < 0) return budget;
    if (typeof next !== 'object' || next === null) continue;
    // Checked as entries are pushed: an object or array of a million entries pushed whole would
    // cost what the bound is for (round 16 review H4: 2.3 s for a million keys).
    if (Array.isArray(next)) {
      if (next.length > budget + 1 - stack.length) return -1;
      for (let index = 0; index < next.length; index++) stack.push(next[index]);
    } else {
      for (const key in next) if (stack.push((next as Record<string, unknown>)[key]) > budget + 1) return -1;
    }
  }
  return budget;
}

/** A string JSON.stringify writes as it is, between quotes: no quote, backslash, control or surrogate. */
const PLAIN_STRING = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * JSON.stringify of a string, without its call for a string that needs no escape: each call of
 * JSON.stringify cost a warm call ~2-4k instructions, whatever the size of its value
 * (docs/performance.md, "Round 10: the answer's own bytes, and each text made once").
 */
export function jsonString(value: string): string {
  return PLAIN_STRING.test(value) ? `"${value}"` : JSON.stringify(value);
}

/**
 * A call's arguments as JSON text, made once for the digest, the audit record and the call sent to
 * the server (docs/performance.md, "Round 10: the answer's own bytes, and each text made once"). A user holds the arguments
 * object too and takes the text only for that very object (`textOf`): an edited call's new
 * arguments never get the old text.
 */
export class ArgsJson {
  /**
   * `made`: JSON.stringify(args), when it is known already (a client's own text, checked canonical:
   * gateway/call-scan.ts). `sorted`: `args` is known to be canonicalJson's too, JSON data with every
   * key in sorted order (call-scan.ts read a flat object's keys in that order).
   */
  constructor(
    readonly args: Record<string, unknown>,
    private made?: string,
    private readonly sorted = false,
  ) {}

  /** JSON.stringify(args) when `args` is this one's object; else undefined. */
  textOf(args: unknown): string | undefined {
    if (args !== this.args) return undefined;
    return (this.made ??= JSON.stringify(args));
  }

  /** textOf(args) when it is known to be canonicalJson(args) as well (`sorted`); else undefined (policy/digest.ts checks the object). */
  sortedTextOf(args: unknown): string | undefined {
    return this.sorted ? this.textOf(args) : undefined;
  }
}
