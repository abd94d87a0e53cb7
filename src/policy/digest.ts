import { hash } from 'node:crypto';

/**
 * A digest of one call (server, tool, canonical arguments): what an approval, a session grant for
 * an unrememberable call, the audit and the forward permit are bound to. Keys are sorted so the
 * same arguments in another order give the same digest.
 */
export function argsDigest(server: string, tool: string, args: unknown): string {
  // One-shot hash (Node 20.12+, and package.json's engines asks for 20.19): no Hash object per call.
  return hash('sha256', canonicalJson([server, tool, args ?? {}]));
}

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
