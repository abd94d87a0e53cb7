#!/usr/bin/env node
// Bundles the `serve` path (src/cli/serve.ts and what it loads) into dist/serve/, run by
// `npm run build`. Every MCP client session starts `serve`, and the client waits for its first
// tools/list: loading the ~300 modules of the module graph one by one costs more than loading one
// file (docs/performance.md has the measurements). It is one CommonJS file, dist/serve/serve.cjs,
// so that bin/ can compile it with V8's code cache (src/cli/code-cache.ts); what `serve` imports
// after the spawn stays lazy: esbuild wraps each such module in a function run at its import().
// web-tree-sitter stays out: it finds its .wasm next to its own module, and is loaded only when a
// shell tool exists; so does jsonc-parser (see below).
// The source map is written next to the file (`node --enable-source-maps` maps stack traces to src/).
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// An earlier build's files (the split ESM chunks of before) would stay next to the new one.
rmSync(`${root}dist/serve`, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/serve.ts'],
  outfile: 'dist/serve/serve.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  sourcemap: true,
  // V8 keeps each module's source in the heap, as two-byte text when a comment holds one '—':
  // layout and comments go (names stay, for stack traces); docs/performance.md has the numbers.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  charset: 'ascii',
  // jsonc-parser's main build is UMD: its require('./impl/format') cannot be bundled.
  external: ['web-tree-sitter', 'jsonc-parser'],
  // import() of those becomes require() (web-tree-sitter has a CommonJS build): in Node 20 an
  // import() in code that V8 took from a code cache fails (the script's host options are lost).
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
  // The file is one function expression with CommonJS's parameters, which bin/ compiles and calls
  // (src/cli/code-cache.ts): wrapping the text at run time copied all of it (~1.3 MiB resident).
  // The sources are ES modules (strict); a few find files next to themselves with import.meta.url.
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: `(function (exports, require, module, __filename, __dirname) {"use strict";const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;` },
  footer: { js: '})' },
  plugins: [
    {
      // pino loads its transport machinery (thread-stream, worker_threads) at import, for
      // pino.transport(), which serve never calls: its logger writes to fd 2 from the main thread.
      // Node's worker modules cost ~1.5 MiB resident (docs/performance.md, "Memory").
      name: 'no-pino-transports',
      setup(context) {
        context.onResolve({ filter: /^thread-stream$/ }, () => ({ path: 'thread-stream', namespace: 'stub' }));
        context.onResolve({ filter: /^worker_threads$/ }, (args) => (/[\\/]pino[\\/]lib[\\/]tools\.js$/.test(args.importer) ? { path: 'worker_threads', namespace: 'stub' } : undefined));
        context.onLoad({ filter: /^thread-stream$/, namespace: 'stub' }, () => ({
          contents: "module.exports = class ThreadStream { constructor() { throw new Error('pino transports are not part of the serve bundle'); } };",
          loader: 'js',
        }));
        context.onLoad({ filter: /^worker_threads$/, namespace: 'stub' }, () => ({ contents: 'module.exports = { isMainThread: true };', loader: 'js' }));
      },
    },
    {
      // zod's error messages in 60 languages (290 KB of source kept in the heap); zod's own
      // default, English, is imported on its own and stays.
      name: 'no-zod-locales',
      setup(context) {
        context.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[\\/]zod[\\/]v4[\\/](classic|core|mini)[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'stub' } : undefined));
        context.onLoad({ filter: /^zod-locales$/, namespace: 'stub' }, () => ({ contents: 'export {};', loader: 'js' }));
      },
    },
    {
      // src/version.ts reads ../package.json relative to its own file, which the bundle moves.
      name: 'version',
      setup(context) {
        context.onLoad({ filter: /[\\/]src[\\/]version\.ts$/ }, () => ({ contents: `export const VERSION = ${JSON.stringify(version)};`, loader: 'ts' }));
      },
    },
  ],
});
