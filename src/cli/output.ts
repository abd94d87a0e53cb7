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
  json: (value) => toStdout(`${JSON.stringify(value, null, 2)}\n`),
  error: (text) => process.stderr.write(`${text}\n`),
};

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
    json: (value) => stdout.push(JSON.stringify(value, null, 2)),
    error: (text) => stderr.push(text),
  };
}
