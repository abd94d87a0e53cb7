import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenHash } from '../../src/team/identity.js';
import { FS_SERVER, fixtureCalls, fixtureServer, tempDir, textOf } from '../helpers/gateway.js';
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
      // Both replicas' fixture servers write one log: what either was sent.
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, fix: fixtureServer('fix', join(dir, 'fix.log')) },
      workspace: [dir],
      permissions: { allow: ['mcp__fix__ask_user'] },
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

  const post = (url: string, body: { id: number; params: { name: string } & Record<string, unknown> }) =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${XAVIER}`, 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': body.params.name },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', ...body }),
    }).then((response) => response.json() as Promise<{ result: { resultType?: string; requestState: string; inputRequests: Record<string, { params: { message: string } }>; isError?: boolean; content?: Array<{ type: string; text: string }> } }>);

  test('is asked again, the prompt naming the other replica and the routing; the same answer on the replica that asked runs the call once', { timeout: 60_000 }, async () => {
    const file = join(dir, 'retried.txt');
    const params = { name: 'fs__write_file', arguments: { path: file, content: 'approved' }, _meta: ENVELOPE };
    const paused = await post(a.url, { id: 1, params });
    expect(paused.result.resultType).toBe('input_required');
    const answered = { ...params, inputResponses: { 'mcp-latch/approval': { action: 'accept', content: { decision: 'Allow once' } } }, requestState: paused.result.requestState };
    const elsewhere = await post(b.url, { id: 2, params: answered });
    expect(elsewhere.result.resultType).toBe('input_required');
    const message = elsewhere.result.inputRequests['mcp-latch/approval']!.params.message;
    expect(message).toMatch(/^Your earlier answer to this prompt was not used: the prompt you answered was issued by another mcp-latch process \(another replica of this team gateway/);
    // What this replica knows, no more: it has not sent the call (round 24).
    expect(message).toContain('this one has not sent the call to its server');
    expect(message).not.toMatch(/not run/);
    expect(message).toContain('Each request of a member must reach one replica (docs/team.md, "Two replicas")');
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

  // Round 24: the answer to a 2025 server's question held on A (the call sent to its server there,
  // waiting for it) reached B. Until then B decided the call anew: allowed, it ran a second time,
  // its server asking the same question with no word of why. Now B ends it, sending nothing, and
  // says where the call is; on A the same answer still reaches the waiting call.
  test("an answer to a server's question held on the other replica ends the call there, not sent again; on A it reaches the waiting call", { timeout: 60_000 }, async () => {
    const log = join(dir, 'fix.log');
    const sent = () => fixtureCalls(log).filter((entry) => entry.tool === 'ask_user' && entry.args !== undefined).length;
    const params = { name: 'fix__ask_user', arguments: { question: 'Colour?' }, _meta: ENVELOPE };
    const asked = await post(a.url, { id: 5, params });
    expect(asked.result.resultType).toBe('input_required');
    expect(Object.keys(asked.result.inputRequests)).toEqual(['mcp-latch/server/elicitation']);
    expect(sent()).toBe(1);
    const answered = { ...params, inputResponses: { 'mcp-latch/server/elicitation': { action: 'accept', content: { answer: 'blue' } } }, requestState: asked.result.requestState };
    const elsewhere = await post(b.url, { id: 6, params: answered });
    expect(elsewhere.result.resultType).not.toBe('input_required');
    expect(elsewhere.result.isError).toBe(true);
    const text = elsewhere.result.content![0]!.text;
    expect(text).toContain('your answer was to a question fix asked while this call ran through another mcp-latch process');
    expect(text).toContain('This one has not sent the call to its server and does not.');
    expect(sent()).toBe(1);
    const here = await post(a.url, { id: 7, params: answered });
    expect(here.result.isError ?? false).toBe(false);
    expect(JSON.parse(textOf(here.result as Parameters<typeof textOf>[0]))).toEqual({ action: 'accept', content: { answer: 'blue' } });
    expect(sent()).toBe(1);
  });
});
