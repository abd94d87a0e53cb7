import { randomBytes } from 'node:crypto';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { errorMessage, LatchError } from '../errors.js';
import type { Logger } from '../log.js';
import type { RuleList } from '../policy/types.js';

/**
 * The team store on a Redis server (`store.url: redis://…`), shared by every replica of the gateway
 * (docs/team.md#replicas): pending interactions, session grants and remembered per-user rules live
 * in Redis, and an answer given through any replica releases the call waiting on the replica that
 * holds its client connection.
 *
 * Exactly once, by two atomic steps (Lua scripts, so no other command runs in between):
 *
 *   answer (any replica)   pending → decided, the decision stored, its id published   (first answer wins)
 *   take   (owner replica) decided → gone, the decision returned                      (runs the call once)
 *
 * A waiting call that ends without an answer (cancelled, timed out, its replica stopping) is
 * withdrawn by the same kind of step: pending → gone. Whichever step comes first wins; the others
 * find nothing. A replica announces itself with a heartbeat key that expires: once a replica dies,
 * its pending calls can no longer be answered (the answer is refused as gone), and since only the
 * replica that created a pending call ever takes its decision, a call of a dead replica never runs.
 *
 * Keys, under the prefix `mcp-latch:` (user ids are URI-encoded so a ':' in one stays inside it):
 *
 *   interaction:<id>          hash: user, session, replica, state, created, data (JSON), answer (JSON)
 *   pending:<user>            sorted set of the user's pending ids, by creation time
 *   pending                   sorted set of all pending ids (the admin view)
 *   replica:<id>              heartbeat, expires after HEARTBEAT_MS
 *   grants:<user>:<session>   set of a session's grants ("rule:<text>" or "call:<digest>")
 *   rules:<user>:<list>       sorted set of the user's remembered rules, by time added
 *   rule-users                set of users who have remembered rules
 *
 * Channels: `mcp-latch:answered` (an interaction id), `mcp-latch:rules` (a user id whose rules changed).
 */

export const REDIS_PREFIX = 'mcp-latch:';
/** A replica that has not renewed its heartbeat for this long is dead: its calls can no longer be answered. */
export const HEARTBEAT_MS = 15_000;
/** Idle session grants are dropped after this long (a session that ended without saying so). */
export const GRANTS_IDLE_MS = 24 * 3600_000;

/** A call waiting for its person, as stored. `data` is what the person is shown (server, tool, arguments, …). */
export interface StoredInteraction {
  id: string;
  user: string;
  session: string;
  /** The replica holding the call's client connection. */
  replica: string;
  /** Epoch ms. */
  created: number;
  /** Epoch ms after which the call no longer waits. */
  deadline: number;
  data: Record<string, unknown>;
}

/** A person's answer, as stored and published: what the waiting replica applies. */
export type StoredAnswer = Record<string, unknown>;

export type AnswerResult =
  /** This answer settled the call. */
  | { ok: true }
  /** Nothing to answer: never existed, already answered, withdrawn, expired, or its replica died. */
  | { ok: false; reason: 'missing' | 'answered' | 'gone' };

export type SessionGrant = { type: 'rule'; rule: string } | { type: 'call'; digest: string };

export type RememberedRules = Record<RuleList, string[]>;

const LISTS: RuleList[] = ['allow', 'ask', 'deny'];

/**
 * KEYS: interaction, pending:<user>, pending. ARGV: id, answer JSON, replica key prefix, channel.
 * The owner's heartbeat is checked here, in the same step: a call whose replica died is not answered.
 */
