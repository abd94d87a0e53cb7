import { cutShown, escapeShown } from './escape.js';

/**
 * The approval prompt's height (docs/approval.md "How tall the prompt is"): its message and the form's
 * fields under it (formRows) are at most MAX_PROMPT_ROWS rows when their lines are wrapped at
 * PROMPT_COLUMNS columns, as a terminal wraps them (a word that does not fit starts a new row, a word
 * longer than a row is broken). Claude Code's form does not scroll: a form taller than the terminal
 * puts the choices out of reach.
 *
 * The message is built as parts (sections), each able to show itself within a number of rows. The
 * parts that carry the risk get their rows first (the command, the resolved paths), the others
 * what is left, each keeping one row for the line that says what it left out:
 *
 *   Paths:                                 ← 81 paths, 14 rows left for them
 *     read  /w/proj/OUTSIDE … (OUTSIDE the workspace)
 *     read  /w/proj/a1 (inside the workspace)
 *     …
 *     … and 69 more paths
 */
export const PROMPT_COLUMNS = 100;
export const MAX_PROMPT_ROWS = 60;

/** What the Risk line says when a part was cut to keep the message within its height. */
export const HEIGHT_BOUND = `the prompt shows at most ${MAX_PROMPT_ROWS} rows of ${PROMPT_COLUMNS} columns`;

/** East Asian wide and fullwidth characters, and emoji, take two columns of a terminal. */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
/** Most of a prompt: one column a character. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Combining marks take none. */
const ZERO_WIDTH = /[\p{Mn}\p{Me}]/u;

/** Columns a text takes on a terminal (the text is escaped: no control or format characters are left). */
export function columnsOf(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let columns = 0;
  for (const ch of text) columns += ch.charCodeAt(0) < 0x300 ? 1 : WIDE.test(ch) ? 2 : ZERO_WIDTH.test(ch) ? 0 : 1;
  return columns;
}

/**
 * Rows a text takes wrapped at PROMPT_COLUMNS, each of its lines on rows of its own. Counted as a
 * terminal wraps words, starting a word too long for a row on a row of its own: never fewer rows
 * than Claude Code (Ink, wrap-ansi) takes.
 */
export function rowsOf(text: string): number {
  let rows = 0;
  for (const line of text.split('\n')) rows += rowsOfLine(line);
  return rows;
}

function rowsOfLine(line: string): number {
  // Most lines: one column a character, shorter than a row.
  const ascii = PRINTABLE_ASCII.test(line);
  if (ascii && line.length <= PROMPT_COLUMNS) return 1;
  let rows = 1;
  let column = 0;
  const words = line.split(' ');
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const width = ascii ? word.length : columnsOf(word);
    const needed = index === 0 ? width : column + 1 + width;
    if (needed <= PROMPT_COLUMNS) {
      column = needed;
      continue;
    }
    if (column > 0) rows++;
    rows += Math.max(0, Math.ceil(width / PROMPT_COLUMNS) - 1);
    column = width === 0 ? 0 : width % PROMPT_COLUMNS || PROMPT_COLUMNS;
  }
  return rows;
}

/** A field of the form under the message, as an elicitation's requestedSchema property gives it. */
export interface FormField {
  title?: string;
  description?: string;
  enum?: readonly string[];
  default?: unknown;
}

/** The form's rows that are no field's: one between the message and the fields, one for its buttons. */
export const FORM_FRAME_ROWS = 2;
/** Before each choice, room for a marker and its number (`❯ 1.`). */
const CHOICE_INDENT = '     ';

/**
 * Rows the form takes under the message (docs/approval.md "How tall the prompt is"): each field its
 * title, its description and its choices, each on rows of its own, or its value (at least a row),
 * wrapped as the message is; and FORM_FRAME_ROWS. The message gets what is left of MAX_PROMPT_ROWS.
 */
export function formRows(fields: Iterable<FormField>): number {
  let rows = FORM_FRAME_ROWS;
  for (const field of fields) {
    rows += rowsOf(field.title ?? '');
    if (field.description !== undefined) rows += rowsOf(field.description);
    rows += field.enum ? field.enum.reduce((sum, label) => sum + rowsOf(CHOICE_INDENT + label), 0) : rowsOf(typeof field.default === 'string' ? field.default : '');
  }
  return rows;
}

