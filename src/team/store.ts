/**
 * What a team gateway keeps about its people (docs/team.md): the calls waiting for a person, the
 * answers to them, "Allow for this session" grants and the rules each person chose to remember.
 * Behind one interface so that one replica keeps it in its own memory (`MemoryTeamStore`, the
 * default) and several replicas share it through Redis (`store.url`).
 *
 * The one hard promise is that a waiting call is settled exactly once: `decide` and `withdraw`
 * race atomically for it, and only the winner has any effect. An answer given through any replica
 * reaches the replica holding the call through `hold`; a replica that is gone releases nothing,
 * because its held calls die with their connections and a late answer finds no one to run them.
 */

import type { EditableField } from '../latch/edit.js';

/** Who is calling, as the gateway's authentication established it. */
export interface Identity {
  user: string;
  /** approver: answers the user's waiting calls, makes none (docs/team.md#approvers). */
  role: 'admin' | 'user' | 'approver';
  /**
   * Whether this credential answers the user's waiting calls and forgets their rules: an approver's,
   * or a client's of a user with no approver token configured (the behaviour before round 13).
   */
  approves: boolean;
}

/** A call waiting for its person, with everything the person needs to judge it. */
export interface PendingCall {
  /** Random and unguessable; names this call in the interactions API. */
  id: string;
  /** The user whose session made the call: only they (or an admin, read-only) may see it. */
  user: string;
  /** The MCP session (`Mcp-Session-Id`) the call came from. */
  session: string;
  /** The client as it introduced itself ("claude-code 2.1.0"), as the local approval page shows it. */
  client: string;
  /** The replica holding the call (its `TeamStore.replica`). */
  replica: string;
  server: string;
  tool: string;
  kind: string;
  /** The prompt text, already escaped (what an elicitation would carry). */
  message: string;
  /** The structured payload of docs/approval.md (`_meta["mcp-latch/request"]`), user id included. */
  request: Record<string, unknown>;
  /** The call's arguments, in full. */
  args: Record<string, unknown>;
  /** The exact answers accepted (`decision` values), as the prompt offers them. */
  choices: string[];
  /** The arguments the person may change before approving (edit.ts), with their values; none once `retryUntil` is set. */
  editable: EditableField[];
  /** ISO times: when it started waiting, when its client will be answered (or was, "pending"). */
  created: string;
  deadline: string;
  /** Set once the client was answered "pending": until when an approval still allows one identical retry. */
  retryUntil: string | null;
}

/** A person's answer to a pending call; the holding replica maps `decision` onto the call's choices. */
export interface InteractionAnswer {
  /** One of the call's `choices` (e.g. "Allow once"), or "decline". */
  decision: string;
  note?: string;
  /** Changed arguments (`{ <argument>: <new text> }`, only `editable` ones): the changed call is decided again and runs once. */
  edit?: Record<string, string>;
  /** The user id that answered. */
  by: string;
  /** ISO time of the answer. */
  at: string;
}

export type DecideOutcome = 'decided' | 'unknown' | 'settled';

/** An "Allow for this session" grant: the rules "Always allow" would save, or the exact call. */
export interface SessionGrant {
  rules?: string[];
  digest?: string;
}

/** A forget that removed a rule: how many replicas did not confirm within FORGET_CONFIRM_MS that it no longer holds there. */
export interface Forgotten {
  unconfirmed: number;
  /** Of those, the replicas known by their heartbeat alone that nothing subscribed could be, not waited for (redis-store.ts inForce); absent when none. */
  unheard?: number;
}

/** How long a forget waits for every replica to have read the user's rules again (docs/team.md, "Forgetting is in force at once"). */
export const FORGET_CONFIRM_MS = 5_000;

/** The embedded store's view of the config in force: its remembered rules are that config's `users.<id>.permissions.allow`. */
export interface ConfigInForce {
  /** The user's overlay allow list of the config the gateway decides with now. */
  rules(user: string): string[];
  /** Puts a config text just written in force before anything else is decided. */
  apply(text: string): void;
}

