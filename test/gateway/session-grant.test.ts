import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { eventually, fixtureCalls, fixtureServer, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * "Allow for this session" on a call with no path or command (a bare tool subject), through the
 * BUILT gateway and the SDK Client answering the prompt. Before round 12 the grant was kept as the
 * tool's rule (`mcp__fix__echo`) but decide() never looked at the session's rules for a tool
 * subject, so the next identical call asked again (round 11 review, rev-surf F15).
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

const answer = (decision: string) => (): ElicitResult => ({ action: 'accept', content: { decision } });

test('"Allow for this session" on a tool call with no path or command: the identical call, and the next of the tool, are not asked again', async () => {
  const dir = tempDir();
  const log = join(dir, 'fixture.log');
  const h = await startGateway({ mcpServers: { fix: fixtureServer('fix', log) }, workspace: [dir] }, { dir, onElicit: answer('Allow for this session') });
  harnesses.push(h);

  const first = await h.client.callTool({ name: 'fix__echo', arguments: { text: 'hi' } });
  expect(first.isError, textOf(first)).toBeFalsy();
  expect(h.elicitations).toHaveLength(1);
  const offered = (h.elicitations[0] as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum;
  expect(offered).toContain('Allow for this session');
  // The prompt says what the session choice covers.
  expect(h.elicitations[0]!.message).toContain('"Allow for this session" allows: mcp__fix__echo (until the client disconnects)');

  const second = await h.client.callTool({ name: 'fix__echo', arguments: { text: 'hi' } });
  expect(second.isError, textOf(second)).toBeFalsy();
  // The grant is the tool's rule, as "Always allow" would save it for good (docs/approval.md, "Answers").
  const other = await h.client.callTool({ name: 'fix__echo', arguments: { text: 'other' } });
  expect(other.isError, textOf(other)).toBeFalsy();
  expect(h.elicitations).toHaveLength(1);
  expect(fixtureCalls(log).filter((call) => call['tool'] === 'echo')).toHaveLength(3);

  const audit = await eventually(() => {
    const lines = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(3);
    return lines;
  });
  expect(audit[0]).toMatchObject({ server: 'fix', tool: 'echo', decision: 'allow', by: 'user' });
  expect(audit[1]).toMatchObject({ server: 'fix', tool: 'echo', decision: 'allow', by: 'grant' });
  expect(audit[2]).toMatchObject({ server: 'fix', tool: 'echo', decision: 'allow', by: 'grant' });
});

test('the session grant of a tool is no wider than the tool: another tool of the server still asks, and a deny rule still wins', async () => {
  const dir = tempDir();
  const log = join(dir, 'fixture.log');
  const h = await startGateway(
    { mcpServers: { fix: fixtureServer('fix', log) }, workspace: [dir], permissions: { deny: ['mcp__fix__whoami'] } },
    { dir, onElicit: answer('Allow for this session') },
  );
  harnesses.push(h);
  await h.client.callTool({ name: 'fix__echo', arguments: { text: 'hi' } });
  expect(h.elicitations).toHaveLength(1);
  await h.client.callTool({ name: 'fix__slow', arguments: { ms: 1 } });
  expect(h.elicitations).toHaveLength(2);
  const denied = await h.client.callTool({ name: 'fix__whoami', arguments: {} });
  expect(textOf(denied)).toMatch(/^Denied by mcp-latch: the rule mcp__fix__whoami/);
});
