import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventually, fixtureServer, startGateway, tempDir, type Harness } from '../helpers/gateway.js';

/**
 * A config kept as a symlink by a dotfile manager (home-manager re-points it on every switch, stow
 * and `ln -sf` when the file moves). Round 16 review H3: re-pointing the link changed nothing on the
 * file the gateway watched, so the new file's deny rule was never loaded, nor any later edit of it.
 */
describe('a config that is a symlink', () => {
  let harness: Harness;
  const ran = async (name: string) => !(await harness.client.callTool({ name, arguments: { text: 'x' } })).isError;
  const config = (deny: string[]) => {
    const written = JSON.parse(readFileSync(harness.configPath, 'utf8')) as { permissions: { deny: string[] } };
    written.permissions.deny = deny;
    return JSON.stringify(written, null, 2);
  };
  const link = (target: string) => {
    symlinkSync(target, join(harness.dir, 'link.tmp'));
    renameSync(join(harness.dir, 'link.tmp'), harness.configPath); // what `ln -sf` and home-manager do
  };

  beforeAll(async () => {
    harness = await startGateway({
      mcpServers: { f: fixtureServer('f', join(tempDir(), 'f.log')) },
      permissions: { defaultMode: 'dontAsk', allow: ['mcp__f'], deny: ['mcp__f__whoami'] },
    });
    mkdirSync(join(harness.dir, 'dot'));
  });
  afterAll(async () => {
    await harness?.close();
  });

  test('is reloaded when the link is re-pointed, and when the new target is edited', async () => {
    expect(await ran('f__echo')).toBe(true);
    writeFileSync(join(harness.dir, 'dot', 'a.json'), config(['mcp__f__echo']));
    link('dot/a.json');
    await eventually(async () => expect(await ran('f__echo')).toBe(false), 20_000, 100);
    writeFileSync(join(harness.dir, 'dot', 'b.json'), config(['mcp__f__whoami']));
    link('dot/b.json');
    await eventually(async () => expect(await ran('f__whoami')).toBe(false), 20_000, 100);
    expect(await ran('f__echo')).toBe(true);
    writeFileSync(join(harness.dir, 'dot', 'b.json'), config(['mcp__f__echo']));
    await eventually(async () => expect(await ran('f__echo')).toBe(false), 20_000, 100);
    expect(await ran('f__whoami')).toBe(true);
  });
});

/**
 * The folder holding the config is the link (stow folds `~/.config/mcp-latch` into one link to the
 * dotfiles repository; a switch re-points it). The file watched never changes, so only the link's
 * own folder says the config is another one now.
 */
describe('a config in a folder that is a symlink', () => {
  let harness: Harness;
  let root: string;
  const ran = async (name: string) => !(await harness.client.callTool({ name, arguments: { text: 'x' } })).isError;

  beforeAll(async () => {
    root = tempDir();
    mkdirSync(join(root, 'dot-a'));
    mkdirSync(join(root, 'dot-b'));
    symlinkSync('dot-a', join(root, 'conf'));
    harness = await startGateway(
      { mcpServers: { f: fixtureServer('f', join(tempDir(), 'f.log')) }, permissions: { defaultMode: 'dontAsk', allow: ['mcp__f'], deny: ['mcp__f__whoami'] } },
      { dir: join(root, 'conf') },
    );
  });
  afterAll(async () => {
    await harness?.close();
  });

  test('is reloaded when the folder link is re-pointed', async () => {
    expect(await ran('f__echo')).toBe(true);
    const written = JSON.parse(readFileSync(join(root, 'dot-a', 'mcp-latch.json'), 'utf8')) as { permissions: { deny: string[] } };
    written.permissions.deny = ['mcp__f__echo'];
    writeFileSync(join(root, 'dot-b', 'mcp-latch.json'), JSON.stringify(written, null, 2));
    symlinkSync('dot-b', join(root, 'conf.tmp'));
    renameSync(join(root, 'conf.tmp'), join(root, 'conf'));
    await eventually(async () => expect(await ran('f__echo')).toBe(false), 20_000, 100);
    expect(await ran('f__whoami')).toBe(true);
  });
});
