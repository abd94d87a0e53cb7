import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { applyEdits, describeChange, fileChangeOf, planChange, unifiedDiff, MAX_DIFF_LINES, changeSummary } from '../../src/latch/file-change.js';
import { policyFor } from '../../src/policy/policy.js';
import { inspectCall } from '../../src/subjects/inspect.js';
import { classifyTool } from '../../src/subjects/kind.js';
import { identifyServer } from '../../src/subjects/server-identity.js';
import { tempDir } from '../helpers/gateway.js';

/**
 * What a write will change: the plan from a call's facts, the current file read only where the
 * rules allow, and the summary and diff a person reads. Real files in a temporary directory.
 */
function fsCall(dir: string, tool: string, args: Record<string, unknown>, deny: string[] = []) {
  const identity = identifyServer({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', dir] }, '/');
  const toolClass = classifyTool({ identity, tool: { name: tool } });
  const env = { home: '/nonexistent-home', roots: [dir], platform: process.platform };
  const facts = inspectCall('fs', tool, args, toolClass, { workspace: [dir], clientRoots: [], pathEnv: { home: env.home, platform: process.platform } });
  const policy = policyFor({ defaultMode: 'default', allow: [], ask: [], deny }, join(dir, 'mcp-latch.json'), null, env);
  return { facts, policy };
}

async function changeOf(dir: string, tool: string, args: Record<string, unknown>, deny: string[] = []) {
  const { facts, policy } = fsCall(dir, tool, args, deny);
  return fileChangeOf(facts, args, policy);
}

describe('write_file', () => {
  test('over an existing file: "replaces a file of N bytes" and a unified diff of the change', async () => {
    const dir = tempDir();
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'one\ntwo\nthree\n');
    const change = await changeOf(dir, 'write_file', { path: file, content: 'one\nTWO\nthree\n' });
    expect(change).toMatchObject({ action: 'replace', path: file, bytesBefore: 14, bytesAfter: 14, diffMore: 0, note: null });
    expect(change?.diff?.split('\n')).toEqual([`--- ${file}`, `+++ ${file}`, '@@ -1,3 +1,3 @@', ' one', '-two', '+TWO', ' three']);
    expect(changeSummary(change!)).toBe('replaces a file of 14 bytes (new size 14 bytes)');
  });

  test('of a new file: "creates a new file", every line added', async () => {
    const dir = tempDir();
    const change = await changeOf(dir, 'write_file', { path: join(dir, 'new.txt'), content: 'hello\n' });
    expect(change).toMatchObject({ action: 'create', bytesBefore: null, bytesAfter: 6 });
    expect(change?.diff?.split('\n').slice(0, 2)).toEqual(['--- /dev/null', `+++ ${join(dir, 'new.txt')}`]);
    expect(change?.diff).toContain('+hello');
    expect(changeSummary(change!)).toBe('creates a new file (6 bytes)');
  });

  test('a file the rules deny reading is not read: sizes of the new content only, and a note saying why', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.env'), 'SECRET=hunter2\n');
    const change = await changeOf(dir, 'write_file', { path: join(dir, '.env'), content: 'X=1\n' }, ['Read(**/.env)']);
    expect(change?.diff).toBeNull();
    expect(change?.bytesBefore).toBeNull();
    expect(change?.note).toMatch(/denied by a rule/);
    expect(JSON.stringify(change)).not.toContain('hunter2');
  });

  test('a file whose real path the rules deny reading is not read through a symlink', async () => {
    const dir = tempDir();
    const secrets = tempDir('secrets-');
    writeFileSync(join(secrets, 'key'), 'PRIVATE\n');
    symlinkSync(join(secrets, 'key'), join(dir, 'innocent.txt'));
    const change = await changeOf(dir, 'write_file', { path: join(dir, 'innocent.txt'), content: 'x' }, [`Read(${secrets}/**)`]);
    expect(change?.note).toMatch(/denied by a rule/);
    expect(JSON.stringify(change)).not.toContain('PRIVATE');
  });

  test('a long diff is cut with a count of the lines left out', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.txt');
    const lines = Array.from({ length: 150 }, (_, i) => `line ${i}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const change = await changeOf(dir, 'write_file', { path: file, content: `${lines.map((line) => `${line}!`).join('\n')}\n` });
    expect(change?.diff?.split('\n')).toHaveLength(MAX_DIFF_LINES);
    expect(change?.diffMore).toBe(2 + 1 + 300 - MAX_DIFF_LINES);
  });

  test('a directory or binary file gives a note instead of a diff', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([1, 0, 2]));
    expect((await changeOf(dir, 'write_file', { path: join(dir, 'sub'), content: 'x' }))?.note).toMatch(/not a regular file/);
    const binary = await changeOf(dir, 'write_file', { path: join(dir, 'blob.bin'), content: 'x' });
    expect(binary).toMatchObject({ action: 'replace', bytesBefore: 3, diff: null });
    expect(binary?.note).toMatch(/binary/);
  });
});

describe('edit_file and move_file', () => {
  test('edits are applied to a copy in memory; the file on disk is unchanged', async () => {
    const dir = tempDir();
    const file = join(dir, 'a.ts');
    writeFileSync(file, 'const a = 1;\nconst b = 2;\n');
    const change = await changeOf(dir, 'edit_file', { path: file, edits: [{ oldText: 'const b = 2;', newText: 'const b = 3;' }] });
    expect(change).toMatchObject({ action: 'edit', bytesBefore: 26, bytesAfter: 26 });
    expect(change?.diff).toContain('-const b = 2;\n+const b = 3;');
  });

  // Desktop Commander's edit_block: old_string and new_string are what the diff shows, so the
  // prompt shows them once, as the diff (their raw text counted against the Arguments bound twice).
  test("Desktop Commander edit_block: the diff stands for old_string and new_string", async () => {
    const dir = tempDir();
    const file = join(dir, 'a.ts');
    writeFileSync(file, 'const a = 1;\nconst b = 2;\n');
    const args = { file_path: file, old_string: 'const b = 2;', new_string: 'const b = 3;' };
    const identity = identifyServer({ command: 'npx', args: ['-y', '@wonderwhy-er/desktop-commander'] }, '/');
    const facts = inspectCall('dc', 'edit_block', args, classifyTool({ identity, tool: { name: 'edit_block' } }), { workspace: [dir], clientRoots: [], pathEnv: { home: '/nonexistent-home', platform: process.platform } });
    const policy = policyFor({ defaultMode: 'default', allow: [], ask: [], deny: [] }, join(dir, 'mcp-latch.json'), null, { home: '/nonexistent-home', roots: [dir], platform: process.platform });
    const change = await fileChangeOf(facts, args, policy);
    expect(change).toMatchObject({ action: 'edit', contentArgs: ['old_string', 'new_string'] });
    expect(change?.diff).toContain('-const b = 2;\n+const b = 3;');
    expect((await changeOf(dir, 'edit_file', { path: file, edits: [{ oldText: 'const b = 2;', newText: 'const b = 3;' }] }))?.contentArgs).toEqual(['edits']);
  });

  test('an edit whose old text is not in the file says so instead of guessing', () => {
    expect(applyEdits('a\nb\n', [{ oldText: 'c', newText: 'd' }])).toBeNull();
    expect(applyEdits('a\r\nb\r\n', [{ oldText: 'a\nb', newText: 'x' }])).toEqual({ text: 'x\n', byLines: false });
  });

  test('move_file names both ends and what it replaces', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'from.txt'), '12345');
    const change = await changeOf(dir, 'move_file', { source: join(dir, 'from.txt'), destination: join(dir, 'to.txt') });
    expect(change).toMatchObject({ action: 'move', path: join(dir, 'to.txt'), from: join(dir, 'from.txt'), bytesBefore: null, bytesAfter: 5 });
    expect(changeSummary(change!)).toBe('moves a file of 5 bytes to a new name');
  });

  test('a dry-run edit, a read, or a command is not a change', () => {
    const dir = tempDir();
    const dry = fsCall(dir, 'edit_file', { path: join(dir, 'a'), edits: [{ oldText: 'a', newText: 'b' }], dryRun: true });
    expect(planChange(dry.facts, { dryRun: true })).toBeNull();
    const read = fsCall(dir, 'read_text_file', { path: join(dir, 'a') });
    expect(planChange(read.facts, { path: join(dir, 'a') })).toBeNull();
  });
});

describe('unifiedDiff', () => {
  test("a line break in the path stays in the header's one line, escaped (round 29 review F29-2)", () => {
    // Before: `+++ pub/a` then a line `+harmless` of the path's own, drawn as an added line of the file.
    const lines = unifiedDiff('pub/a\n+harmless\r\u2028x.txt', '', 'real\n')!.text.split('\n');
    expect(lines.slice(0, 2)).toEqual(['--- /dev/null', '+++ pub/a\\n+harmless\\r\\u2028x.txt']);
    expect(lines.slice(2)).toEqual(['@@ -1,0 +1,1 @@', '+real']);
  });
  test('equal texts give an empty diff; very different large texts are summarised, not compared', () => {
    expect(unifiedDiff('/f', 'same', 'same')).toEqual({ text: '', more: 0, cutLines: 0 });
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 3000 }, (_, i) => `b${i}`).join('\n');
    expect(unifiedDiff('/f', a, b)).toBeNull();
    const plan = { action: 'write' as const, target: { type: 'path' as const, access: 'write' as const, input: '/f', path: '/f', realPath: '/f', inWorkspace: true, via: 'path' }, content: b, append: false, args: ['content'] };
    expect(describeChange(plan, { state: 'file', text: a, bytes: a.length }).note).toMatch(/too many changes/);
  });
});
