import { DENY_CANDIDATE, RECURSIVE } from '../../policy/decide.js';
import type { CommandPath } from '../../policy/types.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * The files a jq program reads besides its inputs (round 32 review R32-2; docs/threat-model.md
 * "Round 32: the review of round 31 (command rules)"). jq's `import "NAME" as $x;` loads NAME.json as
 * data and prints it with `$x`, `include "NAME";` loads NAME.jq as code, each from the directories of
 * the search path: `-L DIR` (`-LDIR`, `--library-path DIR`) and the directive's own metadata
 * (`import "config" as $c {search: "~/.docker"}; $c` printed ~/.docker/config.json with jq 1.6, and
 * through kislyuk's yq, which hands its filter and options to jq). mikefarah's yq reads any file an
 * expression names: `load("F")`, `load_str("F")`, `load_xml`, `load_props`, `load_base64`. Each
 * directory is a recursive read (its JSON is printed), each file a read, so `Read(~/.docker/**)`
 * denies them and outside the workspace they ask in default. A name not written plainly (an escape,
 * `$ORIGIN/`, a `..`, an absolute module name, an expression known only at run time) is a place known
 * only at run time: it asks.
 */

/** A read of a place this analysis cannot name. */
const unknownPlace = (what: string): Word => ({ value: `<${what}>`, raw: `<${what}>`, isStatic: false, ansi: false });

/** jq's string literals in a program text, decoded when they hold no escape (null for one that does). */
function literals(text: string): (string | null)[] {
  const out: (string | null)[] = [];
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"/gs)) out.push(match[1]!.includes('\\') ? null : match[1]!);
  return out;
}

/** A module directive (`import`, `include`) anywhere in the text: imports stand at a program's start, but a module's own are read the same. */
const DIRECTIVE = /(?:^|[;\s)])(?:import|include)\s*"/;

/** What a jq program's module directives read: every directory its literals may name (search paths, module names). */
export function jqFilterReads(filter: Word, cwd: string | null, paths: CommandPath[]): void {
  if (!filter.isStatic) {
    // A directive can only open the program: text known only at run time there may be one.
    const lead = filter.raw.replace(/^["']/, '').replace(/^\s*(#[^\n]*\n\s*)*/, '');
    if (/^(\$|`|import|include|module)/.test(lead) || DIRECTIVE.test(filter.raw)) tree(paths, unknownPlace('the modules a jq program known only at run time imports'), cwd);
    return;
  }
  if (!DIRECTIVE.test(filter.value)) return;
  for (const text of literals(filter.value)) {
    // `$ORIGIN/` is jq's own directory; `..` and an absolute name leave the search path's directory.
    if (text === null || text.startsWith('$ORIGIN') || /(^|\/)\.\.(\/|$)/.test(text)) tree(paths, unknownPlace('a jq module or search path not written plainly'), cwd);
    else {
      tree(paths, staticWord(text === '' ? '.' : text), cwd);
      // Round 33 (rules33): a directive's search path is put before the default one, which is still
      // searched (jq 1.6 manual, "Modules"): `~/.jq` (a directory of modules; a file of that name
      // is loaded into every program), `$ORIGIN/../lib/jq`, `$ORIGIN/../lib` (jq's own installation,
      // the system's). `~/.jq/NAME.json` is the user's, for deny rules: `Read(~/.jq/**)` denies
      // `jq -n 'import "config" as $c; $c'` (round 32 read the working directory only).
      for (const path of [`~/.jq/${text}.json`, `~/.jq/${text}.jq`, `~/.jq/${text}`]) candidate(paths, path, cwd);
    }
  }
  candidate(paths, '~/.jq', cwd);
}

/**
 * A jq word known only at run time before `--` may be `-L DIR` (jq 1.6 reads its options anywhere
 * on the line, after the filter and `--args` too): with a filter that may import, a library path
 * known only at run time (round 33, rules33: round 32's leftover).
 */
export function jqUnknownLibrary(args: readonly Word[], filter: Word | undefined, cwd: string | null, paths: CommandPath[]): void {
  if (filter !== undefined && filter.isStatic && !DIRECTIVE.test(filter.value)) return;
  const end = args.findIndex((word) => word.isStatic && word.value === '--');
  if ((end === -1 ? args : args.slice(0, end)).some((word) => !word.isStatic && word !== filter)) tree(paths, unknownPlace('a jq library path known only at run time'), cwd);
}

/** The modules a program read from a file (`jq -f F`) imports: its directives are not read here. */
export function jqProgramFileModules(cwd: string | null): CommandPath[] {
  const paths: CommandPath[] = [];
  tree(paths, unknownPlace('the modules a jq program file imports'), cwd);
  return paths;
}

/** A read for deny rules only (candidates.ts): it never asks or allows by itself. */
function candidate(paths: CommandPath[], path: string, cwd: string | null): void {
  if (!paths.some((known) => known.path === path)) paths.push({ path, access: 'read', base: cwd, isStatic: true, via: DENY_CANDIDATE });
}

/** `-L DIR`, `-LDIR`, `--library-path DIR` (and `=DIR`) of jq, or of a yq handing them to jq. */
export function jqLibraryDirs(args: readonly Word[], cwd: string | null, paths: CommandPath[]): void {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) continue;
    const v = word.value;
    if (v === '-L' || v === '--library-path') {
      if (args[i + 1]) tree(paths, args[++i]!, cwd);
    } else if (/^-L./.test(v)) tree(paths, { ...word, value: v.slice(2), raw: v.slice(2) }, cwd);
    else if (v.startsWith('--library-path=')) tree(paths, { ...word, value: v.slice(15), raw: v.slice(15) }, cwd);
  }
}

/**
 * yq, either of them: kislyuk's is jq's filter and options; mikefarah's expression reads the files
 * its `load…("F")` names (`eval` builds an expression: its loads are not seen). The expression is the
 * first operand after mikefarah's command word (`eval`, `e`, `eval-all`, `ea`).
 */
export function yqReads(args: readonly Word[], cwd: string | null, paths: CommandPath[]): void {
  jqLibraryDirs(args, cwd, paths);
  const expression = args.find((word) => !(word.isStatic && (word.value.startsWith('-') || /^(eval|e|eval-all|ea)$/.test(word.value))));
  for (const word of args) {
    if (word.isStatic) {
      jqFilterReads(word, cwd, paths);
      loads(word.value, cwd, paths);
    } else if (word === expression) tree(paths, unknownPlace('the files a yq expression known only at run time loads'), cwd);
  }
}

/** mikefarah yq's `load("F")` family: a plain literal is a read of F, anything else (and `eval`) a place known only at run time. */
function loads(text: string, cwd: string | null, paths: CommandPath[]): void {
  if (!/\b(load\w*|eval)\s*\(/.test(text)) return;
  for (const match of text.matchAll(/\b(load\w*|eval)\s*\(\s*("([^"\\]*)"|'([^'\\]*)')?/g)) {
    const file = match[1] !== 'eval' ? (match[3] ?? match[4]) : undefined;
    if (file === undefined) tree(paths, unknownPlace('the files a yq expression loads'), cwd);
    else pushPath(paths, pathOf(staticWord(file), 'read', cwd));
  }
}

function tree(paths: CommandPath[], word: Word, cwd: string | null): void {
  const path = pathOf(word, 'read', cwd, RECURSIVE);
  if (path) path.tree = { content: true, follows: true };
  pushPath(paths, path);
}
