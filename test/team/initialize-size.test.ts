import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { eventually, tempDir } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * What a session keeps of its `initialize` (round 33 review, T33-6; docs/team.md, "Sessions are
 * bounded"): the client's info and capabilities, for the session's life. Until round 33 an
 * initialize could be as large as limits.messageMB (10 MB), so one member's 100 sessions could keep
 * ~1 GB (30 sessions with an 8 MB client name took the gateway from 88 to 342 MB). The built gateway.
 */
const BOB = 'token-of-bob-initialize-0123456789';

describe('serve --http: the size of an initialize', () => {
  let team: TeamHarness;

  beforeAll(async () => {
    team = await startTeam(tempDir(), { http: { tokens: [{ user: 'bob', sha256: tokenHash(BOB) }] } });
  }, 60_000);

  afterAll(async () => {
    await team?.close();
  });

  function initialize(name: string): Promise<Response> {
    return fetch(team.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOB}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1.0.0' } } }),
    });
  }

  test('one past 64 KiB is refused (413) naming why, and opens no session; an ordinary client connects', async () => {
    const big = await initialize('n'.repeat(1024 * 1024));
    expect(big.status).toBe(413);
    expect(big.headers.get('mcp-session-id')).toBeNull();
    expect(((await big.json()) as { error: { message: string } }).error.message).toMatch(/the initialize request is [0-9]+ bytes, more than the 65536 a session keeps/);
    // The log line comes through the gateway's stderr, at times after the HTTP answer.
    await eventually(() => expect(team.stderr()).toMatch(/"user":"bob".*the initialize request is/));
    const edge = await initialize('n'.repeat(60 * 1024));
    expect(edge.status).toBe(200);
    await edge.body?.cancel();
    const bob = await teamClient(team.url, BOB);
    await bob.close();
  });

  // T33-7: a listen keeps its filter for its life, and a member holds up to http.maxSessionsPerUser of them.
  test('a subscriptions/listen past 256 KiB is refused (413) naming why; a small one is acknowledged', async () => {
    const listen = (uris: string[], signal?: AbortSignal) =>
      fetch(team.url, {
        method: 'POST',
        ...(signal ? { signal } : {}),
        headers: { authorization: `Bearer ${BOB}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'L1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, resourceSubscriptions: uris }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
      });
    const big = await listen(Array.from({ length: 100 }, (_, index) => `test://r/${index}/${'x'.repeat(4096)}`));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { message: string } }).error.message).toMatch(/the subscriptions\/listen request is [0-9]+ bytes, more than the 262144 a listen keeps/);
    const controller = new AbortController();
    const small = await listen(['test://r/1'], controller.signal);
    expect(small.status).toBe(200);
    controller.abort();
  });
});
