import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, test } from 'vitest';
import { eventually, ROOT, startGateway, tempDir, type Harness } from '../helpers/gateway.js';

/**
 * A `resources/subscribe` asks the server to watch what a read would read, and its updates tell the
 * client each change: it is allowed only where a read is, and audited as one is (round 32 review
 * P32-1; docs/threat-model.md, "Round 32: the review of round 31 (gateway)"). Before, a subscribe to
 * a URI a deny rule refuses reached the server unrecorded and the client was told of each change of
 * the file; and a server's update of a sub-resource of an allowed subscription named a denied file.
 * The built gateway, the SDK Client, and url-files-server.mjs, whose log says what reached it and
 * which tells each file under a subscribed folder updated.
 */
const SERVER = join(ROOT, 'test/fixtures/url-files-server.mjs');

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function layout() {
  const dir = tempDir('resource-subscribe-');
  mkdirSync(join(dir, 'w', 'secret'), { recursive: true });
  writeFileSync(join(dir, 'w', 'secret', 'id'), 'SECRET-KEY\n');
  writeFileSync(join(dir, 'w', 'a.txt'), 'open text\n');
  writeFileSync(join(dir, 'README.md'), 'readme\n');
  return { dir, w: join(dir, 'w'), secret: join(dir, 'w', 'secret', 'id'), log: join(dir, 'server.jsonl') };
}

const lines = (file: string): Array<Record<string, unknown>> => {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
  } catch {
    return [];
  }
};

async function start(dir: string, w: string, log: string, permissions: Record<string, unknown>): Promise<{ h: Harness; updates: string[] }> {
  const h = await startGateway({ mcpServers: { files: { command: process.execPath, args: [SERVER], cwd: dir, env: { URL_FILES_LOG: log } } }, workspace: [w], permissions }, { dir });
  const updates: string[] = [];
  h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
  return { h, updates };
}

test('a subscribe to a URI a deny rule refuses is refused naming the rule, never sent, and audited', { timeout: 60_000 }, async () => {
  const { dir, w, secret, log } = layout();
  const { h, updates } = await start(dir, w, log, { deny: [`Read(${join(w, 'secret')}/**)`] });
  harness = h;
  const uri = pathToFileURL(secret).href;
  // Before: {} — the server subscribed, and the client was told each change of the key.
  await expect(h.client.subscribeResource({ uri })).rejects.toMatchObject({ code: -32600, message: expect.stringContaining(`Read(${join(w, 'secret')}/**)`) });
  // Outside the workspace with no rule: a read needs a rule, so does a subscribe.
  const outside = pathToFileURL(join(dir, 'README.md')).href;
  await expect(h.client.subscribeResource({ uri: outside })).rejects.toMatchObject({ code: -32600, message: expect.stringContaining('needs a rule') });
  // One inside the workspace is allowed, as its read is.
  const open = pathToFileURL(join(w, 'a.txt')).href;
  await h.client.subscribeResource({ uri: open });
  await eventually(() => expect(updates).toContain(open));
  expect(lines(log).filter((entry) => entry.method === 'resources/subscribe').map((entry) => entry.uri)).toEqual([open]);
  const records = lines(join(dir, 'mcp-latch-audit.jsonl')).filter((record) => record.tool === 'resources/subscribe');
  expect(records.map((record) => [(record.args as { uri: string }).uri, record.decision])).toEqual([
    [uri, 'deny'],
    [outside, 'deny'],
    [open, 'allow'],
  ]);
  expect(updates).not.toContain(uri);
});

test("a server's update of a sub-resource a read of which is refused names the folder subscribed to instead", { timeout: 60_000 }, async () => {
  const { dir, w, secret, log } = layout();
  const { h, updates } = await start(dir, w, log, { deny: [`Read(${join(w, 'secret')}/**)`] });
  harness = h;
  const folder = `${pathToFileURL(w).href}/`;
  await h.client.subscribeResource({ uri: folder });
  const open = pathToFileURL(join(w, 'a.txt')).href;
  // The server tells the folder, a.txt and secret/id updated (url-files-server.mjs).
  await eventually(() => expect(updates.length).toBe(3));
  // Before: file://…/w/secret/id reached the client.
  expect(updates.sort()).toEqual([folder, folder, open].sort());
  expect(updates).not.toContain(pathToFileURL(secret).href);
});
