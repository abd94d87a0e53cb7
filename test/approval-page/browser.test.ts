import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { ConfigInput } from '../../src/config/schema.js';
import { pageLink } from '../../src/approval-page/link.js';
import { escapeName, escapeText } from '../../src/latch/escape.js';
import { launchChromium } from '../helpers/chromium.js';
import { BIN, COMMANDS_SERVER, FS_SERVER, ROOT, eventually, rawGateway, startGateway, tempDir, textOf, writeConfig, type Harness } from '../helpers/gateway.js';

/**
 * The approval page end to end: the BUILT gateway under an SDK client that declares no
 * elicitation, with `approval.fallback: "browser-manual"`, in front of server-filesystem and
 * mcp-server-commands; the page driven in real headless Chromium (the OS's `chromium` when
 * installed, else the build in the @sparticuz/chromium devDependency: see test/helpers/chromium.ts).
 * Every answer is checked by its effect: on disk, in the config file, in the call result.
 */
const CLIENT = 'mcp-latch-test 1.0.0';
const PENDING_TEXT = "waiting for the user's approval on the mcp-latch approval page";
/** Raw characters that must never reach the DOM text (newline and tab are allowed: the markup has them). */
const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** A server listing a tool whose name imitates fs's `write_file` with a Cyrillic `і` (U+0456), which asks (destructive); the gateway lists it as `look__wr_te_file`, and the page names the server's tool. */
const LOOK_ALIKE = 'wr\u0456te_file';
function lookAlikeServer(): string[] {
  const listing = join(tempDir(), 'listing.json');
  writeFileSync(listing, JSON.stringify({ tools: [{ name: LOOK_ALIKE, inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, annotations: { destructiveHint: true } }] }));
  return [join(ROOT, 'test/fixtures/listing-server.mjs'), listing];
}

function config(dir: string, timeoutSeconds: number): ConfigInput {
  return {
    mcpServers: {
      fs: { command: process.execPath, args: [FS_SERVER, dir] },
      shell: { command: process.execPath, args: [COMMANDS_SERVER] },
      look: { command: process.execPath, args: lookAlikeServer() },
    },
    workspace: [dir],
    permissions: { deny: ['Bash(mkdir *)'] },
    approval: { fallback: 'browser-manual', timeoutSeconds, retryWindowSeconds: 60 },
  };
}

