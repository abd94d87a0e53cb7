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
  /** The start of the entry at `offset` when the pack keeps it whole (not a delta): its type and up to `length` bytes of its content. */
  startAt(offset: number, length: number): { type: ObjectType; data: Buffer } | null;
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
    startAt(offset, length) {
      const head = readAt(packFile, offset, 16 + 4 * length);
      if (head === null || head.length === 0) return null;
      const type = TYPES[(head[0]! >> 4) & 7];
      if (type === undefined) return null;
      let at = 1;
      for (let byte = head[0]!; byte & 0x80; at++) byte = head[at] ?? 0;
      return inflatedStart(head.subarray(at), length, type);
    },
  };
  return pack;
}

/** Up to `length` bytes of a zlib stream's start; null when it does not inflate. */
function inflatedStart(deflated: Buffer, length: number, type: ObjectType): { type: ObjectType; data: Buffer } | null {
  try {
    return { type, data: zlib.inflateSync(deflated, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).subarray(0, length) };
  } catch {
    return null;
  }
}

/**
 * The tree of the commit HEAD names (gitformat-loose(5), gitformat-pack(5)): the first line of the
 * commit, loose or kept whole in a pack. Null when not sure: HEAD unborn or unreadable, a delta in a
 * pack, objects from elsewhere or replaced, more than one copy that disagree. `git worktree add PATH`
 * checks this tree out (git-worktree(1)), not the index (round 32 review F32-3; subjects/git-index.ts).
 */
export function headTree(gitDir: string): string | 'unborn' | null {
  const common = commonDirectory(gitDir);
  const hash = hashSize(common);
  const packed = packedRefs(common);
  if (hash === null || packed === null || fs.existsSync(path.join(common, 'reftable'))) return null;
  const packs = path.join(common, 'objects', 'pack');
  if (fs.existsSync(path.join(common, 'objects', 'info', 'alternates')) || fs.existsSync(path.join(packs, 'multi-pack-index')) || hasReplaceRefs(common)) return null;
  const id = readRef(gitDir, common, packed, 'HEAD', 0);
  // No commit yet (`git init`): git 2.39 refuses the worktree, later ones make it empty.
  if (id === undefined) return 'unborn';
  if (typeof id !== 'string' || id.length !== hash * 2) return null;
  const trees = new Set<string | null>();
  const treeOf = (start: { type: ObjectType; data: Buffer } | null): string | null =>
    start?.type === 'commit' ? (/^tree ([0-9a-f]{40}|[0-9a-f]{64})\n/.exec(start.data.toString('latin1'))?.[1] ?? null) : null;
  const loose = path.join(common, 'objects', id.slice(0, 2), id.slice(2));
  if (fs.existsSync(loose)) {
    const head = readAt(loose, 0, 1024);
    const start = head === null ? null : inflatedStart(head, 256, 'commit');
    const text = start?.data.toString('latin1') ?? '';
    trees.add(text.startsWith('commit ') ? treeOf({ type: 'commit', data: start!.data.subarray(text.indexOf('\0') + 1) }) : null);
  }
  const names = boundedList(packs, MAX_PACKS * 8);
  const indexes = names?.filter((name) => name.endsWith('.idx')) ?? [];
  if (names === null || indexes.length > MAX_PACKS) return null;
  for (const name of indexes) {
    if (!fs.existsSync(path.join(packs, name.replace(/\.idx$/, '.pack')))) continue;
    const pack: Pack | null = readPack(path.join(packs, name), hash);
    const found: Array<[string, number]> | null = pack === null ? null : pack.matching(id);
    if (pack === null || found === null) return null;
    for (const [full, offset] of found) if (full === id) trees.add(treeOf(pack.startAt(offset, 256)));
  }
  return trees.size === 1 ? [...trees][0]! : null;
}

/**
 * What `rev`, an operand of `git show`, `git diff` or `git cat-file`, names (gitrevisions(7)): an
 * object's type, 'path' when it names nothing but a file there (git takes it for a pathspec), 'none'
 * when nothing by any of git's rules has that name (git stops); null when not sure. git's order:
 * a full-length hex id is the object before any ref (object-name.c get_oid_basic); then the refs
 * $GIT_DIR/NAME, refs/NAME, refs/tags/NAME, refs/heads/NAME, refs/remotes/NAME,
 * refs/remotes/NAME/HEAD; then an abbreviated id or a describe name. Every rule that finds a ref must
 * agree (git versions differ on the first), and any ref that cannot be read for sure, a reftable, or
 * another worktree's refs make the answer null (docs/threat-model.md#how-git-finds-a-name).
 */
