import { randomBytes } from '../node-crypto.js';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { head } from '../code-points.js';
import { BoundReached, errorMessage, LatchError } from '../errors.js';
import type { Logger } from '../log.js';
import { CALL_PREFIX, CHANNEL_ANSWERED, CHANNEL_FORGOTTEN, CHANNEL_GRANTS, CHANNEL_RULES, CHANNEL_RULES_APPLIED, defineScripts, formatName, GRANTS_IDLE_MS, grantsKey, heartbeatFormat, heartbeatValue, HELLO_PREFIX, helloChannel, helloReplica, olderHeartbeat, PENDING, REPLICA_PREFIX, rulesGenerationKey, rulesKey, SETTLED_MS, STORE_FORMAT, VERSION_KEY, type Client } from './redis-schema.js';
import { FORGET_CONFIRM_MS, type DecideOutcome, type Forgotten, type InteractionAnswer, type PendingCall, type SessionGrant, type TeamStore } from './store.js';
import { StoreSigner } from './store-signing.js';

/**
 * The team store on a Redis server (`store.url: redis://…`), shared by every replica of the gateway
 * (docs/team.md#two-replicas): pending calls, session grants and remembered rules live in Redis, and
 * an answer given through any replica releases the call held by the replica that has its client.
 * What is kept in Redis and the atomic steps that make each answer apply exactly once: redis-schema.ts.
 * With `store.signingKeyFile`, every call, answer, grant and rule is signed and checked on read
 * (store-signing.ts); without it they are kept as before, unsigned.
 */

/** A replica that has not renewed its heartbeat for this long is dead: its calls can no longer be answered. */
const HEARTBEAT_MS = 15_000;
/** Every how many heartbeats (one a third of HEARTBEAT_MS: ~1 minute) the live replicas' store formats are looked at again. */
const FORMAT_CHECK_BEATS = 12;

/** Why this replica does not start on this store: another version's (docs/team.md, "Replicas of different versions"). */
class FormatRefusal extends Error {}

interface Held {
  resolve: (answer: InteractionAnswer | null) => void;
  /** Its score in the pending set (creation time), to put it back after a heartbeat lapse. */
  score: number;
}

export interface RedisTeamStoreOptions {
  url: string;
  /** The Redis password, when not in `url` (`store.passwordEnv`, `store.passwordFile`); it replaces one there. */
  password?: string;
  logger: Logger;
  /** This replica's name (default: random). */
  replica?: string;
  /** How long a heartbeat lasts; a shorter one lets tests see a dead replica sooner. */
  heartbeatMs?: number;
  /** The key of `store.signingKeyFile`; without it nothing is signed. */
  signingKey?: Buffer;
  /** Where the newest generation of each user's rules this replica verified is kept across restarts (config/locate.ts rulesGenerationsFile). */
  generationsFile?: string;
}

export class RedisTeamStore implements TeamStore {
  readonly remembersInConfig = false;
  private readonly held = new Map<string, Held>();
  private readonly listeners = new Set<(user: string) => void | Promise<void>>();
  /** This replica's forgets waiting for the replicas that announced themselves to confirm, by nonce: the replicas that did so far, and those waited for (null until listed). */
  private readonly confirming = new Map<string, { replicas: Set<string>; expected: Set<string> | null; done: () => void }>();
  /** Users whose rules this replica read: after a reconnect, their rules may have changed unseen. */
  private readonly knownUsers = new Set<string>();
  private readonly grantListeners = new Set<(user: string, session: string) => void>();
  /** Sessions whose grants this replica read or wrote, by key: after a reconnect, read again. */
  private readonly knownSessions = new Map<string, [user: string, session: string]>();
  /** The newest generation of each user's remembered rules this replica has verified: an older one is refused. */
  private readonly generations = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  /** The subscriber is connected and subscribed: this replica hears of forgets (hearsRuleChanges). */
  private listening = false;
  /** The subscriber connection's closes so far: a resubscription that a close overtook does not count (resubscribed). */
  private subscriberCloses = 0;

  private constructor(
    readonly replica: string,
    private readonly redis: Client,
    private readonly subscriber: RedisClient,
    private readonly logger: Logger,
    private readonly heartbeatMs: number,
    private readonly signer: StoreSigner | null,
    private readonly generationsFile: string | null,
  ) {
    if (generationsFile !== null) for (const [user, generation] of Object.entries(readGenerations(generationsFile))) this.generations.set(user, generation);
  }

