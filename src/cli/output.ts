import { escapeJson, escapeLines, shownEnd } from '../latch/escape.js';
// escapeText and escapeJson mark look-alike words once this is loaded (escape.ts useLookAlikeMarker).
import '../latch/look-alike.js';

/**
 * Where CLI commands write: stdout for results, stderr for problems. Commands receive it, so tests
 * call them directly and read what they printed.
 */
export interface Output {
  line(text: string): void;
  json(value: unknown): void;
  error(text: string): void;
}

export const processOutput: Output = {
  line: (text) => toStdout(`${shownText(text)}\n`),
  json: (value) => toStdout(`${shownJson(value)}\n`),
  error: (text) => process.stderr.write(`${shownError(text)}\n`),
};

/** A character of a CLI text other than printable ASCII, a newline and a tab: nearly every text has none (one test). */
const NOT_PLAIN = /[^\n\t\x20-\x7e]/;

/**
 * A command's text as a terminal shows it: what it would obey or reorder (C0 controls but the
 * newline and the tab, DEL, C1 controls, bidi controls, zero-width and other invisible characters)
 * written `\x1b`, `\u202e` (escape.ts escapeLines; backslashes kept, so text escaped already reads
 * the same). Each command escapes what it quotes; this is the boundary for what one missed: an
 * error's message quoting a config's or a server's string (round 32 review S32-4).
 */
export function shownText(text: string): string {
  return NOT_PLAIN.test(text) ? escapeLines(text) : text;
}

/** The characters of one line of an error a command writes to stderr; past it the line is cut with its count. */
export const MAX_ERROR_LINE = 2000;

/** An error's text as shown (shownText), each line cut at MAX_ERROR_LINE characters: a config's 70,000-character rule was written whole (S32-4). */
export function shownError(text: string): string {
  const shown = shownText(text);
  if (shown.length <= MAX_ERROR_LINE) return shown;
  return shown
    .split('\n')
    .map((line) => {
      if (line.length <= MAX_ERROR_LINE) return line;
      const end = shownEnd(line, MAX_ERROR_LINE);
      return `${line.slice(0, end)}… (${(line.length - end).toLocaleString('en-US')} more characters)`;
    })
    .join('\n');
}

/**
 * A command's JSON as a terminal shows it: what JSON.stringify leaves raw and a terminal obeys or
 * reorders (C1 controls such as U+009B CSI, DEL, bidi controls, zero-width and line separators)
 * written `\uXXXX`, still the same JSON (latch/escape.ts escapeJson). `mcp-latch audit --json` wrote a
 * call's strings so (round 30 review S30-5).
 */
export function shownJson(value: unknown): string {
  // Line by line: JSON.stringify escapes a newline inside a string, so each one here is the layout's.
  return JSON.stringify(value, null, 2).split('\n').map(escapeJson).join('\n');
}

// `mcp-latch check … | head`: a reader that leaves ends the output, not the command with an EPIPE
// stack trace; the command still ends with its own exit code.
let stdoutState: 'unwatched' | 'open' | 'gone' = 'unwatched';
function toStdout(text: string): void {
  if (stdoutState === 'gone') return;
  if (stdoutState === 'unwatched') {
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      stdoutState = 'gone';
    });
    stdoutState = 'open';
  }
  process.stdout.write(text);
}

/** Collects output in memory (tests). */
export function memoryOutput(): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    line: (text) => stdout.push(shownText(text)),
    json: (value) => stdout.push(shownJson(value)),
    error: (text) => stderr.push(shownError(text)),
  };
}
