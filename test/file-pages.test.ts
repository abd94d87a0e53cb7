import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readFilePages } from '../src/file-pages.js';
import { tempDir } from './helpers/gateway.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Seeded bytes, the same at every run. */
function bytesOf(size: number): Buffer {
  let seed = 11;
  return Buffer.from(Array.from({ length: size }, () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) & 255));
}

describe('readFilePages', () => {
  it("gives the file's bytes, by name or by descriptor, in a resizable ArrayBuffer's pages", () => {
    const dir = tempDir();
    for (const size of [0, 1, 65_535, 65_536, 65_537, 1_382_584]) {
      const bytes = bytesOf(size);
      const file = join(dir, `f${size}`);
      writeFileSync(file, bytes);
      const read = readFilePages(file);
      expect(read.equals(readFileSync(file))).toBe(true);
      // Not a buffer of the file's size from malloc (file-pages.ts): a 1.3 MB one freed raised glibc's thresholds for good.
      expect((read.buffer as ArrayBuffer & { resizable: boolean }).resizable).toBe(true);
      const fd = openSync(file, 'r');
      try {
        expect(readFilePages(fd).equals(bytes)).toBe(true);
      } finally {
        closeSync(fd);
      }
    }
  });

  it('gives its pages back at a young collection: they do not count against the first full collection', () => {
    // A WebAssembly memory's object is made old: its pages stayed counted as external memory until
    // the first full collection, which they brought into a start's first calls (file-pages.ts). In
    // a process of its own (the built module), where no earlier test's buffers are being swept.
    const file = join(tempDir(), 'bundle');
    writeFileSync(file, bytesOf(1_400_000));
    const probe = `
      import { getHeapStatistics } from 'node:v8';
      import { readFilePages } from ${JSON.stringify(pathToFileURL(join(root, 'dist/file-pages.js')).href)};
      const external = () => getHeapStatistics().external_memory;
      const pause = () => new Promise((done) => setTimeout(done, 20));
      gc();
      await pause();
      const before = external();
      const length = readFilePages(process.argv[1]).length;
      const counted = external() - before;
      for (let i = 0; i < 10 && external() - before >= length / 2; i++) {
        gc({ type: 'minor' });
        await pause();
      }
      console.log(JSON.stringify({ length, counted, left: external() - before }));`;
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', probe, file], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const { length, counted, left } = JSON.parse(run.stdout) as { length: number; counted: number; left: number };
    expect(length).toBe(1_400_000);
    expect(counted).toBeGreaterThan(length * 0.9);
    expect(left).toBeLessThan(length / 2);
  });
});
