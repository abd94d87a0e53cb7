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
  // Round 20: with the form's rows counted in the prompt's 60 rows, 26 lines (not 30) fit whole.
  test('a new file of 26 lines (a diff of 29): shown whole, Risk as it is, "Always allow" offered and saved', async () => {
    const ws = workspace();
    const file = join(ws, 'notes.md');
    const h = await filesystem(ws);
    const content = `${numbered(26, 'a line of the meeting notes the assistant wrote, number').join('\n')}\n`;
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: file, content } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    expect(lines[2]).toBe('Risk: low');
    expect(lines).toContain('    --- /dev/null');
    expect(lines).toContain('    +a line of the meeting notes the assistant wrote, number 26');
    expect(lines.some((line) => line.includes('more diff line'))).toBe(false);
    expect(lines).toContain(`Arguments: {"path":${JSON.stringify(file)},"content":"(shown above as the diff)"}`);
    expect(choices(prompt)).toEqual(['Allow once', 'Allow for this session', `Always allow: Edit(${file})`, 'Deny']);
    expect(readFileSync(file, 'utf8')).toBe(content);
    expect(savedRules(h)).toContain(`Edit(${file})`);
  }, 60_000);

  test('a new file of 250 lines: the diff lines that fit, then the true count of the rest; Allow once / Deny only, nothing saved', async () => {
    const ws = workspace();
    const file = join(ws, 'long.md');
    const h = await filesystem(ws, 'Allow once');
    const content = `${numbered(250, 'line').join('\n')}\n`;
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: file, content } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    // Since round 20 the height also leaves the reasons one line ("Why it asks: … not shown").
    expect(lines[2]).toMatch(/^Risk: high — part of this call is not shown \(diff, (reasons, )?arguments; the prompt shows at most 60 rows of 100 columns\); review it on the approval page or deny$/);
    // The diff is 2 headers, 1 hunk line and 250 added lines: those that fit the height (fewer than
    // 40 since round 20 counts the form's rows), then the count of all the others.
    const first = lines.indexOf('    --- /dev/null');
    const shown = lines.filter((line) => /^ {4}\+line \d+$/.test(line)).length;
    expect(shown).toBeGreaterThan(20);
    expect(lines[first + 2 + shown]).toBe(`    +line ${shown}`);
    expect(lines[first + 3 + shown]).toBe(`    … ${250 - shown} more diff lines`);
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
    // Three edits side by side: one hunk (round 20: three hunks no longer fit beside the form's rows).
    const edits = [5, 6, 7].map((n) => ({ oldText: `setting_${n} = off`, newText: `setting_${n} = on${comment}\nsetting_${n}_level = 3${comment}` }));
    expect(JSON.stringify(edits).length).toBeGreaterThan(600);
    await h.client.callTool({ name: 'fs__edit_file', arguments: { path: file, edits } });
    const prompt = lastPrompt(h);
    const lines = prompt.message.split('\n');
    expect(lines).toContain(`Arguments: {"path":${JSON.stringify(file)},"edits":"(shown above as the diff)"}`);
    expect(lines[2]).not.toMatch(/not shown/);
    expect(lines).toContain(`    +setting_7_level = 3${comment}`);
    expect(choices(prompt)).toEqual(['Allow once', 'Allow for this session', `Always allow: Edit(${file})`, 'Deny']);
    // What the diff showed is what the server wrote.
    const written = readFileSync(file, 'utf8');
    expect(written).toBe(original.replace(/^setting_(5|6|7) = off$/gm, (_, n: string) => `setting_${n} = on${comment}\nsetting_${n}_level = 3${comment}`));
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
    expect(lines[2]).toMatch(/^Risk: high — part of this call is not shown \(diff, (reasons, )?arguments; the prompt shows at most 60 rows of 100 columns\); review it on the approval page or deny$/);
    // 2 headers, 1 hunk line, 40 removed and 40 added lines: those that fit, then the count of the others.
    const shown = lines.filter((line) => /^ {4}[-+ @]/.test(line)).length;
    expect(shown).toBeGreaterThan(20);
    expect(lines).toContain(`    … ${83 - shown} more diff lines`);
    // As sent, from its start (cut to the row the height leaves it since round 20).
    const args = lines.find((line) => line.startsWith('Arguments: '))!;
    expect(args).toContain('"edits":[{"old');
    expect(args).not.toContain('(shown above as the diff)');
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

  // Round 20: 8, not 12: with the form's rows counted in the 60, 12 touch commands with their paths and reasons no longer fit.
  test('8 commands that ask and 3 the rules allow: the 8 listed, the 3 summarised, nothing marked not shown', async () => {
    const ws = workspace();
    const h = await shell(ws, 'Allow for this session');
    const command = [...numbered(8, 'touch f').map((c) => c.replace('f ', 'f')), ...numbered(3, 'mkdir -p made').map((c) => c.replace('made ', 'made'))].join('; ');
    await h.client.callTool({ name: 'shell__run_command', arguments: { command } });
    const prompt = lastPrompt(h);
    expect(prompt.message.split('\n')[2]).not.toMatch(/not shown/);
    // The 8 that ask listed first; the allowed ones after them as rows allow, the rest summed up.
    const listed = commandLines(prompt.message);
    expect(listed.slice(0, 8)).toEqual(numbered(8, 'touch f').map((c, i) => `  ${i + 1}. ${c.replace('f ', 'f')}`));
    expect(listed.at(-1)).toMatch(/^ {2}… and \d commands? your rules allow: .*11\. mkdir -p made3$/);
    expect(listed.join('\n').match(/mkdir -p made\d/g)).toEqual(['mkdir -p made1', 'mkdir -p made2', 'mkdir -p made3']);
    expect(choices(prompt)).toContain('Allow for this session');
    for (let i = 1; i <= 8; i++) expect(existsSync(join(ws, `f${i}`))).toBe(true);
    for (let i = 1; i <= 3; i++) expect(existsSync(join(ws, `made${i}`))).toBe(true);
  }, 60_000);

  test('13 commands that ask: the 13th is cut with its count whatever the rules allow; Allow once / Deny only', async () => {
    const ws = workspace();
    const h = await shell(ws, 'Deny');
    const command = [...numbered(13, 'touch f').map((c) => c.replace('f ', 'f')), 'mkdir -p made1'].join('; ');
    await h.client.callTool({ name: 'shell__run_command', arguments: { command } });
    const prompt = lastPrompt(h);
    // 13 distinct reasons are over their bound of 12 too; since round 20 the height (the form's rows
    // counted) cuts the list before its bound of 12.
    expect(prompt.message.split('\n')[2]).toBe('Risk: high — part of this call is not shown (commands, reasons; the prompt shows at most 60 rows of 100 columns); review it on the approval page or deny');
    const listed = commandLines(prompt.message).filter((line) => /^ {2}\d+\. touch f\d+$/.test(line)).length;
    expect(listed).toBeGreaterThan(4);
    expect(commandLines(prompt.message).slice(listed - 1)).toEqual([`  ${listed}. touch f${listed}`, `  … and ${13 - listed} more command${13 - listed === 1 ? '' : 's'}`, '  … and 1 command your rules allow: 14. mkdir -p made1']);
    expect(choices(prompt)).toEqual(['Allow once', 'Deny']);
    expect(existsSync(join(ws, 'f1'))).toBe(false);
  }, 60_000);
});
