/**
 * The request bodies one user's connections are sending the gateway at once (docs/team.md, "What
 * one user's requests may hold"): each is kept whole until it is parsed, up to `limits.messageMB`,
 * and a client may take Node's `requestTimeout` (300 s) to send it. Until round 20 nothing bounded
 * how many: one member's token held 60 bodies of 10 MB one byte short, no session needed, and the
 * gateway grew 10 MiB for each (round 20 review, T20-6).
 *
 * One body alone may always reach `limits.messageMB`; bodies sent besides it may bring the user's
 * total to `http.maxReadingMBPerUser`, and a chunk past that ends its request (429).
 */
export class ReadingLimit extends Error {}

export class ReadingBudget {
  private bytes = 0;
  private bodies = 0;

  constructor(
    private readonly user: string,
    /** `http.maxReadingMBPerUser` in bytes, read at each chunk (a reload applies at once). */
    private readonly most: () => number,
  ) {}

  /** A body starts; `end` gives back what it took. */
  start(): { take(bytes: number): void; end(): void } {
    this.bodies += 1;
    let taken = 0;
    let ended = false;
    return {
      take: (bytes) => {
        const most = this.most();
        if (this.bodies > 1 && this.bytes + bytes > most) throw new ReadingLimit(`user ${this.user} is sending ${mb(this.bytes + bytes)} MB of request bodies at once (${this.bodies} requests), past http.maxReadingMBPerUser (${mb(most)} MB); send fewer at once, or raise http.maxReadingMBPerUser`);
        this.bytes += bytes;
        taken += bytes;
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.bodies -= 1;
        this.bytes -= taken;
      },
    };
  }
}

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}
