import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import { BIN, COMMANDS_SERVER, FS_SERVER, ROOT, startGateway, tempDir, textOf, writeConfig, type Harness } from '../helpers/gateway.js';

const NAIVE_SERVER = join(ROOT, 'test/fixtures/naive-files-server.mjs');

/**
 * A path the gateway reads one way and the server another is decided in every reading the server
 * may take (docs/design.md "Paths, step by step"; docs/threat-model.md "Paths are resolved in
 * kernel order"). Each case is one the round 11 review (rev-surf) read a denied file with: the
 * built gateway, the SDK Client, the real server-filesystem or a fixture server written the common way.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** `<ws>` allowed to server-filesystem; `<ws>/proj` the workspace; `<ws>/secret` denied; `proj/l\u00efnk` → secret. */
function layout(): { ws: string; proj: string; secret: string } {
  const ws = tempDir('readings-');
  const proj = join(ws, 'proj');
  const secret = join(ws, 'secret');
  mkdirSync(proj);
  mkdirSync(secret);
  writeFileSync(join(secret, 'id'), 'key\n');
  writeFileSync(join(proj, 'a.txt'), 'hi\n');
  symlinkSync(secret, join(proj, 'l\u00efnk'));
  return { ws, proj, secret };
}

describe('server-filesystem: a name spelled in another Unicode form (review §1)', () => {
  test('the NFD spelling of a link to a denied directory is denied, read and written, like its NFC spelling', async () => {
    const { ws, proj, secret } = layout();
    harness = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } },
      workspace: [proj],
      permissions: { defaultMode: 'acceptEdits', allow: [`Read(${proj}/**)`], deny: [`Read(${secret}/**)`] },
    });
    for (const link of ['l\u00efnk', 'li\u0308nk']) {
      const read = await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(proj, link, 'id') } });
      expect(textOf(read), link).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
      const write = await harness.client.callTool({ name: 'fs__write_file', arguments: { path: join(proj, link, 'planted.txt'), content: 'x' } });
      expect(textOf(write), link).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
    }
    expect(existsSync(join(secret, 'planted.txt'))).toBe(false);
  }, 60_000);

  test('a new name whose NFC form is an existing entry is never auto-allowed (the server opens the entry)', async () => {
    const { ws, proj } = layout();
    mkdirSync(join(proj, 'caf\u00e9'));
    harness = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } },
      workspace: [proj],
      permissions: { defaultMode: 'acceptEdits' },
    });
    const write = await harness.client.callTool({ name: 'fs__write_file', arguments: { path: join(proj, 'cafe\u0301', 'n.txt'), content: 'x' } });
    expect(textOf(write)).toContain('Unicode NFC');
    expect(existsSync(join(proj, 'caf\u00e9', 'n.txt'))).toBe(false);
  }, 60_000);
});

describe('a file: URI with a query or fragment (review §3)', () => {
  test('is decided as the URI and as the text after file://, for resources/read and a path argument', async () => {
    const { proj, secret } = layout();
    harness = await startGateway({
      mcpServers: { naive: { command: process.execPath, args: [NAIVE_SERVER] } },
      workspace: [proj],
      permissions: { allow: ['mcp__naive__read_file'], deny: [`Read(${secret}/**)`] },
    });
    // The plain URI is read as before.
    expect((await harness.client.readResource({ uri: `file://${proj}/a.txt` })).contents[0]).toMatchObject({ text: `[${proj}/a.txt] hi\n` });
    for (const uri of [`file://${proj}/a.txt?/../../secret/id`, `file://${proj}/a.txt#/../../secret/id`]) {
      await expect(harness.client.readResource({ uri }), uri).rejects.toThrow(`Denied by mcp-latch: the rule Read(${secret}/**)`);
      const call = await harness.client.callTool({ name: 'naive__read_file', arguments: { path: uri } });
      expect(textOf(call), uri).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
    }
  }, 60_000);
});

