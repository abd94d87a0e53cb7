import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * The approver's credential is not the client's (docs/team.md#approvers). Until round 13 the token
 * an MCP client sends also answered that user's waiting calls through /api, so a model that read it
 * (from the client's config, with a shell tool the gateway does not decide) approved its own calls.
 * Now a user with an `approver` token answers only with it; a user without one keeps the old
 * behaviour, and the gateway warns about them at start. The built gateway, the SDK client, the real
 * filesystem server.
 */
const X = 'token-of-xavier-client-0123456789';
const X_APPROVER = 'token-of-xavier-approver-012345';
const Y = 'token-of-yvonne-client-0123456789';
const Z = 'token-of-zoe-client-0123456789abc';
/** The 2026-07-28 envelope of a client that shows forms (src/mcp-2026.ts). */
const MODERN = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'modern', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };

describe('serve --http: approver tokens', () => {
  let dir: string;
  let team: TeamHarness;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
      http: {
        tokens: [
          { user: 'xavier', sha256: tokenHash(X) },
          { user: 'xavier', role: 'approver', sha256: tokenHash(X_APPROVER) },
          { user: 'yvonne', sha256: tokenHash(Y) },
          { user: 'zoe', sha256: tokenHash(Z) },
        ],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  /** One JSON-RPC request to /mcp as `token`, in session `session` (none: a new session's initialize); the SSE answer read. */
  let nextId = 1;
  async function rpc(token: string, session: string | null, method: string, params: Record<string, unknown>) {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (session) Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' });
    const response = await fetch(team.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }) });
    const text = await response.text();
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    return { session: response.headers.get('mcp-session-id'), body: JSON.parse(data) as { result?: Record<string, any>; error?: unknown } };
  }

  /** A session opened by hand, that declares no forms in its handshake (its 2026-07-28 requests may in their envelope). */
  async function rawSession(token: string): Promise<string> {
    const opened = await rpc(token, null, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': opened.session! };
    await fetch(team.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    return opened.session!;
  }

  /** A write that asks and waits in the store (the client shows no forms); resolves with its pending id. */
  async function waiting(token: string, user: string, file: string) {
    const x = await teamClient(team.url, token);
    const call = x.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: `written for ${user}` } }, undefined, { timeout: 60_000 });
    return { client: x, call, id: (await onePending(token)).id };
  }

  /** The one call waiting for the user of `token`, once it waits. */
  function onePending(token: string) {
    return eventually(async () => {
      const listed = (await team.api('/api/pending', token)).body.pending as Array<{ id: string }>;
      expect(listed).toHaveLength(1);
      return listed[0]!;
    }, 30_000);
  }

  test("the client's token of a user with an approver token cannot answer that user's call; the approver's can", async () => {
    const file = join(dir, 'xavier.txt');
    const { client, call, id } = await waiting(X, 'xavier', file);
    try {
      const refused = await team.api(`/api/pending/${id}`, X, { method: 'POST', body: { decision: 'Allow once' } });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toContain("answer with xavier's approver credential");
      expect((await team.api('/api/rules', X, { method: 'DELETE', body: { rule: 'mcp__fs' } })).status).toBe(403);
      expect(existsSync(file)).toBe(false);

      // The approver token reads and answers xavier's calls, and is who /api/me says.
      expect((await team.api('/api/me', X_APPROVER)).body).toEqual({ user: 'xavier', role: 'approver', approves: true });
      expect((await team.api(`/api/pending/${id}`, X_APPROVER)).body).toMatchObject({ id, user: 'xavier' });
      expect((await team.api(`/api/pending/${id}`, X_APPROVER, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
      expect(textOf(await call)).toContain('Successfully wrote');
      expect(readFileSync(file, 'utf8')).toBe('written for xavier');
    } finally {
      await client.close();
    }
  });

  test('an approver token makes no MCP calls', async () => {
    await expect(teamClient(team.url, X_APPROVER)).rejects.toThrow(/approver credential of xavier/);
  });

  test('a user with no approver token answers with the client token, as before, and the start log names that user', async () => {
    expect(team.stderr()).toContain('http.tokens: yvonne, zoe have no approver token');
    expect(team.stderr()).not.toMatch(/http\.tokens: [^"]*xavier/);
    const file = join(dir, 'yvonne.txt');
    const { client, call, id } = await waiting(Y, 'yvonne', file);
    try {
      expect((await team.api(`/api/pending/${id}`, X_APPROVER, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(403);
      expect((await team.api(`/api/pending/${id}`, Y, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
      expect(textOf(await call)).toContain('Successfully wrote');
    } finally {
      await client.close();
    }
  });

  // Round 16 review T1: the client's token opened a second session that declared forms, and
  // answered the gateway's prompt there itself ("Always allow" written to the config, audited `by:
  // user`). A user with an approver credential is never shown the gateway's prompt in a client.
  test('a session of a user with an approver token is not shown the prompt, even when its client shows forms: the call waits for the approver', async () => {
    const file = join(dir, 'self.txt');
    const self = await teamClient(team.url, X, () => ({ action: 'accept', content: { decision: 'Allow once' } }));
    try {
      const call = self.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'approved by the model itself' } }, undefined, { timeout: 60_000 });
      const pending = await onePending(X_APPROVER);
      expect(self.elicitations).toEqual([]);
      expect(existsSync(file)).toBe(false);
      expect((await team.api(`/api/pending/${pending.id}`, X_APPROVER, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
      expect(textOf(await call)).toContain('Denied by mcp-latch');
      expect(existsSync(file)).toBe(false);
      expect(JSON.parse(readFileSync(team.configPath, 'utf8')).users).toBeUndefined();
    } finally {
      await self.close();
    }
  });

  test('a 2026-07-28 request whose envelope shows forms is not paused as input_required for a user with an approver token: it waits for the approver', async () => {
    const file = join(dir, 'modern-self.txt');
    const session = await rawSession(X);
    const call = rpc(X, session, 'tools/call', { name: 'fs__write_file', arguments: { path: file, content: 'x' }, _meta: MODERN });
    const pending = await onePending(X_APPROVER);
    expect(existsSync(file)).toBe(false);
    expect((await team.api(`/api/pending/${pending.id}`, X_APPROVER, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
    const answered = await call;
    expect(answered.body.result?.resultType).not.toBe('input_required');
    expect(JSON.stringify(answered.body.result?.content)).toContain('Successfully wrote');
  });

  // Round 19 review of the 2026-07-28 path, F6: a team session always did initialize, which selects
  // the handshake era for it (2026-07-28 basic/versioning); a request's envelope claiming forms made
  // the call pause as a result its caller answered itself (before: this test issued such a prompt
  // and checked its retry once zoe had an approver token). Now it is served as the handshake said.
  test('a 2026-07-28 envelope in a team session is served as its handshake said: not paused as input_required, the call waits for the user', async () => {
    const file = join(dir, 'zoe.txt');
    const session = await rawSession(Z);
    const call = rpc(Z, session, 'tools/call', { name: 'fs__write_file', arguments: { path: file, content: 'for zoe' }, _meta: MODERN });
    const pending = await onePending(Z);
    expect(existsSync(file)).toBe(false);
    expect((await team.api(`/api/pending/${pending.id}`, Z, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
    const answered = await call;
    expect(answered.body.result?.resultType).toBeUndefined();
    expect(JSON.stringify(answered.body.result?.content)).toContain('Denied by mcp-latch');
    expect(existsSync(file)).toBe(false);
  });

  // Round 21: 2026-07-28 requests without a session are served (docs/team.md, "MCP 2026-07-28 clients"); the approver's credential still answers.
  test('a stateless 2026-07-28 client (v2 Client pinned) of a user with an approver token is not shown the prompt: its call waits for the approver', async () => {
    const file = join(dir, 'stateless-xavier.txt');
    const client = new Client({ name: 'stateless', version: '1' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const shown: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      shown.push(request.params);
      return { action: 'accept', content: { decision: 'Allow once' } } as never;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${X}` } } }));
    try {
      const call = client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'x' } }, { timeout: 60_000 });
      const pending = await onePending(X_APPROVER);
      expect(existsSync(file)).toBe(false);
      expect((await team.api(`/api/pending/${pending.id}`, X, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(403);
      expect((await team.api(`/api/pending/${pending.id}`, X_APPROVER, { method: 'POST', body: { decision: 'Allow once' } })).status).toBe(200);
      expect(JSON.stringify((await call).content)).toContain('Successfully wrote');
      expect(shown).toEqual([]);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
