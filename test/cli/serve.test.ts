import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { serveOptions } from '../../src/cli/serve-options.js';
import { readEarlyConfig } from '../../src/config/early.js';
import { BIN, EVERYTHING_SERVER, eventually, isAlive, startGateway, tempDir, writeConfig } from '../helpers/gateway.js';

describe('a plain serve command line skips the command-line library', () => {
  test('the forms clients write are read directly', () => {
    expect(serveOptions([])).toEqual({});
    expect(serveOptions(['serve'])).toEqual({});
    expect(serveOptions(['serve', '--config', 'a.json'])).toEqual({ config: 'a.json' });
    expect(serveOptions(['--config=a.json', 'serve'])).toEqual({ config: 'a.json' });
    expect(serveOptions(['serve', '-c', 'a.json', '--log-level', 'debug'])).toEqual({ config: 'a.json', logLevel: 'debug' });
    // What init --wrap writes into a client file.
    expect(serveOptions(['serve', '--config', 'a.json', '--scope', 'cursor-project:/home/me/app'])).toEqual({ config: 'a.json', scope: 'cursor-project:/home/me/app' });
  });

  test('with --scope, only that scope\'s servers start early; a scope the early read cannot find starts none', () => {
    const dir = tempDir();
    const path = writeConfig(dir, { mcpServers: { a: { command: 'a' }, b: { command: 'b', envFile: 'x.env' } }, scopes: { one: { servers: ['a'] } } });
    expect(Object.keys(readEarlyConfig(path, {}).servers)).toEqual(['a']);
    expect(Object.keys(readEarlyConfig(path, {}, 'one').servers)).toEqual(['a']);
    expect(Object.keys(readEarlyConfig(path, {}, 'missing').servers)).toEqual([]);
  });

  test('anything else goes to the full command line: help, other commands, mistakes', () => {
    for (const argv of [['--help'], ['serve', '--help'], ['-h'], ['--version'], ['validate'], ['serve', 'serve'], ['serve', '--config'], ['serve', '--log-level', 'loud'], ['serve', '--config', 'a', '--config', 'b'], ['serve', '--unknown', 'x']]) {
      expect(serveOptions(argv), argv.join(' ')).toBeNull();
    }
  });
});

describe('only serve loads the serve bundle', () => {
  // Records, in the process itself, every file under dist/serve/ that it reads, opens or requires.
  const PROBE = `const fs = require('node:fs'); const Module = require('node:module'); const seen = new Set();
    const readFileSync = fs.readFileSync;
    fs.readFileSync = function (path, ...rest) { if (typeof path === 'string' && path.includes('/dist/serve/')) seen.add(path); return readFileSync.call(this, path, ...rest); };
    const openSync = fs.openSync; // code-cache.ts reads the bundles with openSync and readSync (file-pages.ts)
    fs.openSync = function (path, ...rest) { if (typeof path === 'string' && path.includes('/dist/serve/')) seen.add(path); return openSync.call(this, path, ...rest); };
    process.on('exit', () => { for (const file of Object.keys(Module._cache)) if (file.includes('/dist/serve/')) seen.add(file);
      fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify([...seen].map((file) => file.slice(file.indexOf('/dist/serve/') + 1)))); });`;

  function bundlesLoaded(dir: string, args: string[]): { files: string[]; status: number | null; output: string } {
    const probe = join(dir, 'probe.cjs');
    const out = join(dir, 'probe.json');
    writeFileSync(probe, PROBE);
    const run = spawnSync(process.execPath, ['--require', probe, BIN, ...args], { encoding: 'utf8', input: '', env: { ...process.env, PROBE_OUT: out, XDG_CACHE_HOME: join(dir, 'cache') } });
    return { files: JSON.parse(readFileSync(out, 'utf8')) as string[], status: run.status, output: run.stdout + run.stderr };
  }

  test('other commands and help do not load it; serve does', () => {
    const dir = tempDir();
    // Valid for the early read, refused by the full check: serve loads its bundle, then exits 1.
    const config = writeConfig(dir, { permissions: { allow: ['Bash(a * b)'] } });
    for (const args of [['validate', '--config', config], ['--help'], ['serve', '--help'], ['--version']]) {
      const { files, output } = bundlesLoaded(dir, args);
      expect(output, args.join(' ')).not.toBe('');
      expect(files, args.join(' ')).toEqual([]);
    }
    const validate = bundlesLoaded(dir, ['validate', '--config', config]);
    expect(validate.status).toBe(1);
    expect(validate.output).toContain('invalid rule "Bash(a * b)"');

    const serve = bundlesLoaded(dir, ['serve', '--config', config]);
    expect(serve.status).toBe(1);
    expect(serve.output).toContain('invalid rule "Bash(a * b)"');
    expect(serve.files).toEqual(expect.arrayContaining(['dist/serve/serve.cjs', 'dist/serve/gateway.cjs']));
  });
});

