import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import wrapAnsi from 'wrap-ansi';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { COMMANDS_SERVER, FS_SERVER, startGateway, tempDir, type Harness } from '../helpers/gateway.js';

/**
 * The approval prompt's height (docs/approval.md "How tall the prompt is"): its message and its form
 * (the choices, the note, the edit fields; since round 20) are at most 60 rows when wrapped at 100 columns, whatever the call, the command and the resolved paths first;
 * what does not fit is cut with a line saying so, the Risk line names the bound, and only "Allow
 * once" and "Deny" are offered. The built gateway, server-filesystem or mcp-server-commands, and the
 * SDK Client receiving the elicitation. Rows are counted as Claude Code's renderer (Ink) wraps them:
 * wrap-ansi, hard, not trimmed.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

type Params = ElicitRequest['params'] & { message: string; requestedSchema: { properties: { decision: { enum: string[] } } }; _meta: Record<string, { notShown: string[] }> };
const lastPrompt = (h: Harness): Params => h.elicitations.at(-1) as Params;
const choices = (params: Params) => params.requestedSchema.properties.decision.enum;
const rows = (message: string) => wrapAnsi(message, 100, { hard: true, trim: false }).split('\n').length;
type Field = { title?: string; description?: string; enum?: string[]; default?: unknown };
/**
 * The whole elicitation's rows (docs/approval.md "How tall the prompt is", round 20): the message,
 * then each field of the form its title, its description and its choices (after 5 columns for a
 * marker) or its value, and 2 (a row after the message, the buttons).
 */
const formRows = (params: Params) =>
  2 + Object.values(params.requestedSchema.properties as Record<string, Field>).reduce((sum, field) => sum + rows(field.title ?? '') + (field.description === undefined ? 0 : rows(field.description)) + (field.enum ? field.enum.reduce((each, label) => each + rows(`     ${label}`), 0) : rows(typeof field.default === 'string' ? field.default : '')), 0);
const height = (params: Params) => rows(params.message) + formRows(params);
const BOUND = 'the prompt shows at most 60 rows of 100 columns';

async function gateway(servers: ConfigInput['mcpServers'], ws: string, answer: string): Promise<Harness> {
  const onElicit = (): ElicitResult => ({ action: 'accept', content: { decision: answer } });
  harness = await startGateway({ mcpServers: servers, workspace: [ws], permissions: { defaultMode: 'default' } }, { onElicit });
  return harness;
}

function workspace(): string {
  const ws = join(tempDir('prompt-height-'), 'ws');
  mkdirSync(ws);
  return ws;
}

/** A line of about `length` characters of words, numbered so each is its own. */
const wordy = (n: number, length: number) => `line ${n}: ${'the quick brown fox jumps over the lazy dog '.repeat(Math.ceil(length / 44))}`.slice(0, length);

describe('a diff of long lines', () => {
  test('40 diff lines of 500 characters (200 rows before): the diff is cut to fit 60 rows with the count of the rest, the path kept; Allow once / Deny only', async () => {
    const ws = workspace();
    const file = join(ws, 'notes.md');
    const h = await gateway({ fs: { command: process.execPath, args: [FS_SERVER, ws] } }, ws, 'Allow once');
    // A new file of 37 lines: a diff of 40 (2 file names, a hunk line), each within the 500 characters of a diff line.
    const content = `${Array.from({ length: 37 }, (_, i) => wordy(i + 1, 499)).join('\n')}\n`;
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: file, content } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    expect(height(prompt)).toBeLessThanOrEqual(60);
    expect(lines[2]).toBe(`Risk: high — part of this call is not shown (diff, arguments; ${BOUND}); review it on the approval page or deny`);
    expect(lines).toContain(`Change: creates a new file (${Buffer.byteLength(content)} bytes): ${file}`);
    expect(lines).toContain(`  write ${file} (inside the workspace)`);
    // The diff lines shown, whole, from the first; then how many are not.
    const shown = lines.filter((line) => line.startsWith('    +line '));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(37);
    shown.forEach((line, i) => expect(line).toBe(`    +${wordy(i + 1, 499)}`));
    expect(lines).toContain(`    … ${37 - shown.length} more diff lines`);
    expect(prompt._meta['mcp-latch/request']!.notShown).toEqual(['diff', 'arguments']);
    expect(choices(prompt)).toEqual(['Allow once', 'Deny']);
    expect(readFileSync(file, 'utf8')).toBe(content);
  }, 60_000);

  // Round 20: the form's rows count in the 60 (about 14 for a write), so 26 such lines fit whole, not 37.
  test('a diff of 29 short lines still fits whole: "Always allow" is offered as before', async () => {
    const ws = workspace();
    const file = join(ws, 'short.md');
    const h = await gateway({ fs: { command: process.execPath, args: [FS_SERVER, ws] } }, ws, 'Deny');
    const content = `${Array.from({ length: 26 }, (_, i) => wordy(i + 1, 60)).join('\n')}\n`;
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: file, content } });
    const prompt = lastPrompt(h);
    expect(height(prompt)).toBeLessThanOrEqual(60);
    expect(prompt.message.split('\n')[2]).toBe('Risk: low');
    expect(choices(prompt)).toEqual(['Allow once', 'Allow for this session', `Always allow: Edit(${file})`, 'Deny']);
    expect(existsSync(file)).toBe(false);
  }, 60_000);
});

