#!/usr/bin/env node
'use strict';

// A plain `serve` (what MCP clients start) goes straight to the gateway, without the command-line
// library; every other command goes to the command line, without the serve bundles (serve-options.ts).
// boot.cjs reads the config and spawns the servers, then loads serve's bundle with V8's code cache
// (src/cli/serve-boot.ts), which loads the gateway's (src/cli/serve.ts).
// This file is CommonJS (bin/package.json) and serve's path loads no ES module: Node's ES module
// loader cost ~5 ms of CPU before the first server was spawned (docs/performance.md, "Round 15: the
// ten-server start").
// libuv's thread pool, made at its first use (serve uses it as it starts) from UV_THREADPOOL_SIZE:
// Node's 4 threads give getaddrinfo 2, and a lookup whose DNS never answers holds one until the
// system resolver gives up (10 s with glibc), so two servers' URL-mode questions to such names held
// every other lookup of the process (a remote server's name, the OAuth JWKS, Redis) behind them. 8
// threads give it 4, the servers' at most 2 (MAX_URL_LOOKUPS) leaving 2; a value set in the
// environment is kept (docs/threat-model.md, "Round 25: the lookups' threads"; bench/dns-threads.js).
if (process.env.UV_THREADPOOL_SIZE === undefined) process.env.UV_THREADPOOL_SIZE = '8';
const argv = process.argv.slice(2);
const options = require('../dist/cli/serve-options.cjs').serveOptions(argv);
// boot.cjs is loaded before any V8 flag is set: Node compiles its own modules (child_process, net
// and the streams they load, os) with the code cache built into the node binary only under V8's
// default flags (V8 checks a hash of them), and loaded after a flag they were compiled from their
// source, ~3 ms more CPU before the first spawn (docs/performance.md, "Round 24: start"). serve sets
// its flags, the young generation's among them, once it has spawned its servers (src/cli/v8-flags.ts;
// node:v8 is loaded then too).
if (options) require('../dist/serve/boot.cjs').runServe(options);
else {
  // The young generation stays at its first size (1 MiB a semi-space): V8 doubles it up to 16 MiB
  // under load, which was most of the gateway's growth in resident memory over 10,000 calls, and a
  // call's garbage dies young at any size (docs/performance.md, "Memory"). Set before anything else
  // loads; the flag is read each time V8 would grow the space.
  require('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
  import('../dist/cli/main.js').then(({ main }) => main(argv));
}