describe('server-filesystem: a file: string is a path to it (review §6)', () => {
  test('file:/../secret/id is <root>/secret/id, and its deny rule holds in bypassPermissions', async () => {
    const { ws, proj, secret } = layout();
    harness = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } },
      workspace: [proj],
      permissions: { defaultMode: 'bypassPermissions', deny: [`Read(${secret}/**)`] },
    });
    const read = await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: 'file:/../secret/id' } });
    expect(textOf(read)).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
  }, 60_000);

  test('file://localhost/PATH (RFC 8089: a local file) is <root>/file:/localhost/PATH to it, which is decided, not PATH (round 12 check)', async () => {
    const { ws, proj } = layout();
    // What path.resolve(root, 'file://localhost/<proj>/a.txt') names, as the server resolves it.
    const opened = join(ws, 'file:', 'localhost', proj, 'a.txt');
    mkdirSync(join(opened, '..'), { recursive: true });
    writeFileSync(opened, 'NESTED\n');
    harness = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } },
      workspace: [proj],
      permissions: { defaultMode: 'bypassPermissions', allow: [`Read(${proj}/**)`], deny: [`Read(${ws}/file:/**)`] },
    });
    const denied = await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: `file://localhost${proj}/a.txt` } });
    expect(textOf(denied)).toContain(`Denied by mcp-latch: the rule Read(${ws}/file:/**)`);
    // Without the deny rule's directory, the server reads that nested file, not <proj>/a.txt.
    await harness.close();
    harness = await startGateway({ mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } }, workspace: [ws], permissions: { defaultMode: 'bypassPermissions' } });
    expect(textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: `file://localhost${proj}/a.txt` } }))).toBe('NESTED\n');
  }, 60_000);
});

describe("server-filesystem: a relative path, with the client's MCP roots (review §2)", () => {
  /** The built gateway with a client that declares `roots` (as IDEs do with the open project). */
  async function withRoots(config: Parameters<typeof writeConfig>[1], roots: string[]): Promise<Client> {
    const dir = tempDir();
    const client = new Client({ name: 'ide', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((root) => ({ uri: pathToFileURL(root).href })) }));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', writeConfig(dir, config)], stderr: 'pipe', cwd: dir }), { timeout: 30_000 });
    harness = { close: () => client.close() } as Harness;
    return client;
  }

  test("is decided against the client's roots too, which server-filesystem takes as its allowed directories", async () => {
    const { ws, proj } = layout();
    mkdirSync(join(proj, 'secret'));
    writeFileSync(join(proj, 'secret', 'id'), 'PROJ-SECRET\n');
    const client = await withRoots({ mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } }, workspace: [ws], permissions: { deny: [`Read(${proj}/secret/**)`] } }, [proj]);
    // The server has taken the client's roots once it lists its directories.
    await expect.poll(async () => textOf(await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} })), { timeout: 10_000 }).toBe(`Allowed directories:\n${proj}`);
    const read = await client.callTool({ name: 'fs__read_text_file', arguments: { path: 'secret/id' } });
    expect(textOf(read)).toContain(`Denied by mcp-latch: the rule Read(${proj}/secret/**)`);
  }, 60_000);

  test("is decided against the roots the server got, when the gateway's own roots request failed (round 12)", async () => {
    const { ws, proj } = layout();
    mkdirSync(join(proj, 'secret'));
    writeFileSync(join(proj, 'secret', 'id'), 'PROJ-SECRET\n');
    const dir = tempDir();
    // Every roots request fails until the client changes its roots; then the first (the gateway's
    // own refresh, which it awaits before telling the servers) fails too and the server's is answered.
    let failing = Infinity;
    const client = new Client({ name: 'ide', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      if (failing-- > 0) throw new Error('roots are not ready');
      return { roots: [{ uri: pathToFileURL(proj).href }] };
    });
    const config = { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } }, workspace: [ws], permissions: { deny: [`Read(${proj}/secret/**)`] } };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', writeConfig(dir, config)], stderr: 'pipe', cwd: dir }), { timeout: 30_000 });
    harness = { close: () => client.close() } as Harness;
    expect(textOf(await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} }))).toBe(`Allowed directories:\n${ws}`);
    failing = 1;
    await client.sendRootsListChanged();
    await expect.poll(async () => textOf(await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} })), { timeout: 10_000 }).toBe(`Allowed directories:\n${proj}`);
    // The gateway's own view has no client roots: `secret/id` was decided as <ws>/secret/id, and the server read <proj>/secret/id.
    const read = await client.callTool({ name: 'fs__read_text_file', arguments: { path: 'secret/id' } });
    expect(textOf(read)).not.toContain('PROJ-SECRET');
    expect(textOf(read)).toContain(`Denied by mcp-latch: the rule Read(${proj}/secret/**)`);
  }, 60_000);

  test('is decided against the allowed directory the server picks: the first one the path lands inside', async () => {
    const top = tempDir('readings-mr-');
    for (const dir of ['a/b', 'c']) mkdirSync(join(top, dir), { recursive: true });
    writeFileSync(join(top, 'c', 'k'), 'C-SECRET\n');
    harness = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, join(top, 'a/b'), join(top, 'c')] } },
      workspace: [top],
      permissions: { defaultMode: 'bypassPermissions', deny: [`Read(${top}/c/**)`] },
    });
    const read = await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: '../c/k' } });
    expect(textOf(read)).toContain(`Denied by mcp-latch: the rule Read(${top}/c/**)`);
  }, 60_000);
});

