import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { tokenHash } from '../../src/team/identity.js';
import { BIN, eventually, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * `serve --http --host` beyond loopback (docs/team.md#listening). The gateway speaks plain HTTP:
 * bound to a network address, every member's bearer token (their approver token too), every call
 * and every answer crosses that network in clear, for anyone on it to take and use. Until round 32
 * it listened so with nothing said (round 32 review, T32-4); now only behind TLS (`http.resource`
 * an https: URL, the proxy of "Two replicas") or with `http.allowPlainHttp`, warned. Without
 * authentication it never listens there at all.
 */
const T = 'token-of-tess-client-0123456789ab';
const tokens = { tokens: [{ user: 'tess', sha256: tokenHash(T) }] };

function refusal(config: ConfigInput): { status: number | null; stderr: string } {
  const dir = tempDir();
  const path = writeConfig(dir, config);
  const run = spawnSync(process.execPath, [BIN, 'serve', '--http', '--host', '0.0.0.0', '--port', '0', '--config', path], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stderr: run.stderr };
}

describe('serve --http beyond loopback', () => {
  test('without authentication: refused', () => {
    const { status, stderr } = refusal({});
    expect(status).not.toBe(0);
    expect(stderr).toContain('refusing to listen on 0.0.0.0: it is not a loopback address and no authentication is configured');
  });

  test('with tokens, over plain HTTP: refused, naming http.resource and http.allowPlainHttp (before round 32 it listened)', () => {
    const { status, stderr } = refusal({ http: tokens });
    expect(status).not.toBe(0);
    expect(stderr).toContain("refusing to listen on 0.0.0.0: the gateway speaks plain HTTP, so every member's token");
    expect(stderr).toContain('set http.resource to its https: URL');
    // A resource of plain http: is no TLS either.
    expect(refusal({ http: { ...tokens, resource: 'http://latch.internal:8080/mcp' } }).stderr).toContain('refusing to listen on 0.0.0.0');
  });

  test('behind TLS (http.resource https:), or with http.allowPlainHttp (warned): listens', async () => {
    for (const http of [{ ...tokens, resource: 'https://latch.example/mcp' }, { ...tokens, allowPlainHttp: true }]) {
      const dir = tempDir();
      const child = spawn(process.execPath, [BIN, 'serve', '--http', '--host', '0.0.0.0', '--port', '0', '--config', writeConfig(dir, { http })], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      try {
        await eventually(() => expect(stderr).toMatch(/serving MCP on https?:\/\//), 60_000);
        if ('allowPlainHttp' in http) expect(stderr).toMatch(/"key":"http\.allowPlainHttp".*listening on 0\.0\.0\.0 with http\.allowPlainHttp: the gateway speaks plain HTTP/);
        else expect(stderr).not.toContain('allowPlainHttp');
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    }
  }, 120_000);
});
