import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives memory back once a burst of calls is over. During a burst V8 promotes garbage into its old
 * space and lets that space grow ~8 MiB past the live data before a full collection; a gateway then
 * sits idle with those pages resident, since V8's own memory reducer starts only after some full
 * collections, and then ~8 s later (docs/performance.md, "Memory"). Here: once a whole period has
 * passed with nothing read from the client and no tools/call in flight, and the heap is at least
 * `minGrowthBytes` larger than the last collection here left it, two full collections run (the second
 * is what returns the emptied pages), the first compacting the old space (`fullCollection`). The heap is counted as V8 has it committed, which is what stays
 * resident: a heap whose used part shrank at V8's own last collection can still hold the pages. What
 * the collection returns is about that growth, since it leaves the heap about where the last one did;
 * V8's memory reducer may shrink it below that on its own, but collecting here would not, so such a
 * low is not taken as the mark (docs/performance.md, "Round 9: the idle collector after a burst"). The
 * first quiet period after start collects whatever the growth: the start-up's garbage (the serve
 * bundle's text read for the code cache, the config's parse, the servers' handshakes and lists) was
 * made before the collector's baseline, ~2 MiB resident (docs/performance.md, "Memory"). The timer
 * runs only from the first read after a quiet period until the next quiet period: nothing is done
 * per call, and an idle gateway is not woken.
 */
export interface IdleCollectorParts {
  /** What the client sends arrives here (the `data` events are watched only while quiet, `bytesRead` read at each tick; any count that grows will do). */
  input: Pick<NodeJS.EventEmitter, 'once' | 'removeListener'> & { bytesRead?: number };
  /** tools/call requests not answered yet. */
  inFlight(): number;
  /** V8's heap as committed, bytes. */
  heapSize?: () => number;
  /** A full collection, compacting when asked; `fullCollection` unless a test gives its own. */
  collect?: (compact: boolean) => void;
  /** Called after each collection, once the baseline is read: serve warms the call path again (core.ts, warmAgain). */
  collected?: () => void;
  /** Told of each quiet period's outcome (for the log). */
  report?: (outcome: IdleOutcome, detail: { inFlight: number; heapBefore: number; heapAfter: number }) => void;
}

/** What a tick found: input arrived, a call in flight, too little growth to collect, or collected. */
export type IdleOutcome = 'active' | 'in-flight' | 'small' | 'collected';

export const IDLE_PERIOD_MS = 1000;
/** Below this, the ~40 ms of two full collections would return less than a MiB (docs/performance.md, "Round 9: the idle collector after a burst"). */
export const IDLE_MIN_GROWTH_BYTES = 1024 * 1024;

export class IdleCollector {
  /** Quiet periods that ended in a collection. */
  collections = 0;
  private timer: NodeJS.Timeout | null = null;
  private bytesSeen = 0;
  private baseline: number;
  private lastOutcome: IdleOutcome | null = null;
  private closed = false;
  /** No quiet period has ended yet: the next collects, as the start-up's garbage is not in the growth. */
  private started = true;
  private readonly heapSize: () => number;
  private readonly collect: (compact: boolean) => void;

  constructor(
    private readonly parts: IdleCollectorParts,
    private readonly periodMs = IDLE_PERIOD_MS,
    private readonly minGrowthBytes = IDLE_MIN_GROWTH_BYTES,
  ) {
    this.heapSize = parts.heapSize ?? (() => getHeapStatistics().total_heap_size);
    this.collect = parts.collect ?? fullCollection;
    this.baseline = this.heapSize();
    this.armOnInput();
  }

  /** Whether the period timer is running (a burst is under way or just ended). */
  get watching(): boolean {
    return this.timer !== null;
  }

  /** One period later: what happened since the last tick decides. Public so tests can step it. */
  tick(): IdleOutcome {
    const bytes = this.parts.input.bytesRead ?? 0;
    const inFlight = this.parts.inFlight();
    const heapBefore = this.heapSize();
    let outcome: IdleOutcome;
    if (bytes !== this.bytesSeen) {
      this.bytesSeen = bytes;
      outcome = 'active';
    } else if (inFlight > 0) {
      outcome = 'in-flight';
    } else {
      this.stopTimer();
      this.armOnInput();
      const afterStart = this.started;
      this.started = false;
      if (!afterStart && heapBefore - this.baseline < this.minGrowthBytes) {
        outcome = 'small';
      } else {
        this.collect(true);
        this.collect(false);
        this.collections++;
        this.baseline = this.heapSize();
        outcome = 'collected';
        this.parts.collected?.();
      }
    }
    // 'active' is every period of a burst: only changes are told.
    if (outcome !== this.lastOutcome || outcome === 'collected') this.parts.report?.(outcome, { inFlight, heapBefore, heapAfter: outcome === 'collected' ? this.baseline : heapBefore });
    this.lastOutcome = outcome;
    return outcome;
  }

  close(): void {
    this.closed = true;
    this.stopTimer();
    this.parts.input.removeListener('data', this.onInput);
  }

  private readonly onInput = (): void => {
    if (this.closed || this.timer) return;
    this.bytesSeen = this.parts.input.bytesRead ?? 0;
    this.lastOutcome = null;
    this.timer = setInterval(() => this.tick(), this.periodMs).unref();
  };

  /** The next read starts the timer; `once`, so a burst's reads pay nothing for it. */
  private armOnInput(): void {
    if (!this.closed) this.parts.input.once('data', this.onInput);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

let gc: (() => void) | null = null;

/**
 * A full garbage collection. Node offers none without `--expose-gc` on its command line (which
 * MCP clients write, not us); set at run time the flag gives `gc` to contexts made after it, so one
 * is made, once, and the flag is turned off again.
 *
 * `compact`: the collection also moves the old space's survivors together. A plain one moves only
 * those of pages that are mostly garbage, and keeps the others whole: the start-up and a burst leave
 * ~2 MiB of such pages resident in an idle gateway (docs/performance.md, "Round 13: start and
 * memory"). Compacting costs CPU (~15-25 ms more in an idle gateway), so only the idle collector's
 * first collection asks for it; the flag is read at each collection and set back at once, so V8's
 * own collections during a burst never compact.
 */
export function fullCollection(compact = false): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
  }
  if (!compact) return gc();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}
