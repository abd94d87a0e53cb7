import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EVERYTHING_SERVER, startGateway, textOf, type Harness } from '../helpers/gateway.js';
import { freePort } from '../helpers/ports.js';

/**
 * Remote servers: Streamable HTTP, and legacy SSE reached through the fallback (a `url`
 * without `type` tries Streamable HTTP first; the SSE-only server refuses it with 404). Both are
 * server-everything in its HTTP modes, on free local ports.
 */

function startHttpServer(mode: 'streamableHttp' | 'sse', port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/listening on port|running on port/i.test(seen)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited (${code}): ${seen}`)));
  });
}

describe('remote servers', () => {
  const children: ChildProcess[] = [];
  let harness: Harness;

  beforeAll(async () => {
    const [httpPort, ssePort] = [await freePort(), await freePort()];
    children.push(await startHttpServer('streamableHttp', httpPort), await startHttpServer('sse', ssePort));
    harness = await startGateway({
      mcpServers: {
        http: { url: `http://127.0.0.1:${httpPort}/mcp`, type: 'http', headers: { 'X-Trace': '${env:TRACE_ID}' } },
        legacy: { url: `http://127.0.0.1:${ssePort}/sse` },
      },
      permissions: { allow: ['mcp__http__echo', 'mcp__legacy__echo'] },
    }, { env: { TRACE_ID: 'abc' } });
  });

  afterAll(async () => {
    await harness?.close();
    for (const child of children) child.kill();
  });

  test('a Streamable HTTP server and an SSE-only server (by fallback) are both merged and callable', async () => {
    const names = (await harness.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('http__echo');
    expect(names).toContain('legacy__echo');
    expect(textOf(await harness.client.callTool({ name: 'http__echo', arguments: { message: 'over http' } }))).toContain('over http');
    expect(textOf(await harness.client.callTool({ name: 'legacy__echo', arguments: { message: 'over sse' } }))).toContain('over sse');
    expect(harness.stderr()).toContain('falling back to SSE');
  });

  test('remote calls go through the same rules', async () => {
    const result = await harness.client.callTool({ name: 'http__get-env', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Denied by mcp-latch:/);
  });
});
