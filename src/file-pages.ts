import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

/**
 * A large file's bytes in pages V8 maps itself (a resizable ArrayBuffer's), not in a buffer from
 * malloc. glibc serves a block over its mmap threshold (128 KiB at first) with mmap, and when such
 * a block is freed it raises that threshold to the block's size and its trim threshold to twice
 * that, for good: each of the gateway's bundles, code caches and the shell grammar read with
 * readFileSync and collected later left every malloc arena of the process (the main one and each
 * of V8's worker threads', where TurboFan compiles) keeping up to ~2.7 MiB of freed memory
 * resident (docs/performance.md, "Round 31: the memory a shell tool keeps"). V8 reserves a
 * resizable ArrayBuffer's pages with mmap and unmaps them when the buffer is collected, young or
 * old. A WebAssembly memory's pages are V8's too, but its object is made old: what it held was
 * freed only by the first full collection, and until then counted against the old generation's
 * limit (~2.9 MB for the gateway's bundle and cache), which brought that collection into the first
 * calls (docs/performance.md, "Round 33: the start"). Falls back to readFileSync when the pages
 * cannot be had (an address-space limit).
 */
export function readFilePages(file: string | number): Buffer {
  const fd = typeof file === 'number' ? file : openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    let pages: ArrayBuffer;
    try {
      // The limit's pages are reserved at once and committed as the length grows; none grows here.
      pages = new (ArrayBuffer as ResizableArrayBuffer)(size, { maxByteLength: Math.max(size, 1) });
    } catch {
      return readFileSync(fd);
    }
    const bytes = Buffer.from(pages, 0, size);
    let read = 0;
    while (read < size) {
      const got = readSync(fd, bytes, read, size - read, null);
      if (got === 0) break;
      read += got;
    }
    return bytes.subarray(0, read);
  } finally {
    if (typeof file !== 'number') closeSync(fd);
  }
}

/** The resizable ArrayBuffer's constructor (ES2024; the project's TypeScript libs do not declare its options). */
type ResizableArrayBuffer = new (length: number, options: { maxByteLength: number }) => ArrayBuffer;
