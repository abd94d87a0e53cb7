import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { BIN, FS_SERVER, ROOT, eventually, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * What leaves the BUILT gateway for the approval page: only one-time links (round 11 review,
 * rev-surf F6: the page's secret token was on `xdg-open`'s command line, where every local user
 * reads it in /proc/PID/cmdline, and `browser-manual` wrote it to the log). Here `xdg-open` is a
 * stand-in on the gateway's PATH that records its arguments and stays alive, as the real one and
 * the browser it starts do; `fetch` plays the browser and the other local user. docs/threat-model.md,
 * "The approval page's address".
 */
const harnesses: Harness[] = [];
const openers: number[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
  for (const pid of openers.splice(0)) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
});

const LINK = /^http:\/\/127\.0\.0\.1:\d+\/\?nonce=[0-9a-z]+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;

/** A PATH directory with an `xdg-open` that records its pid and arguments and keeps running. */
function fakeOpener(dir: string): { path: string; record: string; pids: string } {
  const bin = join(dir, 'fakebin');
  mkdirSync(bin);
  const record = join(dir, 'opened.txt');
  const pids = join(dir, 'opener-pids.txt');
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$$" >> '${pids}'\nprintf '%s\\n' "$@" >> '${record}'\nsleep 60 &\nwait\n`);
  // No desktop notification from a test run.
  writeFileSync(join(bin, 'notify-send'), '#!/bin/sh\nexit 0\n');
  for (const name of ['xdg-open', 'notify-send']) chmodSync(join(bin, name), 0o755);
  return { path: `${bin}:${process.env['PATH'] ?? ''}`, record, pids };
}

/** Every process's command line on this machine, as any local user reads it. */
function commandLines(): string[] {
  const lines: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      lines.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      // Gone meanwhile.
    }
  }
  return lines;
}

function pageEntry(dir: string): { url: string; secret: string } {
  const pages = (JSON.parse(readFileSync(join(dir, '.mcp-latch-pages.json'), 'utf8')) as { pages: Array<{ url: string; secret: string }> }).pages;
  expect(pages).toHaveLength(1);
  return pages[0]!;
}

/**
 * The link in the file an opener was given: `file:///…/.mcp-latch-open/open-EXPIRES.ID.html`, a file
 * of the person's only (0600 in a 0700 directory beside the config) holding a meta refresh to it.
 */
function linkInOpenerFile(dir: string, given: string): string {
  expect(given).toMatch(/^file:\/\/\/.*\/\.mcp-latch-open\/open-[0-9a-z]+\.[A-Za-z0-9_-]{22}\.html$/);
  const file = fileURLToPath(given);
  expect(dirname(file)).toBe(join(dir, '.mcp-latch-open'));
  expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(file).uid).toBe(process.getuid!());
  const link = /<meta http-equiv="refresh" content="0; url=([^"]+)">/.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
  expect(link).toMatch(LINK);
  return link;
}

/** The cookie a response set, as a browser sends it back (name=value), or null. */
function cookieOf(response: Response): string | null {
  return response.headers.getSetCookie()[0]?.split(';')[0] ?? null;
}

