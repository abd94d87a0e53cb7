import { randomBytes } from '../node-crypto.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIPv4 } from 'node:net';
import { LatchError, errorMessage } from '../errors.js';
import type { ApprovalPage, PageItem } from '../latch/page.js';
import type { PromptAnswer } from '../latch/prompt.js';
import type { Logger } from '../log.js';
import { allowedHosts, checkAnswerRequest, checkDataRequest, checkHost, checkRequest, cookieValues, type Door, type Refusal } from './guard.js';
import { LINK_TTL_MS, NONCE_PARAM, pageLink, readNonce } from './link.js';
import { removeOpener } from './opener.js';
import { PageSessions, type PageSession } from './sessions.js';
import { PendingItems, type AnswerRefusal } from './items.js';
import { EDIT_REFUSED } from '../latch/edit.js';
import { SECURITY_HEADERS, loadPage, type Asset } from './assets.js';
import { UnprovenConnections } from '../team/unproven-connections.js';

/**
 * The local approval page: a node:http server on a loopback address and a random port,
 * serving the static page in `web/` and a small API over the calls waiting for the person.
 *
 *   GET  /?nonce=N                a one-time link (link.ts): sets the session cookie, then on to /
 *   GET  /                        the page (index.html, with the session's CSRF value)
 *   GET  /app.js|/escape.js|/style.css
 *   GET  /api/pending             { items: PublicItem[], recent: RecentDecision[] }
 *   GET  /events                  text/event-stream: `event: pending` with { items, recent } on every change
 *   POST /api/answer              { id, decision, note?, edit? } | { id, action: 'decline' }
 *                                 (edit: { <argument>: <new text> }, only the fields the item offers)
 *                                 (Origin, Content-Type: application/json, X-Mcp-Latch-Token: CSRF)
 *
 * Security: loopback only; the page's secret never leaves the gateway but in the state file
 * (state-file.ts): browsers get one-time links and then a session cookie (sessions.ts); exact Host
 * values (DNS rebinding), no CORS headers at all, strict CSP, and answers bound to the random id of
 * the item they were shown for and to that item's own choices (guard.ts and items.ts say how).
 */
export interface ApprovalPageOptions {
  logger: Logger;
  /** A loopback IPv4 address; 127.0.0.1 unless a test needs another. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Where links given to a browser wait in files (opener.ts): the file of a spent nonce is removed. */
  openerDir?: string;
}

const MAX_BODY_BYTES = 256 * 1024;
/** At most one refusal warning per this interval (a hostile page could otherwise flood the log); the rest go to debug. */
const REFUSAL_WARN_MS = 10_000;
const KEEPALIVE_MS = 15_000;
/**
 * Connections that have made no request with a session cookie (or spent a link) yet, kept at most:
 * a new one past it closes the oldest. The page runs in the gateway's process and any local user
 * can connect to it: until round 30, 1,100 idle connections took every descriptor of a gateway
 * limited to 1,024 and the person's own link timed out (round 30 review, T30-5). The person's
 * browser opens a few, each leaving the count with its first request, a few milliseconds after.
 */
export const MAX_UNPROVEN_PAGE_CONNECTIONS = 64;

/** The local page: its address without a secret (`url`), and its secret, for the state file only. */
export interface LocalApprovalPage extends ApprovalPage {
  readonly secret: string;
}

/** Starts the page; resolves once it listens. */
export async function startApprovalPage(options: ApprovalPageOptions): Promise<LocalApprovalPage> {
  const address = options.host ?? '127.0.0.1';
  // Security: never anything but loopback; a wildcard or LAN address would expose the page.
  if (!isIPv4(address) || !address.startsWith('127.')) {
    throw new LatchError('USAGE', `the approval page binds only to a loopback IPv4 address, not ${address}`);
  }
  const secret = randomBytes(32).toString('base64url');
  const assets = await loadPage('index.html', '');
  const page = new PageServer(options.logger, secret, assets, options.openerDir ?? null);
  await page.listen(address, options.port ?? 0);
  return page;
}

