import { createHmac, randomBytes, timingSafeEqual } from '../node-crypto.js';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { LatchError } from '../errors.js';
import { isPlainObject } from '../values.js';

/**
 * The `requestState` of a paused call (MCP 2026-07-28, `input_required`): the pending approval
 * travels through the client and comes back on the retry, so whatever comes back is
 * attacker-controlled. A state is an HMAC-SHA256-signed payload, bound to the gateway session, the
 * server, the tool and the call's argument digest, with an expiry, and spent on first use: a
 * replayed, altered, expired or foreign state, or one presented with other arguments, is refused
 * (the call then asks again).
 *
 *   mls1.<payload, base64url JSON>.<HMAC-SHA256 of "mls1.<payload>", base64url>
 *
 * The payload is signed, not encrypted: it holds what the client already saw (the call's names and
 * digest, and a downstream server's own opaque state).
 */
const PREFIX = 'mls1.';
/** A longer state is refused unread; a downstream server's own state must fit in it. */
export const MAX_REQUEST_STATE_CHARS = 65_536;

/** What a state is bound to: one call of one session. */
export interface StateBinding {
  session: string;
  server: string;
  tool: string;
  argsDigest: string;
}

/**
 * `elsewhere`: the state verifies but another process sealed it, and what for (its data, which the
 * key vouches for): the gateway's own prompt (the call was not sent to its server there), a 2025
 * server's question held while the call runs there, or a server's own questions after it was sent.
 */
export type OpenedState = { ok: true; data: Record<string, unknown> } | { ok: false; problem: string; elsewhere?: 'prompt' | 'held' | 'server' };

/**
 * This process, in each state it seals: a state of another session is told apart from one another
 * process issued (another replica of a team gateway, or this one before a restart), which only that
 * process could honour (docs/team.md, "Two replicas"). Made at the first state sealed or opened, not
 * when the module is evaluated: this module is in the stdio gateway's bundle, and randomBytes loads
 * node:crypto (~2 ms of CPU, node-crypto.ts) at every start, before the first list
 * (docs/performance.md, "Round 23: start").
 */
let processId: string | undefined;
const thisProcess = (): string => (processId ??= randomBytes(9).toString('base64url'));

/** Why a state that does not verify is not used. */
const NOT_OURS = 'it was altered or was not issued by this gateway (another replica of a team gateway signs with the key beside its own config, unless the replicas share the folder: docs/team.md, "Two replicas")';

/**
 * Why a state sealed by another process is not used (docs/team.md, "Two replicas"): it is spent in
 * the memory of the process that issued it, so honouring it here too could run the call twice. Says
 * what this process knows: it has not sent the call to its server; whether the other one did is
 * the other one's (never claimed "not run").
 */
export const ISSUED_ELSEWHERE = 'the prompt you answered was issued by another mcp-latch process (another replica of this team gateway, or this gateway before it restarted), and only the process that issued a prompt may take its answer, once; this one has not sent the call to its server. Each request of a member must reach one replica (docs/team.md, "Two replicas"); answer again here';

/** The same, when what the person answered were its server's questions, which the other process had relayed after sending the call. */
export const SERVER_QUESTIONS_ELSEWHERE = "your answers were to its server's questions, relayed by another mcp-latch process (another replica of this team gateway, or this gateway before it restarted) that had sent the call to its server; only that process may use them, once, and this one has not sent the call: approved here, it is sent to its server anew, from the start. Each request of a member must reach one replica (docs/team.md, \"Two replicas\"); answer again here";

interface Payload {
  /** The process that sealed it (absent in states of before round 23). */
  r?: string;
  s: string;
  v: string;
  t: string;
  d: string;
  /** Expiry, epoch milliseconds. */
  e: number;
  /** Nonce: what "spent" remembers. */
  n: string;
  /** Whatever the caller sealed with the binding. */
  x: Record<string, unknown>;
}

export class RequestStates {
  /** Nonces of states already used, with their expiry (forgotten once expired: they are refused anyway). */
  private readonly spent = new Map<string, number>();
  private key: Buffer | null = null;

