#!/usr/bin/env node
// Bundles the `serve` path (src/cli/serve.ts and what it loads) into dist/serve/, run by
// `npm run build`. Every MCP client session starts `serve`, and the client waits for its first
// tools/list: loading the ~300 modules of the module graph one by one costs more than loading a
// few files (docs/performance.md has the measurements). Code splitting keeps what `serve` needs
// before it spawns the servers in the entry file, and loads the rest after. web-tree-sitter stays
// out: it finds its .wasm next to its own module, and is loaded only when a shell tool exists;
// so does jsonc-parser (see below).
// Source maps are written next to the files (`node --enable-source-maps` maps stack traces to src/).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/serve.ts'],
  outdir: 'dist/serve',
  bundle: true,
  splitting: true,
  format: 'esm',
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
  logLevel: 'warning',
  // CommonJS dependencies (pino, ajv, cross-spawn) call require() for Node's own modules.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  plugins: [
    {
      // src/version.ts reads ../package.json relative to its own file, which the bundle moves.
      name: 'version',
      setup(context) {
        context.onLoad({ filter: /[\\/]src[\\/]version\.ts$/ }, () => ({ contents: `export const VERSION = ${JSON.stringify(version)};`, loader: 'ts' }));
      },
    },
  ],
});
