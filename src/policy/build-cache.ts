/**
 * What one build of the rules made, kept for the next build: a reload after "Always allow" adds one
 * rule to thousands, and parsing every rule again and compiling every glob again took most of the
 * reload, during which no call of that gateway was decided (docs/performance.md, "Round 18:
 * remembered rules at scale"). Only pure results are kept (a function of the key alone, never of
 * the file system or the workspace) and shared read-only by the builds that meet the same key.
 *
 * Two generations, bounded: a value found in the older one is moved to the newer; when the newer
 * holds `limit` entries it becomes the older and the older is dropped. What the live rules use
 * stays, what no build met for a generation goes; at most 2 × `limit` entries are kept.
 */
export class BuildCache<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K, make: () => V): V {
    let value = this.recent.get(key);
    if (value !== undefined) return value;
    value = this.older.get(key);
    if (value === undefined) value = make();
    else this.older.delete(key);
    if (this.recent.size >= this.limit) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, value);
    return value;
  }
}

/** Entries per generation of each cache: more than any config we know of holds rules (a larger one still works, rebuilding more). */
export const BUILD_CACHE_LIMIT = 50_000;
