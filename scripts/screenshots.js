#!/usr/bin/env node
// Screenshots of the approval page for the README, in docs/screenshots/:
//   approval-page-write.png    a write over an existing file: risk, "replaces a file of N bytes", the diff
//   approval-page-edit.png     `rm -rf build/` with the edit box open, changed to `rm -rf build/tmp`
//   approval-page-timeout.png  after the assistant was answered: "approving now allows one identical retry until …"
//   approval-page-recent.png   nothing waiting, the confirmation of the last click and "Recently decided"
// Runs the BUILT gateway (`npm run build` first) under the SDK client on a throwaway config and
// workspace, and the page in headless Chromium (Debian's `chromium`; set MCP_LATCH_CHROMIUM to use another).
//
//   npm run build && node scripts/screenshots.js
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'docs/screenshots');
const CHROMIUM = process.env.MCP_LATCH_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const base = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-latch-screens-')));
const workspace = join(base, 'my-project');
mkdirSync(join(workspace, 'src'), { recursive: true });
mkdirSync(join(workspace, 'build', 'tmp'), { recursive: true });
mkdirSync(join(workspace, 'build', 'dist'), { recursive: true });
writeFileSync(join(workspace, 'build', 'tmp', 'cache.bin'), 'cache');
writeFileSync(join(workspace, 'build', 'dist', 'app.js'), 'app');
const configFile = join(workspace, 'src', 'config.js');
writeFileSync(configFile, ['export const config = {', "  port: 3000,", "  host: 'localhost',", '  retries: 3,', '  verbose: false,', '};', ''].join('\n'));
const configPath = join(base, 'mcp-latch.json');
// The assistant is answered "pending" after this many seconds (the after-timeout screenshot waits for it).
const TIMEOUT_SECONDS = 20;
writeFileSync(
  configPath,
  JSON.stringify(
    {
      mcpServers: {
        fs: { command: process.execPath, args: [join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), workspace] },
        shell: { command: process.execPath, args: [join(ROOT, 'node_modules/mcp-server-commands/build/index.js')] },
      },
      workspace: [workspace],
      approval: { fallback: 'browser-manual', timeoutSeconds: TIMEOUT_SECONDS, retryWindowSeconds: 120 },
    },
    null,
    2,
  ),
);

let stderr = '';
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(ROOT, 'bin/mcp-latch.js'), 'serve', '--config', configPath],
  env: { MCP_LATCH_LOG_LEVEL: 'info' },
  stderr: 'pipe',
  cwd: workspace,
});
transport.stderr?.on('data', (chunk) => {
  stderr += chunk.toString();
});
// Claude Desktop's name: the client that cannot show prompts, as the page shows its session.
const client = new Client({ name: 'claude-ai', version: '0.14.10' }, { capabilities: {} });
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
let browser;
try {
  await client.connect(transport, { timeout: 30_000 });
  mkdirSync(OUT, { recursive: true });

  // 1. A write over an existing file, with its diff.
  const newConfig = ['export const config = {', "  port: 8080,", "  host: '0.0.0.0',", '  retries: 3,', '  verbose: true,', '};', ''].join('\n');
  // The browser first: the batch's clock starts with the call.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  const writing = call('fs__write_file', { path: configFile, content: newConfig });
  // browser-manual logs a one-time link with the waiting call.
  const url = await until(() => /"msg":"a call waits for approval: open (http:\/\/127\.0\.0\.1:\d+\/\?nonce=\S+) /.exec(stderr)?.[1]);
  await page.goto(url);
  let item = await waitingCard(page, 'config.js');
  await shoot(page, 'approval-page-write.png');
  await item.getByRole('button', { name: 'Allow once', exact: true }).click();
  await writing;

  // 2. A command, with the edit box open and the command changed.
  const removing = call('shell__run_command', { command: 'rm -rf build/', workdir: workspace });
  item = await waitingCard(page, 'rm -rf build/');
  await item.locator('details.edit > summary').click();
  await item.getByLabel('Command (command)', { exact: true }).fill('rm -rf build/tmp');
  await item.getByRole('button', { name: 'Allow the edited call once', exact: true }).waitFor();
  await shoot(page, 'approval-page-edit.png');
  await item.getByRole('button', { name: 'Allow the edited call once', exact: true }).click();
  await removing;

  // 3. Nobody answers in time: the assistant is answered, the card says until when approving allows a retry.
  await call('shell__run_command', { command: 'git push --force origin main', workdir: workspace });
  item = await waitingCard(page, 'git push');
  await item.locator('.state', { hasText: 'The assistant was answered' }).waitFor();
  await shoot(page, 'approval-page-timeout.png');
  await item.getByRole('button', { name: 'Deny', exact: true }).click();

  // 4. Nothing waiting: the last click's confirmation and what was decided.
  await page.locator('#empty').waitFor({ state: 'visible' });
  await page.locator('#recent li').nth(2).waitFor();
  await page.setViewportSize({ width: 1280, height: 520 });
  await page.screenshot({ path: join(OUT, 'approval-page-recent.png') });
  console.log(`wrote approval-page-{write,edit,timeout,recent}.png in ${OUT}`);
} finally {
  await browser?.close();
  await client.close().catch(() => undefined);
  rmSync(base, { recursive: true, force: true });
}

/** The one card waiting with `text`, once its buttons are armed. */
async function waitingCard(page, text) {
  const item = page.locator('li.item:not(.answered)').filter({ hasText: text }).first();
  await item.waitFor({ state: 'visible', timeout: 60_000 });
  await item.locator('.choices button:not(:disabled)').first().waitFor();
  return item;
}

async function shoot(page, name) {
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(OUT, name), fullPage: true });
}

async function until(read, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out; gateway log:\n${stderr}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}