export interface TeamStore {
  /** This replica's name, stamped on the calls it holds. */
  readonly replica: string;
  /**
   * The remembered rules are the config's `users.<id>.permissions.allow` (the embedded store): a
   * config reload is then a change of them, which a copy read before it must not outlive.
   */
  readonly remembersInConfig: boolean;
  /**
   * The embedded store: the gateway's config in force, so that a rule remembered or forgotten holds
   * (or no longer does) before the answer or the forget returns, and `rememberedRules` lists what
   * holds, not what the file says before the gateway has read it. Other stores ignore it.
   */
  useConfig(config: ConfigInForce): void;

  /**
   * Puts a call up for its person and waits for the answer given through any replica. Resolves
   * with the answer, or null once `signal` aborts and the call was withdrawn first (then no later
   * answer can have an effect). Never rejects for an answer race.
   */
  hold(call: PendingCall, signal: AbortSignal): Promise<InteractionAnswer | null>;
  /** Changes what is shown of a held call (its client was answered "pending"). */
  update(id: string, change: { retryUntil: string }): Promise<void>;
  get(id: string): Promise<PendingCall | null>;
  /** Pending calls of one user, or of everyone with null (admin), oldest first. */
  list(user: string | null): Promise<PendingCall[]>;
  /**
   * Answers a pending call: atomically takes it off the pending set and hands the answer to its
   * holder. 'unknown' when there is no such call, 'settled' when it was answered or withdrawn.
   * The caller checks who may answer (the call's `user`) before calling this.
   */
  decide(id: string, answer: InteractionAnswer): Promise<DecideOutcome>;

  /**
   * Session grants, per user and MCP session; adding one and ending a session tell `onSessionGrantsChanged` listeners.
   * Security: at most `most` per session, counted and written in one atomic step (a `BoundReached` rejection past it, errors.ts):
   * until round 32 the count was read first, so grants added at once passed it by as many.
   */
  addSessionGrant(user: string, session: string, grant: SessionGrant, most: number): Promise<void>;
  sessionGrants(user: string, session: string): Promise<SessionGrant[]>;
  endSession(user: string, session: string): Promise<void>;
  /**
   * Called with a user and session whose grants changed (on any replica), or may have changed
   * unseen (the store reconnected): the session's copy is read again.
   */
  onSessionGrantsChanged(listener: (user: string, session: string) => void): () => void;

  /**
   * Whether this replica hears of changes to remembered rules now (Redis: its subscriber is
   * connected). While it does not, a forget elsewhere would go unheard, so no remembered rule holds.
   */
  hearsRuleChanges(): boolean;
  /** The rules a user remembered ("Always allow"), as rule texts in the config's syntax. */
  rememberedRules(user: string): Promise<string[]>;
  /**
   * Adds rules to a user's remembered allow list; returns those that were not there yet. Security:
   * at most `most` rules per user, counted and written in one atomic step (a `BoundReached`
   * rejection when those not there yet would pass it; nothing is added then): until round 32 the
   * count was read first, so answers given at once, on one replica or several, passed it by as many.
   */
  remember(user: string, rules: string[], most: number): Promise<string[]>;
  /**
   * Removes one remembered rule; false when the user had no such rule. Resolves once the rule holds
   * in no replica that heard of it (each one's listeners have read the rules again), or once
   * `FORGET_CONFIRM_MS` has passed: `unconfirmed` counts the replicas that did not say so by then.
   */
  forget(user: string, rule: string): Promise<false | Forgotten>;
  /**
   * Called with a user id whenever that user's remembered rules changed (on any replica); a
   * promise returned is waited for before a forget counts as in force here.
   */
  onRulesChanged(listener: (user: string) => void | Promise<void>): () => void;

  close(): Promise<void>;
}
