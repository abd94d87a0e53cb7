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

/** The type of what `id` (full or abbreviated hex) names in the object store of `gitDir` (its common directory). */
export function objectType(gitDir: string, hex: string): ObjectType | null {
  if (!/^[0-9a-f]{4,64}$/i.test(hex)) return null;
  const id = hex.toLowerCase(); // git reads A-F as a-f in ids and abbreviations (hex.c, object-name.c)
  // Objects from elsewhere, or some replaced by others (git-replace(1)): not this store's alone.
  if (fs.existsSync(path.join(gitDir, 'objects', 'info', 'alternates')) || hasReplaceRefs(gitDir)) return null;
  const found = new Map<string, () => ObjectType | null>();
  const loose = path.join(gitDir, 'objects', id.slice(0, 2));
  try {
    for (const name of fs.readdirSync(loose)) if ((id.slice(0, 2) + name).startsWith(id)) found.set(id.slice(0, 2) + name, () => looseType(path.join(loose, name)));
  } catch {
    // no loose object under that prefix
  }
  const packs = path.join(gitDir, 'objects', 'pack');
  let names: string[] = [];
  try {
    names = fs.readdirSync(packs).filter((name) => name.endsWith('.idx'));
  } catch {
    // no packs
  }
  for (const name of names) {
    const pack = readPack(path.join(packs, name));
    if (pack === null) return null;
    for (const [full, offset] of pack.matching(id)) if (!found.has(full)) found.set(full, () => pack.typeAt(offset, 0));
    if (found.size > 1) return null;
  }
  if (found.size !== 1) return null;
  return [...found.values()][0]!();
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
  try {
    const fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(64);
    let read: number;
    try {
      read = fs.readSync(fd, head, 0, 64, 0);
    } finally {
      fs.closeSync(fd);
    }
    const text = zlib.inflateSync(head.subarray(0, read), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('latin1');
    return (LOOSE_TYPE.exec(text)?.[1] as ObjectType | undefined) ?? null;
  } catch {
    return null;
  }
}

interface Pack {
  /** Full ids starting with `prefix`, with their offsets in the pack. */
  matching(prefix: string): Array<[string, number]>;
  /** The type of the entry at `offset`, through delta bases; null past a chain this deep or a bad entry. */
  typeAt(offset: number, depth: number): ObjectType | null;
}

/** A pack index, version 2 (SHA-1 or SHA-256 by its size), and its pack. */
function readPack(idxFile: string): Pack | null {
  let idx: Buffer;
  try {
    idx = fs.readFileSync(idxFile);
  } catch {
    return null;
  }
  if (idx.length < 8 + 1024 || idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) return null;
  const count = idx.readUInt32BE(8 + 255 * 4);
  // 8 + 1024 + count × (hash + crc + offset) + large offsets × 8 + 2 × hash, the large ones being
  // those whose offset has its top bit set: only the true hash size gives that length.
  const hash = [20, 32].find((size) => {
    const rest = idx.length - (8 + 1024 + count * (size + 8) + 2 * size);
    if (rest < 0 || rest % 8 !== 0) return false;
    let large = 0;
    for (let i = 0, at = 8 + 1024 + count * (size + 4); i < count; i++, at += 4) if (idx.readUInt32BE(at) & 0x80000000) large++;
    return rest === large * 8;
  });
  if (hash === undefined) return null;
  const ids = 8 + 1024;
  const offsets = ids + count * (hash + 4);
  const large = offsets + count * 4;
  const idAt = (i: number): string => idx.toString('hex', ids + i * hash, ids + (i + 1) * hash);
  const offsetAt = (i: number): number => {
    const value = idx.readUInt32BE(offsets + i * 4);
    return value & 0x80000000 ? Number(idx.readBigUInt64BE(large + (value & 0x7fffffff) * 8)) : value;
  };
  const find = (full: string): number | null => {
    let low = 0;
    let high = count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const at = idAt(mid);
      if (at === full) return offsetAt(mid);
      if (at < full) low = mid + 1;
      else high = mid;
    }
    return null;
  };
  const packFile = idxFile.replace(/\.idx$/, '.pack');
  const read = (offset: number, length: number): Buffer | null => {
    try {
      const fd = fs.openSync(packFile, 'r');
      try {
        const buffer = Buffer.alloc(length);
        const got = fs.readSync(fd, buffer, 0, length, offset);
        return buffer.subarray(0, got);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return null;
    }
  };
  const pack: Pack = {
    matching(prefix) {
      const out: Array<[string, number]> = [];
      const first = parseInt(prefix.slice(0, 2), 16);
      let i = first === 0 ? 0 : idx.readUInt32BE(8 + (first - 1) * 4);
      const end = idx.readUInt32BE(8 + first * 4);
      for (; i < end; i++) {
        const full = idAt(i);
        if (full.startsWith(prefix)) out.push([full, offsetAt(i)]);
        else if (full > prefix) break;
      }
      return out;
    },
    typeAt(offset, depth) {
      if (depth > 64) return null;
      const head = read(offset, 32 + hash);
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
        const base = find(head.toString('hex', at, at + hash));
        return base === null ? null : pack.typeAt(base, depth + 1);
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
