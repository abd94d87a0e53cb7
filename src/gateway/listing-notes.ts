/**
 * What a list answer did with a server's entries other than pass them on: held as added later,
 * listed as pinned while the server lists a changed definition, left out as not showable. Told in
 * the log once per server and change, as one line with the count and the first few names, and only
 * what the last list of each method holds is remembered. Before (round 19 review, F-heldlog and
 * F-unshowlog), each entry got a line of its own and a key kept for the process's life: a server
 * listing thousands of fresh entries at each listing wrote thousands of lines a listing (6 MB of log
 * in 8 s) and grew the set without bound (docs/pins.md, "A tool added later").
 */

/** How many entries a line names; the rest are counted. */
export const NAMED_IN_LINE = 3;

/** One server's entries of one kind of note in one list answer. */
export interface NoteGroup {
  readonly server: string;
  /** Every entry's name, as listed. */
  readonly names: string[];
  /** The first NAMED_IN_LINE entries' details (what the line says of each). */
  readonly details: string[];
  /** What identifies the group's entries (names, and what may change under a name), to tell a change. */
  readonly keys: string[];
}

export class ListingNotes {
  /** By list method, each group's key (`kind server`) and what was told of it at the method's last list. */
  private readonly told = new Map<string, Map<string, string>>();

  /** A list answer of `method` starts: its notes are told at `end`. */
  pass(method: string): ListingPass {
    return new ListingPass(method, (groups) => this.end(method, groups));
  }

  private end(method: string, groups: Map<string, { kind: string; group: NoteGroup }>): Array<{ kind: string; group: NoteGroup }> {
    const before = this.told.get(method);
    const now = new Map<string, string>();
    const changed: Array<{ kind: string; group: NoteGroup }> = [];
    for (const [key, entry] of groups) {
      const signature = [...entry.group.keys, '', ...entry.group.details].join('\n');
      now.set(key, signature);
      if (before?.get(key) !== signature) changed.push(entry);
    }
    // Only what this list holds: a group gone and back is told again, and nothing else is kept.
    if (now.size > 0) this.told.set(method, now);
    else this.told.delete(method);
    return changed;
  }
}

export class ListingPass {
  private readonly groups = new Map<string, { kind: string; group: NoteGroup }>();

  constructor(
    readonly method: string,
    private readonly ended: (groups: Map<string, { kind: string; group: NoteGroup }>) => Array<{ kind: string; group: NoteGroup }>,
  ) {}

  /**
   * Notes an entry. `key`: what tells a change of it (its name, or with a digest); `detail`: what the
   * line says of it, asked only of the first NAMED_IN_LINE of its server and kind.
   */
  note(kind: string, server: string, name: string, key: string, detail: () => string): void {
    const id = `${kind} ${server}`;
    let entry = this.groups.get(id);
    if (entry === undefined) {
      entry = { kind, group: { server, names: [], details: [], keys: [] } };
      this.groups.set(id, entry);
    }
    const { group } = entry;
    if (group.details.length < NAMED_IN_LINE) group.details.push(detail());
    group.names.push(name);
    group.keys.push(key);
  }

  /** The groups that differ from what the last list of this method told (each to be told once). */
  end(): Array<{ kind: string; group: NoteGroup }> {
    return this.ended(this.groups);
  }
}

/** "a, b, c and 4,997 more" for a group's names. */
export function namedAndCounted(group: NoteGroup): string {
  const named = group.names.slice(0, NAMED_IN_LINE).join(', ');
  const more = group.names.length - NAMED_IN_LINE;
  return more > 0 ? `${named} and ${more.toLocaleString('en-US')} more` : named;
}
