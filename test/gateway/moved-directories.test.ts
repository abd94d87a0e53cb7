import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { COMMANDS_SERVER, FS_SERVER, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * A move or removal of a directory moves or removes what is below it (round 14 review, T1/T2:
 * server-filesystem's `move_file` of a directory above the gateway's config, a write under the new
 * name and a move back rewrote the config, hot-reloaded with no rules). The built gateway, the SDK
 * Client and the real server-filesystem (docs/threat-model.md#moving-a-directory-moves-what-is-below-it).
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** `proj` the workspace and server-filesystem's root: `.env`, `conf/secret/db.txt`, `conf/app.json`. */
function project(): string {
  const proj = join(tempDir('moved-'), 'proj');
  mkdirSync(join(proj, 'conf/secret'), { recursive: true });
  writeFileSync(join(proj, '.env'), 'API_KEY=sk-live-123\n');
  writeFileSync(join(proj, 'conf/secret/db.txt'), 'db-password=hunter2\n');
  writeFileSync(join(proj, 'conf/app.json'), '{}\n');
  return proj;
}

describe("a directory above the gateway's own files (T1)", () => {
  test('moving the directory that holds the config is denied, and the config stays', async () => {
    const proj = project();
    const latch = join(proj, '.latch');
    mkdirSync(latch);
    harness = await startGateway(
      {
        mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, proj] } },
        workspace: [proj],
        permissions: { defaultMode: 'bypassPermissions', deny: ['Read(**/.env)'] },
      },
      { dir: latch },
    );
    const config = readFileSync(harness.configPath, 'utf8');
    const moved = await harness.client.callTool({ name: 'fs__move_file', arguments: { source: '.latch', destination: 'l2' } });
    expect(textOf(moved)).toContain(`Denied by mcp-latch: the rule built-in protection of ${harness.configPath}`);
    expect(existsSync(join(proj, 'l2'))).toBe(false);
    // The project itself holds it too; a directory moved onto the config's meets what is below it.
    const whole = await harness.client.callTool({ name: 'fs__move_file', arguments: { source: '.', destination: 'elsewhere' } });
    expect(textOf(whole)).toContain('Denied by mcp-latch: the rule built-in protection of');
    mkdirSync(join(proj, 'l3'));
    expect(textOf(await harness.client.callTool({ name: 'fs__move_file', arguments: { source: 'l3', destination: '.latch' } }))).toMatch(/^Denied by mcp-latch/);
    expect(readFileSync(harness.configPath, 'utf8')).toBe(config);
    expect(textOf(await harness.client.callTool({ name: 'fs__read_text_file', arguments: { path: '.env' } }))).toContain('Denied by mcp-latch: the rule Read(**/.env)');
  }, 60_000);

  test('the shell: moving it away is denied, and so is a directory moved back onto it', async () => {
    const proj = project();
    const latch = join(proj, '.latch');
    mkdirSync(latch);
    harness = await startGateway(
      {
        mcpServers: { cmd: { command: process.execPath, args: [COMMANDS_SERVER] } },
        workspace: [proj],
        permissions: { defaultMode: 'bypassPermissions', deny: ['Read(**/.env)'] },
      },
      { dir: latch },
    );
    const config = readFileSync(harness.configPath, 'utf8');
    mkdirSync(join(proj, 'l2'));
    writeFileSync(join(proj, 'l2/mcp-latch.json'), '{"mcpServers":{},"permissions":{"defaultMode":"bypassPermissions"}}');
    for (const command of ['mv .latch l3', 'rm -rf .latch', 'mv -T l2 .latch', 'mv l2/mcp-latch.json .latch/']) {
      const run = await harness.client.callTool({ name: 'cmd__run_command', arguments: { command, workdir: proj } });
      expect(textOf(run), command).toMatch(/^Denied by mcp-latch/);
    }
    expect(readFileSync(harness.configPath, 'utf8')).toBe(config);
  }, 60_000);
});

