import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, test } from 'vitest';
import { MAX_UNPROVEN_PAGE_CONNECTIONS, startApprovalPage, type LocalApprovalPage } from '../../src/approval-page/server.js';
import type { PageItem } from '../../src/latch/page.js';
import { renderMessage, type PromptAnswer, type PromptInput } from '../../src/latch/prompt.js';
import { silentLogger } from '../../src/log.js';
import type { Decision } from '../../src/policy/types.js';

/**
 * The approval page's HTTP surface, over plain HTTP with no browser: who may read the
 * page and its data, who may answer, and what an answer does. Every refusal is checked for having
 * no effect: the item is still waiting and its `ask` has not resolved.
 */
const pages: LocalApprovalPage[] = [];
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
});

function promptInput(overrides: Partial<PromptInput> = {}): PromptInput {
  const decision: Decision = {
    verdict: 'ask',
    kind: 'write',
    rule: null,
    by: 'mode',
    reason: 'no rule matched /w/a.txt (mode default)',
    subjects: [],
    paths: [{ path: '/w/a.txt', realPath: '/w/a.txt', access: 'write', inWorkspace: true, input: '/w/a.txt', via: 'path' }],
    commandInfo: null,
  };
  return {
    server: 'fs',
    tool: 'write_file',
    kind: 'write',
    decision,
    args: { path: '/w/a.txt', content: 'x' },
    argsDigest: 'digest-1',
    rememberRules: ['Edit(/w/a.txt)'],
    offerSession: true,
    ...overrides,
  };
}

function pageItem(input = promptInput()): PageItem {
  return { session: 'test-client 1.0.0', input, message: renderMessage(input), deadline: Date.now() + 60_000, more: 0, retryUntil: null };
}

interface Started {
  page: LocalApprovalPage;
  port: number;
  host: string;
  /** The session cookie a one-time link got, as the Cookie header sends it. */
  cookie: string;
  /** The session's CSRF value, from the page's meta tag. */
  csrf: string;
}

async function start(): Promise<Started> {
  const page = await startApprovalPage({ logger: silentLogger() });
  pages.push(page);
  const url = new URL(page.url);
  const host = `127.0.0.1:${url.port}`;
  const port = Number(url.port);
  const cookie = await exchange(port, host, page.link());
  const html = await send(port, { path: '/', headers: { Host: host, Cookie: cookie } });
  const csrf = /<meta name="mcp-latch-csrf" content="([A-Za-z0-9_-]{43})">/.exec(html.body)?.[1];
  if (!csrf) throw new Error(`no CSRF value in the page: ${html.status} ${html.body.slice(0, 200)}`);
  return { page, port, host, cookie, csrf };
}

/** Follows a one-time link as a browser would; returns the cookie it set (name=value). */
async function exchange(port: number, host: string, link: string): Promise<string> {
  const { pathname, search } = new URL(link);
  const reply = await send(port, { path: `${pathname}${search}`, headers: { Host: host } });
  expect(reply.status, reply.body).toBe(200);
  const setCookie = reply.headers['set-cookie']?.[0] ?? '';
  return setCookie.split(';')[0]!;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP request with exactly the headers given (Host included), as any local program could send. */
function send(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string; address?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: options.address ?? '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {}, setHost: false, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          // Event streams stay open: the first event is enough for these checks.
          if (res.headers['content-type']?.startsWith('text/event-stream') && body.includes('\n\n')) {
            res.destroy();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** What the page's own script sends with an answer. */
function answerHeaders(s: Started, extra: Record<string, string> = {}): Record<string, string> {
  return { Host: s.host, Origin: `http://${s.host}`, 'Content-Type': 'application/json', Cookie: s.cookie, 'X-Mcp-Latch-Token': s.csrf, 'Sec-Fetch-Site': 'same-origin', ...extra };
}

async function pendingIds(s: Started): Promise<string[]> {
  const reply = await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: s.cookie } });
  expect(reply.status).toBe(200);
  return (JSON.parse(reply.body) as { items: Array<{ id: string }> }).items.map((item) => item.id);
}

/** Asks one item and returns its id plus a probe telling whether `ask` has resolved. */
async function askOne(s: Started, input = promptInput()) {
  const before = new Set(await pendingIds(s));
  let answer: PromptAnswer | null = null;
  const controller = new AbortController();
  const answered = s.page.ask(pageItem(input), controller.signal).then((value) => (answer = value));
  const id = (await pendingIds(s)).find((candidate) => !before.has(candidate));
  if (!id) throw new Error('the item did not appear');
  return { id, answered, controller, answer: () => answer };
}

