import { describe, expect, it } from 'vitest';
import { MemoryTeamStore } from '../../src/team/memory-store.js';
import type { PendingCall } from '../../src/team/store.js';

function call(id: string, user: string): PendingCall {
  const now = new Date().toISOString();
  return { id, user, session: 's1', client: 'test-client 1.0.0', replica: 'r', server: 'fs', tool: 'write_file', kind: 'write', message: 'm', request: {}, args: { path: '/x' }, choices: ['Allow once', 'Deny'], editable: [], created: now, deadline: now, retryUntil: null };
}

function rulesBackend() {
  const lists = new Map<string, string[]>();
  return {
    list: (user: string) => lists.get(user) ?? [],
    add: async (user: string, rules: string[]) => {
      const current = lists.get(user) ?? [];
      const added = rules.filter((rule) => !current.includes(rule));
      lists.set(user, [...current, ...added]);
      return { added, text: '' };
    },
    remove: async (user: string, rule: string) => {
      const current = lists.get(user) ?? [];
      lists.set(user, current.filter((each) => each !== rule));
      return { added: current.includes(rule) ? [rule] : [], text: '' };
    },
  };
}

describe('MemoryTeamStore', () => {
  it('settles a held call exactly once: the first answer wins, a second is refused', async () => {
    const store = new MemoryTeamStore(rulesBackend());
    const held = store.hold(call('a', 'x'), new AbortController().signal);
    expect((await store.list('x')).map((each) => each.id)).toEqual(['a']);
    expect(await store.list('y')).toEqual([]);
    const answer = { decision: 'Allow once', by: 'x', at: new Date().toISOString() };
    expect(await store.decide('a', answer)).toBe('decided');
    expect(await store.decide('a', { ...answer, decision: 'Deny' })).toBe('settled');
    expect(await store.decide('b', answer)).toBe('unknown');
    expect(await held).toEqual(answer);
    expect(await store.get('a')).toBeNull();
  });

  it('a withdrawn call resolves null and can no longer be answered', async () => {
    const store = new MemoryTeamStore(rulesBackend());
    const abort = new AbortController();
    const held = store.hold(call('a', 'x'), abort.signal);
    abort.abort();
    expect(await held).toBeNull();
    expect(await store.decide('a', { decision: 'Allow once', by: 'x', at: '' })).toBe('settled');
  });

  it('keeps session grants per user and session, and remembered rules per user with change events', async () => {
    const store = new MemoryTeamStore(rulesBackend());
    await store.addSessionGrant('x', 's1', { rules: ['Edit(/a)'] }, 1000);
    expect(await store.sessionGrants('x', 's1')).toEqual([{ rules: ['Edit(/a)'] }]);
    expect(await store.sessionGrants('y', 's1')).toEqual([]);
    await store.endSession('x', 's1');
    expect(await store.sessionGrants('x', 's1')).toEqual([]);
    const changed: string[] = [];
    store.onRulesChanged((user) => void changed.push(user));
    expect(await store.remember('x', ['Edit(/a)'], 500)).toEqual(['Edit(/a)']);
    expect(await store.remember('x', ['Edit(/a)'], 500)).toEqual([]);
    expect(await store.rememberedRules('y')).toEqual([]);
    expect(await store.forget('x', 'Edit(/a)')).toEqual({ unconfirmed: 0 });
    expect(await store.forget('x', 'Edit(/a)')).toBe(false);
    expect(changed).toEqual(['x', 'x']);
  });
});
