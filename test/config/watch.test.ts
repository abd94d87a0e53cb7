import { mkdirSync, realpathSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { linksOnTheWay, watchConfig } from '../../src/config/watch.js';
import { tempDir } from '../helpers/gateway.js';

/** The watcher follows the file through every way it is replaced: each change below must arrive. */
describe('config watcher', () => {
  test('sees writes in place, renames over the file (again and again) and a file deleted then written anew', async () => {
    const dir = tempDir();
    const path = join(dir, 'mcp-latch.json');
    writeFileSync(path, 'v0');
    const texts: string[] = [];
    const errors: unknown[] = [];
    const watcher = watchConfig(path, (text) => texts.push(text), (error) => errors.push(error), 10);
    const arrives = (text: string) => vi.waitFor(() => expect(texts.at(-1)).toBe(text), { timeout: 20_000, interval: 20 });
    try {
      writeFileSync(path, 'in place');
      await arrives('in place');
      for (const text of ['renamed 1', 'renamed 2', 'renamed 3']) {
        // What editors and our own atomic writes do.
        writeFileSync(join(dir, '.tmp'), text);
        renameSync(join(dir, '.tmp'), path);
        await arrives(text);
      }
      // A sibling written meanwhile (the audit log) changes nothing.
      writeFileSync(join(dir, 'mcp-latch-audit.jsonl'), 'line\n');
      unlinkSync(path);
      writeFileSync(path, 'recreated');
      await arrives('recreated');
      writeFileSync(path, 'after recreate');
      await arrives('after recreate');
      expect(errors).toEqual([]);
    } finally {
      watcher.close();
    }
  });

  // Round 16 review, H3's note: a deleted config kept the last good rules without a word.
  test('tells when the file is gone, and reads it again when it is back', async () => {
    const dir = tempDir();
    const path = join(dir, 'mcp-latch.json');
    writeFileSync(path, 'v0');
    const texts: string[] = [];
    let missing = 0;
    const watcher = watchConfig(path, (text) => texts.push(text), () => undefined, 10, () => missing++);
    try {
      unlinkSync(path);
      await vi.waitFor(() => expect(missing).toBeGreaterThan(0), { timeout: 20_000, interval: 20 });
      writeFileSync(path, 'back');
      await vi.waitFor(() => expect(texts.at(-1)).toBe('back'), { timeout: 20_000, interval: 20 });
    } finally {
      watcher.close();
    }
  });
});

/** The links whose re-pointing changes which file the config is, as path_resolution(7) meets them. */
describe('links on the way to the config', () => {
  test('a folder link above the file, a link to a link, `..` from a link target, and none', () => {
    const dir = realpathSync(tempDir());
    mkdirSync(join(dir, 'dotfiles', 'latch'), { recursive: true });
    mkdirSync(join(dir, 'home', '.config'), { recursive: true });
    writeFileSync(join(dir, 'dotfiles', 'latch', 'real.json'), '{}');
    symlinkSync('../../dotfiles/latch', join(dir, 'home', '.config', 'mcp-latch'));
    expect(linksOnTheWay(join(dir, 'home', '.config', 'mcp-latch', 'real.json'))).toEqual([{ folder: join(dir, 'home', '.config'), name: 'mcp-latch' }]);
    // The file a link to a link (home-manager: a link into the store), the second link's target relative with `..`.
    symlinkSync(join(dir, 'home', '.config', 'mcp-latch', 'real.json'), join(dir, 'dotfiles', 'hop.json'));
    symlinkSync('../dotfiles/hop.json', join(dir, 'home', 'config.json'));
    expect(linksOnTheWay(join(dir, 'home', 'config.json'))).toEqual([
      { folder: join(dir, 'home'), name: 'config.json' },
      { folder: join(dir, 'dotfiles'), name: 'hop.json' },
      { folder: join(dir, 'home', '.config'), name: 'mcp-latch' },
    ]);
    expect(linksOnTheWay(join(dir, 'dotfiles', 'latch', 'real.json'))).toEqual([]);
    // A loop ends at the kernel's bound, a missing part at the part.
    symlinkSync('loop', join(dir, 'loop'));
    expect(linksOnTheWay(join(dir, 'loop', 'x.json'))).toHaveLength(40);
    expect(linksOnTheWay(join(dir, 'missing', 'x.json'))).toEqual([]);
  });
});
