#!/usr/bin/env node
// Bundles the `serve` path into dist/serve/, run by `npm run build`. Every MCP client session starts
// `serve`, and the client waits for its first tools/list: loading the ~300 modules of the module
// graph one by one costs more than loading a file (docs/performance.md has the measurements).
// CommonJS files:
// - boot.cjs (src/cli/serve-boot.ts): the code-cache loader, which bin/ loads with Node's own loader;
//   it loads serve.cjs with V8's code cache (src/cli/code-cache.ts) and puts it in the require cache.
//   serve.cjs takes the modules it shares with boot.cjs from it (boot's `sharedModules`).
// - serve.cjs (src/cli/serve.ts): reads the config and spawns the servers. It is small (pino, the
//   early read, the child transport), so the servers are spawned early and from a small process (a
//   fork costs the more, the larger the process is). One function expression, as gateway.cjs.
// - gateway.cjs (src/cli/serve-gateway.ts): the schema, the policy and the gateway, which serve.ts
//   compiles with V8's code cache (src/cli/code-cache.ts). A module both use is taken from serve.cjs
//   (its `sharedModules`), so each exists once: one LatchError, one ChildTransport class.
// - shell.cjs (src/subjects/shell/, entered through its index.ts): the shell model, which only a
//   tool that takes shell commands needs; gateway.cjs requires it at the first call into it, and
//   gives it the gateway's modules it imports (`gatewayModules`), so again each exists once.
// web-tree-sitter stays out: it finds its .wasm next to its own module, and is loaded only when a
// shell tool exists; so does jsonc-parser (see below).
// Source maps are written next to the files (`node --enable-source-maps` maps stack traces to src/).
import { readFileSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { lazySchemas } from './lazy-schemas.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// An earlier build's files (the split ESM chunks of before) would stay next to the new ones.
rmSync(`${root}dist/serve`, { recursive: true, force: true });

const common = {
  absWorkingDir: root,
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
  // The sources are ES modules (strict); a few find files next to themselves with import.meta.url.
  define: { 'import.meta.url': '__importMetaUrl' },
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
      // sonic-boom (pino's destination) loads node:assert for one check when it closes: ~0.8 ms of
      // CPU and four of Node's modules at every start (docs/performance.md, "Round 15: the ten-server
      // start"). The same check, the same message, thrown as assert would (AssertionError's fields aside).
      name: 'no-assert-in-sonic-boom',
      setup(context) {
        context.onResolve({ filter: /^assert$/ }, (args) => (/[\\/]sonic-boom[\\/]index\.js$/.test(args.importer) ? { path: 'assert', namespace: 'stub' } : undefined));
        context.onLoad({ filter: /^assert$/, namespace: 'stub' }, () => ({
          contents: "module.exports = (value, message) => { if (!value) throw Object.assign(new Error(message), { code: 'ERR_ASSERTION' }); };",
          loader: 'js',
        }));
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
      // Ajv (with ajv-formats and fast-uri: ~90 modules) is evaluated only when the first
      // AjvJsonSchemaValidator is made: a start whose outputSchemas the note beside the code cache
      // holds makes none before its first list (src/downstream/listing.ts; every SDK Client and Server
      // is given src/schema-validators.ts, which makes one at its first schema), yet the SDK's
      // client, server and our listing import it, so it was evaluated with the bundle
      // (docs/performance.md, "Round 19: start"). The stand-in makes the SDK's own class.
      name: 'ajv-at-first-use',
      setup(context) {
        const real = `${root}node_modules/@modelcontextprotocol/sdk/dist/esm/validation/ajv-provider.js`;
        context.onResolve({ filter: /[\\/]validation[\\/]ajv-provider\.js$/ }, (args) => (args.namespace === 'lazy-ajv' ? undefined : { path: 'ajv-provider', namespace: 'lazy-ajv' }));
        context.onLoad({ filter: /^ajv-provider$/, namespace: 'lazy-ajv' }, () => ({
          contents: `let Real; export class AjvJsonSchemaValidator { constructor(...args) { Real ??= require(${JSON.stringify(real)}).AjvJsonSchemaValidator; return new Real(...args); } }`,
          loader: 'js',
          resolveDir: root,
        }));
      },
    },
    {
      // The SDK's Protocol asks zod what kind each message it reads is (types.js isJSONRPCResultResponse,
      // isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCNotification), three times for an answer: ~150 parses before a
      // ten-server list, each copying the answer's result. src/downstream/message-kinds.ts answers
      // for the plain shapes, where the schema is sure to say the same, and leaves the rest to zod
      // (docs/performance.md, "Round 25: ten servers").
      name: 'plain-message-kinds',
      setup(context) {
        const kinds = `${root}src/downstream/message-kinds.ts`;
        const lazySchemaFile = `${root}src/lazy-schema.ts`;
        const guards = [
          ['isJSONRPCResultResponse', 'JSONRPCResultResponseSchema', 'resultResponseKind'],
          ['isJSONRPCErrorResponse', 'JSONRPCErrorResponseSchema', 'errorResponseKind'],
          ['isJSONRPCRequest', 'JSONRPCRequestSchema', 'requestKind'],
          ['isJSONRPCNotification', 'JSONRPCNotificationSchema', 'notificationKind'],
        ];
        context.onLoad({ filter: /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]types\.js$/ }, (args) => {
          let text = readFileSync(args.path, 'utf8');
          for (const [guard, schema, kind] of guards) {
            const line = `export const ${guard} = (value) => ${schema}.safeParse(value).success;`;
            if (!text.includes(line)) throw new Error(`plain-message-kinds: the SDK's ${guard} is no longer \`${line}\` (${args.path})`);
            text = text.replace(line, `export const ${guard} = (value) => ${kind}(value) ?? ${schema}.safeParse(value).success;`);
          }
          // Each schema made at its first use (scripts/lazy-schemas.js).
          const lazy = lazySchemas(text, args.path).text;
          return { contents: `import { ${guards.map(([, , kind]) => kind).join(', ')} } from ${JSON.stringify(kinds)};\nimport { lazySchema } from ${JSON.stringify(lazySchemaFile)};\n${lazy}`, loader: 'js' };
        });
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
};

// bin/ (CommonJS) reads the command line with serve-options.ts, built on its own (no imports): as
// an ES module it loaded Node's ES module loader before serve's first spawn. Outside dist/serve/,
// which only serve loads.
await build({ ...common, entryPoints: ['src/cli/serve-options.ts'], outfile: 'dist/cli/serve-options.cjs', sourcemap: false });

const fileOf = (path) => relative(root, path).split('\\').join('/');
const importMetaUrl = "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;";

// An entry that exports `file`'s exports and, for the bundles loaded after it, each of `modules` (a getter
// that requires it when read).
const withSharedModules = (file, modules) =>
  [
    `export * from './${file}';`,
    'export const sharedModules = {};',
    ...modules.map((module) => `Object.defineProperty(sharedModules, ${JSON.stringify(module)}, { enumerable: true, get: () => require(${JSON.stringify(`./${module}`)}) });`),
  ].join('\n');

// A plugin that takes each of `shared` (our modules, by path) from an earlier bundle's `sharedModules`,
// its exports bound to constants by name (`exportsByFile`).
const sharedFrom = (name, earlier, shared, exportsByFile) => ({
  name,
  setup(context) {
    context.onResolve({ filter: /^\./ }, async (args) => {
      if (args.namespace !== 'file' || args.pluginData?.inner) return undefined;
      const resolved = await context.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { inner: true } });
      const file = fileOf(resolved.path);
      return shared.has(file) ? { path: file, namespace: name } : resolved.errors.length ? undefined : { path: resolved.path, namespace: resolved.namespace, external: resolved.external, sideEffects: resolved.sideEffects };
    });
    context.onLoad({ filter: /.*/, namespace: name }, (args) => ({
      contents: `export const { ${exportsByFile.get(args.path).join(', ')} } = require('./${earlier}').sharedModules[${JSON.stringify(args.path)}];`,
      loader: 'js',
    }));
  },
});