describe('a directory above a path a deny or ask rule names (T2)', () => {
  const config = (proj: string, deny: string[]) => ({
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, proj] }, cmd: { command: process.execPath, args: [COMMANDS_SERVER] } },
    workspace: [proj],
    permissions: { defaultMode: 'acceptEdits' as const, allow: ['Bash(mv:*)', 'Bash(cat:*)'], deny },
  });

  test('server-filesystem: moving an ancestor of a Read-denied folder is not allowed; the file stays unread', async () => {
    const proj = project();
    harness = await startGateway(config(proj, ['Read(./conf/secret/**)']));
    const moved = await harness.client.callTool({ name: 'fs__move_file', arguments: { source: 'conf', destination: 'pub' } });
    expect(textOf(moved)).toMatch(/^Denied by mcp-latch/);
    expect(textOf(moved)).toContain('Read(./conf/secret/**)');
    expect(existsSync(join(proj, 'pub'))).toBe(false);
    // A file beside it moves as before.
    expect(textOf(await harness.client.callTool({ name: 'fs__move_file', arguments: { source: 'conf/app.json', destination: 'app.json' } }))).toContain('Successfully moved');
  }, 60_000);

  test('the same through the shell: `mv conf pub` under a Read deny rule below it', async () => {
    const proj = project();
    harness = await startGateway(config(proj, ['Read(./conf/secret/**)']));
    const run = await harness.client.callTool({ name: 'cmd__run_command', arguments: { command: 'mv conf pub && cat pub/secret/db.txt', workdir: proj } });
    expect(textOf(run)).toMatch(/^Denied by mcp-latch/);
    expect(textOf(run)).not.toContain('hunter2');
    expect(existsSync(join(proj, 'conf/secret/db.txt'))).toBe(true);
  }, 60_000);

  test('a directory moved onto .vscode with an mcp.json in it meets the built-in ask, by move_file and by mv', async () => {
    const proj = project();
    mkdirSync(join(proj, '.vscode'));
    harness = await startGateway(config(proj, []));
    const direct = await harness.client.callTool({ name: 'fs__write_file', arguments: { path: '.vscode/mcp.json', content: '{}' } });
    expect(textOf(direct)).toMatch(/^Denied by mcp-latch/);
    // Moving it away plants nothing (as `mv .vscode v`); what comes back does.
    expect(textOf(await harness.client.callTool({ name: 'fs__move_file', arguments: { source: '.vscode', destination: 'v' } }))).toContain('Successfully moved');
    expect(textOf(await harness.client.callTool({ name: 'fs__write_file', arguments: { path: 'v/mcp.json', content: '{"servers":{}}' } }))).toContain('Successfully wrote');
    const back = await harness.client.callTool({ name: 'fs__move_file', arguments: { source: 'v', destination: '.vscode' } });
    expect(textOf(back)).toMatch(/^Denied by mcp-latch/);
    expect(textOf(back)).toContain('**/.vscode/mcp.json');
    for (const command of ['mv v .vscode', 'mv -T v .vscode', 'mv v/mcp.json .vscode']) {
      const run = await harness.client.callTool({ name: 'cmd__run_command', arguments: { command, workdir: proj } });
      expect(textOf(run), command).toMatch(/^Denied by mcp-latch/);
    }
    expect(existsSync(join(proj, '.vscode'))).toBe(false);
  }, 60_000);
});

describe('a link below a moved directory is a new name for where it leads (round 29 review, F29-3)', () => {
  /** `proj/pub/d/l -> ../conf`: from pub/d it names pub/conf (nothing); from proj/d it names proj/conf. */
  function linked(): string {
    const proj = project();
    mkdirSync(join(proj, 'pub/d'), { recursive: true });
    symlinkSync('../conf', join(proj, 'pub/d/l'));
    mkdirSync(join(proj, 'pub/e/sub'), { recursive: true });
    symlinkSync('sub', join(proj, 'pub/e/inner'));
    mkdirSync(join(proj, 'pub/f'), { recursive: true });
    symlinkSync(join(proj, 'conf'), join(proj, 'pub/f/abs'));
    return proj;
  }

  test('acceptEdits: a move that puts a link into an Edit-denied folder at a new name is denied; a link within the tree moves', async () => {
    const proj = linked();
    harness = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, proj] } },
      workspace: [proj],
      permissions: { defaultMode: 'acceptEdits', deny: [`Edit(${proj}/conf/**)`] },
    });
    // Before: allowed, and a write of d/l/x sent with it (decided while d did not exist) landed in conf/.
    const move = textOf(await harness.client.callTool({ name: 'fs__move_file', arguments: { source: 'pub/d', destination: 'd' } }));
    expect(move).toContain(`Denied by mcp-latch: the rule Edit(${proj}/conf/**)`);
    expect(readlinkSync(join(proj, 'pub/d/l'))).toBe('../conf');
    // An absolute link to it is a new name for it below the destination as well (f2/abs/x written through it).
    expect(textOf(await harness.client.callTool({ name: 'fs__move_file', arguments: { source: 'pub/f', destination: 'f2' } }))).toContain(`Denied by mcp-latch: the rule Edit(${proj}/conf/**)`);
    // A link that leads within what is moved, and a move that keeps the link's target, are allowed.
    expect(textOf(await harness.client.callTool({ name: 'fs__move_file', arguments: { source: 'pub/e', destination: 'e2' } }))).toContain('Successfully moved');
    expect(textOf(await harness.client.callTool({ name: 'fs__move_file', arguments: { source: 'pub/d', destination: 'pub/d2' } }))).toContain('Successfully moved');
  }, 60_000);
});

