import { randomBytes } from '../node-crypto.js';
import { readFileSync, statSync } from 'node:fs';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import { z } from 'zod';
import { LatchError, errorMessage } from '../errors.js';
import { isoTime } from '../iso-time.js';
import { withFileLock } from './file-lock.js';
import { definitionDigest, type Definition, type Pin, type PinKind } from '../pins/definition.js';

/** What a server lists now under a name, for a pin of before round 24 (no `withIcons`) to be rewritten as (recordListed). */
export type ListedNow = (kind: PinKind, name: string) => { digest: string; legacy: string; definition: Definition } | undefined;
const PIN_KINDS: readonly PinKind[] = ['tool', 'prompt', 'template'];

/**
 * The lock file: what each server's tools (prompts, resource templates) were when a person or a
 * rule first let them run, next to the config as `<config name>.lock.json`, mode 0600:
 *
 *   { "version": 1,
 *     "servers": { "fs": { "identity": "npx -y @modelcontextprotocol/server-filesystem /home/me",
 *                          "tool": { "read_file": { "digest": "sha256:…", "pinnedAt": "…", "definition": {…} } } } } }
 *
 * On a team gateway a member's "Accept the new definition" holds for that member only (docs/team.md,
 * "Pins"): it is kept under `users`, the same shape per member, and never changes `servers`:
 *
 *     "users": { "bob": { "servers": { "fs": { "identity": "…", "tool": { "read_file": {…} } } } } }
 *
 * The definition is kept whole so a later change can be shown as a diff. Reads are synchronous (the
 * decision is), writes re-read the file first so pins another process (a second client, `mcp-latch
 * tools --accept`) wrote meanwhile are kept, then replace it atomically: a crash leaves the old or
 * the new file, never half of one. A file that cannot be read is never overwritten.
 */
// Loose objects: members this version does not know (a newer mcp-latch's, a hand edit's) are kept
// when a pin rewrites the file; z.object dropped them (round 17 review S7).
const PinSchema = z.looseObject({ digest: z.string(), pinnedAt: z.string(), definition: z.record(z.string(), z.unknown()), withIcons: z.literal(true).optional() });
const PinMapSchema = z.record(z.string(), PinSchema);
/** The names a server's tools, prompts and templates were listed under, kept for the next start (`listed`; docs/pins.md, "A tool added later"). */
const ListedNamesSchema = z.looseObject({ tool: z.array(z.string()).optional(), prompt: z.array(z.string()).optional(), template: z.array(z.string()).optional() });
/**
 * The definition digest each of those names was listed with (`listedDigests`, round 20): a
 * never-called entry changed while no gateway ran differs from it at the next start. A member of its
 * own, beside `listed`, so a gateway of round 19 that rewrites `listed` keeps it (a loose object).
 */
const DigestMapSchema = z.record(z.string(), z.string());
/**
 * `icons: true` (round 24): the digests are of definitions with their icons (pins/definition.ts).
 * Without it they were recorded before (or by a gateway of before round 24, which writes the member
 * anew without it), and a digest there stands for the definition listed now without its icons.
 */
const ListedDigestsSchema = z.looseObject({ tool: DigestMapSchema.optional(), prompt: DigestMapSchema.optional(), template: DigestMapSchema.optional(), icons: z.literal(true).optional() });
const ServerPinsSchema = z.looseObject({ identity: z.string(), tool: PinMapSchema.optional(), prompt: PinMapSchema.optional(), template: PinMapSchema.optional(), listed: ListedNamesSchema.optional(), listedDigests: ListedDigestsSchema.optional() });
const ServersSchema = z.record(z.string(), ServerPinsSchema);
const PinsFileSchema = z.looseObject({ version: z.literal(1), servers: ServersSchema, users: z.record(z.string(), z.looseObject({ servers: ServersSchema })).optional() });
export type PinsFile = z.infer<typeof PinsFileSchema>;
export type { Pin };

const empty = (): PinsFile => ({ version: 1, servers: {} });
const NO_DIGESTS: ReadonlyMap<string, string> = new Map();
/** How many stamps of own listing records in a row changedForWatcher knows (one per server at a start); past it, a compare more. */
const RECORD_CHAIN = 64;

