import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFilePages } from '../src/file-pages.js';
import { tempDir } from './helpers/gateway.js';

describe('readFilePages', () => {
  it("gives the file's bytes, by name or by descriptor, in whole pages of a WebAssembly memory", () => {
    const dir = tempDir();
    let seed = 11;
    for (const size of [0, 1, 65_535, 65_536, 65_537, 1_382_584]) {
      const bytes = Buffer.from(Array.from({ length: size }, () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) & 255));
      const file = join(dir, `f${size}`);
      writeFileSync(file, bytes);
      const read = readFilePages(file);
      expect(read.equals(readFileSync(file))).toBe(true);
      // Not a buffer of the file's size from malloc (file-pages.ts): a 1.3 MB one freed raised glibc's thresholds for good.
      expect(read.buffer.byteLength % 65_536).toBe(0);
      expect(read.buffer.byteLength).toBeGreaterThanOrEqual(size);
      const fd = openSync(file, 'r');
      try {
        expect(readFilePages(fd).equals(bytes)).toBe(true);
      } finally {
        closeSync(fd);
      }
    }
  });
});
