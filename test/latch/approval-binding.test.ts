import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { RetryApprovals } from '../../src/latch/page.js';
import { pathsPicture } from '../../src/latch/picture.js';
import type { Decision } from '../../src/policy/types.js';
import { COMMANDS_SERVER, FS_SERVER, eventually, tempDir, textOf } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness as Harness } from '../helpers/in-process.js';

/**
 * An answer holds for the call the person was shown (docs/approval.md#what-an-approval-covers;
 * round 15 review of the approvals, A5 and A7): the gateway in this process in front of
 * server-filesystem and mcp-server-commands, the SDK Client answering its prompts; every assertion
 * is about what is on disk and in the audit file.
 */
const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

function audit(dir: string): Array<Record<string, unknown>> {
  return readFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('an approval is bound to the paths the prompt showed', () => {
  test('a file replaced by a link to one outside the workspace while the prompt is open is not written through the link', async () => {
    const dir = tempDir();
    const ws = join(dir, 'ws');
    const outside = join(dir, 'outside');
    mkdirSync(ws);
    mkdirSync(outside);
    writeFileSync(join(ws, 'notes.txt'), 'old notes\n');
    writeFileSync(join(outside, 'victim.txt'), 'PRECIOUS\n');
    // server-filesystem may write anywhere under dir; the workspace is ws only.
    const h = await inProcessGateway(
      { mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } }, workspace: [ws] },
      {
        dir,
        onElicit: (): ElicitResult => {
          // What a background job, another session or another client can do while the person reads.
          rmSync(join(ws, 'notes.txt'));
          symlinkSync(join(outside, 'victim.txt'), join(ws, 'notes.txt'));
          return { action: 'accept', content: { decision: 'Allow once' } };
        },
      },
    );
    harnesses.push(h);
    const result = await h.client.callTool({ name: 'fs__write_file', arguments: { path: join(ws, 'notes.txt'), content: 'new notes\n' } });

    expect(h.elicitations).toHaveLength(1);
    expect(h.elicitations[0]!.message).toContain('inside the workspace');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`Denied by mcp-latch: the call could not be checked safely (${join(ws, 'notes.txt')} changed while the person was asked: it now leads to ${join(outside, 'victim.txt')} (outside the workspace), which the prompt did not show; ask again to see the call as it is now), so it was not run.`);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('PRECIOUS\n');
    expect(lstatSync(join(ws, 'notes.txt')).isSymbolicLink()).toBe(true);
    const records = await eventually(() => {
      const lines = audit(dir);
      expect(lines).toHaveLength(1);
      return lines;
    });
    // Not "allow by user": the person never saw this write.
    expect(records[0]).toMatchObject({ tool: 'write_file', decision: 'deny', by: 'error' });
  });

  test('an approval on the page is spent only by the identical call whose paths lead where they did', () => {
    const at = (realPath: string): Decision => ({ verdict: 'ask', kind: 'write', rule: null, by: 'mode', reason: 'ask', subjects: [], commandInfo: null, paths: [{ path: '/w/notes.txt', realPath, access: 'write', inWorkspace: realPath.startsWith('/w/'), input: '/w/notes.txt', via: 'path' }] });
    const approvals = new RetryApprovals();
    approvals.grant('digest', 60_000, pathsPicture(at('/w/notes.txt')), null, 0);
    expect(approvals.take('digest', at('/outside/victim.txt'), null, 1)).toBe(false);
    // Spent by that attempt: the person is asked again.
    expect(approvals.take('digest', at('/w/notes.txt'), null, 1)).toBe(false);
    approvals.grant('digest', 60_000, pathsPicture(at('/w/notes.txt')), null, 0);
    expect(approvals.take('digest', at('/w/notes.txt'), null, 1)).toBe(true);
  });
});

describe('an edit box left empty is not an edit', () => {
  test('"rm -rf build" approved for ws/sub with the directory box empty runs in ws/sub, not in ws', async () => {
    const dir = tempDir();
    const sub = join(dir, 'sub');
    mkdirSync(join(dir, 'build'), { recursive: true });
    mkdirSync(join(sub, 'build'), { recursive: true });
    writeFileSync(join(dir, 'build', 'keep.txt'), 'keep');
    writeFileSync(join(sub, 'build', 'gone.txt'), 'gone');
    // What a form client that does not fill in string defaults (MCP before 2025-11-25) returns for untouched boxes.
    const h = await inProcessGateway(
      { mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, workspace: [dir] },
      { dir, onElicit: (): ElicitResult => ({ action: 'accept', content: { decision: 'Allow once', edit_command: 'rm -rf build', edit_workdir: '' } }) },
    );
    harnesses.push(h);
    const result = await h.client.callTool({ name: 'shell__run_command', arguments: { command: 'rm -rf build', workdir: sub } });

    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result)).not.toContain('the user changed this call');
    expect(readFileSync(join(dir, 'build', 'keep.txt'), 'utf8')).toBe('keep');
    await eventually(() => expect(() => lstatSync(join(sub, 'build'))).toThrow());
    expect(audit(dir).at(-1)).toMatchObject({ tool: 'run_command', decision: 'allow', by: 'user' });
  });
});