export class PinStore {
  private data: PinsFile = empty();
  private problem: string | null = null;
  /** The file as it was when last read (fileStamp), taken before the read: a change is read again. */
  private stamp: string | null = null;
  /**
   * The file's stamps before and after each of this process's last writes, while they recorded
   * listings only (recordListed) one after another, nothing else between: the last is the file now
   * if no one else wrote. Reset by any other write; at most RECORD_CHAIN kept.
   */
  private recordChain: string[] = [];
  /** The file as changedForWatcher last saw it. */
  private watched: string | null = null;
  /** Writes of this process, one after another, so two pins cannot interleave read-modify-write. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Each `listed` array read, as a set (listedNames is asked per unpinned entry at each list). */
  private readonly listedSets = new WeakMap<string[], ReadonlySet<string>>();
  /** Each `listedDigests` map read, as a Map of its own members (asked per unpinned entry at each list). */
  private readonly digestMaps = new WeakMap<Record<string, string>, ReadonlyMap<string, string>>();
  /**
   * Pins that could not be written (the lock file's folder read-only, the disk full), each with its
   * server's identity: in force for this run all the same. Written nowhere, a first use stayed `new`
   * for ever, and a definition the server changed after it was listed and run unasked (review of
   * round 20 faults, F3; docs/pins.md, "Pin states"). A pin in the file comes first.
   */
  private readonly unwritten = new Map<string, { pin: Pin; identity: string }>();
  /** `kind server` of the team's pins held in `unwritten` (hasAny). */
  private readonly unwrittenKinds = new Set<string>();

  constructor(readonly path: string) {
    this.reload();
    this.watched = this.stamp;
  }