describe('`..` after a missing name or a link: the kernel and server-filesystem read two files (round 15 review of paths, P1)', () => {
  /** `<ws>/b` → the denied `<ws>/conf/secret`; `<ws>/a` → `<ws>/sub/deep`, with a decoy `<ws>/sub/b/key`. */
  function linked(): { ws: string; secret: string } {
    const ws = tempDir('dotdot-');
    const secret = join(ws, 'conf', 'secret');
    mkdirSync(secret, { recursive: true });
    mkdirSync(join(ws, 'sub', 'deep'), { recursive: true });
    mkdirSync(join(ws, 'sub', 'b'));
    writeFileSync(join(secret, 'key'), 'TOPSECRET\n');
    writeFileSync(join(ws, 'sub', 'b', 'key'), 'decoy\n');
    symlinkSync(secret, join(ws, 'b'));
    symlinkSync(join(ws, 'sub', 'deep'), join(ws, 'a'));
    return { ws, secret };
  }

  test.each(['default', 'bypassPermissions'] as const)('%s: nx/../b/key and a/../b/key are not read or written; b/key is denied', async (mode) => {
    const { ws, secret } = linked();
    harness = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } },
      workspace: [ws],
      approval: { fallback: 'deny' },
      permissions: { defaultMode: mode, deny: [`Read(${secret}/**)`] },
    });
    expect(textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(ws, 'b', 'key') } }))).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
    // Before the fix: allowed, and the server printed TOPSECRET (it takes `..` as text, then realpaths).
    const missing = textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: `${ws}/nx/../b/key` } }));
    expect(missing).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
    expect(missing).not.toContain('TOPSECRET');
    const linkedUp = textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: `${join(ws, 'a')}/../b/key` } }));
    expect(linkedUp).toContain(`names two files: the kernel, going up from where a link before ".." points, reaches ${join(ws, 'sub', 'b', 'key')}; a server that takes ".." as text first (server-filesystem) opens ${join(secret, 'key')}`);
    expect(linkedUp).not.toContain('TOPSECRET');
    const write = textOf(await harness.client.callTool({ name: 'fs__write_file', arguments: { path: `${ws}/nx/../b/key`, content: 'OVERWRITTEN\n' } }));
    expect(write).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
    expect(readFileSync(join(secret, 'key'), 'utf8')).toBe('TOPSECRET\n');
  }, 60_000);
});

