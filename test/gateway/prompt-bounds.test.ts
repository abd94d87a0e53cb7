import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { COMMANDS_SERVER, FS_SERVER, startGateway, tempDir, type Harness } from '../helpers/gateway.js';

/**
 * The prompt's bounds on a write (docs/approval.md "What the prompt shows"): a diff of up to 40
 * lines is shown whole, so an ordinary write or edit can be read and remembered; a longer one is
 * cut with its true count and allowed once at most. The built gateway, server-filesystem and the
 * SDK Client, which answers "Always allow" when it is offered (else `fallback`) and keeps the prompt.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

type Params = ElicitRequest['params'] & { message: string; requestedSchema: { properties: { decision: { enum: string[] } } } };
const choices = (params: ElicitRequest['params']) => (params as Params).requestedSchema.properties.decision.enum;

/** Answers the broadest choice offered: "Always allow: …" if there is one, else `fallback`. */
function broadest(fallback: string): (params: ElicitRequest['params']) => ElicitResult {
  return (params) => ({ action: 'accept', content: { decision: choices(params).find((choice) => choice.startsWith('Always allow: ')) ?? fallback } });
}

async function filesystem(ws: string, fallback = 'Deny'): Promise<Harness> {
  const config: ConfigInput = { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, ws] } }, workspace: [ws], permissions: { defaultMode: 'default' } };
  harness = await startGateway(config, { onElicit: broadest(fallback) });
  return harness;
}

function workspace(): string {
  const ws = join(tempDir('prompt-bounds-'), 'ws');
  mkdirSync(ws);
  return ws;
}

const lastPrompt = (h: Harness): Params => h.elicitations.at(-1) as Params;
const savedRules = (h: Harness): string[] => (JSON.parse(readFileSync(h.configPath, 'utf8')) as { permissions: { allow?: string[] } }).permissions.allow ?? [];
const numbered = (count: number, text: string) => Array.from({ length: count }, (_, i) => `${text} ${i + 1}`);

describe('write_file', () => {
  test('a new file of 30 lines (a diff of 33): shown whole, Risk as it is, "Always allow" offered and saved', async () => {
    const ws = workspace();
    const file = join(ws, 'notes.md');
    const h = await filesystem(ws);
    const content = `${numbered(30, 'a line of the meeting notes the assistant wrote, number').join('\n')}\n`;
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: file, content } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    expect(lines[2]).toBe('Risk: low');
    expect(lines).toContain('    --- /dev/null');
    expect(lines).toContain('    +a line of the meeting notes the assistant wrote, number 30');
    expect(lines.some((line) => line.includes('more diff line'))).toBe(false);
    expect(lines).toContain(`Arguments: {"path":${JSON.stringify(file)},"content":"(shown above as the diff)"}`);
    expect(choices(prompt)).toEqual(['Allow once', 'Allow for this session', `Always allow: Edit(${file})`, 'Deny']);
    expect(readFileSync(file, 'utf8')).toBe(content);
    expect(savedRules(h)).toContain(`Edit(${file})`);
  }, 60_000);

  test('a new file of 250 lines: 40 diff lines, then the true count of the rest; Allow once / Deny only, nothing saved', async () => {
    const ws = workspace();
    const file = join(ws, 'long.md');
    const h = await filesystem(ws, 'Allow once');
    const content = `${numbered(250, 'line').join('\n')}\n`;
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: file, content } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    expect(lines[2]).toBe('Risk: high — part of this call is not shown (diff, arguments); review it on the approval page or deny');
    // The diff is 2 headers, 1 hunk line and 250 added lines: 40 shown, 213 not.
    const first = lines.indexOf('    --- /dev/null');
    expect(lines[first + 39]).toBe('    +line 37');
    expect(lines[first + 40]).toBe('    … 213 more diff lines');
    expect(choices(prompt)).toEqual(['Allow once', 'Deny']);
    expect(readFileSync(file, 'utf8')).toBe(content);
    expect(savedRules(h)).toEqual([]);
  }, 60_000);
});

