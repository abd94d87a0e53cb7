import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { COMMANDS_SERVER, FS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * A rule whose own path goes through a link (docs/rules.md#links-in-rule-paths): the built gateway,
 * the SDK Client, the real server-filesystem and mcp-server-commands, a temporary home reached
 * through a link, and a stow-managed `.ssh` in the workspace (round 15 review P4).
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** T/homelink -> realhome (HOME), realhome/.ssh/id_rsa; the workspace W with .ssh -> dotfiles/ssh; realhome/docs -> T/outside. */
function layout(): { top: string; home: string; realHome: string; ws: string; outside: string } {
  const top = tempDir('rule-links-');
  const realHome = join(top, 'realhome');
  const ws = join(top, 'w');
  const outside = join(top, 'outside');
  mkdirSync(join(realHome, '.ssh'), { recursive: true });
  writeFileSync(join(realHome, '.ssh', 'id_rsa'), 'HOMEKEY\n');
  symlinkSync(realHome, join(top, 'homelink'));
  mkdirSync(join(ws, 'dotfiles', 'ssh'), { recursive: true });
  writeFileSync(join(ws, 'dotfiles', 'ssh', 'id_rsa'), 'STOWKEY\n');
  symlinkSync('dotfiles/ssh', join(ws, '.ssh'));
  mkdirSync(outside);
  writeFileSync(join(outside, 'notes.txt'), 'OUTSIDE\n');
  symlinkSync(outside, join(realHome, 'docs'));
  return { top, home: join(top, 'homelink'), realHome, ws, outside };
}

async function gatewayFor(where: ReturnType<typeof layout>, defaultMode: 'default' | 'bypassPermissions', allow: string[] = []): Promise<Harness> {
  harness = await startGateway(
    {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, where.top] }, shell: { command: process.execPath, args: [COMMANDS_SERVER] } },
      workspace: [where.ws],
      permissions: { defaultMode, allow, deny: ['Read(./.ssh/**)', 'Read(~/.ssh/**)'] },
    },
    { env: { HOME: where.home } },
  );
  return harness;
}

describe('a deny rule through a link holds for the target under its real name', () => {
  for (const mode of ['default', 'bypassPermissions'] as const) {
    test(`Read(./.ssh/**) and Read(~/.ssh/**) deny the stowed key and the real home's key, by file tool and shell (${mode})`, async () => {
      const where = layout();
      const h = await gatewayFor(where, mode);
      const reads = [
        { tool: 'fs__read_text_file', arguments: { path: join(where.ws, '.ssh', 'id_rsa') }, rule: 'Read(./.ssh/**)' },
        { tool: 'fs__read_text_file', arguments: { path: join(where.ws, 'dotfiles', 'ssh', 'id_rsa') }, rule: 'Read(./.ssh/**)' },
        { tool: 'fs__read_text_file', arguments: { path: join(where.realHome, '.ssh', 'id_rsa') }, rule: 'Read(~/.ssh/**)' },
        { tool: 'shell__run_command', arguments: { command: 'cat dotfiles/ssh/id_rsa', workdir: where.ws }, rule: 'Read(./.ssh/**)' },
        { tool: 'shell__run_command', arguments: { command: `cat ${join(where.realHome, '.ssh', 'id_rsa')}`, workdir: where.ws }, rule: 'Read(~/.ssh/**)' },
        { tool: 'shell__run_command', arguments: { command: 'grep -r KEY dotfiles', workdir: where.ws }, rule: 'Read(./.ssh/**)' },
      ];
      for (const read of reads) {
        const result = await h.client.callTool({ name: read.tool, arguments: read.arguments });
        const text = textOf(result);
        // A whole tree with a denied file in it asks, naming the rule (docs/rules.md); one file is denied by it.
        expect(text, JSON.stringify(read.arguments)).toMatch(/^Denied by mcp-latch: /);
        expect(text, JSON.stringify(read.arguments)).toContain(read.arguments.command?.startsWith('grep') ? `deny rule ${read.rule} matches it` : `the rule ${read.rule}`);
        expect(text).not.toMatch(/HOMEKEY|STOWKEY/);
      }
    }, 60_000);
  }

  test('an allow rule through a link is not widened to the target under its real name', async () => {
    const where = layout();
    const h = await gatewayFor(where, 'default', ['Read(~/docs/**)']);
    const result = await h.client.callTool({ name: 'fs__read_text_file', arguments: { path: join(where.outside, 'notes.txt') } });
    expect(textOf(result)).toMatch(/^Denied by mcp-latch: this call needs the user's approval/);
    expect(textOf(result)).not.toContain('OUTSIDE');
  }, 60_000);
});
