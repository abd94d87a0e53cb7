import { SettledIds } from '../latch/settled-ids.js';
import type { DecideOutcome, InteractionAnswer, PendingCall, SessionGrant, TeamStore } from './store.js';

/**
 * The embedded team store: one replica, state in this process. Remembered rules live in the config
 * file (`users.<id>.permissions.allow`, edited in place by `RememberedRulesFile`), so a restart
 * keeps them and the person can read and edit them there.
 */
export interface RememberedRulesBackend {
  list(user: string): string[];
  add(user: string, rules: string[]): Promise<string[]>;
  remove(user: string, rule: string): Promise<boolean>;
}

/** Answered or withdrawn ids kept so that a second answer gets "settled", not "unknown". */
const REMEMBERED_SETTLED = 10_000;

interface Held {
  call: PendingCall;
  settle: (answer: InteractionAnswer | null) => void;
}

export class MemoryTeamStore implements TeamStore {
  readonly replica: string;
  readonly remembersInConfig = true;
  private readonly pending = new Map<string, Held>();
  private readonly settled = new SettledIds(REMEMBERED_SETTLED);
  private readonly grants = new Map<string, SessionGrant[]>();
  private readonly listeners = new Set<(user: string) => void>();
  private readonly grantListeners = new Set<(user: string, session: string) => void>();

  constructor(
    private readonly rules: RememberedRulesBackend,
    replica = `replica-${process.pid}`,
  ) {
    this.replica = replica;
  }

  hold(call: PendingCall, signal: AbortSignal): Promise<InteractionAnswer | null> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(null);
      const onAbort = () => this.settle(call.id, null);
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(call.id, {
        call,
        settle: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
    });
  }

  async update(id: string, change: { retryUntil: string }): Promise<void> {
    const held = this.pending.get(id);
    if (held) held.call = { ...held.call, retryUntil: change.retryUntil };
  }

  async get(id: string): Promise<PendingCall | null> {
    return this.pending.get(id)?.call ?? null;
  }

  async list(user: string | null): Promise<PendingCall[]> {
    return [...this.pending.values()].map((held) => held.call).filter((call) => user === null || call.user === user);
  }

  async decide(id: string, answer: InteractionAnswer): Promise<DecideOutcome> {
    if (this.pending.has(id)) {
      this.settle(id, answer);
      return 'decided';
    }
    return this.settled.has(id) ? 'settled' : 'unknown';
  }

  /** Exactly once: the entry leaves the map before its holder hears anything. */
  private settle(id: string, answer: InteractionAnswer | null): void {
    const held = this.pending.get(id);
    if (!held) return;
    this.pending.delete(id);
    this.settled.add(id);
    held.settle(answer);
  }

  async addSessionGrant(user: string, session: string, grant: SessionGrant): Promise<void> {
    const key = grantKey(user, session);
    this.grants.set(key, [...(this.grants.get(key) ?? []), grant]);
    this.grantsChanged(user, session);
  }

  async sessionGrants(user: string, session: string): Promise<SessionGrant[]> {
    return [...(this.grants.get(grantKey(user, session)) ?? [])];
  }

  async endSession(user: string, session: string): Promise<void> {
    this.grants.delete(grantKey(user, session));
    this.grantsChanged(user, session);
  }

  onSessionGrantsChanged(listener: (user: string, session: string) => void): () => void {
    this.grantListeners.add(listener);
    return () => this.grantListeners.delete(listener);
  }

  private grantsChanged(user: string, session: string): void {
    for (const listener of this.grantListeners) listener(user, session);
  }

  async rememberedRules(user: string): Promise<string[]> {
    return this.rules.list(user);
  }

  async remember(user: string, rules: string[]): Promise<string[]> {
    const added = await this.rules.add(user, rules);
    if (added.length > 0) this.changed(user);
    return added;
  }

  async forget(user: string, rule: string): Promise<boolean> {
    const removed = await this.rules.remove(user, rule);
    if (removed) this.changed(user);
    return removed;
  }

  onRulesChanged(listener: (user: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    for (const id of [...this.pending.keys()]) this.settle(id, null);
  }

  private changed(user: string): void {
    for (const listener of this.listeners) listener(user);
  }
}

function grantKey(user: string, session: string): string {
  return JSON.stringify([user, session]);
}
