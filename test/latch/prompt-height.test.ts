import { beforeAll, describe, expect, test } from 'vitest';
import wrapAnsi from 'wrap-ansi';
import { unifiedDiff, type FileChange } from '../../src/latch/file-change.js';
import { buildPrompt, notShown, renderMessage, type PromptInput } from '../../src/latch/prompt.js';
import { MAX_PROMPT_ROWS, rowsOf } from '../../src/latch/prompt-height.js';
import type { Decision, PathReport } from '../../src/policy/types.js';
import { initShellParser } from '../../src/subjects/shell/parser.js';
import { decideFs, decideShell } from '../helpers/policy.js';

/**
 * The message's height (docs/approval.md "How tall the prompt is"): counted as a terminal wraps it,
 * never fewer rows than Claude Code's renderer takes (Ink: wrap-ansi, hard, not trimmed), and at
 * most 60 of 100 columns whatever the call; the command and the paths are the last to be cut.
 */
beforeAll(initShellParser);

const W = '/w/proj';
const inkRows = (text: string) => wrapAnsi(text, 100, { hard: true, trim: false }).split('\n').length;
type Field = { title?: string; description?: string; enum?: string[]; default?: unknown };
/** The whole elicitation's rows as docs/approval.md counts them, with Ink's wrapping: the message, each field's title, description, choices (after 5 columns) or value, and 2. */
const elicitationRows = (prompt: ReturnType<typeof buildPrompt>) =>
  inkRows(prompt.message) + 2 + Object.values(prompt.requestedSchema.properties as Record<string, Field>).reduce((sum, field) => sum + inkRows(field.title ?? '') + (field.description === undefined ? 0 : inkRows(field.description)) + (field.enum ? field.enum.reduce((each, label) => each + inkRows(`     ${label}`), 0) : inkRows(typeof field.default === 'string' ? field.default : '')), 0);

function input(decision: Decision, args: Record<string, unknown>, extra: Partial<PromptInput> = {}): PromptInput {
  return { server: 'fs', tool: 'write_file', kind: decision.kind, decision, args, argsDigest: 'd', rememberRules: null, offerSession: true, ...extra };
}

function writeChange(path: string, before: string, after: string): FileChange {
  const diff = unifiedDiff(path, before, after)!;
  return { action: 'replace', path, from: null, bytesBefore: before.length, bytesAfter: after.length, diff: diff.text, diffMore: diff.more, cutLines: diff.cutLines, note: null };
}

const words = (length: number, word = 'alpha') => Array.from({ length: Math.ceil(length / (word.length + 1)) }, () => word).join(' ').slice(0, length);

describe('rows', () => {
  // Words of every length around a row's width, runs of spaces, wide characters: never fewer rows than Ink.
  const lines = [
    '',
    'x'.repeat(100),
    'x'.repeat(101),
    `${'x'.repeat(99)} y`,
    `a ${'x'.repeat(250)} b`,
    words(1000),
    words(1000, 'supercalifragilistic'),
    `    ${'word '.repeat(60)}`,
    '中文字符'.repeat(40),
    `ok ${'中'.repeat(60)} done ${'é'.repeat(120)}`,
    `${' '.repeat(23)}|${' '.repeat(150)}|`,
  ];
  test.each(lines.map((line, i) => [i, line]))('line %i: at least the rows Ink wraps it to', (_, line) => {
    expect(rowsOf(line)).toBeGreaterThanOrEqual(inkRows(line));
  });
});

