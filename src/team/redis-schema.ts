import type { Redis as RedisClient } from 'ioredis';

/**
 * What the Redis team store keeps in Redis, and the atomic steps over it.
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
 *   call:<id>                 hash: user, replica, state (pending | answered | settled), call (JSON,
 *                             encrypted when signed), retryUntil, answer (JSON, the same); expires
 *                             after the call's last moment
 *   version                   `store:<format>`, the newest store format that used this store (STORE_FORMAT)
 *   pending                   sorted set of pending ids, by creation time
 *   replica:<name>            heartbeat, expires after `heartbeatMs`: the replica's pid, since
 *                             round 33 ` store:<format>`, and since round 25 ` forget:<version>`
 *                             (heartbeatValue; a replica of before round 25 writes its pid alone)
 *   grants:<user>:<session>   list of a session's grants (JSON)
 *   rules:<user>              sorted set of a user's remembered allow rules, by time added
 *   rules:<user>:gen          the generation of that set, bumped by each forget (signed; absent: 0)
 *
 * Channels: `mcp-latch:answered` (a call id), `mcp-latch:rules` (a user id whose rules changed),
 * `mcp-latch:grants` (`[user, session]` as JSON, whose grants changed), `mcp-latch:forgotten`
 * (`[user, nonce]`: a rule was forgotten; each replica reads the user's rules again and answers on
 * `mcp-latch:rules-applied` with `[nonce, replica]`, so the forget returns once every replica that
 * announced itself, or has a heartbeat of before round 25, no longer holds the rule: docs/team.md,
 * "Forgetting is in force at once"), and
 * each replica's hello, `mcp-latch:hello:<version>:<replica>`: its subscriber connection subscribes
 * to it, so Redis lists it (PUBSUB CHANNELS) exactly while that replica hears, with the version of
 * the forget protocol it confirms (FORGET_PROTOCOL). Nothing is published on it.
 */

const PREFIX = 'mcp-latch:';
export const CHANNEL_ANSWERED = `${PREFIX}answered`;
export const CHANNEL_RULES = `${PREFIX}rules`;
export const CHANNEL_GRANTS = `${PREFIX}grants`;
export const CHANNEL_FORGOTTEN = `${PREFIX}forgotten`;
export const CHANNEL_RULES_APPLIED = `${PREFIX}rules-applied`;
/** Where a replica announces itself: `${HELLO_PREFIX}<version>:<replica>` (helloChannel). */
export const HELLO_PREFIX = `${PREFIX}hello:`;
/**
 * The version of the forget protocol this build speaks: it hears `mcp-latch:forgotten`, reads the
 * user's rules again and confirms on `mcp-latch:rules-applied`. Round 24 spoke it without a hello
 * (version 1, never announced); 2 since round 25. A forget waits for the replicas announcing 2 or more.
 */
export const FORGET_PROTOCOL = 2;

/**
 * The format of what this build keeps in Redis (docs/team.md, "Replicas of different versions"):
 * 3 since round 33, whose waiting calls and answers are encrypted (store-signing.ts hide) and whose
 * LIST gives ids; 2 the rounds 25–32 wrote (a heartbeat naming the forget protocol), 1 before. A
 * replica refuses to start beside a live one of another format, or on a store a later format used.
 */
export const STORE_FORMAT = 3;
/** Where the newest format that used the store is kept: `store:<format>` (STORE_FORMAT). */
export const VERSION_KEY = `${PREFIX}version`;

/** What a replica's heartbeat key holds: its pid, the store format it writes, and the forget protocol it speaks (last, as replicas of rounds 25–32 read it). */
export function heartbeatValue(pid: number): string {
  return `${pid} store:${STORE_FORMAT} forget:${FORGET_PROTOCOL}`;
}

/** The store format a replica's heartbeat says it writes: named since round 33; else 2 when it names a forget protocol (rounds 25–32), 1 before. */
export function heartbeatFormat(value: string): number {
  const named = /(?:^| )store:([0-9]{1,6})(?= |$)/.exec(value);
  if (named) return Number(named[1]);
  return olderHeartbeat(value) ? 1 : 2;
}

