import { spawn } from 'node:child_process';
import { removeOpener, writeOpener, type Opener } from '../approval-page/opener.js';
import { errorMessage } from '../errors.js';

/**
 * Pointing the person at the approval page: the default browser, and a desktop notification where
 * the platform has one. Best effort: if neither works, the address is still in the log and in
 * `mcp-latch page`. `BROWSER` (the usual variable: a program given the address) replaces the
 * platform's opener, which is also how tests record the launch instead of opening a browser.
 */
export function openInBrowser(url: string, platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): void {
  const browser = env['BROWSER']?.trim();
  if (browser) {
    launch(browser, [url]);
    return;
  }
  const [command, args] =
    platform === 'darwin' ? ['open', [url]] : platform === 'win32' ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]] : ['xdg-open', [url]];
  launch(command, args);
}

/**
 * Opens a one-time link to the approval page in the browser without putting it on a command line:
 * the browser is given a file of the person's that leads on to it (approval-page/opener.ts; round
 * 18 review, L1). The file is removed when the page spends its nonce, or here when it expires
 * (a timer that keeps no process alive: a CLI gone by then leaves it to the next sweep). Returns why
 * nothing was opened, or null: the caller says so, and gives no link in its place.
 */
export function openLinkInBrowser(link: string, dir: string): string | null {
  let opener: Opener;
  try {
    opener = writeOpener(dir, link);
  } catch (error) {
    return errorMessage(error);
  }
  openInBrowser(opener.fileUrl);
  setTimeout(() => removeOpener(dir, opener.expires, opener.id), Math.max(0, opener.expires - Date.now()) + 1000).unref();
  return null;
}

export function notify(title: string, body: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === 'darwin') launch('osascript', ['-e', `display notification ${appleString(body)} with title ${appleString(title)}`]);
  else if (platform === 'linux') launch('notify-send', ['--app-name=mcp-latch', title, body]);
}

function appleString(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&')}"`;
}

function launch(command: string, args: string[]): void {
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsHide: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No such program here: the log line with the address is the fallback.
  }
}