describe('edit_file', () => {
  const original = `${numbered(40, 'setting').map((line) => `${line.replace(' ', '_')} = off`).join('\n')}\n`;

  test('edits of over 600 characters whose diff is shown whole: the edits argument points at the diff, nothing is marked not shown', async () => {
    const ws = workspace();
    const file = join(ws, 'app.conf');
    writeFileSync(file, original);
    const h = await filesystem(ws);
    const comment = '  # turned on for the release: the team asked for it in the planning meeting';
    const edits = [5, 20, 35].map((n) => ({ oldText: `setting_${n} = off`, newText: `setting_${n} = on${comment}\nsetting_${n}_level = 3${comment}` }));
    expect(JSON.stringify(edits).length).toBeGreaterThan(600);
    await h.client.callTool({ name: 'fs__edit_file', arguments: { path: file, edits } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    expect(lines).toContain(`Arguments: {"path":${JSON.stringify(file)},"edits":"(shown above as the diff)"}`);
    expect(lines[2]).not.toMatch(/not shown/);
    expect(lines).toContain(`    +setting_35_level = 3${comment}`);
    expect(choices(prompt)).toEqual(['Allow once', 'Allow for this session', `Always allow: Edit(${file})`, 'Deny']);
    // What the diff showed is what the server wrote.
    const written = readFileSync(file, 'utf8');
    expect(written).toBe(original.replace(/^setting_(5|20|35) = off$/gm, (_, n: string) => `setting_${n} = on${comment}\nsetting_${n}_level = 3${comment}`));
    expect(savedRules(h)).toContain(`Edit(${file})`);
  }, 60_000);

  test('edits whose diff is over 40 lines: the diff is cut with its count, the edits are shown as sent, Allow once / Deny only', async () => {
    const ws = workspace();
    const file = join(ws, 'app.conf');
    writeFileSync(file, original);
    const h = await filesystem(ws, 'Allow once');
    const edits = [{ oldText: original.trimEnd(), newText: original.trimEnd().replace(/ = off/g, ' = on') }];
    await h.client.callTool({ name: 'fs__edit_file', arguments: { path: file, edits } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    expect(lines[2]).toBe('Risk: high — part of this call is not shown (diff, arguments); review it on the approval page or deny');
    // 2 headers, 1 hunk line, 40 removed and 40 added lines: 40 shown, 43 not.
    expect(lines).toContain('    … 43 more diff lines');
    expect(lines.find((line) => line.startsWith('Arguments: '))).toContain('"edits":[{"oldText":"setting_1 = off\\nsetting_2 = off');
    expect(choices(prompt)).toEqual(['Allow once', 'Deny']);
    expect(readFileSync(file, 'utf8')).toBe(original.replace(/ = off/g, ' = on'));
    expect(savedRules(h)).toEqual([]);
  }, 60_000);
});

describe('a command list', () => {
  /** mcp-server-commands with writes in the workspace allowed, `mkdir` allowed by a rule and the person answering `answer`. */
  async function shell(ws: string, answer: string): Promise<Harness> {
    const config: ConfigInput = { mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER], cwd: ws } }, workspace: [ws], permissions: { defaultMode: 'default', allow: [`Edit(${ws}/**)`, 'Bash(mkdir *)'] } };
    harness = await startGateway(config, { onElicit: () => ({ action: 'accept', content: { decision: answer } }) });
    return harness;
  }
  const commandLines = (message: string) => message.split('\n').filter((line) => /^ {2}(\d+\. |… and \d+ (more )?command)/.test(line));

  test('12 commands that ask and 3 the rules allow: the 12 listed, the 3 summarised, nothing marked not shown', async () => {
    const ws = workspace();
    const h = await shell(ws, 'Allow for this session');
    const command = [...numbered(12, 'touch f').map((c) => c.replace('f ', 'f')), ...numbered(3, 'mkdir -p made').map((c) => c.replace('made ', 'made'))].join('; ');
    await h.client.callTool({ name: 'shell__run_command', arguments: { command } });
    const prompt = lastPrompt(h);
    expect(prompt.message.split('\n')[2]).not.toMatch(/not shown/);
    expect(commandLines(prompt.message)).toEqual([...numbered(12, 'touch f').map((c, i) => `  ${i + 1}. ${c.replace('f ', 'f')}`), '  … and 3 commands your rules allow: 13. mkdir -p made1; 14. mkdir -p made2; 15. mkdir -p made3']);
    expect(choices(prompt)).toContain('Allow for this session');
    for (let i = 1; i <= 12; i++) expect(existsSync(join(ws, `f${i}`))).toBe(true);
    for (let i = 1; i <= 3; i++) expect(existsSync(join(ws, `made${i}`))).toBe(true);
  }, 60_000);

  test('13 commands that ask: the 13th is cut with its count whatever the rules allow; Allow once / Deny only', async () => {
    const ws = workspace();
    const h = await shell(ws, 'Deny');
    const command = [...numbered(13, 'touch f').map((c) => c.replace('f ', 'f')), 'mkdir -p made1'].join('; ');
    await h.client.callTool({ name: 'shell__run_command', arguments: { command } });
    const prompt = lastPrompt(h);
    // 13 distinct reasons are over their bound of 12 too.
    expect(prompt.message.split('\n')[2]).toBe('Risk: high — part of this call is not shown (commands, reasons); review it on the approval page or deny');
    expect(commandLines(prompt.message).slice(11)).toEqual(['  12. touch f12', '  … and 1 more command', '  … and 1 command your rules allow: 14. mkdir -p made1']);
    expect(choices(prompt)).toEqual(['Allow once', 'Deny']);
    expect(existsSync(join(ws, 'f1'))).toBe(false);
  }, 60_000);
});