describe("`~` is the server's own home (round 29 review, F29-1)", () => {
  /** server-filesystem run with `env: {HOME: <ws>}`: it expands `~` (path-utils.js expandHome, os.homedir()) to <ws>, not to the gateway's home. */
  function homeLayout(): { ws: string; secret: string } {
    const ws = tempDir('home-');
    const secret = join(ws, 'secret');
    mkdirSync(secret);
    mkdirSync(join(ws, 'pub'));
    writeFileSync(join(secret, 'id'), 'KEY\n');
    writeFileSync(join(ws, 'pub', 'a.txt'), 'hi\n');
    return { ws, secret };
  }

  test('bypassPermissions: ~/secret/id and a relative path under a `~` root are the server-home files, denied', async () => {
    const { ws, secret } = homeLayout();
    harness = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws], env: { HOME: ws } }, tilde: { command: process.execPath, args: [FS_SERVER, '~'], env: { HOME: ws } } },
      workspace: [ws],
      permissions: { defaultMode: 'bypassPermissions', deny: [`Read(${secret}/**)`, `Edit(${secret}/**)`] },
    });
    // Before: decided as <gateway home>/secret/id, no rule matched, and the server printed KEY / wrote the file.
    expect(textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: '~/secret/id' } }))).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
    expect(textOf(await harness.client.callTool({ name: 'fs__write_file', arguments: { path: '~/secret/planted', content: 'x' } }))).toContain('Denied by mcp-latch: the rule');
    expect(textOf(await harness.client.callTool({ name: 'tilde__read_text_file', arguments: { path: 'secret/id' } }))).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
    expect(existsSync(join(secret, 'planted'))).toBe(false);
    // What the server's home holds elsewhere is read as before.
    expect(textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: '~/pub/a.txt' } }))).toBe('hi\n');
    expect(textOf(await harness.client.callTool({ name: 'tilde__read_text_file', arguments: { path: 'pub/a.txt' } }))).toBe('hi\n');
  }, 60_000);

  test("bypassPermissions: a command tool's `cat ~/secret/id` is read in the server's home too (its sh expands $HOME)", async () => {
    const { ws, secret } = homeLayout();
    harness = await startGateway({
      mcpServers: { cmd: { command: process.execPath, args: [COMMANDS_SERVER], env: { HOME: ws } } },
      workspace: [ws],
      permissions: { defaultMode: 'bypassPermissions', deny: [`Read(${secret}/**)`] },
    });
    expect(textOf(await harness.client.callTool({ name: 'cmd__run_command', arguments: { command: 'cat ~/secret/id' } }))).toContain(`Denied by mcp-latch: the rule Read(${secret}/**)`);
  }, 60_000);

  test("default: the prompt names the file in the server's home", async () => {
    const { ws } = homeLayout();
    const outside = tempDir('home-ws-');
    harness = await startGateway(
      { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws], env: { HOME: ws } } }, workspace: [outside], permissions: { defaultMode: 'default' } },
      { onElicit: () => ({ action: 'decline' }) },
    );
    await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: '~/pub/a.txt' } });
    expect(harness.elicitations[0]?.message).toContain(`read  ${ws}/pub/a.txt (OUTSIDE the workspace)`);
  }, 60_000);
});

describe('a file: URI without `//`, to a server that reads it with Python\'s urlparse (round 31 review, F31-1)', () => {
  const PYTHON_SERVER = join(ROOT, 'test/fixtures/urlparse-files-server.py');

  /**
   * `file:conf/secret/db.txt` is `/conf/secret/db.txt` to a WHATWG parser and the relative
   * `conf/secret/db.txt` to `urlparse(uri).path`: the gateway decided the first (outside the
   * workspace, no deny rule) and in bypassPermissions the server, started in the workspace, read the
   * denied file. Every mode refuses it now (a relative reading with no base), and the ordinary URI still reads.
   */
  test.each(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'] as const)('%s: file:conf/… and its other spellings are refused; file:///<w>/a.txt is read', async (mode) => {
    const w = tempDir('urlparse-');
    mkdirSync(join(w, 'conf', 'secret'), { recursive: true });
    writeFileSync(join(w, 'conf', 'secret', 'db.txt'), 'TOPSECRET\n');
    writeFileSync(join(w, 'a.txt'), 'hi\n');
    harness = await startGateway({
      mcpServers: { py: { command: process.env.PYTHON ?? 'python3', args: [PYTHON_SERVER], cwd: w } },
      workspace: [w],
      permissions: { defaultMode: mode, deny: ['Read(./conf/secret/**)'] },
    });
    const read = await harness.client.readResource({ uri: pathToFileURL(join(w, 'a.txt')).href });
    expect(read.contents[0]).toMatchObject({ text: `[${join(w, 'a.txt')}] hi\n` });
    for (const uri of ['file:conf/secret/db.txt', 'file:./conf/secret/db.txt', 'file:%63onf/secret/db.txt', 'File:conf/secret/db.txt']) {
      const refused = await harness.client.readResource({ uri }).then((result) => JSON.stringify(result), (error: unknown) => String(error));
      expect(refused, uri).not.toContain('TOPSECRET');
      expect(refused, uri).toContain('Denied by mcp-latch');
      // Before, bypassPermissions read the file: /conf/secret/db.txt matched no deny rule.
      if (mode === 'bypassPermissions') expect(refused, uri).toContain('relative path with unknown base');
    }
  }, 60_000);
});

