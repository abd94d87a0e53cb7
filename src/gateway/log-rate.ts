/**
 * The most log messages (`notifications/message`) of one server relayed to one client session in a
 * second (relay.ts onLog): past it they are dropped and counted, and when the second ends the session
 * is told the count in one warning of mcp-latch's own, as is the gateway's log (a server's stderr is
 * bounded the same way: child-transport.ts stderrLog). A server's 1,000,000 small log messages were
 * relayed one for one: the client read them slower than they came, up to limits.messageMB of them
 * waited ahead of every other server's answers (3–11 s for an echo), and the flood took the gateway
 * 20 s of CPU (round 30 review, P30-1; docs/config.md, "limits").
 */
export const LOG_MESSAGES_PER_SECOND = 100;

/** One server's messages to one session in the current second, and what to tell when it ends. */
interface Second {
  relayed: number;
  dropped: number;
  told: (dropped: number) => void;
}

export class LogRate {
  private readonly seconds = new Map<string, Second>();

  /**
   * Whether a log message of `server` to `session` (undefined: the one client over stdio) is relayed
   * in this second; false: it is dropped and counted, and `told` is called with the count when the
   * second ends (the first dropped one's `told`).
   */
  takes(server: string, session: string | undefined, told: (dropped: number) => void): boolean {
    const key = session === undefined ? server : `${server}\u0000${session}`;
    let second = this.seconds.get(key);
    if (second === undefined) {
      second = { relayed: 0, dropped: 0, told };
      this.seconds.set(key, second);
      const opened = second;
      setTimeout(() => {
        this.seconds.delete(key);
        if (opened.dropped > 0) opened.told(opened.dropped);
      }, 1_000).unref();
    }
    if (second.relayed < LOG_MESSAGES_PER_SECOND) {
      second.relayed += 1;
      return true;
    }
    if (second.dropped === 0) second.told = told;
    second.dropped += 1;
    return false;
  }
}
