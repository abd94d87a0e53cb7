import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { COMMANDS_SERVER, FS_SERVER, eventually, tempDir, textOf, type HarnessOptions } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness as Harness } from '../helpers/in-process.js';

/**
 * Edit, then approve, in the elicitation form: the SDK Client renders the form's edit fields by
 * answering them from a script; the gateway, in this process (helpers/in-process.ts), fronts
 * mcp-server-commands and server-filesystem.
 * Every assertion is about what ran (on disk), what the model was told, and the audit record.
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

async function gateway(dir: string, onElicit: HarnessOptions['onElicit'], extra: Partial<ConfigInput> = {}): Promise<Harness> {
  const config: ConfigInput = {
    mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] }, fs: { command: process.execPath, args: [FS_SERVER, dir] } },
    workspace: [dir],
    ...extra,
  };
  const harness = await inProcessGateway(config, { dir, ...(onElicit ? { onElicit } : {}) });
  harnesses.push(harness);
  return harness;
}

type Properties = Record<string, { type: string; title?: string; default?: string; description?: string }>;
const propertiesOf = (params: ElicitRequest['params']): Properties => (params as unknown as { requestedSchema: { properties: Properties } }).requestedSchema.properties;
const answer = (content: NonNullable<ElicitResult['content']>) => (): ElicitResult => ({ action: 'accept', content });

/** A build folder with two subfolders: the model's `rm -rf build/` would remove both. */
function buildTree(dir: string): void {
  mkdirSync(join(dir, 'build', 'tmp'), { recursive: true });
  mkdirSync(join(dir, 'build', 'dist'), { recursive: true });
  writeFileSync(join(dir, 'build', 'tmp', 'cache.bin'), 'c');
  writeFileSync(join(dir, 'build', 'dist', 'app.js'), 'a');
}

async function lastAudit(dir: string): Promise<Record<string, unknown>> {
  return eventually(() => {
    const lines = readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim().split('\n');
    return JSON.parse(lines.at(-1)!) as Record<string, unknown>;
  });
}

describe('edit, then approve, in the elicitation form', () => {
  test('the form offers the command and its directory prefilled; the edited command runs instead of the original, the model is told, the audit holds both digests', async () => {
    const dir = tempDir();
    buildTree(dir);
    const h = await gateway(dir, answer({ decision: 'Allow once', edit_command: 'rm -rf build/tmp', edit_workdir: dir }));
    const result = await h.client.callTool({ name: 'shell__run_command', arguments: { command: 'rm -rf build/', workdir: dir } });

    const properties = propertiesOf(h.elicitations[0]!);
    expect(properties.edit_command).toMatchObject({ type: 'string', title: 'Command (command)', default: 'rm -rf build/' });
    expect(properties.edit_workdir).toMatchObject({ type: 'string', title: 'Working directory (workdir)', default: dir });
    expect((h.elicitations[0] as { message: string }).message).toContain('You may change before approving: command, workdir');

    expect(result.isError, textOf(result)).toBeFalsy();
    expect(existsSync(join(dir, 'build', 'tmp'))).toBe(false);
    expect(readFileSync(join(dir, 'build', 'dist', 'app.js'), 'utf8')).toBe('a');
    expect(textOf(result)).toMatch(/^mcp-latch: the user changed this call before approving it \(command "rm -rf build\/" → "rm -rf build\/tmp"\)\. The changed call ran, not the original; its arguments: \{"command":"rm -rf build\/tmp","workdir":/);

    const record = await lastAudit(dir);
    expect(record).toMatchObject({ decision: 'allow', by: 'user', command: 'rm -rf build/tmp', args: { command: 'rm -rf build/tmp', workdir: dir } });
    expect(record.editedFrom).toMatch(/^[0-9a-f]{16,}$/);
    expect(record.argsDigest).toMatch(/^[0-9a-f]{16,}$/);
    expect(record.editedFrom).not.toBe(record.argsDigest);
  });

  test('an edit into a command a rule denies is denied: neither the original nor the edit runs', async () => {
    const dir = tempDir();
    buildTree(dir);
    const made = join(dir, 'made.txt');
    const h = await gateway(dir, answer({ decision: 'Allow once', edit_command: `touch ${made}` }), { permissions: { deny: ['Bash(touch *)'] } });
    const result = await h.client.callTool({ name: 'shell__run_command', arguments: { command: 'rm -rf build/', workdir: dir } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: the user changed this call before approving it \(command "rm -rf build\/" → "touch .*made\.txt"\), but the rule Bash\(touch \*\) in the user's mcp-latch config forbids it .*Neither the original nor the changed call was run\.$/);
    expect(existsSync(made)).toBe(false);
    expect(existsSync(join(dir, 'build', 'tmp', 'cache.bin'))).toBe(true);
    const record = await lastAudit(dir);
    expect(record).toMatchObject({ decision: 'deny', by: 'rule', rule: 'Bash(touch *)', command: `touch ${made}` });
    expect(record.editedFrom).toMatch(/^[0-9a-f]{16,}$/);
  });

  test('an edited call is allowed once even under "Always allow": no rule is saved, the same call asks again', async () => {
    const dir = tempDir();
    const target = join(dir, 'notes.txt');
    const h = await gateway(dir, (params) => {
      const always = (propertiesOf(params).decision as unknown as { enum: string[] }).enum.find((choice) => choice.startsWith('Always allow: '));
      return { action: 'accept', content: { decision: always ?? 'no Always allow offered', edit_content: 'edited by the person' } };
    });
    const before = readFileSync(h.configPath, 'utf8');
    const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'from the model' } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('edited by the person');
    expect(readFileSync(h.configPath, 'utf8')).toBe(before);
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'from the model' } });
    expect(h.elicitations).toHaveLength(2);
  });

  test('Deny with an edit denies; an edit that is not text makes the answer invalid; neither runs anything', async () => {
    const dir = tempDir();
    const target = join(dir, 'kept.txt');
    const answers: ElicitResult[] = [
      { action: 'accept', content: { decision: 'Deny', edit_path: join(dir, 'other.txt') } },
      { action: 'accept', content: { decision: 'Allow once', edit_path: 42 } },
    ];
    const h = await gateway(dir, () => answers.shift()!);
    const denied = await h.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'x' } });
    expect(textOf(denied)).toMatch(/^Denied by mcp-latch: the user denied this call/);
    const invalid = await h.client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'x' } });
    expect(textOf(invalid)).toMatch(/^Denied by mcp-latch: the client returned an answer to the approval prompt that does not fit its form/);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(dir, 'other.txt'))).toBe(false);
  });

  test('a value the form could not show as it is (a line break, a bidi control) is not offered for editing', async () => {
    const dir = tempDir();
    const h = await gateway(dir, answer({ decision: 'Deny' }));
    await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(dir, 'a\u202Eb.txt'), content: 'two\nlines' } });
    const properties = propertiesOf(h.elicitations[0]!);
    expect(properties.edit_path).toBeUndefined();
    expect(properties.edit_content).toBeUndefined();
  });
});
