import { afterEach, describe, expect, test } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { eventually, startGateway, textOf, type Harness } from '../helpers/gateway.js';
import { startHttpServer, stopHttpServer, stopHttpServers } from '../helpers/http-server.js';
import { freePort } from '../helpers/ports.js';

/**
 * A remote (Streamable HTTP) server that restarts on the same port: it no longer knows the
 * gateway's session and answers 404. The gateway starts a new session (with the supervisor's
 * backoff), sends the refused call again on it, re-reads the lists, and says list_changed only when
 * they changed.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
  await stopHttpServers();
});

describe('a remote server restarted on the same port', () => {
  test('a session the server no longer knows (HTTP 404): the call is sent again on a new session', async () => {
    const port = await freePort();
    const server = await startHttpServer(port);
    harness = await startGateway({ mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp`, type: 'http' } }, permissions: { allow: ['mcp__web'] } });
    expect(textOf(await harness.client.callTool({ name: 'web__sessions', arguments: {} }))).toBe('1');
    await harness.client.callTool({ name: 'web__forget', arguments: {} });
    const answer = await harness.client.callTool({ name: 'web__echo', arguments: { text: 'again' } });
    expect(answer.isError, textOf(answer)).toBeFalsy();
    expect(textOf(answer)).toContain('again');
    // The same process, a second session; the call ran once, on it.
    expect(textOf(await harness.client.callTool({ name: 'web__whoami', arguments: {} }))).toBe(String(server.pid));
    expect(textOf(await harness.client.callTool({ name: 'web__sessions', arguments: {} }))).toBe('2');
    expect(harness.stderr()).toContain('the remote session ended (HTTP 404)');
  }, 60_000);

  test('calls answer again on a new session; list_changed only when the lists changed', async () => {
    const port = await freePort();
    let server = await startHttpServer(port);
    // addedTools "ask": the tool the restarted server adds is listed at once (docs/pins.md, "A tool added later"); held under "hold".
    harness = await startGateway({ mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp`, type: 'http' } }, permissions: { allow: ['mcp__web'] }, policy: { addedTools: 'ask' } });
    let listChanged = 0;
    harness.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged += 1;
    });
    const whoami = async () => {
      const answer = await harness!.client.callTool({ name: 'web__whoami', arguments: {} });
      expect(answer.isError, textOf(answer)).toBeFalsy();
      return Number(textOf(answer));
    };
    expect((await harness.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['web__echo', 'web__forget', 'web__sessions', 'web__whoami']);
    expect(await whoami()).toBe(server.pid);

    // Same tools after the restart: the call that met the ended session is sent again on a new one.
    await stopHttpServer(server);
    server = await startHttpServer(port);
    expect(await whoami()).toBe(server.pid);

    // A restart that adds a tool: the new list, announced once.
    await stopHttpServer(server);
    server = await startHttpServer(port, { HTTP_EXTRA_TOOL: '1' });
    expect(await whoami()).toBe(server.pid);
    await eventually(() => expect(listChanged).toBeGreaterThanOrEqual(1), 20_000);
    expect((await harness.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['web__echo', 'web__extra', 'web__forget', 'web__sessions', 'web__whoami']);
    // Messages arrive in order: had the first restart (same lists) been announced, its notification
    // would have come long before this one.
    expect(listChanged).toBe(1);
  }, 90_000);

  test('while the server is down, calls say it is unavailable; once it is back, it reconnects by itself', async () => {
    const port = await freePort();
    const server = await startHttpServer(port);
    harness = await startGateway({ mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp`, type: 'http' } }, permissions: { allow: ['mcp__web'] } });
    expect(textOf(await harness.client.callTool({ name: 'web__echo', arguments: { text: 'up' } }))).toContain('up');
    await stopHttpServer(server);
    const down = await harness.client.callTool({ name: 'web__echo', arguments: { text: 'down' } });
    expect(down.isError).toBe(true);
    expect(textOf(down)).toContain('was not run');
    expect(textOf(down)).toContain('ECONNREFUSED');
    const back = await startHttpServer(port);
    // Back without a call: the failed connection is retried at the backoff's pace.
    await eventually(() => expect(harness!.stderr().split('"msg":"server ready"').length - 1).toBeGreaterThanOrEqual(2), 60_000, 200);
    const answer = await harness.client.callTool({ name: 'web__whoami', arguments: {} });
    expect(Number(textOf(answer))).toBe(back.pid);
  }, 90_000);
});