/** A store format in words, for an operator: which builds write it. */
export function formatName(format: number): string {
  if (format === STORE_FORMAT) return `store format ${format} (mcp-latch of round 33 on)`;
  if (format === 2) return 'store format 2 (mcp-latch of rounds 25 to 32)';
  if (format === 1) return 'store format 1 (mcp-latch of before round 25)';
  return `store format ${format} (${format > STORE_FORMAT ? 'a later mcp-latch than this one' : 'an earlier mcp-latch'})`;
}

/** Whether a heartbeat's value is that of a replica of before round 25 (no forget protocol named): one that announces nothing. */
export function olderHeartbeat(value: string): boolean {
  return !/ forget:[0-9]{1,6}$/.test(value);
}

/** The hello channel of `replica`. */
export function helloChannel(replica: string): string {
  return `${HELLO_PREFIX}${FORGET_PROTOCOL}:${replica}`;
}

/** The replica a hello channel announces, when its version confirms forgets; else null (another version, or not a hello). */
export function helloReplica(channel: string): string | null {
  if (!channel.startsWith(HELLO_PREFIX)) return null;
  const rest = channel.slice(HELLO_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0 || colon === rest.length - 1) return null;
  const version = rest.slice(0, colon);
  if (!/^[0-9]{1,6}$/.test(version) || Number(version) < FORGET_PROTOCOL) return null;
  return rest.slice(colon + 1);
}
export const PENDING = `${PREFIX}pending`;
export const CALL_PREFIX = `${PREFIX}call:`;
export const REPLICA_PREFIX = `${PREFIX}replica:`;

/** How long a settled call is remembered, so a late second answer is told "settled" rather than "unknown". */
export const SETTLED_MS = 3600_000;
/** Idle session grants are dropped after this long (a session that ended without saying so). */
export const GRANTS_IDLE_MS = 24 * 3600_000;

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
 * Pending calls whose replica is alive, as [id, call as kept, retryUntil] triples (the id: the call
 * is encrypted, and its id is where it was encrypted and signed for); the ids of calls that expired
 * or whose replica died leave the set.
 */
const LIST = `
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local fields = redis.call('HMGET', ARGV[1] .. id, 'state', 'replica', 'user', 'call', 'retryUntil')
  if fields[1] ~= 'pending' or redis.call('EXISTS', ARGV[2] .. fields[2]) == 0 then
    redis.call('ZREM', KEYS[1], id)
  elseif ARGV[3] == '' or fields[3] == ARGV[3] then
    table.insert(out, id)
    table.insert(out, fields[4])
    table.insert(out, fields[5] or '')
  end
end
return out
`;

/**
 * KEYS: rules:<user>, rules:<user>:gen. ARGV: the generation as read ('' when absent), the
 * generation to set first ('' for none: only when the store lost the user's rules, the set then
 * empty), the most rules the user may keep, then score, rule pairs (distinct). Adds the rules (NX)
 * only while the generation is still the one they were signed for (a forget in between would leave
 * them signed for the old one: they would not hold). Returns 1 or 0 for each rule (added or there
 * already), -1 when the generation (or the lost set) changed: read it again, or 'full <n>' (n the
 * set's size) when the rules not there yet would take the set past the most, nothing added: the
 * count and the write are one step, so answers given at once on any replicas cannot pass it
 * together (round 32; until then each replica read the count first).
 */
const REMEMBER = `
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return -1 end
local have = redis.call('ZCARD', KEYS[1])
if ARGV[2] ~= '' and have ~= 0 then return -1 end
local fresh = 0
for i = 4, #ARGV, 2 do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i + 1]) then fresh = fresh + 1 end
end
if fresh > 0 and have + fresh > tonumber(ARGV[3]) then return 'full ' .. have end
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2]) end
local added = {}
for i = 4, #ARGV, 2 do added[#added + 1] = redis.call('ZADD', KEYS[1], 'NX', ARGV[i], ARGV[i + 1]) end
return added
`;

/**
 * KEYS: grants:<user>:<session>. ARGV: the grant as kept, how long the list lives (ms), the channel
 * and message that tell the replicas, the most grants a session may keep. Appends the grant, renews
 * the list's life and publishes, or returns the list's length when it holds the most already
 * (nothing added); 'added' otherwise. One step: grants added at once cannot pass the most together
 * (round 32; until then the length was read first).
 */