function reaches(host: string, port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const tick = () => new Promise((done) => setTimeout(done, 20));

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The text with its last character changed. */
const alter = (text: string): string => `${text.slice(0, -1)}${text.endsWith('A') ? 'B' : 'A'}`;

describe('connections of other programs', () => {
  test('past the bound the oldest connections that made no request with a session are closed; the person\'s browser is served (round 30 review, T30-5)', async () => {
    // Until round 30 none was closed: 1,100 idle connections took every descriptor of a gateway limited to 1,024, and the person's link timed out.
    const s = await start();
    const extra = 40;
    let closedByPage = 0;
    const sockets = Array.from({ length: MAX_UNPROVEN_PAGE_CONNECTIONS + extra }, () => {
      const socket = connect(s.port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => (closedByPage += 1));
      return socket;
    });
    try {
      for (let waited = 0; closedByPage < extra && waited < 200; waited += 1) await tick();
      expect(closedByPage).toBeGreaterThanOrEqual(extra);
      // The person's browser, with its cookie, on a connection of its own.
      expect((await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: s.cookie } })).status).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe('binds loopback only', () => {
  test('listens on 127.0.0.1 with a random port; its address holds no secret, its links a nonce', async () => {
    const s = await start();
    const address = (s.page as unknown as { address(): { address: string; family: string; port: number } }).address();
    expect(address.address).toBe('127.0.0.1');
    expect(address.family).toBe('IPv4');
    expect(address.port).toBe(s.port);
    expect(s.page.url).toBe(`http://127.0.0.1:${s.port}/`);
    expect(s.page.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const link = s.page.link();
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?nonce=[0-9a-z]+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(link).not.toContain(s.page.secret);
    expect(s.page.link()).not.toBe(link);
    const other = await start();
    expect(other.page.secret).not.toBe(s.page.secret);
    expect(other.cookie.split('=')[0]).toBe(`mcp-latch-${other.port}`);
  });

  test('is not reachable through any other address of this machine', async () => {
    const s = await start();
    const others = ['::1', ...(process.platform === 'linux' ? ['127.0.0.2'] : [])];
    for (const [name, list] of Object.entries(networkInterfaces())) {
      for (const info of list ?? []) {
        if (info.internal) continue;
        others.push(info.family === 'IPv6' && info.address.startsWith('fe80:') ? `${info.address}%${name}` : info.address);
      }
    }
    // A control server on every address shows each probe can connect when something listens there.
    // (Machines without IPv6 fall back to an IPv4 wildcard; addresses the control cannot reach are skipped.)
    const control = createNetServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => {
      control.once('error', () => control.listen({ host: '0.0.0.0', port: 0 }, resolve));
      control.listen({ host: '::', port: 0 }, resolve);
    });
    const controlPort = (control.address() as AddressInfo).port;
    const probed: string[] = [];
    try {
      for (const address of others) {
        if (!(await reaches(address, controlPort))) continue;
        probed.push(address);
        expect(await reaches(address, s.port), `page via ${address}`).toBe(false);
      }
    } finally {
      control.close();
    }
    expect(probed.length).toBeGreaterThan(0);
  });

  test('refuses to bind a wildcard or LAN address', async () => {
    await expect(startApprovalPage({ logger: silentLogger(), host: '0.0.0.0' })).rejects.toThrow(/loopback/);
    await expect(startApprovalPage({ logger: silentLogger(), host: '::' })).rejects.toThrow(/loopback/);
    await expect(startApprovalPage({ logger: silentLogger(), host: '192.168.1.10' })).rejects.toThrow(/loopback/);
  });
});

describe('one-time links and the session cookie', () => {
  test.each(['/', '/index.html', '/app.js', '/escape.js', '/style.css', '/api/pending', '/events', '/nothing-here'])('GET %s without the cookie is 403', async (path) => {
    const s = await start();
    const reply = await send(s.port, { path, headers: { Host: s.host } });
    expect(reply.status).toBe(403);
    expect(reply.headers['set-cookie']).toBeUndefined();
  });

  test('the page without a cookie says how to get a link', async () => {
    const s = await start();
    const reply = await send(s.port, { path: '/', headers: { Host: s.host } });
    expect(reply.status).toBe(403);
    expect(reply.body).toContain('only through a link from its gateway');
    expect(reply.body).toContain('mcp-latch page --open');
    expect(reply.body).not.toContain('mcp-latch-csrf');
  });

  test('a link works once: it sets an HttpOnly, SameSite=Strict cookie and leads on to the address without the nonce; a second use is refused', async () => {
    const page = await startApprovalPage({ logger: silentLogger() });
    pages.push(page);
    const port = Number(new URL(page.url).port);
    const host = `127.0.0.1:${port}`;
    const { pathname, search } = new URL(page.link());
    const first = await send(port, { path: `${pathname}${search}`, headers: { Host: host } });
    expect(first.status).toBe(200);
    expect(first.headers['set-cookie']).toHaveLength(1);
    // Scoped to a path only this page knows (22 base64url characters, 128 bits): a browser sends
    // the cookie to every port of 127.0.0.1 (RFC 6265 §8.5), but only for paths below it. Until
    // round 13 it was Path=/, sent to any server another local user runs on this host.
    const scoped = new RegExp(`^mcp-latch-${port}=[A-Za-z0-9_-]{43}; Path=(/s/[A-Za-z0-9_-]{22})/; HttpOnly; SameSite=Strict$`).exec(first.headers['set-cookie']![0]!);
    expect(scoped).not.toBeNull();
    const scope = scoped![1]!;
    expect(first.body).toContain(`<meta http-equiv="refresh" content="0; url=${scope}/">`);
    const cookie = first.headers['set-cookie']![0]!.split(';')[0]!;
    expect((await send(port, { path: `${scope}/api/pending`, headers: { Host: host, Cookie: cookie } })).status).toBe(200);
    const shown = await send(port, { path: `${scope}/`, headers: { Host: host, Cookie: cookie } });
    expect(shown.status).toBe(200);
    expect(shown.body).toContain('src="app.js"');
    // Another page's scope is its own.
    const other = await startApprovalPage({ logger: silentLogger() });
    pages.push(other);
    const otherLink = new URL(other.link());
    const otherFirst = await send(Number(otherLink.port), { path: `${otherLink.pathname}${otherLink.search}`, headers: { Host: otherLink.host } });
    expect(otherFirst.headers['set-cookie']![0]).not.toContain(`Path=${scope}/`);

    const second = await send(port, { path: `${pathname}${search}`, headers: { Host: host } });
    expect(second.status).toBe(403);
    expect(second.headers['set-cookie']).toBeUndefined();
    expect(second.body).toContain('already used');
    expect(second.body).toContain('mcp-latch page --open');
  });

  test('a used link coming back from another browser closes the session its first use opened; the same browser keeps it', async () => {
    const s = await start();
    const link = new URL(s.page.link());
    const path = `${link.pathname}${link.search}`;
    const first = await exchange(s.port, s.host, link.href);
    // The same browser, back with its cookie: sent on to the page, its session kept.
    const again = await send(s.port, { path, headers: { Host: s.host, Cookie: first } });
    expect(again.status).toBe(200);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect((await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: first } })).status).toBe(200);
    // Another browser (no cookie): refused, and the first use's session is closed.
    expect((await send(s.port, { path, headers: { Host: s.host } })).status).toBe(403);
    expect((await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: first } })).status).toBe(403);
    // Other sessions are not touched.
    expect((await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: s.cookie } })).status).toBe(200);
  });

  test('an expired link is refused', async () => {
    const s = await start();
    const { pageLink } = await import('../../src/approval-page/link.js');
    const stale = new URL(pageLink(s.page.url, s.page.secret, Date.now() - 61_000));
    const reply = await send(s.port, { path: `/${stale.search}`, headers: { Host: s.host } });
    expect(reply.status).toBe(403);
    expect(reply.body).toContain('has expired');
    expect(reply.headers['set-cookie']).toBeUndefined();
  });

  test('a forged, altered, truncated or empty nonce, a link of another page, or the page secret itself is refused', async () => {
    const s = await start();
    const other = await start();
    const nonce = new URL(s.page.link()).searchParams.get('nonce')!;
    const [expires, id, mac] = nonce.split('.') as [string, string, string];
    const later = (parseInt(expires, 36) + 3_600_000).toString(36);
    const forged = [
      `${later}.${id}.${mac}`,
      `${expires}.${alter(id)}.${mac}`,
      `${expires}.${id}.${alter(mac)}`,
      // The same MAC bytes spelled otherwise: the last character's two low bits are not data.
      `${expires}.${id}.${mac.slice(0, -1)}${B64URL[B64URL.indexOf(mac.at(-1)!) ^ 1]}`,
      nonce.slice(0, -1),
      '',
      `${expires}.${id}`,
      new URL(other.page.link()).searchParams.get('nonce')!,
      s.page.secret,
    ];
    for (const candidate of forged) {
      const reply = await send(s.port, { path: `/?nonce=${encodeURIComponent(candidate)}`, headers: { Host: s.host } });
      expect(reply.status, candidate).toBe(403);
      expect(reply.headers['set-cookie'], candidate).toBeUndefined();
    }
    // The old form of address, the secret in `token`, opens nothing either.
    expect((await send(s.port, { path: `/?token=${s.page.secret}`, headers: { Host: s.host } })).status).toBe(403);
    expect((await send(s.port, { path: `/api/pending?token=${s.page.secret}`, headers: { Host: s.host, 'X-Mcp-Latch-Token': s.page.secret } })).status).toBe(403);
    // The untouched nonce still works: the refusals spent nothing.
    expect((await send(s.port, { path: `/?nonce=${nonce}`, headers: { Host: s.host } })).status).toBe(200);
  });

  test('a wrong, altered or foreign cookie is 403; a right one among wrong ones of the same name is taken', async () => {
    const s = await start();
    const [name, value] = s.cookie.split('=') as [string, string];
    for (const cookie of [`${name}=${alter(value)}`, `${name}=`, `mcp-latch-1=${value}`, `${name}=${s.page.secret}`, `${name}=${s.csrf}`]) {
      expect((await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: cookie } })).status, cookie).toBe(403);
    }
    const tossed = `${name}=junk; ${s.cookie}`;
    expect((await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: tossed } })).status).toBe(200);
  });

  test('with the cookie the page, its assets and its data are served; the page holds the CSRF value, not the cookie or the secret', async () => {
    const s = await start();
    const page = await send(s.port, { path: '/', headers: { Host: s.host, Cookie: s.cookie } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    // The page holds no call data (that comes as JSON), and no secret the browser would not need.
    expect(page.body).toContain(`<meta name="mcp-latch-csrf" content="${s.csrf}">`);
    expect(page.body).toContain('src="app.js"');
    expect(page.body).not.toContain('{{');
    expect(page.body).not.toContain(s.cookie.split('=')[1]);
    expect(page.body).not.toContain(s.page.secret);
    for (const [path, type] of [['/app.js', 'text/javascript'], ['/escape.js', 'text/javascript'], ['/style.css', 'text/css']] as const) {
      const reply = await send(s.port, { path, headers: { Host: s.host, Cookie: s.cookie } });
      expect(reply.status, path).toBe(200);
      expect(reply.headers['content-type']).toContain(type);
    }
    expect(JSON.parse((await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: s.cookie } })).body)).toEqual({ items: [], recent: [] });
  });
});