describe("deny and ask rules at a root the client's roots no longer hold (round 31 review, F31-2)", () => {
  /** `<top>/w1` and `<top>/w2`, each with a conf/secret/db.txt and a pub/a.txt. */
  function projects(): { top: string; w1: string; w2: string } {
    const top = tempDir('roots-change-');
    const [w1, w2] = [join(top, 'w1'), join(top, 'w2')];
    for (const w of [w1, w2]) {
      mkdirSync(join(w, 'conf', 'secret'), { recursive: true });
      mkdirSync(join(w, 'pub'));
      writeFileSync(join(w, 'conf', 'secret', 'db.txt'), `TOPSECRET ${w}\n`);
      writeFileSync(join(w, 'pub', 'a.txt'), 'hi\n');
    }
    return { top, w1, w2 };
  }

  // Before, once the client's roots went from w1 to w2, `./conf/secret/**` was anchored at w2 only and cat printed w1's file.
  test('the client moves its roots from w1 to w2: w1/conf/secret stays denied, w1 is no longer the workspace', async () => {
    const { w1, w2 } = projects();
    let roots = [w1];
    harness = await startGateway(
      { mcpServers: { cmd: { command: process.execPath, args: [COMMANDS_SERVER] } }, approval: { fallback: 'deny' }, permissions: { defaultMode: 'bypassPermissions', ask: ['Read(./pub/**)'], deny: ['Read(./conf/secret/**)'] } },
      { capabilities: { roots: { listChanged: true } }, onListRoots: () => ({ roots: roots.map((root) => ({ uri: pathToFileURL(root).href })) }) },
    );
    const cat = async (file: string) => textOf(await harness!.client.callTool({ name: 'cmd__run_command', arguments: { command: `cat ${file}` } }));
    await expect.poll(() => cat(join(w1, 'conf/secret/db.txt')), { timeout: 10_000 }).toContain('Denied by mcp-latch: the rule Read(./conf/secret/**)');
    roots = [w2];
    await harness.client.sendRootsListChanged();
    await expect.poll(() => cat(join(w2, 'conf/secret/db.txt')), { timeout: 10_000 }).toContain('Denied by mcp-latch: the rule Read(./conf/secret/**)');
    const old = await cat(join(w1, 'conf/secret/db.txt'));
    expect(old).not.toContain('TOPSECRET');
    expect(old).toContain('Denied by mcp-latch: the rule Read(./conf/secret/**)');
    // The ask rule holds there too.
    expect(await cat(join(w1, 'pub/a.txt'))).toContain('Read(./pub/**)');
  }, 60_000);

  test('allow and the workspace follow the roots now: a read in w1 asks in default mode after the move', async () => {
    const { w1, w2 } = projects();
    let roots = [w1];
    harness = await startGateway(
      { mcpServers: { cmd: { command: process.execPath, args: [COMMANDS_SERVER] } }, approval: { fallback: 'deny' }, permissions: { allow: ['Bash(cat:*)'] } },
      { capabilities: { roots: { listChanged: true } }, onListRoots: () => ({ roots: roots.map((root) => ({ uri: pathToFileURL(root).href })) }) },
    );
    const cat = async (file: string) => textOf(await harness!.client.callTool({ name: 'cmd__run_command', arguments: { command: `cat ${file}` } }));
    await expect.poll(() => cat(join(w1, 'pub/a.txt')), { timeout: 10_000 }).toBe('hi\n');
    roots = [w2];
    await harness.client.sendRootsListChanged();
    await expect.poll(() => cat(join(w2, 'pub/a.txt')), { timeout: 10_000 }).toBe('hi\n');
    expect(await cat(join(w1, 'pub/a.txt'))).toContain('outside the workspace');
  }, 60_000);

  // Before, the rule was anchored at the gateway's roots only (its own roots/list failed): <proj>/secret/id, in the server's root, was inside the workspace and allowed.
  test('a root only the server got (the gateway\'s own roots/list failed) holds the relative deny rules too', async () => {
    const { ws, proj } = layout();
    mkdirSync(join(proj, 'secret'));
    writeFileSync(join(proj, 'secret', 'id'), 'PROJ-SECRET\n');
    const dir = tempDir();
    let failing = Infinity;
    const client = new Client({ name: 'ide', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      if (failing-- > 0) throw new Error('roots are not ready');
      return { roots: [{ uri: pathToFileURL(proj).href }] };
    });
    const config = { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } }, workspace: [ws], permissions: { deny: ['Read(./secret/**)'] } };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--config', writeConfig(dir, config)], stderr: 'pipe', cwd: dir }), { timeout: 30_000 });
    harness = { close: () => client.close() } as Harness;
    expect(textOf(await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} }))).toBe(`Allowed directories:\n${ws}`);
    failing = 1;
    await client.sendRootsListChanged();
    await expect.poll(async () => textOf(await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} })), { timeout: 10_000 }).toBe(`Allowed directories:\n${proj}`);
    for (const path of ['secret/id', join(proj, 'secret/id')]) {
      const read = await client.callTool({ name: 'fs__read_text_file', arguments: { path } });
      expect(textOf(read), path).not.toContain('PROJ-SECRET');
      expect(textOf(read), path).toContain('Denied by mcp-latch: the rule Read(./secret/**)');
    }
  }, 60_000);
});

