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
  line: (text) => process.stdout.write(`${text}\n`),
  json: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  error: (text) => process.stderr.write(`${text}\n`),
};

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