  /** Reads the file again (another process may have accepted a definition). */
  reload(): void {
    this.stamp = fileStamp(this.path);
    try {
      this.data = parsePins(readFileSync(this.path, 'utf8'), this.path);
      this.problem = null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.data = empty();
        this.problem = null;
      } else {
        this.problem = errorMessage(error);
      }
    }
  }

  /**
   * Why the pins cannot be trusted right now (the file is unreadable or invalid); null when they can.
   * A file that changed since the problem was found (fixed, removed, written by another process) is
   * read again first: the tool stayed refused, with a reason no longer true, after the user did what
   * the refusal said (round 13 review R5). Only a stat while there is a problem.
   */
  unreadable(): string | null {
    if (this.problem !== null) this.refresh();
    return this.problem;
  }

  /**
   * Reads the file again when it changed since it was last read (one stat): a tool with no pin in
   * memory may have been pinned by another gateway of the same config since (round 17 review S1:
   * it was taken as new, forwarded under an allow rule unasked, its changed definition pinned).
   * True when it was read again.
   */
  refresh(): boolean {
    if (fileStamp(this.path) === this.stamp) return false;
    this.reload();
    return true;
  }

  /**
   * Whether the file changed since this was last asked (a watcher of it: core.ts pinsChanged), other
   * than by this process's own record of what its servers listed, which lists nothing differently.
   * Since round 20 every server is recorded at its first listing, and that write made every session
   * build and compare its lists again at each start. Asked once this process's writes are over (settled).
   */
  changedForWatcher(): boolean {
    const now = fileStamp(this.path);
    const since = this.watched;
    this.watched = now;
    if (now === since) return false;
    return !(this.recordChain.at(-1) === now && since !== null && this.recordChain.includes(since));
  }

  /** Once this process's writes queued so far are over. */
  settled(): Promise<unknown> {
    return this.queue;
  }

  /** The team's pin, or with `user` the definition that member accepted for themselves. */
  get(kind: PinKind, server: string, name: string, user?: string): Pin | undefined {
    const pin = own(own(this.servers(user), server)?.[kind], name);
    if (pin !== undefined || this.unwritten.size === 0) return pin;
    return this.unwritten.get(unwrittenKey(kind, server, name, user))?.pin;
  }

  /** Whether the team's pins hold any `kind` of `server`. */
  hasAny(kind: PinKind, server: string): boolean {
    const pins = own(this.data.servers, server)?.[kind];
    // Asked per unpinned tool at each list: no array of the names made.
    for (const name in pins) if (Object.hasOwn(pins, name)) return true;
    return this.unwrittenKinds.size > 0 && this.unwrittenKinds.has(`${kind} ${server}`);
  }

  /**
   * The names of `kind` that `server` was listed under, as recorded for the team (recordListed);
   * undefined when none is recorded (a lock file of before round 19, or a server with no pins).
   */
  listedNames(kind: PinKind, server: string): ReadonlySet<string> | undefined {
    const names = own(this.data.servers, server)?.listed?.[kind];
    if (names === undefined) return undefined;
    let set = this.listedSets.get(names);
    if (set === undefined) {
      set = new Set(names);
      this.listedSets.set(names, set);
    }
    return set;
  }

  /**
   * The definition digest each name of `kind` was recorded with for `server` (recordListed), or
   * undefined when the file has none for the server (written before round 20, or by a gateway of
   * round 19 only): then no recorded name's definition is known.
   */
  listedDigests(kind: PinKind, server: string): ReadonlyMap<string, string> | undefined {
    const digests = own(this.data.servers, server)?.listedDigests;
    if (digests === undefined) return undefined;
    const record = digests[kind];
    if (record === undefined) return NO_DIGESTS;
    let map = this.digestMaps.get(record);
    if (map === undefined) {
      map = new Map(Object.keys(record).map((name) => [name, record[name]!]));
      this.digestMaps.set(record, map);
    }
    return map;
  }

  /** Whether the digests recorded for `server` are of definitions with their icons (round 24; ListedDigestsSchema). */
  listedWithIcons(server: string): boolean {
    return own(this.data.servers, server)?.listedDigests?.icons === true;
  }

  /** Whether the team or a member has a pin of `server` written before round 24 (no `withIcons`): recordListed rewrites those it can. */
  hasLegacyPins(server: string): boolean {
    let servers = this.legacyPinned.get(this.data);
    if (servers === undefined) {
      const found = new Set<string>();
      for (const place of [this.data.servers, ...Object.values(this.data.users ?? {}).map((user) => user.servers)]) {
        for (const name of Object.keys(place)) {
          const entry = own(place, name)!;
          if (PIN_KINDS.some((kind) => Object.values(entry[kind] ?? {}).some((pin) => pin.withIcons !== true))) found.add(name);
        }
      }
      servers = found;
      this.legacyPinned.set(this.data, servers);
    }
    return servers.has(server);
  }
  /** The servers with pins of before round 24, per file as read. */
  private readonly legacyPinned = new WeakMap<PinsFile, ReadonlySet<string>>();

  /**
   * Records the names a server was listed under without being held (core.ts addedLater), each with
   * the digest of the definition it was listed with when known, so a name its next start lists and
   * these lack is one it added between the two starts (a rename while the gateway was not running),
   * and one listed with another digest was changed meanwhile (docs/pins.md, "A tool added later").
   * Every server is recorded, pins or not (round 20): a server whose first pin comes in a later run
   * is checked against what it listed before. `identity`: for a server the file has nothing of yet.
   * Written only when they differ.
   *
   * In the same write, each pin of the server of before round 24 (no `withIcons`; the team's and
   * each member's) that stands for what `now` lists under its name, but for its icons, is rewritten
   * as that definition with its icons (round 24; docs/pins.md, "Icons"): from then on a change of
   * icons asks as a change of description does. One that does not stand for it (changed) stays, and
   * asks with the diff.
   */
  recordListed(server: string, identity: string, names: Record<PinKind, string[]>, digests: Record<PinKind, ReadonlyMap<string, string>>, now: ListedNow = () => undefined): Promise<void> {
    const listed = { tool: [...names.tool].sort(), prompt: [...names.prompt].sort(), template: [...names.template].sort() };
    const listedDigests = { tool: sortedRecord(digests.tool), prompt: sortedRecord(digests.prompt), template: sortedRecord(digests.template), icons: true as const };
    const text = JSON.stringify([listed, listedDigests]);
    const same = (entry: { listed?: unknown; listedDigests?: unknown }) => JSON.stringify([entry.listed, entry.listedDigests]) === text;
    const upgrades = (data: PinsFile, write: boolean) => {
      let count = 0;
      for (const place of [data.servers, ...Object.values(data.users ?? {}).map((user) => user.servers)]) {
        const entry = own(place, server);
        if (entry !== undefined) count += legacyPins(entry, now, write);
      }
      return count;
    };
    // Asked at every list change: the file is locked and read only when what is in memory differs.
    const known = own(this.data.servers, server);
    if (known !== undefined && same(known) && (!this.hasLegacyPins(server) || upgrades(this.data, false) === 0)) return Promise.resolve();
    return this.write((data) => {
      const entry = own(data.servers, server) ?? setOwn(data.servers, server, { identity });
      const upgraded = upgrades(data, true);
      if (same(entry) && upgraded === 0) return false;
      entry.listed = listed;
      entry.listedDigests = listedDigests;
      return true;
    }, undefined, true);
  }

  /**
   * The write tail of recordListed and pin: one write of this process at a time, under the lock
   * across processes, the file read again first; `change` edits what was read (true: write it) or
   * throws. What was read becomes what is in memory, the stamp the one taken before the read.
   */
  private write(change: (data: PinsFile) => boolean, unreadable?: (problem: string, error: unknown) => never, recordOnly = false): Promise<void> {
    // The file its lock is of, never the name again: a link re-pointed meanwhile is another file (file-lock.ts).
    const run = this.queue.then(() => withFileLock(this.path, async (real) => {
      const db = new Low<PinsFile>(new PrivateJsonFile(real), empty());
      const stamp = fileStamp(real);
      // Own records of listings one after another (a server at a time, at a start) make one chain.
      if (this.recordChain.at(-1) !== stamp) this.recordChain = [stamp];
      try {
        await db.read();
      } catch (error) {
        if (unreadable === undefined) throw error;
        this.problem = errorMessage(error);
        this.stamp = stamp;
        unreadable(this.problem, error);
      }
      try {
        if (change(db.data)) {
          const chain = this.recordChain;
          this.recordChain = [];
          await db.write();
          // Still under the lock: no other gateway has written since (changedForWatcher).
          if (recordOnly) this.recordChain = [...chain.slice(-RECORD_CHAIN), fileStamp(real)];
        }
      } finally {
        // As read: the file changed since (this write, or another process's) is read again at refresh().
        this.data = db.data;
        this.stamp = stamp;
        this.problem = null;
      }
    }));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** `name`: of the entry asked about, whose pin may be one of this run only (`unwritten`). */
  identity(server: string, user?: string, kind?: PinKind, name?: string): string | undefined {
    const identity = own(this.servers(user), server)?.identity;
    if (identity !== undefined || this.unwritten.size === 0 || kind === undefined || name === undefined) return identity;
    return this.unwritten.get(unwrittenKey(kind, server, name, user))?.identity;
  }

  /** The team's pins, or one member's acceptances (none yet: an empty map, not written). */
  private servers(user: string | undefined): PinsFile['servers'] {
    if (user === undefined) return this.data.servers;
    return own(this.data.users, user)?.servers ?? {};
  }

  /** The members who accepted this very definition for themselves (team gateway), for `mcp-latch tools`. */
  acceptedBy(kind: PinKind, server: string, name: string, digest: string): string[] {
    return Object.keys(this.data.users ?? {}).filter((user) => this.get(kind, server, name, user)?.digest === digest);
  }

  /** Every pin, for `mcp-latch tools`. */
  all(): PinsFile {
    return this.data;
  }

  /**
   * Records `definition` as what `server`'s `name` is, for the team or (`user`) for that member
   * only; in force (in memory and on disk) when it resolves. `replace`: a person accepted this
   * definition over the pin they were shown ("Accept the new definition", `tools --accept`). A first
   * use does not replace: a pin of another definition found in the file (another gateway pinned
   * it meanwhile) stays, and the pin fails; the next call sees the tool changed and asks.
   */
  pin(kind: PinKind, server: string, name: string, identity: string, definition: Definition, user?: string, replace = false): Promise<void> {
    const digest = definitionDigest(definition);
    // The file was read and holds something else than this pin should be written over: no pin of this run either.
    let refused = false;
    const unreadable = (problem: string, error: unknown): never => {
      refused = true;
      throw new LatchError('STORE_WRITE_FAILED', `cannot pin ${server}/${name}: ${problem}; fix or remove ${this.path} and try again`, { cause: error });
    };
    const key = unwrittenKey(kind, server, name, user);
    const written = this.write((data) => {
      const servers = user === undefined ? data.servers : (own(data.users, user) ?? setOwn((data.users ??= {}), user, { servers: {} })).servers;
      const entry = own(servers, server) ?? setOwn(servers, server, { identity });
      const pinned = own(entry[kind], name);
      if (pinned !== undefined && pinned.digest !== digest && !replace) {
        refused = true;
        throw new LatchError('STORE_WRITE_FAILED', `not pinning ${server}/${name}: another process pinned a different definition of it meanwhile; its next call asks with the change`);
      }
      // Pinned already, by this gateway or another process: the file stays as it is.
      if (entry.identity === identity && pinned?.digest === digest) return false;
      entry.identity = identity;
      setOwn((entry[kind] ??= {}), name, { digest, pinnedAt: isoTime(Date.now()), definition, withIcons: true });
      return true;
    }, unreadable);
    return written.then(
      () => {
        this.unwritten.delete(key);
      },
      (error: unknown) => {
        if (refused) throw error;
        // The lock or the write failed: the pin holds in memory for this run (see `unwritten`).
        this.unwritten.set(key, { pin: { digest, pinnedAt: isoTime(Date.now()), definition, withIcons: true }, identity });
        if (user === undefined) this.unwrittenKinds.add(`${kind} ${server}`);
        throw new LatchError('STORE_WRITE_FAILED', `${errorMessage(error)}; pinned in memory for this run (a change of its definition still asks)`, { cause: error });
      },
    );
  }
}

