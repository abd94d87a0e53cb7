import { readFile } from 'node:fs/promises';

/**
 * The approval page's files in `web/` and the headers they are served with, shared by the local
 * page (server.ts) and the team gateway's page (team/http.ts): one look, one escaping, one CSP.
 */
const WEB_DIR = new URL('../../web/', import.meta.url);

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export interface Asset {
  type: string;
  body: string;
}

/** The scripts and style both pages load, by their path under the page's own path. */
const SHARED_ASSETS: Record<string, string> = {
  '/app.js': 'text/javascript; charset=utf-8',
  '/escape.js': 'text/javascript; charset=utf-8',
  '/style.css': 'text/css; charset=utf-8',
};

/**
 * A page's files by the path they are served at: the HTML at `base` ('/' when empty), the shared
 * scripts and style under it. `fill` completes the HTML (the local page puts its token in).
 */
export async function loadPage(html: string, base: string, fill: (text: string) => string = (text) => text): Promise<Map<string, Asset>> {
  const read = (name: string) => readFile(new URL(name, WEB_DIR), 'utf8');
  const assets = new Map<string, Asset>();
  assets.set(base || '/', { type: 'text/html; charset=utf-8', body: fill(await read(html)) });
  for (const [path, type] of Object.entries(SHARED_ASSETS)) assets.set(`${base}${path}`, { type, body: await read(path.slice(1)) });
  return assets;
}
