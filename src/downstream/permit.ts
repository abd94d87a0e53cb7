/**
 * The only way a tools/call or a resources/read reaches a server is by spending a permit, and the
 * only place that issues permits is the call pipeline after a rule or a person allowed the call
 * (gateway/call.ts). A permit is bound to one server, tool and argument digest and can be spent
 * once, so an approved call is forwarded exactly once and nothing else rides on its approval.
 */
export interface Permit {
  readonly server: string;
  /** The server's own tool name, or `resources/read` for a resource URI. */
  readonly target: string;
  readonly digest: string;
}

export class PermitBook {
  private readonly live = new WeakSet<Permit>();

  issue(server: string, target: string, digest: string): Permit {
    const permit = Object.freeze({ server, target, digest });
    this.live.add(permit);
    return permit;
  }

  /** Spends a permit; throws when it was never issued, is spent, or is for another call. */
  spend(permit: Permit, server: string, target: string, digest: string): void {
    if (!this.live.has(permit)) throw new Error('mcp-latch internal error: forward without a valid permit');
    this.live.delete(permit);
    if (permit.server !== server || permit.target !== target || permit.digest !== digest) {
      throw new Error('mcp-latch internal error: permit does not match the call');
    }
  }
}
