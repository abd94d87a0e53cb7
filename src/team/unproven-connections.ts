import type { Socket } from 'node:net';

/**
 * The connections that have made no authenticated request yet (docs/team.md, "Listening"). Anyone
 * who reaches the port opens them, token or not, and Node bounds neither their number nor, for 60 s,
 * their idleness: until round 20 two peers holding 30,000 idle sockets took every descriptor of
 * the gateway and each member's request was reset (round 20 review, T20-2). At most
 * `http.maxUnauthenticatedConnections` are kept: a new one past it closes the oldest. A member's
 * connection leaves the set with its first authenticated request, within a few milliseconds of
 * opening, so a flood closes the flood's own sockets, not the members'.
 */
export class UnprovenConnections {
  /** Oldest first (a Set keeps insertion order). */
  private readonly sockets = new Set<Socket>();
  private closed = 0;
  private lastWarning = 0;

  constructor(
    private readonly most: () => number,
    private readonly warn: (closed: number, most: number) => void,
  ) {}

  /** A new connection; the oldest unproven one is closed when there are too many. */
  admit(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    const most = this.most();
    while (this.sockets.size > most) {
      const oldest = this.sockets.values().next().value as Socket;
      this.sockets.delete(oldest);
      oldest.destroy();
      this.closed += 1;
    }
    // One warning per 10 s at most: a flood is thousands of connections a second.
    const now = Date.now();
    if (this.closed > 0 && now - this.lastWarning >= 10_000) {
      this.lastWarning = now;
      this.warn(this.closed, most);
      this.closed = 0;
    }
  }

  /** The connection made an authenticated request: it is a member's, and no longer counted. */
  proven(socket: Socket): void {
    this.sockets.delete(socket);
  }
}
