import { createHash } from '../node-crypto.js';

/**
 * Exposed names for aggregated tools and prompts (docs/design.md#the-gateway-as-a-proxy). Claude Desktop rejects the WHOLE tool
 * list when one name fails `^[A-Za-z0-9_-]{1,64}$`, so every name is sanitised and bounded here.
 *
 *   exposeNames([{server:'fs', name:'read.file'}, {server:'fs', name:'read_file'}])
 *     → fs__read_file (the tool whose name needed no change keeps it)
 *       fs__read_file_3f9a1c (the other one gets a suffix hashed from server and original name)
 *
 * Deterministic: the result depends only on the set of (server, name) pairs, not on list order.
 */
const MAX_NAME_LENGTH = 64;
const SEPARATOR = '__';

export interface NameRequest {
  server: string;
  name: string;
  /** False for a server configured with `prefix: false`: its names are exposed as they are (sanitised, unique). */
  prefix?: boolean;
}

function plainName(request: NameRequest): string {
  return request.prefix === false ? request.name : `${request.server}${SEPARATOR}${request.name}`;
}

function sanitiseName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return cleaned === '' ? '_' : cleaned;
}

function suffix(server: string, name: string): string {
  return createHash('sha256').update(`${server}\0${name}`).digest('hex').slice(0, 6);
}

function withSuffix(base: string, server: string, name: string): string {
  const tail = `_${suffix(server, name)}`;
  return base.slice(0, MAX_NAME_LENGTH - tail.length) + tail;
}

/** Maps each (server, name) to a unique exposed name; key of the map is `server\0name`. */
export function exposeNames(requests: readonly NameRequest[]): Map<string, string> {
  const out = new Map<string, string>();
  const byCandidate = new Map<string, NameRequest[]>();
  for (const request of requests) {
    // The same server and name twice is one tool (the listing keeps the first); as two, each took a suffix of the other's and never ended.
    if (out.has(nameKey(request.server, request.name))) continue;
    out.set(nameKey(request.server, request.name), '');
    const candidate = request.prefix === false ? sanitiseName(request.name) : `${request.server}${SEPARATOR}${sanitiseName(request.name)}`;
    const list = byCandidate.get(candidate) ?? [];
    list.push(request);
    byCandidate.set(candidate, list);
  }
  // Plain names first, in every group: a tool named like another's suffixed name keeps its own.
  const taken = new Set<string>();
  const suffixed: Array<[string, NameRequest]> = [];
  for (const [candidate, list] of [...byCandidate].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // The one whose original name needed no sanitising keeps the plain name; the rest are suffixed.
    const sorted = [...list].sort((a, b) => compare(a, b, candidate));
    sorted.forEach((request, index) => {
      if (index > 0 || candidate.length > MAX_NAME_LENGTH) return void suffixed.push([candidate, request]);
      taken.add(candidate);
      out.set(nameKey(request.server, request.name), candidate);
    });
  }
  for (const [candidate, request] of suffixed) {
    let exposed = withSuffix(candidate, request.server, request.name);
    // A suffix already taken (a six-digit hash met, or a tool named so): the next one, counted.
    for (let attempt = 1; taken.has(exposed); attempt++) exposed = withSuffix(candidate, request.server, `${request.name}\0${attempt}`);
    taken.add(exposed);
    out.set(nameKey(request.server, request.name), exposed);
  }
  return out;
}

function compare(a: NameRequest, b: NameRequest, candidate: string): number {
  // A name under a server's prefix is that server's: a `prefix: false` server's tool named
  // `fs__write_file` must not take it from server fs, whose calls (and rules) it would receive
  // (round 12 review, F5).
  const aUnprefixed = a.prefix === false ? 1 : 0;
  const bUnprefixed = b.prefix === false ? 1 : 0;
  if (aUnprefixed !== bUnprefixed) return aUnprefixed - bUnprefixed;
  const aExact = plainName(a) === candidate ? 0 : 1;
  const bExact = plainName(b) === candidate ? 0 : 1;
  if (aExact !== bExact) return aExact - bExact;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.server < b.server ? -1 : a.server > b.server ? 1 : 0;
}

export function nameKey(server: string, name: string): string {
  return `${server}\0${name}`;
}
