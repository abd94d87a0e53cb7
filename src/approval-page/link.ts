import { createHmac, randomBytes, timingSafeEqual } from '../node-crypto.js';

/**
 * One-time links to the approval page (docs/threat-model.md, "The approval page's address"). What
 * is given to a browser, on its command line (`xdg-open URL`, readable by every local user in
 * /proc/PID/cmdline) or in the log, is never the page's secret but a nonce:
 *
 *   http://127.0.0.1:PORT/?nonce=EXPIRES.RANDOM.MAC
 *
 * EXPIRES (ms since the epoch, base 36) is at most LINK_TTL_MS away, RANDOM is 128 random bits,
 * and MAC is HMAC-SHA256 over both under the page's secret. Whoever holds the secret mints links
 * without asking the page: the gateway for its announcements, and `mcp-latch page` from the state
 * file (mode 0600, denied to tools by built-in rules). The page spends each nonce once
 * (sessions.ts) and trades it for a cookie.
 */
export const LINK_TTL_MS = 60_000;
/** The query parameter of a one-time link. */
export const NONCE_PARAM = 'nonce';

export interface Nonce {
  /** The random part: what the page remembers as spent. */
  id: string;
  expires: number;
}

/** A fresh one-time link to the page at `base` (its address without a secret, ending in `/`). */
export function pageLink(base: string, secret: string, now = Date.now()): string {
  const body = `${(now + LINK_TTL_MS).toString(36)}.${randomBytes(16).toString('base64url')}`;
  return `${base}?${NONCE_PARAM}=${body}.${mac(secret, body)}`;
}

/** The nonce's parts when the page's secret made it; null for anything else (its expiry is not checked here). */
export function readNonce(text: string, secret: string): Nonce | null {
  const parts = text.split('.');
  if (parts.length !== 3) return null;
  const [expires, id, given] = parts as [string, string, string];
  if (!/^[0-9a-z]{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{22}$/.test(id) || !/^[A-Za-z0-9_-]{43}$/.test(given)) return null;
  // The text, not the bytes it decodes to: a base64url text has other spellings of the same bytes.
  if (!timingSafeEqual(Buffer.from(given), Buffer.from(mac(secret, `${expires}.${id}`)))) return null;
  return { id, expires: parseInt(expires, 36) };
}

function mac(secret: string, body: string): string {
  return createHmac('sha256', secret).update(`mcp-latch page link\0${body}`).digest('base64url');
}
