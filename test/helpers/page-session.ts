import { request as httpRequest } from 'node:http';

/** The approval page as its own script drives it, without a browser: a session from a one-time link, then its requests. */
export interface PageSession {
  cookie: string;
  csrf: string;
}

/** What a browser does with a one-time link: spends it for the session cookie, then loads the page for its CSRF value. */
export async function openPage(link: URL): Promise<PageSession> {
  const opened = await pageRequest(link, `/${link.search}`);
  const cookie = opened.setCookie[0]!.split(';')[0]!;
  const csrf = /<meta name="mcp-latch-csrf" content="([^"]+)">/.exec((await pageRequest(link, '/', { cookie, csrf: '' })).text)![1]!;
  return { cookie, csrf };
}

/** What the page's own script sends: a GET for data, a POST with the CSRF header for an answer. */
export function pageRequest(url: URL, path: string, session?: PageSession, body?: string): Promise<{ text: string; setCookie: string[] }> {
  const host = `127.0.0.1:${url.port}`;
  const headers: Record<string, string> = { Host: host, ...(session ? { Cookie: session.cookie } : {}) };
  if (body) Object.assign(headers, { Origin: `http://${host}`, 'Content-Type': 'application/json', 'X-Mcp-Latch-Token': session?.csrf ?? '', 'Sec-Fetch-Site': 'same-origin' });
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(url.port), method: body ? 'POST' : 'GET', path, headers, setHost: false, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve({ text, setCookie: res.headers['set-cookie'] ?? [] }) : reject(new Error(`${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}
