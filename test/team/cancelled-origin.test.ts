import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, type CreateMessageRequest, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { tokenHash } from '../../src/team/identity.js';
import { ROOT, tempDir } from '../helpers/gateway.js';
import { startTeam, type TeamHarness } from '../helpers/team.js';

/**
 * Review P27-2: a member's call cancelled (or timed out) at the gateway is no longer "running" on its
 * server, though the server has not answered it and may still be working for it: what the server
 * then asks or logs for that call goes to another member whose call runs there.
 */
const ALICE = 'token-of-alice-review27p-0123456789';
const BOB = 'token-of-bob-review27p-012345678901';
const LATE = join(ROOT, 'test/fixtures/late-server.mjs');

async function member(url: string, token: string) {
  const samplings: CreateMessageRequest['params'][] = [];
  const logs: LoggingMessageNotification['params'][] = [];
  const client = new Client({ name: 'r27p', version: '1' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    samplings.push(request.params);
    return { role: 'assistant', content: { type: 'text', text: 'answered by this member' }, model: 'm' };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport, { timeout: 30_000 });
  await client.setLoggingLevel('debug');
  return { client, samplings, logs, close: async () => { await transport.terminateSession().catch(() => undefined); await client.close().catch(() => undefined); } };
}

let team: TeamHarness;
beforeAll(async () => {
  team = await startTeam(tempDir(), {
    mcpServers: { late: { command: process.execPath, args: [LATE] } },
    http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }, { user: 'bob', sha256: tokenHash(BOB) }] },
    permissions: { allow: ['mcp__late'] },
  } as never);
}, 60_000);
afterAll(async () => team?.close());

test("bob's cancelled call's sampling request and log reach no other member while the server may still work on it", { timeout: 60_000 }, async () => {
  const alice = await member(team.url, ALICE);
  const bob = await member(team.url, BOB);
  try {
    // Bob's call: the server works 1.5 s, then samples with bob's data. Bob cancels it after 300 ms.
    const abort = new AbortController();
    const bobs = bob.client.callTool({ name: 'late__later', arguments: { secret: 'BOB-PRIVATE-42', ms: 1500 } }, undefined, { signal: abort.signal }).catch((e: unknown) => String(e));
    await new Promise((r) => setTimeout(r, 300));
    abort.abort('bob changed his mind');
    await bobs;
    // Alice's own call runs on the same server meanwhile.
    const alices = await alice.client.callTool({ name: 'late__busy', arguments: { ms: 3000 } });
    expect(JSON.stringify(alices)).toContain('busy done');
    const seen = JSON.stringify({ samplings: alice.samplings, logs: alice.logs });
    // Nothing of bob's call may reach alice.
    expect(seen).not.toContain('BOB-PRIVATE-42');
  } finally {
    await alice.close();
    await bob.close();
  }
});

test("bob's timed-out call's sampling request reaches no other member", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const timed = await startTeam(dir, {
    mcpServers: { late: { command: process.execPath, args: [LATE] } },
    http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }, { user: 'bob', sha256: tokenHash(BOB) }] },
    permissions: { allow: ['mcp__late'] },
    timeouts: { callSeconds: 1 },
  } as never);
  const alice = await member(timed.url, ALICE);
  const bob = await member(timed.url, BOB);
  try {
    const bobs = await bob.client.callTool({ name: 'late__later', arguments: { secret: 'BOB-TIMED-OUT-7', ms: 1500 } });
    expect(JSON.stringify(bobs)).toContain('did not answer within');
    // Alice's calls run on the same server while bob's is still being worked on there.
    await Promise.all([alice.client.callTool({ name: 'late__busy', arguments: { ms: 800 } }), alice.client.callTool({ name: 'late__busy', arguments: { ms: 900 } })]);
    expect(JSON.stringify({ samplings: alice.samplings, logs: alice.logs })).not.toContain('BOB-TIMED-OUT-7');
  } finally {
    await alice.close();
    await bob.close();
    await timed.close();
  }
});