describe('the bound across parts', () => {
  test('a long command plus a diff of 40 lines of 500 characters: the command is shown whole, the diff is cut to fit', () => {
    const step = (i: number) => `npm run build:step-${i} -- --mode=production --verbose`;
    const command = Array.from({ length: 7 }, (_, i) => step(i)).join(' && ');
    expect(command.length).toBeLessThanOrEqual(400);
    const decision = decideShell(command, { workspace: [W], cwd: W });
    const path = `${W}/notes.md`;
    const after = `${Array.from({ length: 38 }, (_, i) => `${i} ${words(495)}`).join('\n')}\n`;
    const shown = input(decision, { command }, { tool: 'run_command', server: 'shell', change: writeChange(path, 'a\n', after) });
    const message = renderMessage(shown);
    const lines = message.split('\n');
    expect(rowsOf(message)).toBeLessThanOrEqual(MAX_PROMPT_ROWS);
    expect(inkRows(message)).toBeLessThanOrEqual(MAX_PROMPT_ROWS);
    expect(lines).toContain(`Command: ${command}`);
    for (let i = 0; i < 7; i++) expect(lines).toContain(`  ${i + 1}. ${step(i)}`);
    expect(lines.some((line) => /^ {4}… \d+ more diff lines$/.test(line))).toBe(true);
    expect(notShown(shown)).toContain('diff');
    expect(notShown(shown)).not.toContain('command text');
    expect(notShown(shown)).not.toContain('commands');
    expect(buildPrompt(shown).requestedSchema.properties.decision).toMatchObject({ enum: ['Allow once', 'Deny'] });
  });

  test('300 paths outside the workspace of 150 characters, a 400-character command, 5,000-character server and tool names: at most 60 rows, each cut said', () => {
    const decision = decideShell('ls', { workspace: [W], cwd: W });
    const paths: PathReport[] = Array.from({ length: 300 }, (_, i) => ({ path: `/elsewhere/${words(130)}/${i}`, realPath: null, access: 'write', inWorkspace: false, input: 'x', via: 'argument' }));
    const shown = input({ ...decision, paths }, { command: words(2000) }, { server: 's'.repeat(5000), tool: 't'.repeat(5000), rememberRules: ['Bash(ls)'] });
    const message = renderMessage(shown);
    expect(rowsOf(message)).toBeLessThanOrEqual(MAX_PROMPT_ROWS);
    expect(inkRows(message)).toBeLessThanOrEqual(MAX_PROMPT_ROWS);
    expect(message).toMatch(/^ {2}… and \d+ more paths$/m);
    expect(message.split('\n')[0]).toMatch(/^s+… \(4800 more characters\) wants to run the tool t+… \(4800 more characters\)/);
    expect(notShown(shown)).toEqual(['tool name', 'paths', 'arguments']);
    expect(message.split('\n')[2]).toBe('Risk: high — part of this call is not shown (tool name, paths, arguments; the prompt shows at most 60 rows of 100 columns); review it on the approval page or deny');
    expect(buildPrompt(shown).requestedSchema.properties.decision).toMatchObject({ enum: ['Allow once', 'Deny'] });
  });

  test('the rows of the broader choices, shown only when nothing is cut, are not taken from a message cut anyway', () => {
    const decision = decideShell('ls', { workspace: [W], cwd: W });
    const paths: PathReport[] = Array.from({ length: 120 }, (_, i) => ({ path: `/elsewhere/${i}`, realPath: null, access: 'read', inWorkspace: false, input: 'x', via: 'argument' }));
    const listed = (extra: Partial<PromptInput>) => renderMessage(input({ ...decision, paths }, { command: 'ls' }, extra)).split('\n').filter((line) => line.startsWith('  read  /elsewhere/')).length;
    const rules = Array.from({ length: 12 }, (_, i) => `Read(/elsewhere/${i}/${'x'.repeat(80)})`);
    expect(listed({ rememberRules: rules })).toBe(listed({ rememberRules: null, offerSession: false }));
    expect(listed({ rememberRules: null, offerSession: false })).toBeGreaterThan(30);
  });

  test('every part fits but not with the lines of the broader choices: the parts are shown whole, the choices not offered', () => {
    const decision = decideShell('ls', { workspace: [W], cwd: W });
    const paths: PathReport[] = Array.from({ length: 20 }, (_, i) => ({ path: `/elsewhere/${i}`, realPath: null, access: 'read', inWorkspace: false, input: 'x', via: 'argument' }));
    const rules = Array.from({ length: 30 }, (_, i) => `Read(/elsewhere/${i}/${'x'.repeat(80)})`);
    const shown = input({ ...decision, paths }, { command: 'ls' }, { rememberRules: rules });
    const message = renderMessage(shown);
    expect(rowsOf(message)).toBeLessThanOrEqual(MAX_PROMPT_ROWS);
    expect(message.split('\n').filter((line) => line.startsWith('  read  /elsewhere/'))).toHaveLength(20);
    expect(notShown(shown)).toEqual(['what the broader choices cover']);
    expect(message).not.toContain('"Always allow" saves');
    expect(buildPrompt(shown).requestedSchema.properties.decision).toMatchObject({ enum: ['Allow once', 'Deny'] });
    // With 3 of the rules, the choices fit too and are offered.
    const fewer = input({ ...decision, paths }, { command: 'ls' }, { rememberRules: rules.slice(0, 3) });
    expect(notShown(fewer)).toEqual([]);
    expect(rowsOf(renderMessage(fewer))).toBeLessThanOrEqual(MAX_PROMPT_ROWS);
  });

  test('an ordinary write is as before: whole, nothing cut', () => {
    const path = `${W}/notes.txt`;
    const decision = decideFs('write_file', { path, content: 'b\n' }, [W]);
    const shown = input(decision, { path, content: 'b\n' }, { change: writeChange(path, 'a\n', 'b\n'), rememberRules: [`Edit(${path})`] });
    expect(notShown(shown)).toEqual([]);
    expect(renderMessage(shown).split('\n')[2]).toBe('Risk: medium — overwrites an existing file');
  });
});

