import { isSafeCommand } from '../../policy/safe.js';
import type { CommandInfo } from '../../policy/types.js';
import { SAFE_WRAPPERS } from '../../programs.js';
import type { Dialect } from './dialect.js';
import { loadedParser } from './parser.js';
import { markScriptsWritten } from './scripts-written.js';
import { markIgnoresChanged } from './ignores-changed.js';
import { markRefsChanged } from './refs-changed.js';
import { commandSignature } from './signature.js';
import { addReason, walkCommand } from './walk.js';

export { commandSignature } from './signature.js';

/**
 * What the gateway asks of the shell analysis: one command string → its CommandInfo (segments,
 * redirections, substitutions, why it cannot be fully analysed), its signature, and whether an
 * approval of it may be remembered. The walk itself is walk.ts; loading the grammar, parser.ts.
 */

/** Inputs longer than this are not parsed (Claude Code's limit): ask. */
export const MAX_COMMAND_LENGTH = 10_000;
/** All parses of one text together (guards, payloads, readings) are cancelled after this long: ask. */
const PARSE_TIMEOUT_MS = 500;

/**
 * Why a command cannot be fully analysed (CommandInfo.unanalyzable). Any of them ⇒ never
 * auto-allowed, never remembered; deny rules still apply to the segments found.
 *
 *   too-long              over MAX_COMMAND_LENGTH characters
 *   control-characters    NUL or another C0 control character (besides \t \n \r), or DEL
 *   carriage-return       a CR not followed by LF: bash keeps it in the word, the grammar splits there
 *   crlf-continuation     `\<CR><LF>`: not a continuation for bash; both readings are analysed
 *   parser-unavailable
 *   parse-timeout         every parse of the text together took longer than the budget (500 ms), named in the reason
 *   parse-error           syntax error or incomplete input (`ls &&`)
 *   internal-error
 *   too-deep              syntax or payload nesting beyond the limits, or calls of the text's functions past
 *                         what is read with their arguments (walk.ts, positional.ts)
 *   substitution          $(…), backticks, <(…), >(…)
 *   heredoc-substitution  $( or a backtick in an unquoted heredoc body
 *   prompt-expansion      ${x@P} and the other @ transformations
 *   indirection           ${!x}
 *   dynamic-name          the program is not a static word ($CMD, $(…), $'\x72m', /bin/r?)
 *   interpreter           code given to a shell or interpreter (sh -c, python -c, eval, source, awk system(), sed e, … | sh),
 *                         or a script the same call writes, then runs (scripts-written.ts)
 *   executor              runs a program it fetches or names (npx, npm exec, rg --pre $x, ssh -o ProxyCommand)
 *   remote-command        ssh HOST CMD: parsed, but run by the remote shell
 *   stored-substitution   a quoted `$(`/backtick stored in a variable or given to let/declare (evaluated later)
 *   environment           changes how later commands are found or run: export PATH=…, hash -p, export -f
 *   arithmetic            an arithmetic context that can reach quoted `$(`/backtick text, values from files and globs,
 *                         or a `$` that is data (the pieces of a substitution built at run time)
 *   archive-extract       tar -x, unzip, cpio -i, 7z x, ar x, patch: writes paths the archive or patch names
 *   xargs-input           xargs gives words known only at run time (options among them) to a program other than
 *                         the few none of whose options writes or runs (argv.ts XARGS_ANY_WORDS), or names the program
 *   sh-dialect            the text is read by `sh`, which may be dash, and bash's reading holds a form dash reads
 *                         otherwise (`$'…'`, `((…))`, `[[…]]`, `&>`, …; dialect.ts), named in the reason
 *   unknown-option        curl, wget given an option the model does not know, or options from a file or wgetrc
 *                         command it does not read (`curl -K F`, `wget --config F`, `wget -e KEY=…`)
 */

export interface AnalyseOptions {
  /** The directory the command starts in (the tool's cwd argument or the server's cwd); null = unknown. */
  cwd: string | null;
  /**
   * The shell that reads the text (default bash): `sh` may be dash, and a form dash reads
   * otherwise is `sh-dialect` (dialect.ts).
   */
  shell?: Dialect;
  /** Parse budget of the whole text in milliseconds (default PARSE_TIMEOUT_MS); for tests. */
  parseTimeoutMs?: number;
}

/**
 * Analyses one shell command string. Synchronous and side-effect free; requires initShellParser()
 * first (otherwise: 'parser-unavailable'). Never throws: an internal failure is reported as
 * unanalyzable ('internal-error'), so the caller asks.
 */
export function analyseCommand(command: string, options: AnalyseOptions): CommandInfo {
  const info: CommandInfo = { raw: command, parseOk: true, unanalyzable: [], segments: [], redirections: [], substitutions: [], signature: null, rememberable: false };
  if (command.length > MAX_COMMAND_LENGTH) return reject(info, 'too-long');
  // Security: NUL and terminal control characters are refused before the grammar sees them.
  if (/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/.test(command)) return reject(info, 'control-characters');
  const parser = loadedParser();
  if (parser === null) {
    info.parseOk = false;
    return reject(info, 'parser-unavailable');
  }
  try {
    walkCommand(parser, info, options.parseTimeoutMs ?? PARSE_TIMEOUT_MS, command, options.cwd, options.shell);
    markScriptsWritten(info);
    markIgnoresChanged(info);
    markRefsChanged(info);
  } catch {
    info.parseOk = false;
    addReason(info, 'internal-error');
  }
  const pick = info.segments.find((s) => s.program !== null && !isSafeCommand(s)) ?? info.segments.find((s) => s.program !== null);
  info.signature = pick ? commandSignature(pick) : null;
  info.rememberable =
    info.parseOk &&
    info.unanalyzable.length === 0 &&
    info.substitutions.length === 0 &&
    info.signature !== null &&
    info.segments.length > 0 &&
    info.segments.every((s) => s.isStatic && s.program !== null && s.context !== 'nested' && s.wrappers.every((w) => SAFE_WRAPPERS.has(w.split(' ')[0]!)));
  return info;
}

function reject(info: CommandInfo, reason: string): CommandInfo {
  info.unanalyzable.push(reason);
  return info;
}
