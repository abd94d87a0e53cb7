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

/** What IssuedPermit's constructor asks for: only this module has it, so only PermitBook.issue makes a permit. */
const ISSUING = Symbol('issuing a permit');

/**
 * A permit as PermitBook issues it. Its fields are private (read through getters, never written
 * from outside), and it knows the book that issued it until it is spent: a plain object, a permit
 * of another book, or one spent already is refused. A frozen object kept in a WeakSet did the same
 * at ~1k instructions a call: the WeakSet's table added to, deleted from and rehashed in the old
 * generation (docs/performance.md, "Round 14: the warm path").
 */
class IssuedPermit implements Permit {
  #book: PermitBook | null;
  readonly #server: string;
  readonly #target: string;
  readonly #args: unknown;

  constructor(issuing: symbol, book: PermitBook, server: string, target: string, args: unknown) {
    if (issuing !== ISSUING) throw internalError('a permit is issued only by its PermitBook');
    this.#book = book;
    this.#server = server;
    this.#target = target;
    this.#args = args;
  }

  get server(): string {
    return this.#server;
  }

  get target(): string {
    return this.#target;
  }

  get args(): unknown {
    return this.#args;
  }

  /** Spends the permit for `book`'s call; throws when it is not this book's, is spent, or is for another call. */
  static spend(permit: Permit, book: PermitBook, server: string, target: string, args: unknown): void {
    if (!(typeof permit === 'object' && permit !== null && #book in permit) || permit.#book !== book) throw internalError('forward without a valid permit');
    permit.#book = null;
    if (permit.#server !== server || permit.#target !== target || permit.#args !== args) throw internalError('permit does not match the call');
  }
}

export class PermitBook {
  issue(server: string, target: string, args: unknown): Permit {
    return new IssuedPermit(ISSUING, this, server, target, args);
  }

  /** Spends a permit; throws when it was never issued by this book, is spent, or is for another call. */
  spend(permit: Permit, server: string, target: string, args: unknown): void {
    IssuedPermit.spend(permit, this, server, target, args);
  }
}
