import { createHash, createHmac, randomBytes } from '../node-crypto.js';
import { readNonce } from './link.js';

/**
 * The browsers the approval page trusts: each spent a one-time link (link.ts) and got a cookie
 * holding a session secret of its own. Every request of the page is then authenticated by that
 * cookie; an answer also carries the session's CSRF value in a header (guard.ts).
 *
 * A nonce works once, before it expires. When a spent nonce comes back, two browsers had the same
 * link: the one that came first may have read it from another process's command line, so the
 * session it opened is closed (unless the same browser is back), and the gateway says so in its log.
 */
export interface PageSession {
  /** SHA-256 of the cookie value: what is kept and looked up, so the lookup's timing says nothing about the secret. */
  key: string;
  /** What the page's script sends in `X-Mcp-Latch-Token` with an answer. */
  csrf: string;
}

/** What a visit with a nonce came to. */
export type Exchange =
  | { outcome: 'opened'; cookie: string; session: PageSession }
  | { outcome: 'refused'; why: 'invalid' | 'expired' | 'spent'; closed: boolean };

/** Bounds: a browser per link, and links live a minute, so these are far above any real use. */
const MAX_SESSIONS = 64;
const MAX_SPENT = 1024;

export class PageSessions {
  /** key → CSRF value, oldest first. */
  private readonly sessions = new Map<string, string>();
  /** Spent nonce id → the key of the session it opened, oldest first. */
  private readonly spent = new Map<string, string>();

  /**
   * `onClose` hears of every session that ends (closed by a link used twice, or evicted past
   * MAX_SESSIONS), so what the session holds open (its event streams) ends with it (review
   * round 18, L15: a closed session's stream went on receiving every waiting call).
   */
  constructor(
    private readonly secret: string,
    private readonly onClose: (key: string) => void = () => undefined,
  ) {}

  /** Whether the session of this key still exists. */
  has(key: string): boolean {
    return this.sessions.has(key);
  }

  /** The session of the first of these cookie values that names one, or null. */
  find(cookies: string[]): PageSession | null {
    for (const cookie of cookies) {
      const key = keyOf(cookie);
      const csrf = this.sessions.get(key);
      if (csrf !== undefined) return { key, csrf };
    }
    return null;
  }

  /** Spends a nonce for a new session; `current` is the session the visiting browser already has. */
  exchange(nonce: string, current: PageSession | null, now = Date.now()): Exchange {
    const read = readNonce(nonce, this.secret);
    if (!read) return { outcome: 'refused', why: 'invalid', closed: false };
    const opened = this.spent.get(read.id);
    if (opened !== undefined) {
      const closed = opened !== current?.key && this.sessions.delete(opened);
      if (closed) this.onClose(opened);
      return { outcome: 'refused', why: 'spent', closed };
    }
    if (read.expires < now) return { outcome: 'refused', why: 'expired', closed: false };
    const cookie = randomBytes(32).toString('base64url');
    const key = keyOf(cookie);
    const csrf = createHmac('sha256', this.secret).update(`mcp-latch page csrf\0${key}`).digest('base64url');
    const evicted = remember(this.sessions, key, csrf, MAX_SESSIONS);
    if (evicted !== undefined) this.onClose(evicted);
    remember(this.spent, read.id, key, MAX_SPENT);
    return { outcome: 'opened', cookie, session: { key, csrf } };
  }
}

function keyOf(cookie: string): string {
  return createHash('sha256').update(cookie).digest('hex');
}

/** Adds an entry; returns the key of the oldest one when it was dropped to keep `max`. */
function remember(map: Map<string, string>, key: string, value: string, max: number): string | undefined {
  map.set(key, value);
  if (map.size <= max) return undefined;
  const oldest = map.keys().next().value as string;
  map.delete(oldest);
  return oldest;
}
