import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { tokenHash } from '../../src/team/identity.js';
import { eventually, fixtureServer, tempDir, writeConfig } from '../helpers/gateway.js';
import { startTeam, type TeamHarness } from '../helpers/team.js';

/**
 * `subscriptions/listen` on the team gateway, round 22's notes (docs/team.md, "MCP 2026-07-28
 * clients"). The revision's listen delivers `notifications/tools/list_changed` "when tools change"
 * (basic/patterns/subscriptions); the gateway told a listen only of the lists the member's requests
 * had been sent, so a client that listened before (or without) listing was told nothing. And a
 * member's listens are at most http.maxSessionsPerUser, counted from the moment each is taken,
 * before the member's standing session has connected.
 */
const LENA = 'mlt_listen-test-token-lena-0123456789abc';
const MAX = 'mlt_listen-test-token-max-0123456789abcd';

describe('serve --http: subscriptions/listen', () => {
  let team: TeamHarness;
  let dir: string;
  let config: ConfigInput;
  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, (config = {
      mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) },
      permissions: { allow: ['mcp__fix'] },
      http: { tokens: [{ user: 'lena', sha256: tokenHash(LENA) }, { user: 'max', sha256: tokenHash(MAX) }], maxSessionsPerUser: 2 },
    }));
  }, 60_000);
  afterAll(async () => {
    await team?.close();
  });

  test('a listen opened before any list is told when the tools change (a server added at a reload); before round 23 it was told nothing', { timeout: 60_000 }, async () => {
    const client = new Client({ name: 'listen-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${LENA}` } } }), { timeout: 30_000 });
    const changed: string[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed.push('tools'));
    client.setNotificationHandler('notifications/prompts/list_changed', () => void changed.push('prompts'));
    try {
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
      // A call answered: the member's session has its first lists (none sent to it), then the operator adds a server.
      await client.callTool({ name: 'fix__echo', arguments: { text: 'up' } });
      writeConfig(dir, { ...config, mcpServers: { ...config.mcpServers, more: fixtureServer('more', join(dir, 'more.log')) } });
      await eventually(() => expect(changed).toContain('tools'), 30_000);
      // Only what it opted in to.
      expect(changed).not.toContain('prompts');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('more__echo');
      await subscription.close();
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  test('20 listens sent at once as the member\'s first requests: http.maxSessionsPerUser (2) are acknowledged, the rest 429 naming the key', { timeout: 60_000 }, async () => {
    const listen = (index: number) =>
      fetch(team.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${MAX}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
        body: JSON.stringify({ jsonrpc: '2.0', id: `L${index}`, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
      });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => listen(index)));
    try {
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(2);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused).toHaveLength(18);
      expect(((await refused[0]!.json()) as { error: { message: string } }).error.message).toContain('too many subscriptions/listen streams for user max: 2 are open, the limit is 2 (http.maxSessionsPerUser)');
    } finally {
      for (const answer of answers) await answer.body?.cancel().catch(() => undefined);
    }
  });
});
