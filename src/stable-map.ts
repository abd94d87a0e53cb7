/**
 * A Map for the calls in flight, which empties after every call when calls come one at a time. V8
 * gives a Map a new hash table (a runtime call and an allocation) each time its last entry is
 * deleted; one hidden entry that is never deleted keeps the table (docs/performance.md#the-hot-path).
 *
 * The table lives in the old generation once it has, and a table V8 replaces there (as it does after
 * enough deletes) keeps every entry it held reachable for the young generation's collections until
 * the next full one: a value removed from here should hold nothing of its call (docs/performance.md,
 * "Round 8").
 */
const KEEP: unique symbol = Symbol('kept entry');

export class StableMap<K, V> {
  private readonly map = new Map<K | typeof KEEP, V | undefined>([[KEEP, undefined]]);

  get size(): number {
    return this.map.size - 1;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): this {
    this.map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  /** The keys, as a list taken now (so entries may be deleted while it is walked). */
  keys(): K[] {
    const keys: K[] = [];
    for (const key of this.map.keys()) if (key !== KEEP) keys.push(key);
    return keys;
  }

  /** The values, as a list taken now. */
  values(): V[] {
    const values: V[] = [];
    for (const [key, value] of this.map) if (key !== KEEP) values.push(value as V);
    return values;
  }

  /** The entries, as a list taken now. */
  entries(): Array<[K, V]> {
    const entries: Array<[K, V]> = [];
    for (const [key, value] of this.map) if (key !== KEEP) entries.push([key, value as V]);
    return entries;
  }
}