describe('what serve does before its first spawn', () => {
  // Records, in the process itself, the builtin modules loaded when the first server is spawned.
  const PROBE = `const cp = require('node:child_process'); const fs = require('node:fs'); const spawn = cp.spawn; let first = true;
    cp.spawn = function (...args) { if (first) { first = false; fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify(process.moduleLoadList)); } return spawn.apply(this, args); };`;

  test('it reads the config and spawns: the logger, the code-cache loader and the gateway come after', () => {
    const dir = tempDir();
    const probe = join(dir, 'probe.cjs');
    const out = join(dir, 'probe.json');
    writeFileSync(probe, PROBE);
    const config = writeConfig(dir, { mcpServers: { early: { command: '/bin/sh', args: ['-c', 'exit 0'] } }, permissions: { allow: ['Bash(a * b)'] } });
    const run = spawnSync(process.execPath, ['--require', probe, BIN, 'serve', '--config', config], { encoding: 'utf8', input: '', env: { ...process.env, PROBE_OUT: out, XDG_CACHE_HOME: join(dir, 'cache') } });
    // Spawned from the early read; the full check then refuses the rule.
    expect(run.stderr).toContain('invalid rule "Bash(a * b)"');
    const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
    expect(loaded).toContain('NativeModule child_process');
    // The CPU before the first spawn is the one no server's boot overlaps (docs/performance.md,
    // "Round 11: the first list"): pino (its sonic-boom loads assert), the code cache's vm and zlib,
    // node:v8 (serve sets its V8 flags after the spawns, "Round 24: start").
    for (const later of ['NativeModule assert', 'NativeModule vm', 'NativeModule zlib', 'NativeModule v8']) expect(loaded).not.toContain(later);
    // No ES module either: Node's ES module loader (module jobs, its fs/promises) cost ~5 ms of CPU
    // before the first spawn (bin/ is CommonJS; "Round 15: the ten-server start"). Node 24 loads its
    // module jobs and translators at its own start, for any CommonJS main (require of ES modules):
    // what an empty CommonJS main loads on this Node is not the gateway's.
    const bare = join(dir, 'bare.cjs');
    writeFileSync(bare, `require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify(process.moduleLoadList));`);
    spawnSync(process.execPath, [bare], { env: { ...process.env, PROBE_OUT: join(dir, 'bare.json') } });
    const node = JSON.parse(readFileSync(join(dir, 'bare.json'), 'utf8')) as string[];
    const esm = ['NativeModule internal/modules/esm/module_job', 'NativeModule internal/modules/esm/translators', 'NativeModule fs/promises'];
    expect(loaded.filter((entry) => esm.includes(entry) && !node.includes(entry))).toEqual([]);
    // Node 20 and 22 load none of them for a CommonJS main.
    if (/^v2[02]\./.test(process.version)) expect(node.filter((entry) => esm.includes(entry))).toEqual([]);
  });
});

