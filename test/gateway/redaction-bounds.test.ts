import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { COMMANDS_SERVER, eventually, FIXTURE_SERVER, ROOT, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';
import { hostileText, hostileTexts } from '../fixtures/hostile-texts.mjs';

/**
 * Round 26 review, review26p P1/P2: redaction ran on the gateway's one thread over whole texts with
 * a quadratic recogniser (PASSWORD_P's `mariadb[\w-]*`): a denied call's 64 KB argument key held
 * every other session's calls 26 s, one server's 60 KB stderr line 36 s. Through the built gateway:
 * the hostile texts of test/fixtures/hostile-texts.mjs (each recogniser's literals repeated) as
 * keys, a command and stderr lines, then another server's call, which must answer within the
 * test's ordinary timeout (no time is asserted; on round 25's code the first text alone takes
 * hours); and what the audit and the log kept is cut where docs/threat-model.md says.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const STDERR_SERVER = join(ROOT, 'test/fixtures/stderr-server.mjs');

function auditRecords(dir: string): Array<Record<string, unknown>> {
  return readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test("a denied call with hostile argument keys and a denied command of 64 KB: another server's call answers; the audit keeps each key's 300 characters and the command's 16,384", async () => {
  const dir = tempDir('redaction-bounds-');
  harness = await startGateway(
    {
      mcpServers: {
        fx: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: join(dir, 'fx.log') } },
        other: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: join(dir, 'other.log') } },
        shell: { command: process.execPath, args: [COMMANDS_SERVER], env: { SHELL: '/bin/sh', TERM: 'dumb' } },
      },
      workspace: [dir],
      permissions: { allow: ['mcp__other__whoami'], deny: ['mcp__fx__echo', 'Bash(mariadb-dump *)'] },
    },
    { dir },
  );
  await harness.client.listTools();
  // One key of `mariadb-` repeated to 1 MB, and a key of 4 KB of each literal with `-` after it.
  const keys = [hostileText('', 'mariadb-', 1 << 20), ...[...hostileTexts(4096, [''], ['-'])].map(({ text }) => text)];
  const denied = harness.client.callTool({ name: 'fx__echo', arguments: Object.fromEntries(keys.map((key) => [key, 1])) });
  const command = `mariadb-dump ${hostileText('', 'mariadb-', 65_536)}`;
  const deniedCommand = harness.client.callTool({ name: 'shell__run_command', arguments: { command, workdir: dir } });
  const other = await harness.client.callTool({ name: 'other__whoami', arguments: {} });
  expect(other.isError).not.toBe(true);
  expect((await denied).isError).toBe(true);
  expect(textOf(await deniedCommand)).toMatch(/denied|not allowed/i);

  const records = auditRecords(dir);
  const echo = records.find((record) => record.tool === 'echo' && record.decision === 'deny')!;
  // Each key cut to 300 characters: the word the cut splits shown up to it when the text read on is no
  // secret (round 27; until then replaced, so keys of one long word were recorded alike and one kept),
  // and keys recorded alike numbered, so every key is there.
  const recordedKeys = Object.keys(echo.args as object);
  expect(recordedKeys).toContain(`${keys[0]!.slice(0, 300)}…[${(1 << 20) - 300} more]`);
  for (const key of recordedKeys) expect(key).toMatch(/…\[\d+ more\]( \(\d+\))?$/);
  expect(recordedKeys).toHaveLength(new Set(keys).size);
  const run = records.find((record) => record.tool === 'run_command')!;
  expect(run.decision).toBe('deny');
  expect(run.command).toMatch(new RegExp(`…\\[${command.length - 16_384} more characters; redaction reads 16384\\]$`));
}, 120_000);

test("a server's hostile stderr lines of 64,000 characters: another server's call answers; the log keeps 500 characters of each", async () => {
  const dir = tempDir('redaction-bounds-');
  harness = await startGateway(
    {
      mcpServers: {
        hx: { command: process.execPath, args: [STDERR_SERVER] },
        other: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: join(dir, 'other.log') } },
      },
      permissions: { allow: ['mcp__hx', 'mcp__other__whoami'] },
    },
    { dir },
  );
  await harness.client.listTools();
  const separators = ['-', ' ', '.'];
  const lines = [...hostileTexts(64_000, [''], separators)].length;
  expect(textOf(await harness.client.callTool({ name: 'hx__stderr', arguments: { separators } }))).toBe(`${lines} lines written`);
  // The server's stderr and its answer come on two pipes: the lines are logged as they are read.
  const h = harness;
  const cut = await eventually(() => {
    const logged = h
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"msg":"server stderr"'))
      .map((line) => JSON.parse(line) as { stderr: string; cut?: string })
      .filter((record) => record.cut === "63500 more characters; the log keeps 500 of a server's stderr line");
    expect(logged).toHaveLength(lines);
    return logged;
  }, 60_000);
  // Read and logged: another server's call answers.
  const other = await harness.client.callTool({ name: 'other__whoami', arguments: {} });
  expect(other.isError).not.toBe(true);
  // 500 characters, the word the cut splits replaced, then redacted (`bearer` → `bearer [redacted]`).
  for (const record of cut) expect(record.stderr.length).toBeLessThan(1000);
}, 120_000);
