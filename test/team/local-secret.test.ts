import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, FS_SERVER, eventually, tempDir, textOf, writeConfig } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * `serve --http` with no `http.tokens` or `http.oauth` (docs/team.md#identity). A port on 127.0.0.1
 * is open to every user and process of the machine (round 11 review, finding 5: uid 65534 read a
 * root-only file through the gateway and answered root's waiting call). Every request must now
 * carry the secret this run wrote to a file only its user can read. Another local user cannot be
 * made here, so what is asserted is what stands between them and the gateway: the file's mode and
 * owner, and the refusal of every request without the secret, with no tool run.
 */
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

describe('serve --http without http.tokens or http.oauth: the run\'s secret', () => {
  let dir: string;
  let team: TeamHarness;
  let secretFile: string;
  let secret: string;

  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      permissions: { allow: [`Edit(${dir}/**)`], ask: [`Edit(${dir}/asked/**)`] },
      approval: { fallback: 'browser-manual', timeoutSeconds: 60 },
    });
    secretFile = join(dir, '.mcp-latch-http-secret');
    // Read here once; a build without the secret leaves it empty, and each test below fails.
    secret = existsSync(secretFile) ? readFileSync(secretFile, 'utf8').trim() : '';
  }, 60_000);

  afterAll(async () => {
    await team?.close();
    // A stopped gateway's secret opens nothing; its file goes with it.
    expect(existsSync(secretFile)).toBe(false);
  });

  test('the secret is mls_ and 32 random bytes (a shape the redaction knows) in a file of mode 0600 owned by the gateway\'s user, and stderr says how a client sends it', () => {
    const stat = statSync(secretFile);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(stat.uid).toBe(process.getuid!());
    expect(secret).toMatch(/^mls_[A-Za-z0-9_-]{43}$/);
    expect(team.stderr()).toContain(`The secret is in ${secretFile}`);
    // Through a variable the client expands, never the secret on a command line or in a project
    // file (round 18 review, L2: `--header "Authorization: Bearer $(cat FILE)"` put it in the
    // client's argv, read by every local user in /proc).
    const help = team.stderr().slice(team.stderr().indexOf('no http.tokens or http.oauth'));
    expect(help).toContain('"headers": { "Authorization": "Bearer ${MCP_LATCH_SECRET}" }');
    expect(help).toContain(`export MCP_LATCH_SECRET="$(cat '${secretFile}')"`);
    expect(help).toContain('"password": true');
    expect(help).toContain('"Authorization": "Bearer ${input:mcp-latch-secret}"');
    expect(help).not.toContain('--header');
    expect(help).not.toContain('Bearer $(');
    expect(help).not.toContain(secret);
  });

  test('without the secret, or with another, the SDK client is refused 401 naming what is missing and the file', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-secret' }, { authorization: secret }] as Array<Record<string, string>>) {
      const client = new Client({ name: 'other-user', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers } });
      const refused = await client.connect(transport).then(
        () => null,
        (error: { code?: number; message: string }) => error,
      );
      await client.close().catch(() => undefined);
      expect(refused?.code).toBe(401);
      expect(refused?.message).toContain(secretFile);
      expect(refused?.message).toContain(Object.keys(headers).length === 0 ? 'no Authorization header' : "does not hold this run's secret");
    }
    // The Host check still comes first: with the secret, a foreign Host is refused (DNS rebinding).
    const { request } = await import('node:http');
    const foreign = await new Promise<number>((resolve, reject) => {
      const req = request(team.url, { method: 'GET', headers: { authorization: `Bearer ${secret}`, host: 'evil.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(foreign).toBe(403);
  });

  test('a tools/call into a live session without the secret is refused and the tool does not run; with it, it runs', async () => {
    const owner = await teamClient(team.url, secret);
    try {
      const transport = (owner.client as unknown as { transport: StreamableHTTPClientTransport }).transport;
      const session = transport.sessionId!;
      expect(session).toBeTruthy();
      const stolen = join(dir, 'stolen.txt');
      const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'fs__write_file', arguments: { path: stolen, content: 'x' } } };
      for (const authorization of [undefined, 'Bearer wrong']) {
        const response = await fetch(team.url, { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-session-id': session, ...(authorization ? { authorization } : {}) }, body: JSON.stringify(call) });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="mcp-latch"/);
        expect(((await response.json()) as { error: string }).error).toContain(secretFile);
      }
      expect(existsSync(stolen)).toBe(false);

      const mine = join(dir, 'mine.txt');
      const result = await owner.client.callTool({ name: 'fs__write_file', arguments: { path: mine, content: 'mine' } });
      expect(textOf(result)).toContain('Successfully wrote');
      expect(readFileSync(mine, 'utf8')).toBe('mine');
    } finally {
      await owner.close();
    }
  });

  test("the person's waiting call cannot be seen or answered without the secret; the page signs in with it", async () => {
    const owner = await teamClient(team.url, secret);
    const planted = join(dir, 'asked', 'planted.txt');
    try {
      const call = owner.client.callTool({ name: 'fs__write_file', arguments: { path: planted, content: 'planted' } }, undefined, { timeout: 60_000 });
      const pending = await eventually(async () => {
        const listed = await team.api('/api/pending', secret);
        expect(listed.status).toBe(200);
        expect(listed.body.pending).toHaveLength(1);
        return listed.body.pending[0];
      }, 20_000);
      expect(pending.user).toBe('local');

      for (const token of [null, 'wrong-secret']) {
        expect((await team.api('/api/pending', token)).status).toBe(401);
        expect((await team.api('/api/me', token)).status).toBe(401);
        const answer = await team.api(`/api/pending/${pending.id}`, token, { method: 'POST', body: { decision: 'Allow once' } });
        expect(answer.status).toBe(401);
        expect(answer.body.error).toContain(secretFile);
      }
      // Still waiting: nobody answered it.
      expect((await team.api(`/api/pending/${pending.id}`, secret)).status).toBe(200);
      expect(existsSync(planted)).toBe(false);

      // The page itself is static and holds no data; it signs in through /api/me with the secret.
      const page = await fetch(`${team.base}/approve`);
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain(secret);
      expect((await team.api('/api/me', secret)).body).toEqual({ user: 'local', role: 'admin', approves: true });

      expect((await team.api(`/api/pending/${pending.id}`, secret, { method: 'POST', body: { decision: 'Deny' } })).status).toBe(200);
      const result = await call;
      expect(result.isError).toBe(true);
      expect(existsSync(planted)).toBe(false);
    } finally {
      await owner.close();
    }
  });
});

describe('serve --http refuses to start on a secret file someone else could have made or read', () => {
  const start = (dir: string) => {
    const config = writeConfig(dir, {});
    return spawnSync(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', config], { encoding: 'utf8', timeout: 30_000 });
  };

  test('readable by others', () => {
    const dir = tempDir();
    const file = join(dir, '.mcp-latch-http-secret');
    writeFileSync(file, 'planted\n', { mode: 0o644 });
    const run = start(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`the gateway's secret file ${file} can be read or written by other users (mode 644)`);
    expect(readFileSync(file, 'utf8')).toBe('planted\n');
  });

  test('a symbolic link', () => {
    const dir = tempDir();
    const file = join(dir, '.mcp-latch-http-secret');
    symlinkSync(join(dir, 'elsewhere'), file);
    const run = start(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`the gateway's secret file ${file} is not a regular file`);
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
  });

  test.runIf(process.getuid?.() === 0)("another user's (as root: owned by uid 65534)", () => {
    const dir = tempDir();
    const file = join(dir, '.mcp-latch-http-secret');
    writeFileSync(file, 'planted\n', { mode: 0o600 });
    chownSync(file, 65534, 65534);
    const run = start(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`the gateway's secret file ${file} belongs to another user (uid 65534)`);
  });
});