  /** Connects (commands and subscriptions) and starts the heartbeat; a LatchError with the reason when Redis cannot be used. */
  static async connect(options: RedisTeamStoreOptions): Promise<RedisTeamStore> {
    const { Redis } = await import('ioredis');
    const settings: RedisOptions = {
      lazyConnect: true,
      // Fail closed and soon: a command that cannot reach Redis errors instead of queueing for long.
      maxRetriesPerRequest: 2,
      connectTimeout: 5_000,
      ...(options.password !== undefined ? { password: options.password } : {}),
    };
    const redis = defineScripts(new Redis(options.url, settings));
    const subscriber = new Redis(options.url, settings);
    // Connection errors are logged here and surface as failed commands; ioredis would print unhandled ones.
    redis.on('error', (error: Error) => options.logger.warn({ err: error.message }, 'team store (Redis): connection error'));
    subscriber.on('error', (error: Error) => options.logger.warn({ err: error.message }, 'team store (Redis): subscriber connection error'));
    const signer = options.signingKey ? new StoreSigner(options.signingKey) : null;
    let store: RedisTeamStore;
    try {
      store = new RedisTeamStore(options.replica ?? `replica-${randomBytes(6).toString('hex')}`, redis, subscriber, options.logger, options.heartbeatMs ?? HEARTBEAT_MS, signer, signer ? (options.generationsFile ?? null) : null);
    } catch (error) {
      redis.disconnect();
      subscriber.disconnect();
      throw error;
    }
    try {
      await Promise.all([redis.connect(), subscriber.connect()]);
      await store.start();
    } catch (error) {
      clearInterval(store.heartbeat);
      redis.disconnect();
      subscriber.disconnect();
      if (error instanceof FormatRefusal) throw new LatchError('STORE_UNAVAILABLE', `cannot use the team store at ${redactUrl(options.url)}: ${error.message}`, { cause: error });
      throw new LatchError('STORE_UNAVAILABLE', `cannot use the team store at ${redactUrl(options.url)}: ${errorMessage(error)}; check store.url and that the Redis server is running`, { cause: error });
    }
    return store;
  }

