import { RULE_CANDIDATE } from '../../policy/decide.js';
import type { CommandPath, Segment } from '../../policy/types.js';
import { gitEnvironmentTree, type FileFacts, type Nested } from './files.js';
import { baseName, display, pathOf, pushPath, staticWord, type Word } from './options.js';
import { COMMAND_ALIASES, managerAlias } from '../../programs.js';
import { pnpmCommandAt } from './runners.js';
import { describeProgram, innerCommand, startsOthers, type Built, type SegmentInput } from './program.js';
import { buildWrites, commandVariables, fileVariables, gitLocations, gitWrites, isGit, isOptionEnvironment, loadsCode, movesConfig, passesEnvironment } from './variables.js';
import { makeEnvironment } from './make.js';
import { isWrapper, stripWrappers } from './wrappers.js';
import { npmCommand } from './npm-commands.js';
import { cargoCommand, cargoCommandAt, npmCommandAt } from './package-managers.js';

export type { Built } from './program.js';

/**
 * From the words of one simple command to a Segment: leading assignments, wrappers (wrappers.ts),
 * the program and what it does (program.ts). The parser is not used here, so argv given without a
 * shell goes through the same rules.
 *
 *   env -i FOO=1 nice -n 5 bash -c 'rm -rf "$x"'
 *     → assignments FOO=1; wrappers `env -i`, `nice -n 5`; program bash; reasons interpreter;
 *       nested script `rm -rf "$x"`
 */

/**
 * The program a command runs under another name, as the analysis reads it (rules still meet the
 * words as written; policy/command-match.ts tries both): git's dashed form
 * (`/usr/lib/git-core/git-reset --hard` is `git reset --hard`, git(1)) and a package manager's
 * other names (programs.ts managerAlias). A corepack version that is not a plain one (a URL, a
 * path) is code fetched to run.
 */
function analysedAs(name: string, args: Word[], reasons: string[]): { name: string; args: Word[] } {
  if (name.startsWith('git-') && /^git-[a-z]/.test(name)) return { name: 'git', args: [staticWord(name.slice(4)), ...args] };
  const alias = managerAlias(name, args.slice(0, 1).map((word) => (word.isStatic ? word.value : '\u0000')));
  if (alias === null) return { name, args };
  if (alias.version !== undefined && !/^[\w.+^~<>=*-]+$/.test(alias.version)) reasons.push('executor');
  return { name: alias.name, args: args.slice(alias.skip) };
}

