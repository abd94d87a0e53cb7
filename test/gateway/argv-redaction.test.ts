import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { FIXTURE_SERVER, eventually, startGateway, tempDir, type Harness } from '../helpers/gateway.js';

/** Review P27-1: a secret given as the next word of an argv array was written to the audit in clear, where the same words in one string were redacted. */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

test('an option that takes a secret, as argv words, is redacted in the audit as its text form is', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  harness = await startGateway(
    { mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } }, workspace: [dir], permissions: { allow: ['mcp__fx__echo'] } },
    { dir },
  );
  await harness.client.callTool({ name: 'fx__echo', arguments: { text: 'mysql -u root --password Hunter2Secret' } });
  await harness.client.callTool({ name: 'fx__echo', arguments: { command: 'mysql', args: ['-u', 'root', '--password', 'Hunter2Secret'] } });
  await harness.client.callTool({ name: 'fx__echo', arguments: { argv: ['npx', 'server', '--api-key', 'Zq9v8u7t6s5r4q3p'] } });
  const file = join(dir, 'mcp-latch-audit.jsonl');
  const lines = await eventually(() => {
    const read = readFileSync(file, 'utf8').trim().split('\n');
    expect(read).toHaveLength(3);
    return read;
  });
  // The string form is redacted...
  expect(lines[0]).not.toContain('Hunter2Secret');
  // ...and the argv forms of the same command (in clear before round 27).
  expect(lines[1]).not.toContain('Hunter2Secret');
  expect(lines[2]).not.toContain('Zq9v8u7t6s5r4q3p');
});

// Round 28 review P28-2: behind a wrapper (`docker exec db redis-cli -a PW`) only the word before
// each was read, so a program's own password option kept its value in the audit.
test("a program's password option behind a wrapper, as list words, is redacted in the audit", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  harness = await startGateway(
    { mcpServers: { fx: { command: process.execPath, args: [FIXTURE_SERVER] } }, workspace: [dir], permissions: { allow: ['mcp__fx__echo'] } },
    { dir },
  );
  await harness.client.callTool({ name: 'fx__echo', arguments: { command: 'docker', args: ['exec', 'db', 'redis-cli', '-a', 'Wrapped1Secret'] } });
  await harness.client.callTool({ name: 'fx__echo', arguments: { argv: ['timeout', '5', 'redis-cli', '-a', 'Wrapped2Secret', 'get', 'k'] } });
  const file = join(dir, 'mcp-latch-audit.jsonl');
  const lines = await eventually(() => {
    const read = readFileSync(file, 'utf8').trim().split('\n');
    expect(read).toHaveLength(2);
    return read;
  });
  expect(lines[0]).not.toContain('Wrapped1Secret');
  expect(lines[1]).not.toContain('Wrapped2Secret');
  expect(lines[1]).toContain('"get","k"');
});