class PageServer implements LocalApprovalPage {
  url = '';
  private readonly server: Server;
  private readonly items: PendingItems;
  private readonly sessions: PageSessions;
  /** Open `/events` streams → the key of the session that opened each: a stream lives no longer than its session. */
  private readonly streams = new Map<ServerResponse, string>();
  private readonly keepalive: NodeJS.Timeout;
  private door: Door = { hosts: [], cookie: '' };
  /**
   * Where the page lives once a link was spent: `/s/<128 random bits>`, and the session cookie's
   * `Path`. No cookie attribute keeps a cookie to its port (RFC 6265 §8.5): a browser sends it to
   * every port of 127.0.0.1, but only for paths below its `Path`, which no other server knows
   * (docs/threat-model.md, "The approval page's address"). Given to the browser by the link's
   * exchange, never on a command line; requests at the root are still answered (a client that
   * sends the cookie there itself), the browser just never sends it there.
   */
  private readonly scope = `/s/${randomBytes(16).toString('base64url')}`;
  private closed = false;
  private lastRefusalWarning = 0;
  private readonly unproven: UnprovenConnections;

  constructor(
    private readonly logger: Logger,
    readonly secret: string,
    private readonly assets: Map<string, Asset>,
    private readonly openerDir: string | null,
  ) {
    this.sessions = new PageSessions(secret, (key) => this.endStreams(key));
    this.items = new PendingItems(() => this.broadcast());
    this.unproven = new UnprovenConnections(
      () => MAX_UNPROVEN_PAGE_CONNECTIONS,
      (closed, most) => this.logger.warn({ closed }, `approval page: ${closed} connection(s) that had made no request with a session were closed: more than ${most} were open; another program on this machine may be flooding the page`),
    );
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        this.logger.error({ err: errorMessage(error) }, 'approval page request failed');
        if (!response.headersSent) this.send(response, 500, { error: 'internal error' });
        else response.destroy();
      });
    });
    this.keepalive = setInterval(() => {
      for (const stream of this.streams.keys()) stream.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
    this.keepalive.unref();
  }

  async listen(address: string, port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host: address, port, exclusive: true }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const bound = (this.server.address() as AddressInfo).port;
    // Cookies are not kept apart by port: one name per page, so two gateways' pages do not overwrite each other's.
    this.door = { hosts: allowedHosts(address, bound), cookie: `mcp-latch-${bound}` };
    this.url = `http://${address}:${bound}/`;
    // Keep the gateway process alive only for its MCP connection, never for the page or an open tab.
    this.server.unref();
    this.server.on('connection', (socket) => {
      socket.unref();
      this.unproven.admit(socket);
    });
  }

  link(): string {
    return pageLink(this.url, this.secret);
  }

  /**
   * The page under its scope, with no nonce: a browser holding this page's session cookie opens it
   * (the cookie's Path is the scope); any other gets the page that says how to get a link. What a
   * URL elicitation carries, since a pre-authenticated URL there would hand the client (and the model
   * it may show URLs to) a session that approves its own calls (round 18 review, L8).
   */
  plainAddress(): string {
    return `${this.url.slice(0, -1)}${this.scope}/`;
  }

  /** The bound socket address, for tests. */
  address(): AddressInfo {
    return this.server.address() as AddressInfo;
  }

  ask(item: PageItem, signal: AbortSignal): Promise<PromptAnswer> {
    if (this.closed || signal.aborted) return Promise.resolve({ type: 'dismissed' });
    return new Promise<PromptAnswer>((resolve) => {
      const withdraw = () => this.items.withdraw(id);
      const id = this.items.add(item, (answer) => {
        signal.removeEventListener('abort', withdraw);
        resolve(answer);
      });
      signal.addEventListener('abort', withdraw, { once: true });
    });
  }

  answeredPending(item: PageItem, retryUntil: number): void {
    this.items.answeredPending(item, retryUntil);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepalive);
    this.items.withdrawAll();
    for (const stream of this.streams.keys()) stream.end();
    this.streams.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://page.invalid');
    const method = request.method ?? 'GET';
    const path = url.pathname.startsWith(`${this.scope}/`) ? url.pathname.slice(this.scope.length) : url.pathname;
    const refuse = (why: Refusal) => {
      // The path only: the query may hold a nonce.
      this.logRefusal({ method, path, refused: why }, 'approval page refused a request');
      this.send(response, why === 'content-type' ? 415 : 403, { error: 'forbidden' });
    };
    const hostRefusal = checkHost(request.headers, this.door);
    if (hostRefusal) return refuse(hostRefusal);
    const session = this.sessions.find(cookieValues(request.headers, this.door.cookie));
    // The person's browser: its connection is no longer one of those a flood may close (T30-5).
    if (session) this.unproven.proven(request.socket);
    const isPage = method === 'GET' && (path === '/' || path === '/index.html');
    const nonce = url.searchParams.get(NONCE_PARAM);
    if (isPage && nonce !== null) return this.open(nonce, session, response);
    const refusal = checkRequest(request.headers, session, this.door);
    if (refusal === 'session' && isPage) {
      this.logRefusal({ method, path, refused: refusal }, 'approval page refused a request');
      return this.sendLinkPage(response, 'missing');
    }
    if (refusal || !session) return refuse(refusal ?? 'session');

    if (path === '/api/answer') {
      if (method !== 'POST') return this.send(response, 405, { error: 'method not allowed' }, { Allow: 'POST' });
      const answerRefusal = checkAnswerRequest(request.headers, session, this.door);
      if (answerRefusal) return refuse(answerRefusal);
      return this.answer(request, response);
    }
    if (method !== 'GET') return this.send(response, 405, { error: 'method not allowed' }, { Allow: 'GET' });
    if (path === '/api/pending' || path === '/events') {
      const dataRefusal = checkDataRequest(request.headers);
      if (dataRefusal) return refuse(dataRefusal);
      if (path === '/events') return this.openStream(response, session);
      return this.send(response, 200, { items: this.items.list(), recent: this.items.recent() });
    }
    const asset = this.assets.get(path === '/index.html' ? '/' : path);
    if (!asset) return this.send(response, 404, { error: 'not found' });
    response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': asset.type });
    // The CSRF value is base64url, so it is safe inside an attribute; the page reads it from its meta tag.
    response.end(isPage ? asset.body.replaceAll('{{CSRF}}', session.csrf) : asset.body);
  }

  /**
   * A one-time link: spent for a session cookie, then on to the page's address without the nonce.
   * The way on is a same-origin navigation (meta refresh), not a redirect: after a navigation that
   * came from another site, a redirect would not carry the SameSite=Strict cookie it just got.
   */
  private open(nonce: string, current: PageSession | null, response: ServerResponse): void {
    const exchange = this.sessions.exchange(nonce, current);
    // A link that reached the browser through a file (opener.ts) is spent: its file goes now.
    const read = this.openerDir ? readNonce(nonce, this.secret) : null;
    if (read && this.openerDir) removeOpener(this.openerDir, read.expires, read.id);
    if (exchange.outcome === 'opened') {
      if (response.socket) this.unproven.proven(response.socket);
      // No Secure: the page is plain http on loopback. No Max-Age: the cookie ends with the browser, the session with the gateway.
      const cookie = `${this.door.cookie}=${exchange.cookie}; Path=${this.scope}/; HttpOnly; SameSite=Strict`;
      this.logger.info('approval page opened by a one-time link');
      return this.sendHtml(response, 200, openingPage(this.scope), { 'Set-Cookie': cookie });
    }
    if (exchange.closed) {
      this.logger.warn(
        'a one-time link to the approval page was used twice: another program may have read it from the command line of the browser it was given to; the page session its first use opened is closed',
      );
    } else {
      this.logRefusal({ refused: `link ${exchange.why}` }, 'approval page refused a one-time link');
    }
    if (current) return this.sendHtml(response, 200, openingPage(this.scope));
    this.sendLinkPage(response, exchange.why);
  }

  private sendLinkPage(response: ServerResponse, why: LinkProblem): void {
    this.sendHtml(response, 403, linkPage(why));
  }

  private sendHtml(response: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
    response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8', ...headers });
    response.end(html);
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(request));
    } catch (error) {
      if (error instanceof BodyTooLarge) return this.send(response, 413, { error: 'body too large' }, { Connection: 'close' });
      return this.send(response, 400, { error: 'the body is not JSON' });
    }
    const refusal = this.items.answer(body);
    if (typeof refusal === 'object' && refusal !== null) {
      // Not an attack: the person's edit is one the rules deny. The call keeps waiting.
      return this.send(response, 422, { error: `the changed call is not allowed: ${refusal.editDenied}. Change it again, or answer the call as shown` });
    }
    if (refusal) {
      this.logRefusal({ refused: refusal }, 'approval page refused an answer');
      return this.send(response, ANSWER_STATUS[refusal], { error: ANSWER_ERROR[refusal] });
    }
    this.send(response, 200, { ok: true });
  }

  private logRefusal(details: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if (now - this.lastRefusalWarning >= REFUSAL_WARN_MS) {
      this.lastRefusalWarning = now;
      this.logger.warn(details, message);
    } else {
      this.logger.debug(details, message);
    }
  }

  private openStream(response: ServerResponse, session: PageSession): void {
    response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
    response.write(`retry: 2000\n\n${this.event()}`);
    this.streams.set(response, session.key);
    response.on('close', () => this.streams.delete(response));
  }

  /** Ends the streams of a session that was closed or evicted (sessions.ts): the browser reconnects, and is refused. */
  private endStreams(key: string): void {
    for (const [stream, owner] of this.streams) {
      if (owner !== key) continue;
      this.streams.delete(stream);
      stream.end();
    }
  }

  private event(): string {
    // JSON has no raw line breaks, so the whole list is one `data:` line.
    return `event: pending\ndata: ${JSON.stringify({ items: this.items.list(), recent: this.items.recent() })}\n\n`;
  }

  private broadcast(): void {
    const event = this.event();
    // Only to streams whose session still exists (endStreams ends the others; this holds if one was missed).
    for (const [stream, key] of this.streams) {
      if (this.sessions.has(key)) stream.write(event);
      else {
        this.streams.delete(stream);
        stream.end();
      }
    }
  }

  private send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8', ...headers });
    response.end(text);
  }
}

