import { answerProblem, type SchemaIssue } from './invalid-answer.js';

/**
 * What mcp-latch checks of one answer's list of entries (a tools/call result's `content`, a
 * resources/read's `contents`, a prompts/get's `messages`; docs/config.md, "limits"). zod built an
 * issue for every entry it refused and every branch of its union: 120,000 invalid image blocks in
 * one 5 MB answer took 18 s, while every other call of every client waited (round 13 review R12).
 * The entries are checked one at a time and the check stops at the first refused one (only the
 * first is told anyway); the values zod walks are bounded.
 */
export const MAX_ANSWER_ENTRIES = 10_000;
/** Of the entries zod checks (plain text blocks are checked by hand), the values walked together. */
export const MAX_CHECKED_VALUES = 100_000;

/** The SDK schema of one entry. */
export interface EntrySchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

/** The entries checked, or why the answer is refused (one line; `tooMany` when a limit above was passed). */
export type CheckedEntries<T> = { entries: T[] } | { problem: string; tooMany: boolean };

/**
 * `entries` (the answer's `key`) checked one by one against `schema`; `byHand` takes an entry
 * without zod (and without counting its values) when it returns true.
 */
export function checkEntries<T>(entries: unknown, key: string, schema: EntrySchema<T>, byHand?: (entry: unknown) => entry is T): CheckedEntries<T> {
  if (!Array.isArray(entries)) return { problem: `${key}: expected array, received ${entries === null ? 'null' : typeof entries}`, tooMany: false };
  if (entries.length > MAX_ANSWER_ENTRIES) {
    return { problem: `it has ${entries.length.toLocaleString('en-US')} entries in ${key}, more than the ${MAX_ANSWER_ENTRIES.toLocaleString('en-US')} mcp-latch checks and passes on`, tooMany: true };
  }
  const out: T[] = new Array(entries.length);
  let budget = MAX_CHECKED_VALUES;
  for (let index = 0; index < entries.length; index++) {
    const entry: unknown = entries[index];
    if (byHand?.(entry)) {
      out[index] = entry;
      continue;
    }
    budget = valuesLeft(entry, budget);
    if (budget < 0) {
      return { problem: `its ${key} hold more than ${MAX_CHECKED_VALUES.toLocaleString('en-US')} values besides plain text, the most mcp-latch checks in one answer`, tooMany: true };
    }
    const parsed = schema.safeParse(entry);
    if (!parsed.success) return { problem: answerProblem(parsed.error.issues, [key, index]), tooMany: false };
    out[index] = parsed.data;
  }
  return { entries: out };
}

/**
 * `budget` less the values in `value` (itself, each array entry and object value below it);
 * negative once it runs out, and the walk stops there. A stack, not recursion: the budget alone
 * would let a value nest deeper than the call stack holds.
 */
function valuesLeft(value: unknown, budget: number): number {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (--budget < 0) return budget;
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (let index = 0; index < next.length; index++) stack.push(next[index]);
    } else {
      for (const key in next) stack.push((next as Record<string, unknown>)[key]);
    }
    // An array of a million entries pushed whole would cost what the bound is for.
    if (stack.length > budget + 1) return -1;
  }
  return budget;
}
