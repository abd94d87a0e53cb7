import { MAX_SESSION_GRANTS } from '../config/limits.js';
import { BoundReached, errorMessage, LatchError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Grants } from '../policy/decide.js';
import type { MatchEnv } from '../policy/match.js';
import { parseRule } from '../policy/rule.js';
import { SessionGrants, type SessionGrantBook } from '../store/grants.js';
import type { SessionGrant, TeamStore } from './store.js';

/**
 * A team session's "Allow for this session" grants (docs/team.md#session-grants): kept in the team
 * store under the session's user and id, so every replica sees the same grants, and copied into
 * this process so that deciding a call reads memory, never the store.
 *
 *   an answer grants   → written to the store first; in the copy once the store has it
 *   the store says the session's grants changed (any replica, or a reconnect) → the copy is read again
 *   a read fails       → the copy is emptied: without the store no grant holds, the call asks
 *   the session ends   → the store's grants are deleted
 */
export class StoredSessionGrants implements SessionGrantBook {
  private readonly copy: SessionGrants;
  /** Bumped by every change of the copy: a read that started before a change is stale and dropped. */
  private generation = 0;
  private ending: Promise<void> | null = null;

  constructor(
    private readonly store: TeamStore,
    private readonly owner: { user: string; session: string },
    env: MatchEnv,
    private readonly logger: Logger,
  ) {
    this.copy = new SessionGrants(env);
  }

  /** Rejects when the store did not take the grant: then it does not hold. */
  async addRules(texts: string[]): Promise<void> {
    // Only rules that parse go to the store: one that did not would void every grant of the session on the next read.
    for (const text of texts) parseRule(text, 'allow');
    await this.add({ rules: texts });
    this.copy.addRules(texts);
  }

  async addCall(digest: string): Promise<void> {
    await this.add({ digest });
    this.copy.addCall(digest);
  }

  private async add(grant: SessionGrant): Promise<void> {
    if (this.ending) throw new LatchError('CONNECTION_CLOSED', 'the session has ended');
    // Security: bounded, as remembered rules are (MAX_SESSION_GRANTS; round 31 review, T31-7), counted by the
    // store in the step that adds (round 32: read first, grants answered at once passed it by as many).
    try {
      await this.store.addSessionGrant(this.owner.user, this.owner.session, grant, MAX_SESSION_GRANTS);
    } catch (error) {
      if (error instanceof BoundReached) throw new LatchError('STORE_WRITE_FAILED', `this session keeps ${error.kept} "Allow for this session" grants, the most one may (MAX_SESSION_GRANTS); start a new session, or answer "Always allow"`);
      throw error;
    }
    if (this.ending) throw new LatchError('CONNECTION_CLOSED', 'the session has ended');
    this.generation += 1;
  }

  /** Reads the session's grants from the store into the copy; never rejects. */
  async refresh(): Promise<void> {
    const generation = ++this.generation;
    let grants: SessionGrant[] = [];
    try {
      grants = await this.store.sessionGrants(this.owner.user, this.owner.session);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error), user: this.owner.user, session: this.owner.session }, 'could not read the session grants from the team store: none hold until they can be read');
    }
    if (generation !== this.generation || this.ending) return;
    try {
      this.copy.replace(grants);
    } catch (error) {
      this.logger.error({ err: errorMessage(error), user: this.owner.user, session: this.owner.session }, 'the team store holds a session grant that does not parse: none hold');
      this.copy.replace([]);
    }
  }

  setEnv(env: MatchEnv): void {
    this.copy.setEnv(env);
  }

  current(): Grants {
    return this.copy.current();
  }

  /** The session ended: its grants leave the copy and the store. Never rejects; the same promise for every caller. */
  end(): Promise<void> {
    this.ending ??= this.finish();
    return this.ending;
  }

  private async finish(): Promise<void> {
    this.generation += 1;
    this.copy.replace([]);
    try {
      await this.store.endSession(this.owner.user, this.owner.session);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error), user: this.owner.user, session: this.owner.session }, 'could not delete the session grants from the team store (they expire on their own)');
    }
  }
}
