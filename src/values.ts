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
  if (typeof value !== 'object' || value === null) return false;
  if (limit <= 0) return true;
  // An array by index: `for…in` enumerated its indices as strings through a runtime call (1% of
  // the gateway's CPU per call, docs/performance.md, "Round 9: the warm path"). The values come
  // from JSON.parse (or zod's copies of it), whose arrays have no holes and no keys but their indices.
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (nestsDeeperThan(value[index], limit - 1)) return true;
    return false;
  }
  for (const key in value) if (nestsDeeperThan((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}