const ADD_GRANT = `
local have = redis.call('LLEN', KEYS[1])
if have >= tonumber(ARGV[5]) then return have end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 'added'
`;

/**
 * KEYS: rules:<user>, rules:<user>:gen. ARGV: the generation as read ('' when absent), the next
 * generation, n, the n members as read (in ZRANGE order), then score, member pairs of the set to
 * keep. Replaces the set and bumps the generation only while both are as read; returns 1, or 0 when
 * either changed meanwhile (read again).
 */
const REPLACE_RULES = `
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[3])
local now = redis.call('ZRANGE', KEYS[1], 0, -1)
if #now ~= n then return 0 end
for i = 1, n do if now[i] ~= ARGV[3 + i] then return 0 end end
redis.call('DEL', KEYS[1])
for i = 4 + n, #ARGV, 2 do redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('SET', KEYS[2], ARGV[2])
return 1
`;

/**
 * KEYS: replica:<name>, pending. ARGV: pid, heartbeat ms, call key prefix, replica name, then
 * (score, id) pairs of the calls this replica holds. Renews the heartbeat; when the key was gone
 * (a lapse: Redis restarted or flushed, a renewal missed), LIST has meanwhile dropped this replica's
 * ids from the pending set, so the ones still pending here go back in. Returns how many did.
 */
const BEAT = `
local lapsed = redis.call('EXISTS', KEYS[1]) == 0
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if not lapsed then return 0 end
local added = 0
for i = 5, #ARGV, 2 do
  local fields = redis.call('HMGET', ARGV[3] .. ARGV[i + 1], 'state', 'replica')
  if fields[1] == 'pending' and fields[2] == ARGV[4] then
    added = added + redis.call('ZADD', KEYS[2], 'NX', ARGV[i], ARGV[i + 1])
  end
end
return added
`;

interface Scripts {
  latchBeat(replica: string, pending: string, ...args: Array<string | number>): Promise<number>;
  latchDecide(call: string, pending: string, id: string, answer: string, replicaPrefix: string, channel: string, settledMs: number): Promise<string>;
  latchTake(call: string, pending: string, id: string, replica: string, withdraw: string, settledMs: number): Promise<string | null>;
  latchList(pending: string, callPrefix: string, replicaPrefix: string, user: string): Promise<string[]>;
  latchRemember(rules: string, generation: string, ...args: Array<string | number>): Promise<number[] | number | string>;
  latchAddGrant(grants: string, grant: string, idleMs: number, channel: string, message: string, most: number): Promise<number | string>;
  latchReplaceRules(rules: string, generation: string, ...args: Array<string | number>): Promise<number>;
}

export type Client = RedisClient & Scripts;

/** Gives a connection the atomic steps above as commands. */
export function defineScripts(redis: RedisClient): Client {
  redis.defineCommand('latchBeat', { numberOfKeys: 2, lua: BEAT });
  redis.defineCommand('latchDecide', { numberOfKeys: 2, lua: DECIDE });
  redis.defineCommand('latchTake', { numberOfKeys: 2, lua: TAKE });
  redis.defineCommand('latchList', { numberOfKeys: 1, lua: LIST });
  redis.defineCommand('latchRemember', { numberOfKeys: 2, lua: REMEMBER });
  redis.defineCommand('latchAddGrant', { numberOfKeys: 1, lua: ADD_GRANT });
  redis.defineCommand('latchReplaceRules', { numberOfKeys: 2, lua: REPLACE_RULES });
  return redis as Client;
}

export function grantsKey(user: string, session: string): string {
  return `${PREFIX}grants:${encodeURIComponent(user)}:${encodeURIComponent(session)}`;
}

export function rulesKey(user: string): string {
  return `${PREFIX}rules:${encodeURIComponent(user)}`;
}

/** Where the generation of a user's remembered rules is kept (`:` never occurs in an encoded user id). */
export function rulesGenerationKey(user: string): string {
  return `${rulesKey(user)}:gen`;
}