describe('what serve compiles before its first spawn', () => {
  test('boot.cjs holds neither zod, the SDK’s schemas nor node:crypto', () => {
    // V8 pre-parses all of boot.cjs and runs it before the first spawn: child-transport.ts took the
    // gateway's own answers from remote-bounds.ts, and with it zod, the SDK's types.js and node:crypto,
    // 53 -> 248 KB and ~19 ms more CPU before the first spawn (docs/performance.md, "Round 25: ten servers").
    const text = readFileSync(join(BIN, '../../dist/serve/boot.cjs'), 'latin1');
    expect(text).not.toContain('require("node:crypto")');
    expect(text).not.toContain('$ZodType');
    expect(text).not.toContain('JSONRPCResultResponseSchema');
    // 100 KiB: 99,954 characters at round 32's end, 100,465 with round 33's recognisers and the
    // look-alike marker's hook (its table and code stay out: latch/escape.ts useLookAlikeMarker).
    expect(text.length).toBeLessThan(102_400);
  });

  test('cross-spawn (Windows only) is not in boot.cjs, and its package is found from there', () => {
    // V8 pre-parses all of boot.cjs before the first spawn; cross-spawn and its four packages
    // (~12 KB of its 60) run on Windows only (docs/performance.md, "Round 24: start").
    const boot = join(BIN, '../../dist/serve/boot.cjs');
    const text = readFileSync(boot, 'latin1');
    expect(text).not.toContain('node_modules/cross-spawn/');
    expect(text).not.toContain('node_modules/which/');
    expect(text).toContain('require("cross-spawn")');
    // Node's loader finds it from the bundle's place, as it does on Windows at the first spawn.
    expect(typeof createRequire(boot)('cross-spawn')).toBe('function');
  });
});

describe('what serve makes before its first spawn', () => {
  // Notes each regular expression with a Unicode property made through the constructor (the
  // bundles' form of them: esbuild writes \\p{...} patterns as new RegExp), and whether the first
  // server was spawned by then.
  const PROBE = `function seen() {}
    const cp = require('node:child_process'); const spawn = cp.spawn; let spawned = false; const made = [];
    cp.spawn = function (...args) { spawned = true; return spawn.apply(this, args); };
    const Original = RegExp;
    globalThis.RegExp = new Proxy(Original, { construct(target, args, newTarget) {
      if (String(args[0]).includes('\\\\p{')) { made.push({ spawned, pattern: String(args[0]) }); fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify(made)); }
      return Reflect.construct(target, args, newTarget === globalThis.RegExp ? target : newTarget);
    } });`;

  test("no regular expression with a Unicode property: the process's first costs ~0.5 ms of CPU that no server's boot overlaps", async () => {
    const made = await listedWithProbe(PROBE, 1, (out) => JSON.parse(readFileSync(out, 'utf8')) as Array<{ spawned: boolean; pattern: string }>);
    expect(made.filter((entry) => !entry.spawned)).toEqual([]);
    // The probe sees them: the listing's text is escaped after the spawn (listed-text.ts).
    expect(made.some((entry) => entry.pattern.includes('Default_Ignorable_Code_Point'))).toBe(true);
  });
});