/** Lines a part shows within the rows it was given, and whether it left something out. */
export interface Fitted {
  lines: string[];
  cut: boolean;
}

/** A part of the message: what it shows within `rows` rows (at least 1), never more rows than that. */
export interface Section {
  /** The name the Risk line and `notShown` give it when it is cut (null: what it leaves out needs no one). */
  part: string | null;
  /** Lower first: the parts that carry the risk. */
  rank: number;
  /** `cuts`: the parts cut so far (the arguments point at a diff only when it was shown whole); a part cut by its own bound is added. */
  fit(rows: number, cuts: Set<string>): Fitted;
}

/**
 * The sections' lines within `budget` rows, in their own order. Each section, lowest rank first,
 * may use what is left but one row for each section after it; a part cut to fit is added to `cuts`
 * (a section fitted later reads what was cut before it), and `byHeight` says one was.
 */
export function fitSections(sections: Section[], budget: number, cuts: Set<string>): { lines: string[][]; byHeight: boolean } {
  const byRank = sections.map((section, index) => ({ section, index })).sort((a, b) => a.section.rank - b.section.rank || a.index - b.index);
  const lines: string[][] = sections.map(() => []);
  let byHeight = false;
  let left = budget;
  for (const [order, { section, index }] of byRank.entries()) {
    const after = byRank.length - order - 1;
    const fitted = section.fit(Math.max(1, left - after), cuts);
    lines[index] = fitted.lines;
    if (fitted.cut && section.part !== null) {
      cuts.add(section.part);
      byHeight = true;
    }
    if (fitted.lines.length > 0) left -= rowsOf(fitted.lines.join('\n'));
  }
  return { lines, byHeight };
}

/**
 * A list of lines within `rows`: all of them, or as many as fit from the first with the line
 * `marker(left)` says of the ones left out. `marker(0)` is a line shown when nothing more is left
 * out (a list its part had already cut says so), or null. `alone(left)` says it when none fits: a
 * line that stands on its own (`Why it asks: 8 reasons not shown`), not one read as the end of the
 * part above.
 */
export function listWithin(lines: string[], rows: number, marker: (left: number) => string | null, alone: (left: number) => string = (left) => marker(left) ?? ''): Fitted {
  const last = marker(0);
  const each = lines.map(rowsOf);
  if (each.reduce((sum, n) => sum + n, 0) + (last === null ? 0 : rowsOf(last)) <= rows) return { lines: last === null ? lines : [...lines, last], cut: false };
  let kept = 0;
  let used = 0;
  while (kept < lines.length) {
    const next = used + each[kept]!;
    if (next + rowsOf(marker(lines.length - kept - 1) ?? '') > rows) break;
    used = next;
    kept++;
  }
  if (kept === 0) return { lines: [alone(lines.length)], cut: true };
  const said = marker(lines.length - kept);
  return { lines: said === null ? lines.slice(0, kept) : [...lines.slice(0, kept), said], cut: true };
}

/**
 * One line of a call-supplied text after `head` (`Arguments: {…}`), escaped and cut at `max`
 * characters (escapeShown: `bounded`), and further to fit `rows` (`cut`): the count of what is cut
 * says so.
 */
export function fieldWithin(head: string, text: string, max: number, rows: number, json = false): Fitted & { bounded: boolean } {
  const whole = escapeShown(text, Infinity, json).text;
  const shown = (limit: number) => cutShown(whole, limit);
  const full = shown(max);
  if (rowsOf(head + full.text) <= rows) return { lines: [head + full.text], cut: false, bounded: full.cut };
  // The longest cut that fits: rows of a cut grow with its length.
  let low = 0;
  let high = Math.min(max, full.text.length);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (rowsOf(head + shown(mid).text) <= rows) low = mid;
    else high = mid - 1;
  }
  return { lines: [head + shown(low).text], cut: true, bounded: full.cut };
}