/** Builds one Segment; the caller parses nested scripts and builds nested argv the same way. */
export function buildSegment(input: SegmentInput): Built {
  const { words, context } = input;
  const reasons: string[] = [];
  const nested: Nested[] = [];
  const paths: CommandPath[] = [];
  const stripped = stripWrappers(words, input.cwd, { paths, reasons, nested }, input.shell);
  const { wrappers, cwd } = stripped;
  const assigned = stripped.assignments.length === 0 ? input.assignments : [...input.assignments, ...stripped.assignments];
  // What assignments do (most segments have none: each reading below finds nothing in no words).
  if (assigned.length > 0) {
    if (assigned.some((word) => word.isStatic && /\$\(|`/.test(word.value))) reasons.push('stored-substitution');
    // Once for all of them: `GIT_CONFIG_VALUE_<n>` is read with the `GIT_CONFIG_KEY_<n>` beside it.
    commandVariables(assigned, cwd, reasons, nested);
    if (assigned.some((word) => isOptionEnvironment(word) || loadsCode(word))) reasons.push('environment');
    paths.push(...gitLocations(assigned, cwd), ...gitWrites(assigned, cwd), ...fileVariables(assigned, cwd));
  }
  const assignments = assigned.map(display);

  const programWord = words[stripped.program];
  const args = words.slice(stripped.program + 1);
  const nameable = programWord !== undefined && programWord.isStatic && !programWord.ansi;
  const program = nameable ? programWord.value : null;
  const name = program === null ? null : baseName(program);
  if (programWord !== undefined && !nameable) reasons.push('dynamic-name');
  // A program named by path (`./x.sh`, `/tmp/evil/bin/git`, `~/bin/tool`) is a read of that file's
  // code, as a shell's script is (`sh /tmp/x.sh`): deny and ask rules on it meet the command (round
  // 31 review R31-3); nothing else changes (the command is not the program a rule names by its
  // name, so no allow rule met it before). A bare name is found on PATH (`PATH=D`: variables.ts).
  if (program !== null && program.includes('/')) pushPath(paths, pathOf(programWord!, 'read', cwd, RULE_CANDIDATE));
  if (name !== null && movesConfig(name, assigned, startsOthers)) reasons.push('interpreter');
  // Before make or a package manager too (their recipes and scripts run cargo: `CARGO_TARGET_DIR=D
  // make` wrote D/debug, cargo 1.95; round 27), and set in this shell for what follows (`…; export
  // CARGO_TARGET_DIR; cargo build`).
  if (assigned.length > 0 && (name === null || passesEnvironment(name, startsOthers))) paths.push(...buildWrites(assigned, cwd));

  // `$'\x72m'` stays a dynamic name, but its decoded spelling is in `words` for deny rules. The
  // assignments come first (also those given to a wrapper, which are in `words` too): rules match after them.
  const allWords = assignments.slice();
  for (const word of words) allWords.push(display(word));
  const isStatic = words.every((w) => w.isStatic) && input.assignments.every((w) => w.isStatic);
  const segment: Segment = {
    words: allWords,
    assignments,
    wrappers,
    program,
    name,
    args: allWords.slice(allWords.length - args.length),
    isStatic: isStatic && (programWord === undefined || nameable),
    context,
    cwd,
    paths,
  };
  const built: Built = { segment, nested, reasons, stdout: null };
  if (name === null) return built;
  const analysed = analysedAs(name, args, reasons);
  // After analysedAs: `corepack npm exe …` is npm's exec too (round 25 review R6).
  if (COMMAND_WORDS.has(analysed.name)) commandWord(analysed.name, analysed, segment, args.length - analysed.args.length);
  // make takes its environment as variables too (those the makefile leaves unset or sets with `?=`):
  // read as its command line's (make.ts recipeProgram); the installation directories of both are written (installWrites).
  if (analysed.name === 'make' || analysed.name === 'gmake') makeEnvironmentOf(assigned, analysed.args, cwd, built, undefined);
  // Round 29 (R28-10): a program that passes its environment on may run make with it (`npm run
  // build` whose script is `make all`, a hook, a script): each assignment is read as make reads it,
  // with none of make's own words (docs/rules.md "Round 29").
  else if (assigned.length > 0 && passesEnvironment(analysed.name, startsOthers)) makeEnvironmentOf(assigned, [], cwd, built, { toGit: isGit(analysed.name) });
  if (!stripped.xargs) {
    describeRun(analysed.name, analysed.args, input, built);
    if (analysed.name === 'git') gitEnvironmentTree(assigned, segment.paths, cwd);
    return built;
  }
  // `… | xargs rm -r`: the files come from stdin, so the program is described with them as words
  // known only at run time. A write of one is unknown and asks (as `rm -r "$f"` does); a read of
  // one is left out, as before (docs/threat-model.md#recursive-reads).
  const { replace } = stripped.xargs;
  // The input is any number of words, options among them (xargs(1) splits it at blanks), not one
  // operand: `echo rm -rf src | xargs nice` runs rm, `xargs find` gets `-delete`, `xargs sort` `-o F`
  // (round 14 review T8). A wrapper here has no command of its own, so the input names the program;
  // another program asks unless none of its options writes or runs anything.
  const optionsFromInput = replace === null || replace === undefined || args.some((word) => word.value.startsWith(replace));
  if (optionsFromInput && isWrapper(analysed.name)) reasons.push('dynamic-name');
  else if (optionsFromInput && !XARGS_ANY_WORDS.has(analysed.name)) reasons.push('xargs-input');
  const stdin = new Set<string>();
  const unknown = (word: Word): Word => {
    if (word.isStatic) stdin.add(word.raw);
    return { ...word, isStatic: false };
  };
  const given = replace === null ? [...analysed.args, unknown(staticWord(XARGS_INPUT))] : analysed.args.map((word) => (replace === undefined || word.value.includes(replace) ? unknown(word) : word));
  const before = new Set(paths);
  describeRun(analysed.name, given, input, built);
  segment.paths = paths.filter((path) => before.has(path) || path.access === 'write' || path.isStatic || !stdin.has(path.path));
  // A program the analyser does not know (it then has `alternatives`) may write what xargs gives it
  // (`… | xargs gzip` replaced data/secret by secret.gz under bash 5.2): a write known only at run time.
  const written = segment.alternatives !== undefined ? pathOf({ ...staticWord(XARGS_INPUT), isStatic: false }, 'write', cwd) : null;
  if (written) segment.paths.push(written);
  if (analysed.name === 'git') gitEnvironmentTree(assigned, segment.paths, cwd);
  return built;
}

/** Assignments before make, as make reads them (make.ts makeEnvironment). */
function makeEnvironmentOf(assigned: readonly Word[], args: readonly Word[], cwd: string | null, built: Built, later: { toGit: boolean } | undefined): void {
  const facts: FileFacts = { paths: [], nested: [], reasons: [] };
  makeEnvironment(assigned, args, cwd, facts, later);
  built.reasons.push(...facts.reasons);
  built.nested.push(...facts.nested);
  for (const path of facts.paths) built.segment.paths.push(path);
  if (facts.alternatives) built.segment.alternatives = [...(built.segment.alternatives ?? []), ...facts.alternatives];
}

/**
 * The program, then the command a runner runs with it (`uv run CMD`, `bun run NAME ARGS`, pnpm's
 * fallback: program.ts innerCommand), read as the same words would be at top level: its wrappers
 * stripped (`bun run env rm -rf victim` is rm), its command word read (`bun run npm exe -- rm` is
 * npm's exec, `bun run pnpm t` pnpm's test), its own runner's command in turn (round 26 review S12).
 * Its paths, code and reasons are the segment's; its segment is kept in `runs` for deny and ask
 * rules (policy/command-match.ts wideCandidates).
 */
function describeRun(name: string, args: readonly Word[], input: SegmentInput, built: Built): void {
  describeProgram(name, args, input, built);
  const inner = innerCommand(name, args);
  if (inner === 'unknown') built.reasons.push('interpreter');
  else if (inner?.fetches) built.reasons.push('executor');
  // Every name, `command` and `builtin` too: a runner's command is a program, never this shell's
  // builtin (Fedora's and macOS's /usr/bin/command run their words; round 27 review R27-15).
  if (inner === null || inner === 'unknown') return;
  const { segment } = built;
  const ran = buildSegment({ ...input, assignments: [], words: [staticWord(inner.name), ...inner.args], cwd: inner.moved ? null : segment.cwd });
  built.reasons.push(...ran.reasons);
  built.nested.push(...ran.nested);
  for (const path of ran.segment.paths) if (!segment.paths.includes(path)) segment.paths.push(path);
  if (ran.segment.alternatives) segment.alternatives = [...(segment.alternatives ?? []), ...ran.segment.alternatives];
  segment.runs = [...(segment.runs ?? []), ran.segment];
}

/** The programs whose command word commandWord reads. */
const COMMAND_WORDS: ReadonlySet<string> = new Set(['npm', 'cargo', 'pnpm', 'bun']);

/**
 * A CLI's command word as the CLI reads it (npm-commands.ts: `npm exe` is exec, `rum` run, `pub`
 * publish; cargo's built-in aliases: `cargo r` is run; pnpm's and bun's aliases, programs.ts
 * COMMAND_ALIASES: `pnpm t` is test, `pnpm m run x` is `pnpm -r run x`, `bun i` is install), in what
 * the program is described with and in the segment's args, which the rules meet; the words shown
 * to the person stay as written (round 21 review, B4; round 25 review R6, R13). `skip`: the words
 * of the other name before the program's own (`corepack npm …`: 1).
 */
function commandWord(name: string, analysed: { name: string; args: Word[] }, segment: Segment, skip: number): void {
  // pnpm's `recursive` becomes `-r`, and the word after it is read again (one round is enough: `m m` is no command).
  for (let round = 0; round < 2; round++) {
    const at = commandAt(name, analysed.args);
    if (at < 0) return;
    const word = analysed.args[at]!;
    const command = commandName(name, word.value);
    if (command === null || command === word.value) return;
    analysed.args = analysed.args.map((given, i) => (i === at ? { ...given, value: command } : given));
    segment.args = segment.args.map((given, i) => (i === at + skip ? command : given));
    if (command !== '-r') return;
  }
}

function commandAt(name: string, args: readonly Word[]): number {
  if (name === 'npm') return npmCommandAt(args);
  if (name === 'cargo') return cargoCommandAt(args);
  if (name === 'pnpm') return pnpmCommandAt(args);
  // bun's command is the first word not starting with `-` (cli.zig Command.which).
  const first = args.findIndex((word) => !word.isStatic || !word.value.startsWith('-'));
  return first >= 0 && args[first]!.isStatic ? first : -1;
}

function commandName(name: string, word: string): string | null {
  if (name === 'npm') return npmCommand(word);
  if (name === 'cargo') return cargoCommand(word);
  const aliases = COMMAND_ALIASES[name]!;
  return Object.hasOwn(aliases, word) ? aliases[word]! : word;
}

/**
 * Programs none of whose options writes a file or runs a program (GNU coreutils, grep, diffutils
 * manuals), so the words xargs gives them can only make them read, which is not modelled for xargs
 * (docs/threat-model.md#recursive-reads). Not here, for example: sort (-o), uniq (OUT), file (-C),
 * rg (--pre), find (-delete, -exec), tee, and every wrapper.
 */
const XARGS_ANY_WORDS = new Set(['cat', 'grep', 'egrep', 'fgrep', 'wc', 'head', 'tail', 'ls', 'echo', 'printf', 'basename', 'dirname', 'stat', 'du', 'md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'readlink', 'realpath', 'nl', 'od', 'cut', 'paste', 'tac', 'rev', 'cmp', 'diff', 'comm']);

/** How the input xargs appends to a command's words is shown in a path. */
const XARGS_INPUT = '<xargs input>';