// Round 20: the 60 rows held the message alone; the form's choices, note and edit fields came on top.
describe('the message and the form together', () => {
  const decision = () => decideShell('ls', { workspace: [W], cwd: W });
  const many = (n: number): PathReport[] => Array.from({ length: n }, (_, i) => ({ path: `/elsewhere/${words(130)}/${i}`, realPath: null, access: 'write', inWorkspace: false, input: 'x', via: 'argument' }));
  const cases: Array<[string, () => PromptInput]> = [
    ['300 paths, 5,000-character names, a 2,000-character one-line command to edit', () => input({ ...decision(), paths: many(300) }, { command: words(1990) }, { server: 's'.repeat(5000), tool: 't'.repeat(5000), rememberRules: ['Bash(ls)'], editable: [{ arg: 'command', role: 'command', value: words(1990) }] })],
    ['four edit fields of 1,900 characters each', () => input({ ...decision(), paths: many(10) }, { command: 'ls' }, { editable: ['command', 'cwd', 'path', 'content'].map((arg, i) => ({ arg, role: (['command', 'cwd', 'path', 'content'] as const)[i]!, value: words(1900) })) })],
    ['30 rules of 100 characters, nothing cut', () => input({ ...decision(), paths: many(3) }, { command: 'ls' }, { rememberRules: Array.from({ length: 30 }, (_, i) => `Read(/elsewhere/${i}/${'x'.repeat(80)})`) })],
    ['a short call, every choice offered', () => input(decision(), { command: 'ls' }, { rememberRules: ['Bash(ls)'], editable: [{ arg: 'command', role: 'command', value: 'ls' }] })],
  ];
  test.each(cases)('%s: at most 60 rows, counted as Ink wraps them', (_, make) => {
    const prompt = buildPrompt(make());
    expect(elicitationRows(prompt)).toBeLessThanOrEqual(MAX_PROMPT_ROWS);
  });
  test('an edit field the height has no room for is left to the approval page; the short call keeps all four choices', () => {
    const crowded = buildPrompt(cases[1]![1]());
    expect(Object.keys(crowded.requestedSchema.properties).length).toBeLessThan(6);
    const short = buildPrompt(cases[3]![1]());
    expect(Object.keys(short.requestedSchema.properties)).toEqual(['decision', 'note', 'edit_command']);
    expect(short.requestedSchema.properties.decision).toMatchObject({ enum: ['Allow once', 'Allow for this session', 'Always allow: Bash(ls)', 'Deny'] });
  });
});

test('a command lists under it only its redirections: a recursive copy\'s paths are under Paths, not called redirections', () => {
  const decision = decideShell('cp -r build/out dist/rc > log.txt', { workspace: [W], cwd: W });
  const message = renderMessage(input(decision, { command: 'cp -r build/out dist/rc > log.txt' }, { server: 'shell', tool: 'run_command' }));
  expect(message).not.toContain('(redirection argument');
  expect(message.split('\n')).toContain('     writes log.txt (redirection >)');
  expect(message.split('\n')).toContain(`  write ${W}/dist/rc (inside the workspace)`);
});