describe('Host header (DNS rebinding)', () => {
  test.each(['evil.example:PORT', 'evil.example', '127.0.0.1', 'localhost', '127.0.0.1:1', 'localhost.evil.example:PORT', '127.0.0.1:PORT.evil.example', '[::1]:PORT', '0.0.0.0:PORT', 'LOCALHOST:PORT'])(
    'Host %s is refused even with the cookie, and a link is not spent',
    async (host) => {
      const s = await start();
      const reply = await send(s.port, { path: '/', headers: { Host: host.replace('PORT', String(s.port)), Cookie: s.cookie } });
      expect(reply.status).toBe(403);
      expect(reply.body).not.toContain(s.csrf);
      const link = new URL(s.page.link());
      const opened = await send(s.port, { path: `/${link.search}`, headers: { Host: host.replace('PORT', String(s.port)) } });
      expect(opened.status).toBe(403);
      expect(opened.headers['set-cookie']).toBeUndefined();
      expect((await send(s.port, { path: `/${link.search}`, headers: { Host: s.host } })).status).toBe(200);
    },
  );

  test('a request with no Host header is refused (node answers 400 before the page sees it)', async () => {
    const s = await start();
    const reply = await send(s.port, { path: '/', headers: { Cookie: s.cookie } });
    expect(reply.status).toBe(400);
    expect(reply.body).not.toContain(s.csrf);
  });

  test('localhost with the right port is accepted', async () => {
    const s = await start();
    expect((await send(s.port, { path: '/', headers: { Host: `localhost:${s.port}`, Cookie: s.cookie } })).status).toBe(200);
  });
});

