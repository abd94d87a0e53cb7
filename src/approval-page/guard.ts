import { createHash, timingSafeEqual } from '../node-crypto.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { PageSession } from './sessions.js';

/**
 * The door checks of the approval page: pure functions over a request's headers and the session its
 * cookie names (sessions.ts), so each rule can be read (and tested) on its own. The page is
 * reachable from every web page the person has open (any site can make the browser send requests
 * to 127.0.0.1) and from every local process, so a request must prove it comes from the page itself:
 *
 *   GET  /?nonce=N                 Host 127.0.0.1:PORT | localhost:PORT; N spent for the cookie (server.ts)
 *   GET  /, /events, /api/pending  … and the session cookie, and no foreign Origin / cross-site Sec-Fetch-Site
 *   POST /api/answer               … and Origin = the page's own origin, Content-Type application/json,
 *                                      X-Mcp-Latch-Token: the session's CSRF value
 *
 * Security: the Host check defeats DNS rebinding (a rebound name still sends its own Host); the
 * cookie (HttpOnly, SameSite=Strict) defeats other processes, which never see it, and blind
 * cross-site requests, which do not carry it; the POST rules make a cross-site form post (which
 * can carry neither a JSON content type nor a custom header) fail before it is read.
 */
const CSRF_HEADER = 'x-mcp-latch-token';

/** Why a request was refused; every refusal is a 403 (or 415 for the content type). */
export type Refusal = 'host' | 'session' | 'origin' | 'fetch-site' | 'content-type' | 'csrf';

/** What a request is checked against: the exact Host values the page answers to, and its cookie's name. */
export interface Door {
  hosts: string[];
  cookie: string;
}

/** The only Host values the page answers to: its loopback address (and `localhost` for 127.0.0.1) with its own port. */
export function allowedHosts(address: string, port: number): string[] {
  return address === '127.0.0.1' ? [`127.0.0.1:${port}`, `localhost:${port}`] : [`${address}:${port}`];
}

function isAllowedHost(host: string | undefined, door: Door): boolean {
  return host !== undefined && door.hosts.includes(host);
}

/** Constant-time comparison; hashing first keeps the length out of the timing as well. */
function isSecret(candidate: string | undefined, secret: string): boolean {
  if (typeof candidate !== 'string' || candidate === '') return false;
  const a = createHash('sha256').update(candidate).digest();
  const b = createHash('sha256').update(secret).digest();
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

/** Whether the Host is one the page answers to; checked first, before anything else is read. */
export function checkHost(headers: IncomingHttpHeaders, door: Door): Refusal | null {
  return isAllowedHost(header(headers, 'host'), door) ? null : 'host';
}

/**
 * Checks every request but a one-time link's: Host, the session cookie, and — when the browser says
 * where the request comes from — that it is the page itself. Returns null when the request may proceed.
 */
export function checkRequest(headers: IncomingHttpHeaders, session: PageSession | null, door: Door): Refusal | null {
  const host = header(headers, 'host');
  if (!isAllowedHost(host, door)) return 'host';
  if (!session) return 'session';
  const origin = header(headers, 'origin');
  if (origin !== undefined && origin !== ownOrigin(host as string)) return 'origin';
  return null;
}

/**
 * The extra rules for a request that changes something (an answer): it must come from the page's
 * own script, which a cross-site page or form cannot imitate.
 */
export function checkAnswerRequest(headers: IncomingHttpHeaders, session: PageSession, door: Door): Refusal | null {
  const host = header(headers, 'host');
  if (!isAllowedHost(host, door)) return 'host';
  // Security: a missing Origin is refused too; every browser sends it on a POST.
  if (header(headers, 'origin') !== ownOrigin(host as string)) return 'origin';
  const site = header(headers, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return 'fetch-site';
  if (!isSecret(header(headers, CSRF_HEADER), session.csrf)) return 'csrf';
  if (!isJsonContentType(header(headers, 'content-type'))) return 'content-type';
  return null;
}

/**
 * Every value of the cookie `name` the request carries. A browser sends several when more than one
 * was set (cookies are not kept apart by port: a server on another loopback port can set one), so
 * each is tried.
 */
export function cookieValues(headers: IncomingHttpHeaders, name: string): string[] {
  const values: string[] = [];
  for (const pair of (header(headers, 'cookie') ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) values.push(pair.slice(at + 1).trim());
  }
  return values;
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
