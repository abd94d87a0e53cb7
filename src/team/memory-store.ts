import { BoundReached } from '../errors.js';
import { SettledIds } from '../latch/settled-ids.js';
import type { ConfigInForce, DecideOutcome, Forgotten, InteractionAnswer, PendingCall, SessionGrant, TeamStore } from './store.js';

/**
 * The embedded team store: one replica, state in this process. Remembered rules live in the config
 * file (`users.<id>.permissions.allow`, edited in place by `RememberedRulesFile`), so a restart
 * keeps them and the person can read and edit them there.
 */
export interface RememberedRulesBackend {
  list(user: string): string[];
  /** The rules added, and the file's text as written (RulesWrite); a BoundReached rejection, nothing written, past `most` (counted in the same step as the write). */
  add(user: string, rules: string[], most: number): Promise<{ added: string[]; text: string }>;
  /** `added` holds the rule when it was there and is removed. */
  remove(user: string, rule: string): Promise<{ added: string[]; text: string }>;
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
  private readonly listeners = new Set<(user: string) => void | Promise<void>>();
  private config: ConfigInForce | null = null;
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

  async addSessionGrant(user: string, session: string, grant: SessionGrant, most: number): Promise<void> {
    const key = grantKey(user, session);
    const kept = this.grants.get(key) ?? [];
    // Counted and added in one synchronous step (store.ts addSessionGrant).
    if (kept.length >= most) throw new BoundReached(kept.length, `the session holds ${kept.length} grants, the most it may`);
    this.grants.set(key, [...kept, grant]);
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

  hearsRuleChanges(): boolean {
    return true;
  }

  useConfig(config: ConfigInForce): void {
    this.config = config;
  }

  /** What holds: the config in force (the file may say otherwise until the gateway has read it). */
  async rememberedRules(user: string): Promise<string[]> {
    return this.config ? this.config.rules(user) : this.rules.list(user);
  }

  async remember(user: string, rules: string[], most: number): Promise<string[]> {
    const { added, text } = await this.rules.add(user, rules, most);
    if (added.length > 0) await this.changed(user, text);
    return added;
  }

  /**
   * Security: in force before it returns. Until round 24 the rule stayed in the config in force,
   * allowing the user's calls, until the file watcher read the file again (150 ms at least, longer
   * under load, never when the watch fails; test/team/forget-in-force.test.ts).
   */
  async forget(user: string, rule: string): Promise<false | Forgotten> {
    const { added, text } = await this.rules.remove(user, rule);
    if (added.length === 0) return false;
    await this.changed(user, text);
    return { unconfirmed: 0 };
  }

  onRulesChanged(listener: (user: string) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    for (const id of [...this.pending.keys()]) this.settle(id, null);
  }

  /** The text written is put in force first (the watcher then finds it in force and skips it), then the listeners read the user's rules again. */
  private async changed(user: string, text: string): Promise<void> {
    this.config?.apply(text);
    await Promise.all([...this.listeners].map((listener) => listener(user)));
  }
}

function grantKey(user: string, session: string): string {
  return JSON.stringify([user, session]);
}
