import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The door checks of the approval page: pure functions over a request's method, headers and query
 * token, so each rule can be read (and tested) on its own. The page is reachable from every web page
 * the person has open (any site can make the browser send requests to 127.0.0.1), so a request must
 * prove it comes from the page itself:
 *
 *   GET  /?token=T                 Host 127.0.0.1:PORT | localhost:PORT, right token
 *   GET  /events?token=T           … and no foreign Origin / cross-site Sec-Fetch-Site
 *   POST /api/answer?token=T       … and Origin = the page's own origin, Content-Type application/json,
 *                                      X-Mcp-Latch-Token: T
 *
 * Security: the Host check defeats DNS rebinding (a rebound name still sends its own Host), the
 * token defeats blind cross-site requests (an attacker page cannot read it: no CORS headers, and the
 * page's responses are never readable cross-origin), and the POST rules make a cross-site form post
 * (which can carry neither a JSON content type nor a custom header) fail before it is read.
 */
const TOKEN_HEADER = 'x-mcp-latch-token';

/** Why a request was refused; every refusal is a 403 (or 415 for the content type). */
export type Refusal = 'host' | 'token' | 'origin' | 'fetch-site' | 'content-type' | 'csrf';

/** What a request is checked against: the exact Host values the page answers to, and its secret. */
export interface Door {
  hosts: string[];
  token: string;
}

/** The only Host values the page answers to: its loopback address (and `localhost` for 127.0.0.1) with its own port. */
export function allowedHosts(address: string, port: number): string[] {
  return address === '127.0.0.1' ? [`127.0.0.1:${port}`, `localhost:${port}`] : [`${address}:${port}`];
}

function isAllowedHost(host: string | undefined, door: Door): boolean {
  return host !== undefined && door.hosts.includes(host);
}

/** Constant-time token comparison; hashing first keeps the length out of the timing as well. */
function isToken(candidate: string | null | undefined, token: string): boolean {
  if (typeof candidate !== 'string' || candidate === '') return false;
  const a = createHash('sha256').update(candidate).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** The page's own origin for a request that passed the Host check. */
function ownOrigin(host: string): string {
  return `http://${host}`;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Checks every request: Host, token (query `token` or the token header), and — when the browser says
 * where the request comes from — that it is the page itself. Returns null when the request may proceed.
 */
export function checkRequest(headers: IncomingHttpHeaders, queryToken: string | null, door: Door): Refusal | null {
  const { token } = door;
  const host = header(headers, 'host');
  if (!isAllowedHost(host, door)) return 'host';
  const headerToken = header(headers, TOKEN_HEADER);
  // Both places are checked when both are given, so a right token cannot carry a wrong one along.
  if (queryToken === null && headerToken === undefined) return 'token';
  if (queryToken !== null && !isToken(queryToken, token)) return 'token';
  if (headerToken !== undefined && !isToken(headerToken, token)) return 'token';
  const origin = header(headers, 'origin');
  if (origin !== undefined && origin !== ownOrigin(host as string)) return 'origin';
  return null;
}

/**
 * The extra rules for a request that changes something (an answer): it must come from the page's
 * own script, which a cross-site page or form cannot imitate.
 */
export function checkAnswerRequest(headers: IncomingHttpHeaders, door: Door): Refusal | null {
  const { token } = door;
  const host = header(headers, 'host');
  if (!isAllowedHost(host, door)) return 'host';
  // Security: a missing Origin is refused too; every browser sends it on a POST.
  if (header(headers, 'origin') !== ownOrigin(host as string)) return 'origin';
  const site = header(headers, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return 'fetch-site';
  if (!isToken(header(headers, TOKEN_HEADER), token)) return 'csrf';
  if (!isJsonContentType(header(headers, 'content-type'))) return 'content-type';
  return null;
}

/**
 * For the data endpoints (pending list, events): fetched by the page's own script, never navigated
 * to from another site. Browsers that send Sec-Fetch-Site say "same-origin" for the page's requests.
 */
export function checkDataRequest(headers: IncomingHttpHeaders): Refusal | null {
  const site = header(headers, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return 'fetch-site';
  return null;
}

/** `application/json`, optionally with parameters (`; charset=utf-8`); nothing a plain HTML form can send. */
function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  return value.split(';')[0]?.trim().toLowerCase() === 'application/json';
}