/**
 * How many pins of a server's `entry` are of before round 24 (no `withIcons`) and stand for what
 * `now` lists under their name (its digest, or its digest without icons: a pin of then never has
 * them); with `write`, each is rewritten as the definition listed now, marked.
 */
function legacyPins(entry: PinsFile['servers'][string], now: ListedNow, write: boolean): number {
  let count = 0;
  for (const kind of PIN_KINDS) {
    const pins = entry[kind];
    if (pins === undefined) continue;
    for (const name of Object.keys(pins)) {
      const pin = pins[name]!;
      if (pin.withIcons === true) continue;
      const listed = now(kind, name);
      if (listed === undefined || (pin.digest !== listed.digest && pin.digest !== listed.legacy)) continue;
      count += 1;
      if (write) setOwn(pins, name, { ...pin, digest: listed.digest, definition: listed.definition, withIcons: true });
    }
  }
  return count;
}

/** The key of an entry's pin in `unwritten`: its member's, or the team's. */
function unwrittenKey(kind: PinKind, server: string, name: string, user: string | undefined): string {
  return JSON.stringify([user ?? null, kind, server, name]);
}

/** `digests` as a record, its members in name order (the file's text does not depend on listing order). */
function sortedRecord(digests: ReadonlyMap<string, string>): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const name of [...digests.keys()].sort()) setOwn(sorted, name, digests.get(name)!);
  return sorted;
}

