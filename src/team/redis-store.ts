import { randomBytes } from 'node:crypto';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { errorMessage, LatchError } from '../errors.js';
import type { Logger } from '../log.js';
import type { DecideOutcome, InteractionAnswer, PendingCall, SessionGrant, TeamStore } from './store.js';

/**
 * The team store on a Redis server (`store.url: redis://…`), shared by every replica of the gateway
 * (docs/team.md#two-replicas): pending calls, session grants and remembered rules live in Redis, and
 * an answer given through any replica releases the call held by the replica that has its client.
 *
 * Exactly once, by two atomic steps (Lua scripts: no other command runs in between):
 *
 *   decide (any replica)   pending → answered, the answer stored, the id published   (first answer wins)
 *   take   (holder only)   answered → settled, the answer returned                    (applied once)
 *
 * A held call that ends without an answer (cancelled, timed out, its replica stopping) is withdrawn
 * by the same kind of step: pending → settled. Whichever step comes first wins; the others find the
 * call settled. Each replica renews a heartbeat key that expires: once a replica dies, its calls can
 * no longer be answered (decide finds them settled) and leave the list, and since only the replica
 * that holds a call ever takes its answer, a call of a dead replica never runs.
 *
 * Keys, under the prefix `mcp-latch:` (one Redis database per team; not for Redis Cluster, the
 * scripts name keys they read from a hash):
 *
 *   call:<id>                 hash: user, replica, state (pending | answered | settled), call (JSON),
 *                             retryUntil, answer (JSON); expires after the call's last moment
 *   pending                   sorted set of pending ids, by creation time
 *   replica:<name>            heartbeat, expires after `heartbeatMs`
 *   grants:<user>:<session>   list of a session's grants (JSON)
 *   rules:<user>              sorted set of a user's remembered allow rules, by time added
 *
 * Channels: `mcp-latch:answered` (a call id), `mcp-latch:rules` (a user id whose rules changed),
 * `mcp-latch:grants` (`[user, session]` as JSON, whose grants changed).
 */

const PREFIX = 'mcp-latch:';
const CHANNEL_ANSWERED = `${PREFIX}answered`;
const CHANNEL_RULES = `${PREFIX}rules`;
const CHANNEL_GRANTS = `${PREFIX}grants`;
const PENDING = `${PREFIX}pending`;
const CALL_PREFIX = `${PREFIX}call:`;
const REPLICA_PREFIX = `${PREFIX}replica:`;

/** A replica that has not renewed its heartbeat for this long is dead: its calls can no longer be answered. */
const HEARTBEAT_MS = 15_000;
/** How long a settled call is remembered, so a late second answer is told "settled" rather than "unknown". */
const SETTLED_MS = 3600_000;
/** Idle session grants are dropped after this long (a session that ended without saying so). */
const GRANTS_IDLE_MS = 24 * 3600_000;

/**
 * KEYS: call:<id>, pending. ARGV: id, answer JSON, replica key prefix, channel, settled ms.
 * The holder's heartbeat is checked in the same step: a call whose replica died is settled, not answered.
 */
const DECIDE = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'unknown' end
if state ~= 'pending' then return 'settled' end
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', ARGV[3] .. redis.call('HGET', KEYS[1], 'replica')) == 0 then
  redis.call('HSET', KEYS[1], 'state', 'settled')
  redis.call('HDEL', KEYS[1], 'call')
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 'settled'
end
redis.call('HSET', KEYS[1], 'state', 'answered', 'answer', ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[1])
return 'decided'
`;

/**
 * KEYS: call:<id>, pending. ARGV: id, replica, withdraw ('1' | '0'), settled ms.
 * The holder takes its call's answer (once: the call is then settled); with withdraw '1' a call
 * still pending is settled without one, and one already settled otherwise (expired, or refused as
 * its replica's heartbeat had lapsed) ends the wait too. Returns the answer JSON, 'withdrawn', or false.
 */
const TAKE = `
local replica = redis.call('HGET', KEYS[1], 'replica')
if replica and replica ~= ARGV[2] then return false end
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'answered' then
  local answer = redis.call('HGET', KEYS[1], 'answer')
  redis.call('HSET', KEYS[1], 'state', 'settled')
  redis.call('HDEL', KEYS[1], 'call', 'answer')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return answer
end
if ARGV[3] == '1' then
  if state == 'pending' then
    redis.call('ZREM', KEYS[2], ARGV[1])
    redis.call('HSET', KEYS[1], 'state', 'settled')
    redis.call('HDEL', KEYS[1], 'call')
    redis.call('PEXPIRE', KEYS[1], ARGV[4])
  end
  return 'withdrawn'
