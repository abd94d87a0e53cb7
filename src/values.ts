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

/** True when `value` nests arrays or objects deeper than `limit` levels; walks without recursion. */
export function nestsDeeperThan(value: unknown, limit: number = MAX_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const key in current) stack.push([(current as Record<string, unknown>)[key], depth + 1]);
  }
  return false;
}
