import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { round, startModernClient, type Modern } from '../helpers/modern-client.js';
import { eventually, fixtureCalls, ROOT, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * A server's roots/list across the protocol's eras (docs/threat-model.md, "A path the server reads
 * otherwise"; docs/approval.md, "A server's own questions"):
 *
 *   handshake-era client, 2026-07-28 server   the server asks in input_required; the gateway asks the
 *                                               client roots/list (it declared roots at initialize)
 *   2026-07-28 client, 2025 server              the server asks mid-call; the call is held and the
 *                                               client gets the request as input_required
 *
 * Either way the roots go to the server only as the gateway read them (absolute file: directories)
 * and noted as the server's, the call decided again with them first. The built gateway, the SDK 1.x
 * Client and the v2 Client pinned to 2026-07-28; servers named like server-filesystem, so the gateway
 * reads their relative paths against their roots.
 */
let h: Harness | undefined;
let modern: Modern | undefined;
afterEach(async () => {
  await h?.close();
  await modern?.close();
  h = undefined;
  modern = undefined;
});

function layout() {
  const dir = tempDir();
  const ws = join(dir, 'ws');
  const other = join(dir, 'other');
  mkdirSync(join(other, 'secret'), { recursive: true });
  mkdirSync(ws);
  writeFileSync(join(ws, 'note.txt'), 'NOTE');
  writeFileSync(join(other, 'secret', 'key'), 'KEY');
  return { dir, ws, other, log: join(dir, 'server.log') };
}

const uri = (path: string) => pathToFileURL(path).href;

type Roots = (paths: { dir: string; ws: string; other: string }) => Array<{ uri: string; name?: string }>;

describe("a handshake-era client with roots, a 2026-07-28 server's roots/list", () => {
  async function start(roots: Roots) {
    const paths = layout();
    const { dir, ws, other, log } = paths;
    const script = join(dir, 'mcp-server-filesystem.mjs');
    copyFileSync(join(ROOT, 'test/fixtures/raw-modern-server.mjs'), script);
    h = await startGateway(
      {
        mcpServers: { fs: { command: process.execPath, args: [script, ws], env: { INPUT_REQUESTS: JSON.stringify({ r: { method: 'roots/list' } }), FIXTURE_LOG: log, TOOL_NAME: 'read_text_file' }, protocolVersion: '2026-07-28' } },
        workspace: [ws],
        permissions: { allow: ['mcp__fs__read_text_file'], deny: [`Read(${other}/secret/**)`] },
      },
      { dir, onListRoots: () => ({ roots: roots(paths) }) },
    );
    return paths;
  }

  test('the gateway asks the client and answers the server with the roots as read: only absolute file: directories go on', { timeout: 60_000 }, async () => {
    // Not passed on (server-input.ts rootsOf): a directory not made yet, a file. (Other schemes the client's answer may not hold: the SDK refuses them.)
    const { ws, log } = await start(({ dir, ws }) => [{ uri: uri(ws), name: 'ws' }, { uri: uri(join(dir, 'not-yet-made')) }, { uri: uri(join(ws, 'note.txt')) }]);
    const result = await h!.client.callTool({ name: 'fs__read_text_file', arguments: { path: 'note.txt' } });
    expect(textOf(result as never)).toBe('done');
    expect(fixtureCalls(log)).toEqual([
      { tool: 'read_text_file', answers: null },
      { tool: 'read_text_file', answers: { r: { roots: [{ uri: uri(ws), name: 'ws' }] } } },
    ]);
  });

  test('the call is decided again with the roots the client gave before the server gets them: a relative path a rule denies under them is denied, the server not called again', { timeout: 60_000 }, async () => {
    // The client's roots change after the gateway's own roots/list at initialize (which the first decision reads), with no notification.
    let asked = 0;
    const { other, log } = await start(({ ws, other }) => [{ uri: uri(asked++ === 0 ? ws : other) }]);
    const result = await h!.client.callTool({ name: 'fs__read_text_file', arguments: { path: 'secret/key' } });
    expect(result.isError).toBe(true);
    expect(textOf(result as never)).toMatch(/^Denied by mcp-latch/);
    expect(textOf(result as never)).toContain(`${other}/secret/key`);
    expect(fixtureCalls(log)).toEqual([{ tool: 'read_text_file', answers: null }]);
  });
});

describe("a 2026-07-28 client with roots, a 2025 server's roots/list while the call runs", () => {
  async function start(roots: () => Array<{ uri: string; name?: string }>) {
    const { dir, ws, other, log } = layout();
    const script = join(dir, 'mcp-server-filesystem.mjs');
    // A link, so its imports resolve from the repository (node follows it).
    symlinkSync(join(ROOT, 'test/fixtures/roots-server.mjs'), script);
    modern = await startModernClient(
      ws,
      {
        mcpServers: { fs: { command: process.execPath, args: [script, ws], env: { FIXTURE_LOG: log } } },
        workspace: [ws],
        permissions: { allow: ['mcp__fs__read_text_file'], deny: [`Read(${other}/secret/**)`] },
      },
      { capabilities: { roots: {} }, onListRoots: () => ({ roots: roots() }) },
    );
    return { ws, other, log };
  }

  test("held and asked as input_required; the client's SDK answers and retries, the server reads under the root it was given", { timeout: 60_000 }, async () => {
    let ws = '';
    const started = await start(() => [{ uri: uri(ws), name: 'ws' }, { uri: 'relative/dir' }]);
    ws = started.ws;
    const result = await modern!.client.callTool({ name: 'fs__read_text_file', arguments: { path: 'note.txt' } });
    expect(textOf(result as never)).toBe('NOTE');
    expect(fixtureCalls(started.log)).toEqual([{ tool: 'read_text_file', roots: [{ uri: uri(ws), name: 'ws' }], read: join(ws, 'note.txt') }]);
  });

  test('the roots are noted and the call decided again with them before the server gets them: denied there by a rule, the server is refused the roots and the call ends denied', { timeout: 60_000 }, async () => {
    const started = await start(() => []);
    const call = { name: 'fs__read_text_file', arguments: { path: 'secret/key' } };
    const first = await round(modern!.client, call);
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests).toEqual({ 'mcp-latch/server/roots': { method: 'roots/list' } });
    const retry = await round(modern!.client, { ...call, inputResponses: { 'mcp-latch/server/roots': { roots: [{ uri: uri(started.other) }] } }, requestState: first.requestState });
    expect(retry.isError).toBe(true);
    expect(textOf(retry as never)).toMatch(/^Denied by mcp-latch: with the roots its server asked for while the call ran, the call is denied/);
    expect(textOf(retry as never)).toContain(`${started.other}/secret/key`);
    // It had reached the server: the text says so, not that it was not run (round 27 review of the gateway).
    expect(textOf(retry as never)).toContain('The call had been forwarded');
    // The server was refused the roots: it read nothing.
    await eventually(() => expect(fixtureCalls(started.log)).toEqual([{ tool: 'read_text_file', roots: null, read: null }]));
  });

  test("a call the person approved goes on with the roots only while its paths lead where they did when approved: roots that move them refuse the server and end the call", { timeout: 60_000 }, async () => {
    const { dir, ws, other, log } = layout();
    writeFileSync(join(other, 'note.txt'), 'OTHER');
    const script = join(dir, 'mcp-server-filesystem.mjs');
    symlinkSync(join(ROOT, 'test/fixtures/roots-server.mjs'), script);
    // No rule allows the read (the workspace is another directory): it asks.
    mkdirSync(join(dir, 'project'));
    modern = await startModernClient(ws, { mcpServers: { fs: { command: process.execPath, args: [script, ws], env: { FIXTURE_LOG: log } } }, workspace: [join(dir, 'project')] }, { capabilities: { elicitation: { form: {} }, roots: {} } });
    const call = { name: 'fs__read_text_file', arguments: { path: 'note.txt' } };
    const approve = { 'mcp-latch/approval': { action: 'accept', content: { decision: 'Allow once' } } };
    const rootsOf = (path: string) => ({ 'mcp-latch/server/roots': { roots: [{ uri: uri(path) }] } });
    for (const [root, expected] of [
      [ws, 'NOTE'],
      [other, /^Denied by mcp-latch: with the roots its server asked for while the call ran, .* it now leads to .*other\/note\.txt \(outside the workspace\), which the prompt did not show\. The call had been forwarded: its server was not given those roots/],
    ] as const) {
      const asked = await round(modern.client, call);
      expect(Object.keys(asked.inputRequests as object)).toEqual(['mcp-latch/approval']);
      const held = await round(modern.client, { ...call, inputResponses: approve, requestState: asked.requestState });
      expect(held.inputRequests).toEqual({ 'mcp-latch/server/roots': { method: 'roots/list' } });
      const done = await round(modern.client, { ...call, inputResponses: rootsOf(root), requestState: held.requestState });
      if (typeof expected === 'string') expect(textOf(done as never)).toBe(expected);
      else expect(textOf(done as never)).toMatch(expected);
    }
    // The server read ws/note.txt under the root that led where the approval was for, and was refused the other.
    await eventually(() => expect(fixtureCalls(log)).toEqual([{ tool: 'read_text_file', roots: [{ uri: uri(ws) }], read: join(ws, 'note.txt') }, { tool: 'read_text_file', roots: null, read: null }]));
  });

  test('a call a rule allowed that needs the person with the roots the client gives is not answered with them: the server is refused the roots and the call ends denied, naming why', { timeout: 60_000 }, async () => {
    const { dir, ws, other, log } = layout();
    writeFileSync(join(other, 'note.txt'), 'OTHER');
    const script = join(dir, 'mcp-server-filesystem.mjs');
    symlinkSync(join(ROOT, 'test/fixtures/roots-server.mjs'), script);
    mkdirSync(join(dir, 'project'));
    // Reads under ws are allowed by rule; other/ is neither allowed nor denied (the workspace is another directory): it asks.
    modern = await startModernClient(ws, { mcpServers: { fs: { command: process.execPath, args: [script, ws], env: { FIXTURE_LOG: log } } }, workspace: [join(dir, 'project')], permissions: { allow: [`Read(${ws}/**)`] } }, { capabilities: { roots: {} } });
    const call = { name: 'fs__read_text_file', arguments: { path: 'note.txt' } };
    const held = await round(modern.client, call);
    expect(held.inputRequests).toEqual({ 'mcp-latch/server/roots': { method: 'roots/list' } });
    const done = await round(modern.client, { ...call, inputResponses: { 'mcp-latch/server/roots': { roots: [{ uri: uri(other) }] } }, requestState: held.requestState });
    expect(done.isError).toBe(true);
    expect(textOf(done as never)).toMatch(/^Denied by mcp-latch: with the roots its server asked for while the call ran, the call needs the user's approval/);
    await eventually(() => expect(fixtureCalls(log)).toEqual([{ tool: 'read_text_file', roots: null, read: null }]));
  });
});