const ANSWER = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'missing' end
if state ~= 'pending' then return 'answered' end
local replica = redis.call('HGET', KEYS[1], 'replica')
if redis.call('EXISTS', ARGV[3] .. replica) == 0 then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 'gone'
end
redis.call('HSET', KEYS[1], 'state', 'answered', 'answer', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('PUBLISH', ARGV[4], ARGV[1])
return 'ok'
`;

/**
 * KEYS: interaction, pending:<user>, pending. ARGV: id, replica, withdraw ('1' or '0').
 * Takes the answer of the caller's own call (deleting it: taken once); with withdraw '1', a call
 * still pending is withdrawn instead. Returns the answer JSON, or false.
 */
const TAKE = `
if redis.call('HGET', KEYS[1], 'replica') ~= ARGV[2] then return false end
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'answered' then
  local answer = redis.call('HGET', KEYS[1], 'answer')
  redis.call('DEL', KEYS[1])
  return answer
end
if ARGV[3] == '1' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
end
return false
`;

/**
 * KEYS: the sorted set to list, pending. ARGV: key prefix, replica key prefix.
 * The pending calls in it whose replica is alive; entries that expired or whose replica died are removed.
 */
const LIST = `
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local key = ARGV[1] .. id
  local fields = redis.call('HMGET', key, 'state', 'replica', 'user', 'session', 'created', 'deadline', 'data')
  if fields[1] == 'pending' and redis.call('EXISTS', ARGV[2] .. fields[2]) == 1 then
    table.insert(out, cjson.encode({ id = id, replica = fields[2], user = fields[3], session = fields[4], created = fields[5], deadline = fields[6], data = fields[7] }))
  elseif fields[1] ~= 'answered' then
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  end
end
return out
`;

interface Scripts {
  latchAnswer(interaction: string, userPending: string, allPending: string, id: string, answer: string, replicaPrefix: string, channel: string): Promise<string>;
  latchTake(interaction: string, userPending: string, allPending: string, id: string, replica: string, withdraw: string): Promise<string | null>;
  latchList(set: string, allPending: string, interactionPrefix: string, replicaPrefix: string): Promise<string[]>;
}

type Client = RedisClient & Scripts;

interface Waiter {
  user: string;
  resolve: (answer: StoredAnswer | null) => void;
}

export interface RedisTeamStoreOptions {
  url: string;
  logger: Logger;
  /** For tests: a shorter heartbeat. */
  heartbeatMs?: number;
}

export class RedisTeamStore {
  /** This process's id among the replicas. */
  readonly replica = randomBytes(9).toString('base64url');
  private readonly waiters = new Map<string, Waiter>();
  private readonly rulesListeners = new Set<(user: string) => void>();
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly redis: Client,
    private readonly subscriber: RedisClient,
    private readonly logger: Logger,
    private readonly heartbeatMs: number,
  ) {}

  /** Connects (the command and the subscriber connection) and starts the heartbeat; fails with the reason when Redis cannot be reached. */
  static async connect(options: RedisTeamStoreOptions): Promise<RedisTeamStore> {
    const { Redis } = await import('ioredis');
    const settings: RedisOptions = {
      lazyConnect: true,
      // Fail closed and fast: a command that cannot reach Redis errors instead of queueing for long.
      maxRetriesPerRequest: 2,
      connectTimeout: 5_000,
    };
    const redis = new Redis(options.url, settings) as Client;
    const subscriber = new Redis(options.url, settings);
    redis.defineCommand('latchAnswer', { numberOfKeys: 3, lua: ANSWER });
    redis.defineCommand('latchTake', { numberOfKeys: 3, lua: TAKE });
    redis.defineCommand('latchList', { numberOfKeys: 2, lua: LIST });
    const store = new RedisTeamStore(redis, subscriber, options.logger, options.heartbeatMs ?? HEARTBEAT_MS);
    try {
      await Promise.all([redis.connect(), subscriber.connect()]);
      await store.start();
    } catch (error) {
      redis.disconnect();
      subscriber.disconnect();
      throw new LatchError('STORE_UNAVAILABLE', `cannot use the team store at ${redactUrl(options.url)}: ${errorMessage(error)}; check store.url and that the Redis server is running`, { cause: error });
    }
    return store;
  }

  private async start(): Promise<void> {
    this.redis.on('error', (error: Error) => this.logger.warn({ err: error.message }, 'team store (Redis) connection error'));
    this.subscriber.on('error', (error: Error) => this.logger.warn({ err: error.message }, 'team store (Redis) subscriber error'));
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === CHANNEL_ANSWERED) void this.settle(message, false);
      else if (channel === CHANNEL_RULES) for (const listener of this.rulesListeners) listener(message);
    });
    // After a reconnect, messages published meanwhile are lost: look at every waiting call again, and
    // have every user's rules read again.
    this.subscriber.on('ready', () => {
      for (const id of this.waiters.keys()) void this.settle(id, false);
      for (const listener of this.rulesListeners) listener('*');
    });
    await this.subscriber.subscribe(CHANNEL_ANSWERED, CHANNEL_RULES);
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.heartbeatMs / 3)));
    this.heartbeat.unref();
  }

  private async beat(): Promise<void> {
    try {
      await this.redis.set(replicaKey(this.replica), String(process.pid), 'PX', this.heartbeatMs);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'team store (Redis): could not renew this replica\'s heartbeat');
    }
  }

  // ---- pending interactions ----

  /** Stores a call as pending for its person. The id is unguessable. */
  async addPending(call: Omit<StoredInteraction, 'id' | 'replica' | 'created'>): Promise<StoredInteraction> {
    const stored: StoredInteraction = { ...call, id: randomBytes(18).toString('base64url'), replica: this.replica, created: Date.now() };
    const key = interactionKey(stored.id);
    // Kept a little past the deadline, so a late answer is told "answered" or "gone" rather than "missing"; gone after that in any case.
    const ttl = Math.max(1_000, stored.deadline - stored.created + this.heartbeatMs);
    await this.redis
      .multi()
      .hset(key, { user: stored.user, session: stored.session, replica: stored.replica, state: 'pending', created: String(stored.created), deadline: String(stored.deadline), data: JSON.stringify(stored.data) })
      .pexpire(key, ttl)
      .zadd(pendingKey(stored.user), stored.created, stored.id)
      .zadd(ALL_PENDING, stored.created, stored.id)
      .exec();
    return stored;
  }

  /**
   * Waits for the answer to a call this replica added; resolves with it exactly once, or with null
   * when `signal` aborts first (the call is then withdrawn: no later answer is accepted for it).
   * An answer that raced the abort wins: it was accepted, so it is returned.
   */
  wait(id: string, user: string, signal: AbortSignal): Promise<StoredAnswer | null> {
    return new Promise((resolve) => {
      const onAbort = () => void this.settle(id, true);
      this.waiters.set(id, {
        user,
        resolve: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      // Answered before we listened (or the message was missed): look once now.
      void this.settle(id, false);
    });
  }

  /** Takes the answer of a waiting call, or withdraws it; resolves its waiter at most once. */
  private async settle(id: string, withdraw: boolean): Promise<void> {
    const waiter = this.waiters.get(id);
    if (!waiter) return;
    let taken: string | null;
    try {
      taken = await this.redis.latchTake(interactionKey(id), pendingKey(waiter.user), ALL_PENDING, id, this.replica, withdraw ? '1' : '0');
    } catch (error) {
      this.logger.warn({ err: errorMessage(error), interaction: id }, 'team store (Redis): could not read the answer of a waiting call');
      // Fail closed: a call whose wait ends without a readable answer is not run.
      if (withdraw && this.waiters.get(id) === waiter) {
        this.waiters.delete(id);
        waiter.resolve(null);
      }
      return;
    }
    if (this.waiters.get(id) !== waiter) return;
    if (taken !== null) {
      this.waiters.delete(id);
      waiter.resolve(parseAnswer(taken));
    } else if (withdraw) {
      this.waiters.delete(id);
      waiter.resolve(null);
    }
  }

  /** The pending calls of one user, or of everyone (`user` null: the admin view), oldest first. */
  async listPending(user: string | null): Promise<StoredInteraction[]> {
    const rows = await this.redis.latchList(user === null ? ALL_PENDING : pendingKey(user), ALL_PENDING, `${REDIS_PREFIX}interaction:`, `${REDIS_PREFIX}replica:`);
    return rows.map((row) => {
      const value = JSON.parse(row) as Record<string, string>;
      return {
        id: value.id!,
        user: value.user!,
        session: value.session!,
        replica: value.replica!,
        created: Number(value.created),
        deadline: Number(value.deadline),
        data: JSON.parse(value.data!) as Record<string, unknown>,
      };
    });
  }

  /** One pending call, or null (unknown, answered, withdrawn, or its replica died). */
  async getPending(id: string): Promise<StoredInteraction | null> {
    const [state, replica, user, session, created, deadline, data] = await this.redis.hmget(interactionKey(id), 'state', 'replica', 'user', 'session', 'created', 'deadline', 'data');
    if (state !== 'pending' || !replica || !user || session == null || !data) return null;
    if ((await this.redis.exists(replicaKey(replica))) === 0) return null;
    return { id, user, session, replica, created: Number(created), deadline: Number(deadline), data: JSON.parse(data) as Record<string, unknown> };
  }

  /**
   * Answers a pending call: the first answer wins, atomically, whichever replica it comes through.
   * Whoever may answer is checked by the caller (the API); `user` is the call's owner, from getPending().
   */
  async answer(id: string, user: string, answer: StoredAnswer): Promise<AnswerResult> {
    const result = await this.redis.latchAnswer(interactionKey(id), pendingKey(user), ALL_PENDING, id, JSON.stringify(answer), `${REDIS_PREFIX}replica:`, CHANNEL_ANSWERED);
    if (result === 'ok') return { ok: true };
    return { ok: false, reason: result === 'answered' ? 'answered' : result === 'gone' ? 'gone' : 'missing' };
  }

  // ---- session grants ----

  async addGrant(user: string, session: string, grant: SessionGrant): Promise<void> {
    const key = grantsKey(user, session);
    await this.redis.multi().sadd(key, grant.type === 'rule' ? `rule:${grant.rule}` : `call:${grant.digest}`).pexpire(key, GRANTS_IDLE_MS).exec();
  }

  async grants(user: string, session: string): Promise<SessionGrant[]> {
    const members = await this.redis.smembers(grantsKey(user, session));
    return members.map((member) => (member.startsWith('rule:') ? { type: 'rule', rule: member.slice(5) } : { type: 'call', digest: member.slice(5) }));
  }

  /** The session ended: its grants go with it. */
  async dropSession(user: string, session: string): Promise<void> {
    await this.redis.del(grantsKey(user, session));
  }

  // ---- remembered per-user rules ----

  /** Adds rules to a user's remembered list; returns those that were not there yet. Every replica is told. */
  async addRules(user: string, list: RuleList, rules: string[]): Promise<string[]> {
    const key = rulesKey(user, list);
    // Scored by microseconds, so rules added together keep their order.
    const now = Date.now() * 1000;
    const multi = this.redis.multi();
    rules.forEach((rule, index) => multi.zadd(key, 'NX', now + index, rule));
    multi.sadd(RULE_USERS, user);
    const results = (await multi.exec()) ?? [];
    const added = rules.filter((_, index) => results[index]?.[1] === 1);
    if (added.length > 0) await this.redis.publish(CHANNEL_RULES, user);
    return added;
  }

  /** Removes rules from a user's remembered list; returns those that were there. Every replica is told. */
  async removeRules(user: string, list: RuleList, rules: string[]): Promise<string[]> {
    const key = rulesKey(user, list);
    const multi = this.redis.multi();
    for (const rule of rules) multi.zrem(key, rule);
    const results = (await multi.exec()) ?? [];
    const removed = rules.filter((_, index) => results[index]?.[1] === 1);
    if (removed.length > 0) await this.redis.publish(CHANNEL_RULES, user);
    return removed;
  }

  async rules(user: string): Promise<RememberedRules> {
    const pipeline = this.redis.pipeline();
    for (const list of LISTS) pipeline.zrange(rulesKey(user, list), '0', '-1');
    const results = (await pipeline.exec()) ?? [];
    return { allow: listOf(results[0]), ask: listOf(results[1]), deny: listOf(results[2]) };
  }

  /** Users with remembered rules (the admin view). */
  async ruleUsers(): Promise<string[]> {
    return (await this.redis.smembers(RULE_USERS)).sort();
  }

  /** Called with a user id whose remembered rules changed on any replica ('*' after a reconnect: any may have). */
  onRulesChanged(listener: (user: string) => void): () => void {
    this.rulesListeners.add(listener);
    return () => this.rulesListeners.delete(listener);
  }

  /**
   * Stops: this replica's waiting calls are withdrawn (none can be answered or run later), its
   * heartbeat removed, both connections closed.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    try {
      await Promise.all([...this.waiters.keys()].map((id) => this.settle(id, true)));
      await this.redis.del(replicaKey(this.replica));
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'team store (Redis): could not withdraw this replica\'s waiting calls; they expire with its heartbeat');
    }
    for (const [id, waiter] of this.waiters) {
      this.waiters.delete(id);
      waiter.resolve(null);
    }
    this.subscriber.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

const CHANNEL_ANSWERED = `${REDIS_PREFIX}answered`;
const CHANNEL_RULES = `${REDIS_PREFIX}rules`;
const ALL_PENDING = `${REDIS_PREFIX}pending`;
const RULE_USERS = `${REDIS_PREFIX}rule-users`;

function interactionKey(id: string): string {
  return `${REDIS_PREFIX}interaction:${id}`;
}
function pendingKey(user: string): string {
  return `${REDIS_PREFIX}pending:${encodeURIComponent(user)}`;
}
function replicaKey(replica: string): string {
  return `${REDIS_PREFIX}replica:${replica}`;
}
function grantsKey(user: string, session: string): string {
  return `${REDIS_PREFIX}grants:${encodeURIComponent(user)}:${encodeURIComponent(session)}`;
}
function rulesKey(user: string, list: RuleList): string {
  return `${REDIS_PREFIX}rules:${encodeURIComponent(user)}:${list}`;
}

function listOf(result: [Error | null, unknown] | undefined): string[] {
  if (!result) return [];
  if (result[0]) throw result[0];
  return result[1] as string[];
}

function parseAnswer(text: string): StoredAnswer {
  return JSON.parse(text) as StoredAnswer;
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an invalid URL)';
  }
}
