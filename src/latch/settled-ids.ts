/**
 * The ids of the most recent calls that were answered or withdrawn, at most `limit` of them: a late
 * second answer is told "settled" rather than "unknown", and the set never grows past the limit.
 */
export class SettledIds {
  private readonly ids = new Set<string>();

  constructor(private readonly limit: number) {}

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.limit) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}