describe("Node's own modules before the first list", () => {
  // Notes each of Node's modules loaded while a V8 flag is not at its default (a model of the flags
  // serve sets, from its setFlagsFromString calls), up to the first tools/list's write. Loads
  // nothing itself but node:v8 (bin/ loads it first anyway) and net when the gateway does.
  const PROBE = `const fs = require('node:fs'); const v8 = require('node:v8');
    const DEFAULTS = { 'semi-space-growth-factor': '2', 'heap-growing-percent': '0', 'max-inlined-bytecode-size-cumulative': '920', 'liftoff-only': 'false', 'wasm-tier-up': 'true', 'wasm-dynamic-tiering': 'true', 'max-opt': '999', turbofan: 'true', 'interrupt-budget': '67584' };
    const flags = {}; const flagged = []; let from = process.moduleLoadList.length; let done = false;
    function account() {
      const now = process.moduleLoadList.length;
      if (Object.entries(flags).some(([name, value]) => DEFAULTS[name] !== value)) flagged.push(...process.moduleLoadList.slice(from, now).filter((entry) => entry.startsWith('NativeModule ')));
      from = now;
    }
    const set = v8.setFlagsFromString;
    v8.setFlagsFromString = (text) => {
      account();
      for (const token of text.split(' ').filter(Boolean)) { const [, no, name, value] = /^--(no-)?([^=]+)(?:=(.*))?$/.exec(token); flags[name] = value ?? (no ? 'false' : 'true'); }
      return set(text);
    };
    function seen(data, offset, length) {
      if (done) return;
      const text = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1', offset ?? 0, (offset ?? 0) + (length ?? data.byteLength));
      if (!text.includes('"tools":[')) return;
      done = true;
      account();
      fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify({ flagged, loaded: process.moduleLoadList }));
    }
    const writeSync = fs.writeSync; fs.writeSync = function (fd, data, ...rest) { if (data instanceof Uint8Array || typeof data === 'string') seen(data, rest[0], rest[1]); return writeSync.call(this, fd, data, ...rest); };
    const load = module.constructor._load; let netPatched = false;
    module.constructor._load = function (request, ...rest) {
      const loaded = load.call(this, request, ...rest);
      if (!netPatched && (request === 'net' || request === 'node:net')) { netPatched = true; const write = loaded.Socket.prototype.write; loaded.Socket.prototype.write = function (data, ...more) { if (typeof data === 'string' || data instanceof Uint8Array) seen(data); return write.call(this, data, ...more); }; }
      return loaded;
    };`;

  test("none is loaded under serve's V8 flags: Node's code cache for them is then refused, and each is compiled from its source", async () => {
    const dir = tempDir();
    const file = join(dir, 'probe.cjs');
    const out = join(dir, 'probe.out');
    writeFileSync(file, PROBE);
    const everything = { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] };
    const config = { mcpServers: { s0: everything, s1: everything } };
    // A start as nearly every one is: its code caches and notes made by an earlier start (a first
    // start also compiles the listed outputSchemas, and loads node:crypto, before its list).
    const cache = join(dir, 'cache');
    const first = await startGateway(config, { dir, nodeArgs: ['--require', file], env: { PROBE_OUT: join(dir, 'first.out'), XDG_CACHE_HOME: cache } });
    try {
      await first.client.listTools();
      await eventually(() => expect(readdirSync(join(cache, 'mcp-latch')).filter((name) => name.startsWith('serve-gateway-') && name.endsWith('.v8cache'))).toHaveLength(1));
    } finally {
      await first.close();
    }
    const harness = await startGateway(config, { dir, nodeArgs: ['--require', file], env: { PROBE_OUT: out, XDG_CACHE_HOME: cache } });
    try {
      expect((await harness.client.listTools()).tools.length).toBeGreaterThan(0);
      const { flagged, loaded } = JSON.parse(readFileSync(out, 'utf8')) as { flagged: string[]; loaded: string[] };
      // The spawns' modules, the code-cache loader's and the gateway's: ~6.5 ms of CPU more at every
      // start compiled from source, ~3 ms of it before the first spawn (docs/performance.md, "Round 24: start").
      for (const module of ['child_process', 'net', 'os', 'module', 'vm', 'zlib', 'fs/promises']) expect(loaded).toContain(`NativeModule ${module}`);
      expect(flagged).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});

describe('what serve loads before its first list', () => {
  // Notes Node's modules loaded when the gateway writes its first tools/list answer.
  const PROBE = `function seen(data) {
      if (String(data).includes('"tools":[') && !fs.existsSync(process.env.PROBE_OUT)) fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify(process.moduleLoadList));
    }`;

  test("node's BlockList is not loaded: url-host.ts's address blocks are made at the first URL-mode question, not beside the booting servers", async () => {
    const loaded = await listedWithProbe(PROBE, 1, (out) => JSON.parse(readFileSync(out, 'utf8')) as string[]);
    expect(loaded).toContain('NativeModule child_process');
    // 23 lists made when the gateway's bundle was evaluated cost ~0.7 ms of CPU at every start (docs/performance.md, "Round 23: start").
    expect(loaded).not.toContain('NativeModule internal/blocklist');
  });
});

describe('servers started before the config is fully checked', () => {
  test('a config the full check refuses stops the servers it started and reports every problem', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'server.pid');
    // A server that writes its pid at once and ignores stdin: it only goes if the gateway stops it.
    const server = { command: '/bin/sh', args: ['-c', `echo $$ > ${pidFile}; exec sleep 120`] };
    // The rule is wrong: only the full check (after the servers are spawned) finds it.
    const config = writeConfig(dir, { mcpServers: { early: server }, permissions: { allow: ['Bash(a * b)'] } });
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code).toBe(1);
    expect(stderr).toContain(`invalid config ${config}`);
    expect(stderr).toContain('permissions.allow[0]: invalid rule "Bash(a * b)"');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await eventually(() => expect(isAlive(pid)).toBe(false), 15_000);
  });
});

