#!/usr/bin/env node
// Screenshots of the approval page for the README: docs/screenshots/approval-page-pending.png (a
// shell command waiting for a decision) and approval-page-empty.png (nothing waiting). Runs the
// BUILT gateway (`npm run build` first) under the SDK client on a throwaway config and workspace,
// and the page in headless Chromium (Debian's `chromium`; set MCP_LATCH_CHROMIUM to use another).
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
const configPath = join(base, 'mcp-latch.json');
writeFileSync(
  configPath,
  JSON.stringify(
    {
      mcpServers: {
        fs: { command: process.execPath, args: [join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), workspace] },
        shell: { command: process.execPath, args: [join(ROOT, 'node_modules/mcp-server-commands/build/index.js')] },
      },
      workspace: [workspace],
      approval: { fallback: 'browser-manual', timeoutSeconds: 45, retryWindowSeconds: 120 },
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
let browser;
try {
  await client.connect(transport, { timeout: 30_000 });
  const command = `npm run build > build.log && git commit -am "release" > /tmp/commit.txt`;
  const waiting = client.callTool({ name: 'shell__run_command', arguments: { command, workdir: workspace } }).catch(() => undefined);
  const url = await until(() => /"msg":"approval page: (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)"/.exec(stderr)?.[1]);

  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(url);
  const item = page.locator('li.item').first();
  await item.waitFor({ state: 'visible' });
  await page.locator('.choices button:not(:disabled)').first().waitFor();
  await item.locator('textarea').fill('Build first, then show me the diff before committing.');
  mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: join(OUT, 'approval-page-pending.png'), fullPage: true });

  await item.getByRole('button', { name: 'Deny', exact: true }).click();
  await page.locator('#empty').waitFor({ state: 'visible' });
  await waiting;
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.setViewportSize({ width: 1280, height: 420 });
  await page.screenshot({ path: join(OUT, 'approval-page-empty.png') });
  console.log(`wrote ${join(OUT, 'approval-page-pending.png')} and ${join(OUT, 'approval-page-empty.png')}`);
} finally {
  await browser?.close();
  await client.close().catch(() => undefined);
  rmSync(base, { recursive: true, force: true });
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
