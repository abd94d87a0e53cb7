import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, fixtureServer, tempDir } from '../helpers/gateway.js';
import { startTeam, teamClient, type TeamHarness } from '../helpers/team.js';

/**
 * MCP 2026-07-28 clients on the team gateway, round 22 (docs/team.md, "MCP 2026-07-28 clients").
 * The revision has no sessions over Streamable HTTP, and the gateway serves all of a member's such
 * clients in one standing session per replica: until round 22 "Allow for this session" answered in
 * one of them allowed the same calls of every other 2026-07-28 client of that member (another
 * agent, another machine with the same token) for as long as any of them kept posting.
 */
const WANDA = 'mlt_stateless-clients-test-token-wanda-0123';

describe('2026-07-28 clients of one member on the team gateway', () => {
  let team: TeamHarness;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    team = await startTeam(dir, {
      mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')), fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      permissions: { allow: ['mcp__fix'] },
      http: { tokens: [{ user: 'wanda', sha256: tokenHash(WANDA) }] },
    });
  }, 60_000);
  afterAll(async () => {
    await team?.close();
  });

  /** The official v2 Client pinned to 2026-07-28; its form answers `answer`, and each form it was shown is kept. */
  const modern = async (answer: string) => {
    const client = new Client({ name: 'stateless-clients-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const forms: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      forms.push(JSON.stringify(request.params));
      return { action: 'accept', content: { decision: answer } } as never;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(team.url), { requestInit: { headers: { authorization: `Bearer ${WANDA}` } } }), { timeout: 30_000 });
    return { client, forms };
  };

  test('"Allow for this session" is not offered to a 2026-07-28 client, and answering it grants nothing to the member\'s other clients; a session\'s client (2025) still has it', { timeout: 90_000 }, async () => {
    const file = join(dir, 'granted.txt');
    const first = await modern('Allow for this session');
    const second = await modern('Deny');
    try {
      const one = (await first.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'first' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(first.forms.length).toBeGreaterThan(0);
      for (const form of first.forms) expect(form).not.toContain('Allow for this session');
      // Not a choice it was offered: the call did not run on it.
      expect(one.isError).toBe(true);
      expect(existsSync(file)).toBe(false);
      // The member's other 2026-07-28 client is asked for the same call, and its Deny holds.
      const two = (await second.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'second' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(second.forms).toHaveLength(1);
      expect(two.isError).toBe(true);
      expect(two.content[0]!.text).toMatch(/^Denied by mcp-latch/);
      expect(existsSync(file)).toBe(false);
    } finally {
      await first.client.close().catch(() => undefined);
      await second.client.close().catch(() => undefined);
    }
    // A handshake-era client has a session of its own: the choice is offered there and holds in it.
    const old = await teamClient(team.url, WANDA, () => ({ action: 'accept', content: { decision: 'Allow for this session' } }));
    try {
      await old.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'old' } });
      expect(JSON.stringify(old.elicitations[0])).toContain('Allow for this session');
      expect(readFileSync(file, 'utf8')).toBe('old');
      await old.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'old again' } });
      expect(old.elicitations).toHaveLength(1);
      expect(readFileSync(file, 'utf8')).toBe('old again');
    } finally {
      await old.close();
    }
  });
});