describe('a client naming more roots than MAX_ROOTS_OF_RUN (round 32 review, F32-4)', () => {
  /** `count` projects below one directory, each with a conf/secret/db.txt and a pub/a.txt. */
  function many(count: number): string[] {
    const top = tempDir('roots-many-');
    return Array.from({ length: count }, (_, i) => {
      const w = join(top, `w${i}`);
      mkdirSync(join(w, 'conf', 'secret'), { recursive: true });
      mkdirSync(join(w, 'pub'));
      writeFileSync(join(w, 'conf', 'secret', 'db.txt'), `TOPSECRET ${i}\n`);
      writeFileSync(join(w, 'pub', 'a.txt'), 'hi\n');
      return w;
    });
  }

  // Before, every root was kept: each deny rule became as many globs as the client named (5,000 roots: 5,000 globs a rule, rebuilt at each change), with nothing said.
  test('past the limit the relative deny rule holds below any directory, the roots past it are not the workspace, and the log names the limit', async () => {
    const projects = many(80);
    let roots = projects.slice(0, 70);
    harness = await startGateway(
      { mcpServers: { cmd: { command: process.execPath, args: [COMMANDS_SERVER] } }, approval: { fallback: 'deny' }, permissions: { defaultMode: 'bypassPermissions', deny: ['Read(./conf/secret/**)'] } },
      { capabilities: { roots: { listChanged: true } }, onListRoots: () => ({ roots: roots.map((root) => ({ uri: pathToFileURL(root).href })) }) },
    );
    const cat = async (file: string) => textOf(await harness!.client.callTool({ name: 'cmd__run_command', arguments: { command: `cat ${file}` } }));
    await expect.poll(() => harness!.stderr(), { timeout: 10_000 }).toContain('more than 64 workspace roots named in this run (MAX_ROOTS_OF_RUN)');
    for (const w of [projects[0]!, projects[63]!, projects[69]!]) expect(await cat(join(w, 'conf/secret/db.txt'))).toContain('Denied by mcp-latch: the rule Read(./conf/secret/**)');
    // The client changes its roots in a loop: each new one past the limit is held by the rule below any directory.
    for (const next of projects.slice(70)) {
      roots = [next];
      await harness.client.sendRootsListChanged();
    }
    await expect.poll(() => cat(join(projects[79]!, 'pub/a.txt')), { timeout: 10_000 }).toBe('hi\n');
    for (const w of projects.slice(70)) expect(await cat(join(w, 'conf/secret/db.txt'))).toContain('Denied by mcp-latch: the rule Read(./conf/secret/**)');
    expect(harness.stderr().match(/MAX_ROOTS_OF_RUN/g)).toHaveLength(1);
  }, 120_000);

  test('a root past the limit is not the workspace: a read there asks in default mode (refused with no form)', async () => {
    const projects = many(66);
    harness = await startGateway(
      { mcpServers: { cmd: { command: process.execPath, args: [COMMANDS_SERVER] } }, approval: { fallback: 'deny' }, permissions: { allow: ['Bash(cat:*)'] } },
      { capabilities: { roots: { listChanged: true } }, onListRoots: () => ({ roots: projects.map((root) => ({ uri: pathToFileURL(root).href })) }) },
    );
    const cat = async (file: string) => textOf(await harness!.client.callTool({ name: 'cmd__run_command', arguments: { command: `cat ${file}` } }));
    await expect.poll(() => cat(join(projects[0]!, 'pub/a.txt')), { timeout: 10_000 }).toBe('hi\n');
    expect(await cat(join(projects[63]!, 'pub/a.txt'))).toBe('hi\n');
    expect(await cat(join(projects[65]!, 'pub/a.txt'))).toContain('outside the workspace');
  }, 120_000);
});
