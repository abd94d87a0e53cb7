import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { BIN, FS_SERVER, eventually, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * What a client that declares URL elicitation is sent for the approval page, through the BUILT
 * gateway. The MCP spec (elicitation, URL mode) says a server MUST NOT send a URL pre-authenticated
 * to a protected resource: the client could impersonate the user. Until round 18 it was sent a
 * one-time link, which it could spend itself and answer "Allow once" on its own call, audited as
 * the person's (review L8). docs/approval.md, "URL elicitation".
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

test('a URL-elicitation client gets the page address without a nonce: fetching it gives no session and no way to answer; a browser holding a session opens it', async () => {
  const dir = tempDir();
  const h = await startGateway(
    { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } }, workspace: [dir], approval: { fallback: 'browser-manual', timeoutSeconds: 1, retryWindowSeconds: 60 } },
    { dir, capabilities: { elicitation: { url: {} } }, onElicit: () => ({ action: 'accept' }) },
  );
  harnesses.push(h);
  const target = join(dir, 'approved-by-client.txt');
  const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'x' } });
  expect(textOf(result)).toContain("waiting for the user's approval on the mcp-latch approval page");
  const offered = (await eventually(() => {
    expect(h.elicitations).toHaveLength(1);
    return h.elicitations[0]!;
  })) as { mode?: string; url?: string };
  expect(offered.mode).toBe('url');
  expect(offered.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9_-]{22}\/$/);
  expect(offered.url).not.toContain('nonce');

  // The client opens it itself: no cookie, a page that says how the person gets a link, no data, no answer.
  const opened = await fetch(offered.url!, { redirect: 'manual' });
  expect(opened.status).toBe(403);
  expect(opened.headers.getSetCookie()).toEqual([]);
  const text = await opened.text();
  expect(text).toContain('mcp-latch page --open');
  expect(text).not.toContain('mcp-latch-csrf');
  expect((await fetch(`${offered.url}api/pending`)).status).toBe(403);
  const origin = new URL(offered.url!).origin;
  const answered = await fetch(`${offered.url}api/answer`, {
    method: 'POST',
    headers: { Origin: origin, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: 'x', decision: 'Allow once' }),
  });
  expect(answered.status).toBe(403);
  expect(existsSync(target)).toBe(false);

  // The person's browser, holding a session from a link of `mcp-latch page`, opens the same address.
  const listed = spawnSync(process.execPath, [BIN, 'page', '--config', h.configPath], { encoding: 'utf8' });
  expect(listed.status, listed.stderr).toBe(0);
  const spent = await fetch(listed.stdout.split('  ')[0]!, { redirect: 'manual' });
  const cookie = spent.headers.getSetCookie()[0]!.split(';')[0]!;
  const page = await fetch(offered.url!, { headers: { Cookie: cookie } });
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/<meta name="mcp-latch-csrf" content="[A-Za-z0-9_-]{43}">/);
});
