import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { COMMANDS_SERVER, startGateway, tempDir, type Harness } from '../helpers/gateway.js';

/**
 * mcp-server-commands 0.5.0 lists a prompt `run_command {command}` whose prompts/get runs the
 * command (child_process.exec) and returns its output. Round 14 review T3: it ran `rm -rf` and read
 * `.env` in plan mode past `Bash(rm:*)` and `mcp__cmd__run_command`, since a prompt's arguments
 * met only the deny and ask rules as path candidates. It is now decided as the tool is: shell
 * analysis, command rules, the mode (docs/rules.md "Prompts"). The built gateway, the SDK Client, the real server.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function gateway(mode: DefaultMode, deny: string[]): Promise<{ proj: string; victim: string }> {
  const root = tempDir('prompts-');
  const proj = join(root, 'proj');
  const victim = join(root, 'victim');
  mkdirSync(proj);
  mkdirSync(victim);
  writeFileSync(join(proj, '.env'), 'API_KEY=sk-live-123\n');
  harness = await startGateway({ mcpServers: { cmd: { command: process.execPath, args: [COMMANDS_SERVER], cwd: proj } }, workspace: [proj], permissions: { defaultMode: mode, deny } });
  return { proj, victim };
}

const run = (command: string) => harness!.client.getPrompt({ name: 'cmd__run_command', arguments: { command } });

describe('the run_command prompt is decided as a command', () => {
  test('plan mode: a removal under Bash(rm:*) and a command hiding a denied name are refused; the directory stays', async () => {
    const { victim } = await gateway('plan', ['Bash(rm:*)', 'Read(**/.env)']);
    await expect(run(`rm -rf ${victim} && echo gone`)).rejects.toThrow(/Denied by mcp-latch: the rule Bash\(rm:\*\)/);
    await expect(run('c=.en; cat $c"v"')).rejects.toThrow(/Denied by mcp-latch/);
    await expect(run('echo hi > made.txt')).rejects.toThrow(/Denied by mcp-latch/);
    expect(existsSync(victim)).toBe(true);
  }, 60_000);

  test('a deny rule naming the tool meets the prompt of that name; without one, bypassPermissions runs it', async () => {
    await gateway('bypassPermissions', ['mcp__cmd__run_command']);
    await expect(run('echo hi')).rejects.toThrow(/Denied by mcp-latch: the rule mcp__cmd__run_command/);
    await harness!.close();
    await gateway('bypassPermissions', ['Bash(rm:*)']);
    const result = await run('echo hi');
    expect(JSON.stringify(result.messages)).toContain('hi');
  }, 60_000);

  test('default mode: a read-only command runs, one no rule allows is refused to a client without prompts', async () => {
    const { victim } = await gateway('default', []);
    expect(JSON.stringify((await run('echo hi')).messages)).toContain('hi');
    await expect(run(`rm -rf ${victim}`)).rejects.toThrow(/Denied by mcp-latch/);
    expect(existsSync(victim)).toBe(true);
  }, 60_000);
});
