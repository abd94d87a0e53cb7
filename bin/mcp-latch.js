#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// The young generation stays at its first size (1 MiB a semi-space): V8 doubles it up to 16 MiB
// under load, which was most of the gateway's growth in resident memory over 10,000 calls, and a
// call's garbage dies young at any size (docs/performance.md, "Memory"). Set before anything else
// loads; the flag is read each time V8 would grow the space.
setFlagsFromString('--semi-space-growth-factor=1');

// A plain `serve` (what MCP clients start) goes straight to the gateway, without the command-line
// library; every other command goes to the command line, without the serve bundle (serve-options.ts).
const argv = process.argv.slice(2);
const options = (await import('../dist/cli/serve-options.js')).serveOptions(argv);
if (options) {
  // serve's own flags, before its bundle is compiled: V8 uses a code cache only under the flags it
  // was made with (src/cli/v8-flags.ts).
  (await import('../dist/cli/v8-flags.js')).setServeFlags();
  // The bundle is compiled with V8's code cache (src/cli/code-cache.ts).
  const { loadBundle } = await import('../dist/cli/code-cache.js');
  const { exports: bundle, codeCache } = loadBundle(fileURLToPath(new URL('../dist/serve/serve.cjs', import.meta.url)));
  bundle.runServe({ ...options, codeCache });
} else {
  (await import('../dist/cli/main.js')).main(argv);
}
