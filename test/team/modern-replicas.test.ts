import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, tempDir } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startTeam, type TeamHarness } from '../helpers/team.js';

/**
 * A 2026-07-28 member's retry that reaches another replica (round 22's note): the call came back
 * input_required from replica A, the person answered "Allow once" in the client, and the retry
 * carrying that answer reached replica B. B cannot honour A's state (it is spent once, in the memory
 * of the process that issued it: honouring it on B too could run the call twice), so the call is
 * asked again, fail closed. Until round 23 the prompt said "it was issued to another session", which
 * the member, who has no session in 2026-07-28, could not act on; it now names the replica and the
 * routing (docs/team.md, "Two replicas"). Two real replicas, one real redis-server.
 */
const XAVIER = 'mlt_modern-replicas-token-xavier-012345678';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };

describe('a 2026-07-28 retry on another replica', () => {
  let dir: string;
  let redis: TestRedis;
  let a: TeamHarness;
  let b: TeamHarness;
  beforeAll(async () => {
    dir = tempDir();
    redis = await startRedis();
    const config = {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
      workspace: [dir],
      http: { tokens: [{ user: 'xavier', sha256: tokenHash(XAVIER) }] },
      store: { url: redis.url },
    };
    a = await startTeam(dir, config);
    b = await startTeam(dir, config);
  }, 90_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  const post = (url: string, body: Record<string, unknown>) =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${XAVIER}`, 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'fs__write_file' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', ...body }),
    }).then((response) => response.json() as Promise<{ result: { resultType?: string; requestState: string; inputRequests: Record<string, { params: { message: string } }>; isError?: boolean } }>);

  test('is asked again, the prompt naming the other replica and the routing; the same answer on the replica that asked runs the call once', { timeout: 60_000 }, async () => {
    const file = join(dir, 'retried.txt');
    const params = { name: 'fs__write_file', arguments: { path: file, content: 'approved' }, _meta: ENVELOPE };
    const paused = await post(a.url, { id: 1, params });
    expect(paused.result.resultType).toBe('input_required');
    const answered = { ...params, inputResponses: { 'mcp-latch/approval': { action: 'accept', content: { decision: 'Allow once' } } }, requestState: paused.result.requestState };
    const elsewhere = await post(b.url, { id: 2, params: answered });
    expect(elsewhere.result.resultType).toBe('input_required');
    const message = elsewhere.result.inputRequests['mcp-latch/approval']!.params.message;
    expect(message).toMatch(/^Your earlier answer to this prompt was not used: it was issued by another mcp-latch process \(another replica of this team gateway/);
    expect(message).toContain('each request of a member must reach one replica (docs/team.md, "Two replicas")');
    expect(existsSync(file)).toBe(false);
    // The state was not spent on B: on A, where it was issued, the answer runs the call.
    const here = await post(a.url, { id: 3, params: answered });
    expect(here.result.resultType).not.toBe('input_required');
    expect(here.result.isError ?? false).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('approved');
    // And only once.
    const again = await post(a.url, { id: 4, params: answered });
    expect(again.result.resultType).toBe('input_required');
    expect(again.result.inputRequests['mcp-latch/approval']!.params.message).toContain('it was already used');
  });
});
