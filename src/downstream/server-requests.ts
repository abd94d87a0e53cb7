/**
 * A server's own requests the gateway answers in its place (`ping`, methods it does not serve), bounded
 * per server: at most OWN_ANSWERS_PER_WINDOW in OWN_ANSWERS_WINDOW_MS, the rest dropped unanswered and
 * counted in one warning. Its sampling, elicitation and roots requests (RELAYED_REQUESTS) have their
 * own bounds (gateway/relay.ts). A stdio server's `ping` flood was parsed and answered as fast as the
 * gateway's thread could (round 27 review, P27-3); a remote server's was answered by a new POST each,
 * none of them bounded, and the gateway stalled (round 28 review, P28-4). Past the bound a stdio
 * server's stdout is not read until the window ends (`reading`): each request dropped was still read
 * and parsed, ~20 µs of the gateway's CPU apiece, 75,000–105,000 a second for one server's flood of
 * small pings, 1.5–2.1 s of CPU a second (round 28, G28-1; docs/performance.md, "Round 28"); its
 * answers wait as long. A module of its own, without imports: child-transport.ts, in boot.cjs, uses
 * it (own-answer.ts says why).
 *
 * The requests the gateway relays to the client (RELAYED_REQUESTS) are counted apart, RELAYED_PER_WINDOW
 * a second, in the same window: until round 29 they were not counted at all, so a server's `roots/list`
 * reached the client ~1,000 times a second (round 28 review, P28-5), and its sampling requests to a
 * client that takes none were refused as fast as it wrote them, unlogged, ~0.4 s of the gateway's CPU
 * a second (round 29 review, P29-1). Past the rate a stdio server's are slowed, not dropped: its stdout
 * is not read until the window ends, and what the read in hand holds is still relayed (a read's worth
 * at most), so each of them gets its answer — a dropped one left the server's tool call waiting for
 * its own timeout (a server asking 2,000 questions in a row as fast as they were answered,
 * test/faults/prompt-memory.test.ts). A remote server's, whose output is not paused, are dropped.
 * Their own bounds (gateway/relay.ts: 8 open, 32 questions waiting) are of what is open, not of the rate.
 */
export const OWN_ANSWERS_PER_WINDOW = 100;
export const OWN_ANSWERS_WINDOW_MS = 1_000;
export const RELAYED_REQUESTS: ReadonlySet<string> = new Set(['sampling/createMessage', 'elicitation/create', 'roots/list']);
/** Higher than OWN_ANSWERS_PER_WINDOW: a server asking many questions one after another (test/faults/prompt-memory.test.ts, 16 at once) is slowed less often; each relayed request costs the gateway ~5 µs. */
export const RELAYED_PER_WINDOW = 1_000;

/** Where the count of what was dropped goes, once per window that dropped any. */
type Warn = (fields: Record<string, unknown>, message: string) => void;

export class OwnAnswers {
  private answered = 0;
  private dropped = 0;
  /** The same for the requests the gateway relays (RELAYED_REQUESTS). */
  private relayed = 0;
  private droppedRelayed = 0;
  /** Relayed past RELAYED_PER_WINDOW while the server's output was already stopped (a stdio server's). */
  private overRelayed = 0;
  private paused = false;
  private window: NodeJS.Timeout | null = null;

  constructor(
    private readonly warn: Warn,
    /** What a dropped request is, for the warning (`ping, or methods mcp-latch does not serve`). */
    private readonly what = 'ping, or methods mcp-latch does not serve',
    /** The server's output, stopped at the first request past a bound in a window and read again when it ends (a stdio server's). */
    private readonly reading?: { stop(): void; resume(): void },
  ) {}

  /** Whether a request of the server's `method` is taken in this window; false: it is dropped, and counted. */
  takes(method: string): boolean {
    if (this.window === null) this.open();
    const relay = RELAYED_REQUESTS.has(method);
    if (relay ? this.relayed < RELAYED_PER_WINDOW : this.answered < OWN_ANSWERS_PER_WINDOW) {
      if (relay) this.relayed += 1;
      else this.answered += 1;
      return true;
    }
    this.pause();
    if (relay && this.reading) {
      this.overRelayed += 1;
      return true;
    }
    if (relay) this.droppedRelayed += 1;
    else this.dropped += 1;
    return false;
  }

  private pause(): void {
    if (this.paused || !this.reading) return;
    this.paused = true;
    this.reading.stop();
  }

  private open(): void {
    this.window = setTimeout(() => {
      this.window = null;
      const { dropped, droppedRelayed, overRelayed, paused } = this;
      this.answered = 0;
      this.relayed = 0;
      this.dropped = 0;
      this.droppedRelayed = 0;
      this.overRelayed = 0;
      this.paused = false;
      if (paused) this.reading?.resume();
      const notRead = this.reading ? `; its output was not read for the rest of the ${OWN_ANSWERS_WINDOW_MS / 1000} s` : '';
      if (dropped > 0) this.warn({ dropped, limit: OWN_ANSWERS_PER_WINDOW }, `dropped ${dropped.toLocaleString('en-US')} requests of this server (${this.what}) past ${OWN_ANSWERS_PER_WINDOW} in ${OWN_ANSWERS_WINDOW_MS / 1000} s, unanswered${notRead}`);
      if (overRelayed > 0) this.warn({ over: overRelayed, limit: RELAYED_PER_WINDOW }, `slowed this server's requests (sampling, elicitation or roots/list, which mcp-latch relays to the client): past ${RELAYED_PER_WINDOW} in ${OWN_ANSWERS_WINDOW_MS / 1000} s its output was not read for the rest of the ${OWN_ANSWERS_WINDOW_MS / 1000} s (${overRelayed.toLocaleString('en-US')} relayed past the rate from what was read already)`);
      if (droppedRelayed > 0) this.warn({ dropped: droppedRelayed, limit: RELAYED_PER_WINDOW }, `dropped ${droppedRelayed.toLocaleString('en-US')} requests of this server (sampling, elicitation or roots/list, which mcp-latch relays to the client) past ${RELAYED_PER_WINDOW} in ${OWN_ANSWERS_WINDOW_MS / 1000} s, unanswered${notRead}`);
    }, OWN_ANSWERS_WINDOW_MS);
    this.window.unref();
  }
}
