import type { CommandPath } from '../../policy/types.js';
import type { Nested } from './files.js';
import { optionValues, pathOf, pushPath, scanOptions, type Word } from './options.js';

/**
 * psql, PostgreSQL's terminal (psql(1), round 29 review R29-3): its meta-commands run shell commands
 * (`\! CMD`; `\o |CMD`, `\g |CMD`, `\w |CMD` and `-o '|CMD'` pipe output to CMD; `\copy … program
 * 'CMD'`; backquoted text in a meta-command's arguments is command substitution) and read or write
 * files (`\i F`, `\o F`, `\copy … to 'F'`, `\lo_export`), and the SQL `COPY … TO PROGRAM 'CMD'` runs
 * CMD on the server (this machine, for a local database). psql 15 ran `-c '\! touch F'`, `-o '|touch
 * F'`, `-f s.sql` and `< s.sql` with s.sql's `\!`, and `\copy (select 1) to program 'touch F'`, each
 * under `Bash(psql:*)`. Without `-c` or `-f` psql reads its commands from stdin (not a terminal for a
 * tool's shell). So: `interpreter` when a command text holds a meta-command or `program '…'`, for
 * `-f FILE`, for commands read from stdin and for a prompt variable with a backquote; the shell
 * commands of static texts are nested scripts deny rules meet; `-o`/`-L` files are writes.
 */
const PSQL = { short: 'cdfhLopPRFTUv', long: ['command', 'dbname', 'file', 'host', 'log-file', 'output', 'port', 'pset', 'record-separator', 'field-separator', 'table-attr', 'username', 'set', 'variable'] };
/** A backslash meta-command (`\d`, `\!`, `\copy`), SQL's `program '…'`, or a backquote. */
const RUNS_OR_TOUCHES = /\\[a-zA-Z!?]|\bprogram\s+'|`/i;
const QUERIES = /^(-V|--version|-\?|--help(=\S*)?|-l|--list)$/;

export function psql(args: readonly Word[], stdin: string | null, cwd: string | null, paths: CommandPath[], nested: Nested[], reasons: string[]): void {
  if (args.length > 0 && args.every((w) => w.isStatic && QUERIES.test(w.value))) return;
  const scan = scanOptions(args, 0, PSQL);
  const commands = optionValues(scan, '-c', '--command');
  const files = optionValues(scan, '-f', '--file');
  const texts: string[] = stdin === null ? [] : [stdin];
  if (commands.length === 0 && files.length === 0) reasons.push('interpreter'); // commands from stdin
  if (files.length > 0) reasons.push('interpreter');
  for (const command of commands) {
    if (!command.isStatic || RUNS_OR_TOUCHES.test(command.value)) reasons.push('interpreter');
    if (command.isStatic) texts.push(command.value);
  }
  for (const value of optionValues(scan, '-v', '--set', '--variable')) if (!value.isStatic || value.value.includes('`')) reasons.push('interpreter');
  for (const output of optionValues(scan, '-o', '--output')) {
    if (output.isStatic && output.value.startsWith('|')) {
      reasons.push('interpreter');
      nested.push({ kind: 'script', text: output.value.slice(1), cwd });
    } else pushPath(paths, pathOf(output, 'write', cwd));
  }
  for (const log of optionValues(scan, '-L', '--log-file')) pushPath(paths, pathOf(log, 'write', cwd));
  for (const text of texts) for (const script of shellCommands(text)) nested.push({ kind: 'script', text: script, cwd });
}

/** The shell commands a psql text runs: after `\!`, after the `|` of `\o`/`\g`/`\gx`/`\w`, inside `program '…'` and backquotes. */
function shellCommands(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/\\!([^\n]*)/g)) out.push(match[1]!);
  for (const match of text.matchAll(/\\(?:o|out|g|gx|w|write)\b[^\n|]*\|([^\n]*)/g)) out.push(match[1]!);
  for (const match of text.matchAll(/\bprogram\s+'((?:[^']|'')*)'/gi)) out.push(match[1]!.replace(/''/g, "'"));
  for (const match of text.matchAll(/`([^`]*)`/g)) out.push(match[1]!);
  return out;
}
