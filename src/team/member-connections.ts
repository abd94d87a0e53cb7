import type { Socket } from 'node:net';

/**
 * The connections of each member (docs/team.md, "Listening"): a connection is its member's from an
 * authenticated request until it closes (the member of its latest request, as a proxy's pooled
 * connection carries several members' requests in turn). At most `http.maxConnectionsPerUser` are
 * one member's: a request that would make one more is refused (429, the connection closed), so one
 * member cannot take the gateway's descriptors from the others. Until round 30 nothing bounded them
 * once authenticated: one member's token held 1,100 requests whose bodies never came, the gateway
 * reached its descriptor limit (1,024 there; 20,000 on the development machine) and every other
 * member's request timed out (round 30 review, T30-2).
 */
export class MemberConnections {
  private readonly byUser = new Map<string, Set<Socket>>();
  private readonly owner = new WeakMap<Socket, string>();
  private refused = 0;
  private lastWarning = 0;

  constructor(
    private readonly most: () => number,
    private readonly warn: (user: string, refused: number, most: number) => void,
  ) {}

  /** Counts `socket` as `user`'s; false when that would take them past the limit (the caller refuses the request). */
  claim(socket: Socket, user: string): boolean {
    const current = this.owner.get(socket);
    if (current === user) return true;
    const own = this.byUser.get(user) ?? new Set<Socket>();
    const most = this.most();
    if (own.size >= most) {
      this.refused += 1;
      // One warning per 10 s at most: a flood is many requests a second.
      const now = Date.now();
      if (now - this.lastWarning >= 10_000) {
        this.lastWarning = now;
        this.warn(user, this.refused, most);
        this.refused = 0;
      }
      return false;
    }
    if (current !== undefined) this.release(socket, current);
    else socket.once('close', () => this.release(socket, this.owner.get(socket)));
    own.add(socket);
    this.byUser.set(user, own);
    this.owner.set(socket, user);
    return true;
  }

  /** How many connections are `user`'s now. */
  count(user: string): number {
    return this.byUser.get(user)?.size ?? 0;
  }

  private release(socket: Socket, user: string | undefined): void {
    if (user === undefined) return;
    const own = this.byUser.get(user);
    if (!own) return;
    own.delete(socket);
    if (own.size === 0) this.byUser.delete(user);
    this.owner.delete(socket);
  }
}
