import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { EVERYTHING_SERVER, FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * The team gateway over Streamable HTTP, driven by the SDK's Client with bearer tokens, in front
 * of the real filesystem and everything servers: who calls decides whose rules apply, whose
 * calls one may see and answer, and where "Always allow" goes.
 */
const X = 'token-of-xavier-0123456789';
const Y = 'token-of-yvonne-0123456789';
const ADMIN = 'token-of-the-admin-012345';

describe('serve --http', () => {
  let dir: string;
  let team: TeamHarness;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
      workspace: [dir],
      permissions: { allow: ['mcp__every__echo', 'mcp__every__trigger-long-running-operation'], deny: [`Edit(${dir}/forbidden/**)`] },
      users: { xavier: { permissions: { allow: [`Edit(${dir}/forbidden/**)`] } } },
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: {
        tokens: [
          { user: 'xavier', sha256: tokenHash(X) },
          { user: 'yvonne', sha256: tokenHash(Y) },
          { user: 'boss', role: 'admin', sha256: tokenHash(ADMIN) },
        ],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  test('no token, or an unknown one, is answered 401 with WWW-Authenticate naming the resource metadata', async () => {
    const none = await fetch(team.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${team.base}/.well-known/oauth-protected-resource"`);
    const wrong = await team.api('/api/pending', 'not-a-token');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const metadata = await team.api('/.well-known/oauth-protected-resource', null);
    expect(metadata.body).toMatchObject({ resource: team.url, bearer_methods_supported: ['header'] });
  });

  test('a foreign Host or Origin is refused (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(team.url, { method: 'GET', headers: { authorization: `Bearer ${X}`, ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await status({ host: 'evil.example:80' })).toBe(403);
    expect(await status({ origin: 'http://evil.example' })).toBe(403);
  });

  test('lists, runs an allowed call, and relays progress', async () => {
    const x = await teamClient(team.url, X);
    try {
      const { tools } = await x.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['fs__write_file', 'every__echo']));
      expect(textOf(await x.client.callTool({ name: 'every__echo', arguments: { message: 'hello team' } }))).toContain('hello team');
      const progress: number[] = [];
      const result = await x.client.callTool({ name: 'every__trigger-long-running-operation', arguments: { duration: 1, steps: 3 } }, undefined, { onprogress: (update) => progress.push(update.progress) });
      expect(textOf(result)).toContain('completed');
      expect(progress.length).toBeGreaterThan(0);
    } finally {
      await x.close();
    }
  });

  test('an asked call is approved through elicitation, and the prompt names the user', async () => {
    const x = await teamClient(team.url, X, () => ({ action: 'accept', content: { decision: 'Allow once' } }));
    try {
      const file = join(dir, 'by-elicitation.txt');
      const result = await x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'elicited' } });
      expect(result.isError).toBeFalsy();
      expect(readFileSync(file, 'utf8')).toBe('elicited');
      expect(x.elicitations[0]?._meta?.['mcp-latch/request']).toMatchObject({ user: 'xavier', tool: 'write_file' });
    } finally {
      await x.close();
    }
  });

  test("an asked call waits for its user's answer through the API; another user can neither see nor answer it", async () => {
    const x = await teamClient(team.url, X);
    try {
      const file = join(dir, 'by-api.txt');
      const call = x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'approved through the API' } }, undefined, { timeout: 60_000 });
      const pending = await eventually(async () => {
        const listed = (await team.api('/api/pending', X)).body.pending as Array<Record<string, any>>;
        expect(listed).toHaveLength(1);
        return listed[0]!;
      }, 30_000);
      expect(pending).toMatchObject({ user: 'xavier', server: 'fs', tool: 'write_file', args: { path: file, content: 'approved through the API' } });
      expect(pending.request).toMatchObject({ user: 'xavier' });

      expect((await team.api('/api/pending', Y)).body.pending).toEqual([]);
      expect((await team.api(`/api/pending/${pending.id}`, Y)).status).toBe(403);
      expect((await team.api(`/api/pending/${pending.id}`, Y, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(403);
      expect((await team.api('/api/pending?user=xavier', Y)).status).toBe(403);
      // The admin reads everyone's calls, and answers none of them.
      expect((await team.api('/api/pending?user=*', ADMIN)).body.pending.map((each: { id: string }) => each.id)).toEqual([pending.id]);
      expect((await team.api(`/api/pending/${pending.id}`, ADMIN, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(403);
      expect(existsSync(file)).toBe(false);

      expect((await team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: 'Allow twice' } })).status).toBe(400);
      expect((await team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: 'Allow once', note: 'go ahead' } })).status).toBe(200);
      expect((await team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(404);
      const result = await call;
      expect(textOf(result)).toContain('go ahead');
      expect(readFileSync(file, 'utf8')).toBe('approved through the API');
    } finally {
      await x.close();
    }
  });

  test('an answer through the API may change the call: the changed call is decided again and runs once; a team deny still denies it', async () => {
    const x = await teamClient(team.url, X);
    const waitingCall = async () =>
      eventually(async () => {
        const listed = (await team.api('/api/pending', X)).body.pending as Array<Record<string, any>>;
        expect(listed).toHaveLength(1);
        return listed[0]!;
      }, 30_000);
    try {
      const file = join(dir, 'edited.txt');
      const call = x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'as the model wrote it' } }, undefined, { timeout: 60_000 });
      const pending = await waitingCall();
      expect(pending.editable).toEqual(expect.arrayContaining([{ arg: 'path', role: 'path', value: file }, { arg: 'content', role: 'content', value: 'as the model wrote it' }]));
      const answer = (body: unknown) => team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body });
      expect((await answer({ decision: 'Allow once', edit: { mode: '0777' } })).status).toBe(400);
      expect((await answer({ decision: 'Allow once', edit: { content: 42 } })).status).toBe(400);
      expect((await answer({ decision: 'Deny', edit: { content: 'x' } })).status).toBe(400);
      expect((await answer({ decision: 'Allow once', edit: { content: 'as the person changed it' } })).status).toBe(200);
      const result = await call;
      expect(textOf(result)).toContain('the user changed this call before approving it');
      expect(readFileSync(file, 'utf8')).toBe('as the person changed it');

      const second = join(dir, 'edited-into-a-deny.txt');
      const denied = x.client.callTool({ name: 'fs__write_file', arguments: { path: second, content: 'no' } }, undefined, { timeout: 60_000 });
      const next = await waitingCall();
      const forbidden = join(dir, 'forbidden', 'edited.txt');
      expect((await team.api(`/api/pending/${next.id}`, X, { method: 'POST', body: { decision: 'Allow once', edit: { path: forbidden } } })).status).toBe(200);
      expect(textOf(await denied)).toContain('Denied by mcp-latch');
      expect(existsSync(second)).toBe(false);
      expect(existsSync(forbidden)).toBe(false);
    } finally {
      await x.close();
    }
  });

  test("X's Always allow goes to X's overlay only: Y is still asked", async () => {
    const file = join(dir, 'always.txt');
    const x = await teamClient(team.url, X, (params) => {
      const choices = ((params as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision).enum;
      return { action: 'accept', content: { decision: choices.find((choice) => choice.startsWith('Always allow'))! } };
    });
    const y = await teamClient(team.url, Y, () => ({ action: 'accept', content: { decision: 'Deny' } }));
    try {
      expect((await x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'x once' } })).isError).toBeFalsy();
      expect(x.elicitations).toHaveLength(1);
      expect((await x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'x again' } })).isError).toBeFalsy();
      expect(x.elicitations).toHaveLength(1);
      const config = JSON.parse(readFileSync(team.configPath, 'utf8'));
      expect(config.users.xavier.permissions.allow).toContain(`Edit(${file})`);
      expect(config.permissions.allow).not.toContain(`Edit(${file})`);
      expect((await team.api('/api/rules', X)).body.rules).toContain(`Edit(${file})`);
      expect((await team.api('/api/rules', Y)).body.rules).toEqual([]);
      expect((await team.api('/api/rules?user=xavier', Y)).status).toBe(403);
      expect((await team.api('/api/rules?user=xavier', ADMIN)).body.rules).toContain(`Edit(${file})`);

      const denied = await y.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'y' } });
      expect(textOf(denied)).toContain('Denied by mcp-latch');
      expect(y.elicitations).toHaveLength(1);
      expect(readFileSync(file, 'utf8')).toBe('x again');
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
  });

  test("a team deny is not lifted by the user's overlay", async () => {
    const x = await teamClient(team.url, X, () => ({ action: 'accept', content: { decision: 'Allow once' } }));
    try {
      const result = await x.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'forbidden', 'a.txt'), content: 'no' } });
      expect(textOf(result)).toContain('Denied by mcp-latch');
      expect(x.elicitations).toHaveLength(0);
    } finally {
      await x.close();
    }
  });

  test("another user's token cannot use a session", async () => {
    const x = await teamClient(team.url, X);
    try {
      const sessionId = (x.client.transport as { sessionId?: string }).sessionId!;
      const response = await fetch(team.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${Y}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
    } finally {
      await x.close();
    }
  });

  test('a cancelled waiting call is never run, and the audit names the user', async () => {
    const x = await teamClient(team.url, X);
    try {
      const file = join(dir, 'cancelled.txt');
      const abort = new AbortController();
      const call = x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'never' } }, undefined, { signal: abort.signal, timeout: 60_000 });
      const pending = await eventually(async () => {
        const listed = (await team.api('/api/pending', X)).body.pending as Array<{ id: string }>;
        expect(listed).toHaveLength(1);
        return listed[0]!;
      }, 30_000);
      abort.abort();
      await expect(call).rejects.toThrow();
      await eventually(async () => expect((await team.api('/api/pending', X)).body.pending).toEqual([]), 30_000);
      expect((await team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(404);
      expect(existsSync(file)).toBe(false);
      const audit = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      expect(audit.find((record) => record.tool === 'write_file' && record.decision === 'cancelled')).toMatchObject({ user: 'xavier' });
      expect(audit.every((record) => typeof record.user === 'string')).toBe(true);
    } finally {
      await x.close();
    }
  });
});
