import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

/**
 * A large file's bytes in pages V8 maps itself (a WebAssembly memory's), not in a buffer from
 * malloc. glibc serves a block over its mmap threshold (128 KiB at first) with mmap, and when such
 * a block is freed it raises that threshold to the block's size and its trim threshold to twice
 * that, for good: each of the gateway's bundles, code caches and the shell grammar read with
 * readFileSync and collected later left every malloc arena of the process (the main one and each
 * of V8's worker threads', where TurboFan compiles) keeping up to ~2.7 MiB of freed memory
 * resident (docs/performance.md, "Round 31: the memory a shell tool keeps"). A WebAssembly
 * memory's pages are unmapped when it is collected, and never pass through malloc. Falls back to
 * readFileSync when the memory cannot be had (an address-space limit).
 */
export function readFilePages(file: string | number): Buffer {
  const fd = typeof file === 'number' ? file : openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    let memory: { buffer: ArrayBuffer };
    try {
      memory = new (globalThis as unknown as WasmGlobal).WebAssembly.Memory({ initial: Math.ceil(size / PAGE) });
    } catch {
      return readFileSync(fd);
    }
    const bytes = Buffer.from(memory.buffer, 0, size);
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

/** The part of the WebAssembly global used here (the project's TypeScript libs do not declare it). */
interface WasmGlobal {
  WebAssembly: { Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer } };
}

/** A WebAssembly memory page. */
const PAGE = 65536;
