import { createHash } from '../node-crypto.js';

/**
 * One list as the gateway answers it to clients (`tools/list`, `resources/list`, …): every server's
 * entries, in config order, up to `maxBytes` of their JSON (`limits.messageMB`, docs/config.md,
 * "limits"), and a digest of what it holds, to tell a client only about lists that changed.
 *
 * Each server's list is capped at that size when it is read (downstream/listing.ts), but ten
 * servers just under it made one answer ten times the size: a message the gateway would refuse
 * from a client, held whole in memory as one string by each client session that lists. The
 * entries past it (the servers listed last) are left out of the answer, never the whole list.
 */
export interface ListAnswer<T> {
  entries: T[];
  /** A hash of each entry's JSON, one entry at a time (the JSON of a whole list was one string, which a few large servers made longer than V8 allows); made when first read. */
  readonly digest: string;
  /** How many entries were left out (0: none). */
  leftOut: number;
}

/**
 * How long the work a list's answer leaves for later waits: its digest (upstream-session.ts) and
 * the lock file's record of the listings (core.ts recordListings). Queued with setImmediate they
 * ran ahead of a command the client sent as soon as it had the list, ~1.1 M of the 2.8 M
 * instructions of a fresh gateway's first shell command, where a warm one takes 0.8 M
 * (docs/performance.md, "Round 27: the first calls"). A second: a client's first command after its
 * first list is then answered first, and in a session, whose first command comes seconds after
 * its list, the work is done while it waits, as before.
 */
export const AFTER_LIST_MS = 1000;

/** Runs `work` once AFTER_LIST_MS have passed; the timer keeps no process alive. */
export function afterList(work: () => void): NodeJS.Timeout {
  return setTimeout(work, AFTER_LIST_MS).unref();
}

/** A list answer's entries, to the JSON made of each for its limit (listAnswer); emptied when its digest is made. */
const entriesJson = new WeakMap<readonly unknown[], string[]>();

/**
 * The JSON of a list answer's entries, as JSON.stringify writes the array, joined from the JSON
 * listAnswer made of each entry to count its bytes: the answer's line (stdio-upstream.ts) does not
 * serialise every entry again, which with ten servers' tools was ~0.5 ms of CPU between the last
 * server's list and the first list's write (docs/performance.md, "Round 28: the start and the
 * first calls"). Undefined for any other array, and once the digest has taken the JSON.
 */
export function listJson(entries: readonly unknown[]): string | undefined {
  const jsons = entriesJson.get(entries);
  return jsons !== undefined && jsons.length === entries.length ? `[${jsons.join(',')}]` : undefined;
}

export function listAnswer<T>(entries: readonly T[], maxBytes: number): ListAnswer<T> {
  const jsons: string[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const json = JSON.stringify(entry);
    // The comma between entries counts too.
    bytes += Buffer.byteLength(json) + 1;
    if (bytes > maxBytes) break;
    jsons.push(json);
  }
  const count = jsons.length;
  const kept = count === entries.length ? (entries as T[]) : entries.slice(0, count);
  entriesJson.set(kept, jsons);
  // The digest is made when first read, from the JSON taken here: a client's first list is written
  // before it is (upstream-session.ts), so node:crypto need not load before it (docs/performance.md,
  // "Round 19: start").
  let digest: string | null = null;
  return {
    entries: kept,
    get digest(): string {
      if (digest === null) {
        const hash = createHash('sha256');
        // JSON holds no raw newline: the entries cannot run into each other.
        for (const json of jsons) hash.update(json).update('\n');
        digest = hash.digest('base64');
        jsons.length = 0;
      }
      return digest;
    },
    leftOut: entries.length - count,
  };
}
