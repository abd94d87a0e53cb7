import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { withFileLock } from '../store/file-lock.js';

/**
 * Where running gateways say their approval page is: a JSON file next to the config, mode 0600
 * (it holds each page's secret), read by `mcp-latch page`, which makes one-time links with the
 * secret (link.ts). Built-in rules deny tools every read and write of it (policy/policy.ts).
 *
 *   ~/.config/mcp-latch/.mcp-latch-pages.json
 *   { "pages": [{ "pid": 4242, "url": "http://127.0.0.1:53111/", "secret": "…", "client": "claude-ai 0.14.10", "started": "…" }] }
 *
 * Each gateway adds its entry when its page starts and removes it when it closes; entries of
 * processes that are gone are dropped on every write and read.
 */
export interface PageEntry {
  pid: number;
  /** The page's address, without a secret. */
  url: string;
  /** The page's secret: the key of its one-time links. Never printed. */
  secret: string;
  client: string;
  started: string;
}

/** The pages of gateways still running. */
export function readPages(file: string, isRunning: (pid: number) => boolean = isProcessRunning): PageEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const pages = (parsed as { pages?: unknown }).pages;
  if (!Array.isArray(pages)) return [];
  return pages.filter((entry): entry is PageEntry => isPageEntry(entry) && isRunning(entry.pid));
}

/** Under the file's lock, on the file it is of (file-lock.ts): gateways starting their pages together lost each other's entry (round 17 review S4). */
export function addPage(file: string, entry: PageEntry): Promise<void> {
  return withFileLock(file, async (real) => writePages(real, [...readPages(real).filter((page) => page.pid !== entry.pid), entry]));
}

export function removePage(file: string, pid: number): Promise<void> {
  return withFileLock(file, async (real) => writePages(real, readPages(real).filter((page) => page.pid !== pid)));
}

function writePages(file: string, pages: PageEntry[]): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ pages }, null, 2)}\n`, { mode: 0o600 });
  // Security: the mode of a file created before (or by another umask) is set again.
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

function isPageEntry(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    Number.isInteger(entry['pid']) &&
    typeof entry['url'] === 'string' &&
    entry['url'].startsWith('http://127.') &&
    typeof entry['secret'] === 'string' &&
    entry['secret'] !== '' &&
    typeof entry['client'] === 'string' &&
    typeof entry['started'] === 'string'
  );
}

function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