const ANSWER_STATUS: Record<Exclude<AnswerRefusal, object>, number> = { unknown: 404, settled: 409, invalid: 400, edit: 400 };
const ANSWER_ERROR: Record<Exclude<AnswerRefusal, object>, string> = {
  unknown: 'no such call is waiting',
  settled: 'this call was already answered or is no longer waiting',
  invalid: 'the answer is not one of the choices offered for this call',
  edit: EDIT_REFUSED,
};

/** On to the page once the cookie is set; the link is for people whose browser does not follow. */
/** On to the page below its scope (base64url: nothing to escape). */
const openingPage = (scope: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0; url=${scope}/">
<title>mcp-latch · approvals</title></head>
<body><p>Opening the <a href="${scope}/">mcp-latch approval page</a>…</p></body></html>
`;

type LinkProblem = 'invalid' | 'expired' | 'spent' | 'missing';

const LINK_PROBLEM: Record<LinkProblem, string> = {
  invalid: 'This is not a link this approval page gave out.',
  expired: 'This link has expired.',
  spent:
    'This link was already used. If you did not open it before, another program on this computer may have: the page session it opened has been closed.',
  missing: 'This page opens only through a link from its gateway.',
};

/** What a browser without a session sees: why, and how to get a fresh link (docs/threat-model.md, "The approval page's address"). */
function linkPage(why: LinkProblem): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>mcp-latch · approvals</title></head>
<body>
<h1>mcp-latch approvals</h1>
<p>${LINK_PROBLEM[why]}</p>
<p>Each link to this page works once, within ${LINK_TTL_MS / 1000} seconds. For a fresh one, run <code>mcp-latch page --open</code>
(add <code>--config PATH</code> if the gateway uses another config), or wait for the next call that needs your approval:
the gateway gives a new link with it.</p>
</body></html>
`;
}

class BodyTooLarge extends Error {}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        request.pause();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