describe('response headers', () => {
  const expected = {
    'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };

  test('every response, refused or not, carries the security headers and no CORS header', async () => {
    const s = await start();
    const replies = [
      await send(s.port, { path: '/', headers: { Host: s.host, Cookie: s.cookie } }),
      await send(s.port, { path: '/app.js', headers: { Host: s.host, Cookie: s.cookie } }),
      await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: s.cookie } }),
      await send(s.port, { path: '/events', headers: { Host: s.host, Cookie: s.cookie } }),
      await send(s.port, { path: '/', headers: { Host: s.host } }),
      await send(s.port, { path: '/', headers: { Host: 'evil.example', Cookie: s.cookie } }),
      await send(s.port, { path: `/${new URL(s.page.link()).search}`, headers: { Host: s.host } }),
      await send(s.port, { path: `/${new URL(s.page.link()).search.slice(0, -2)}`, headers: { Host: s.host } }),
      await send(s.port, { method: 'OPTIONS', path: '/api/answer', headers: { Host: s.host, Cookie: s.cookie, Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } }),
      await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s), body: '{}' }),
    ];
    for (const reply of replies) {
      expect(reply.headers).toMatchObject(expected);
      expect(Object.keys(reply.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  test('a CORS preflight gets no permission', async () => {
    const s = await start();
    const reply = await send(s.port, { method: 'OPTIONS', path: '/api/answer', headers: { Host: s.host, Cookie: s.cookie, Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-mcp-latch-token' } });
    expect(reply.status).toBe(403);
  });
});

describe('answers: only from the page itself', () => {
  test('an answer with a foreign Origin is refused and the item stays pending', async () => {
    const s = await start();
    const item = await askOne(s);
    for (const origin of ['https://evil.example', `http://evil.example:${s.port}`, 'http://127.0.0.1:1', 'null', `https://${s.host}`]) {
      const reply = await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s, { Origin: origin }), body: JSON.stringify({ id: item.id, decision: 'Allow once' }) });
      expect(reply.status, origin).toBe(403);
    }
    await tick();
    expect(item.answer()).toBeNull();
    expect(await pendingIds(s)).toEqual([item.id]);
  });

  test('an answer with no Origin is refused', async () => {
    const s = await start();
    const item = await askOne(s);
    const { Origin: _origin, ...headers } = answerHeaders(s);
    const reply = await send(s.port, { method: 'POST', path: '/api/answer', headers, body: JSON.stringify({ id: item.id, decision: 'Allow once' }) });
    expect(reply.status).toBe(403);
    await tick();
    expect(item.answer()).toBeNull();
    expect(await pendingIds(s)).toEqual([item.id]);
  });

  test('a cross-site HTML form post is refused (form content types, no token header)', async () => {
    const s = await start();
    const item = await askOne(s);
    const formBody = `id=${encodeURIComponent(item.id)}&decision=Allow+once`;
    // What a hostile page's <form method=post action="http://127.0.0.1:PORT/api/answer"> sends, were the cookie sent along.
    const crossSite = await send(s.port, {
      method: 'POST',
      path: '/api/answer',
      headers: { Host: s.host, Cookie: s.cookie, Origin: 'https://evil.example', 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'cross-site' },
      body: formBody,
    });
    expect(crossSite.status).toBe(403);
    // Even with the page's own Origin and the token header, a form content type is not read.
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain']) {
      const reply = await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s, { 'Content-Type': type }), body: type === 'text/plain' ? JSON.stringify({ id: item.id, decision: 'Allow once' }) : formBody });
      expect(reply.status, type).toBe(415);
    }
    await tick();
    expect(item.answer()).toBeNull();
    expect(await pendingIds(s)).toEqual([item.id]);
  });

  test('an answer without the CSRF header, with another session\'s, or with the cookie or secret in its place, is refused even with the cookie', async () => {
    const s = await start();
    const other = await start();
    const item = await askOne(s);
    const { 'X-Mcp-Latch-Token': _csrf, ...headers } = answerHeaders(s);
    const second = await exchange(s.port, s.host, s.page.link());
    const body = JSON.stringify({ id: item.id, decision: 'Allow once' });
    expect((await send(s.port, { method: 'POST', path: '/api/answer', headers, body })).status).toBe(403);
    for (const csrf of [other.csrf, s.page.secret, s.cookie.split('=')[1]!, `${alter(s.csrf)}`]) {
      expect((await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s, { 'X-Mcp-Latch-Token': csrf }), body })).status).toBe(403);
    }
    // A second session's cookie with the first session's CSRF value: each value is bound to its session.
    expect((await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s, { Cookie: second }), body })).status).toBe(403);
    // Without a cookie, the right CSRF value is not enough.
    const { Cookie: _cookie, ...noCookie } = answerHeaders(s);
    expect((await send(s.port, { method: 'POST', path: '/api/answer', headers: noCookie, body })).status).toBe(403);
    await tick();
    expect(item.answer()).toBeNull();
  });

  test('a request the browser marks cross-site or same-site is refused for answers and data', async () => {
    const s = await start();
    const item = await askOne(s);
    for (const site of ['cross-site', 'same-site', 'none']) {
      const answer = await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s, { 'Sec-Fetch-Site': site }), body: JSON.stringify({ id: item.id, decision: 'Allow once' }) });
      expect(answer.status, site).toBe(403);
      const data = await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: s.cookie, 'Sec-Fetch-Site': site } });
      expect(data.status, site).toBe(403);
    }
    await tick();
    expect(item.answer()).toBeNull();
  });

  test('GET cannot answer', async () => {
    const s = await start();
    const item = await askOne(s);
    const reply = await send(s.port, { path: `/api/answer?id=${item.id}&decision=Allow+once`, headers: { Host: s.host, Cookie: s.cookie } });
    expect(reply.status).toBe(405);
    await tick();
    expect(item.answer()).toBeNull();
  });
});

