/**
 * The end of a pipe's read: work that follows from a read (the client's calls handed over, the
 * replies written to the client) runs as the read's handling returns, instead of a microtask later.
 * Between the two, the stack unwound through the line reader and the stream, and the microtask queue
 * ran whatever an earlier turn had left in it: ~1 µs on each side of a warm call, on the path the
 * client waits on (docs/performance.md, "Round 18: the warm path").
 *
 * Only what would have been the first microtask of its kind is moved: the work registered here runs
 * in the order it was registered, once every line of the read has been handled, and before any
 * microtask of the turn. A reader that gives no read end (a remote server, the team gateway's HTTP)
 * is told so (`atReadEnd` answers false) and keeps its microtask.
 */

/** Reads being handled (a read's work that reads again, synchronously, does not end it). */
let depth = 0;
/** Work to run when the outermost read's handling returns; a list reused with a count. */
const waiting: Array<(() => void) | null> = [];
let count = 0;

/** Marks the start of a read's handling; pair each with `readEnded` in a `finally`. */
export function readStarted(): void {
  depth += 1;
}

/**
 * Marks the end of a read's handling: at the outermost, runs the work registered during it, in
 * order, and what that work registers in turn. Each runs whatever another throws; the first error
 * is thrown when all have run (to the read's own error handling, as it would have reached the read).
 */
export function readEnded(): void {
  if (depth > 1 || count === 0) {
    depth -= 1;
    return;
  }
  let failure: { error: unknown } | null = null;
  // Still "reading" while the work runs: what it registers joins this list, after it.
  for (let index = 0; index < count; index++) {
    const run = waiting[index]!;
    waiting[index] = null;
    try {
      run();
    } catch (error) {
      failure ??= { error };
    }
  }
  count = 0;
  depth -= 1;
  if (failure) throw failure.error;
}

/** Registers `run` for the end of the read being handled and answers true; outside a read, answers false and runs nothing. */
export function atReadEnd(run: () => void): boolean {
  if (depth === 0) return false;
  waiting[count++] = run;
  return true;
}