/** The latest one-time link to the page in the gateway's log (`browser-manual` logs one with every call that waits). */
async function pageUrl(h: Harness): Promise<string> {
  return eventually(() => {
    const links = [...h.stderr().matchAll(/"msg":"a call waits for approval: open (http:\/\/127\.0\.0\.1:\d+\/\?nonce=[0-9a-z]+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}) /g)];
    const last = links.at(-1)?.[1];
    if (!last) throw new Error('no link to the approval page in the log yet');
    return last;
  }, 20_000);
}

/** Starts a call without awaiting it; a failed test must not leave an unhandled rejection behind when the gateway closes. */
function callLater(h: Harness, name: string, args: Record<string, unknown>): Promise<Awaited<ReturnType<Harness['client']['callTool']>>> {
  const call = h.client.callTool({ name, arguments: args });
  call.catch(() => undefined);
  return call;
}

/** The card of the one waiting call whose text contains `text`. */
async function card(tab: Page, text: string): Promise<Locator> {
  const found = tab.locator('li.item:not(.answered)').filter({ hasText: text });
  await found.first().waitFor({ state: 'visible', timeout: 15_000 });
  expect(await found.count()).toBe(1);
  return found.first();
}

async function gone(item: Locator): Promise<void> {
  await item.waitFor({ state: 'detached', timeout: 15_000 });
}

describe('the Chromium the tests use', () => {
  test('the build shipped in the npm devDependency runs when the OS has none', async () => {
    const npmBrowser = await launchChromium({ ...process.env, MCP_LATCH_CHROMIUM: 'npm' });
    try {
      const page = await npmBrowser.newPage();
      await page.setContent('<p id="x">rendered</p>');
      expect(await page.locator('#x').textContent()).toBe('rendered');
      expect(npmBrowser.version()).toMatch(/^\d+\./);
    } finally {
      await npmBrowser.close();
    }
  });
});

describe('approving on the page (call waits for the answer)', () => {
  let h: Harness;
  let dir: string;
  let tab: Page;

  beforeAll(async () => {
    dir = tempDir();
    h = await startGateway(config(dir, 30));
    const context = await browser.newContext();
    tab = await context.newPage();
  });

  afterAll(async () => {
    await h?.close();
  });

  /** Opens the page once the first call made it start; later tests reuse the tab (live updates). */
  async function openPage(): Promise<void> {
    if (tab.url().startsWith('http://127.0.0.1')) return;
    await tab.goto(await pageUrl(h));
  }

  test('(a) a write waits; the page shows its path, real path and kind; Allow once runs it', async () => {
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const target = join(dir, 'link', 'notes.txt');
    const call = callLater(h, 'fs__write_file', { path: target, content: 'hello' });
    await openPage();

    const item = await card(tab, 'write_file');
    expect(await item.locator('h2').textContent()).toBe('fs / write_file');
    expect(await item.locator('.kind').textContent()).toBe('write');
    const meta = await item.locator('.meta').innerText();
    expect(meta).toContain(CLIENT);
    const paths = await item.locator('.paths tbody tr').first().innerText();
    expect(paths).toContain(target);
    expect(paths).toContain(`real path ${join(dir, 'real', 'notes.txt')}`);
    expect(paths).toContain('inside the workspace');
    expect(await item.locator('.reason').textContent()).toMatch(/no rule matched write/);
    const buttons = await item.locator('.choices button').allTextContents();
    expect(buttons[0]).toBe('Allow once');
    expect(buttons.at(-1)).toBe('Deny');
    expect(existsSync(join(dir, 'real', 'notes.txt'))).toBe(false);

    await item.getByRole('button', { name: 'Allow once', exact: true }).click();
    const result = await call;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(readFileSync(join(dir, 'real', 'notes.txt'), 'utf8')).toBe('hello');
    await gone(item);
  });

  test('(b) a shell chain shows its parts and redirection; "Always allow" saves the rules and runs it', async () => {
    const made = join(dir, 'made.txt');
    const greeting = join(dir, 'hi.txt');
    const command = `touch ${made} && echo hi > ${greeting}`;
    const call = callLater(h, 'shell__run_command', { command, workdir: dir });
    await openPage();

    const item = await card(tab, 'run_command');
    expect(await item.locator('.command pre.raw').textContent()).toBe(command);
    const segments = item.locator('.segments > li');
    expect(await segments.count()).toBe(2);
    expect(await segments.nth(0).locator('.word').allTextContents()).toEqual(['touch', made]);
    expect(await segments.nth(1).locator('.word').allTextContents()).toEqual(['echo', 'hi']);
    expect(await segments.nth(1).locator('.redirect').innerText()).toBe(`writes ${greeting} (redirection >)`);
    const paths = await item.locator('.paths').innerText();
    expect(paths).toContain(made);
    expect(paths).toContain(greeting);

    const always = item.locator('.choices button', { hasText: 'Always allow: ' });
    const label = (await always.textContent()) ?? '';
    const rules = label.slice('Always allow: '.length).split(', ');
    expect(rules.length).toBeGreaterThan(0);
    await always.click();
    const result = await call;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(existsSync(made)).toBe(true);
    expect(readFileSync(greeting, 'utf8').trim()).toBe('hi');
    const saved = JSON.parse(readFileSync(h.configPath, 'utf8')) as { permissions?: { allow?: string[] } };
    expect(saved.permissions?.allow).toEqual(expect.arrayContaining(rules));
    await gone(item);
  });

  test('(c) Deny with a note: the result carries the note and nothing is written', async () => {
    const target = join(dir, 'denied.txt');
    const call = callLater(h, 'fs__write_file', { path: target, content: 'no' });
    await openPage();

    const item = await card(tab, 'denied.txt');
    await item.getByLabel('Message to the assistant (optional)').fill('write it under docs/ instead');
    await item.getByRole('button', { name: 'Deny', exact: true }).click();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(textOf(result)).toContain('write it under docs/ instead');
    expect(existsSync(target)).toBe(false);
    await gone(item);
  });

  // Round 16's note: the prompt showed a script given on stdin line by line (A2), the page only `bash`.
  test('a script given on stdin is shown as the code bash runs, line by line, escaped; Deny runs nothing', async () => {
    const made = join(dir, 'from-stdin.txt');
    const script = `echo one\ntouch ${made}\nprintf '\x1b[31m<b>x</b>'`;
    const call = callLater(h, 'shell__run_command', { command: 'bash', workdir: dir, stdin: script });
    await openPage();

    const item = await card(tab, 'from-stdin.txt');
    expect(await item.locator('.command h4', { hasText: 'Stdin' }).innerText()).toBe('Stdin (argument stdin, 3 lines), code run by bash');
    expect(await item.locator('.command pre.stdin .line').allTextContents()).toEqual(['echo one', `touch ${made}`, escapeText("printf '\x1b[31m<b>x</b>'")]);
    expect(await item.locator('.command pre.stdin b').count()).toBe(0);
    await item.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(textOf(await call)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(existsSync(made)).toBe(false);
    await gone(item);
  });

  test('(e) control, ANSI, bidi and markup characters in a path are shown escaped, never obeyed', async () => {
    const name = 'evil\n\x1b[31mred\u202Etxt.sh<img src=x onerror=alert(1)>';
    const target = join(dir, name);
    const call = callLater(h, 'fs__write_file', { path: target, content: 'x' });
    await openPage();

    const item = await card(tab, 'evil');
    const shown = await item.locator('.paths td.path > code').first().textContent();
    expect(shown).toBe(escapeText(target));
    expect(shown).toContain('evil\\n\\x1b[31mred\\u202etxt.sh<img src=x onerror=alert(1)>');
    // The escapes are marked, and the markup stayed text.
    expect(await item.locator('.paths td.path .esc').allTextContents()).toEqual(['\\n', '\\x1b', '\\u202e']);
    expect(await item.locator('img').count()).toBe(0);
    const text = (await tab.locator('body').textContent()) ?? '';
    expect(text).toContain('\\x1b[31m');
    expect(RAW_CONTROLS.test(text)).toBe(false);
    // No raw newline inside any call-supplied value either.
    for (const value of await item.locator('.value').allTextContents()) expect(value).not.toMatch(/[\n\r]/);

    await item.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(textOf(await call)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(existsSync(target)).toBe(false);
    await gone(item);
  });

  // Round 31 review S31-2: the page named the tool with escapeText, so `wrіte_file` (Cyrillic і) read
  // as `write_file` on the card, in "Recently decided" and in the confirmation, while the prompt showed it escaped.
  test('a tool name spelled with a look-alike letter is shown escaped and marked on the card, the confirmation and "Recently decided"', async () => {
    const call = callLater(h, 'look__wr_te_file', { path: 'notes.txt' });
    await openPage();
    const item = await card(tab, 'look');
    expect(await item.locator('h2').textContent()).toBe(`look / ${escapeName(LOOK_ALIKE)}`);
    expect(await item.locator('h2').textContent()).toBe('look / wr\\u0456te_file');
    expect(await item.locator('h2 .esc').allTextContents()).toEqual(['\\u0456']);
    expect(await item.locator('.meta').innerText()).toContain('wr\\u0456te_file');
    await item.getByRole('button', { name: 'Deny', exact: true }).click();
    await eventually(async () => expect(await tab.locator('#confirmation').innerText()).toMatch(/^Denied: look \/ wr\\u0456te_file \(Deny\)/));
    expect(textOf(await call)).toMatch(/^Denied by mcp-latch/);
    await eventually(async () => expect(await tab.locator('#recent li').first().innerText()).toContain('look / wr\\u0456te_file — Deny'));
    expect((await tab.locator('body').textContent()) ?? '').not.toContain(LOOK_ALIKE);
    await gone(item);
  });

  test('a write over an existing file shows the risk, "replaces a file of N bytes" and the diff; a new file says "creates a new file"', async () => {
    const existing = join(dir, 'existing.txt');
    writeFileSync(existing, 'alpha\nbeta\n');
    const call = callLater(h, 'fs__write_file', { path: existing, content: 'alpha\nBETA\n' });
    await openPage();
    const item = await card(tab, 'existing.txt');
    expect(await item.locator('.risk').innerText()).toBe('Risk: medium — overwrites an existing file');
    expect(await item.locator('.change .summary').innerText()).toBe(`Replaces a file of 11 bytes (new size 11 bytes): ${existing}`);
    expect(await item.locator('pre.diff .line-del').allTextContents()).toEqual(['-beta']);
    expect(await item.locator('pre.diff .line-add').allTextContents()).toEqual(['+BETA']);
    expect(await item.locator('.state').innerText()).toMatch(/^Waiting — \d+ s left before the assistant is answered\.$/);
    await item.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(textOf(await call)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(readFileSync(existing, 'utf8')).toBe('alpha\nbeta\n');

    const fresh = join(dir, 'fresh.txt');
    const second = callLater(h, 'fs__write_file', { path: fresh, content: 'new\n' });
    const created = await card(tab, 'fresh.txt');
    expect(await created.locator('.change .summary').innerText()).toBe(`Creates a new file (4 bytes): ${fresh}`);
    expect(await created.locator('pre.diff .line-add').allTextContents()).toEqual(['+new']);
    expect(await created.locator('.risk').innerText()).toBe('Risk: low');
    await created.getByRole('button', { name: 'Deny', exact: true }).click();
    await second;
    expect(existsSync(fresh)).toBe(false);
  });

  test('a click is confirmed visibly, and the decision joins "Recently decided"', async () => {
    const target = join(dir, 'confirmed.txt');
    const call = callLater(h, 'fs__write_file', { path: target, content: 'c' });
    await openPage();
    const item = await card(tab, 'confirmed.txt');
    await item.getByRole('button', { name: 'Allow once', exact: true }).click();
    const confirmation = tab.locator('#confirmation');
    // The confirmation of an earlier test's click may still be shown until this one's answer is accepted.
    await eventually(async () => expect(await confirmation.innerText()).toBe('Allowed: fs / write_file (Allow once) — it runs now.'));
    expect((await call).isError).toBeFalsy();
    const first = tab.locator('#recent li').first();
    await eventually(async () => expect(await first.innerText()).toMatch(/fs \/ write_file — Allow once \(mcp-latch-test 1\.0\.0\)$/));
    expect(await tab.locator('#recent-empty').isHidden()).toBe(true);
  });

  /** Opens a card's edit box and types `value` into its field for `label`; returns the button that approves the edit. */
  async function editField(item: Locator, label: string, value: string): Promise<Locator> {
    await item.locator('details.edit > summary').click();
    await item.getByLabel(label, { exact: true }).fill(value);
    const run = item.getByRole('button', { name: 'Allow the edited call once', exact: true });
    await eventually(async () => expect(await run.isEnabled()).toBe(true));
    return run;
  }

  test('edit, then approve: the person changes `rm -rf build/` to `rm -rf build/tmp`; only the changed command runs, and the model is told', async () => {
    mkdirSync(join(dir, 'build', 'tmp'), { recursive: true });
    mkdirSync(join(dir, 'build', 'dist'), { recursive: true });
    writeFileSync(join(dir, 'build', 'tmp', 'cache.bin'), 'c');
    writeFileSync(join(dir, 'build', 'dist', 'app.js'), 'a');
    const call = callLater(h, 'shell__run_command', { command: 'rm -rf build/', workdir: dir });
    await openPage();

    const item = await card(tab, 'rm -rf build/');
    expect(await item.getByLabel('Command (command)', { exact: true }).inputValue()).toBe('rm -rf build/');
    expect(await item.getByLabel('Working directory (workdir)', { exact: true }).inputValue()).toBe(dir);
    await (await editField(item, 'Command (command)', 'rm -rf build/tmp')).click();
    const result = await call;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result)).toMatch(/^mcp-latch: the user changed this call before approving it \(command "rm -rf build\/" → "rm -rf build\/tmp"\)/);
    expect(existsSync(join(dir, 'build', 'tmp'))).toBe(false);
    expect(readFileSync(join(dir, 'build', 'dist', 'app.js'), 'utf8')).toBe('a');
    await eventually(async () => expect(await tab.locator('#confirmation').innerText()).toBe('Allowed (edited): shell / run_command (Allow once) — the changed call runs now unless your rules deny it.'));
    await eventually(async () => expect(await tab.locator('#recent li').first().innerText()).toMatch(/shell \/ run_command — Allow once \(edited\) \(mcp-latch-test 1\.0\.0\)$/));
    await gone(item);
  });

  test('an edit into a command a rule denies is refused at once, saying which rule; the call keeps waiting and nothing runs', async () => {
    const target = join(dir, 'kept.txt');
    writeFileSync(target, 'kept');
    const made = join(dir, 'made-by-edit');
    const call = callLater(h, 'shell__run_command', { command: `rm -f ${target}`, workdir: dir });
    await openPage();

    const item = await card(tab, 'kept.txt');
    await (await editField(item, 'Command (command)', `mkdir ${made}`)).click();
    await eventually(async () => expect(await item.locator('.error').innerText()).toMatch(/^The answer was not accepted: the changed call is not allowed: the rule Bash\(mkdir \*\) denies it \(.*\)\. Change it again, or answer the call as shown$/));
    expect(existsSync(made)).toBe(false);
    expect(await item.locator('.state').innerText()).toMatch(/^Waiting — \d+ s left/);
    await eventually(async () => expect(await item.getByRole('button', { name: 'Deny', exact: true }).isEnabled()).toBe(true));
    await item.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(textOf(await call)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(existsSync(made)).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('kept');
    await gone(item);
  });

  test('an unchanged edit box sends nothing and says so', async () => {
    const target = join(dir, 'unchanged.txt');
    const call = callLater(h, 'fs__write_file', { path: target, content: 'u' });
    await openPage();
    const item = await card(tab, 'unchanged.txt');
    expect(await item.getByLabel('Content (content)', { exact: true }).inputValue()).toBe('u');
    await (await editField(item, 'Path (path)', target)).click();
    expect(await item.locator('.error').innerText()).toBe('Nothing was changed: change a field, or use the choices below.');
    expect(existsSync(target)).toBe(false);
    await item.getByRole('button', { name: 'Deny', exact: true }).click();
    expect(textOf(await call)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    await gone(item);
  });

  test('(f) with nothing waiting the page says so', async () => {
    await openPage();
    const empty = tab.locator('#empty');
    await empty.waitFor({ state: 'visible' });
    expect(await empty.textContent()).toContain('No calls are waiting');
    expect(await tab.locator('li.item').count()).toBe(0);
    expect(await tab.locator('#connection').textContent()).toMatch(/^Live/);
  });

  test('the page is keyboard operable: Tab reaches the note and the choices in order', async () => {
    const target = join(dir, 'keyboard.txt');
    const call = callLater(h, 'fs__write_file', { path: target, content: 'k' });
    const item = await card(tab, 'keyboard.txt');
    await item.locator('.choices button').first().waitFor({ state: 'visible' });
    await eventually(async () => expect(await item.locator('.choices button:disabled').count()).toBe(0));
    await item.locator('textarea.note').focus();
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      await tab.keyboard.press('Tab');
      order.push(await tab.evaluate<string>("document.activeElement?.textContent ?? ''"));
    }
    expect(order).toEqual(await item.locator('.choices button').allTextContents());
    // Focus the Deny button and press Enter: a keyboard answer.
    await item.getByRole('button', { name: 'Deny', exact: true }).focus();
    await tab.keyboard.press('Enter');
    expect(textOf(await call)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(existsSync(target)).toBe(false);
    await gone(item);
    expect(await tab.locator('#announcer').getAttribute('aria-live')).toBe('polite');
  });
});

describe('approving on the page after the call was answered "pending"', () => {
  let h: Harness;
  let dir: string;
  let tab: Page;

  beforeAll(async () => {
    dir = tempDir();
    h = await startGateway(config(dir, 2));
    tab = await (await browser.newContext()).newPage();
  });

  afterAll(async () => {
    await h?.close();
  });

  test('(d) an approval given later applies once to the identical retry; a second retry asks again', async () => {
    const target = join(dir, 'later.txt');
    const args = { path: target, content: 'later' };
    const first = await h.client.callTool({ name: 'fs__write_file', arguments: args });
    expect(first.isError).toBe(true);
    expect(textOf(first)).toContain(PENDING_TEXT);
    expect(existsSync(target)).toBe(false);

    // The item stays on the page after the call was answered.
    await tab.goto(await pageUrl(h));
    const item = await card(tab, 'later.txt');
    await item.getByRole('button', { name: 'Allow once', exact: true }).click();
    await gone(item);
    await eventually(() => expect(h.stderr()).toContain('answer on the approval page for a pending call'));
    expect(existsSync(target)).toBe(false);

    const retry = await h.client.callTool({ name: 'fs__write_file', arguments: args });
    expect(retry.isError, textOf(retry)).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('later');

    // Spent: the next identical call waits on the page again and is not run.
    rmSync(target);
    const again = callLater(h, 'fs__write_file', args);
    const asked = await card(tab, 'later.txt');
    const result = await again;
    expect(textOf(result)).toContain(PENDING_TEXT);
    expect(existsSync(target)).toBe(false);
    await asked.getByRole('button', { name: 'Deny', exact: true }).click();
    await gone(asked);
  });
});

describe('the page opened while a call waits', () => {
  test('a reply to the page\'s first read that arrives after a live update does not take the update back', async () => {
    const dir = tempDir();
    const h = await startGateway(config(dir, 30));
    try {
      const cancel = new AbortController();
      const call = h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'late.txt'), content: '1' } }, undefined, { signal: cancel.signal });
      call.catch(() => undefined);
      const tab = await (await browser.newContext()).newPage();
      // Set once the page has handled its first read's reply: the app renders it in a job queued
      // when the body is parsed, before this timer fires.
      await tab.addInitScript({
        content: 'const json = Response.prototype.json; Response.prototype.json = function () { return json.call(this).then((value) => { setTimeout(() => { window.firstReadHandled = true; }, 0); return value; }); };',
      });
      // The first read is answered by the gateway (the call waiting), and its reply held back
      // until the event stream has taken the cancelled call off the page.
      let captured!: () => void;
      const read = new Promise<void>((resolve) => (captured = resolve));
      let releaseReply!: () => void;
      const held = new Promise<void>((resolve) => (releaseReply = resolve));
      await tab.route(/\/api\/pending$/, async (route) => {
        const response = await route.fetch();
        captured();
        await held;
        await route.fulfill({ response });
      });
      await tab.goto(await pageUrl(h));
      await read;
      const item = await card(tab, 'late.txt');
      cancel.abort();
      await gone(item);
      releaseReply();
      // A function, not a string: polling a string predicate evals it in the page, which the page's CSP refuses.
      await tab.waitForFunction(() => (globalThis as { firstReadHandled?: boolean }).firstReadHandled === true, undefined, { timeout: 15_000 });
      expect(await tab.locator('li.item').filter({ hasText: 'late.txt' }).count()).toBe(0);
      expect(existsSync(join(dir, 'late.txt'))).toBe(false);
    } finally {
      await h.close();
    }
  });
});

describe('a batch on the page', () => {
  test('calls of one batch show "N more waiting"; when the batch\'s time is up every call is answered, and the cards say until when approving allows a retry', async () => {
    const dir = tempDir();
    const configPath = writeConfig(dir, { ...config(dir, 2), mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } } });
    // Raw JSON-RPC: both calls in one write, so they are one read and one batch at the gateway.
    const gateway = rawGateway(configPath);
    try {
      await gateway.initialize();
      gateway.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      await gateway.response(2);
      const a = join(dir, 'batch-a.txt');
      const b = join(dir, 'batch-b.txt');
      gateway.send(
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fs__write_file', arguments: { path: a, content: 'a' } } },
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'fs__write_file', arguments: { path: b, content: 'b' } } },
      );
      // A link made as `mcp-latch page` makes it, from the state file.
      const url = await eventually(() => {
        const pages = (JSON.parse(readFileSync(join(dir, '.mcp-latch-pages.json'), 'utf8')) as { pages: Array<{ url: string; secret: string }> }).pages;
        expect(pages).toHaveLength(1);
        return pageLink(pages[0]!.url, pages[0]!.secret);
      }, 20_000);
      const tab = await (await browser.newContext()).newPage();
      await tab.goto(url);
      const cardA = await card(tab, 'batch-a.txt');
      expect(await cardA.locator('.batch').innerText({ timeout: 5_000 })).toBe('1 more waiting in this batch (shown after this one)');
      // Nobody answers: both calls are answered "pending" by the batch's one clock.
      expect(JSON.stringify((await gateway.response(3)).result)).toContain(PENDING_TEXT);
      expect(JSON.stringify((await gateway.response(4)).result)).toContain(PENDING_TEXT);
      const cardB = await card(tab, 'batch-b.txt');
      for (const pending of [cardA, cardB]) {
        await eventually(async () => expect(await pending.locator('.state').innerText({ timeout: 5_000 })).toMatch(/^The assistant was answered; approving now allows one identical retry until \d{1,2}:\d{2}:\d{2}/));
      }
      expect(existsSync(a) || existsSync(b)).toBe(false);
    } finally {
      await gateway.close();
    }
  });
});

