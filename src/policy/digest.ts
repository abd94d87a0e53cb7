import { hash } from '../node-crypto.js';
import { jsonString, type ArgsJson } from '../values.js';

/**
 * A call's digest as argsDigest makes it: SHA-256 in lowercase hex, 64 characters, so JSON text as it
 * is between quotes (store/audit.ts writes it without escaping it). Only argsDigest makes one.
 */
export type Digest = string & { readonly digest: unique symbol };

/**
 * A digest of one call (server, tool, canonical arguments): what an approval, a session grant for
 * an unrememberable call, the audit and the forward permit are bound to. Keys are sorted so the
 * same arguments in another order give the same digest.
 */
export function argsDigest(server: string, tool: string, args: unknown, json?: ArgsJson): Digest {
  // Arguments already canonical, with their text made: the same text as canonicalJson's, from the
  // pieces (docs/performance.md, "Round 10: the answer's own bytes, and each text made once").
  // A flat object the scanner read with its keys in order is known canonical: not walked again
  // (docs/performance.md, "Round 28: per-call work").
  const text = json === undefined ? undefined : (json.sortedTextOf(args) ?? (isCanonical(args) ? json.textOf(args) : undefined));
  // One-shot hash (Node 20.12+, and package.json's engines asks for 20.19): no Hash object per call.
  return hash('sha256', text === undefined ? canonicalJson([server, tool, args ?? {}]) : `${namesText(server, tool)}${text}]`) as Digest;
}

/** The last call's server and tool, and their text `["server","tool",`: a tool's calls come one after another. */
let lastServer = '';
let lastTool = '';
let lastNames = '["","",';

function namesText(server: string, tool: string): string {
  if (server !== lastServer || tool !== lastTool) {
    lastNames = `[${jsonString(server)},${jsonString(tool)},`;
    lastServer = server;
    lastTool = tool;
  }
  return lastNames;
}

/** JSON with object keys sorted at every depth. */
export function canonicalJson(value: unknown): string {
  // Nearly every value is canonical already (plain data, keys in order): JSON.stringify then writes
  // the same text natively, without the sorted copies below (it runs for every audited call).
  if (isCanonical(value)) return JSON.stringify(value) ?? 'null';
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

/** True when JSON.stringify writes `value` as canonicalJson does: JSON data only, every object a plain one with its keys in sorted order and no undefined value. */
function isCanonical(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (!isCanonical(value[index])) return false;
    return true;
  }
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index++) {
    if (index > 0 && !(keys[index - 1]! < keys[index]!)) return false;
    const item = (value as Record<string, unknown>)[keys[index]!];
    if (item === undefined || !isCanonical(item)) return false;
  }
  return true;
}
