import { escapeJson } from '../latch/escape.js';

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
  line: (text) => toStdout(`${text}\n`),
  json: (value) => toStdout(`${shownJson(value)}\n`),
  error: (text) => process.stderr.write(`${text}\n`),
};

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
    line: (text) => stdout.push(text),
    json: (value) => stdout.push(shownJson(value)),
    error: (text) => stderr.push(text),
  };
}