end
return false
`;

/**
 * KEYS: pending. ARGV: call key prefix, replica key prefix, user ('' for everyone).
 * Pending calls whose replica is alive, as [call JSON, retryUntil] pairs; the ids of calls that
 * expired or whose replica died leave the set.
 */
const LIST = `
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local fields = redis.call('HMGET', ARGV[1] .. id, 'state', 'replica', 'user', 'call', 'retryUntil')
  if fields[1] ~= 'pending' or redis.call('EXISTS', ARGV[2] .. fields[2]) == 0 then
    redis.call('ZREM', KEYS[1], id)
  elseif ARGV[3] == '' or fields[3] == ARGV[3] then
    table.insert(out, fields[4])
    table.insert(out, fields[5] or '')
  end
end
return out
`;

interface Scripts {
  latchDecide(call: string, pending: string, id: string, answer: string, replicaPrefix: string, channel: string, settledMs: number): Promise<string>;
  latchTake(call: string, pending: string, id: string, replica: string, withdraw: string, settledMs: number): Promise<string | null>;
  latchList(pending: string, callPrefix: string, replicaPrefix: string, user: string): Promise<string[]>;
}

type Client = RedisClient & Scripts;

interface Held {
  resolve: (answer: InteractionAnswer | null) => void;
}

export interface RedisTeamStoreOptions {
  url: string;
  logger: Logger;
  /** This replica's name (default: random). */
  replica?: string;
  /** How long a heartbeat lasts; a shorter one lets tests see a dead replica sooner. */
  heartbeatMs?: number;
}

export class RedisTeamStore implements TeamStore {
  private readonly held = new Map<string, Held>();
  private readonly listeners = new Set<(user: string) => void>();
  /** Users whose rules this replica read: after a reconnect, their rules may have changed unseen. */
  private readonly knownUsers = new Set<string>();
  private readonly grantListeners = new Set<(user: string, session: string) => void>();
  /** Sessions whose grants this replica read or wrote, by key: after a reconnect, read again. */
  private readonly knownSessions = new Map<string, [user: string, session: string]>();
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    readonly replica: string,
    private readonly redis: Client,
    private readonly subscriber: RedisClient,
    private readonly logger: Logger,
    private readonly heartbeatMs: number,
  ) {}

  /** Connects (commands and subscriptions) and starts the heartbeat; a LatchError with the reason when Redis cannot be used. */
  static async connect(options: RedisTeamStoreOptions): Promise<RedisTeamStore> {
    const { Redis } = await import('ioredis');
    const settings: RedisOptions = {
      lazyConnect: true,
      // Fail closed and soon: a command that cannot reach Redis errors instead of queueing for long.
      maxRetriesPerRequest: 2,
      connectTimeout: 5_000,
    };
    const redis = new Redis(options.url, settings) as Client;
    const subscriber = new Redis(options.url, settings);
    // Connection errors are logged here and surface as failed commands; ioredis would print unhandled ones.
    redis.on('error', (error: Error) => options.logger.warn({ err: error.message }, 'team store (Redis): connection error'));
    subscriber.on('error', (error: Error) => options.logger.warn({ err: error.message }, 'team store (Redis): subscriber connection error'));
    redis.defineCommand('latchDecide', { numberOfKeys: 2, lua: DECIDE });
    redis.defineCommand('latchTake', { numberOfKeys: 2, lua: TAKE });
    redis.defineCommand('latchList', { numberOfKeys: 1, lua: LIST });
    const store = new RedisTeamStore(options.replica ?? `replica-${randomBytes(6).toString('hex')}`, redis, subscriber, options.logger, options.heartbeatMs ?? HEARTBEAT_MS);
    try {
      await Promise.all([redis.connect(), subscriber.connect()]);
      await store.start();
    } catch (error) {
      clearInterval(store.heartbeat);
      redis.disconnect();
      subscriber.disconnect();
      throw new LatchError('STORE_UNAVAILABLE', `cannot use the team store at ${redactUrl(options.url)}: ${errorMessage(error)}; check store.url and that the Redis server is running`, { cause: error });
    }
    return store;
  }

  private async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === CHANNEL_ANSWERED) void this.take(message, false);
      else if (channel === CHANNEL_RULES) this.rulesChanged(message);
      else if (channel === CHANNEL_GRANTS) this.grantsMessage(message);
    });
    // Messages published while the subscriber was reconnecting are lost: look at every held call
    // again, and have every known user's rules read again.
    this.subscriber.on('ready', () => {
      for (const id of this.held.keys()) void this.take(id, false);
      for (const user of this.knownUsers) this.rulesChanged(user);
      for (const [user, session] of this.knownSessions.values()) this.grantsChanged(user, session);
    });
    await this.subscriber.subscribe(CHANNEL_ANSWERED, CHANNEL_RULES, CHANNEL_GRANTS);
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.heartbeatMs / 3)));
    this.heartbeat.unref();
  }

  private async beat(): Promise<void> {
    try {
      await this.redis.set(REPLICA_PREFIX + this.replica, String(process.pid), 'PX', this.heartbeatMs);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, "team store (Redis): could not renew this replica's heartbeat");
    }
  }

  // ---- held calls ----

  async hold(call: PendingCall, signal: AbortSignal): Promise<InteractionAnswer | null> {
    if (signal.aborted) return null;
    const answered = new Promise<InteractionAnswer | null>((resolve) => this.held.set(call.id, { resolve }));
    const onAbort = () => void this.take(call.id, true);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const key = CALL_PREFIX + call.id;
      const stored: PendingCall = { ...call, replica: this.replica };
      await this.redis
        .multi()
        .hset(key, { user: call.user, replica: this.replica, state: 'pending', call: JSON.stringify(stored) })
        .pexpire(key, this.lifetimeMs(call.deadline, call.retryUntil))
        .zadd(PENDING, Date.parse(call.created) || Date.now(), call.id)
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
    held.resolve(taken === 'withdrawn' ? null : (JSON.parse(taken) as InteractionAnswer));
  }

  async update(id: string, change: { retryUntil: string }): Promise<void> {
    const key = CALL_PREFIX + id;
    const [state, text] = await this.redis.hmget(key, 'state', 'call');
    if (state !== 'pending' || !text) return;
    const call = JSON.parse(text) as PendingCall;
    await this.redis.multi().hset(key, 'retryUntil', change.retryUntil).pexpire(key, this.lifetimeMs(call.deadline, change.retryUntil)).exec();
  }

  async get(id: string): Promise<PendingCall | null> {
    const [state, replica, text, retryUntil] = await this.redis.hmget(CALL_PREFIX + id, 'state', 'replica', 'call', 'retryUntil');
    if (state !== 'pending' || !replica || !text) return null;
    if ((await this.redis.exists(REPLICA_PREFIX + replica)) === 0) return null;
    return withRetry(text, retryUntil ?? '');
  }

  async list(user: string | null): Promise<PendingCall[]> {
    const rows = await this.redis.latchList(PENDING, CALL_PREFIX, REPLICA_PREFIX, user ?? '');
    const calls: PendingCall[] = [];
    for (let index = 0; index + 1 < rows.length; index += 2) calls.push(withRetry(rows[index]!, rows[index + 1]!));
    return calls;
  }

  async decide(id: string, answer: InteractionAnswer): Promise<DecideOutcome> {
    const outcome = await this.redis.latchDecide(CALL_PREFIX + id, PENDING, id, JSON.stringify(answer), REPLICA_PREFIX, CHANNEL_ANSWERED, SETTLED_MS);
    return outcome === 'decided' ? 'decided' : outcome === 'settled' ? 'settled' : 'unknown';
  }

  // ---- session grants ----

  async addSessionGrant(user: string, session: string, grant: SessionGrant): Promise<void> {
    const key = grantsKey(user, session);
    this.knownSessions.set(key, [user, session]);
    const results = await this.redis.multi().rpush(key, JSON.stringify(grant)).pexpire(key, GRANTS_IDLE_MS).publish(CHANNEL_GRANTS, JSON.stringify([user, session])).exec();
    // exec() reports a failed command in its results, not by rejecting: the grant is not kept then.
    const failed = results?.find(([error]) => error)?.[0];
    if (!results || failed) throw failed ?? new Error('the transaction was discarded');
  }

  async sessionGrants(user: string, session: string): Promise<SessionGrant[]> {
    const key = grantsKey(user, session);
    this.knownSessions.set(key, [user, session]);
    return (await this.redis.lrange(key, 0, -1)).map((text) => JSON.parse(text) as SessionGrant);
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
    else this.logger.warn({ message: message.slice(0, 200) }, 'team store (Redis): ignored a malformed session grants message');
  }

  private grantsChanged(user: string, session: string): void {
    for (const listener of this.grantListeners) listener(user, session);
  }

  // ---- remembered rules ----

  async rememberedRules(user: string): Promise<string[]> {
    this.knownUsers.add(user);
    return this.redis.zrange(rulesKey(user), '0', '-1');
  }

  async remember(user: string, rules: string[]): Promise<string[]> {
    // Scored in microseconds, so rules added together keep their order.
    const now = Date.now() * 1000;
    const multi = this.redis.multi();
    rules.forEach((rule, index) => multi.zadd(rulesKey(user), 'NX', now + index, rule));
    const results = (await multi.exec()) ?? [];
    const added = rules.filter((_, index) => results[index]?.[1] === 1);
    if (added.length > 0) await this.redis.publish(CHANNEL_RULES, user);
    return added;
  }

  async forget(user: string, rule: string): Promise<boolean> {
    const removed = (await this.redis.zrem(rulesKey(user), rule)) === 1;
    if (removed) await this.redis.publish(CHANNEL_RULES, user);
    return removed;
  }

  onRulesChanged(listener: (user: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private rulesChanged(user: string): void {
    for (const listener of this.listeners) listener(user);
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

function withRetry(text: string, retryUntil: string): PendingCall {
  const call = JSON.parse(text) as PendingCall;
  return retryUntil ? { ...call, retryUntil } : call;
}

function grantsKey(user: string, session: string): string {
  return `${PREFIX}grants:${encodeURIComponent(user)}:${encodeURIComponent(session)}`;
}

function rulesKey(user: string): string {
  return `${PREFIX}rules:${encodeURIComponent(user)}`;
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
