import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { COMMANDS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Where a remembered command holds (`Bash(npm run test) in ROOT`, docs/rules.md): the directory the
 * command runs in as the kernel finds it, not as it is spelled. The built gateway, the SDK Client
 * answering the prompts, mcp-server-commands running npm (round 15 left: the directory was compared
 * as written).
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function choiceStartingWith(params: ElicitRequest['params'], prefix: string): string {
  const choices = (params as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum;
  const found = choices.find((choice) => choice.startsWith(prefix));
  if (!found) throw new Error(`no choice starting with ${prefix}: ${choices.join(' | ')}`);
  return found;
}

test('a command remembered in projA holds in projA reached through a link, not through a link in projA leading out, nor in projA once it is a link elsewhere', async () => {
  const dir = tempDir('remembered-where-');
  const [projA, projB] = [join(dir, 'projA'), join(dir, 'projB')];
  mkdirSync(projA);
  mkdirSync(projB);
  const made = join(dir, 'PWNED_B');
  writeFileSync(join(projA, 'package.json'), JSON.stringify({ scripts: { test: 'echo tests of A pass' } }));
  writeFileSync(join(projB, 'package.json'), JSON.stringify({ scripts: { test: `touch ${made}` } }));
  symlinkSync(projA, join(projB, 'toA'));
  symlinkSync(projB, join(projA, 'vendor'));
  let asked = 0;
  harness = await startGateway(
    { mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, workspace: [projA, projB] },
    { dir, onElicit: (params) => ({ action: 'accept', content: { decision: ++asked === 1 ? choiceStartingWith(params, 'Always allow: ') : 'Deny' } }) },
  );
  const h = harness;
  const run = (workdir: string, command = 'npm run test') => h.client.callTool({ name: 'shell__run_command', arguments: { command, workdir } });

  expect(textOf(await run(projA))).toContain('tests of A pass');
  expect(JSON.parse(readFileSync(h.configPath, 'utf8')).permissions.allow).toContain(`Bash(npm run test) in ${projA}`);
  // The same project through a link to it (from the other root: a link from outside the workspace asks for its own read).
  expect(textOf(await run(join(projB, 'toA')))).toContain('tests of A pass');
  expect(h.elicitations).toHaveLength(1);

  // A link inside projA that leads to another project: asked (and denied here).
  expect(textOf(await run(join(projA, 'vendor')))).toMatch(/^Denied by mcp-latch: the user denied this call/);
  expect(textOf(await run(projA, 'cd vendor && npm run test'))).toMatch(/^Denied by mcp-latch: the user denied this call/);
  expect(h.elicitations).toHaveLength(3);

  // projA replaced by a link to projB: the spelling matches the rule, the directory is another.
  renameSync(projA, join(dir, 'projA-old'));
  symlinkSync(projB, projA);
  expect(textOf(await run(projA))).toMatch(/^Denied by mcp-latch: the user denied this call/);
  expect(h.elicitations).toHaveLength(4);
  expect(existsSync(made)).toBe(false);
}, 90_000);

test('"Always allow" is not offered for a command carrying a credential: the config on disk never holds it, the session grant does the work (round 18 review, L5)', async () => {
  const dir = tempDir('remembered-secret-');
  const secret = 'S3cretV4lue61REMEMBERME';
  harness = await startGateway(
    { mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, workspace: [dir] },
    {
      dir,
      // The client takes the broadest choice offered.
      onElicit: (params) => {
        const choices = (params as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum;
        return { action: 'accept', content: { decision: choices.find((choice) => choice.startsWith('Always allow: ')) ?? 'Allow for this session' } };
      },
    },
  );
  const h = harness;
  const command = `curl -s -m 2 -H 'Authorization: Bearer ${secret}' http://127.0.0.1:9/v1/models; echo ran`;
  const run = () => h.client.callTool({ name: 'shell__run_command', arguments: { command, workdir: dir } });
  expect(textOf(await run())).toContain('ran');
  expect(h.elicitations).toHaveLength(1);
  expect(h.elicitations[0]!.message).toContain('"Always allow" is not offered: its rule would hold a credential');
  expect(readFileSync(h.configPath, 'utf8')).not.toContain(secret);
  // The session grant answers the same call again without a prompt.
  expect(textOf(await run())).toContain('ran');
  expect(h.elicitations).toHaveLength(1);
  expect(readFileSync(h.configPath, 'utf8')).not.toContain(secret);
}, 60_000);