/** The file's identity, size and time of change; `missing` when it is not there, `unknown` when it cannot be stat'ed. */
function fileStamp(path: string): string {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : 'missing';
  } catch {
    return 'unknown';
  }
}

function parsePins(text: string, path: string): PinsFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new LatchError('STORE_WRITE_FAILED', `${path} is not valid JSON (${errorMessage(error)})`, { cause: error });
  }
  const parsed = PinsFileSchema.safeParse(json);
  if (!parsed.success) throw new LatchError('STORE_WRITE_FAILED', `${path} is not an mcp-latch lock file (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'})`);
  return parsed.data;
}

/**
 * lowdb's JSONFile writes through one fixed temp name with the default mode: two gateways pinning
 * at once could rename each other's half-written temp file, and the pins would be world-readable.
 * This adapter writes a temp file of its own (mode 0600), syncs it, then renames it over the file.
 */
class PrivateJsonFile implements Adapter<PinsFile> {
  constructor(private readonly path: string) {}

  async read(): Promise<PinsFile | null> {
    try {
      return parsePins(await readFile(this.path, 'utf8'), this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async write(data: PinsFile): Promise<void> {
    const temp = join(dirname(this.path), `.${basename(this.path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(data, null, 2)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw new LatchError('STORE_WRITE_FAILED', `cannot write ${this.path}: ${errorMessage(error)}`, { cause: error });
    }
  }
}

/**
 * A server or tool name is any string: `constructor` read through `[name]` found Object.prototype's
 * member (a tool of that name was "changed since it was pinned" and asked for ever), and `__proto__`
 * assigned set the map's prototype. Only own entries are read and written.
 */
function own<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

function setOwn<T>(record: Record<string, T>, key: string, value: T): T {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  return value;
}