describe('answers: bound to the item and its choices', () => {
  test('a choice the item did not offer is refused and has no effect', async () => {
    const s = await start();
    const item = await askOne(s, promptInput({ offerSession: false, rememberRules: null }));
    for (const decision of ['Allow for this session', 'Always allow: Edit(/w/a.txt)', 'Always allow: Edit(/**)', 'allow once', 'Allow once ', '', null, 1, { type: 'once' }]) {
      const reply = await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s), body: JSON.stringify({ id: item.id, decision }) });
      expect(reply.status, JSON.stringify(decision)).toBe(400);
    }
    await tick();
    expect(item.answer()).toBeNull();
    expect(await pendingIds(s)).toEqual([item.id]);
  });

  test('an unknown id is 404; malformed, oversized or ambiguous bodies are 4xx; none has an effect', async () => {
    const s = await start();
    const item = await askOne(s);
    const post = (body: string) => send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s), body });
    expect((await post(JSON.stringify({ id: 'nope', decision: 'Allow once' }))).status).toBe(404);
    expect((await post('not json')).status).toBe(400);
    expect((await post('[]')).status).toBe(400);
    expect((await post(JSON.stringify({ id: item.id, decision: 'Allow once', action: 'decline' }))).status).toBe(400);
    expect((await post(JSON.stringify({ id: item.id, action: 'accept' }))).status).toBe(400);
    expect((await post(JSON.stringify({ id: item.id, decision: 'Allow once', note: 'x'.repeat(2001) }))).status).toBe(400);
    expect((await post(JSON.stringify({ id: item.id, decision: 'Allow once', note: 'x'.repeat(300_000) }))).status).toBe(413);
    await tick();
    expect(item.answer()).toBeNull();
    expect(await pendingIds(s)).toEqual([item.id]);
  });

  test('an item is answered at most once: the second answer is 409 and changes nothing', async () => {
    const s = await start();
    const item = await askOne(s);
    const first = await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s), body: JSON.stringify({ id: item.id, decision: 'Deny', note: 'not now' }) });
    expect(first.status).toBe(200);
    const second = await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s), body: JSON.stringify({ id: item.id, decision: 'Allow once' }) });
    expect(second.status).toBe(409);
    await item.answered;
    expect(item.answer()).toEqual({ type: 'choice', choice: { type: 'deny' }, note: 'not now' });
    expect(await pendingIds(s)).toEqual([]);
  });
});

