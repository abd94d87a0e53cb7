import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LatchError } from '../errors.js';
import { NONCE_PARAM } from './link.js';

/**
 * How a one-time link reaches the browser without being on a command line (round 18 review, L1):
 * an opener's arguments (`xdg-open URL`, `$BROWSER URL`, and the browser it starts) are read by
 * every local user in /proc/PID/cmdline (`ps -ww` on macOS), and whoever spent the nonce first
 * had a page session, "Edit, then approve" included: any command, as the person.
 *
 * So the link goes into a file of the person's, `open-EXPIRES.ID.html` (mode 0600, written with
 * O_EXCL) in a directory of theirs beside the config (`.NAME-open/`, 0700, owner and mode checked),
 * holding a meta refresh to the link; the browser is given `file:///…/open-EXPIRES.ID.html`. The
 * page removes the file when its nonce is spent (`removeOpener`); whoever opens the next one
 * removes those that expired (`sweepOpeners`), and the gateway removes its own when they expire.
 * Built-in rules deny tools reading or writing the directory (policy/policy.ts).
 * docs/threat-model.md, "The approval page's address".
 */

/** The parts of a link's nonce that name its file: `EXPIRES.ID` (neither is secret; the MAC stays in the file). */
function nameOf(link: string): { name: string; expires: number; id: string } {
  const nonce = new URL(link).searchParams.get(NONCE_PARAM) ?? '';
  const [expires, id] = nonce.split('.');
  if (!expires || !id || !/^[0-9a-z]{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{22}$/.test(id)) throw new LatchError('INTERNAL', 'not a one-time link of the approval page');
  return { name: `open-${expires}.${id}.html`, expires: parseInt(expires, 36), id };
}

/** A written file: the URL to give the browser, and what `removeOpener` takes. */
export interface Opener {
  fileUrl: string;
  expires: number;
  id: string;
}

/** Makes the directory, or checks the one there: a directory (not a link), the person's, 0700. */
function privateDirectory(dir: string): void {
  mkdirSync(dir, { mode: 0o700, recursive: true });
  const stats = lstatSync(dir);
  const uid = process.getuid?.();
  if (!stats.isDirectory()) throw new LatchError('USAGE', `${dir} is not a directory (a link?): the approval page's links are not written there`);
  if (uid !== undefined && stats.uid !== uid) throw new LatchError('USAGE', `${dir} belongs to uid ${stats.uid}, not to you: the approval page's links are not written there`);
  if (process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
    throw new LatchError('USAGE', `${dir} is readable by others (mode ${(stats.mode & 0o777).toString(8)}): the approval page's links are not written there (chmod 700 it)`);
  }
}

/** Writes the link's file; its `file://` URL is what the browser is given. Throws when it cannot: the caller then gives no link. */
export function writeOpener(dir: string, link: string, now = Date.now()): Opener {
  const { name, expires, id } = nameOf(link);
  privateDirectory(dir);
  sweepOpeners(dir, now);
  const path = join(dir, name);
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, openerHtml(link));
  } finally {
    closeSync(fd);
  }
  return { fileUrl: pathToFileURL(path).href, expires, id };
}

/** Removes the file of this nonce (spent), if there is one. Never throws. */
export function removeOpener(dir: string, expires: number, id: string): void {
  try {
    rmSync(join(dir, `open-${expires.toString(36)}.${id}.html`), { force: true });
  } catch {
    // Best effort: it is swept once expired.
  }
}

/** Removes the files whose link has expired. Never throws. */
export function sweepOpeners(dir: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^open-([0-9a-z]{1,12})\.[A-Za-z0-9_-]{22}\.html$/.exec(name);
    if (!match || parseInt(match[1]!, 36) >= now) continue;
    try {
      rmSync(join(dir, name), { force: true });
    } catch {
      // Best effort: tried again at the next sweep.
    }
  }
}

/** A meta refresh, and a script for browsers that do not follow one from a file; the link is URL text, escaped for the attribute anyway. */
function openerHtml(link: string): string {
  const attribute = link.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0; url=${attribute}">
<title>mcp-latch · approvals</title></head>
<body><p>Opening the <a href="${attribute}">mcp-latch approval page</a>…</p>
<script>location.replace(${JSON.stringify(link).replace(/</g, '\\u003c')});</script></body></html>
`;
}
