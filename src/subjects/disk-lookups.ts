import { closeSync, lstatSync, openSync, readFileSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';

/**
 * What one decision has looked up on disk in git's directories, each lookup made once: finding the
 * repository from a git command's working directory (git-dir.ts repositoryProblem), the working
 * tree's top (workTreeOf), the git directory and the hooks directory of every written path
 * (gitDirectoryOf, hooksDirectoryOf) look at the same `.git`, HEAD, objects/, refs/ and config
 * (docs/performance.md, "Round 14: decision time"). Each answer, a thrown error included, is the
 * one the lookup gave the first time, so every check reads the disk as it was at one moment of
 * the decision. Never kept across decisions: the next call may have changed any of it (the reason
 * is in docs/performance.md, "Round 13: decision time").
 */
export class DiskLookups {
  // One map per kind of lookup, keyed by the path itself, no closures: a lookup answered here must
  // cost far less than the system call it saves (~1 µs), or a decision that asks once pays for it.
  private lstats: Map<string, Stats | null | Thrown> | undefined;
  private stats: Map<string, Stats | null | Thrown> | undefined;
  private texts: Map<string, string | Thrown> | undefined;
  private worked: Map<string, unknown> | undefined;

  /** `lstatSync(path, { throwIfNoEntry: false })`. */
  lstat(path: string): Stats | undefined {
    this.lstats ??= new Map();
    let known = this.lstats.get(path);
    if (known === undefined) {
      try {
        known = lstatSync(path, { throwIfNoEntry: false }) ?? null;
      } catch (error) {
        known = new Thrown(error);
      }
      this.lstats.set(path, known);
    }
    return answer(known);
  }

  /** Records what an lstat of another spelling of `path` found (the same entry): paths.ts fromParentRealpath. */
  know(path: string, stat: Stats): void {
    this.lstats ??= new Map();
    if (!this.lstats.has(path)) this.lstats.set(path, stat);
  }

  /**
   * `statSync(path, { throwIfNoEntry: false })`. Known without a lookup when this decision's lstat
   * of `path` found no link (stat then sees the same entry), or found no entry at `path`'s
   * directory (the kernel's walk ends there with ENOENT: `t7/HEAD` after the walk found no `t7`).
   */
  stat(path: string): Stats | undefined {
    this.stats ??= new Map();
    let known = this.stats.get(path);
    if (known === undefined) {
      const link = this.lstats?.get(path);
      if (link !== undefined && !(link instanceof Thrown) && (link === null || !link.isSymbolicLink())) return link ?? undefined;
      const slash = path.lastIndexOf('/');
      if (slash > 0 && this.lstats?.get(path.slice(0, slash)) === null) return undefined;
      try {
        known = statSync(path, { throwIfNoEntry: false }) ?? null;
      } catch (error) {
        known = new Thrown(error);
      }
      this.stats.set(path, known);
    }
    return answer(known);
  }

  /** `readFileSync(path, 'utf8')`. */
  text(path: string): string {
    return this.read(path, 't', () => readFileSync(path, 'utf8'));
  }

  /** `readlinkSync(path)`. */
  readlink(path: string): string {
    return this.read(path, 'l', () => readlinkSync(path));
  }

  /** `realpathSync.native(path)`. */
  realpath(path: string): string {
    return this.read(path, 'p', () => realpathSync.native(path));
  }

  /** The first 255 bytes of a file, as latin1: what git reads of HEAD (setup.c validate_headref). */
  head(path: string): string {
    return this.read(path, 'h', () => {
      // One read into a kept buffer costs less than readFileSync.
      const fd = openSync(path, 'r');
      try {
        const length = readSync(fd, HEAD_BUFFER, 0, HEAD_BUFFER.length, 0);
        return HEAD_BUFFER.toString('latin1', 0, length);
      } finally {
        closeSync(fd);
      }
    });
  }

  /** What `work` gave the first time this decision asked for `key` (its value or its error): an answer worked out from the lookups above. */
  once<T>(key: string, work: () => T): T {
    this.worked ??= new Map();
    let known = this.worked.get(key) as T | Thrown | undefined;
    if (known === undefined && !this.worked.has(key)) {
      try {
        known = work();
      } catch (error) {
        known = new Thrown(error);
      }
      this.worked.set(key, known);
    }
    if (known instanceof Thrown) throw known.error;
    return known as T;
  }

  /** The rarer reads (a `.git` file, a commondir, HEAD, a config), in one map under a one-letter kind. */
  private read(path: string, kind: string, look: () => string): string {
    this.texts ??= new Map();
    const key = kind + path;
    let known = this.texts.get(key);
    if (known === undefined) {
      try {
        known = look();
      } catch (error) {
        known = new Thrown(error);
      }
      this.texts.set(key, known);
    }
    if (known instanceof Thrown) throw known.error;
    return known;
  }
}

class Thrown {
  constructor(readonly error: unknown) {}
}

function answer(known: Stats | null | Thrown): Stats | undefined {
  if (known instanceof Thrown) throw known.error;
  return known ?? undefined;
}

const HEAD_BUFFER = Buffer.alloc(255);
