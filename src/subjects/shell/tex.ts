import type { CommandPath } from '../../policy/types.js';
import type { Nested } from './files.js';
import { projectOrSystem } from './cmake.js';
import { pathOf, pushPath, type Word } from './options.js';

/**
 * TeX engines and latexmk (round 31, review30r's leftovers; docs/threat-model.md "Round 31: round
 * 30's command-rule leftovers (rules31)"). web2c's engines read their options as getopt_long_only
 * does (one dash or two, `=` or the next word, any unambiguous abbreviation): `-shell-escape` (and
 * `-enable-write18`, `-shell-e`) lets `\write18{CMD}` run any command (pdfTeX 1.40.24 ran one),
 * `-enable-pipes` lets `\input|"CMD"` run one, `-cnf-line=shell_escape=t` sets it from the
 * configuration, LuaTeX's `--lua=F`/`--luaonly` run Lua. latexmk (its manual and source, 4.79):
 * `-e CODE` runs Perl, `-r F` reads a Perl rc file, `-pdflatex=CMD` and the other program setters
 * name the command it runs, `-latexoption=O` and the engine options it passes on (`-shell-escape`)
 * reach the engine. Each is `interpreter` (a setter's command a nested script: the engine it names
 * is decided as any command); an output directory outside the project is a write there.
 * `pdflatex x.tex`, `latexmk -pdf x.tex`, `-interaction=nonstopmode`, `-synctex=1` stay.
 */
export const TEX_ENGINES: ReadonlySet<string> = new Set(['tex', 'etex', 'pdftex', 'xetex', 'luatex', 'luahbtex', 'luajittex', 'latex', 'pdflatex', 'xelatex', 'lualatex', 'luahblatex', 'dvilualatex', 'platex', 'uplatex', 'eptex', 'euptex', 'ptex', 'uptex', 'pdflatex-dev', 'xelatex-dev', 'lualatex-dev', 'latex-dev', 'amstex', 'mpost', 'mf', 'context']);

/** Engine options whose (any unambiguous) abbreviation lets the document run commands or code: the shortest prefix each one is known by. */
const CODE_OPTIONS: ReadonlyArray<[string, number]> = [['shell-escape', 7], ['enable-write18', 8], ['enable-pipes', 8], ['cnf-line', 2], ['ipc-start', 5], ['lua', 3], ['luaonly', 4], ['luaconly', 4]];
/** Engine options that take a value (the next word when not given with `=`). */
const VALUE_OPTIONS = /^(?:fmt|progname|jobname|output-directory|aux-directory|output-comment|output-format|interaction|kpathsea-debug|mktex|no-mktex|translate-file|synctex|cnf-line|lua|alias|include-directory|undump|tcx|job-time|record-package-usages)$/;

/** The option's name without its dashes and value, or null for an operand. */
function optionName(value: string): string | null {
  if (!/^--?[A-Za-z]/.test(value)) return null;
  const bare = value.replace(/^--?/, '');
  return bare.includes('=') ? bare.slice(0, bare.indexOf('=')) : bare;
}

/** True when an engine option (its name, abbreviated or not) lets the document run code. */
export function texCodeOption(name: string): boolean {
  // luatex's own options that run Lua (`--luaonly`, `--lua=F`); `--luahashchars` and the like only size.
  return CODE_OPTIONS.some(([full, shortest]) => name.length >= shortest && full.startsWith(name)) || /^lua(?:only|conly)?$/.test(name);
}

/** True when a TeX engine's words run a command or code; an output directory outside the project is a write. */
export function texRunsCode(args: readonly Word[], cwd: string | null, paths: CommandPath[]): boolean {
  let code = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      code = true; // an option known only at run time may be `-shell-escape`
      continue;
    }
    const name = optionName(word.value);
    if (name === null) continue;
    if (texCodeOption(name)) code = true;
    const attached = word.value.includes('=') ? word.value.slice(word.value.indexOf('=') + 1) : null;
    const takes = VALUE_OPTIONS.test(name) || (name.length >= 8 && 'output-directory'.startsWith(name));
    const value = attached !== null ? { ...word, value: attached, raw: attached } : takes ? args[++i] : undefined;
    if (!takes || value === undefined) continue;
    if (!value.isStatic) code = true;
    else if ('output-directory'.startsWith(name) || name === 'aux-directory') outputDirectory(value, cwd, paths);
  }
  return code;
}

/** latexmk's options that set the command it runs for a step (`-pdflatex="pdflatex -shell-escape %O %S"`). */
const PROGRAM_SETTERS = /^(?:latex|pdflatex|xelatex|lualatex|dvilualatex|pdflualatex|pdfxelatex)$/;
/** Engine options latexmk passes on unchanged (its %allowed_latex_options, exact names only). */
const PASSED_CODE = /^(?:shell-escape|enable-write18|enable-pipes|ipc-start)$/;

/** True when latexmk's words run Perl or a command of their own; a setter's command is a nested script, outputs elsewhere writes. */
export function latexmkRunsCode(args: readonly Word[], cwd: string | null, paths: CommandPath[], nested: Nested[]): boolean {
  let code = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      code = true;
      continue;
    }
    const name = optionName(word.value);
    if (name === null) continue;
    const attached = word.value.includes('=') ? word.value.slice(word.value.indexOf('=') + 1) : null;
    if (name === 'e') {
      code = true; // `-e CODE`: Perl run at start-up
      i++;
    } else if (name === 'r') {
      const file = args[++i];
      // `-r F`: a Perl rc file, code read from there (outside the project it asks).
      if (file === undefined || !file.isStatic || !projectOrSystem(file.value)) code = true;
      else pushPath(paths, pathOf(file, 'read', cwd));
    } else if (PASSED_CODE.test(name)) code = true;
    else if (name === 'latexoption' && attached !== null) code ||= texCodeOption(optionName(attached) ?? '');
    else if (PROGRAM_SETTERS.test(name) && attached !== null) {
      // latexmk's placeholders (%O options, %S source, %D destination…) stand for words it fills in.
      nested.push({ kind: 'script', text: attached.replace(/%[A-Za-z]/g, 'x'), cwd });
    } else if (/^(?:outdir|output-directory|auxdir|aux-directory|deps-out)$/.test(name) && attached !== null) outputDirectory({ ...word, value: attached, raw: attached }, cwd, paths);
  }
  return code;
}

/** An output directory (or file) outside the project: a write there, as any other write outside (inside, the rule covers it). */
function outputDirectory(word: Word, cwd: string | null, paths: CommandPath[]): void {
  if (projectOrSystem(word.value) && !word.value.startsWith('/')) return;
  pushPath(paths, pathOf(word, 'write', cwd));
}
