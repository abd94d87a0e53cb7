import { LatchError } from '../errors.js';
import { isPlainObject } from '../values.js';
import { editJsonc, parseJsonc, removeProperties, valueAt, valueRange, type ClientLocation } from './client-file.js';
import { canonicalJson } from '../policy/digest.js';
import type { WrapRecord } from './manifest.js';
import { isGatewayEntry } from './server-entry.js';

/**
 * The edit `init --wrap` makes in one servers block, and the same edit in reverse for `init --undo`.
 * Only the entries moved into mcp-latch leave the block and only the gateway entry comes in; every
 * other entry (one mcp-latch could not import, one the person adds later), and everything outside
 * the block, stays as the client wrote it.
 *
 *   before  { "fs": {…}, "docs": {…}, "prompted": {… "${input:key}" …} }
 *   wrap    { "latch": { "command": "/usr/bin/node", "args": [… "serve", "--scope", "cursor"] }, "prompted": {…} }
 *   undo    the block's original text when the block is still as wrapped (byte for byte, comments
 *           included), else: remove "latch", put back "fs" and "docs", keep what was added since
 */

/** What one wrap did to one block. */
export interface BlockWrap {
  text: string;
  removed: Array<[string, unknown]>;
  originalBlock: string | null;
  written: unknown;
}

/** Moves `remove` out of the block at `location.blockPath` and puts the gateway entry `entry` in, first. */
export function wrapBlock(text: string, location: ClientLocation, remove: string[], entry: string, value: Record<string, unknown>): BlockWrap {
  const path = location.blockPath;
  const block = valueAt(parseJsonc(text, location.path), path);
  const before = isPlainObject(block) ? block : {};
  const removed = remove.filter((name) => name in before).map((name): [string, unknown] => [name, before[name]]);
  const alreadyWrapped = Object.values(before).some((raw) => isPlainObject(raw) && isGatewayEntry(raw));
  const originalBlock = alreadyWrapped ? null : (valueRange(text, path)?.text ?? null);

  // The entry goes in before the others go out: jsonc-parser indents a property well only next to another.
  let next = text;
  const current = before[entry];
  if (current === undefined) next = editJsonc(next, [...path, entry], value, true);
  else if (canonicalJson(current) !== canonicalJson(value)) next = editJsonc(next, [...path, entry], value);
  next = removeProperties(next, path, removed.map(([name]) => name).filter((name) => name !== entry));

  const written = valueAt(parseJsonc(next, location.path), path);
  const expected = { ...Object.fromEntries(Object.entries(before).filter(([name]) => !remove.includes(name))), [entry]: value };
  if (!isPlainObject(written) || canonicalJson(written) !== canonicalJson(expected)) {
    throw new LatchError('CONFIG_INVALID', `could not rewrite ${location.path} safely; nothing was changed`);
  }
  return { text: next, removed, originalBlock, written };
}

/**
 * Undoes one record on the file's current text. `alone`: no other wrap of this block is left to
 * undo, so the original block text may go back whole. Returns the new text and what could not go back.
 */
export function unwrapBlock(text: string, record: WrapRecord, alone: boolean): { text: string; kept: string[] } {
  const path = record.blockPath;
  const current = valueAt(parseJsonc(text, record.file), path);
  const range = valueRange(text, path);
  if (alone && record.originalBlock !== null && range && canonicalJson(current) === canonicalJson(record.written)) {
    return { text: text.slice(0, range.offset) + record.originalBlock + text.slice(range.offset + range.length), kept: [] };
  }
  let next = text;
  const kept: string[] = [];
  for (const [name, raw] of record.removed) {
    const now = valueAt(parseJsonc(next, record.file), [...path, name]);
    if (now === undefined) next = editJsonc(next, [...path, name], raw);
    else if (canonicalJson(now) !== canonicalJson(raw) && name !== record.entry) kept.push(`"${name}" is in ${record.label} again with other settings; kept it as it is now (the one before wrapping is in ${record.backup})`);
  }
  // The gateway entry goes last, so the restored entries were added next to it and indented like it.
  const gateway = valueAt(parseJsonc(next, record.file), [...path, record.entry]);
  if (isPlainObject(gateway) && isGatewayEntry(gateway)) {
    const original = record.removed.find(([name]) => name === record.entry);
    next = original ? editJsonc(next, [...path, record.entry], original[1]) : removeProperties(next, path, [record.entry]);
  }
  return { text: next, kept };
}
