/**
 * Values under the ids of calls in flight, which count up (DirectCalls' request ids, and those of
 * the SDK's clients): each value is in the slot of a fixed array that its id gives, and one whose
 * slot is taken (a call still waiting after `slots` later ones), or whose id is a string, in a Map
 * beside it.
 *
 * Not a Map because of how V8 treats a long-lived one whose entries come and go. After enough
 * deletes V8 replaces the Map's hash table. When the old table is in the old generation, the new
 * one is allocated there too, and the replaced table keeps the entries it held reachable for the
 * young generation's collections until the next full one (docs/performance.md, "Round 8"). A slot
 * is overwritten instead.
 */
export class IdSlots<V, K extends number | string = number> {
  /** The id in each slot; NaN when the slot is free (no id equals it). */
  private readonly ids: number[];
  private readonly slotValues: Array<V | undefined>;
  private readonly mask: number;
  private readonly overflow = new Map<K, V>();
  private inSlots = 0;

  /** `slots`: a power of two. */
  constructor(slots = 256) {
    this.mask = slots - 1;
    this.ids = new Array<number>(slots).fill(NaN);
    this.slotValues = new Array<V | undefined>(slots).fill(undefined);
  }

  get size(): number {
    return this.inSlots + this.overflow.size;
  }

  get(id: K): V | undefined {
    const slot = (id as number) & this.mask;
    if (this.ids[slot] === id) return this.slotValues[slot];
    return this.overflow.size > 0 ? this.overflow.get(id) : undefined;
  }

  has(id: K): boolean {
    const slot = (id as number) & this.mask;
    return this.ids[slot] === id || (this.overflow.size > 0 && this.overflow.has(id));
  }

  set(id: K, value: V): this {
    const slot = (id as number) & this.mask;
    const held = this.ids[slot];
    if (held === id) this.slotValues[slot] = value;
    else if (typeof id === 'number' && Number.isNaN(held) && !(this.overflow.size > 0 && this.overflow.has(id))) {
      this.ids[slot] = id;
      this.slotValues[slot] = value;
      this.inSlots += 1;
    } else this.overflow.set(id, value);
    return this;
  }

  delete(id: K): boolean {
    const slot = (id as number) & this.mask;
    if (this.ids[slot] !== id) return this.overflow.size > 0 && this.overflow.delete(id);
    this.ids[slot] = NaN;
    this.slotValues[slot] = undefined;
    this.inSlots -= 1;
    return true;
  }

  /** The ids, as a list taken now (so entries may be deleted while it is walked). */
  keys(): K[] {
    return this.entries().map(([id]) => id);
  }

  /** The values, as a list taken now. */
  values(): V[] {
    return this.entries().map(([, value]) => value);
  }

  /** The entries, as a list taken now: the slots' in slot order, then the others'. */
  entries(): Array<[K, V]> {
    const entries: Array<[K, V]> = [];
    if (this.inSlots > 0) {
      for (let slot = 0; slot < this.ids.length; slot++) if (!Number.isNaN(this.ids[slot])) entries.push([this.ids[slot] as K, this.slotValues[slot] as V]);
    }
    for (const entry of this.overflow) entries.push(entry);
    return entries;
  }
}