// boot.cjs: first to learn which of our modules it holds, then with an entry that also exports them.
const bootEntry = 'src/cli/serve-boot.ts';
const bootProbe = await build({ ...common, entryPoints: [bootEntry], write: false, outfile: 'dist/serve/boot.cjs', metafile: true });
const bootShared = Object.keys(bootProbe.metafile.inputs).filter((file) => file.startsWith('src/'));
await build({
  ...common,
  stdin: { contents: withSharedModules(bootEntry, bootShared), resolveDir: root, sourcefile: 'boot-entry.js', loader: 'js' },
  outfile: 'dist/serve/boot.cjs',
  // cross-spawn (with which, isexe, path-key, shebang-command: ~12 KB) runs on Windows only
  // (child-transport.ts), where Node's loader finds it in node_modules at the first spawn; bundled,
  // V8 pre-parsed its text at every start, before the first spawn (docs/performance.md, "Round 24: start").
  external: [...common.external, 'cross-spawn'],
  banner: { js: `"use strict";${importMetaUrl}` },
});
const bootExports = new Map(await Promise.all(bootShared.map(async (file) => [file, await exportsOf(file)])));

// serve.cjs, first to learn which of our modules it holds (boot's among them), then with an entry that also exports them.
// Each is required when the gateway bundle reads it, not imported by the entry: serve.ts imports the
// logger, the code-cache loader and the config watcher only after it has spawned the servers, and an
// import here would evaluate them (pino among them) before (docs/performance.md, "Round 11: the first list").
const serveEntry = 'src/cli/serve.ts';
const probe = await build({ ...common, entryPoints: [serveEntry], write: false, outfile: 'dist/serve/serve.cjs', metafile: true });
// boot's modules too: the gateway takes them through serve.cjs, which takes them from boot.cjs.
const shared = [...new Set([...bootShared, ...Object.keys(probe.metafile.inputs).filter((file) => file.startsWith('src/'))])];
// One function expression with CommonJS's parameters, as gateway.cjs: boot.cjs compiles it (src/cli/code-cache.ts).
await build({
  ...common,
  stdin: { contents: withSharedModules(serveEntry, shared), resolveDir: root, sourcefile: 'serve-entry.js', loader: 'js' },
  outfile: 'dist/serve/serve.cjs',
  external: [...common.external, './boot.cjs'],
  plugins: [...common.plugins, sharedFrom('shared-with-boot', 'boot.cjs', new Set(bootShared), bootExports)],
  banner: { js: `(function (exports, require, module, __filename, __dirname) {"use strict";${importMetaUrl}` },
  footer: { js: '})' },
});

