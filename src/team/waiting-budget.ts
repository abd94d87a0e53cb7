/**
 * What one user's calls waiting in the latch of this replica may hold together (docs/team.md,
 * "Where a call waits"): a count and the bytes of their arguments, each kept until the call leaves
 * the latch. Until round 16 nothing bounded them: one member's 40 waiting calls of 9 MB ended the
 * shared gateway (heap out of memory) for every member (round 16 review T2).
 */
export interface WaitingLimits {
  calls: number;
  bytes: number;
}

export class WaitingBudget {
  private calls = 0;
  private bytes = 0;
  /** Of `calls`, those answered "pending" and kept for their retry window (keep). */
  private kept = 0;

  constructor(
    private readonly user: string,
    private readonly limits: () => WaitingLimits,
  ) {}

  /** Takes a place for a call of `bytes`; null when taken, else why not, naming the key that raises the limit. */
  take(bytes: number): string | null {
    const { calls, bytes: most } = this.limits();
    const kept = this.kept > 0 ? ` (${this.kept} of them answered "pending" and kept for a retry until their approval.retryWindowSeconds ends)` : '';
    if (this.calls >= calls) return `user ${this.user} has ${this.calls} calls waiting already${kept}, the most http.maxWaitingCallsPerUser (${calls}) allows; answer or cancel some, or raise http.maxWaitingCallsPerUser`;
    if (this.bytes + bytes > most) return `user ${this.user}'s waiting calls${kept} hold ${mb(this.bytes)} MB of arguments and this one ${mb(bytes)} MB, past http.maxWaitingMBPerUser (${mb(most)} MB); answer or cancel some, or raise http.maxWaitingMBPerUser`;
    this.calls += 1;
    this.bytes += bytes;
    return null;
  }

  give(bytes: number): void {
    this.calls -= 1;
    this.bytes -= bytes;
  }

  /**
   * A call leaving the latch answered "pending" whose arguments the store keeps for its retry
   * window: it keeps its place, taken here before the latch gives back its own, so it is never
   * refused (round 31 review, T31-1: they counted nowhere). Given back with `release`.
   */
  keep(bytes: number): void {
    this.calls += 1;
    this.bytes += bytes;
    this.kept += 1;
  }

  release(bytes: number): void {
    this.kept -= 1;
    this.give(bytes);
  }
}

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}