describe('ask()', () => {
  async function answerWith(body: Record<string, unknown>, input = promptInput()): Promise<PromptAnswer> {
    const s = await start();
    const item = await askOne(s, input);
    const reply = await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s), body: JSON.stringify({ id: item.id, ...body }) });
    expect(reply.status).toBe(200);
    await item.answered;
    return item.answer()!;
  }

  test('resolves with the same answer shapes as an elicitation', async () => {
    expect(await answerWith({ decision: 'Allow once' })).toEqual({ type: 'choice', choice: { type: 'once' }, note: undefined });
    expect(await answerWith({ decision: 'Allow for this session', note: 'ok' })).toEqual({ type: 'choice', choice: { type: 'session' }, note: 'ok' });
    expect(await answerWith({ decision: 'Always allow: Edit(/w/a.txt)' })).toEqual({ type: 'choice', choice: { type: 'always', rules: ['Edit(/w/a.txt)'] }, note: undefined });
    expect(await answerWith({ decision: 'Deny', note: '   ' })).toEqual({ type: 'choice', choice: { type: 'deny' }, note: undefined });
    expect(await answerWith({ action: 'decline' })).toEqual({ type: 'declined' });
  });

  test('a withdrawn item (signal aborted) resolves dismissed, leaves the page, and can no longer be answered', async () => {
    const s = await start();
    const item = await askOne(s);
    item.controller.abort();
    await item.answered;
    expect(item.answer()).toEqual({ type: 'dismissed' });
    expect(await pendingIds(s)).toEqual([]);
    const late = await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s), body: JSON.stringify({ id: item.id, decision: 'Allow once' }) });
    expect(late.status).toBe(409);
  });

  test('an already aborted signal is dismissed without showing the item', async () => {
    const s = await start();
    const controller = new AbortController();
    controller.abort();
    expect(await s.page.ask(pageItem(), controller.signal)).toEqual({ type: 'dismissed' });
    expect(await pendingIds(s)).toEqual([]);
  });

  test('the item carries the payload, choices and session the page shows', async () => {
    const s = await start();
    await askOne(s);
    const reply = await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: s.cookie } });
    const [item] = (JSON.parse(reply.body) as { items: Array<Record<string, unknown>> }).items;
    expect(item).toMatchObject({
      session: 'test-client 1.0.0',
      server: 'fs',
      tool: 'write_file',
      kind: 'write',
      choices: ['Allow once', 'Allow for this session', 'Always allow: Edit(/w/a.txt)', 'Deny'],
      request: { server: 'fs', tool: 'write_file', rule: null, paths: [{ path: '/w/a.txt', realPath: '/w/a.txt', access: 'write', inWorkspace: true }], argsDigest: 'digest-1' },
      args: '{"path":"/w/a.txt","content":"x"}',
      argsMore: 0,
    });
    expect(String(item!.id)).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });
});

