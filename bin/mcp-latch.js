#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// The young generation stays at its first size (1 MiB a semi-space): V8 doubles it up to 16 MiB
// under load, which was most of the gateway's growth in resident memory over 10,000 calls, and a
// call's garbage dies young at any size (docs/performance.md, "Memory"). Set before anything else
// loads; the flag is read each time V8 would grow the space.
setFlagsFromString('--semi-space-growth-factor=1');

// A plain `serve` (what MCP clients start) goes straight to the gateway, without the command-line library.
const { runServe, serveOptions } = await import('../dist/serve/serve.js');
const argv = process.argv.slice(2);
const options = serveOptions(argv);
if (options) runServe(options);
else (await import('../dist/cli/main.js')).main(argv);