/** A --require probe's first part: `seen(text)`, which the probe defines, gets everything the gateway writes to a pipe or a descriptor (a socket's write, fs.writeSync, or a pipe handle's writeUtf8String, where downstream/pipes.ts hands short texts). */
const WRITES = `const fs = require('node:fs'); const net = require('node:net');
  const write = net.Socket.prototype.write; net.Socket.prototype.write = function (data, ...rest) { seen(data); return write.call(this, data, ...rest); };
  const writeSync = fs.writeSync; fs.writeSync = function (fd, data, ...rest) { seen(data); return writeSync.call(this, fd, data, ...rest); };
      let streamWrap = process.binding('pipe_wrap').Pipe.prototype; while (!Object.prototype.hasOwnProperty.call(streamWrap, 'writeUtf8String')) streamWrap = Object.getPrototypeOf(streamWrap); const writeUtf8 = streamWrap.writeUtf8String; streamWrap.writeUtf8String = function (request, data) { seen(data); return writeUtf8.call(this, request, data); };`;

/** The gateway in front of `servers` server-everything, run with `probe` (after WRITES), its tools listed; `check` reads what the probe wrote to PROBE_OUT. */
async function listedWithProbe<T>(probe: string, servers: number, check: (out: string) => T | Promise<T>, call?: { name: string; arguments: Record<string, unknown> }): Promise<T> {
  const dir = tempDir();
  const file = join(dir, 'probe.cjs');
  const out = join(dir, 'probe.out');
  writeFileSync(file, `${WRITES}\n${probe}`);
  const everything = { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] };
  const mcpServers = Object.fromEntries(Array.from({ length: servers }, (_, index) => [`s${index}`, everything]));
  const harness = await startGateway({ mcpServers }, { dir, nodeArgs: ['--require', file], env: { PROBE_OUT: out } });
  try {
    expect((await harness.client.listTools()).tools.length).toBeGreaterThan(0);
    if (call) await harness.client.callTool(call);
    return await check(out);
  } finally {
    await harness.close();
  }
}

describe('TurboFan during the start', () => {
  // Records the V8 flags serve sets and the tools/list requests it writes to its servers.
  const PROBE = `const v8 = require('node:v8');
    const set = v8.setFlagsFromString; v8.setFlagsFromString = (flag) => { fs.appendFileSync(process.env.PROBE_OUT, 'flag ' + flag + '\\n'); return set(flag); };
    function seen(data) {
      const text = String(data);
      if (text.includes('"method":"tools/list"')) fs.appendFileSync(process.env.PROBE_OUT, 'server list\\n');
      if (text.includes('"result":{"content"')) fs.appendFileSync(process.env.PROBE_OUT, 'call answered\\n');
    }`;

  test('is turned on once the first call is answered, not before the servers are listed nor at the list', async () => {
    // TurboFan's compiles of the listings' parsers ran on V8's worker threads while ten servers
    // booted (docs/performance.md, "Round 15: the ten-server start"), and, turned on at the first
    // list, inside the client's first command ("Round 19: start").
    const events = await listedWithProbe(
      PROBE,
      2,
      (out) =>
        eventually(() => {
          const lines = readFileSync(out, 'utf8').split('\n');
          // Past the call's answer.
          expect(lines).toContain('call answered');
          expect(lines.slice(lines.indexOf('call answered') + 1).some((line) => line.startsWith('flag ') && line.includes('--max-opt=999'))).toBe(true);
          return lines;
        }),
      { name: 's0__echo', arguments: { message: 'x' } },
    );
    // The state each flag line leaves (the caches are made under the start-up's flags: v8-flags.ts underCacheFlags).
    const flags = events.map((line, index) => ({ line, index })).filter(({ line }) => line.startsWith('flag ') && line.includes('--max-opt='));
    const stateAt = (index: number) => flags.filter((flag) => flag.index < index).at(-1)?.line.split(' ').find((word) => word.startsWith('--max-opt='));
    expect(stateAt(events.indexOf('server list'))).toBe('--max-opt=2');
    expect(stateAt(events.indexOf('call answered'))).toBe('--max-opt=2');
    expect(stateAt(events.length)).toBe('--max-opt=999');
    expect(flags.at(-1)!.index).toBeGreaterThan(events.indexOf('call answered'));
  }, 60_000);
});

