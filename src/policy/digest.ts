import * as crypto from 'node:crypto';

/**
 * A digest of one call (server, tool, canonical arguments): what an approval, a session grant for
 * an unrememberable call, the audit and the forward permit are bound to. Keys are sorted so the
 * same arguments in another order give the same digest.
 */
export function argsDigest(server: string, tool: string, args: unknown): string {
  return sha256Hex(canonicalJson([server, tool, args ?? {}]));
}

/** crypto.hash (Node ≥ 20.12) hashes in one call, about 3× faster than a Hash object; older Node falls back. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string) => string }).hash;
const sha256Hex = oneShot ? (data: string) => oneShot('sha256', data) : (data: string) => crypto.createHash('sha256').update(data).digest('hex');

/** JSON with object keys sorted at every depth. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