describe('a long command', () => {
  test('a 390-character command of 8 commands and a stdin script of 40 lines of 190 characters: the command and every command of it shown whole, the script cut to fit', async () => {
    const ws = workspace();
    const h = await gateway({ shell: { command: process.execPath, args: [COMMANDS_SERVER], cwd: ws } }, ws, 'Deny');
    const parts = Array.from({ length: 7 }, (_, i) => `touch build/report-of-the-nightly-build-no-${i}.txt`);
    const command = [...parts, 'python3 -'].join(' && ');
    expect(command.length).toBeLessThanOrEqual(400);
    const script = `${Array.from({ length: 40 }, (_, i) => `# ${wordy(i + 1, 186)}`).join('\n')}\n`;
    await h.client.callTool({ name: 'shell__run_command', arguments: { command, stdin: script } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    expect(height(prompt)).toBeLessThanOrEqual(60);
    expect(lines).toContain(`Command: ${command}`);
    parts.forEach((part, i) => expect(lines).toContain(`  ${i + 1}. ${part}`));
    for (let i = 0; i < 7; i++) expect(lines).toContain(`  write ${join(ws, `build/report-of-the-nightly-build-no-${i}.txt`)} (inside the workspace)`);
    const scriptLines = lines.filter((line) => line.startsWith('    | # line '));
    expect(scriptLines.length).toBeLessThan(40);
    expect(lines).toContain(`    … ${40 - scriptLines.length} more lines not shown`);
    expect(prompt._meta['mcp-latch/request']!.notShown).not.toContain('command text');
    expect(prompt._meta['mcp-latch/request']!.notShown).not.toContain('commands');
    expect(prompt._meta['mcp-latch/request']!.notShown).toContain('stdin');
    expect(lines[2]).toMatch(new RegExp(`^Risk: high — part of this call is not shown \\(.*stdin.*; ${BOUND}\\)`));
    expect(choices(prompt)).toEqual(['Allow once', 'Deny']);
    expect(existsSync(join(ws, 'build'))).toBe(false);
  }, 60_000);
});

describe('many paths', () => {
  test('read_multiple_files of 80 files and one outside the workspace, sent last: the outside one is listed first, the rest counted; Allow once / Deny only', async () => {
    const root = tempDir('prompt-height-');
    const ws = join(root, 'ws');
    mkdirSync(ws);
    const outside = join(root, 'secrets.env');
    writeFileSync(outside, 'TOKEN=1\n');
    const files = Array.from({ length: 80 }, (_, i) => join(ws, `chapter-${String(i + 1).padStart(2, '0')}.md`));
    for (const file of files) writeFileSync(file, 'text\n');
    const h = await gateway({ fs: { command: process.execPath, args: [FS_SERVER, ws] } }, ws, 'Deny');
    await h.client.callTool({ name: 'fs__read_multiple_files', arguments: { paths: [...files, outside] } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    expect(height(prompt)).toBeLessThanOrEqual(60);
    const listed = lines.slice(lines.indexOf('Paths:') + 1).filter((line) => line.startsWith('  read  '));
    expect(listed[0]).toBe(`  read  ${outside} (OUTSIDE the workspace)`);
    expect(listed.slice(1)).toEqual(files.slice(0, listed.length - 1).map((file) => `  read  ${file} (inside the workspace)`));
    expect(lines).toContain(`  … and ${81 - listed.length} more paths`);
    expect(prompt._meta['mcp-latch/request']!.notShown).toContain('paths');
    expect(lines[2]).toMatch(new RegExp(`^Risk: high — part of this call is not shown \\(.*paths.*; ${BOUND}\\)`));
    expect(choices(prompt)).toEqual(['Allow once', 'Deny']);
  }, 60_000);
});

// Round 20: the bound counted the message only; the form under it (its choices, the note and the
// edit fields, each prefilled with the argument's value) came on top: a write of a one-line
// 1,900-character content offered it in an edit field of 19 rows under a message of 60.
describe("the form's own rows", () => {
  test('a write of a one-line 1,900-character content (its edit field 19 rows): message and form within 60 rows together', async () => {
    const ws = workspace();
    const file = join(ws, 'one-line.txt');
    const h = await gateway({ fs: { command: process.execPath, args: [FS_SERVER, ws] } }, ws, 'Deny');
    const content = wordy(1, 1900);
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: file, content } });
    const prompt = lastPrompt(h);
    expect(Object.keys(prompt.requestedSchema.properties)).toEqual(['decision', 'note', 'edit_path', 'edit_content']);
    expect(rows(prompt.message)).toBeLessThan(60);
    expect(height(prompt)).toBeLessThanOrEqual(60);
    expect(prompt._meta['mcp-latch/request']!.notShown).toContain('diff');
    expect(choices(prompt)).toEqual(['Allow once', 'Deny']);
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  test('an ordinary write keeps its choices: the whole elicitation of a short write is within 60 rows and offers "Always allow"', async () => {
    const ws = workspace();
    const file = join(ws, 'short.txt');
    const h = await gateway({ fs: { command: process.execPath, args: [FS_SERVER, ws] } }, ws, 'Deny');
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'hello\n' } });
    const prompt = lastPrompt(h);
    expect(height(prompt)).toBeLessThanOrEqual(60);
    expect(choices(prompt)).toEqual(['Allow once', 'Allow for this session', `Always allow: Edit(${file})`, 'Deny']);
  }, 60_000);
});
