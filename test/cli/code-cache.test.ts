import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { COMMANDS_SERVER, EVERYTHING_SERVER, ROOT, eventually, fixtureServer, startGateway, tempDir, textOf } from '../helpers/gateway.js';

/**
 * serve compiles the gateway's bundle with V8's code cache, made after the first tools/list of a start
 * that had none (src/cli/code-cache.ts). Checked on the built gateway: the cache a start writes is
 * the one V8 accepts at the next start (same V8 flags), and a cache that is damaged, refused or
 * in a directory others can write is not used, while the gateway serves all the same.
 */
describe('the serve bundle with its code cache', () => {
  // The gateway's bundle takes the modules it shares with serve from serve's (dist/serve/serve.cjs), which serve-boot.ts loads first.
  const LOAD_SERVE = `loadBundle(${JSON.stringify(join(ROOT, 'dist/serve/serve.cjs'))}, process.env, { asModule: true });`;

  /**
   * One start: the code cache's status at load, after a list and a call were served (and a shell
   * command: the grammar is loaded outside the bundle), or a list only; and what the start did with
   * the cache after each (serve's log).
   */
  async function serveOnce(dir: string, cacheHome: string, options: { shell?: boolean; call?: boolean } = {}): Promise<string> {
    return (await serveAndSave(dir, cacheHome, options)).status;
  }

  async function serveAndSave(dir: string, cacheHome: string, { shell = false, call = true } = {}): Promise<{ status: string; saved: string[] }> {
    const servers = { fix: fixtureServer('fix', join(dir, 'log')), ...(shell ? { shell: { command: process.execPath, args: [COMMANDS_SERVER] } } : {}) };
    const gateway = await startGateway({ mcpServers: servers, workspace: [dir], permissions: { allow: ['mcp__fix__echo', 'Bash(echo *)'] } }, { dir, env: { XDG_CACHE_HOME: cacheHome } });
    try {
      expect((await gateway.client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      if (call) expect(textOf(await gateway.client.callTool({ name: 'fix__echo', arguments: { text: 'hello' } }))).toContain('hello');
      // Allowed only when the grammar loaded: without it every command asks (and is denied here).
      if (shell) expect(textOf(await gateway.client.callTool({ name: 'shell__run_command', arguments: { command: 'echo from-the-shell', workdir: dir } }))).toContain('from-the-shell');
      return await eventually(() => {
        const status = /"codeCache":"([a-z-]+)"/.exec(gateway.stderr())?.[1];
        if (!status) throw new Error(`no code cache status in the gateway's log yet:\n${gateway.stderr()}`);
        // One line after the first list, one after the first call; each for the shell model's bundle too.
        // The gateway's and the shell model's (serve's own is checked on its own, below).
        const saved = [...gateway.stderr().matchAll(/"file":"[^"]*\/serve-(?:gateway|shell)-[^"]*","msg":"code cache ([^"]*)"/g)].map((match) => match[1]!.replace(/ to .*/, ''));
        if (saved.length < (call ? 2 : 1) * (shell ? 2 : 1)) throw new Error(`the code cache not saved yet:\n${gateway.stderr()}`);
        // After the first call's save, serve lowers V8's interrupt budget (v8-flags.ts): every next start here runs after one that did.
        if (call && !gateway.stderr().includes('"msg":"serving flags set"')) throw new Error(`the serving flags not set yet:\n${gateway.stderr()}`);
        return { status, saved };
      });
    } finally {
      await gateway.close();
    }
  }

  /** The cache file once a start has written it (it is written after the first list, and again after the first call). */
  function cacheFile(cacheHome: string, unlike?: Buffer): Promise<string> {
    return eventually(() => {
      const names = readdirSync(join(cacheHome, 'mcp-latch')).filter((name) => name.startsWith('serve-gateway-') && name.endsWith('.v8cache'));
      expect(names).toHaveLength(1);
      const file = join(cacheHome, 'mcp-latch', names[0]!);
      if (unlike) expect(readFileSync(file).equals(unlike)).toBe(false);
      return file;
    }, 30_000);
  }

  test('a start writes the cache after the first list, for the user only; the next start uses it', async () => {
    const dir = tempDir();
    const cacheHome = join(dir, 'cache');
    expect(await serveOnce(dir, cacheHome)).toBe('absent');
    const file = await cacheFile(cacheHome);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(cacheHome, 'mcp-latch')).mode & 0o777).toBe(0o700);

    // V8 accepts it: made under the flags the next start compiles with.
    expect(await serveOnce(dir, cacheHome, { shell: true })).toBe('accepted');
    // The gateway's file kept, and the shell model's bundle's beside it (and serve's own).
    const names = readdirSync(join(cacheHome, 'mcp-latch')).filter((name) => name.endsWith('.v8cache'));
    expect(names).toHaveLength(3);
    expect(names).toContain(file.split('/').pop());
  });

  test("a cache made after the first list only is made again after a start's first call, with the call path's code; then kept", async () => {
    const dir = tempDir();
    const cacheHome = join(dir, 'cache');
    // The byte after the checksum says when the cache was made: 1 after the first list, 2 after the first call.
    expect(await serveAndSave(dir, cacheHome, { call: false })).toEqual({ status: 'absent', saved: ['written'] });
    const file = await cacheFile(cacheHome);
    const afterList = readFileSync(file);
    expect(afterList[4]).toBe(1);
    // Then three zero bytes: V8's data starts 8 bytes in, where V8 reads it without copying it (code-cache.ts).
    expect([...afterList.subarray(5, 8)]).toEqual([0, 0, 0]);

    // A client's first call compiled the call path's functions: the cache is written again, and holds them.
    expect(await serveAndSave(dir, cacheHome)).toEqual({ status: 'accepted', saved: ['not written (accepted, made after the first list)', 'written'] });
    const afterCall = readFileSync(file);
    expect(afterCall[4]).toBe(2);
    expect(afterCall.length).toBeGreaterThan(afterList.length + 10_000);

    // V8 takes it, and it is not written again.
    expect(await serveAndSave(dir, cacheHome)).toEqual({ status: 'accepted', saved: ['not written (accepted, made after the first call)', 'not written (accepted, made after the first call)'] });
    expect(readFileSync(file).equals(afterCall)).toBe(true);

    // A start with no cache that serves a call at once writes both: after the list, then after the call.
    const fresh = join(dir, 'fresh');
    expect(await serveAndSave(dir, fresh)).toEqual({ status: 'absent', saved: ['written', 'written'] });
    await eventually(() => expect(readFileSync(join(fresh, 'mcp-latch', file.split('/').pop()!))[4]).toBe(2));
  });

  test("the shell model's bundle has a cache of its own, made under the V8 flags serve keeps: the next start takes both and writes neither", async () => {
    const dir = tempDir();
    const cacheHome = join(dir, 'cache');
    const first = await serveAndSave(dir, cacheHome, { shell: true });
    expect(first.status).toBe('absent');
    expect(first.saved.filter((outcome) => outcome === 'written')).toHaveLength(4);
    expect(readdirSync(join(cacheHome, 'mcp-latch')).filter((name) => name.endsWith('.v8cache'))).toHaveLength(3);
    // Compiled while serve's start-up flags were set, the shell model's cache was refused and written again at every start.
    const next = await serveAndSave(dir, cacheHome, { shell: true });
    expect(next.status).toBe('accepted');
    expect(next.saved).toEqual(Array(4).fill('not written (accepted, made after the first call)'));
  });

  test('a damaged cache and one V8 refuses are not used: the gateway serves and writes a good one', async () => {
    const dir = tempDir();
    const cacheHome = join(dir, 'cache');
    await serveOnce(dir, cacheHome);
    const file = await cacheFile(cacheHome);

    // One byte changed: the checksum at its start no longer matches, V8 never sees it.
    const damaged = readFileSync(file);
    damaged[damaged.length >> 1]! ^= 0xff;
    writeFileSync(file, damaged);
    expect(await serveOnce(dir, cacheHome)).toBe('damaged');
    await cacheFile(cacheHome, damaged);
    expect(await serveOnce(dir, cacheHome)).toBe('accepted');

    // Intact by its checksum but not a code cache V8 takes (as after an upgrade under the same name).
    const other = randomBytes(4096);
    const check = Buffer.alloc(4);
    check.writeUInt32BE(crc32(other));
    const refused = Buffer.concat([check, other]);
    writeFileSync(file, refused);
    expect(await serveOnce(dir, cacheHome)).toBe('rejected');
    await cacheFile(cacheHome, refused);
    expect(await serveOnce(dir, cacheHome)).toBe('accepted');
  });

  test('with source maps on, stack traces point into src/ (Node loads the bundle itself, without the cache)', () => {
    const dir = tempDir();
    // A TypeError thrown inside the gateway's bundle, from messageBytes given no config.
    const probe = `const { loadBundle } = await import(${JSON.stringify(join(ROOT, 'dist/cli/code-cache.js'))});
      ${LOAD_SERVE}
      const { exports, codeCache } = loadBundle(${JSON.stringify(join(ROOT, 'dist/serve/gateway.cjs'))});
      try { exports.messageBytes({}); } catch (error) { console.log(codeCache.status, error.stack.split('\\n')[1]); }`;
    const run = (flags: string[]) => spawnSync(process.execPath, [...flags, '--input-type=module', '-e', probe], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') } });
    const mapped = run(['--enable-source-maps']);
    expect(mapped.stdout, mapped.stderr).toMatch(/^source-maps .*src\/config\/schema\.ts:\d+/);
    const plain = run([]);
    expect(plain.stdout, plain.stderr).toMatch(/^absent .*dist\/serve\/gateway\.cjs:\d+/);
  });

  test("the bundle's bytes and the cache's are left young: the first young collection after the load frees them", () => {
    const dir = tempDir();
    // Held across the bundle's start-up, they were promoted by its collections and stayed resident
    // (~2 MB) until the first full collection (docs/performance.md, "Round 9: the start-up's buffers").
    const probe = `const { loadBundle } = await import(${JSON.stringify(join(ROOT, 'dist/cli/code-cache.js'))});
      ${LOAD_SERVE}
      const { codeCache } = loadBundle(${JSON.stringify(join(ROOT, 'dist/serve/gateway.cjs'))});
      if (process.argv.includes('save')) console.log(codeCache.save('call'));
      gc({ type: 'minor' });
      gc({ type: 'minor' });
      setTimeout(() => console.log(codeCache.status, process.memoryUsage().arrayBuffers), 50);`;
    const run = (...args: string[]) => spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', probe, '--', ...args], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') } });
    const first = run('save');
    expect(first.stdout, first.stderr).toMatch(/^written to /);
    const next = run();
    const [status, arrayBuffers] = next.stdout.trim().split(' ');
    expect(status, next.stderr).toBe('accepted');
    // The bundle is 1.1 MB and its cache 1.1 MB; what is left is Node's own.
    expect(Number(arrayBuffers)).toBeLessThan(256 * 1024);
  });

  test("a bundle compiled after serve set its serving flags takes the cache of the start's flags, and the cache it makes is taken by the next start", () => {
    const dir = tempDir();
    // serve lowers V8's interrupt budget once the first call is answered (v8-flags.ts); the shell
    // model's bundle may load later (a shell tool listed after it), and any flag not at its default
    // changes V8's flag hash, under which a cache is refused and made.
    const probe = `const { loadBundle } = await import(${JSON.stringify(join(ROOT, 'dist/cli/code-cache.js'))});
      ${LOAD_SERVE}
      const { setServingFlags } = await import(${JSON.stringify(join(ROOT, 'dist/cli/v8-flags.js'))});
      if (process.argv.includes('serving')) setServingFlags(true);
      const { codeCache } = loadBundle(${JSON.stringify(join(ROOT, 'dist/serve/gateway.cjs'))});
      console.log(codeCache.status);
      if (process.argv.includes('save')) console.log(codeCache.save('call'));`;
    const run = (...args: string[]) => {
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', probe, '--', ...args], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') } });
      return result.stdout.trim().split('\n').map((line) => line.replace(/ to .*/, '')).join(', ') || result.stderr;
    };
    expect(run('save')).toBe('absent, written');
    expect(run('serving')).toBe('accepted');
    // Made while the serving flags were set (the start's first save can come after them: a client that calls before it lists).
    rmSync(join(dir, 'cache'), { recursive: true });
    expect(run('serving', 'save')).toBe('absent, written');
    expect(run()).toBe('accepted');
  });

  test('which outputSchemas compile is noted beside the cache: the next start compiles none of them, nor loads node:crypto or Ajv, before its first list', async () => {
    // server-everything lists tools with an outputSchema, which the listing compiles with Ajv to drop
    // one that does not compile (downstream/listing.ts); Ajv compiles with \`new Function\`. The probe
    // counts those calls until the first tools/list answer is written (docs/performance.md, "Round 18: start"),
    // and notes whether node:crypto was loaded by then: a noted schema is not hashed, and the list's
    // digest is made after the answer is written ("Round 19: start"); and whether Ajv was evaluated,
    // seen by fast-uri's \`RegExp.prototype.test.bind\` calls (its URI library, evaluated with it alone).
    const dir = tempDir();
    const cacheHome = join(dir, 'cache');
    const probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      `const fs = require('node:fs'); const net = require('node:net'); let made = 0; let listed = false; let binds = 0;
      const bind = Function.prototype.bind; Function.prototype.bind = function (...args) { if (!listed && this === RegExp.prototype.test) binds++; return bind.apply(this, args); };
      globalThis.Function = new Proxy(globalThis.Function, { construct(target, args) { if (!listed) made++; return Reflect.construct(target, args); } });
      function seen(data) { if (!listed && String(data).includes('"tools":[')) { listed = true; fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify({ made, crypto: process.moduleLoadList.includes('NativeModule crypto'), ajv: binds > 0 })); } }
      const write = net.Socket.prototype.write; net.Socket.prototype.write = function (data, ...rest) { seen(data); return write.call(this, data, ...rest); };
      const writeSync = fs.writeSync; fs.writeSync = function (fd, data, ...rest) { seen(data); return writeSync.call(this, fd, data, ...rest); };
      let streamWrap = process.binding('pipe_wrap').Pipe.prototype; while (!Object.prototype.hasOwnProperty.call(streamWrap, 'writeUtf8String')) streamWrap = Object.getPrototypeOf(streamWrap); const writeUtf8 = streamWrap.writeUtf8String; streamWrap.writeUtf8String = function (request, data) { seen(data); return writeUtf8.call(this, request, data); };`,
    );
    const start = async (n: number): Promise<{ made: number; crypto: boolean; ajv: boolean }> => {
      const out = join(dir, `made-${n}`);
      const gateway = await startGateway({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } } }, { dir, nodeArgs: ['--require', probe], env: { XDG_CACHE_HOME: cacheHome, PROBE_OUT: out } });
      try {
        const tools = (await gateway.client.listTools()).tools;
        expect(tools.some((tool) => tool.outputSchema)).toBe(true);
        // The note is written with the code cache, once the list is answered.
        await eventually(() => expect(gateway.stderr()).toMatch(n === 1 ? /"msg":"compiled outputSchemas written to [^"]*serve-schemas-[0-9a-f]+-[0-9a-f]+\.json"/ : /"msg":"code cache /), 30_000);
        return JSON.parse(readFileSync(out, 'utf8')) as { made: number; crypto: boolean; ajv: boolean };
      } finally {
        await gateway.close();
      }
    };
    const first = await start(1);
    expect(first.made).toBeGreaterThan(0);
    expect(first.crypto).toBe(true);
    expect(first.ajv).toBe(true);
    const notes = readdirSync(join(cacheHome, 'mcp-latch')).filter((name) => name.startsWith('serve-schemas-'));
    expect(notes).toHaveLength(1);
    expect((statSync(join(cacheHome, 'mcp-latch', notes[0]!)).mode & 0o777).toString(8)).toBe('600');
    expect(await start(2)).toEqual({ made: 0, crypto: false, ajv: false });
    // A note that is not the user's alone is not read: the schemas are compiled again.
    chmodSync(join(cacheHome, 'mcp-latch', notes[0]!), 0o666);
    const third = await start(3);
    expect(third.made).toBeGreaterThan(0);
    expect(third.crypto).toBe(true);
    expect(third.ajv).toBe(true);
  }, 120_000);

  test("a start changes V8's flags once after its list, at its first call's answer, whether it writes its caches or not", async () => {
    // Each setFlagsFromString costs ~20 µs in a serving gateway; the list's save changed four flags
    // and set them back, the call's made three changes inside the first command (docs/performance.md,
    // "Round 19: the first shell command"). The caches are now made under the start-up's flags, still
    // on at both saves (v8-flags.ts): a flag set off and on again was not always where it had been
    // (V8 12.4, "Round 25: Node 22 and 24"). The probe notes each change the serve bundle makes, and
    // the list and the first answer as they are written.
    const dir = tempDir();
    const cacheHome = join(dir, 'cache');
    const probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      `const fs = require('node:fs'); const net = require('node:net'); const v8 = require('node:v8');
      const note = (line) => fs.appendFileSync(process.env.PROBE_OUT, line + '\\n');
      const set = v8.setFlagsFromString; v8.setFlagsFromString = function (flags) { note('flags ' + flags); return set.call(this, flags); };
      function seen(data) { const text = String(data); if (text.includes('"tools":[')) note('listed'); else if (text.includes('"result":{"content"')) note('answered'); }
      const write = net.Socket.prototype.write; net.Socket.prototype.write = function (data, ...rest) { seen(data); return write.call(this, data, ...rest); };
      const writeSync = fs.writeSync; fs.writeSync = function (fd, data, ...rest) { seen(data); return writeSync.call(this, fd, data, ...rest); };
      let streamWrap = process.binding('pipe_wrap').Pipe.prototype; while (!Object.prototype.hasOwnProperty.call(streamWrap, 'writeUtf8String')) streamWrap = Object.getPrototypeOf(streamWrap); const writeUtf8 = streamWrap.writeUtf8String; streamWrap.writeUtf8String = function (request, data) { seen(data); return writeUtf8.call(this, request, data); };`,
    );
    const start = async (n: number): Promise<string[]> => {
      const out = join(dir, `flags-${n}`);
      const gateway = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } }, { dir, nodeArgs: ['--require', probe], env: { XDG_CACHE_HOME: cacheHome, PROBE_OUT: out } });
      try {
        await gateway.client.listTools();
        expect(textOf(await gateway.client.callTool({ name: 'fix__echo', arguments: { text: 'once' } }))).toContain('once');
        await eventually(() => expect(gateway.stderr()).toContain('"msg":"serving flags set"'), 30_000);
        const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
        return lines.slice(lines.indexOf('listed'));
      } finally {
        await gateway.close();
      }
    };
    // TurboFan on; on V8 11.3 (Node 20) with the serving interrupt budget too: V8 12 and 13 (Node 22
    // and 24) decide their tiers by invocation counts and have no `--interrupt-budget` (v8-flags.ts).
    const serving = `flags --max-opt=999 --turbofan${process.versions.v8.startsWith('11.3.') ? ' --interrupt-budget=16384' : ''}`;
    // The first start writes the caches at its list and at its call; the second writes none.
    for (const n of [1, 2]) {
      const lines = await start(n);
      expect(lines.filter((line) => line.startsWith('flags ')), `start ${n}`).toEqual([serving]);
      expect(lines.indexOf(serving)).toBeGreaterThan(lines.indexOf('answered'));
    }
    expect(readdirSync(join(cacheHome, 'mcp-latch')).filter((name) => name.startsWith('serve-gateway-') && name.endsWith('.v8cache'))).toHaveLength(1);
  }, 120_000);

  test("serve's own bundle (serve.cjs, loaded by boot.cjs after the spawns) has a cache of its own: the next start takes it; a damaged one is not used", async () => {
    const dir = tempDir();
    const cacheHome = join(dir, 'cache');
    const serveStatus = async (): Promise<{ status: string | undefined; saved: string[] }> => {
      const gateway = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } }, { dir, env: { XDG_CACHE_HOME: cacheHome } });
      try {
        // A list, then a call: the cache is saved after each.
        expect((await gateway.client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
        await eventually(() => expect(gateway.stderr()).toMatch(/serve-serve-[^"]*","msg":"code cache /));
        expect(textOf(await gateway.client.callTool({ name: 'fix__echo', arguments: { text: 'hello' } }))).toContain('hello');
        return await eventually(() => {
          const saved = [...gateway.stderr().matchAll(/"file":"[^"]*\/serve-serve-[^"]*","msg":"code cache ([^"]*)"/g)].map((match) => match[1]!.replace(/ to .*/, ''));
          if (saved.length < 2) throw new Error(`serve's code cache not saved yet:\n${gateway.stderr()}`);
          return { status: /"serveCodeCache":"([a-z-]+)"/.exec(gateway.stderr())?.[1], saved };
        });
      } finally {
        await gateway.close();
      }
    };
    expect(await serveStatus()).toEqual({ status: 'absent', saved: ['written', 'written'] });
    const names = readdirSync(join(cacheHome, 'mcp-latch')).filter((name) => name.startsWith('serve-serve-') && name.endsWith('.v8cache'));
    expect(names).toHaveLength(1);
    const file = join(cacheHome, 'mcp-latch', names[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await serveStatus()).toEqual({ status: 'accepted', saved: ['not written (accepted, made after the first call)', 'not written (accepted, made after the first call)'] });

    // Under the same checks as the gateway's: a damaged file never reaches V8, and serve serves without it.
    const damaged = readFileSync(file);
    damaged[damaged.length >> 1]! ^= 0xff;
    writeFileSync(file, damaged);
    expect((await serveStatus()).status).toBe('damaged');
    expect((await serveStatus()).status).toBe('accepted');
  });

  test('a cache directory others can write is not read and not written', async () => {
    const dir = tempDir();
    const cacheHome = join(dir, 'cache');
    mkdirSync(join(cacheHome, 'mcp-latch'), { recursive: true });
    chmodSync(join(cacheHome, 'mcp-latch'), 0o777);
    expect(await serveOnce(dir, cacheHome)).toBe('unsafe');
    expect(await serveOnce(dir, cacheHome)).toBe('unsafe');
    expect(readdirSync(join(cacheHome, 'mcp-latch'))).toEqual([]);
  });
});
