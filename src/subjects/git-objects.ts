import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * The type of the object a revision names, read from a repository's object store without a git
 * process (gitformat-pack(5), gitformat-loose(5)): whether `git show REV` or `git diff A B` may print
 * a blob, any file git ever stored under any name (`git hash-object -w .env` stored an ignored .env;
 * round 13, docs/threat-model.md#what-git-prints). Null when the answer is not sure: an abbreviation
 * matching more than one object or none, a name that is no branch, tag or id, replace refs or
 * alternates in use, a file that cannot be read. The caller asks then.
 *
 *   a branch name, HEAD~2, abc1234 (a commit in a pack)  → 'commit'
 *   e69de29 (a blob stored loose)                         → 'blob'
 */
export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const LOOSE_TYPE = /^(commit|tree|blob|tag) \d+\0/;

/**
 * Stated bounds on what one lookup reads (docs/threat-model.md#pack-index-bounds): more pack
 * indexes, or more loose objects under one two-digit directory, and the answer is not known.
 * Inside them every step is bounded: the fan-out table is checked as git checks it, and an
 * abbreviation is found by binary search, so one lookup reads a few hundred bytes per pack.
 */
const MAX_PACKS = 256;
const MAX_LOOSE = 10_000;

/** The type of what `hex` (full or abbreviated) names in the object store of `gitDir` (its common directory). */
export function objectType(gitDir: string, hex: string): ObjectType | null {
  if (!/^[0-9a-f]{4,64}$/i.test(hex)) return null;
  const id = hex.toLowerCase(); // git reads A-F as a-f in ids and abbreviations (hex.c, object-name.c)
  const hash = hashSize(gitDir);
  if (hash === null || id.length > hash * 2) return null;
  // Objects from elsewhere, or some replaced by others (git-replace(1)), or looked up through a
  // multi-pack index (gitformat-pack(5)) that may place an id elsewhere than the packs' own indexes.
  const packs = path.join(gitDir, 'objects', 'pack');
  if (fs.existsSync(path.join(gitDir, 'objects', 'info', 'alternates')) || fs.existsSync(path.join(packs, 'multi-pack-index')) || hasReplaceRefs(gitDir)) return null;
  // Every copy of each matching id: git reads one of them, in an order of its own (packs by age).
  const found = new Map<string, Array<() => ObjectType | null>>();
  const add = (full: string, type: () => ObjectType | null): void => {
    found.set(full, [...(found.get(full) ?? []), type]);
  };
  const loose = path.join(gitDir, 'objects', id.slice(0, 2));
  if (id.length === hash * 2) {
    if (fs.existsSync(path.join(loose, id.slice(2)))) add(id, () => looseType(path.join(loose, id.slice(2))));
  } else {
    const names = boundedList(loose, MAX_LOOSE);
    if (names === null) return null;
    for (const name of names) if ((id.slice(0, 2) + name).startsWith(id)) add(id.slice(0, 2) + name, () => looseType(path.join(loose, name)));
  }
  const names = boundedList(packs, MAX_PACKS * 8); // a pack has its .idx, .pack, maybe .rev, .bitmap, .keep…
  const indexes = names?.filter((name) => name.endsWith('.idx')) ?? [];
  if (names === null || indexes.length > MAX_PACKS) return null;
  for (const name of indexes) {
    // git uses an index only beside its pack (packfile.c add_packed_git).
    if (!fs.existsSync(path.join(packs, name.replace(/\.idx$/, '.pack')))) continue;
    const pack = readPack(path.join(packs, name), hash);
    if (pack === null) return null;
    const matches = pack.matching(id);
    if (matches === null) return null;
    for (const [full, offset] of matches) add(full, () => pack.typeAt(offset, 0));
    if (found.size > 1) return null;
  }
  if (found.size !== 1) return null;
  const types = [...found.values()][0]!.map((type) => type());
  return types.every((type) => type === types[0]) ? types[0]! : null;
}

/** A directory's names, at most `limit` of them; [] when there is none; null past the limit or unreadable. */
function boundedList(dir: string, limit: number): string[] | null {
  let handle: fs.Dir;
  try {
    handle = fs.opendirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? [] : null;
  }
  const names: string[] = [];
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
      if (names.length === limit) return null;
      names.push(entry.name);
    }
  } catch {
    return null;
  } finally {
    handle.closeSync();
  }
  return names;
}

