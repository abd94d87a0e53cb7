import { valuesLeft } from '../values.js';
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
/**
 * Of the entries zod checks (plain text blocks are checked by hand) and a tools/call result's
 * structuredContent, the values walked together; a stdio server's tools/call answer is counted
 * whole as written, before it is parsed (downstream/direct-calls.ts, json-shape.ts).
 */
export const MAX_CHECKED_VALUES = 100_000;

/** Why an answer of `values` values as written is dropped unparsed. */
export function tooManyValues(values: number): string {
  return `it holds ${values.toLocaleString('en-US')} values as written, more than the ${MAX_CHECKED_VALUES.toLocaleString('en-US')} mcp-latch checks in one answer`;
}

/** A tools/call answer dropped before it was parsed, for a limit above: the call gets a tool error saying why (gateway/call-result.ts, droppedResult). */
export class AnswerDropped extends Error {
  constructor(readonly problem: string) {
    super(problem);
  }
}

/** The SDK schema of one entry. */
export interface EntrySchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

/** The entries checked, or why the answer is refused (one line; `tooMany` when a limit above was passed). */
export type CheckedEntries<T> = { entries: T[] } | { problem: string; tooMany: boolean };

/**
 * `entries` (the answer's `key`) checked one by one against `schema`; `byHand` takes an entry
 * without zod (and without counting its values) when it returns true. `budget`: the values left
 * once the result's structuredContent was counted.
 */
export function checkEntries<T>(entries: unknown, key: string, schema: EntrySchema<T>, byHand?: (entry: unknown) => entry is T, budget = MAX_CHECKED_VALUES): CheckedEntries<T> {
  if (!Array.isArray(entries)) return { problem: `${key}: expected array, received ${entries === null ? 'null' : typeof entries}`, tooMany: false };
  if (entries.length > MAX_ANSWER_ENTRIES) {
    return { problem: `it has ${entries.length.toLocaleString('en-US')} entries in ${key}, more than the ${MAX_ANSWER_ENTRIES.toLocaleString('en-US')} mcp-latch checks and passes on`, tooMany: true };
  }
  const together = budget < MAX_CHECKED_VALUES ? ' and structuredContent' : '';
  const out: T[] = new Array(entries.length);
  for (let index = 0; index < entries.length; index++) {
    const entry: unknown = entries[index];
    if (byHand?.(entry)) {
      out[index] = entry;
      continue;
    }
    budget = valuesLeft(entry, budget);
    if (budget < 0) {
      return { problem: `its ${key}${together} hold more than ${MAX_CHECKED_VALUES.toLocaleString('en-US')} values besides plain text, the most mcp-latch checks in one answer`, tooMany: true };
    }
    const parsed = schema.safeParse(entry);
    if (!parsed.success) return { problem: answerProblem(parsed.error.issues, [key, index]), tooMany: false };
    out[index] = parsed.data;
  }
  return { entries: out };
}
