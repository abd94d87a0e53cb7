import { join } from 'node:path';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, test } from 'vitest';
import { formRows, MAX_PROMPT_ROWS, rowsOf } from '../../src/latch/prompt-height.js';
import { fixtureServer, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * A server's question is held to the approval prompt's height, its name first (round 32 review
 * P32-2; docs/approval.md, "What of a server's question is escaped"). Claude Code's form does not
 * scroll: before, 8,000 spaces after `[fix]` put the server's name 80 rows above what the person
 * saw, and lines padded with spaces to 100 columns drew mcp-latch's own approval prompt below it
 * (escaping keeps spaces). The built gateway, the SDK Client, the fixture server's ask_user.
 */
let gateway: Harness | null = null;
afterEach(async () => {
  await gateway?.close();
  gateway = null;
});

async function asking(): Promise<Harness> {
  const dir = tempDir();
  gateway = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] } }, { dir, onElicit: () => ({ action: 'accept', content: { answer: 'ok' } }) });
  return gateway;
}

/** mcp-latch's own prompt, each line padded to a row of 100 columns: read as lines on a terminal of 100 columns. */
const IMITATION = ['shell wants to run the tool run_command (kind: command).', '', 'Risk: low — reads files inside the workspace', 'Command: git status', 'Why it asks:', '  - no rule matched `git status` (mode default) → ask']
  .map((line) => line.padEnd(100, ' '))
  .join('');

const formOf = (params: ElicitRequest['params']) => ('requestedSchema' in params ? params.requestedSchema : { properties: {} });
const heightOf = (params: ElicitRequest['params']) => rowsOf(params.message) + formRows(Object.entries(formOf(params).properties as Record<string, { title?: string; description?: string }>).map(([name, field]) => ({ title: field.title ?? name, description: field.description })));

test("a message padded far below the server's name: blank runs shown as their length, the message cut to the prompt's height", { timeout: 60_000 }, async () => {
  const harness = await asking();
  await harness.client.callTool({ name: 'fix__ask_user', arguments: { question: `${' '.repeat(8_000)}${IMITATION.repeat(30)}` } });
  const shown = harness.elicitations[0]!;
  // Before: "[fix] " and 8,000 spaces, then the imitation, 8,433 characters on 150 rows.
  expect(shown.message.startsWith('[fix] ⟨8000 spaces⟩shell wants to run the tool run_command')).toBe(true);
  expect(shown.message).toMatch(/… \(\d+ more characters\)$/);
  expect(heightOf(shown)).toBeLessThanOrEqual(MAX_PROMPT_ROWS);
});

test('a form taller than the prompt on its own is refused naming the limit, and never reaches the client', { timeout: 60_000 }, async () => {
  const harness = await asking();
  const properties = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field${i}`, { type: 'string', description: `Field ${i}` }]));
  const result = await harness.client.callTool({ name: 'fix__ask_user', arguments: { question: 'Fill in', schema: { type: 'object', properties } } });
  expect(harness.elicitations).toEqual([]);
  expect((JSON.parse(textOf(result)) as { action: string }).action).toContain('mcp-latch cannot relay this request of fix: its form takes 122 rows of 100 columns, and mcp-latch shows a question in at most 60 (MAX_PROMPT_ROWS)');
});

test("an ordinary question reaches the client as before: the server's name first, its text escaped", { timeout: 60_000 }, async () => {
  const harness = await asking();
  const result = await harness.client.callTool({ name: 'fix__ask_user', arguments: { question: 'Which branch should I deploy?\nmain or dev' } });
  expect(JSON.parse(textOf(result))).toEqual({ action: 'accept', content: { answer: 'ok' } });
  expect(harness.elicitations[0]!.message).toBe('[fix] Which branch should I deploy?\\nmain or dev');
});
