import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { COMMANDS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 25 (rules25), end to end: the built gateway in front of mcp-server-commands. less's lesskey
 * options, make's command-line variables and python's start-up variables ran code under
 * `Bash(less:*)`, `Bash(make:*)`, `Bash(python3:*)` (default) or past deny rules (bypassPermissions);
 * none reaches the server now, and the files each would have made are not there
 * (docs/threat-model.md "Round 25: …"; the decisions in every mode: test/policy/rules25.test.ts).
 * Each tool's part is skipped, saying so, when the tool is absent.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const DENIED = /^Denied by mcp-latch/;
const present = (program: string, args: string[]): boolean => {
  try {
    execFileSync(program, args, { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
};
const hasLess = present('less', ['--version']);
const hasMake = present('make', ['--version']);
const hasPython = present('python3', ['-c', 'pass']);

async function gateway(mode: DefaultMode): Promise<string> {
  const work = join(realpathSync(tempDir('command-words25-')), 'w');
  mkdirSync(join(work, 'x'), { recursive: true });
  writeFileSync(join(work, 'f.txt'), 'hi\n');
  writeFileSync(join(work, 'notes.txt'), `#env\nLESSOPEN=|touch ${join(work, 'made-less')}; cat %s\n`);
  writeFileSync(join(work, 'Makefile'), 'test:\n\t$(PYTHON) -c "print(1)"\nall:\n\t@echo $(MSG)\n');
  writeFileSync(join(work, 'evil'), `#!/bin/sh\ntouch ${join(work, 'made-evil')}\n`, { mode: 0o755 });
  writeFileSync(join(work, 'x', 'sitecustomize.py'), `open(${JSON.stringify(join(work, 'made-python'))}, "w").close()\n`);
  writeFileSync(join(work, 'script.py'), 'print("script")\n');
  harness = await startGateway({
    mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER], env: { SHELL: '/bin/sh', TERM: 'dumb', MAKEFLAGS: '' } } },
    workspace: [work],
    permissions: {
      defaultMode: mode,
      allow: mode === 'default' ? ['Bash(less:*)', 'Bash(make:*)', 'Bash(python3:*)'] : [],
      deny: ['Bash(rm *)'],
    },
  });
  return work;
}

const run = async (command: string, workdir: string): Promise<string> => textOf(await harness!.client.callTool({ name: 'shell__run_command', arguments: { command, workdir } }));

for (const mode of ['default', 'bypassPermissions'] as const) {
  test.skipIf(!hasLess)(`${mode}: less's lesskey options and LESS reach no server`, async () => {
    const work = await gateway(mode);
    expect(await run('less -R f.txt', work)).toContain('hi');
    for (const command of ['less --lesskey-src=notes.txt f.txt', 'less --lesskey-s notes.txt f.txt', 'LESS=--lesskey-src=notes.txt less f.txt']) {
      expect(await run(command, work), command).toMatch(DENIED);
    }
    expect(existsSync(join(work, 'made-less'))).toBe(false);
  });
  test.skipIf(!hasMake)(`${mode}: make's command-line program variable and recipe text reach no server`, async () => {
    const work = await gateway(mode);
    expect(await run("make 'MSG=plain words' all", work)).toContain('plain words');
    // In bypassPermissions `make PYTHON=./evil` runs a program the analysis sees (as `./evil` would): only the default mode's rule is checked for it.
    const commands = [`make 'MSG=x; touch ${join(work, 'made-evil')}' all`, ...(mode === 'default' ? ['make PYTHON=./evil test'] : [])];
    for (const command of commands) expect(await run(command, work), command).toMatch(DENIED);
    expect(existsSync(join(work, 'made-evil'))).toBe(false);
  });
}
// In default mode an assignment before the program already kept `Bash(python3:*)` from allowing it (round 24 and before).
test.skipIf(!hasPython)('bypassPermissions with deny rules: PYTHONPATH outside the project reaches no server', async () => {
  const work = await gateway('bypassPermissions');
  expect(await run('python3 script.py', work)).toContain('script');
  expect(await run('PYTHONPATH=src python3 script.py', work)).toContain('script');
  expect(await run(`PYTHONPATH=${join(work, 'x')} python3 script.py`, work)).toMatch(DENIED);
  expect(existsSync(join(work, 'made-python'))).toBe(false);
});
