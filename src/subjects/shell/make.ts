import { getoptLong, type Parsed, type Switch } from './getopt.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';
import type { FileFacts } from './files.js';
import type { CommandPath } from '../../policy/types.js';
import { INSTALL_PLACE } from '../../policy/decide.js';
import { buildWrites, changesLaterCommands, commandVariables, elsewhere, flagsLoadCode, INSTALLED_PROGRAM, isOptionEnvironment, loadsCode, movesConfig, programVariable, RECIPE_SYNTAX, recipeCommand } from './variables.js';
import { fileFacts } from './files.js';
import { startsOthers } from './program.js';
import { RUNNERS, runsCode, WRAPPERS } from '../../programs.js';

/**
 * GNU make (`make`, `gmake`) as `Bash(make:*)` approved it: the project's own makefile's recipes.
 * It runs other text when it is given some: `--eval`/`-E TEXT`, a command-line variable whose value
 * is expanded (`X:=$(shell CMD)`, `X!=CMD`), `SHELL=`/`MAKEFLAGS=`… (what runs every recipe); and
 * another project's recipes with `-C DIR`, `-f FILE` (stdin too), `-I DIR`. Each is `interpreter`;
 * `$(shell CMD)` bodies and `!=` commands are nested scripts, so Bash deny rules see them
 * (docs/threat-model.md#runners-write-and-load-what-their-options-name).
 *
 * The options are read as make reads them (getopt_long over its whole table, getopt.ts): round 14
 * review M1, GNU make 4.3 under bash 5.2, `make -sE '$(shell CMD)'`, `make --ev='…'` and `make
 * -kE'…'` ran CMD, since only `-E`/`--eval` as spelled were looked for. An option make would refuse,
 * or a word known only at run time, is `interpreter` too.
 *
 *   make -j4 test                  → nothing
 *   make -sE '$(shell rm -rf d)'   → interpreter; script `rm -rf d`
 *   make -C ../other               → interpreter
 */

/** GNU make 4.3's switches (main.c `switches`, `long_option_aliases`) and 4.4's `--shuffle`, `--jobserver-style`. */
const MAKE_SWITCHES: readonly Switch[] = [
  ...['b', 'm', 'd'].map((short): Switch => ({ name: `-${short}`, short, arg: 'none' })),
  ...([
    ['B', 'always-make'], ['e', 'environment-overrides'], ['h', 'help'], ['i', 'ignore-errors'], ['k', 'keep-going'],
    ['L', 'check-symlink-times'], ['n', 'just-print', 'dry-run', 'recon'], ['p', 'print-data-base'], ['q', 'question'],
    ['r', 'no-builtin-rules'], ['R', 'no-builtin-variables'], ['s', 'silent', 'quiet'], ['S', 'no-keep-going', 'stop'],
    ['t', 'touch'], ['v', 'version'], ['w', 'print-directory'],
  ] as const).map(([short, ...long]): Switch => ({ name: `-${short}`, short, long, arg: 'none' })),
  ...['trace', 'no-print-directory', 'warn-undefined-variables', 'no-silent'].map((long): Switch => ({ name: `--${long}`, long: [long], arg: 'none' })),
  ...([['C', 'directory'], ['f', 'file', 'makefile'], ['I', 'include-dir'], ['o', 'old-file', 'assume-old'], ['W', 'what-if', 'new-file', 'assume-new'], ['E', 'eval']] as const)
    .map(([short, ...long]): Switch => ({ name: `-${short}`, short, long, arg: 'required' })),
  ...['jobserver-auth', 'jobserver-fds', 'sync-mutex', 'jobserver-style'].map((long): Switch => ({ name: `--${long}`, long: [long], arg: 'required' })),
  // make takes -j's and -l's value from the next word too when it is a number (decode_switches).
  { name: '-j', short: 'j', long: ['jobs'], arg: 'optional', next: /^\d*$/ },
  { name: '-l', short: 'l', long: ['load-average', 'max-load'], arg: 'optional', next: /^[\d.]/ },
  { name: '-O', short: 'O', long: ['output-sync'], arg: 'optional' },
  ...['debug', 'shuffle'].map((long): Switch => ({ name: `--${long}`, long: [long], arg: 'optional' })),
];

