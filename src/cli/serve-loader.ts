import { fileURLToPath } from 'node:url';
import { loadBundle } from './code-cache.js';
import type * as Boot from './serve-boot.js';
import { setServeFlags } from './v8-flags.js';

/**
 * What `serve` loads first (dist/serve/loader.cjs, scripts/bundle.js; bin/ and main.ts load it with
 * Node's own loader): the code-cache loader and serve's V8 flags, which then load boot.cjs (the early
 * read and the spawns, serve-boot.ts) with V8's code cache, as boot.cjs loads serve.cjs. Compiled by
 * Node's loader, boot.cjs's ~85 KB and the ~280 functions of it a start runs (the servers' message
 * path among them) were compiled from their source at every start (docs/performance.md, "Round 30:
 * boot.cjs from its code cache"). V8 takes a cache only under the flags it was made with, and serve's
 * caches are made under serve's, so they are set before boot.cjs is compiled, and before them every
 * one of Node's modules a start loads by its first list: Node compiles those with the node binary's
 * code cache only under V8's default flags ("Round 24: start").
 */

/** Node's modules a start loads by its first list that this file's own imports do not (vm, zlib, module, os, path, fs). */
const NODE_MODULES = ['node:child_process', 'node:util', 'node:fs/promises', 'node:perf_hooks', 'node:events', 'node:diagnostics_channel'];

/** boot.cjs, compiled with its code cache under serve's flags (set here, once). */
export function loadBoot(): typeof Boot {
  for (const name of NODE_MODULES) process.getBuiltinModule(name);
  setServeFlags();
  return loadBundle(fileURLToPath(new URL('../serve/boot.cjs', import.meta.url)), process.env, { asModule: true }).exports as typeof Boot;
}
