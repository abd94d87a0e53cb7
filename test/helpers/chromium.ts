import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';

/**
 * A headless Chromium for the browser tests, with nothing to install by hand:
 *
 *   MCP_LATCH_CHROMIUM=/path   that binary (MCP_LATCH_CHROMIUM=npm forces the npm build below)
 *   /usr/bin/chromium          the OS package, when present (Debian's `chromium`)
 *   @sparticuz/chromium        otherwise: the Chromium build shipped in that devDependency, unpacked
 *                              to the temp folder on first use, with the NSS libraries it carries
 *                              (a bare machine may not have libnss3)
 */
const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const OS_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** Which Chromium `launchChromium` uses: an explicit or OS binary, or the npm build. */
export function chromiumSource(env: NodeJS.ProcessEnv = process.env): { kind: 'path'; path: string } | { kind: 'npm' } {
  const explicit = env.MCP_LATCH_CHROMIUM;
  if (explicit === 'npm') return { kind: 'npm' };
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`MCP_LATCH_CHROMIUM=${explicit} does not exist`);
    return { kind: 'path', path: explicit };
  }
  const os = OS_CHROMIUM.find((path) => existsSync(path));
  return os ? { kind: 'path', path: os } : { kind: 'npm' };
}

export async function launchChromium(env: NodeJS.ProcessEnv = process.env): Promise<Browser> {
  const source = chromiumSource(env);
  // launch() gives Chromium a fresh temporary profile (user data dir) and removes it on close.
  if (source.kind === 'path') return chromium.launch({ executablePath: source.path, args: ARGS });
  const { default: npmChromium } = await import('@sparticuz/chromium');
  const executablePath = await npmChromium.executablePath();
  const libs = npmLibraries();
  const libraryPath = [libs, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  // Not the package's own flag list: it is made for AWS Lambda (--single-process, --disable-web-security),
  // and the page's Origin checks and live updates need a normal browser.
  return chromium.launch({ executablePath, args: ARGS, env: { ...process.env, LD_LIBRARY_PATH: libraryPath } });
}

/**
 * The shared libraries @sparticuz/chromium ships for Amazon Linux (NSS, NSPR, expat), unpacked once
 * into the temp folder. The package unpacks them only on AWS; a bare Debian lacks NSS too.
 */
function npmLibraries(): string {
  const target = join(tmpdir(), 'mcp-latch-chromium-libs');
  const lib = join(target, 'lib');
  if (existsSync(join(lib, 'libnss3.so'))) return lib;
  const bin = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', '..', 'bin');
  mkdirSync(target, { recursive: true });
  const tar = spawnSync('tar', ['-x', '-C', target], { input: brotliDecompressSync(readFileSync(join(bin, 'al2023.tar.br'))) });
  if (tar.status !== 0) throw new Error(`cannot unpack the Chromium libraries: ${tar.stderr.toString()}`);
  return lib;
}
