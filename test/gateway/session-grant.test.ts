import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING_SERVER, eventually, fixtureCalls, fixtureServer, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * "Allow for this session" on a call with no path or command (a bare tool subject), through the
 * BUILT gateway and the SDK Client answering the prompt. Before round 12 the grant was kept as the
 * tool's rule (`mcp__fix__echo`) but decide() never looked at the session's rules for a tool
 * subject, so the next identical call asked again (round 11 review, rev-surf F15). Since round 16
 * the grant is the tool's rule only for a tool whose arguments cannot matter, else the exact call.
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

const answer = (decision: string) => (): ElicitResult => ({ action: 'accept', content: { decision } });

test('"Allow for this session" on a tool call with no path or command: the identical call is not asked again, one with other arguments is', async () => {
  const dir = tempDir();
  const log = join(dir, 'fixture.log');
  const h = await startGateway({ mcpServers: { fix: fixtureServer('fix', log) }, workspace: [dir] }, { dir, onElicit: answer('Allow for this session') });
  harnesses.push(h);

  const first = await h.client.callTool({ name: 'fix__echo', arguments: { text: 'hi' } });
  expect(first.isError, textOf(first)).toBeFalsy();
  expect(h.elicitations).toHaveLength(1);
  const offered = (h.elicitations[0] as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum;
  expect(offered).toContain('Allow for this session');
  // The tool takes arguments: what is remembered is the call shown, not the tool (docs/approval.md, "Answers").
  expect(offered.some((choice) => choice.startsWith('Always allow'))).toBe(false);
  expect(h.elicitations[0]!.message).toContain('"Allow for this session" allows: this exact call (until the client disconnects)');

  const second = await h.client.callTool({ name: 'fix__echo', arguments: { text: 'hi' } });
  expect(second.isError, textOf(second)).toBeFalsy();
  expect(h.elicitations).toHaveLength(1);
  const other = await h.client.callTool({ name: 'fix__echo', arguments: { text: 'other' } });
  expect(other.isError, textOf(other)).toBeFalsy();
  expect(h.elicitations).toHaveLength(2);
  expect(fixtureCalls(log).filter((call) => call['tool'] === 'echo')).toHaveLength(3);

  const audit = await eventually(() => {
    const lines = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(3);
    return lines;
  });
  expect(audit[0]).toMatchObject({ server: 'fix', tool: 'echo', decision: 'allow', by: 'user' });
  expect(audit[1]).toMatchObject({ server: 'fix', tool: 'echo', decision: 'allow', by: 'grant' });
  expect(audit[2]).toMatchObject({ server: 'fix', tool: 'echo', decision: 'allow', by: 'user' });
});

test('a tool that declares no arguments, called with none, is remembered whole: the next call is not asked', async () => {
  const dir = tempDir();
  const log = join(dir, 'fixture.log');
  const h = await startGateway({ mcpServers: { fix: fixtureServer('fix', log) }, workspace: [dir] }, { dir, onElicit: answer('Allow for this session') });
  harnesses.push(h);
  await h.client.callTool({ name: 'fix__whoami', arguments: {} });
  expect(h.elicitations[0]!.message).toContain('"Allow for this session" allows: mcp__fix__whoami (until the client disconnects)');
  const again = await h.client.callTool({ name: 'fix__whoami', arguments: {} });
  expect(again.isError, textOf(again)).toBeFalsy();
  expect(h.elicitations).toHaveLength(1);
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

// Round 15 left: "Always allow" on a call decided as the whole tool saved the tool's rule, so one
// approved gzip-file-as-resource of a data: URI let the next call fetch any URL unasked.
test('server-everything: a tool that takes arguments is not offered "Always allow" as the whole tool; a later call with another URL asks', async () => {
  const dir = tempDir();
  let fetched = 0;
  const web = createServer((_request, response) => {
    fetched += 1;
    response.end('from the network');
  });
  await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
  try {
    const port = (web.address() as AddressInfo).port;
    let asked = 0;
    const h = await startGateway({ mcpServers: { ev: { command: process.execPath, args: [EVERYTHING_SERVER] } }, workspace: [dir] }, {
      dir,
      onElicit: (params) => {
        asked += 1;
        const choices = (params as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum;
        const always = choices.find((choice) => choice.startsWith('Always allow'));
        return { action: 'accept', content: { decision: asked === 1 ? (always ?? 'Allow for this session') : 'Deny' } };
      },
    });
    harnesses.push(h);
    const first = await h.client.callTool({ name: 'ev__gzip-file-as-resource', arguments: { name: 'a.gz', data: 'data:text/plain,hello', outputType: 'resource' } });
    expect(first.isError, textOf(first)).toBeFalsy();
    const later = await h.client.callTool({ name: 'ev__gzip-file-as-resource', arguments: { name: 'b.gz', data: `http://127.0.0.1:${port}/exfil`, outputType: 'resource' } });
    expect(textOf(later)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    expect(fetched).toBe(0);
    expect(h.elicitations).toHaveLength(2);
    expect(JSON.parse(readFileSync(h.configPath, 'utf8')).permissions?.allow ?? []).toEqual([]);

    // One that declares none is remembered whole, and "Always allow" says so.
    await h.client.callTool({ name: 'ev__toggle-simulated-logging', arguments: {} });
    const choices = (h.elicitations[2] as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum;
    expect(choices).toContain('Always allow: mcp__ev__toggle-simulated-logging');
  } finally {
    web.close();
  }
}, 60_000);
