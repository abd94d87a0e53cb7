import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { createInterface } from 'node:readline';
import { afterEach, expect, test } from 'vitest';
import { BIN, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * `serve --http` on a loopback port that is taken. A fixed port can be bound by any local user while
 * the gateway is down; clients configured for it then send their `Authorization` header (an
 * `http.tokens` token) to that process (round 18 review, L6). The gateway's EADDRINUSE now says
 * who holds the port, from /proc/net/tcp, and what that means. docs/team.md#listening.
 */
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function serveOn(port: number): { status: number | null; stderr: string } {
  const dir = tempDir();
  const config = writeConfig(dir, {});
  return spawnSync(process.execPath, [BIN, 'serve', '--http', '--port', String(port), '--config', config], { encoding: 'utf8', timeout: 30_000 });
}

test.runIf(process.platform === 'linux' && process.getuid?.() === 0)('a port held by another user: the gateway names the uid and says clients may have sent their token there', async () => {
  // The other local user: uid 65534 listening on a loopback port, as a squatter would.
  const squatter: ChildProcess = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>console.log(s.address().port))"], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => squatter.kill('SIGTERM'));
  const port = Number(await new Promise<string>((resolve) => createInterface({ input: squatter.stdout! }).once('line', resolve)));
  expect(port).toBeGreaterThan(0);

  const run = serveOn(port);
  expect(run.status).toBe(1);
  expect(run.stderr).toContain(`127.0.0.1:${port} is in use by process ${squatter.pid}, uid 65534`);
  expect(run.stderr).toContain('not by you: MCP clients configured for this address may have sent their Authorization header to that process');
  expect(run.stderr).toContain('mcp-latch token');
});

test.runIf(process.platform === 'linux')('a port held by a process of the same user: the gateway says so, and names no other user', async () => {
  const own: Server = createServer();
  await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => own.close());
  const port = (own.address() as { port: number }).port;

  const run = serveOn(port);
  expect(run.status).toBe(1);
  expect(run.stderr).toContain(`127.0.0.1:${port} is in use by another process of yours (process ${process.pid})`);
  expect(run.stderr).not.toContain('uid ');
});