/** The bytes of an object id: 20 (SHA-1), or 32 when `extensions.objectFormat` is sha256; null when the config says something else or cannot be read. */
function hashSize(gitDir: string): 20 | 32 | null {
  let config: string;
  try {
    config = fs.readFileSync(path.join(gitDir, 'config'), 'latin1');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 20 : null;
  }
  if (!/objectformat/i.test(config)) return 20;
  const values = [...config.matchAll(/^[ \t]*objectformat[ \t]*=[ \t]*"?(sha1|sha256)"?[ \t]*(?:[#;].*)?\r?$/gim)].map((match) => match[1]!.toLowerCase());
  if (values.length !== (config.match(/objectformat/gi) ?? []).length || new Set(values).size !== 1) return null;
  return values[0] === 'sha256' ? 32 : 20;
}

function hasReplaceRefs(gitDir: string): boolean {
  try {
    if (fs.readdirSync(path.join(gitDir, 'refs', 'replace')).length > 0) return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return true;
  }
  try {
    return fs.readFileSync(path.join(gitDir, 'packed-refs'), 'utf8').includes(' refs/replace/');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** A loose object's type from the start of its zlib stream ("blob 12\0…"). */
function looseType(file: string): ObjectType | null {
  const head = readAt(file, 0, 64);
  if (head === null) return null;
  try {
    const text = zlib.inflateSync(head, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('latin1');
    return (LOOSE_TYPE.exec(text)?.[1] as ObjectType | undefined) ?? null;
  } catch {
    return null;
  }
}

/** Up to `length` bytes of `file` from `offset` (fewer at its end); null when it cannot be read. */
function readAt(file: string, offset: number, length: number): Buffer | null {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(length);
      return buffer.subarray(0, fs.readSync(fd, buffer, 0, length, offset));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

interface Pack {
  /** Ids starting with `prefix` (two at most: more is ambiguous anyway), with their offsets in the pack; null when the index is bad there. */
  matching(prefix: string): Array<[string, number]> | null;
  /** The type of the entry at `offset`, through delta bases; null past a chain this deep or a bad entry. */
  typeAt(offset: number, depth: number): ObjectType | null;
}

/**
 * A pack index, version 2, and its pack, read in slices. The index is taken only as git takes it
 * (packfile.c check_packed_git_idx, open_packed_git_1): a fan-out table that never decreases, its
 * last entry the object count, the file's size within what that count allows, the pack's header
 * count and checksum the index's. Anything else: null (git refuses the file; the caller asks).
 */
function readPack(idxFile: string, hash: 20 | 32): Pack | null {
  const packFile = idxFile.replace(/\.idx$/, '.pack');
  let idxSize: number;
  let packSize: number;
  try {
    idxSize = fs.statSync(idxFile).size;
    packSize = fs.statSync(packFile).size;
  } catch {
    return null;
  }
  const head = readAt(idxFile, 0, 8 + 1024);
  if (head === null || head.length < 8 + 1024 || head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) return null;
  const fanout = Array.from({ length: 256 }, (_, i) => head.readUInt32BE(8 + i * 4));
  if (fanout.some((value, i) => i > 0 && value < fanout[i - 1]!)) return null; // "non-monotonic index"
  const count = fanout[255]!;
  const min = 8 + 1024 + count * (hash + 8) + 2 * hash;
  if (idxSize < min || idxSize > min + Math.max(0, count - 1) * 8) return null; // "wrong index v2 file size"
  const packHead = readAt(packFile, 0, 12);
  const packSum = readAt(packFile, packSize - hash, hash);
  const idxSum = readAt(idxFile, idxSize - 2 * hash, hash);
  if (packHead === null || packHead.length < 12 || packHead.toString('latin1', 0, 4) !== 'PACK' || ![2, 3].includes(packHead.readUInt32BE(4)) || packHead.readUInt32BE(8) !== count) return null;
  if (packSum === null || idxSum === null || packSize < 12 + hash || !packSum.equals(idxSum)) return null; // "packfile … does not match index"
  const ids = 8 + 1024;
  const offsets = ids + count * (hash + 4);
  const large = offsets + count * 4;
  const largeCount = (idxSize - min) / 8;
  const idAt = (i: number): string | null => {
    const bytes = readAt(idxFile, ids + i * hash, hash);
    return bytes === null || bytes.length < hash ? null : bytes.toString('hex');
  };
  const offsetAt = (i: number): number | null => {
    const word = readAt(idxFile, offsets + i * 4, 4);
    if (word === null || word.length < 4) return null;
    const value = word.readUInt32BE(0);
    if (!(value & 0x80000000)) return value;
    const index = value & 0x7fffffff;
    const wide = index < largeCount ? readAt(idxFile, large + index * 8, 8) : null;
    return wide === null || wide.length < 8 ? null : Number(wide.readBigUInt64BE(0));
  };
  /** git's bsearch_hash (hash-lookup.c), step for step, so an index out of order leads both to the same entry: [index, found]. */
  const search = (full: string): [number, boolean] | null => {
    const first = parseInt(full.slice(0, 2), 16);
    let low = first === 0 ? 0 : fanout[first - 1]!;
    let high = fanout[first]!;
    while (low < high) {
      const mid = low + Math.floor((high - low) / 2);
      const at = idAt(mid);
      if (at === null) return null;
      if (at === full) return [mid, true];
      if (at > full) high = mid;
      else low = mid + 1;
    }
    return [low, false];
  };
  const pack: Pack = {
    matching(prefix) {
      // find_short_packed_object: from where the prefix padded with zeros would be, while ids match.
      const start = search(prefix.padEnd(hash * 2, '0'));
      if (start === null) return null;
      const out: Array<[string, number]> = [];
      for (let i = start[0]; i < count && out.length < 2; i++) {
        const full = idAt(i);
        if (full === null) return null;
        if (!full.startsWith(prefix)) break;
        const offset = offsetAt(i);
        if (offset === null) return null;
        out.push([full, offset]);
      }
      return out;
    },
    typeAt(offset, depth) {
      if (depth > 64) return null;
      const head = readAt(packFile, offset, 32 + hash);
      if (head === null || head.length === 0) return null;
      const type = (head[0]! >> 4) & 7;
      if (TYPES[type]) return TYPES[type]!;
      let at = 1;
      for (let byte = head[0]!; byte & 0x80; at++) byte = head[at] ?? 0; // the size's varint
      if (type === 6) {
        // OFS_DELTA: the base is a negative offset, in git's varint (gitformat-pack(5)).
        let byte = head[at++] ?? 0;
        let back = byte & 0x7f;
        while (byte & 0x80) {
          byte = head[at++] ?? 0;
          back = ((back + 1) * 128) + (byte & 0x7f);
        }
        return back > 0 && back <= offset ? pack.typeAt(offset - back, depth + 1) : null;
      }
      if (type === 7) {
        // REF_DELTA: the base by its id, in this pack (a thin pack's base elsewhere is not followed).
        const base = search(head.toString('hex', at, at + hash));
        const baseOffset = base === null || !base[1] ? null : offsetAt(base[0]);
        return baseOffset === null ? null : pack.typeAt(baseOffset, depth + 1);
      }
      return null;
    },
  };
  return pack;
}

/**
 * What `rev`, an operand of `git show` or `git diff`, names (gitrevisions(7)): an object's type, by
 * the ref it names ($GIT_DIR/NAME for HEAD-like names, then refs/NAME, refs/tags/NAME,
 * refs/heads/NAME, refs/remotes/NAME, refs/remotes/NAME/HEAD) or as a hex id; 'path' when it names
 * nothing but a file there (git takes it for a pathspec); 'none' for a plain name of nothing (git stops); null when not sure.
 */
export function revisionType(gitDir: string, rev: string, cwd: string | null): ObjectType | 'path' | 'none' | null {
  const common = commonDirectory(gitDir);
  const plain = PLAIN_REF.test(rev) && !/\.\.|\/\/|\.lock$|\/$|\.$/.test(rev);
  if (plain) {
    const id = refId(gitDir, common, rev);
    if (id !== undefined) return id === null ? null : objectType(common, id);
  }
  // git-describe(1) output: `-g` and an abbreviated id names that object.
  const described = /-g([0-9a-f]{4,64})$/i.exec(rev)?.[1];
  if (described !== undefined || /^[0-9a-f]{4,64}$/i.test(rev)) return objectType(common, described ?? rev);
  if (cwd === null) return null;
  // A file (a word with a revision's syntax aside); a plain name of no ref, no object and no file:
  // git stops ("unknown revision or path") and prints nothing.
  if (fs.existsSync(path.resolve(cwd, rev))) return /[@^~:{}]/.test(rev) ? null : 'path';
  return plain ? 'none' : null;
}

const PLAIN_REF = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/** A linked working tree's git directory keeps its refs and objects in the common one (gitrepository-layout(5) `commondir`). */
function commonDirectory(gitDir: string): string {
  try {
    return path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

/** The id a plain name resolves to as a ref, by git's rules in order; undefined when no rule finds it; null when a ref cannot be read for sure. */
function refId(gitDir: string, common: string, name: string): string | null | undefined {
  const rules = [...(/^[A-Z_]+$/.test(name) ? [name] : []), `refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`];
  for (const ref of rules) {
    const id = readRef(gitDir, common, ref, 0);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** A ref's id: its loose file (`ref: OTHER` followed), else packed-refs; undefined when it does not exist, null when it cannot be read for sure. */
function readRef(gitDir: string, common: string, ref: string, depth: number): string | null | undefined {
  if (depth > 5) return null;
  for (const dir of ref.startsWith('refs/') ? [common] : [gitDir, common]) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, ref), 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      return null;
    }
    const symbolic = /^ref:\s*(refs\/\S+)/.exec(text);
    if (symbolic) return readRef(gitDir, common, symbolic[1]!, depth + 1) ?? null;
    return /^([0-9a-f]{40}|[0-9a-f]{64})\b/.exec(text)?.[1] ?? null;
  }
  if (!ref.startsWith('refs/')) return undefined;
  let packed: string;
  try {
    packed = fs.readFileSync(path.join(common, 'packed-refs'), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
  }
  for (const line of packed.split('\n')) {
    const match = /^([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/.exec(line);
    if (match && match[2] === ref) return match[1]!;
  }
  return undefined;
}
