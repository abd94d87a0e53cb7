import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamClient, type TeamHarness } from '../helpers/team.js';

/**
 * A session whose client left without DELETE (`http.sessionIdleSeconds`): the built team gateway
 * closes it once none of its requests has been open for that long, withdraws its waiting calls
 * (never run), and keeps every session that still has a request or its event stream open.
 */
const X = 'token-of-xavier-idle-0123456789';
const PROTOCOL = '2025-06-18';
/** Far longer than the time between two requests of a test client on a loaded machine. */
const IDLE_SECONDS = 5;

/** A client that speaks plain HTTP and can vanish at any point: no event stream, no DELETE. */
async function rawSession(url: string): Promise<{ id: string; post: (message: unknown, signal?: AbortSignal) => Promise<Response> }> {
  const headers = { authorization: `Bearer ${X}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'vanishing', version: '1.0.0' } } }),
  });
  expect(init.status).toBe(200);
  await init.text();
  const id = init.headers.get('mcp-session-id')!;
  const post = (message: unknown, signal?: AbortSignal) =>
    fetch(url, { method: 'POST', headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL }, body: JSON.stringify(message), ...(signal ? { signal } : {}) });
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return { id, post };
}

describe('idle MCP sessions', () => {
  let dir: string;
  let team: TeamHarness;
  let live: TeamClient;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      workspace: [dir],
      permissions: { allow: ['mcp__every__echo'] },
      approval: { fallback: 'browser-manual', timeoutSeconds: 120 },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }], sessionIdleSeconds: IDLE_SECONDS },
    });
    // An SDK client: it holds its event stream (GET /mcp) open while connected.
    live = await teamClient(team.url, X);
  }, 60_000);

  afterAll(async () => {
    await live?.close();
    await team?.close();
  });

  test('a session left without DELETE is closed; its waiting call is withdrawn and never runs; sessions with a request or a stream open stay', async () => {
    // A call that waits with its request open (its client is there): not idle.
    const kept = join(dir, 'kept.txt');
    const waiting = live.client.callTool({ name: 'fs__write_file', arguments: { path: kept, content: 'approved after the other session ended' } }, undefined, { timeout: 90_000 });
    waiting.catch(() => undefined);
    const keptId = await eventually(async () => {
      const pending = (await team.api('/api/pending', X)).body.pending as Array<{ id: string }>;
      expect(pending).toHaveLength(1);
      return pending[0]!.id;
    }, 30_000);

    // A client that makes a call, then vanishes: its connection closes, and nothing more comes.
    const gone = join(dir, 'gone.txt');
    const vanishing = await rawSession(team.url);
    const abort = new AbortController();
    const call = vanishing.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fs__write_file', arguments: { path: gone, content: 'never' } } }, abort.signal);
    call.catch(() => undefined);
    const goneId = await eventually(async () => {
      const pending = (await team.api('/api/pending', X)).body.pending as Array<{ id: string; args: { path?: string } }>;
      const found = pending.find((each) => each.args.path === gone);
      expect(found).toBeDefined();
      return found!.id;
    }, 30_000);
    abort.abort();

    // Its session is closed and its call withdrawn, long before the call's approval.timeoutSeconds.
    await eventually(() => expect(team.stderr()).toContain('client session closed: no request for http.sessionIdleSeconds'), 30_000);
    await eventually(async () => expect(((await team.api('/api/pending', X)).body.pending as Array<{ id: string }>).map((each) => each.id)).toEqual([keptId]), 30_000);
    expect((await team.api(`/api/pending/${goneId}`, X, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(404);
    expect((await vanishing.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).toBe(404);
    expect(existsSync(gone)).toBe(false);

    // The session whose request stayed open is still there, and its call still waits.
    expect((await team.api(`/api/pending/${keptId}`, X, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
    expect((await waiting).isError).toBeFalsy();
    expect(readFileSync(kept, 'utf8')).toBe('approved after the other session ended');

    // Now only its event stream is open: it outlives a session that went idle after its last call ended.
    const later = await rawSession(team.url);
    const closings = () => team.stderr().split('client session closed: no request').length - 1;
    await eventually(() => expect(closings()).toBe(2), 30_000);
    expect((await later.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).toBe(404);
    expect(textOf(await live.client.callTool({ name: 'every__echo', arguments: { message: 'still here' } }))).toContain('still here');
    expect(existsSync(gone)).toBe(false);
  }, 120_000);
});

describe('an idle session whose call was answered "pending"', () => {
  let dir: string;
  let team: TeamHarness;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 1, retryWindowSeconds: 600 },
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(X) }], sessionIdleSeconds: IDLE_SECONDS },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  test('is closed, and the call is withdrawn before its retry window ends: approving it later runs nothing', async () => {
    const file = join(dir, 'later.txt');
    const session = await rawSession(team.url);
    const answered = await (await session.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fs__write_file', arguments: { path: file, content: 'never' } } })).text();
    expect(answered).toContain('waiting for the user');
    const listed = await eventually(async () => {
      const pending = (await team.api('/api/pending', X)).body.pending as Array<{ id: string; retryUntil: string | null }>;
      expect(pending).toHaveLength(1);
      expect(pending[0]!.retryUntil).not.toBeNull();
      return pending;
    }, 30_000);

    await eventually(() => expect(team.stderr()).toContain('client session closed: no request for http.sessionIdleSeconds'), 30_000);
    await eventually(async () => expect((await team.api('/api/pending', X)).body.pending).toEqual([]), 30_000);
    expect((await team.api(`/api/pending/${listed[0]!.id}`, X, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(404);
    expect(existsSync(file)).toBe(false);
  }, 120_000);
});