test.skipIf(process.platform !== 'linux')(
  "the browser is given a file of the person's leading to a one-time link, never the link or the secret on a command line; the link works once (its file goes), its cookie authorizes the API, and nothing in argv or the log opens the page again",
  async () => {
    const dir = tempDir();
    const opener = fakeOpener(dir);
    const h = await startGateway(
      { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } }, workspace: [dir], approval: { fallback: 'browser', timeoutSeconds: 60 } },
      { dir, env: { PATH: opener.path } },
    );
    harnesses.push(h);
    const target = join(dir, 'approved.txt');
    const call = h.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'yes' } }, undefined, { timeout: 90_000 });
    call.catch(() => undefined);

    const given = await eventually(() => readFileSync(opener.record, 'utf8').trim(), 20_000);
    for (const pid of readFileSync(opener.pids, 'utf8').trim().split('\n')) openers.push(Number(pid));
    const { url, secret } = pageEntry(dir);
    // The opener is given a file of the person's, never the link (round 18 review, L1): the link is in the file.
    const link = linkInOpenerFile(dir, given);
    expect(link.startsWith(`${url}?nonce=`)).toBe(true);

    // What another local user sees: no process's command line holds the link, its nonce or the secret.
    const lines = commandLines();
    expect(lines.some((line) => line.includes(given))).toBe(true);
    const nonce = link.split('?nonce=')[1]!;
    expect(lines.filter((line) => line.includes(nonce) || line.includes(secret))).toEqual([]);

    // The browser: the link sets a cookie and leads on to the address without the nonce.
    const opened = await fetch(link, { redirect: 'manual' });
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('url=/');
    // Spent: its file is gone.
    expect(existsSync(fileURLToPath(given))).toBe(false);
    const cookie = cookieOf(opened);
    expect(cookie).toMatch(/^mcp-latch-\d+=[A-Za-z0-9_-]{43}$/);
    expect(opened.headers.getSetCookie()[0]).toMatch(/; Path=\/s\/[A-Za-z0-9_-]{22}\/; HttpOnly; SameSite=Strict$/);

    // Without the cookie the API refuses, with it it answers.
    expect((await fetch(`${url}api/pending`)).status).toBe(403);
    const pending = await fetch(`${url}api/pending`, { headers: { Cookie: cookie! } });
    expect(pending.status).toBe(200);
    const items = ((await pending.json()) as { items: Array<{ id: string; tool: string }> }).items;
    expect(items.map((item) => item.tool)).toEqual(['write_file']);
    const page = await (await fetch(url, { headers: { Cookie: cookie! } })).text();
    const csrf = /<meta name="mcp-latch-csrf" content="([A-Za-z0-9_-]{43})">/.exec(page)?.[1];
    expect(csrf).toBeDefined();
    const answered = await fetch(`${url}api/answer`, {
      method: 'POST',
      headers: { Cookie: cookie!, Origin: url.replace(/\/$/, ''), 'Content-Type': 'application/json', 'X-Mcp-Latch-Token': csrf! },
      body: JSON.stringify({ id: items[0]!.id, decision: 'Allow once' }),
    });
    expect(answered.status, await answered.clone().text()).toBe(200);
    const result = await call;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('yes');

    // Another local user who read the link from /proc after the browser used it gets nothing; and
    // since two browsers came with one link, the session it opened is closed (the log says so).
    const replay = await fetch(link, { redirect: 'manual' });
    expect(replay.status).toBe(403);
    expect(cookieOf(replay)).toBeNull();
    expect(await replay.text()).toContain('already used');
    expect((await fetch(`${url}api/pending`, { headers: { Cookie: cookie! } })).status).toBe(403);
    await eventually(() => expect(h.stderr()).toContain('a one-time link to the approval page was used twice'));

    // `mcp-latch page` prints a fresh link of its own (from the state file), which works once.
    const listed = spawnSync(process.execPath, [BIN, 'page', '--config', h.configPath], { encoding: 'utf8' });
    expect(listed.status, listed.stderr).toBe(0);
    const fresh = listed.stdout.split('  ')[0]!;
    expect(fresh).toMatch(LINK);
    expect(listed.stdout).not.toContain(secret);
    const again = await fetch(fresh, { redirect: 'manual' });
    expect(again.status).toBe(200);
    expect((await fetch(`${url}api/pending`, { headers: { Cookie: cookieOf(again)! } })).status).toBe(200);
    expect((await fetch(fresh, { redirect: 'manual' })).status).toBe(403);

    // `mcp-latch page --open` gives the browser a link of its own and prints only the address.
    const launcher = join(dir, 'record-browser.sh');
    const launched = join(dir, 'browser-launches.txt');
    writeFileSync(launcher, `#!/bin/sh\nprintf '%s\\n' "$@" >> '${launched}'\n`);
    chmodSync(launcher, 0o755);
    const reopened = spawnSync(process.execPath, [BIN, 'page', '--open', '--config', h.configPath], { encoding: 'utf8', env: { ...process.env, BROWSER: launcher } });
    expect(reopened.status, reopened.stderr).toBe(0);
    expect(reopened.stdout).toMatch(new RegExp(`^${url.replace(/[.?]/g, '\\$&')}  \\(.*; opened in the browser\\)\n$`));
    const launchedWith = await eventually(() => readFileSync(launched, 'utf8').trim(), 10_000);
    const viaFile = linkInOpenerFile(dir, launchedWith);
    expect(viaFile).not.toContain(secret);
    expect((await fetch(viaFile, { redirect: 'manual' })).status).toBe(200);
    expect(existsSync(fileURLToPath(launchedWith))).toBe(false);

    // No log line holds the secret, a session cookie or a CSRF value.
    const log = h.stderr();
    expect(log).toContain(`approval page: ${url}`);
    for (const value of [secret, cookie!.split('=')[1]!, cookieOf(again)!.split('=')[1]!, csrf!]) expect(log).not.toContain(value);
  },
  60_000,
);

test('browser-manual: each waiting call logs a one-time link of its own, never the secret; a used link is refused with how to get a fresh one', async () => {
  const dir = tempDir();
  const h = await startGateway({
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
    workspace: [dir],
    approval: { fallback: 'browser-manual', timeoutSeconds: 1, retryWindowSeconds: 60 },
  }, { dir });
  harnesses.push(h);
  for (const name of ['one', 'two']) {
    const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, `${name}.txt`), content: name } });
    expect(textOf(result)).toContain("waiting for the user's approval on the mcp-latch approval page");
  }
  const links = [...h.stderr().matchAll(/"msg":"a call waits for approval: open (\S+) \(it works once, within 60 s; `mcp-latch page` prints a fresh link\)"/g)].map((match) => match[1]!);
  expect(links).toHaveLength(2);
  for (const link of links) expect(link).toMatch(LINK);
  expect(links[0]).not.toBe(links[1]);
  const { url, secret } = pageEntry(dir);

  const opened = await fetch(links[0]!, { redirect: 'manual' });
  expect(opened.status).toBe(200);
  const cookie = cookieOf(opened)!;
  const items = ((await (await fetch(`${url}api/pending`, { headers: { Cookie: cookie } })).json()) as { items: Array<{ tool: string }> }).items;
  expect(items).toHaveLength(2);
  const used = await fetch(links[0]!, { redirect: 'manual' });
  expect(used.status).toBe(403);
  const text = await used.text();
  expect(text).toContain('already used');
  expect(text).toContain('mcp-latch page --open');
  expect(h.stderr()).not.toContain(secret);
  expect(existsSync(join(dir, 'one.txt'))).toBe(false);
});