  private async start(): Promise<void> {
    await this.checkFormat();
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === CHANNEL_ANSWERED) void this.take(message, false);
      else if (channel === CHANNEL_RULES) void this.rulesChanged(message);
      else if (channel === CHANNEL_GRANTS) this.grantsMessage(message);
      else if (channel === CHANNEL_FORGOTTEN) void this.forgottenMessage(message);
      else if (channel === CHANNEL_RULES_APPLIED) this.appliedMessage(message);
    });
    // Messages published while the subscriber was reconnecting are lost: look at every held call
    // again, and have every known user's rules read again.
    // Security: a replica that cannot hear would keep allowing a rule forgotten meanwhile (the forget
    // does not count it: PUBLISH does not reach it). Until it hears again none of the remembered
    // rules holds here (round 24; docs/team.md, "Forgetting is in force at once").
    this.subscriber.on('close', () => {
      this.subscriberCloses += 1;
      if (!this.listening || this.closed) return;
      this.listening = false;
      this.logger.warn('team store (Redis): the subscriber connection closed: no remembered rule holds on this replica until it is back (a forget meanwhile would go unheard)');
      for (const user of this.knownUsers) void this.rulesChanged(user);
    });
    this.subscriber.on('ready', () => void this.resubscribed());
    // The hello is subscribed with the rest (and again after a reconnect): Redis lists it exactly
    // while this replica hears forgets (docs/team.md, "Forgetting is in force at once").
    await this.subscriber.subscribe(...this.channels());
    this.listening = true;
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.heartbeatMs / 3)));
    this.heartbeat.unref();
  }

  /** Every channel the subscriber listens to, this replica's hello included. */
  private channels(): string[] {
    return [CHANNEL_ANSWERED, CHANNEL_RULES, CHANNEL_GRANTS, CHANNEL_FORGOTTEN, CHANNEL_RULES_APPLIED, helloChannel(this.replica)];
  }

  /**
   * The subscriber connection is up again. ioredis emits 'ready' once it has sent its SUBSCRIBE of
   * the channels again, before Redis has answered it: a message published meanwhile is lost, and
   * the hello is not listed, so a forget then neither reaches this replica nor waits for it, while
   * the rules read at 'ready' (on the other connection) may be read before the forget removed the
   * rule (round 26, test/team/resubscribe.test.ts). The channels are subscribed again here, on the
   * same connection after ioredis's own, and this replica hears again only once Redis has answered:
   * then every message published after is heard, and what it reads is read after.
   */
  private async resubscribed(): Promise<void> {
    const closes = this.subscriberCloses;
    try {
      await this.subscriber.subscribe(...this.channels());
    } catch (error) {
      // The connection closed again: its next 'ready' subscribes again.
      this.logger.warn({ err: errorMessage(error) }, 'team store (Redis): could not subscribe again after the subscriber connection came back');
      return;
    }
    if (this.closed || closes !== this.subscriberCloses) return;
    this.listening = true;
    for (const id of this.held.keys()) void this.take(id, false);
    for (const user of this.knownUsers) void this.rulesChanged(user);
    for (const [user, session] of this.knownSessions.values()) this.grantsChanged(user, session);
  }

  /**
   * Security: replicas of different versions do not share one store (round 33 review, T33-4). Each
   * writes its store format in its heartbeat (heartbeatValue) and the newest that used the store in
   * VERSION_KEY; this replica does not start beside a live one of another format (one of rounds
   * 25–32 reads no encrypted call, answers in clear, which this one takes as absent), nor on a store
   * a later format used. Until round 33 a replica of another round joined silently.
   */
  private async checkFormat(): Promise<void> {
    const marked = await this.redis.get(VERSION_KEY);
    const used = marked === null ? null : /^store:([0-9]{1,6})$/.exec(marked);
    if (marked !== null && used === null) throw new FormatRefusal(`${VERSION_KEY} holds ${JSON.stringify(head(marked, 80))}, which names no store format (this replica writes ${formatName(STORE_FORMAT)}); if no replica of this team is running, remove it`);
    if (used !== null && Number(used[1]) > STORE_FORMAT) {
      throw new FormatRefusal(`it was used by ${formatName(Number(used[1]))}, and this replica writes ${formatName(STORE_FORMAT)}, which that one may not read as it expects: run one version in every replica of a team (upgrade this one), or, once every replica is stopped, remove ${VERSION_KEY} to go back`);
    }
    const others = await this.otherFormats();
    if (others.length > 0) throw new FormatRefusal(`${this.otherFormatsText(others)}; stop it and upgrade it (every replica of a team runs one version), then start this one (docs/team.md, "Replicas of different versions")`);
    await this.redis.set(VERSION_KEY, `store:${STORE_FORMAT}`);
  }

  /** The live replicas (by heartbeat) other than this one writing another store format: name, pid, format. */
  private async otherFormats(): Promise<Array<{ replica: string; pid: string; format: number }>> {
    const others: Array<{ replica: string; pid: string; format: number }> = [];
    for (const [replica, value] of await this.heartbeats()) {
      const format = heartbeatFormat(value);
      if (replica !== this.replica && format !== STORE_FORMAT) others.push({ replica, pid: value.split(' ')[0] ?? '', format });
    }
    return others;
  }

  private otherFormatsText(others: Array<{ replica: string; pid: string; format: number }>): string {
    const named = others.slice(0, 5).map(({ replica, pid, format }) => `replica ${replica} (pid ${head(pid, 20)}) writes ${formatName(format)}`);
    return `${named.join('; ')}${others.length > 5 ? ` (and ${others.length - 5} more)` : ''}, and this replica writes ${formatName(STORE_FORMAT)}: they do not read each other's waiting calls and answers`;
  }

  private beats = 0;

  private async beat(): Promise<void> {
    this.beats += 1;
    // A replica of another version started after this one: said, at each look, until it stops.
    if (this.beats % FORMAT_CHECK_BEATS === 0) {
      void this.otherFormats()
        .then((others) => {
          if (others.length > 0) this.logger.error({ replicas: others.map(({ replica }) => replica).slice(0, 20) }, `team store (Redis): ${this.otherFormatsText(others)} (its calls are not listed here, nor answered: their answers do not verify); stop it and upgrade it (docs/team.md, "Replicas of different versions")`);
        })
        .catch(() => undefined);
    }
    try {
      const held = [...this.held].flatMap(([id, { score }]) => [score, id]);
      const restored = await this.redis.latchBeat(REPLICA_PREFIX + this.replica, PENDING, heartbeatValue(process.pid), this.heartbeatMs, CALL_PREFIX, this.replica, ...held);
      if (restored > 0) this.logger.warn({ calls: restored }, "team store (Redis): this replica's heartbeat had lapsed; its waiting calls are listed again");
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, "team store (Redis): could not renew this replica's heartbeat");
    }
  }

  // ---- held calls ----

  async hold(call: PendingCall, signal: AbortSignal): Promise<InteractionAnswer | null> {
    if (signal.aborted) return null;
    const score = Date.parse(call.created) || Date.now();
    const answered = new Promise<InteractionAnswer | null>((resolve) => this.held.set(call.id, { resolve, score }));
    const onAbort = () => void this.take(call.id, true);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const key = CALL_PREFIX + call.id;
      const stored: PendingCall = { ...call, replica: this.replica };
      await this.redis
        .multi()
        .hset(key, { user: call.user, replica: this.replica, state: 'pending', call: this.hidden(['call', call.id], JSON.stringify(stored)) })
        .pexpire(key, this.lifetimeMs(call.deadline, call.retryUntil))
        .zadd(PENDING, score, call.id)
        .exec();
    } catch (error) {
      signal.removeEventListener('abort', onAbort);
      this.held.delete(call.id);
      throw new LatchError('STORE_UNAVAILABLE', `could not put the call up for approval in the team store: ${errorMessage(error)}`, { cause: error });
    }
    // Aborted while it was being stored, or answered before the subscription saw it: look once now.
    void this.take(call.id, signal.aborted);
    const answer = await answered;
    signal.removeEventListener('abort', onAbort);
    return answer;
  }

  /** How long a call's key lives: past its last moment by a heartbeat, so a late answer is told "settled". */
  private lifetimeMs(deadline: string, retryUntil: string | null): number {
    const last = Math.max(Date.parse(deadline) || 0, retryUntil ? Date.parse(retryUntil) || 0 : 0);
    return Math.max(1_000, last - Date.now()) + this.heartbeatMs;
  }

  /** Takes the answer of a held call, or withdraws it; resolves its holder at most once. */
  private async take(id: string, withdraw: boolean): Promise<void> {
    const held = this.held.get(id);
    if (!held) return;
    let taken: string | null;
    try {
      taken = await this.redis.latchTake(CALL_PREFIX + id, PENDING, id, this.replica, withdraw ? '1' : '0', SETTLED_MS);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error), call: id }, 'team store (Redis): could not read the answer of a held call');
      // Fail closed: a wait that ends without a readable answer runs nothing; the key expires on its own.
      taken = withdraw ? 'withdrawn' : null;
    }
    if (taken === null || this.held.get(id) !== held) return;
    this.held.delete(id);
    // Security: an answer that does not verify releases nothing; the call ends unanswered (store-signing.ts).
    const answer = taken === 'withdrawn' ? null : this.revealed(['answer', id], taken);
    held.resolve(answer === null ? null : (JSON.parse(answer) as InteractionAnswer));
  }

  async update(id: string, change: { retryUntil: string }): Promise<void> {
    const key = CALL_PREFIX + id;
    const [state, stored] = await this.redis.hmget(key, 'state', 'call');
    const text = stored ? this.revealed(['call', id], stored) : null;
    if (state !== 'pending' || !text) return;
    const call = JSON.parse(text) as PendingCall;
    await this.redis.multi().hset(key, 'retryUntil', change.retryUntil).pexpire(key, this.lifetimeMs(call.deadline, change.retryUntil)).exec();
  }

  async get(id: string): Promise<PendingCall | null> {
    const [state, replica, text, retryUntil] = await this.redis.hmget(CALL_PREFIX + id, 'state', 'replica', 'call', 'retryUntil');
    if (state !== 'pending' || !replica || !text) return null;
    if ((await this.redis.exists(REPLICA_PREFIX + replica)) === 0) return null;
    return this.pendingCall(id, text, retryUntil ?? '');
  }

  async list(user: string | null): Promise<PendingCall[]> {
    const rows = await this.redis.latchList(PENDING, CALL_PREFIX, REPLICA_PREFIX, user ?? '');
    const calls: PendingCall[] = [];
    for (let index = 0; index + 2 < rows.length; index += 3) {
      const call = this.pendingCall(rows[index]!, rows[index + 1]!, rows[index + 2]!);
      // Security: LIST filters by the hash's `user`, which is not signed; the call's own (signed) user decides whose it is (round 33 review, T33-5).
      if (call && (user === null || call.user === user)) calls.push(call);
    }
    return calls;
  }

  /** The pending call `id` as stored, when it verifies and decrypts for that id (with a signing key), and is that call. */
  private pendingCall(id: string, stored: string, retryUntil: string): PendingCall | null {
    const text = this.revealed(['call', id], stored);
    if (text === null) return null;
    const call = withRetry(text, retryUntil);
    return call.id === id ? call : null;
  }

  async decide(id: string, answer: InteractionAnswer): Promise<DecideOutcome> {
    const outcome = await this.redis.latchDecide(CALL_PREFIX + id, PENDING, id, this.hidden(['answer', id], JSON.stringify(answer)), REPLICA_PREFIX, CHANNEL_ANSWERED, SETTLED_MS);
    return outcome === 'decided' ? 'decided' : outcome === 'settled' ? 'settled' : 'unknown';
  }

  // ---- session grants ----

  async addSessionGrant(user: string, session: string, grant: SessionGrant, most: number): Promise<void> {
    const key = grantsKey(user, session);
    this.knownSessions.set(key, [user, session]);
    // Counted and added in one step (redis-schema.ts ADD_GRANT): a grant that does not verify counts too.
    const added = await this.redis.latchAddGrant(key, this.sealed(['grant', user, session], JSON.stringify(grant)), GRANTS_IDLE_MS, CHANNEL_GRANTS, JSON.stringify([user, session]), most);
    if (typeof added === 'number') throw new BoundReached(added, `the session holds ${added} grants in the team store, the most it may`);
  }

  async sessionGrants(user: string, session: string): Promise<SessionGrant[]> {
    const key = grantsKey(user, session);
    this.knownSessions.set(key, [user, session]);
    const grants: SessionGrant[] = [];
    for (const stored of await this.redis.lrange(key, 0, -1)) {
      const text = this.opened(['grant', user, session], stored);
      if (text !== null) grants.push(JSON.parse(text) as SessionGrant);
    }
    return grants;
  }

  async endSession(user: string, session: string): Promise<void> {
    const key = grantsKey(user, session);
    this.knownSessions.delete(key);
    await this.redis.multi().del(key).publish(CHANNEL_GRANTS, JSON.stringify([user, session])).exec();
  }

  onSessionGrantsChanged(listener: (user: string, session: string) => void): () => void {
    this.grantListeners.add(listener);
    return () => this.grantListeners.delete(listener);
  }

  private grantsMessage(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      parsed = null;
    }
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') this.grantsChanged(parsed[0], parsed[1]);
    else this.logger.warn({ message: head(message, 200) }, 'team store (Redis): ignored a malformed session grants message');
  }

  private grantsChanged(user: string, session: string): void {
    for (const listener of this.grantListeners) listener(user, session);
  }

  // ---- remembered rules ----
  //
  // Signed, a rule is sealed for its user and the generation of their set (store-signing.ts), and
  // forget re-seals the rules kept for the next generation: the old value of a forgotten rule,
  // written back, no longer verifies (round 16 review T6: it did, for ever). The generation is
  // signed too, and a replica never takes one older than it has verified: the whole set written
  // back with its old generation is refused, and then none of the user's remembered rules hold.

  async rememberedRules(user: string): Promise<string[]> {
    this.knownUsers.add(user);
    const [stored, members] = await this.readRules(user);
    const generation = this.generation(user, stored);
    if (generation === null) return [];
    const rules: string[] = [];
    for (const [member] of members) {
      const rule = this.opened(ruleWhere(user, generation), member);
      if (rule !== null) rules.push(rule);
    }
    return rules;
  }

  async remember(user: string, given: string[], most: number): Promise<string[]> {
    // Distinct: the step counts the rules not there yet (redis-schema.ts REMEMBER).
    const rules = [...new Set(given)];
    for (let attempt = 0; attempt < RULES_ATTEMPTS; attempt += 1) {
      const stored = await this.redis.get(rulesGenerationKey(user));
      const lost = await this.lostGeneration(user, stored);
      const generation = lost ?? this.generation(user, stored);
      if (generation === null) throw new LatchError('STORE_WRITE_FAILED', `the remembered rules of ${user} in the team store do not verify against store.signingKeyFile, or are older than this replica has seen (see the log); nothing is added to them until ${rulesKey(user)} and ${rulesGenerationKey(user)} are removed`);
      // Scored in microseconds, so rules added together keep their order.
      const now = Date.now() * 1000;
      const next = lost === null ? '' : this.sealed(['rules-gen', user], String(lost));
      const added = await this.redis.latchRemember(rulesKey(user), rulesGenerationKey(user), stored ?? '', next, most, ...rules.flatMap((rule, index) => [now + index, this.sealed(ruleWhere(user, generation), rule)]));
      // Security: bounded in the same step as the write; a member that does not verify counts too (round 32).
      if (typeof added === 'string') {
        const kept = Number(added.slice('full '.length));
        throw new BoundReached(kept, `the team store holds ${kept} remembered rules of ${user}; adding ${rules.length} would pass ${most}`);
      }
      // A forget on another replica bumped the generation between the read and the write.
      if (!Array.isArray(added)) continue;
      if (lost !== null) this.raiseGeneration(user, lost);
      const fresh = rules.filter((_, index) => added[index] === 1);
      if (fresh.length > 0) await this.redis.publish(CHANNEL_RULES, user);
      return fresh;
    }
    throw new LatchError('STORE_WRITE_FAILED', `could not remember the rules of ${user}: their remembered rules changed at each of ${RULES_ATTEMPTS} tries`);
  }

  async forget(user: string, rule: string): Promise<false | Forgotten> {
    if (!this.signer) {
      const removed = (await this.redis.zrem(rulesKey(user), rule)) >= 1;
      return removed ? this.inForce(user) : false;
    }
    for (let attempt = 0; attempt < RULES_ATTEMPTS; attempt += 1) {
      const [stored, members] = await this.readRules(user);
      const generation = this.generation(user, stored);
      // None of their rules holds (logged): there is nothing to forget.
      if (generation === null) return false;
      const next = generation + 1;
      let removed = false;
      const kept: Array<string | number> = [];
      for (const [member, score] of members) {
        // A rule kept before the key was set (unsigned, ignored) goes too.
        if (member === rule) {
          removed = true;
          continue;
        }
        const value = this.opened(ruleWhere(user, generation), member);
        if (value === rule) removed = true;
        // One that does not verify (logged) holds nothing and is not carried over.
        else if (value !== null) kept.push(score, this.sealed(ruleWhere(user, next), value));
      }
      if (!removed) return false;
      const replaced = await this.redis.latchReplaceRules(rulesKey(user), rulesGenerationKey(user), stored ?? '', this.sealed(['rules-gen', user], String(next)), members.length, ...members.map(([member]) => member), ...kept);
      if (replaced !== 1) continue;
      this.raiseGeneration(user, next);
      return this.inForce(user);
    }
    throw new LatchError('STORE_WRITE_FAILED', `could not forget ${rule} of ${user}: their remembered rules changed at each of ${RULES_ATTEMPTS} tries`);
  }

  /**
   * The generation to start a user's rules at when the store holds none of them (no generation and
   * an empty set: a user's first rule, or a store that lost them, FLUSHALL or a Redis restarted
   * without persistence): past any generation a replica can have seen, so no value of before a loss
   * verifies again and every replica takes the new set. Until round 20 such a user could never
   * remember a rule again (T20-5). Round 22 review (R22-1): "one past the newest this replica has
   * seen" was not past what the others had seen: a replica that had seen an older one (or none, a
   * new host, which wrote the rules with no generation) made the user's rules refused on every
   * replica that had seen a newer one, and each "Always allow" there failed, for good. Now the clock
   * in milliseconds (forgets count up by one, far slower), or one past the newest seen if that is
   * later; replicas' clocks apart by more than the time since the last such start are not covered
   * (docs/team.md). A set written back with no generation is still refused (not empty). Null when
   * the set holds something or has a generation.
   */
  private async lostGeneration(user: string, stored: string | null): Promise<number | null> {
    if (!this.signer || stored !== null) return null;
    if ((await this.redis.zcard(rulesKey(user))) !== 0) return null;
    return Math.max((this.generations.get(user) ?? 0) + 1, Date.now());
  }

  /** The generation of a user's rules as stored, and the set (member, score), read together. */
  private async readRules(user: string): Promise<[string | null, Array<[string, string]>]> {
    const results = await this.redis.multi().get(rulesGenerationKey(user)).zrange(rulesKey(user), '0', '-1', 'WITHSCORES').exec();
    const failed = results?.find(([error]) => error)?.[0];
    if (!results || failed) throw failed ?? new Error('the transaction was discarded');
    const flat = results[1]![1] as string[];
    const members: Array<[string, string]> = [];
    for (let index = 0; index + 1 < flat.length; index += 2) members.push([flat[index]!, flat[index + 1]!]);
    return [results[0]![1] as string | null, members];
  }

  /**
   * The generation of a user's rules (0 while absent: before their first forget), or null when it
   * does not verify or is older than one this replica verified (logged): then none of their rules
   * holds. Unsigned, the generation is not kept and every rule is as stored.
   */
  private generation(user: string, stored: string | null): number | null {
    if (!this.signer) return 0;
    let generation = 0;
    if (stored !== null) {
      const text = this.opened(['rules-gen', user], stored);
      if (text === null) return null;
      generation = Number(text);
    }
    const seen = this.generations.get(user) ?? 0;
    if (generation < seen) {
      this.logger.warn({ user, generation, seen }, 'team store (Redis): the remembered rules of a user are of an older generation than this replica has seen (written back from a copy); none of them holds');
      return null;
    }
    this.raiseGeneration(user, generation);
    return generation;
  }

  /** Records a newer generation of a user's rules, here and in the generations file (merged with what other replicas of this host wrote). */
  private raiseGeneration(user: string, generation: number): void {
    if ((this.generations.get(user) ?? 0) >= generation) return;
    this.generations.set(user, generation);
    if (this.generationsFile === null) return;
    try {
      const kept = readGenerations(this.generationsFile);
      for (const [each, value] of this.generations) if (value > (kept[each] ?? 0)) kept[each] = value;
      const temp = `${this.generationsFile}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
      writeFileSync(temp, `${JSON.stringify(kept)}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(temp, this.generationsFile);
    } catch (error) {
      // Kept in memory still: only a restart before the next write would forget it.
      this.logger.error({ err: errorMessage(error), file: this.generationsFile }, 'team store (Redis): could not keep the generation of remembered rules');
    }
  }

  hearsRuleChanges(): boolean {
    return this.listening;
  }

  onRulesChanged(listener: (user: string) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private rulesChanged(user: string): Promise<unknown> {
    return Promise.all([...this.listeners].map((listener) => listener(user)));
  }

  /**
   * Security: a forget is in force on every replica before it returns (docs/team.md, "Forgetting is
   * in force at once"). Each replica decides from its copy of the user's rules, read again when it
   * hears of a change: until round 24 the forget returned at its PUBLISH, and a replica (this one
   * included) allowed the forgotten rule's calls until its subscriber had the message and its read
   * came back (test/team/forget-in-force.test.ts). Every replica that announces itself (its hello
   * channel, listed by Redis while its subscriber is connected) reads the rules again, then says so;
   * the forget waits for each of them by name, at most FORGET_CONFIRM_MS, and counts those that did
   * not. Until round 25 it waited for as many answers as PUBLISH counted subscribers, so any other
   * client subscribed to the channel (a `redis-cli SUBSCRIBE` left open) made every forget wait the
   * whole time and answer 202, and a replica of before round 24 (which hears `mcp-latch:rules`
   * only, published too for it) was not waited for. Replicas of before round 25 announce nothing:
   * they are known by their heartbeat (its value names no protocol) and waited for by name too, so
   * round 24's confirm, and one of before never does and is counted (202). A client that is no
   * replica has no heartbeat and is not waited for (logged).
   */
  private async inForce(user: string): Promise<Forgotten> {
    const nonce = randomBytes(12).toString('hex');
    let done!: () => void;
    const confirmed = new Promise<void>((resolve) => (done = resolve));
    // Until the replicas to wait for are listed, no confirmation is enough.
    const waiting: { replicas: Set<string>; expected: Set<string> | null; done: () => void } = { replicas: new Set<string>(), expected: null, done };
    /** Replicas known by their heartbeat alone that nothing subscribed could be: not waited for. */
    const unheard = new Set<string>();
    this.confirming.set(nonce, waiting);
    const timer = setTimeout(done, FORGET_CONFIRM_MS);
    try {
      const told = await this.redis.publish(CHANNEL_RULES, user);
      // Listed before the PUBLISH: a replica that subscribes after it reads the store, where the
      // rule is gone already (one that was not subscribed held none of its remembered rules).
      const [announced, older] = await Promise.all([this.announced(), this.olderReplicas()]);
      waiting.expected = new Set([...announced, ...older]);
      const heard = await this.redis.publish(CHANNEL_FORGOTTEN, JSON.stringify([user, nonce]));
      // A replica known by its heartbeat alone listens on a connection of its own: when nothing but
      // the announced replicas heard the forget, none of them could, and none is waited for (a
      // heartbeat any client of Redis can write made each forget wait FORGET_CONFIRM_MS): counted
      // unconfirmed at once, so the answer is 202 all the same (round 26; docs/team.md).
      if (older.size > 0 && Math.max(told, heard) <= announced.size) {
        for (const replica of older) unheard.add(replica);
        waiting.expected = announced;
        this.logger.warn({ user, replicas: [...older].slice(0, 20) }, 'team store (Redis): replicas known by their heartbeat alone (of before round 25) had nothing subscribed that could hear the forget (their subscriber is down, or another client of Redis wrote the heartbeat): not waited for, counted as not confirmed');
      }
      if (allConfirmed(waiting)) done();
      const unannounced = Math.max(told, heard) - waiting.expected.size;
      if (unannounced > 0) this.logger.warn({ user, unannounced, channels: [CHANNEL_RULES, CHANNEL_FORGOTTEN] }, 'team store (Redis): a forget was heard by subscribers that did not announce themselves as replicas and have no heartbeat (other clients of Redis): they are not waited for');
      if (older.size > 0 && unheard.size === 0) this.logger.warn({ user, replicas: [...older].slice(0, 20) }, 'team store (Redis): replicas of before round 25 are waited for by their heartbeat; one of before round 24 never confirms a forget (upgrade it)');
      await confirmed;
    } catch (error) {
      this.logger.warn({ err: errorMessage(error), user }, 'team store (Redis): could not tell the replicas of a forgotten rule');
    } finally {
      clearTimeout(timer);
      this.confirming.delete(nonce);
    }
    const unconfirmed = (waiting.expected === null ? 1 : [...waiting.expected].filter((replica) => !waiting.replicas.has(replica)).length) + unheard.size;
    if (unheard.size > 0) return { unconfirmed, unheard: unheard.size };
    if (unconfirmed > 0) this.logger.warn({ user, unconfirmed, replicas: waiting.expected === null ? undefined : [...waiting.expected].filter((replica) => !waiting.replicas.has(replica)).slice(0, 20), waitedMs: FORGET_CONFIRM_MS }, 'team store (Redis): a forgotten rule is removed from the store, but not every replica confirmed that it no longer holds there');
    return { unconfirmed };
  }

  /** The live replicas of before round 25 (a heartbeat naming no forget protocol), by name: they announce nothing. */
  private async olderReplicas(): Promise<Set<string>> {
    return new Set([...(await this.heartbeats())].filter(([, value]) => olderHeartbeat(value)).map(([replica]) => replica));
  }

  /** The live replicas' heartbeats: name → value. */
  private async heartbeats(): Promise<Map<string, string>> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await this.redis.scan(cursor, 'MATCH', `${REPLICA_PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    const beats = new Map<string, string>();
    if (keys.length === 0) return beats;
    const values = await this.redis.mget(...keys);
    keys.forEach((key, index) => {
      if (values[index] != null) beats.set(key.slice(REPLICA_PREFIX.length), values[index]!);
    });
    return beats;
  }

  /** The replicas announcing, now, that they hear and confirm forgets (their hello channels, redis-schema.ts). */
  private async announced(): Promise<Set<string>> {
    const channels = (await this.redis.pubsub('CHANNELS', `${HELLO_PREFIX}*`)) as unknown[];
    const replicas = new Set<string>();
    for (const channel of channels) {
      const replica = typeof channel === 'string' ? helloReplica(channel) : null;
      if (replica !== null) replicas.add(replica);
    }
    return replicas;
  }

  /** Another replica (or this one) forgot a rule of `user`: read their rules again, then confirm. */
  private async forgottenMessage(message: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      parsed = null;
    }
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') {
      this.logger.warn({ message: head(message, 200) }, 'team store (Redis): ignored a malformed forgotten-rule message');
      return;
    }
    const [user, nonce] = parsed as [string, string];
    // The listeners never reject (UserPolicies.load: a failed read holds none of the user's rules).
    await this.rulesChanged(user);
    this.logger.debug({ user }, 'team store (Redis): the rules of a user were read again after a forget');
    await this.redis.publish(CHANNEL_RULES_APPLIED, JSON.stringify([nonce, this.replica])).catch((error: unknown) => this.logger.warn({ err: errorMessage(error), user }, 'team store (Redis): could not confirm a forgotten rule'));
  }

  private appliedMessage(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') return;
    const waiting = this.confirming.get(parsed[0]);
    if (!waiting) return;
    waiting.replicas.add(parsed[1]);
    if (allConfirmed(waiting)) waiting.done();
  }

  /** Remembered rules are kept in Redis, not in the config. */
  useConfig(): void {}

  /** `value` as kept in Redis: signed when a key is set. */
  private sealed(where: readonly string[], value: string): string {
    return this.signer ? this.signer.seal(where, value) : value;
  }

  /** A waiting call's or an answer's text as kept: encrypted for where it is kept, then signed, with a key (store-signing.ts hide); as is without. */
  private hidden(where: readonly string[], value: string): string {
    return this.signer ? this.signer.seal(where, this.signer.hide(where, value)) : value;
  }

  /** The text `hidden` kept, or null (logged) when a key is set and it does not verify, or is not encrypted for where it is (a replica of before round 33 wrote it). */
  private revealed(where: readonly string[], stored: string): string | null {
    if (!this.signer) return stored;
    const sealed = this.opened(where, stored);
    if (sealed === null) return null;
    const value = this.signer.reveal(where, sealed);
    if (value === null) this.logger.warn({ kind: where[0], at: where.slice(1) }, 'team store (Redis): a value verifies but is not encrypted for where it is kept (written by a replica of before round 33); it is taken as absent');
    return value;
  }

  /** A value read from Redis, or null (logged) when a key is set and it does not verify. */
  private opened(where: readonly string[], stored: string): string | null {
    if (!this.signer) return stored;
    const value = this.signer.open(where, stored);
    if (value === null) this.logger.warn({ kind: where[0], at: where.slice(1) }, 'team store (Redis): a value does not verify against store.signingKeyFile (written by something other than a replica, or before the key was set); it is taken as absent');
    return value;
  }

  /** Withdraws every held call (none can be answered or run later), removes the heartbeat, closes both connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    await Promise.all([...this.held.keys()].map((id) => this.take(id, true)));
    await this.redis.del(REPLICA_PREFIX + this.replica).catch(() => undefined);
    for (const [id, held] of this.held) {
      this.held.delete(id);
      held.resolve(null);
    }
    this.subscriber.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** The generations file as kept (absent: none yet); a LatchError naming it when it cannot be read or is not one: fail closed, never start without it. */
function readGenerations(file: string): Record<string, number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new LatchError('STORE_UNAVAILABLE', `cannot read ${file}: ${errorMessage(error)}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const valid = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.values(parsed).every((value) => Number.isSafeInteger(value) && (value as number) >= 0);
  if (!valid) throw new LatchError('STORE_UNAVAILABLE', `${file} is not a generations file of remembered rules (a JSON object of user ids to whole numbers); restore it, or remove it to start without (docs/team.md, "Forgetting is final")`);
  return Object.assign(Object.create(null) as Record<string, number>, parsed);
}

/** Every replica a forget waits for has confirmed it (none listed yet: not). */
function allConfirmed(waiting: { replicas: Set<string>; expected: Set<string> | null }): boolean {
  return waiting.expected !== null && [...waiting.expected].every((replica) => waiting.replicas.has(replica));
}

/** How often remember and forget read a user's rules again when another replica changed them meanwhile. */
const RULES_ATTEMPTS = 5;

/** Where a remembered rule of `generation` is signed for; generation 0 as before round 17, so rules kept then still hold. */
function ruleWhere(user: string, generation: number): string[] {
  return generation === 0 ? ['rule', user] : ['rule', user, String(generation)];
}

function withRetry(text: string, retryUntil: string): PendingCall {
  const call = JSON.parse(text) as PendingCall;
  return retryUntil ? { ...call, retryUntil } : call;
}

/** The URL without its password, for messages and logs. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a valid URL)';
  }
}
