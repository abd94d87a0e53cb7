#!/usr/bin/env node
import { runServe, serveOptions } from '../dist/serve/serve.js';

// A plain `serve` (what MCP clients start) goes straight to the gateway, without the command-line library.
const argv = process.argv.slice(2);
const options = serveOptions(argv);
if (options) runServe(options);
else (await import('../dist/cli/main.js')).main(argv);
