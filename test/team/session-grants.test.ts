import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import type { MatchEnv } from '../../src/policy/match.js';
import { MAX_SESSION_GRANTS } from '../../src/config/limits.js';
import { MemoryTeamStore } from '../../src/team/memory-store.js';
import { StoredSessionGrants } from '../../src/team/session-grants.js';
import type { SessionGrant } from '../../src/team/store.js';

/**
 * A team session's grants through the embedded store (one replica): kept in the store per user and
 * session, read from the session's copy, gone with the session; a store that fails means no grant.
 */
const env: MatchEnv = { home: '/home/x', roots: ['/w'], platform: 'linux' };
const logger = silentLogger();
const noRules = { list: () => [], add: async () => ({ added: [], text: '' }), remove: async () => ({ added: [], text: '' }) };

/** The embedded store, with reads or writes of session grants failing on demand. */
class FlakyStore extends MemoryTeamStore {
  failReads = false;
  failWrites = false;
  override async addSessionGrant(user: string, session: string, grant: SessionGrant, most: number): Promise<void> {
    if (this.failWrites) throw new Error('store down');
    return super.addSessionGrant(user, session, grant, most);
  }
  override async sessionGrants(user: string, session: string): Promise<SessionGrant[]> {
    if (this.failReads) throw new Error('store down');
    return super.sessionGrants(user, session);
  }
}

function sessionOf(store: MemoryTeamStore, user: string, session: string): StoredSessionGrants {
  const grants = new StoredSessionGrants(store, { user, session }, env, logger);
  store.onSessionGrantsChanged((changedUser, changedSession) => {
    if (changedUser === user && changedSession === session) void grants.refresh();
  });
  return grants;
}

describe('StoredSessionGrants on the embedded store', () => {
  it("a grant is in the store and in force for that user's session only, and leaves the store with the session", async () => {
    const store = new MemoryTeamStore(noRules);
    const xs1 = sessionOf(store, 'x', 's1');
    const xs2 = sessionOf(store, 'x', 's2');
    const ys1 = sessionOf(store, 'y', 's1');
    await xs1.addRules(['Edit(/w/a.txt)']);
    await xs1.addCall('digest-1');
    expect(await store.sessionGrants('x', 's1')).toEqual([{ rules: ['Edit(/w/a.txt)'] }, { digest: 'digest-1' }]);
    expect(xs1.current().rules!.matchPath('allow', 'write', '/w/a.txt')).toBeTruthy();
    expect(xs1.current().digests.has('digest-1')).toBe(true);
    for (const other of [xs2, ys1]) {
      expect(other.current().rules).toBeNull();
      expect(other.current().digests.size).toBe(0);
    }
    await xs1.end();
    expect(await store.sessionGrants('x', 's1')).toEqual([]);
    expect(xs1.current().rules).toBeNull();
    await expect(xs1.addCall('digest-2')).rejects.toThrow(/ended/);
    expect(await store.sessionGrants('x', 's1')).toEqual([]);
  });

  it('a grant another replica wrote is read into the copy when the store says so', async () => {
    const store = new MemoryTeamStore(noRules);
    const grants = sessionOf(store, 'x', 's1');
    await store.addSessionGrant('x', 's1', { digest: 'from-elsewhere' }, 1000);
    await expect.poll(() => grants.current().digests.has('from-elsewhere')).toBe(true);
  });

  it('fails closed: a grant the store did not take does not hold, and a failed read drops every grant', async () => {
    const store = new FlakyStore(noRules);
    const grants = sessionOf(store, 'x', 's1');
    store.failWrites = true;
    await expect(grants.addRules(['Edit(/w/a.txt)'])).rejects.toThrow('store down');
    expect(grants.current().rules).toBeNull();
    store.failWrites = false;
    await grants.addCall('digest-1');
    expect(grants.current().digests.has('digest-1')).toBe(true);
    store.failReads = true;
    await grants.refresh();
    expect(grants.current().digests.size).toBe(0);
    store.failReads = false;
    await grants.refresh();
    expect(grants.current().digests.has('digest-1')).toBe(true);
  });

  it('a rule that does not parse is refused before it reaches the store', async () => {
    const store = new MemoryTeamStore(noRules);
    const grants = sessionOf(store, 'x', 's1');
    await expect(grants.addRules(['Edit('])).rejects.toThrow();
    expect(await store.sessionGrants('x', 's1')).toEqual([]);
  });
});

// Round 31 review, T31-7: a session's grants were unbounded, each read whole again at every change.
describe('StoredSessionGrants: MAX_SESSION_GRANTS', () => {
  it('past the bound a grant is refused (not kept, not in force); the grants kept still hold', async () => {
    const store = new MemoryTeamStore(noRules);
    const grants = sessionOf(store, 'bob', 's1');
    for (let index = 0; index < MAX_SESSION_GRANTS; index += 1) await grants.addCall(`digest-${index}`);
    await expect(grants.addCall('one-more')).rejects.toThrow(/keeps 1000 "Allow for this session" grants, the most one may \(MAX_SESSION_GRANTS\)/);
    await expect(grants.addRules(['Read(/w/**)'])).rejects.toThrow(/MAX_SESSION_GRANTS/);
    expect(await store.sessionGrants('bob', 's1')).toHaveLength(MAX_SESSION_GRANTS);
    await grants.refresh();
    expect(grants.current().digests.has('digest-0')).toBe(true);
    expect(grants.current().digests.has('one-more')).toBe(false);
  });
});