describe('a link the shell makes or moves is a new name for where it leads (round 30 review, F30-1, F30-2)', () => {
  /** `proj/pub/d/l -> ../conf` (nothing from pub/d, conf from proj/d); `proj/pub/m -> conf` (nothing from pub, conf from proj). */
  function linked(): string {
    const proj = project();
    mkdirSync(join(proj, 'pub/d'), { recursive: true });
    symlinkSync('../conf', join(proj, 'pub/d/l'));
    symlinkSync('conf', join(proj, 'pub/m'));
    writeFileSync(join(proj, 'pub/a.txt'), 'a\n');
    return proj;
  }
  const config = (proj: string, mode: 'bypassPermissions' | 'acceptEdits', deny: string[]) => ({
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, proj] }, cmd: { command: process.execPath, args: [COMMANDS_SERVER] } },
    workspace: [proj],
    permissions: { defaultMode: mode, allow: ['Bash(ln:*)', 'Bash(mv:*)', 'Bash(cp:*)'], deny },
  });
  const run = async (command: string, workdir: string): Promise<string> => textOf(await harness!.client.callTool({ name: 'cmd__run_command', arguments: { command, workdir } }));

  test.each(['bypassPermissions', 'acceptEdits'] as const)('%s: `ln -s` to an Edit-denied folder, and `mv`/`cp -a` of a link or of a directory holding one, are denied', async (mode) => {
    const proj = linked();
    harness = await startGateway(config(proj, mode, ['Edit(./conf/**)']));
    // Before: each allowed, and a write_file through the new name sent with it, decided while the
    // name did not exist, wrote into conf/ (`ln -s`: 6 hits in 40 tries with server-filesystem).
    for (const command of [`ln -s ${proj}/conf pub/l1`, 'ln -s ../conf pub/l2', 'ln -sr conf pub/l3', 'cd pub && ln -s ../conf l4', 'mv pub/d d', 'cp -a pub/d d', 'mv pub/m m', 'cp -r pub/m m']) {
      expect(await run(command, proj), command).toContain('Denied by mcp-latch: the rule Edit(./conf/**)');
    }
    expect(existsSync(join(proj, 'pub/l1')) || existsSync(join(proj, 'd')) || existsSync(join(proj, 'm'))).toBe(false);
    expect(readlinkSync(join(proj, 'pub/d/l'))).toBe('../conf');
    // What stays a name for nothing denied runs: a link within pub, a move that keeps the link's target.
    expect(await run('ln -s a.txt pub/b.txt && mv pub/d pub/d2 && cat pub/b.txt', proj)).toContain('a');
    expect(readlinkSync(join(proj, 'pub/d2/l'))).toBe('../conf');
  }, 60_000);

  test('a rule below the target: `ln -s`, the shell `mv` and `move_file` ask for the files below it (Read(./conf/secret/**))', async () => {
    const proj = linked();
    harness = await startGateway(config(proj, 'bypassPermissions', ['Read(./conf/secret/**)']));
    // Before: allowed (the target conf itself matches no rule), and a read of l/secret/db.txt sent with it could be decided before the link was there.
    for (const command of ['ln -s ../conf pub/l', 'mv pub/d d']) {
      const text = await run(command, proj);
      expect(text, command).toMatch(/^Denied by mcp-latch: this call needs the user's approval/);
      expect(text, command).toContain('Read(./conf/secret/**)');
    }
    const move = textOf(await harness.client.callTool({ name: 'fs__move_file', arguments: { source: 'pub/d', destination: 'd' } }));
    expect(move).toMatch(/^Denied by mcp-latch: this call needs the user's approval/);
    expect(move).toContain('Read(./conf/secret/**)');
    expect(existsSync(join(proj, 'pub/l')) || existsSync(join(proj, 'd'))).toBe(false);
  }, 60_000);
});