  constructor(
    private readonly loadKey: () => Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  seal(binding: StateBinding, ttlMs: number, data: Record<string, unknown> = {}): string {
    const payload: Payload = { r: thisProcess(), s: binding.session, v: binding.server, t: binding.tool, d: binding.argsDigest, e: this.now() + ttlMs, n: randomBytes(16).toString('base64url'), x: data };
    const body = PREFIX + Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** Verifies a state presented for `binding` and spends it: the same state never opens twice. */
  open(token: unknown, binding: StateBinding): OpenedState {
    if (typeof token !== 'string' || !token.startsWith(PREFIX)) return { ok: false, problem: 'it is not a state this gateway issued' };
    if (token.length > MAX_REQUEST_STATE_CHARS) return { ok: false, problem: `it is longer than ${MAX_REQUEST_STATE_CHARS} characters` };
    const dot = token.lastIndexOf('.');
    const body = token.slice(0, dot);
    // The signature's text is compared, not its decoded bytes: base64url's last character has spare
    // bits, so another spelling of the same bytes would otherwise pass as the state we issued.
    const given = Buffer.from(token.slice(dot + 1), 'latin1');
    const expected = Buffer.from(this.mac(body), 'latin1');
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body.slice(PREFIX.length), 'base64url').toString('utf8')) as Payload;
    } catch {
      return { ok: false, problem: NOT_OURS };
    }
    if (dot <= PREFIX.length || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      // Fail closed, read unverified only to run less: a state another process (another replica, its
      // key beside its own config) sealed for a 2025 server's question it holds means the call was
      // sent to its server there; decided anew here it would run twice. A forged one only ends the
      // forger's own call.
      const elsewhere = isPlainObject(payload) && typeof payload.r === 'string' && payload.r !== thisProcess() && isPlainObject(payload.x) && typeof payload.x.held === 'string';
      return elsewhere ? { ok: false, problem: NOT_OURS, elsewhere: 'held' } : { ok: false, problem: NOT_OURS };
    }
    if (payload.s !== binding.session) {
      if (payload.r === undefined || payload.r === thisProcess()) return { ok: false, problem: 'it was issued to another session' };
      const data = payload.x ?? {};
      if (typeof data.held === 'string') return { ok: false, problem: ISSUED_ELSEWHERE, elsewhere: 'held' };
      return data.server ? { ok: false, problem: SERVER_QUESTIONS_ELSEWHERE, elsewhere: 'server' } : { ok: false, problem: ISSUED_ELSEWHERE, elsewhere: 'prompt' };
    }
    if (payload.v !== binding.server || payload.t !== binding.tool || payload.d !== binding.argsDigest) return { ok: false, problem: 'it was issued for another call (the tool or its arguments changed)' };
    const now = this.now();
    this.forgetExpired(now);
    if (!(payload.e > now)) return { ok: false, problem: 'it expired' };
    if (this.spent.has(payload.n)) return { ok: false, problem: 'it was already used' };
    this.spent.set(payload.n, payload.e);
    return { ok: true, data: payload.x ?? {} };
  }

  private mac(body: string): string {
    this.key ??= this.loadKey();
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }

  private forgetExpired(now: number): void {
    for (const [nonce, expiry] of this.spent) if (expiry <= now) this.spent.delete(nonce);
  }
}


/**
 * The gateway's state key from `path`, made (32 random bytes, mode 0600) on first use. A key file
 * others can read, or one that is not a key, is not used: the caller gets the reason and falls
 * back to a key of this process only (states then end with it, which the session binding implies
 * anyway).
 */
export function readOrCreateStateKey(path: string, platform: NodeJS.Platform = process.platform): Buffer {
  try {
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new LatchError('STATE_KEY_UNUSABLE', `could not create the state key ${path}: ${(error as Error).message}`);
  }
  if (platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) throw new LatchError('STATE_KEY_UNUSABLE', `the state key ${path} can be read by other users; run: chmod 600 "${path}"`);
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
  if (key.length < 32) throw new LatchError('STATE_KEY_UNUSABLE', `the state key ${path} does not hold a key (64 hex digits); delete it and mcp-latch makes a new one`);
  return key;
}