describe('answers with an edit', () => {
  const editable = promptInput({ editable: [{ arg: 'path', role: 'path', value: '/w/a.txt' }, { arg: 'content', role: 'content', value: 'x' }] });
  const post = (s: Started, body: Record<string, unknown>) => send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s), body: JSON.stringify(body) });

  test('the item offers its editable fields; an edit of them resolves with the changed arguments and only what changed', async () => {
    const s = await start();
    const item = await askOne(s, editable);
    const listed = (JSON.parse((await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: s.cookie } })).body) as { items: Array<Record<string, unknown>> }).items[0];
    expect(listed!.editable).toEqual([{ arg: 'path', role: 'path', value: '/w/a.txt' }, { arg: 'content', role: 'content', value: 'x' }]);
    expect((await post(s, { id: item.id, decision: 'Allow once', edit: { path: '/w/a.txt', content: 'y\nz' } })).status).toBe(200);
    await item.answered;
    expect(item.answer()).toEqual({ type: 'choice', choice: { type: 'once' }, note: undefined, edit: { args: { path: '/w/a.txt', content: 'y\nz' }, changes: [{ arg: 'content', before: 'x', after: 'y\nz' }] } });
  });

  test('an edit of an argument not offered, of a value that is not text or too long, is refused with what is allowed, and has no effect', async () => {
    const s = await start();
    const item = await askOne(s, editable);
    for (const edit of [{ mode: 'append' }, { path: 7 }, { content: 'x'.repeat(20_001) }, ['path'], 'path']) {
      const reply = await post(s, { id: item.id, decision: 'Allow once', edit });
      expect(reply.status, JSON.stringify(edit).slice(0, 40)).toBe(400);
      expect(reply.body).toContain('only the fields offered for this call can be changed, as text of at most 20000 characters');
    }
    await tick();
    expect(item.answer()).toBeNull();
  });

  test('once the client was answered "pending" the item offers no edit and takes none', async () => {
    const s = await start();
    const before = new Set(await pendingIds(s));
    const pending = pageItem(editable);
    const answered = s.page.ask(pending, new AbortController().signal);
    const id = (await pendingIds(s)).find((candidate) => !before.has(candidate))!;
    s.page.answeredPending(pending, Date.now() + 60_000);
    const listed = (JSON.parse((await send(s.port, { path: '/api/pending', headers: { Host: s.host, Cookie: s.cookie } })).body) as { items: Array<Record<string, unknown>> }).items[0];
    expect(listed!.editable).toEqual([]);
    expect((await post(s, { id, decision: 'Allow once', edit: { content: 'y' } })).status).toBe(400);
    expect((await post(s, { id, decision: 'Allow once' })).status).toBe(200);
    expect(await answered).toEqual({ type: 'choice', choice: { type: 'once' }, note: undefined });
  });

  test('an edit the rules deny is refused with the reason (422) and the call keeps waiting; an allowed edit then goes through', async () => {
    const s = await start();
    const before = new Set(await pendingIds(s));
    const checked: Array<Record<string, unknown>> = [];
    const item = { ...pageItem(editable), checkEdit: (args: Record<string, unknown>) => (checked.push(args), args.path === '/w/.env' ? 'the rule Edit(**/.env) denies it' : null) };
    const answered = s.page.ask(item, new AbortController().signal);
    const id = (await pendingIds(s)).find((candidate) => !before.has(candidate))!;
    const refused = await post(s, { id, decision: 'Allow once', edit: { path: '/w/.env' } });
    expect(refused.status).toBe(422);
    expect(JSON.parse(refused.body)).toEqual({ error: 'the changed call is not allowed: the rule Edit(**/.env) denies it. Change it again, or answer the call as shown' });
    expect(await pendingIds(s)).toContain(id);
    expect((await post(s, { id, decision: 'Allow once', edit: { path: '/w/b.txt' } })).status).toBe(200);
    expect(checked).toEqual([{ path: '/w/.env', content: 'x' }, { path: '/w/b.txt', content: 'x' }]);
    expect(await answered).toMatchObject({ type: 'choice', choice: { type: 'once' }, edit: { args: { path: '/w/b.txt', content: 'x' } } });
  });

  test('Deny with an edit is a plain Deny', async () => {
    const s = await start();
    const item = await askOne(s, editable);
    expect((await post(s, { id: item.id, decision: 'Deny', edit: { content: 'y' } })).status).toBe(200);
    await item.answered;
    expect(item.answer()).toEqual({ type: 'choice', choice: { type: 'deny' }, note: undefined });
  });
});

