import { DENY_CANDIDATE } from '../../policy/decide.js';
import type { CommandPath } from '../../policy/types.js';
import type { Nested } from './files.js';
import { projectOrSystem } from './cmake.js';
import { pathOf, pushPath, type Word } from './options.js';
import { texCodeOption } from './tex.js';

/**
 * pandoc's own command line (round 31, review30r's leftovers; docs/threat-model.md "Round 31: round
 * 30's command-rule leftovers (rules31)"). From pandoc's manual (2.17) and what pandoc 2.17.1.1 did
 * here: `--filter P`/`-F P` runs the program P (an abbreviated `--filt` too: its long options are
 * read as GetOpt reads them), `--lua-filter F`/`-L F` and a custom reader or writer (`-f F.lua`,
 * `-t F.lua`) run Lua, whose `os.execute` runs any command; a defaults file (`-d F`) names filters,
 * a data directory and any other option; the data directory's `init.lua`, filters and defaults are
 * code; `--pdf-engine=P` runs P with `--pdf-engine-opt` words. So a filter or an engine that is not
 * one of the known engines by name is a nested command (its own rules decide it); a Lua file is code
 * read from there (outside the workspace it asks, as a runtime's script); `-d`, a data directory
 * outside the project and engine options that run commands (`-shell-escape`) are `interpreter`;
 * `-o`, `--extract-media`, `--log` outside the project are writes there. `pandoc in.md -o out.html`,
 * `--citeproc`, `--pdf-engine=xelatex`, `--template=t.html` stay.
 *
 * Round 32 (rules32): a filter named without a `/` is `interpreter` too (which file runs is found on
 * disk: the working directory's, the data directory's `filters/`, PATH's). What a document includes
 * (RST `include`, LaTeX `\input`, images a docx, an epub or `--embed-resources` embeds) is the
 * program's own reading, not seen here, as a TeX engine's `\input` is (docs/rules.md "Round 32").
 */
/** Long options pandoc takes a value for, with the value's meaning here. */
const OPTIONS: Readonly<Record<string, 'filter' | 'lua' | 'format' | 'defaults' | 'data' | 'engine' | 'engine-opt' | 'write'>> = {
  filter: 'filter',
  'lua-filter': 'lua',
  from: 'format',
  read: 'format',
  to: 'format',
  write: 'format',
  defaults: 'defaults',
  'data-dir': 'data',
  'pdf-engine': 'engine',
  'pdf-engine-opt': 'engine-opt',
  output: 'write',
  'extract-media': 'write',
  log: 'write',
};
const SHORT: Readonly<Record<string, keyof typeof OPTIONS>> = { F: 'filter', L: 'lua-filter', f: 'from', r: 'read', t: 'to', w: 'write', d: 'defaults', o: 'output' };
/** Short options that take a value, so the letters after them are that value (`-Vkey=v`, `-Mk=v`). */
const SHORT_VALUES = /[FLfrtwdoVMcHBAD]/;
/** Long options taking a value that run nothing (the next word is theirs, not an operand or an option). */
const OTHER_VALUES = /^(?:template|variable|metadata|metadata-file|css|include-in-header|include-before-body|include-after-body|resource-path|reference-doc|bibliography|csl|citation-abbreviations|columns|tab-stop|toc-depth|shift-heading-level-by|number-offset|top-level-division|wrap|eol|dpi|highlight-style|syntax-definition|title-prefix|epub-cover-image|epub-metadata|epub-embed-font|epub-chapter-level|epub-subdirectory|id-prefix|email-obfuscation|reference-location|markdown-headings|track-changes|default-image-extension|indented-code-classes|abbreviations|request-header|slide-level|print-default-template|print-default-data-file|print-highlight-style|ipynb-output|resource-path|trace|verbosity)$/;
/** PDF engines pandoc knows by name (its manual's `--pdf-engine`); any other, or one by path, is a program of its own. */
const ENGINES = /^(?:pdflatex|lualatex|xelatex|latexmk|tectonic|wkhtmltopdf|weasyprint|pagedjs-cli|prince|context|pdfroff|groff|typst)$/;

/** The long option `name` abbreviates (GetOpt: an exact name, else the only one it starts), or null. */
function longName(name: string): string | null {
  if (Object.hasOwn(OPTIONS, name) || OTHER_VALUES.test(name)) return name;
  const matches = Object.keys(OPTIONS).filter((full) => full.startsWith(name));
  // Ambiguous or short abbreviations pandoc refuses count as the riskiest they may be.
  return name.length >= 2 && matches.length > 0 ? matches[0]! : null;
}