// gateway.cjs: one function expression with CommonJS's parameters, which serve.ts compiles and
// calls (src/cli/code-cache.ts): wrapping the text at run time copied all of it (~1.3 MiB resident).
const sharedSet = new Set(shared);
// A shared module's exports, by name: the gateway bundle binds each to a constant of its own. As a
// CommonJS module it was read through esbuild's __toESM, a getter per export whose `from[key]` is
// one keyed load for every name of every module (megamorphic), on every use: ~1% of the gateway's
// CPU per call (docs/performance.md, "Round 9: the warm path"). None of them exports a binding that changes.
const sharedExports = new Map(await Promise.all(shared.map(async (file) => [file, await exportsOf(file)])));

// The shell model: which of the gateway's modules it imports (each given to it by the gateway), and
// what its entry exports. Only its entry may be imported from outside it, and it imports no package
// but web-tree-sitter: anything else would be a second copy of a module the gateway also holds.
const SHELL_DIR = 'src/subjects/shell/';
const SHELL_ENTRY = `${SHELL_DIR}index.ts`;
const inShell = (file) => file.startsWith(SHELL_DIR);
const gatewayModules = new Set();
const shellProbe = await build({
  ...common,
  entryPoints: [SHELL_ENTRY],
  format: 'esm',
  write: false,
  metafile: true,
  outfile: 'dist/serve/shell.js',
  plugins: [
    ...common.plugins,
    {
      name: 'gateway-modules',
      setup(context) {
        context.onResolve({ filter: /^\./ }, async (args) => {
          if (args.pluginData?.inner) return undefined;
          const resolved = await context.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { inner: true } });
          const file = fileOf(resolved.path);
          if (inShell(file) || resolved.errors.length) return undefined;
          gatewayModules.add(file);
          return { path: file, external: true };
        });
      },
    },
  ],
});
const shellInputs = Object.keys(shellProbe.metafile.inputs).filter((file) => !inShell(file));
if (shellInputs.length) throw new Error(`the shell model (${SHELL_DIR}) may import only the gateway's own modules and web-tree-sitter, not ${shellInputs.join(', ')}`);
const shellExports = Object.values(shellProbe.metafile.outputs).find((output) => output.entryPoint === SHELL_ENTRY).exports;
const gatewayExports = new Map(await Promise.all([...gatewayModules].map(async (file) => [file, await exportsOf(file)])));

// A module's exports, by name (esbuild reads them from the source, without bundling).
async function exportsOf(file) {
  const { metafile } = await build({ absWorkingDir: root, entryPoints: [file], bundle: false, format: 'esm', platform: 'node', write: false, metafile: true, outdir: 'unused', logLevel: 'warning' });
  return Object.values(metafile.outputs)[0].exports;
}

