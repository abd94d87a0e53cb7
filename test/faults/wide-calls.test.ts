import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { readAudit } from '../../src/store/audit.js';
import { tokenHash } from '../../src/team/identity.js';
import { faultServer } from '../helpers/faults.js';
import { startGateway, tempDir, textOf } from '../helpers/gateway.js';
import { startTeam, teamClient } from '../helpers/team.js';

/**
 * A client's tools/call whose arguments are one object of 300,000 keys took the gateway 1.4–4 s of
 * CPU to decide while every other call of every client waited (round 13 review R12). A call of
 * more than 10,000 values as written is refused before it is parsed, naming the limit
 * (docs/config.md, "limits"), and never run; one under it is decided and run as before. Through
 * the built gateway, stdio and team, with the SDK Client in front of the fault server.
 */
const TOKEN = 'token-of-xavier-0123456789';
const wide = (keys: number) => Object.fromEntries(Array.from({ length: keys }, (_, index) => [`k${index}`, 1]));

function calledTools(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

async function refusal(client: Client, args: Record<string, unknown>): Promise<McpError> {
  const error = await client.callTool({ name: 'f__echo', arguments: args }).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

async function checkRefusedAndRun(client: Client, dir: string): Promise<void> {
  const error = await refusal(client, { text: 'wide', wide: wide(20_000) });
  expect(error.code).toBe(-32602);
  // Its own text is the SDK Client's line (jsonrpc, id, method, params, name, arguments, text, wide and its keys), 20,009 values.
  expect(error.message).toBe('MCP error -32602: Invalid params for tools/call: the request holds 20,009 values as written, more than the 10,000 mcp-latch checks in one call (docs/config.md, "limits"); it was not run');
  // A deep one under it is refused by its depth (the SDK Client overflows its stack on 5,000 levels; bench/wide-messages.js sends 300,000).
  const deep = await refusal(client, { text: 'deep', deep: JSON.parse(`${'{"a":'.repeat(1_000)}1${'}'.repeat(1_000)}`) as unknown });
  expect(deep.message).toBe('MCP error -32602: Invalid params for tools/call: arguments nest deeper than 100 levels, the most mcp-latch checks');
  // Under the limit: decided and run as before.
  const under = await client.callTool({ name: 'f__echo', arguments: { text: 'under', wide: wide(9_000) } });
  expect(JSON.parse(textOf(under))).toEqual({ text: 'under', wide: wide(9_000) });
  expect(calledTools(join(dir, 'calls'))).toEqual(['echo']);
  // Every refusal is recorded (round 14 left: the wide call's was not), its text not parsed.
  const records = readAudit(join(dir, 'mcp-latch-audit.jsonl'), 100);
  expect(records.map((record) => [record.tool, record.decision, record.by, (record.args as { text?: string } | null)?.text ?? null])).toEqual([
    ['tools/call', 'deny', 'gateway', null],
    ['tools/call', 'deny', 'gateway', null],
    ['echo', 'allow', 'rule', 'under'],
  ]);
  expect(records[0]!.reason).toBe(error.message.replace('MCP error -32602: ', ''));
  expect(records[1]!.reason).toBe(deep.message.replace('MCP error -32602: ', ''));
}

describe('a tools/call of more than 10,000 values', () => {
  test('serve: refused before it is parsed, never run, with the limit named; one of 9,000 keys runs', async () => {
    const dir = tempDir();
    const harness = await startGateway({ mcpServers: { f: faultServer('works', join(dir, 'starts'), { FAULT_CALLS: join(dir, 'calls') }) }, permissions: { allow: ['mcp__f'] } }, { dir });
    try {
      await checkRefusedAndRun(harness.client, dir);
    } finally {
      await harness.close();
    }
  }, 60_000);

  test('serve --http: the same for a team member', async () => {
    const dir = tempDir();
    const team = await startTeam(dir, { mcpServers: { f: faultServer('works', join(dir, 'starts'), { FAULT_CALLS: join(dir, 'calls') }) }, permissions: { allow: ['mcp__f'] }, http: { tokens: [{ user: 'xavier', sha256: tokenHash(TOKEN) }] } });
    const x = await teamClient(team.url, TOKEN);
    try {
      await checkRefusedAndRun(x.client, dir);
    } finally {
      await x.close();
      await team.close();
    }
  }, 60_000);

  // Round 20 review, T20-1: the refusal was audited under whatever Mcp-Session-Id came, before the
  // session was looked up: yvonne's record carried xavier's session id, or any text, answered 200.
  test("serve --http: a wide call naming another member's session, or none that exists, is 404 and recorded nowhere", async () => {
    const dir = tempDir();
    const YVONNE = 'token-of-yvonne-0123456789';
    const team = await startTeam(dir, { mcpServers: { f: faultServer('works', join(dir, 'starts'), { FAULT_CALLS: join(dir, 'calls') }) }, permissions: { allow: ['mcp__f'] }, http: { tokens: [{ user: 'xavier', sha256: tokenHash(TOKEN) }, { user: 'yvonne', sha256: tokenHash(YVONNE) }] } });
    const x = await teamClient(team.url, TOKEN);
    try {
      const xavierSession = (x.client.transport as { sessionId?: string }).sessionId!;
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'f__echo', arguments: wide(10_050) } });
      for (const session of [xavierSession, 'made-up-session <b>']) {
        const answer = await fetch(team.url, { method: 'POST', headers: { authorization: `Bearer ${YVONNE}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session }, body });
        expect(answer.status).toBe(404);
        expect(await answer.text()).toContain('Session not found');
      }
      // Xavier's own wide call in his session is refused and recorded under it, as before.
      await refusal(x.client, wide(10_050));
    } finally {
      await x.close();
      await team.close();
    }
    const records = readAudit(join(dir, 'mcp-latch-audit.jsonl'), 100);
    expect(records.filter((record) => record.user === 'yvonne')).toEqual([]);
    expect(records.filter((record) => record.session === 'made-up-session <b>')).toEqual([]);
    expect(records.filter((record) => record.tool === 'tools/call' && record.user === 'xavier')).toHaveLength(1);
  }, 60_000);
});