export function revisionType(gitDir: string, rev: string, cwd: string | null): ObjectType | 'path' | 'none' | null {
  if (rev === '@') return revisionType(gitDir, 'HEAD', cwd); // `@` alone is HEAD
  const common = commonDirectory(gitDir);
  if (fs.existsSync(path.join(common, 'reftable'))) return null; // refs in a reftable (git 2.45+): not read here
  const hex = /^[0-9a-f]{4,64}$/i.test(rev);
  const plain = PLAIN_REF.test(rev) && !/\.\.|\/\/|\.lock$|\/$|\.$/.test(rev);
  const types: Array<ObjectType | null> = [];
  if (hex && (rev.length === 40 || rev.length === 64)) types.push(objectType(common, rev));
  if (plain) {
    if (/^(main-worktree|worktrees)\//.test(rev)) return null; // another worktree's refs, read differently by git versions
    const found = refTypes(gitDir, common, rev);
    if (found === null) return null;
    types.push(...found);
  }
  if (types.length > 0) return types.every((type) => type === types[0]) ? types[0]! : null;
  // git-describe(1) output: `-g` and an abbreviated id names that object.
  const described = /-g([0-9a-f]{4,64})$/i.exec(rev)?.[1];
  if (described !== undefined || hex) return objectType(common, described ?? rev);
  if (cwd === null) return null;
  // A file (a word with a revision's syntax aside); a plain name of no ref, no object and no file:
  // git stops ("unknown revision or path") and prints nothing.
  if (fs.existsSync(path.resolve(cwd, rev))) return /[@^~:{}]/.test(rev) ? null : 'path';
  return plain ? 'none' : null;
}

const PLAIN_REF = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/** A linked working tree's git directory keeps its shared refs and objects in the common one (gitrepository-layout(5) `commondir`). */
function commonDirectory(gitDir: string): string {
  try {
    return path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

/** The types of what each of git's rules finds for `name` (refs.c ref_rev_parse_rules); null when a ref cannot be read for sure. */
function refTypes(gitDir: string, common: string, name: string): Array<ObjectType | null> | null {
  const packed = packedRefs(common);
  if (packed === null) return null;
  const types: Array<ObjectType | null> = [];
  for (const ref of [name, `refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`]) {
    const id = readRef(gitDir, common, packed, ref, 0);
    if (id === null) return null;
    if (id !== undefined) types.push(objectType(common, id));
  }
  return types;
}

/** packed-refs' names and ids; empty when there is none; null when it cannot be read. */
function packedRefs(common: string): Map<string, string> | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(common, 'packed-refs'), 'latin1');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? new Map() : null;
  }
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-fA-F]{40}|[0-9a-fA-F]{64}) (\S+)\r?$/.exec(line);
    if (match) refs.set(match[2]!, match[1]!.toLowerCase());
  }
  return refs;
}

/**
 * A ref's id, as git's files backend reads it (refs/files-backend.c files_ref_path): HEAD-like names
 * (`[A-Z_-]+`) and refs/worktree/, refs/bisect/, refs/rewritten/ in the worktree's own git directory
 * (gitrepository-layout(5)), every other name in the common one; a loose file (`ref: OTHER` followed)
 * before packed-refs. Undefined when it does not exist (a directory, or a symbolic ref to nothing:
 * git's lookup goes on); null when it cannot be read for sure.
 */
function readRef(gitDir: string, common: string, packed: Map<string, string>, ref: string, depth: number): string | null | undefined {
  if (depth > 5) return null;
  const perWorktree = /^[A-Z_-]+$/.test(ref) || /^refs\/(worktree|bisect|rewritten)\//.test(ref);
  // Per-worktree refs in the common directory too when they differ: git before 2.25 read them there.
  const dirs = !perWorktree ? [common] : ref.startsWith('refs/') && gitDir !== common ? [gitDir, common] : [gitDir];
  const ids = new Set<string | undefined>();
  for (const dir of dirs) {
    const file = path.join(dir, ref);
    let text: string;
    try {
      const stat = fs.lstatSync(file);
      if (stat.isDirectory()) continue;
      if (!stat.isFile()) return null; // a link: not followed here
      text = fs.readFileSync(file, 'latin1');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      return null;
    }
    const symbolic = /^ref:\s*(\S+)\s*$/.exec(text);
    if (symbolic) {
      const target = symbolic[1]!;
      if (!/^refs\/|^[A-Z_-]+$/.test(target)) return null;
      const id = readRef(gitDir, common, packed, target, depth + 1);
      if (id === null) return null;
      ids.add(id);
      continue;
    }
    const id = /^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})(\s|$)/.exec(text)?.[1];
    if (id === undefined) return null;
    ids.add(id.toLowerCase());
  }
  if (ids.size > 1) return null;
  if (ids.size === 1) return [...ids][0];
  return packed.get(ref);
}

/** A revision spelled as an object id: hex (full or abbreviated) or git-describe's `…-gHEX`; the hex part, else null. */
export function objectIdOf(rev: string): string | null {
  return /^[0-9a-f]{4,64}$/i.test(rev) ? rev.toLowerCase() : (/-g([0-9a-f]{4,64})$/i.exec(rev)?.[1]?.toLowerCase() ?? null);
}

/** Bounds on the reflogs read for one id (docs/threat-model.md#what-git-prints): past them the answer is no. */
const MAX_REFLOGS = 256;
const MAX_REFLOG_BYTES = 8 * 1024 * 1024;

/**
 * Whether a ref ever pointed at the commit `hex` (an id, maybe abbreviated): a new value in a reflog
 * of the repository (`logs/HEAD`, `logs/refs/**`, gitrepository-layout(5)) or of this working tree.
 * A commit made with `git commit-tree` around any stored blob (`git show C` printed an ignored .env
 * under the name x; git 2.39) is in none until a ref is moved to it, and then it is as any ref's
 * commit. False when not sure (bounds, unreadable files).
 */
export function refsEverNamed(gitDir: string, hex: string): boolean {
  const id = hex.toLowerCase();
  const common = commonDirectory(gitDir);
  const files: string[] = [];
  for (const head of new Set([path.join(gitDir, 'logs', 'HEAD'), path.join(common, 'logs', 'HEAD')])) if (fs.existsSync(head)) files.push(head);
  const stack = [path.join(common, 'logs', 'refs')];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) stack.push(path.join(dir, entry.name));
      else if (entry.isFile()) files.push(path.join(dir, entry.name));
      if (files.length > MAX_REFLOGS) return false;
    }
  }
  let bytes = 0;
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'latin1');
    } catch {
      return false;
    }
    bytes += text.length;
    if (bytes > MAX_REFLOG_BYTES) return false;
    // `<old> <new> <who> <when>\t<message>`: the new value is what the ref was set to.
    for (const line of text.split('\n')) if (line.slice(line.indexOf(' ') + 1).startsWith(id)) return true;
  }
  return false;
}