await build({
  ...common,
  entryPoints: ['src/cli/serve-gateway.ts'],
  outfile: 'dist/serve/gateway.cjs',
  external: [...common.external, './serve.cjs', './shell.cjs'],
  banner: { js: `(function (exports, require, module, __filename, __dirname) {"use strict";${importMetaUrl}` },
  footer: { js: '})' },
  plugins: [
    ...common.plugins,
    {
      // The shell model's entry is a module whose functions load shell.cjs at their first call and
      // are then the model's own (live bindings: later calls go straight to them).
      name: 'shell-model',
      setup(context) {
        context.onResolve({ filter: /^\./ }, async (args) => {
          if (args.pluginData?.inner) return undefined;
          const resolved = await context.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { inner: true } });
          const file = fileOf(resolved.path);
          if (file === SHELL_ENTRY) return { path: file, namespace: 'shell-model' };
          if (inShell(file)) return { errors: [{ text: `import the shell model through ${SHELL_ENTRY}, not ${file} (scripts/bundle.js)` }] };
          return undefined;
        });
        context.onLoad({ filter: /.*/, namespace: 'shell-model' }, () => {
          const modules = [...gatewayModules];
          return {
            contents: [
              ...modules.map((file, index) => `import * as m${index} from './${file}';`),
              // Compiled with V8's code cache as gateway.cjs is (src/cli/code-cache.ts), its own file.
              `import { loadBundle } from './src/cli/code-cache.ts';`,
              'let model = null;',
              'function load() {',
              `  model ??= loadBundle(require('node:path').join(__dirname, 'shell.cjs')).exports({ ${modules.map((file, index) => `${JSON.stringify(file)}: m${index}`).join(', ')} });`,
              `  ({ ${shellExports.join(', ')} } = model);`,
              '}',
              ...shellExports.map((name) => `export let ${name} = (...args) => (load(), ${name}(...args));`),
            ].join('\n'),
            resolveDir: root,
            loader: 'js',
          };
        });
      },
    },
    {
      name: 'shared-with-serve',
      setup(context) {
        context.onResolve({ filter: /^\./ }, async (args) => {
          if ((args.namespace !== 'file' && args.namespace !== 'shell-model') || args.pluginData?.inner) return undefined;
          const resolved = await context.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { inner: true } });
          const file = fileOf(resolved.path);
          return sharedSet.has(file) ? { path: file, namespace: 'shared' } : resolved.errors.length ? undefined : { path: resolved.path, namespace: resolved.namespace, external: resolved.external, sideEffects: resolved.sideEffects };
        });
        context.onLoad({ filter: /.*/, namespace: 'shared' }, (args) => ({
          contents: `export const { ${sharedExports.get(args.path).join(', ')} } = require('./serve.cjs').sharedModules[${JSON.stringify(args.path)}];`,
          loader: 'js',
        }));
      },
    },
  ],
});

// shell.cjs: a function of the gateway's modules, which returns the model's exports (the gateway
// calls it once). The file is one function expression with CommonJS's parameters, as gateway.cjs,
// which the gateway compiles with V8's code cache (src/cli/code-cache.ts). Each of those modules'
// exports is bound to a constant once, as the gateway binds serve's (none changes).
await build({
  ...common,
  entryPoints: [SHELL_ENTRY],
  outfile: 'dist/serve/shell.cjs',
  banner: { js: `(function (exports, require, module, __filename, __dirname) {"use strict";${importMetaUrl}module.exports = (gatewayModules) => {const module = { exports: {} };` },
  footer: { js: 'return module.exports;};})' },
  plugins: [
    ...common.plugins,
    {
      name: 'from-the-gateway',
      setup(context) {
        context.onResolve({ filter: /^\./ }, async (args) => {
          if (args.namespace !== 'file' || args.pluginData?.inner) return undefined;
          const resolved = await context.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { inner: true } });
          const file = fileOf(resolved.path);
          return gatewayModules.has(file) ? { path: file, namespace: 'gateway' } : undefined;
        });
        context.onLoad({ filter: /.*/, namespace: 'gateway' }, (args) => ({
          contents: `export const { ${gatewayExports.get(args.path).join(', ')} } = gatewayModules[${JSON.stringify(args.path)}];`,
          loader: 'js',
        }));
      },
    },
  ],
});

// The gateway reads its bundles as latin1 (src/cli/code-cache.ts): a character past ASCII left in one
// would be read as two or three others. esbuild's charset 'ascii' escapes strings, not a regular
// expression's characters (round 33: `/[^\u0000-\u007e…]/u` in log.ts matched `…` in the bundle).
for (const file of ['dist/serve/boot.cjs', 'dist/serve/serve.cjs', 'dist/serve/gateway.cjs', 'dist/serve/shell.cjs']) {
  const at = readFileSync(file).findIndex((byte) => byte > 0x7f);
  if (at !== -1) throw new Error(`${file}: a byte past ASCII at ${at}; write the source's character as an escape (\\uXXXX)`);
}