describe('live updates and close', () => {
  /** Reads the event stream, collecting the item counts of each `pending` event. */
  function openEvents(s: Started) {
    const counts: number[] = [];
    let ended = false;
    const req = httpRequest({ host: '127.0.0.1', port: s.port, path: '/events', headers: { Host: s.host, Cookie: s.cookie }, setHost: false, agent: false }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event.split('\n').find((line) => line.startsWith('data: '));
          if (event.includes('event: pending') && data) counts.push((JSON.parse(data.slice(6)) as { items: unknown[] }).items.length);
        }
      });
      res.on('end', () => (ended = true));
      res.on('close', () => (ended = true));
    });
    req.on('error', () => (ended = true));
    req.end();
    return { counts, ended: () => ended, close: () => req.destroy() };
  }

  async function until(check: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !check(); i++) await tick();
    expect(check()).toBe(true);
  }

  test('the event stream sends the list on connect and whenever an item is added, answered or withdrawn', async () => {
    const s = await start();
    const events = openEvents(s);
    await until(() => events.counts.length === 1);
    const first = await askOne(s);
    const second = await askOne(s);
    await until(() => events.counts.length === 3);
    await send(s.port, { method: 'POST', path: '/api/answer', headers: answerHeaders(s), body: JSON.stringify({ id: first.id, decision: 'Allow once' }) });
    second.controller.abort();
    await until(() => events.counts.length === 5);
    expect(events.counts).toEqual([0, 1, 2, 1, 0]);
    events.close();
  });

  test('close() ends the streams, dismisses waiting items and stops listening', async () => {
    const s = await start();
    const events = openEvents(s);
    await until(() => events.counts.length === 1);
    const item = await askOne(s);
    await s.page.close();
    await item.answered;
    expect(item.answer()).toEqual({ type: 'dismissed' });
    await until(() => events.ended());
    await expect(send(s.port, { path: '/', headers: { Host: s.host, Cookie: s.cookie } })).rejects.toThrow();
    expect(await s.page.ask(pageItem(), new AbortController().signal)).toEqual({ type: 'dismissed' });
  });
});
