import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { fixtureCalls, fixtureServer, rawGateway, startGateway, tempDir, textOf, writeConfig, type Harness } from '../helpers/gateway.js';

/**
 * What the model and the audit are told when a prompt got no clean answer, and when a denial's
 * record is written (round 15 review A9): the built gateway, the SDK Client or raw JSON-RPC lines,
 * the fixture server; the audit file read the moment the client has the result.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const records = (dir: string) =>
  readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

test('a client that answers the prompt with an error: the model is told that, not that the prompt could not be shown; the audit says the client', async () => {
  const dir = tempDir();
  const log = join(dir, 'fixture.log');
  harness = await startGateway({ mcpServers: { fix: fixtureServer('fix', log) }, workspace: [dir] }, {
    dir,
    onElicit: () => {
      throw new Error('renderer crashed');
    },
  });
  const result = await harness.client.callTool({ name: 'fix__echo', arguments: { text: 'x' } });
  expect(textOf(result)).toMatch(/^Denied by mcp-latch: the client returned an error instead of an answer to the approval prompt \(.*renderer crashed\), so the call was not run\.$/);
  expect(records(dir)).toEqual([expect.objectContaining({ tool: 'echo', decision: 'deny', by: 'client' })]);
  expect(fixtureCalls(log).filter((call) => call['tool'] === 'echo')).toEqual([]);
});

test('an answer that fails the form (Deny with a note that is not text) is the client\'s, not the person\'s: audited by client', async () => {
  const dir = tempDir();
  const log = join(dir, 'fixture.log');
  const raw = rawGateway(writeConfig(dir, { mcpServers: { fix: fixtureServer('fix', log) }, workspace: [dir] }));
  try {
    await raw.initialize({ elicitation: { form: {} } });
    raw.send({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: 'x' } } });
    const asked = await raw.find((message) => message.method === 'elicitation/create');
    raw.send({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { decision: 'Deny', note: 42 } } });
    const answered = await raw.response(10);
    expect(textOf(answered.result)).toBe('Denied by mcp-latch: the client returned an answer to the approval prompt that does not fit its form, so the call was not run.');
    expect(records(dir)).toEqual([expect.objectContaining({ tool: 'echo', decision: 'deny', by: 'client' })]);
  } finally {
    await raw.close();
  }
  expect(fixtureCalls(log).filter((call) => call['tool'] === 'echo')).toEqual([]);
});

test('a denial\'s record is in the audit file when the client has the result, as a forward\'s is before the call leaves', async () => {
  const dir = tempDir();
  harness = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, workspace: [dir], permissions: { deny: ['mcp__fix__echo'] } }, { dir });
  for (const text of ['a', 'b', 'c']) {
    const result = await harness.client.callTool({ name: 'fix__echo', arguments: { text } });
    // Read at once: before round 16 the record was written up to 20 ms after the result.
    const written = records(dir);
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: the rule mcp__fix__echo/);
    expect(written.at(-1)).toMatchObject({ tool: 'echo', decision: 'deny', by: 'rule', args: { text } });
  }
});