describe('a one-time link followed from another site', () => {
  test('a link clicked on another site\'s page opens the page (the cookie survives the way on to /); the same link clicked again shows "already used"', async () => {
    const dir = tempDir();
    const h = await startGateway(config(dir, 30));
    // Another site: `localhost` is a different site from 127.0.0.1, where the page's cookie is set.
    const site = createHttpServer((request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end(`<a id="go" href="${decodeURIComponent(request.url!.slice(1))}">approval page</a>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const call = callLater(h, 'fs__write_file', { path: join(dir, 'from-elsewhere.txt'), content: 'x' });
      const link = await pageUrl(h);
      const context = await browser.newContext();
      const tab = await context.newPage();
      const sitePage = `http://localhost:${(site.address() as AddressInfo).port}/${encodeURIComponent(link)}`;
      await tab.goto(sitePage);
      await tab.click('#go');
      const item = await card(tab, 'from-elsewhere.txt');
      expect(new URL(tab.url()).search).toBe('');
      await tab.locator('#connection').filter({ hasText: 'Live' }).waitFor({ timeout: 15_000 });
      await item.getByRole('button', { name: 'Deny', exact: true }).click();
      expect(textOf(await call)).toMatch(/^Denied by mcp-latch: the user denied this call/);

      // The same link from a browser without the cookie: spent.
      const other = await (await browser.newContext()).newPage();
      await other.goto(sitePage);
      await other.click('#go');
      await other.getByText('This link was already used.').waitFor({ timeout: 15_000 });
      expect(await other.locator('body').innerText()).toContain('mcp-latch page --open');
      await context.close();
    } finally {
      site.close();
      await h.close();
    }
  });
});

describe('the browser opened through a file, never a link on its command line', () => {
  test('`mcp-latch page --open` gives the browser a file of the person\'s; Chromium follows it to the page (cookie set, file gone), and the address a URL elicitation carries opens the page in that browser', async () => {
    const dir = tempDir();
    const h = await startGateway(config(dir, 30));
    try {
      const call = callLater(h, 'fs__write_file', { path: join(dir, 'via-file.txt'), content: 'x' });
      await pageUrl(h);
      const launcher = join(dir, 'record-browser.sh');
      const launched = join(dir, 'browser-launches.txt');
      writeFileSync(launcher, `#!/bin/sh\nprintf '%s\\n' "$@" >> '${launched}'\n`, { mode: 0o755 });
      const opened = spawnSync(process.execPath, [BIN, 'page', '--open', '--config', h.configPath], { encoding: 'utf8', env: { ...process.env, BROWSER: launcher } });
      expect(opened.status, opened.stderr).toBe(0);
      const fileUrl = await eventually(() => readFileSync(launched, 'utf8').trim(), 10_000);
      expect(fileUrl).toMatch(/^file:\/\/\/.*\/\.mcp-latch-open\/open-[0-9a-z]+\.[A-Za-z0-9_-]{22}\.html$/);
      expect(fileUrl).not.toContain('nonce');

      const context = await browser.newContext();
      const tab = await context.newPage();
      await tab.goto(fileUrl);
      const item = await card(tab, 'via-file.txt');
      expect(new URL(tab.url()).protocol).toBe('http:');
      expect(new URL(tab.url()).search).toBe('');
      await eventually(() => expect(existsSync(fileURLToPath(fileUrl))).toBe(false));

      // What a URL elicitation carries (the page under its scope, no nonce) opens the page in this browser.
      const plain = `${new URL(tab.url()).origin}${new URL(tab.url()).pathname}`;
      expect(plain).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9_-]{22}\/$/);
      const second = await context.newPage();
      await second.goto(plain);
      await card(second, 'via-file.txt');

      await item.getByRole('button', { name: 'Deny', exact: true }).click();
      expect(textOf(await call)).toMatch(/^Denied by mcp-latch: the user denied this call/);
      await context.close();
    } finally {
      await h.close();
    }
  });
});
