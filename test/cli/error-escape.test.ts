import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { BIN, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * Round 32 review S32-4: an error naming a user's string (a rule, a server name, `--scope`,
 * `--tool`) wrote it whole and as JSON.stringify leaves it: `mcp-latch validate` echoed a
 * 70,000-character rule (70 KB on stderr) with its U+202E raw (UAX #9: the rest of the line read
 * backwards), an ESC sequence in `--tool` went to the terminal. Through the built CLI.
 */
/** What a terminal obeys or reorders: ECMA-48's C0 (but the newline) and C1 controls, DEL, UAX #9's marks and controls, zero-width and line separators. */
const OBEYED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });

test("validate's error names a long rule cut, with its length, and a bidi control escaped", () => {
  const dir = tempDir();
  const long = `Read(/${'a'.repeat(70_000)}\u202e)`;
  const config = writeConfig(dir, { mcpServers: {}, permissions: { allow: [long, 'Read(/x\u202e\u001b[2J', 'Read(/ok😀😀)'], deny: [`mcp__${'s'.repeat(5000)}\u202e`] } });
  const result = run(['validate', '--config', config]);
  expect(result.status).toBe(1);
  expect(result.stderr.length).toBeLessThan(4000);
  expect(result.stderr).not.toMatch(OBEYED);
  expect(result.stderr).toContain(`invalid rule "Read(/${'a'.repeat(194)}"… (70,008 characters): path pattern is too long`);
  expect(result.stderr).toContain('invalid rule "Read(/x\\u202e\\u001b[2J": missing ")" at the end');
  // --json says the same, as JSON.
  const json = run(['validate', '--json', '--config', config]);
  expect(json.stdout.length).toBeLessThan(4000);
  expect(json.stdout).not.toMatch(OBEYED);
  const issues = (JSON.parse(json.stdout) as { issues: Array<{ message: string }> }).issues.map((issue) => issue.message);
  expect(issues.some((message) => message.includes('… (70,008 characters): path pattern is too long'))).toBe(true);
  expect(issues.some((message) => message.includes(`invalid rule "mcp__${'s'.repeat(195)}"… (5,006 characters)`))).toBe(true);
});

test("validate's warning of a rule for a missing server, and check's --tool: cut and escaped", () => {
  const dir = tempDir();
  const server = `s${'x'.repeat(3000)}`;
  const config = writeConfig(dir, { mcpServers: {}, permissions: { deny: [`mcp__${server}`] } });
  const warned = run(['validate', '--config', config]);
  expect(warned.status).toBe(0);
  expect(warned.stderr.length).toBeLessThan(1000);
  expect(warned.stderr).toContain('… (3,006 characters) names the server');
  const tool = run(['check', '--config', config, '--tool', `nope\u001b[2J\u202e${'y'.repeat(10_000)}`]);
  expect(tool.status).not.toBe(0);
  expect(tool.stderr).not.toMatch(OBEYED);
  expect(tool.stderr.length).toBeLessThan(1000);
  expect(tool.stderr).toContain('got "nope\\u001b[2J\\u202e');
});