describe('what serve loads by its first list', () => {
  // Records Node's modules loaded when the first tools/list answer is written.
  const PROBE = `let done = false;
    function seen(data) { if (!done && String(data).includes('"tools":[')) { done = true; fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify(process.moduleLoadList)); } }`;

  test('not node:assert: sonic-boom, pino\'s destination, is bundled with its one check written out', async () => {
    const loaded = await listedWithProbe(PROBE, 1, (out) => JSON.parse(readFileSync(out, 'utf8')) as string[]);
    expect(loaded).toContain('NativeModule child_process');
    expect(loaded).not.toContain('NativeModule assert');
  }, 60_000);
});

describe("the SDK's schemas by the first list", () => {
  // Notes the text of each literal schema zod makes, up to the first tools/list's write (zod defines
  // each schema's internals, `_zod`, with Object.defineProperty).
  const PROBE = `const made = new Set(); let done = false; const define = Object.defineProperty;
    Object.defineProperty = function (target, key, descriptor) {
      const def = key === '_zod' ? descriptor?.value?.def : undefined;
      if (!done && def?.type === 'literal') for (const value of def.values ?? []) if (typeof value === 'string') made.add(value);
      return define(target, key, descriptor);
    };
    function seen(data) { if (!done && String(data).includes('"tools":[')) { done = true; fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify([...made])); } }`;

  test('only those of the messages a start reads are made: the SDK made its ~750 when the bundle was evaluated, ~12 ms of CPU beside the booting servers', async () => {
    // The serve bundle's copy of the SDK's types.js makes each schema at its first use
    // (scripts/lazy-schemas.js, src/lazy-schema.ts; docs/performance.md, "Round 26: the ten-server start").
    const made = await listedWithProbe(PROBE, 1, (out) => JSON.parse(readFileSync(out, 'utf8')) as string[]);
    // The probe sees them: the client's and the server's handshake and the lists.
    expect(made).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'notifications/initialized']));
    // Requests no start sends or reads: a call, the tasks API, a server's sampling request (with tools).
    for (const method of ['tools/call', 'tasks/get', 'tasks/result', 'sampling/createMessage']) expect(made).not.toContain(method);
  }, 60_000);
});

describe('what serve leaves until its first list is answered', () => {
  // Records the first tools/list answer and every path the process resolves with realpathSync.native.
  const PROBE = `const realpath = fs.realpathSync.native;
    fs.realpathSync.native = function (path, ...rest) { fs.appendFileSync(process.env.PROBE_OUT, 'realpath ' + path + '\\n'); return realpath.call(this, path, ...rest); };
    function seen(data) { if (String(data).includes('"tools":[')) fs.appendFileSync(process.env.PROBE_OUT, 'list\\n'); }`;

  test('the rules: the built-in protections resolve the audit file after the list, not while the servers boot', async () => {
    // With ten servers booting on two cores, the policy's build (~4 ms of CPU, these realpaths
    // among it) was taken from them before the first list; it is built once the list is answered,
    // or by a call that comes first (docs/performance.md, "Round 18: start").
    const lines = await listedWithProbe(PROBE, 1, (out) =>
      eventually(() => {
        const lines = readFileSync(out, 'utf8').split('\n');
        expect(lines.some((line) => line.startsWith('realpath ') && line.endsWith('audit.jsonl'))).toBe(true);
        return lines;
      }),
    );
    const listed = lines.indexOf('list');
    expect(listed).toBeGreaterThanOrEqual(0);
    expect(lines.findIndex((line) => line.startsWith('realpath ') && line.endsWith('audit.jsonl'))).toBeGreaterThan(listed);
  }, 60_000);
});