/** make's default makefile names (GNU make 4.3, "What Name to Give Your Makefile"). */
const MAKEFILES = /^(\.\/)?(GNUmakefile|makefile|Makefile)$/;
/** Variables that change what runs every recipe or how make reads its arguments. */
const RUNS_RECIPES = /^(SHELL|MAKESHELL|\.SHELLFLAGS|MAKEFLAGS|MFLAGS|MAKEFILES|GNUMAKEFLAGS|\.RECIPEPREFIX)$/;

const values = (parsed: Parsed, name: string): Word[] => parsed.found.flatMap((f) => (f.name === name && f.value ? [f.value] : []));

export function make(args: readonly Word[], cwd: string | null, out: FileFacts): void {
  const parsed = getoptLong(args, MAKE_SWITCHES);
  const own = (words: Word[], pattern: RegExp): boolean => words.every((w) => w.isStatic && pattern.test(w.value));
  if (parsed.unknown.length > 0 || !own(values(parsed, '-C'), /^\.\/?$/) || !own(values(parsed, '-f'), MAKEFILES) || values(parsed, '-I').length > 0) out.reasons.push('interpreter');
  const texts: string[] = [];
  for (const text of values(parsed, '-E')) {
    out.reasons.push('interpreter');
    if (text.isStatic) texts.push(text.value);
  }
  // GNU make 4.4's `--jobserver-auth=fifo:PATH` opens PATH, a named pipe it reads and writes job
  // tokens through (make(1), "--jobserver-style"; round 14 review W3): PATH is read and written.
  // `R,W` (4.3's pipe: two inherited descriptors) names no file; any other value is not known here.
  for (const value of [...values(parsed, '--jobserver-auth'), ...values(parsed, '--jobserver-fds')]) {
    const fifo = value.isStatic ? /^fifo:(.+)$/.exec(value.value)?.[1] : undefined;
    if (fifo !== undefined) for (const access of ['read', 'write'] as const) pushPath(out.paths, pathOf(staticWord(fifo), access, cwd));
    else if (!(value.isStatic && /^-?\d+,-?\d+$/.test(value.value))) out.reasons.push('interpreter');
  }
  for (const i of parsed.operands) {
    const v = args[i]!.value;
    const assignment = /^\s*([^\s=:+?!]+)\s*(::?=|:::=|\+=|\?=|!=|=)/.exec(v);
    // `make CC='rm -rf victim' x.o` runs rm for the implicit rule's `$(CC) -c` (GNU Make 4.3; round
    // 24): a program variable's value is a command of its own (variables.ts PROGRAM_VARIABLES).
    // Round 25: a makefile's own program variables (`make PYTHON=./evil test`) as well.
    if (assignment && programVariable(`${assignment[1]}=`) && assignment[2] !== '!=' && !/[$`]/.test(v)) {
      const program = recipeCommand(v.slice(assignment[0].length).trim());
      // Pasted into a recipe line (`$(MAKE) -C sub`), shell syntax is read with the recipe's own words, not as the script alone.
      if (!args[i]!.isStatic || RECIPE_SYNTAX.test(program)) out.reasons.push('interpreter');
      if (args[i]!.isStatic && !INSTALLED_PROGRAM.test(program)) out.nested.push({ kind: 'script', text: program, cwd });
      continue;
    }
    if (assignment && assignment[2] !== '!=' && !/[$`]/.test(v) && !RUNS_RECIPES.test(assignment[1]!)) {
      const value = v.slice(assignment[0].length).trim();
      recipeEnvironment(assignment[1]!, assignment[2] === '+=', value, args[i]!.isStatic, cwd, out);
      if (args[i]!.isStatic) recipeProgram(assignment[1]!, value, cwd, out);
      continue;
    }
    if (!assignment || !(RUNS_RECIPES.test(assignment[1]!) || assignment[2] === '!=' || /[$`]/.test(v))) continue;
    out.reasons.push('interpreter');
    texts.push(v);
  }
  for (const text of texts) {
    for (const match of text.matchAll(/\$[({]shell\s+([^)}]*)/g)) out.nested.push({ kind: 'script', text: match[1]!, cwd });
    const bang = /^[^=]*!=(.*)$/.exec(text);
    if (bang) out.nested.push({ kind: 'script', text: bang[1]!, cwd });
  }
}

/**
 * A variable given on make's command line (round 25, GNU Make 4.3): make pastes its value into the
 * recipes' shell text wherever the makefile names it (`echo $(MSG)` with `make 'MSG=x; touch F'`
 * ran touch), and exports it to every recipe (`make PYTHONPATH=/x test`: the recipe's environment
 * held PYTHONPATH=/x). So a value holding shell syntax is `interpreter`, and the variable is read as
 * an assignment before a program that starts others: settings (`HOME`, `NODE_OPTIONS`,
 * `PYTHONPATH`…, variables.ts movesConfig), code loaders (`PATH`, `LD_PRELOAD`), option variables,
 * compiler flags that run code (`CFLAGS=-fplugin=…`), commands (`GIT_EXTERNAL_DIFF`, a nested script).
 */
function recipeEnvironment(name: string, append: boolean, value: string, isStatic: boolean, cwd: string | null, out: FileFacts): void {
  const word: Word = { value: `${name}${append ? '+=' : '='}${value}`, raw: `${name}=${value}`, isStatic, ansi: false };
  if (!isStatic || RECIPE_SYNTAX.test(value) || movesConfig('make', [word], () => true) || loadsCode(word) || isOptionEnvironment(word) || flagsLoadCode(word)) out.reasons.push('interpreter');
  commandVariables([word], cwd, out.reasons, out.nested);
  // `make CARGO_TARGET_DIR=D`: a recipe's cargo writes below D (cargo 1.95; round 27).
  out.paths.push(...buildWrites([word], cwd));
}

/**
 * GNU Coding Standards, "Variables for Installation Directories" and "DESTDIR": where `make install`
 * puts files, by convention a directory and not a program (any case: `PREFIX`, `prefix`, `BINDIR`).
 */
const INSTALL_DIRECTORIES = /^(DESTDIR|prefix|exec_prefix|bindir|sbindir|libexecdir|datarootdir|datadir|sysconfdir|sharedstatedir|localstatedir|runstatedir|includedir|oldincludedir|docdir|infodir|htmldir|dvidir|pdfdir|psdir|libdir|lispdir|localedir|mandir|man[1-9ln]?dir|srcdir)$/i;

/**
 * A variable given to make (on its command line, or before it) outside the program lists, whose
 * value a recipe may run as a command: make pastes it into the recipe's text, and which variables
 * a makefile runs (`$(BUILDER) all`) is known only from the makefile (GNU Make 4.3: `make
 * BUILDER=./x all` ran ./x for `$(BUILDER) all`; round 26). A value with a word spelled as a path
 * (`./x`, `/tmp/evil`, `env ./x`), or whose program runs code or other commands (runsOther), is decided as the command it may be, as a program variable's is
 * (a nested script: it asks under `Bash(make:*)` unless allowed itself); any other value (`V=1`,
 * `'TESTS=a b'`, `'BUILDER=rm -rf x'`, a program from the PATH at worst) stays plain, and deny and
 * ask rules meet its words as a command (Segment.alternatives: `Bash(rm *)` denies the last).
 * The installation directories (`PREFIX=/usr`, `DESTDIR=…`), the variables read as settings, flags or
 * files (`PYTHONPATH=src`, `CFLAGS=…`: recipeEnvironment) and URLs are not programs. docs/rules.md "Round 26".
 */
export function recipeProgram(name: string, value: string, cwd: string | null, out: FileFacts, byMake = true): void {
  // A variable read as what it is elsewhere (`PYTHONPATH`, `CFLAGS`, `PATH`, `TZ`: changesLaterCommands) is judged so in recipeEnvironment.
  // git's `GIT_*` are git's only where git reads them: a recipe may run `$(GIT_COMMIT)` as any other (round 27).
  if (INSTALL_DIRECTORIES.test(name) || (changesLaterCommands(name) && !name.startsWith('GIT_')) || RECIPE_SYNTAX.test(value)) return;
  // As make runs it at a recipe line's start (`@rm -rf v` is `rm -rf v`; round 28 review R28-2).
  const command = recipeCommand(value);
  const words = command.split(/\s+/).filter((word) => word !== '');
  if (words.length === 0) return;
  // Given to another program that may run make (`byMake` false: makeEnvironment's `later`), a value
  // spelled as a path is more often a directory than a program (`OUT=./dist npm run build`): deny
  // and ask rules meet its words; one whose program runs code is still that command.
  const spelledAsPath = byMake && words.some((word) => !word.startsWith('-') && /\/|^~/.test(word) && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(word));
  if (spelledAsPath || runsOther(words[0]!) || modelRunsCode(words) || (!value.trimStart().startsWith('-') && unmodelledWithOptions(words))) out.nested.push({ kind: 'script', text: command, cwd });
  else (out.alternatives ??= []).push(...words.flatMap((word, i) => (word.startsWith('-') ? [] : [words.slice(i)])));
}

/**
 * Assignments given to make from its environment (before it: `X=… make`, `env X=… make`; or
 * exported by this shell earlier: walk.ts), as make reads them: each is a variable the makefile
 * leaves unset or sets with `?=`, so a value a recipe may run (recipeProgram), and the installation
 * directories are where `make install` writes (installWrites, with the command line's `args`).
 */
export function makeEnvironment(assigned: readonly Word[], args: readonly Word[], cwd: string | null, out: FileFacts, later?: { toGit: boolean }): void {
  for (const word of assigned) {
    // Given to git, git's own variables are read as git reads them (variables.ts inRecipe's `toGit`).
    if (later?.toGit && word.value.startsWith('GIT_')) continue;
    // `env 'COMPILE.c=…' make`: env passes any name, make takes it.
    const variable = /^([^=+\s]+)=/.exec(word.value);
    if (variable === null || !word.isStatic) continue;
    const program = programVariable(variable[0]);
    const value = word.value.slice(variable[0].length);
    if (MAKEFLAGS_VARIABLES.test(variable[1]!)) makeflags(value, cwd, out);
    // `MAKEFILES=F make` reads F before the makefile (GNU Make 4.3, "The Variable MAKEFILES"): a read of F's code.
    else if (variable[1] === 'MAKEFILES') for (const file of value.split(/\s+/).filter((name) => name !== '')) pushPath(out.paths, pathOf(staticWord(file), 'read', cwd));
    else if (program !== null) {
      // A name with a `.` is not one commandVariables reads (no shell assignment has one).
      if (variable[1]!.includes('.') && !INSTALLED_PROGRAM.test(recipeCommand(value))) out.nested.push({ kind: 'script', text: recipeCommand(value), cwd });
    } else if (/^[A-Za-z_][\w.]*$/.test(variable[1]!)) recipeProgram(variable[1]!, value, cwd, out, later === undefined);
  }
  out.paths.push(...installWrites(later?.toGit ? assigned.filter((word) => !word.value.startsWith('GIT_')) : assigned, args, cwd));
}

/**
 * `MAKEFLAGS` and `GNUMAKEFLAGS` in make's environment are read as its options and command-line
 * variables (GNU Make 4.3, "Communicating Options to a Sub-make": `MAKEFLAGS='--eval=$(shell CMD)'
 * make` and `MAKEFLAGS='BUILDER=CMD' make` ran CMD; round 29): their words are given to make as if
 * written after it, so deny rules meet what `--eval` and the variables run (movesConfig makes the
 * assignment `interpreter` as before). make splits the value at blanks a backslash does not escape
 * (`BUILDER=rm\ -rf\ v`); a first word of letters alone is its one-letter flags (`k` is `-k`). An
 * `--eval` text with blanks (`--eval=$(shell touch A B)`) still ran whole, so any `$(shell …)` in the
 * value is also a nested script.
 */
const MAKEFLAGS_VARIABLES = /^(MAKEFLAGS|GNUMAKEFLAGS)$/;
function makeflags(value: string, cwd: string | null, out: FileFacts): void {
  const words = (value.match(/(?:\\.|[^\s\\])+/g) ?? []).map((word) => word.replace(/\\(.)/g, '$1'));
  if (words[0] !== undefined && /^[A-Za-z]+$/.test(words[0])) words[0] = `-${words[0]}`;
  make(words.map(staticWord), cwd, out);
  for (const match of value.matchAll(/\$[({]shell\s+([^)}]*)/g)) out.nested.push({ kind: 'script', text: match[1]!, cwd });
}

/** The installation directories `make install` writes to (INSTALL_DIRECTORIES), as make installs: below `DESTDIR`. */
const WRITTEN_DIRECTORIES = new RegExp(INSTALL_DIRECTORIES.source.replace('|srcdir', ''), 'i');

/**
 * Round 27: an installation directory given to make, from its environment (`assigned`) or on its
 * command line (`args`), is where `make install` writes (GNU Coding Standards, "DESTDIR: Support for
 * Staged Installs": each installed file goes to `$(DESTDIR)$(bindir)/…`; GNU Make 4.3 wrote
 * `make PREFIX=D install`'s files below D): deny and ask rules on that directory or what may be
 * written below it are met (policy/decide.ts INSTALL_PLACE), so `make PREFIX=/usr install` meets
 * `Edit(/usr/**)` and `make PREFIX=~/.local install` `Edit(~/.local/bin/**)`. Round 28: one outside
 * the workspace is also a write there as any other (an `Edit` allow rule, or the mode's writes
 * outside the workspace: it asks in default and acceptEdits); inside it, the project's own place,
 * nothing else is needed, as for the recipes' other writes. With `DESTDIR` given
 * (static, not empty), the files go below it: it is the one written, with any directory not spelled
 * absolute joined to it as make joins them. A value known only at run time is a write not known
 * here (it asks). Which target installs is known only from the makefile, so any target counts.
 *
 * Round 28: the directories are also where a recipe runs programs from or builds from (`check:
 * $(PREFIX)/bin/x --selftest`: GNU Make 4.3 ran /tmp/evil/bin/x for `make PREFIX=/tmp/evil check`;
 * `srcdir` names the sources): one spelled outside the project and the system (variables.ts
 * elsewhere, as the build flags' directories; `DESTDIR` aside) is a read of the code there, which
 * asks outside the workspace whatever the target.
 */
export function installWrites(assigned: readonly Word[], args: readonly Word[], cwd: string | null): CommandPath[] {
  const given = new Map<string, Word>();
  const parsed = getoptLong(args, MAKE_SWITCHES);
  // The command line overrides the environment (GNU make manual, "Overriding Variables").
  for (const word of [...assigned, ...parsed.operands.map((i) => args[i]!)]) {
    const assignment = /^\s*([^\s=:+?!]+)\s*(::?=|:::=|\+=|\?=|=)/.exec(word.value);
    if (assignment === null || !INSTALL_DIRECTORIES.test(assignment[1]!)) continue;
    const value = word.value.slice(assignment[0].length).trim();
    const known = word.isStatic && assignment[2] !== '+=' && !/[$`]/.test(value);
    given.set(assignment[1]!, known ? staticWord(value) : { value: word.value, raw: word.raw, isStatic: false, ansi: false });
  }
  const destdir = given.get('DESTDIR');
  const staged = destdir !== undefined && destdir.isStatic && destdir.value !== '';
  const written: Word[] = [];
  const paths: CommandPath[] = [];
  for (const [name, word] of given) {
    if (word.isStatic && word.value === '') continue;
    if (word.isStatic && name !== 'DESTDIR' && elsewhere(word.value)) pushPath(paths, pathOf(word, 'read', cwd));
    if (!WRITTEN_DIRECTORIES.test(name)) continue;
    if (!staged || name === 'DESTDIR') written.push(word);
    else if (!word.isStatic) written.push(word);
    else if (!word.value.startsWith('/')) written.push(staticWord(destdir.value + word.value));
  }
  for (const word of written) pushPath(paths, pathOf(word, 'write', cwd, INSTALL_PLACE));
  return paths;
}

/**
 * A program whose own words may be code or another command: a shell or interpreter (`perl
 * -esystem+q{rm},q{-rf},q{v}` never says `rm`: GNU Make 4.3 ran it for `$(BUILDER) all`, round 27
 * R27-1), a runner or wrapper, awk, sed, find, make. Its value is decided as the command it is.
 */
const RUNS_OTHER = /^([gmn]?awk|g?sed|find|g?make|perl[\d.]*|python[\d.]*|pypy[\d.]*|ruby[\d.]*|php[\d.]*|lua[\d.]*)$/;
/**
 * A value whose program the analyser models and reads as running code, another command or a write
 * (`git -c alias.x=!rm x -rf v`: GNU Make 4.3 ran the recipe `git -c alias.x=!rm x -rf v all` and
 * git 2.39 the alias `rm -rf v all`; round 28 review R28-3): decided as the command it is, as
 * runsOther's programs are. Other programs keep round 26's reading (their words meet deny rules).
 */
function modelRunsCode(words: readonly string[]): boolean {
  const facts = fileFacts(words[0]!, words.slice(1).map(staticWord), null);
  return facts !== null && (facts.reasons.length > 0 || facts.nested.length > 0 || facts.paths.some((path) => path.access !== 'read'));
}
/**
 * A value whose program the analyser does not model, given options (`gdb -nx -batch -ex !CMD`,
 * `vim -es -c !CMD`, `emacs --batch --eval=…`, `less +!CMD`): an option of such a program may run a
 * command (GNU Make 4.3 ran `id` for `make 'BUILDER=gdb -nx -batch -ex !id'` and `'BUILDER=vim -es
 * -c !id -c q'`, gdb 13, vim 9; round 29), and which ones do is not known here, so it is decided as
 * the command it is (asks unless allowed itself), as runsOther's are. Words without options (`make
 * 'TESTS=a b'`), a value of options alone (`'PYTEST_ARGS=-x -q'`, whose `-` a recipe line's start would
 * strip) and the programs known to run nothing they are given (program.ts startsOthers) stay.
 */
function unmodelledWithOptions(words: readonly string[]): boolean {
  return !words[0]!.startsWith('-') && words.slice(1).some((word) => /^[-+]./.test(word)) && startsOthers(words[0]!);
}
function runsOther(program: string): boolean {
  return runsCode(program) || RUNS_OTHER.test(program) || Object.hasOwn(RUNNERS, program) || Object.hasOwn(WRAPPERS, program);
}

/**
 * The makefiles make reads (`-f` values), [] for the default names, null when `-C` moves it (any
 * file may then be one): for scripts-written.ts.
 */
export function makefilesRead(args: readonly Word[]): string[] | null {
  const parsed = getoptLong(args, MAKE_SWITCHES);
  if (parsed.found.some((f) => f.name === '-C')) return null;
  return values(parsed, '-f').map((w) => w.value);
}
