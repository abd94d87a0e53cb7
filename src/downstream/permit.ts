import { internalError } from '../errors.js';
/**
 * The only way a tools/call or a resources/read reaches a server is by spending a permit, and the
 * only place that issues permits is the call pipeline after a rule or a person allowed the call
 * (gateway/call.ts). A permit is bound to one server, tool and the very arguments object that was
 * decided on (identity, so nothing can be swapped in after the decision without recomputing a
 * digest on the hot path), and can be spent once: an approved call is forwarded exactly once.
 */
export interface Permit {
  readonly server: string;
  /** The server's own tool name, or `resources/read` for a resource URI. */
  readonly target: string;
  readonly args: unknown;
}

export class PermitBook {
  private readonly live = new WeakSet<Permit>();

  issue(server: string, target: string, args: unknown): Permit {
    const permit = Object.freeze({ server, target, args });
    this.live.add(permit);
    return permit;
  }

  /** Spends a permit; throws when it was never issued, is spent, or is for another call. */
  spend(permit: Permit, server: string, target: string, args: unknown): void {
    if (!this.live.has(permit)) throw internalError('forward without a valid permit');
    this.live.delete(permit);
    if (permit.server !== server || permit.target !== target || permit.args !== args) {
      throw internalError('permit does not match the call');
    }
  }
}
