import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { MAX_EMBEDDED_CHECKED } from '../../src/gateway/embedded-resources.js';
import { ROOT, startGateway, tempDir, type Harness } from '../helpers/gateway.js';

/**
 * An embedded resource in a server's answer (a tools/call result, a prompt's messages) that a deny
 * rule refuses to read is withheld, the rest passed on (round 32 review P32-5; docs/threat-model.md,
 * "Round 32: the review of round 31 (gateway)"). Before, a search tool allowed by `mcp__files`
 * answered with `w/secret/id`'s contents embedded under its file: URI, past `deny: Read(w/secret/**)`,
 * and the model read them. The built gateway, the SDK Client, url-files-server.mjs's `search` tool and
 * `found` prompt (every file holding the text, embedded).
 */
const SERVER = join(ROOT, 'test/fixtures/url-files-server.mjs');

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function start(rules: 'deny' | 'ask' = 'deny'): Promise<{ h: Harness; secret: string; open: string }> {
  const dir = tempDir('embedded-');
  // The server searches proj/ only (its directory); the config, the audit and its log are beside it.
  const proj = join(dir, 'proj');
  mkdirSync(join(proj, 'secret'), { recursive: true });
  writeFileSync(join(proj, 'secret', 'id'), 'KEY=SECRET-KEY\n');
  writeFileSync(join(proj, 'notes.txt'), 'where is the KEY?\n');
  const h = await startGateway(
    { mcpServers: { files: { command: process.execPath, args: [SERVER], cwd: proj, env: { URL_FILES_LOG: join(dir, 'server.jsonl') } } }, workspace: [proj], permissions: { allow: ['mcp__files'], [rules]: [`Read(${join(proj, 'secret')}/**)`] } },
    { dir },
  );
  harness = h;
  return { h, secret: pathToFileURL(join(proj, 'secret', 'id')).href, open: pathToFileURL(join(proj, 'notes.txt')).href };
}

test("a tool's result: the embedded resource a deny rule refuses is withheld naming the rule; the others pass", { timeout: 60_000 }, async () => {
  const { h, secret, open } = await start();
  const result = await h.client.callTool({ name: 'files__search', arguments: { text: 'KEY' } });
  const content = result.content as Array<{ type: string; text?: string; resource?: { uri: string; text?: string } }>;
  // Before: the second block was {type: "resource", resource: {uri: <secret>, text: "KEY=SECRET-KEY\n"}}.
  expect(JSON.stringify(content)).not.toContain('SECRET-KEY');
  expect(content[0]).toEqual({ type: 'text', text: 'Found:' });
  expect(content[1]).toMatchObject({ type: 'resource', resource: { uri: open, text: 'where is the KEY?\n' } });
  expect(content[2]!.type).toBe('text');
  expect(content[2]!.text).toContain(`mcp-latch withheld the resource ${secret} that files embedded in its answer`);
  expect(content[2]!.text).toContain('Read(');
});

// An ask rule's person cannot be asked inside an answer: its file is withheld too (before, only a
// deny rule's was, and `ask: Read(secret/**)` let the search tool hand the key to the model).
test("a tool's result: the embedded resource an ask rule holds for a person is withheld too", { timeout: 60_000 }, async () => {
  const { h, secret, open } = await start('ask');
  const result = await h.client.callTool({ name: 'files__search', arguments: { text: 'KEY' } });
  const content = result.content as Array<{ type: string; text?: string; resource?: { uri: string; text?: string } }>;
  expect(JSON.stringify(content)).not.toContain('SECRET-KEY');
  expect(content[1]).toMatchObject({ type: 'resource', resource: { uri: open } });
  expect(content[2]!.text).toContain(`mcp-latch withheld the resource ${secret} that files embedded in its answer`);
});

test("a prompt's messages: the same", { timeout: 60_000 }, async () => {
  const { h, secret } = await start();
  const prompt = await h.client.getPrompt({ name: 'files__found', arguments: { text: 'SECRET' } });
  expect(JSON.stringify(prompt)).not.toContain('SECRET-KEY');
  expect(prompt.messages).toHaveLength(1);
  expect(prompt.messages[0]!.content).toMatchObject({ type: 'text', text: expect.stringContaining(`mcp-latch withheld the resource ${secret}`) });
});

test('past MAX_EMBEDDED_CHECKED embedded resources in one answer, the rest are withheld naming the limit', { timeout: 60_000 }, async () => {
  const { h, open } = await start();
  const proj = fileURLToPath(open).slice(0, -'/notes.txt'.length);
  for (let i = 0; i < MAX_EMBEDDED_CHECKED; i++) writeFileSync(join(proj, `f${String(i).padStart(3, '0')}.txt`), 'a KEY here\n');
  const result = await h.client.callTool({ name: 'files__search', arguments: { text: 'KEY here' } });
  const content = result.content as Array<{ type: string; text?: string }>;
  // The text block, then f000…f099, each checked and passed (notes.txt does not hold the text).
  expect(content).toHaveLength(1 + MAX_EMBEDDED_CHECKED);
  expect(content.slice(1).every((block) => block.type === 'resource')).toBe(true);
  writeFileSync(join(proj, 'f100.txt'), 'a KEY here\n');
  const more = (await h.client.callTool({ name: 'files__search', arguments: { text: 'KEY here' } })).content as Array<{ type: string; text?: string }>;
  expect(more).toHaveLength(2 + MAX_EMBEDDED_CHECKED);
  expect(more[MAX_EMBEDDED_CHECKED + 1]).toMatchObject({ type: 'text', text: expect.stringContaining('mcp-latch withheld 1 more resources that files embedded in its answer: it checks at most 100 of one answer (MAX_EMBEDDED_CHECKED') });
});

/**
 * A read's answer holds contents, each under its own URI (a read of a folder, a collection): one
 * under a URI other than the one read is decided as the embedded resources above are (round 33
 * review, P33-3). Before, a read of `file:///…/proj/` (allowed: the workspace) answered with
 * `proj/secret/id`'s contents under its own URI, past `deny: Read(proj/secret/**)`, which refuses a
 * read of that URI itself.
 */
test("a read's contents under another URI than the one read: the one a deny rule refuses is withheld, naming the rule", { timeout: 60_000 }, async () => {
  const { h, secret, open } = await start();
  const folder = open.slice(0, -'notes.txt'.length);
  await expect(h.client.readResource({ uri: secret })).rejects.toThrow('Read(');
  const read = await h.client.readResource({ uri: folder });
  expect(JSON.stringify(read)).not.toContain('SECRET-KEY');
  expect(read.contents).toContainEqual({ uri: open, mimeType: 'text/plain', text: 'where is the KEY?\n' });
  const withheld = read.contents.find((content) => content.uri === secret) as { text?: string } | undefined;
  expect(withheld?.text).toContain(`mcp-latch withheld the resource ${secret} that files gave in its answer to the read of ${folder}`);
  expect(withheld?.text).toContain('Read(');
});
