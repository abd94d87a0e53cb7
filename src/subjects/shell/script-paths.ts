import type { CommandPath } from '../../policy/types.js';
import { globalValueOptions } from '../../programs.js';
import { pathOf, staticWord, type Word } from './options.js';
import { DENO_VALUES } from './test-paths.js';

/**
 * The script a runtime runs, read as a read of that file's code (round 28, docs/rules.md), as a
 * shell's script has been (`bash /tmp/x.sh`): one outside the workspace asks in default and
 * acceptEdits, is refused in plan and dontAsk, and deny rules on the file meet it. node 20.20,
 * python 3.11 and perl 5.36 ran `/tmp/x.js`, `/tmp/x.py`, `/tmp/x.pl` under `Bash(node:*)` and the like.
 *
 *   node|python|perl|ruby|php… [OPTIONS] SCRIPT   the operand interpreterMode found (program.ts)
 *   deno [OPTIONS] run|serve [OPTIONS] SCRIPT, deno SCRIPT (deno 2: a first word that is no command)
 *   bun [OPTIONS] [run] FILE                       a word spelled as a file (a `/`, a JS or TS name);
 *                                                  another is a script, a bin or a program (bunRunFallback)
 *
 * A `file:` URL is its path; deno's other URLs (`https:`, `npm:`, `jsr:`) are code fetched: null,
 * and `remote` says so.
 */
export function runtimeScript(name: string, args: readonly Word[], interpreterAt: number, cwd: string | null): { path: CommandPath | null; remote: boolean } {
  const at = name === 'deno' ? denoScript(args) : name === 'bun' ? bunScript(args) : interpreterAt;
  const word = at >= 0 ? args[at] : undefined;
  if (word === undefined) return { path: null, remote: false };
  const scheme = word.isStatic ? /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(word.value)?.[1]?.toLowerCase() : undefined;
  if (scheme === 'file') return { path: pathOf(staticWord(fileUrlPath(word.value)), 'read', cwd), remote: false };
  if (scheme !== undefined && name === 'deno') return { path: null, remote: true };
  return { path: pathOf(word, 'read', cwd), remote: false };
}

/** A `file:` URL's path (`file:///tmp/x.ts`, `file:/tmp/x.ts`), percent-escapes decoded; the URL itself when it does not parse. */
function fileUrlPath(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url;
  }
}

/** deno 2's commands (`deno --help`): a first word that is none of them is a script deno runs. */
const DENO_COMMANDS: ReadonlySet<string> = new Set(['add', 'approve-scripts', 'bench', 'bundle', 'cache', 'check', 'clean', 'compile', 'completions', 'coverage', 'deploy', 'doc', 'eval', 'fmt', 'help', 'info', 'init', 'install', 'jupyter', 'lint', 'lsp', 'outdated', 'publish', 'remove', 'repl', 'sandbox', 'task', 'test', 'types', 'uninstall', 'update', 'upgrade', 'vendor', 'x']);

/** The index of the script `deno run`, `deno serve` or a bare `deno SCRIPT` runs; -1 for deno's other commands. */
function denoScript(args: readonly Word[]): number {
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (word.isStatic && v === '--') return i + 1 < args.length ? i + 1 : -1;
    if (word.isStatic && v.startsWith('-') && v !== '-') {
      if (DENO_VALUES.has(v)) i++;
      continue;
    }
    if (!word.isStatic) return i;
    if (!command && (v === 'run' || v === 'serve')) {
      command = true;
      continue;
    }
    return command || !DENO_COMMANDS.has(v) ? i : -1;
  }
  return -1;
}

/** A word bun runs as a file: a path or a JS/TS file name (bun's own `run` reads these first; program.ts bunRunFallback). */
const BUN_FILE = /\/|\.(m?[jt]sx?|c[jt]s)$/;

/** The index of the file `bun FILE` or `bun run FILE` runs; -1 when its first word is no file. */
function bunScript(args: readonly Word[]): number {
  const values = globalValueOptions('bun');
  let run = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (!word.isStatic) return i;
    if (v === '--') return -1;
    if (v.startsWith('-') && v !== '-') {
      if (!v.includes('=') && values.has(v)) i++;
      continue;
    }
    if (!run && v === 'run') {
      run = true;
      continue;
    }
    return BUN_FILE.test(v) ? i : -1;
  }
  return -1;
}