// The threat model's answer to a raced link is that the browser's arrival closes the session the
// race opened; its `/events` stream stayed open and went on receiving every later waiting call in
// full (round 18 review of the local surface, L15).
test('a page session closed because its link was used twice loses its event stream: no later call reaches it', async () => {
  const dir = tempDir();
  const h = await startGateway({
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
    workspace: [dir],
    approval: { fallback: 'browser-manual', timeoutSeconds: 1, retryWindowSeconds: 60 },
  }, { dir });
  harnesses.push(h);
  const first = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'first.txt'), content: 'first' } });
  expect(textOf(first)).toContain("waiting for the user's approval on the mcp-latch approval page");
  const link = /"msg":"a call waits for approval: open (\S+) /.exec(h.stderr())![1]!;
  const { url } = pageEntry(dir);

  // Another process spends the link first and opens the event stream.
  const raced = await fetch(link, { redirect: 'manual' });
  expect(raced.status).toBe(200);
  const stream = await fetch(`${url}events`, { headers: { Cookie: cookieOf(raced)! } });
  expect(stream.status).toBe(200);
  let seen = '';
  let ended = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream.body! as unknown as AsyncIterable<Uint8Array>) seen += decoder.decode(chunk, { stream: true });
    ended = true;
  })();
  await eventually(() => expect(seen).toContain('first.txt'));

  // The person's browser arrives with the same link: the raced session is closed, its stream with it.
  expect((await fetch(link, { redirect: 'manual' })).status).toBe(403);
  await eventually(() => expect(ended).toBe(true));
  const second = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'second.txt'), content: 'DB_PASSWORD=hunter2' } });
  expect(textOf(second)).toContain("waiting for the user's approval on the mcp-latch approval page");
  const listed = spawnSync(process.execPath, [BIN, 'page', '--config', h.configPath], { encoding: 'utf8' });
  const fresh = await fetch(listed.stdout.split('  ')[0]!, { redirect: 'manual' });
  const items = ((await (await fetch(`${url}api/pending`, { headers: { Cookie: cookieOf(fresh)! } })).json()) as { items: Array<{ tool: string }> }).items;
  expect(items).toHaveLength(2);
  expect(seen).not.toContain('second.txt');
  await reading;
});

test('a page session evicted past the page\'s 64 sessions loses its event stream too: no later call reaches it', async () => {
  const dir = tempDir();
  const h = await startGateway({
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
    workspace: [dir],
    approval: { fallback: 'browser-manual', timeoutSeconds: 1, retryWindowSeconds: 60 },
  }, { dir });
  harnesses.push(h);
  const first = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'first.txt'), content: 'first' } });
  expect(textOf(first)).toContain("waiting for the user's approval on the mcp-latch approval page");
  const { url, secret } = pageEntry(dir);
  // Links minted with the page's secret from the state file, as `mcp-latch page` does, 65 of them.
  const { pageLink } = (await import(join(ROOT, 'dist/approval-page/link.js'))) as { pageLink: (base: string, secret: string) => string };
  const own = await fetch(pageLink(url, secret), { redirect: 'manual' });
  const ownCookie = cookieOf(own)!;
  const stream = await fetch(`${url}events`, { headers: { Cookie: ownCookie } });
  expect(stream.status).toBe(200);
  let seen = '';
  let ended = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream.body! as unknown as AsyncIterable<Uint8Array>) seen += decoder.decode(chunk, { stream: true });
    ended = true;
  })();
  await eventually(() => expect(seen).toContain('first.txt'));

  for (let i = 0; i < 64; i += 1) expect((await fetch(pageLink(url, secret), { redirect: 'manual' })).status).toBe(200);
  await eventually(() => expect(ended).toBe(true));
  expect((await fetch(`${url}api/pending`, { headers: { Cookie: ownCookie } })).status).toBe(403);
  const later = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'later.txt'), content: 'DB_PASSWORD=hunter2-after-eviction' } });
  expect(textOf(later)).toContain("waiting for the user's approval on the mcp-latch approval page");
  const fresh = await fetch(pageLink(url, secret), { redirect: 'manual' });
  expect(await (await fetch(`${url}api/pending`, { headers: { Cookie: cookieOf(fresh)! } })).text()).toContain('hunter2-after-eviction');
  expect(seen).not.toContain('hunter2-after-eviction');
  await reading;
});
