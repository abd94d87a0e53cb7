import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, type CreateMessageRequest, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { tokenHash } from '../../src/team/identity.js';
import { ROOT, eventually, tempDir } from '../helpers/gateway.js';
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

// Round 28: prompts/get, completion/complete and resources/read ended their origin at once when
// cancelled or timed out (P27-2 fixed tools/call only), so the server's later sampling request and
// log for them went to the one other member with a call running there.
test.each([
  ['prompts/get', (client: Client, secret: string, signal: AbortSignal) => client.getPrompt({ name: 'late__later', arguments: { secret, ms: '1500' } }, { signal })],
  ['completion/complete', (client: Client, secret: string, signal: AbortSignal) => client.complete({ ref: { type: 'ref/prompt', name: 'late__later' }, argument: { name: 'secret', value: secret } }, { signal })],
  ['resources/read', (client: Client, secret: string, signal: AbortSignal) => client.readResource({ uri: `late://later/${secret}` }, { signal })],
])("bob's cancelled %s: its server's sampling request and log reach no other member", { timeout: 60_000 }, async (_method, request) => {
  // A gateway of its own: a call of bob's given up in another test may linger on the shared one.
  const own = await startTeam(tempDir(), {
    mcpServers: { late: { command: process.execPath, args: [LATE] } },
    http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }, { user: 'bob', sha256: tokenHash(BOB) }] },
    permissions: { allow: ['mcp__late'] },
  } as never);
  const alice = await member(own.url, ALICE);
  const bob = await member(own.url, BOB);
  try {
    const abort = new AbortController();
    const bobs = request(bob.client, 'BOB-PRIVATE-28', abort.signal).catch((e: unknown) => String(e));
    // Cancelled once the server works on it (its stderr line is in the gateway's log).
    await eventually(() => expect(own.stderr()).toContain('late: working for BOB-PRIVATE-28'), 20_000, 20);
    abort.abort('bob changed his mind');
    await bobs;
    // Alice's own call runs on the same server meanwhile, past the time the server asks.
    const alices = await alice.client.callTool({ name: 'late__busy', arguments: { ms: 3000 } });
    expect(JSON.stringify(alices)).toContain('busy done');
    expect(JSON.stringify({ samplings: alice.samplings, logs: alice.logs })).not.toContain('BOB-PRIVATE-28');
  } finally {
    await alice.close();
    await bob.close();
    await own.close();
  }
});

test("bob's timed-out resources/read: its server's sampling request reaches no other member", { timeout: 60_000 }, async () => {
  const timed = await startTeam(tempDir(), {
    mcpServers: { late: { command: process.execPath, args: [LATE] } },
    http: { tokens: [{ user: 'alice', sha256: tokenHash(ALICE) }, { user: 'bob', sha256: tokenHash(BOB) }] },
    permissions: { allow: ['mcp__late'] },
    timeouts: { callSeconds: 1 },
  } as never);
  const alice = await member(timed.url, ALICE);
  const bob = await member(timed.url, BOB);
  try {
    expect(String(await bob.client.readResource({ uri: 'late://later/BOB-TIMED-OUT-28' }).catch((e: unknown) => String(e)))).toContain('timed out');
    await Promise.all([alice.client.callTool({ name: 'late__busy', arguments: { ms: 800 } }), alice.client.callTool({ name: 'late__busy', arguments: { ms: 900 } })]);
    expect(JSON.stringify({ samplings: alice.samplings, logs: alice.logs })).not.toContain('BOB-TIMED-OUT-28');
  } finally {
    await alice.close();
    await bob.close();
    await timed.close();
  }
});