/** True when pandoc's words run code of their own; filters and engines go to `nested`, code files read and outputs elsewhere to `paths`. */
export function pandocRunsCode(args: readonly Word[], cwd: string | null, paths: CommandPath[], nested: Nested[]): boolean {
  let code = false;
  let engine: Word | null = null;
  const engineOptions: Word[] = [];
  /** Relative filters (`--filter ./x`, `-L f.lua`): pandoc runs the data directory's `filters/F` when F is not here. */
  const relative: string[] = [];
  const dataDirs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      code = true; // an option known only at run time may be any of them
      continue;
    }
    const text = word.value;
    if (text === '--') break;
    let option: string | null = null;
    let value: Word | undefined;
    if (text.startsWith('--') && text.length > 2) {
      const eq = text.indexOf('=');
      option = longName(eq === -1 ? text.slice(2) : text.slice(2, eq));
      if (option === null || !(Object.hasOwn(OPTIONS, option) || OTHER_VALUES.test(option))) continue;
      value = eq === -1 ? args[++i] : { ...word, value: text.slice(eq + 1), raw: text.slice(eq + 1) };
    } else if (/^-[A-Za-z]/.test(text)) {
      // Bundled letters: the first one that takes a value takes the rest of the word, or the next word.
      const at = [...text.slice(1)].findIndex((letter) => SHORT_VALUES.test(letter));
      if (at === -1) continue;
      const letter = text[at + 1]!;
      const rest = text.slice(at + 2);
      value = rest !== '' ? { ...word, value: rest, raw: rest } : args[++i];
      option = SHORT[letter] ?? null;
      if (option === null) continue;
    } else continue;
    if (value === undefined) continue;
    if (!value.isStatic) {
      if (OPTIONS[option] !== 'write') code = true;
      continue;
    }
    switch (OPTIONS[option]) {
      case 'filter':
        nested.push({ kind: 'argv', words: [value], cwd }); // the program P, as pandoc runs it (its own rules decide it)
        if (!/^[/~]/.test(value.value)) relative.push(value.value);
        // A bare name is the file of that name in the working directory when there is one, else the
        // data directory's `filters/NAME`, and only then NAME on PATH (pandoc's expandFilterPath;
        // pandoc 2.17 ran ./NAME, then ~/.local/share/pandoc/filters/NAME, before PATH's): which
        // program runs is known only on disk when it runs, so no rule naming NAME allows it (round 32).
        if (!value.value.includes('/')) code = true;
        break;
      case 'lua':
        pushPath(paths, pathOf(value, 'read', cwd));
        if (!/^[/~]/.test(value.value)) relative.push(value.value);
        break;
      case 'format':
        // A custom reader or writer: a Lua file (`-t w.lua`, `-t w.lua+ext`).
        if (/\.lua(?:[+-]|$)/.test(value.value)) pushPath(paths, pathOf({ ...value, value: value.value.replace(/\.lua[+-].*$/, '.lua') }, 'read', cwd));
        break;
      case 'defaults':
        code = true; // it may name filters, a data directory, any option: not read here
        break;
      case 'data':
        dataDirs.push(value.value);
        if (!projectOrSystem(value.value)) code = true;
        else pushPath(paths, pathOf(value, 'read', cwd));
        break;
      case 'engine':
        engine = value;
        break;
      case 'engine-opt':
        engineOptions.push(value);
        break;
      case 'write':
        if (!projectOrSystem(value.value) || value.value.startsWith('/')) pushPath(paths, pathOf(value, 'write', cwd));
        break;
    }
  }
  // pandoc's expandFilterPath (2.17): a relative filter that is not a file here is the data directory's
  // `filters/F` (`--data-dir D`, else ~/.local/share/pandoc, or ~/.pandoc where it is). That is code
  // the user installed (writing it asks: round 31's built-in rules), so a read for deny rules only
  // (round 33, rules33): `Read(~/.local/share/pandoc/**)` denies `pandoc -L f.lua` as it denies
  // `pandoc -L ~/.local/share/pandoc/filters/f.lua`.
  for (const filter of relative) {
    for (const dir of dataDirs.length > 0 ? dataDirs : ['~/.local/share/pandoc', '~/.pandoc']) {
      const path = `${dir.replace(/\/+$/, '')}/filters/${filter}`;
      if (!paths.some((known) => known.path === path)) paths.push({ path, access: 'read', base: cwd, isStatic: true, via: DENY_CANDIDATE });
    }
  }
  if (engine !== null && !(ENGINES.test(engine.value) && !engine.value.includes('/'))) nested.push({ kind: 'argv', words: [engine, ...engineOptions], cwd });
  // The engine's options: `--pdf-engine-opt=-shell-escape` lets the document run commands.
  if (engineOptions.some((option) => /^--?[A-Za-z]/.test(option.value) && texCodeOption(option.value.replace(/^--?/, '').split('=')[0]!))) code = true;
  return code;
}

