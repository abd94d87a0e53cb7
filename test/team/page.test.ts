import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { tokenHash } from '../../src/team/identity.js';
import { launchChromium } from '../helpers/chromium.js';
import { COMMANDS_SERVER, FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamClient, type TeamHarness } from '../helpers/team.js';

/**
 * The team gateway's approval page (/approve) in real headless Chromium, against the built gateway
 * in front of server-filesystem and mcp-server-commands. Each person signs in with their own token;
 * the page lists and answers their calls through the interactions API. Checked by effect: on disk
 * and in the call's result.
 */
const X = 'token-of-xavier-page-0123456789';
const Y = 'token-of-yvonne-page-0123456789';

describe('the team approval page', () => {
  let dir: string;
  let team: TeamHarness;
  let browser: Browser;
  let x: TeamClient;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, shell: { command: process.execPath, args: [COMMANDS_SERVER] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }, { user: 'yvonne', sha256: tokenHash(Y) }] },
    });
    browser = await launchChromium();
    // A client that shows no forms: its asked calls wait for the page.
    x = await teamClient(team.url, X);
  }, 60_000);

  afterAll(async () => {
    await x?.close();
    await browser?.close();
    await team?.close();
  });

  async function tab(): Promise<Page> {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${team.base}/approve`);
    return page;
  }

  async function signIn(page: Page, token: string): Promise<void> {
    await page.locator('#token').fill(token);
    await page.locator('#signin button[type="submit"]').click();
  }

  /** The token the page keeps in its tab's sessionStorage. */
  function storedToken(page: Page): Promise<string | null> {
    return page.evaluate("sessionStorage.getItem('mcp-latch-token')") as Promise<string | null>;
  }

  /** Waits until X's call is listed by the API, so a page's first list is known to include it. */
  async function waitingForXavier(): Promise<void> {
    await eventually(async () => expect((await team.api('/api/pending', X)).body.pending).toHaveLength(1), 30_000);
  }

  async function card(page: Page, text: string): Promise<Locator> {
    const found = page.locator('li.item:not(.answered)').filter({ hasText: text });
    await found.first().waitFor({ state: 'visible', timeout: 20_000 });
    expect(await found.count()).toBe(1);
    return found.first();
  }

  test('is served with the strict CSP of the local page, and holds no data', async () => {
    const response = await fetch(`${team.base}/approve`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect((await fetch(`${team.base}/approve/app.js`)).status).toBe(200);
    expect((await fetch(`${team.base}/approve/nothing.js`)).status).toBe(404);
  });

  test("signed in with their own token, a person sees and approves their call, which runs once; another person's page does not show it", async () => {
    const count = join(dir, 'count.txt');
    const call = x.client.callTool({ name: 'shell__run_command', arguments: { command: 'echo ran >> count.txt', workdir: dir } }, undefined, { timeout: 90_000 });
    call.catch(() => undefined);
    await waitingForXavier();

    // Yvonne signs in while Xavier's call waits: her first list is empty.
    const yvonne = await tab();
    await signIn(yvonne, Y);
    await expect.poll(() => yvonne.locator('#user').textContent(), { timeout: 20_000 }).toBe('yvonne');
    await yvonne.locator('#empty').waitFor({ state: 'visible', timeout: 20_000 });
    expect(await yvonne.locator('li.item').count()).toBe(0);

    const xavier = await tab();
    await signIn(xavier, 'not-a-token');
    await expect.poll(() => xavier.locator('#signin-error').textContent(), { timeout: 20_000 }).toContain('not accepted');
    expect(await storedToken(xavier)).toBeNull();
    await signIn(xavier, X);
    const item = await card(xavier, 'run_command');
    expect(await xavier.locator('#user').textContent()).toBe('xavier');
    // The token is in this tab's storage, never in the address.
    expect(xavier.url()).toBe(`${team.base}/approve`);
    expect(await storedToken(xavier)).toBe(X);
    expect(await item.locator('h2').textContent()).toBe('shell / run_command');
    expect(await item.locator('.meta').innerText()).toContain('team-test 1.0.0');
    expect(await item.locator('.command pre.raw').innerText()).toBe('echo ran >> count.txt');
    expect(await item.locator('pre.args').innerText()).toContain('"command":"echo ran >> count.txt"');
    expect(existsSync(count)).toBe(false);

    await item.getByRole('button', { name: 'Allow once', exact: true }).click();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(count, 'utf8')).toBe('ran\n');
    await item.waitFor({ state: 'detached', timeout: 20_000 });
    expect(await xavier.locator('#recent li').first().innerText()).toContain('shell / run_command — Allow once');
    // Answered once: the API no longer lists it, and nothing ran a second time.
    expect((await team.api('/api/pending', X)).body.pending).toEqual([]);
    expect(readFileSync(count, 'utf8')).toBe('ran\n');

    // Still signed in after a reload (this tab's sessionStorage); signing out forgets the token.
    await xavier.reload();
    await expect.poll(() => xavier.locator('#user').textContent(), { timeout: 20_000 }).toBe('xavier');
    await xavier.locator('#signout').click();
    await xavier.locator('#signin').waitFor({ state: 'visible' });
    expect(await storedToken(xavier)).toBeNull();
  }, 120_000);

  test('every string from the call is shown escaped, as text; Deny runs nothing', async () => {
    const path = join(dir, 'x<b id="injected">.txt');
    const content = '<img id="pwned" src="x" onerror="document.title=\'pwned\'">\u202eevil\nWhy: allowed';
    const call = x.client.callTool({ name: 'fs__write_file', arguments: { path, content } }, undefined, { timeout: 90_000 });
    call.catch(() => undefined);
    await waitingForXavier();
    const xavier = await tab();
    await signIn(xavier, X);
    const item = await card(xavier, 'write_file');
    expect(await xavier.locator('#injected, #pwned, img').count()).toBe(0);
    const args = await item.locator('pre.args').innerText();
    expect(args).toContain('<img id=\\"pwned\\"');
    expect(args).toContain('\\u202eevil\\nWhy: allowed');
    expect(await item.locator('.paths').innerText()).toContain('x<b id="injected">.txt');

    await item.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(textOf(await call)).toContain('Denied by mcp-latch');
    expect(existsSync(path)).toBe(false);
    expect(await xavier.title()).not.toContain('pwned');
  }, 120_000);

  test('edit, then approve: only the changed call runs, and the client is told', async () => {
    const file = join(dir, 'edit-on-page.txt');
    const call = x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'as the model wrote it' } }, undefined, { timeout: 90_000 });
    call.catch(() => undefined);
    await waitingForXavier();
    const xavier = await tab();
    await signIn(xavier, X);
    const item = await card(xavier, 'edit-on-page.txt');
    await item.locator('details.edit > summary').click();
    await item.getByLabel('Content (content)').fill('as the person changed it');
    await item.getByRole('button', { name: 'Allow the edited call once', exact: true }).click();
    expect(textOf(await call)).toContain('the user changed this call before approving it');
    expect(readFileSync(file, 'utf8')).toBe('as the person changed it');
    await expect.poll(() => xavier.locator('#recent li').first().innerText(), { timeout: 20_000 }).toContain('Allow once (edited)');
  }, 120_000);

  // Round 31 review, T31-6: the assistant cancels its first call while the person reads it; the card goes, the second
  // call's card moves up under the pointer, and its buttons (armed since it came) took the click aimed at the first.
  test("a card that goes moves the others: their buttons wait again before they answer", async () => {
    const first = new AbortController();
    const a = x.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'moved-a.txt'), content: 'a' } }, undefined, { timeout: 60_000, signal: first.signal }).catch(() => undefined);
    await waitingForXavier();
    // Another session of xavier's: in the first's, the second call would wait behind the first, not on the page.
    const x2 = await teamClient(team.url, X);
    const b = x2.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'moved-b.txt'), content: 'b' } }, undefined, { timeout: 60_000 });
    const [idA, idB] = await eventually(async () => {
      const listed = (await team.api('/api/pending', X)).body.pending as Array<{ id: string }>;
      expect(listed).toHaveLength(2);
      return listed.map((call) => call.id);
    }, 30_000);
    const xavier = await tab();
    await signIn(xavier, X);
    const cardB = xavier.locator(`li.item[data-id="${idB}"]`);
    await expect.poll(() => cardB.locator('.choices button').first().isEnabled(), { timeout: 20_000 }).toBe(true);
    // What B's buttons are at the moment A's card leaves the list (a MutationObserver runs right after the render).
    await xavier.evaluate(`(() => {
      const list = document.getElementById('items');
      new MutationObserver(() => {
        if (window.movedButtons || document.querySelector('li.item[data-id="${idA}"]')) return;
        window.movedButtons = [...document.querySelectorAll('li.item[data-id="${idB}"] .choices button')].map((button) => button.disabled);
      }).observe(list, { childList: true });
    })()`);
    first.abort();
    await a;
    const atRemoval = await eventually(async () => {
      const seen = (await xavier.evaluate('window.movedButtons')) as boolean[] | undefined;
      expect(seen).toBeDefined();
      return seen!;
    }, 30_000);
    // Before round 31: every one enabled.
    expect(atRemoval.length).toBeGreaterThan(1);
    expect(atRemoval.every((disabled) => disabled)).toBe(true);
    // Armed again after the delay: Deny answers B.
    await expect.poll(() => cardB.locator('.choices button').first().isEnabled(), { timeout: 20_000 }).toBe(true);
    await cardB.locator('.choices button', { hasText: 'Deny' }).click();
    expect(textOf(await b)).toContain('Denied');
    await x2.close();
    expect(existsSync(join(dir, 'moved-a.txt')) || existsSync(join(dir, 'moved-b.txt'))).toBe(false);
  }, 120_000);
});
