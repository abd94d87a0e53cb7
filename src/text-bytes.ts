/**
 * A text's UTF-8 bytes for a synchronous write, encoded into one buffer kept for the process.
 *
 * `fs.writeSync(fd, text)` sized the text (three bytes a character), took a heap buffer with malloc
 * for any text over ~340 characters, encoded into it and freed it; the writer then measured the
 * text again (`Buffer.byteLength`, a pass over it) to know whether the write was whole. Encoded
 * here, the write takes the bytes and their count comes with them (docs/performance.md, "Round 16:
 * 16 in flight").
 */

const ENCODE_BYTES = 64 * 1024;
/** The longest text that always fits: a UTF-16 unit never takes more than three UTF-8 bytes. */
const MOST_CHARS = Math.floor(ENCODE_BYTES / 3);

let shared: Buffer | null = null;

/**
 * `text` encoded as UTF-8 into the shared buffer, from its start: the byte count, or -1 for a text
 * that may not fit (the caller writes the string itself). The bytes are valid until the next call;
 * anything kept past the write must be copied.
 */
export function encodeShared(text: string): number {
  if (text.length > MOST_CHARS) return -1;
  shared ??= Buffer.allocUnsafeSlow(ENCODE_BYTES);
  return shared.write(text, 0, ENCODE_BYTES, 'utf8');
}

/** The buffer `encodeShared` wrote into (made by its first call). */
export function sharedBytes(): Buffer {
  shared ??= Buffer.allocUnsafeSlow(ENCODE_BYTES);
  return shared;
}
