import type { Parser } from 'web-tree-sitter';
import type { CommandInfo, CommandPath, Redirection, RedirectionKind, Segment, SegmentContext, SubstitutionKind } from '../../policy/types.js';
import { buildSegment, type Built } from './argv.js';
import { startsOthers } from './program.js';
import { dashOnlyWord, dashReadsOtherwise, dashReadsPlainOtherwise, SH_DIALECT, shDialectReason, type Dialect } from './dialect.js';
import { foundPaths, type FileFacts, type Nested } from './files.js';
import { makeEnvironment } from './make.js';
import { readingsWithValues } from './known-values.js';
import { bodyWithArguments } from './positional.js';
import { blankCompoundKeywords, expandForDenyRules, HEREDOC_EXPANSION, HEREDOC_SUBSTITUTION, hasSubstitutionText, heredocAsString, isQuotedDelimiter, joinContinuations, moveHeredocRest } from './guards.js';
import { staticWord, type Word } from './options.js';
import { changesLaterCommands, ENVIRONMENT, inRecipe, isGit, isOptionEnvironment, namesShellVariable, passesEnvironment } from './variables.js';
import { readPlain, readTree } from './parser.js';
import { asBashReads } from './precedence.js';
import type { SyntaxNode, SyntaxTree } from './syntax.js';
import { decodeAnsiC, readAssignment, readWord } from './words.js';

/**
 * The shell analyser (docs/design.md#what-the-gateway-works-out-for-each-call): a command string → every simple command the shell would
 * run, at any depth, with its argv, program, wrappers, paths, redirections and substitutions.
 * tree-sitter-bash through web-tree-sitter does the parsing, plus guards where the grammar and
 * bash disagree (details in guards.ts):
 *
 *   (a) `\<newline>` outside '…', $'…', comments and quoted heredocs is removed and the text parsed
 *       again: the grammar splits `r\⏎m` into two words where bash runs `rm`.
 *   (b) unquoted heredoc bodies are scanned for `$(` and backticks, which the grammar drops after
 *       leading whitespace and never parses inside backticks, and re-parsed as a "…" string.
 *   (c) any unescaped `$(` or backtick outside quotes that produced no substitution (the grammar
 *       reads `${x:-`id`}` as text) still makes the command unanalyzable.
 *   (d) `time` and `coproc` before a compound command (`time { rm x; }`), and `!` before one the
 *       grammar cannot read after it (`! { …; }`, `! (( x ))`), are blanked and the text parsed
 *       again: the grammar reads them as plain commands taking `{`, `rm`, `x` as arguments.
 *   (e) a heredoc line ending in `&&`, `||` or `|` gets the command line after the bodies moved up
 *       to it (`cat <<E &&⏎b⏎E⏎echo ok` → `cat <<E && echo ok⏎b⏎E⏎`): the grammar reads `b` as the command.
 * Every tree is first put in bash's precedence (precedence.ts: `cd x && a 2>&1 | b` is
 * `cd x && (a 2>&1 | b)`, not the grammar's `(cd x && a 2>&1) | b`) with the words the grammar
 * drops put back (dropped-words.ts); a list the rebuild left inside a pipeline stage gets an
 * unknown cwd. Other quirks: `a && b > f` redirects b only; `ls;;` is an error; `&&` chains are
 * walked iteratively.
 *
 *   cd src && FOO=1 timeout 5 npm run test -- --run > log.txt
 *     → segments: `cd src` (read src), `npm run test -- --run` (assignments FOO=1, wrappers
 *       `timeout 5`, cwd <cwd>/src, write log.txt); signature `npm run test`
 *
 * Working directories follow `cd` only where the shell certainly took it: after `cd X &&`, or
 * after `cd X;` with `set -e`. After `cd X;` alone (cd may have failed) the statements after it are
 * walked twice, in X and in the directory before (round 32; MAX_CWD_FORKS). In a loop that changes
 * directory, and in function bodies and traps, the cwd is unknown (null). Subshells, pipeline
 * stages, `&` and substitutions do not change the caller's cwd.
 *
 * A redirection on a compound statement (`{ a; b; } > f`, `for …; done > f`) has `segment: null`;
 * its path is added to every segment inside the statement (except substitutions), or to a segment
 * without a program when the statement has none.
 */

/** `sh -c "sh -c '…'"`: payloads nested deeper than this are not parsed. */
const MAX_NESTING = 5;
/** Syntax nesting deeper than this is not walked (the walk is recursive). */
const MAX_DEPTH = 400;
/** Parses with keywords blanked (guard d) per text, each may uncover a keyword the grammar misread inside; and of heredoc lines moved (guard e). */
const MAX_BLANK_ROUNDS = 8;
/** The reason given when the parse budget ran out (analysis-cache.ts keeps no such analysis). */
export const PARSE_TIMEOUT = 'parse-timeout';
/** Readings with known variable values walked per command (each is a parse): enough for chains like `y=rm; x=$y; $x`. */
const MAX_VALUE_READINGS = 16;
/** Calls of a function the text defines read with their arguments (positional.ts) per command; past it, 'too-deep'. */
const MAX_CALL_READINGS = 32;
/**
 * `cd X;` without `set -e` sends the rest to X or, when cd failed, to where the shell was: the rest
 * is walked in both this many times per text (each walks it again); past it the directory is unknown.
 */
const MAX_CWD_FORKS = 8;
/** Definitions kept per function name (each is read at every call); past it, 'too-deep'. */
const MAX_DEFINITIONS = 8;

/** Walks one command string into `info` (parse, guards, every statement at any depth). Throws only on an internal failure. */
export function walkCommand(parser: Parser, info: CommandInfo, timeoutMs: number, text: string, cwd: string | null, shell: Dialect = 'bash'): void {
  new Analysis(parser, info, timeoutMs, shell).run(text, cwd);
}

export function addReason(info: CommandInfo, reason: string): void {
  if (!info.unanalyzable.includes(reason)) info.unanalyzable.push(reason);
}

// ---------------------------------------------------------------------------------------------
// The walk
// ---------------------------------------------------------------------------------------------

type Cwd = string | null;
/** A call with static words of a function the text defines. */
interface Call {
  name: string;
  args: string[];
  cwd: Cwd;
}
/** The working directory after a statement, when it succeeds and when it fails. */
interface Flow {
  ok: Cwd;
  fail: Cwd;
  /**
   * A failure of the statement may be one `set -e` ignores, after which the shell goes on (bash
   * manual, "The Set Builtin": a command of a `&&`/`||` list but the last, or one inverted by `!`).
   */
  quiet?: boolean;
  /**
   * The statement never completes: `exit` (with `command`, `builtin`, `time` before it), or a group
   * of simple commands reaching one, ends the shell, or the subshell it runs in (bash manual, "Bourne
   * Shell Builtins"; dash and bash alike). Round 33 (rules33): after `cd X || exit` the rest runs
   * only in X. ok and fail stay the cwd for readers that do not look at it.
   */
  ends?: boolean;
  /** `break`, `continue`, `return`: control leaves the group here, so an `exit` after it may not run. */
  leaves?: boolean;
}
const same = (cwd: Cwd): Flow => ({ ok: cwd, fail: cwd });
/** A simple command, redirected or not: its flow is finish()'s, so its `ends` and `leaves` are its own. */
const isSimple = (node: SyntaxNode): boolean => node.type === 'command' || (node.type === 'redirected_statement' && node.children.some((child) => child.type === 'command'));
const merge = (a: Cwd, b: Cwd): Cwd => (a === b ? a : null);

/** Anonymous tokens between statements. */
const TOKENS = new Set(['<<<', ';', '&', ';;', ';&', ';;&', '\n', '(', ')', '{', '}', 'do', 'done', 'then', 'fi', 'if', 'elif', 'else', 'while', 'until', 'for', 'select', 'in', 'case', 'esac', 'function', '!', '&&', '||', '|', '|&', '((', '))', '[[', ']]', '[', ']', '$(', '`', '<(', '>(', '$((', '=', '+=', '"', '$', '${', '}']);
/** Named nodes with nothing inside worth visiting. */
const LEAVES = new Set(['word', 'number', 'raw_string', 'ansi_c_string', 'variable_name', 'string_content', 'comment', 'file_descriptor', 'heredoc_start', 'heredoc_end', 'heredoc_content', 'test_operator', 'special_variable_name', 'regex', 'extglob_pattern']);
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
/** Children of a heredoc redirection that are not words of its command. */
const HEREDOC_PARTS = new Set(['file_descriptor', 'heredoc_start', 'heredoc_body', 'heredoc_end', 'file_redirect', 'herestring_redirect', 'comment', 'ERROR']);
/** ${x@P} and the other transformations Roo Code and Gemini CLI treat as code. */
const PROMPT_OPS = new Set(['P', 'E', 'A', 'K', 'a', 'k']);
const NULL_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);
/** Text that runs a command when bash expands it: `$(`, a backtick, `${ cmd; }` and `${| cmd; }` (bash 5.3). */
const SUBSTITUTION_TEXT = /\$\(|`|\$\{[\s|]/;
/** Quoted or escaped text that could hold SUBSTITUTION_TEXT as data. */
const QUOTED_CODE_HINT = /'[^']*(\$\(|`|\$\{[\s|])|\\[$`]|\$'|"[^"]*\\[$`]/;
const QUOTED_LEAVES = new Set(['raw_string', 'ansi_c_string', 'string_content', 'word']);
/** `$(( … ))` of decimal numbers, operators, parentheses and blanks: no names, no expansions, no base letters. */
const CONSTANT_ARITHMETIC = /^\$\(\([\d\s+\-*/%<>=!&|^~?:(),]*\)\)$/;
/** Builtins that evaluate an argument as arithmetic or as a variable name with a subscript. */
const EVALUATING_COMMANDS = new Set(['let', 'declare', 'typeset', 'local', 'export', 'readonly', 'printf', 'read', 'mapfile', 'readarray', 'unset', 'test', '[', 'getopts', 'wait', 'exec']);
/** Builtins that put the content of files or of stdin into variables. */
const READING_COMMANDS = new Set(['read', 'mapfile', 'readarray']);
/**
 * Values the shell sets from directory names, which the call chooses (its `workdir`, a `cd`
 * through a link, a directory another tool made): `PWD`, `OLDPWD`, `DIRSTACK`, by `$`-reference
 * or by name (an arithmetic context evaluates a bare name's value), and the tilde forms `~+`,
 * `~-`, `~N` (bash manual, "Tilde Expansion"). `[[ ${PWD##*[/]} -eq 0 ]]` (any `${PWD##…}`) in a directory named
 * `b[$(rm -f x)]` ran the rm (round 12 review, X1; docs/threat-model.md#where-bash-evaluates-text).
 */
const DIRECTORY_NAMES = /(?<![A-Za-z0-9_])(?:PWD|OLDPWD|DIRSTACK)(?![A-Za-z0-9_])|~[+-]|~\d/;
/**
 * Text that turns into a `$` or a backtick only at run time, where no reading of the text sees it
 * (printf -v y 'a[\x24(cmd)]'; (( y ))): printf, `echo -e` and `$'…'` escapes for them (`\x24`,
 * `\044`, `%b`'s `\0044`, `\u0024`, `\x60`, `\140`), `%q` and `${x@Q}` (they write `$'…'`), and
 * the variables holding the command's own text.
 */
const DOLLAR_PRODUCERS = /\\(?:x0?(?:24|60)|0{0,2}(?:44|140)|u0{0,3}(?:24|60)|U0{0,7}(?:24|60))|%[-+ #0'.*\d]*[qQ]|@[A-Za-z]\}|\bBASH_(?:EXECUTION_STRING|COMMAND)\b/i;
/** A `$` that may be data: escaped, after an opening `'`, or not starting an expansion (a cheap over-reading, to skip the scan). */
const DOLLAR_HINT = /\\\$|'[^']*\$|\$(?![A-Za-z_0-9{(\[@*#?!-])/;
/** Builtins that keep their arguments in variables (`declare x='$'`, `read`, `printf -v`, `set --`, `getopts`). */
const STORING_COMMANDS = new Set(['declare', 'typeset', 'local', 'export', 'readonly', 'read', 'printf', 'mapfile', 'readarray', 'set', 'getopts', 'let', 'alias', 'eval', 'source', '.', 'trap', 'wait']);
/**
 * An assignment in an evaluating context whose name is built at run time: an expansion (or a
 * substitution) before an assignment operator, or `++`/`--` next to one: `(( $n = 0 ))`,
 * `let "${n}TH=0"`; and printf escapes, which can spell any name (`printf -v x '\x50ATH=0'`).
 */
const RUNTIME_NAME = /(\$[A-Za-z_0-9{(]|`)[^=;&|\n]*?(([-+*\/%&^|]|<<|>>)=|[^!<>=]=)(?!=)|(\+\+|--)\s*\$|\\(x[0-9a-fA-F]|[0-7]|u[0-9a-fA-F]|U[0-9a-fA-F])/;
/** The variable `_` (the last argument of the previous command) used anywhere. */
const USES_LAST_ARGUMENT = /(^|[^A-Za-z0-9_])_($|[^A-Za-z0-9_])/;
/** Test operators that evaluate an operand: arithmetic comparisons (inside `[[`), and `-v`/`-R` (a name with a subscript). */
const EVALUATING_TEST_OPERATORS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-v', '-R']);

class Analysis {
  private src = '';
  private nesting = 0;
  private depth = 0;
  private forced: SegmentContext | null = null;
  private errexit = false;
  /**
   * How many enclosing constructs may skip what runs here: a branch, a loop body, a function body,
   * an operand of `&&`/`||` after the first, a background job. A `set -e` there is not taken as on.
   */
  private maybe = 0;
  /** What the last command printed, when static (for `echo … | sh`). */
  private stdout: string | null = null;
  /** Redirections the grammar put on a list or pipeline, by the id of the node they belong to. */
  private tails = new Map<SyntaxNode, SyntaxNode[]>();
  /** Offsets of compound commands run by a blanked `coproc` (guard d): a background subshell. */
  private background = new Set<number>();
  /** Offsets of pipelines inverted by a blanked `!` (guard d). */
  private negations = new Set<number>();
  /**
   * Bash's hidden evaluation: a string used as a number or a variable name has its array
   * subscripts expanded, command substitutions included, even when it was quoted as data
   * (`[[ 'a[$(rm x)]' -eq 0 ]]`). `arithmetic`: such a context was seen; `quotedCode`: static
   * text holding a substitution; `tainted`: values from files or file names (`read`, globs).
   */
  private arithmetic = false;
  private quotedCode: string[] = [];
  private tainted = false;
  private scanQuoted = false;
  /**
   * A `$` or backtick that is data (`'$'`, `\$`, `"a$"`): pieces like these can be joined,
   * replaced or cut (`${y/\$a/\$}`, `${z:0:1}`) into a substitution at run time, which an
   * arithmetic context then runs. `scanDollar`: the text may hold one (DOLLAR_HINT).
   */
  private dollarData = false;
  private scanDollar = false;
  /**
   * A variable set in this shell whose value is shell syntax in a make recipe (`export CFLAGS=';CMD;'`),
   * and a program met that may run make with it (make, a script, a package manager): together
   * `interpreter`, in either order (a loop runs them again). Round 25 review R1; variables.ts inRecipe.
   */
  private recipeValue = false;
  private passesEnvironment = false;
  /** The same for a program other than git: a `GIT_*` value with shell syntax counts only there (variables.ts inRecipe). */
  private recipeValueBeyondGit = false;
  private passesBeyondGit = false;
  /**
   * Round 27: what this shell exports, for the make a later (or, in a loop, earlier) segment runs,
   * which takes its environment as variables (make.ts makeEnvironment: `export BUILDER=./x; make`
   * ran ./x for `$(BUILDER) all`, GNU Make 4.3). `exported`: `export NAME=value`, `declare -x …`;
   * `assigned`: plain `NAME=value`, exported once `exportedNames` names it (`X=…; export X`) or
   * `set -a` is on anywhere in the text (either order: a loop runs them again).
   */
  private shellExports: { exported: Word[]; assigned: Word[]; exportedNames: Set<string>; allexport: boolean } = { exported: [], assigned: [], exportedNames: new Set(), allexport: false };
  private makes: { segment: Segment; args: Word[]; cwd: string | null; fed: Set<Word>; later?: { toGit: boolean } }[] = [];
  /** An arithmetic context that evaluates values (`(( y ))`, `printf -v`, not `printf x` or `[ -f x ]`). */
  private evaluates = false;
  /**
   * The static words' values, for `evaluates`: one naming a variable that changes what later
   * commands run (`namesShellVariable`) is looked for only in a text that evaluates values, at its
   * end (docs/performance.md, "Round 14: decision time").
   */
  private staticValues: string[] = [];
  /** Functions the text defines, by name: the text of each definition's body (and its redirections). */
  private functions = new Map<string, string[]>();
  /** Calls with static words of a function the text defines, met in the text being walked (read at its end). */
  private calls: Call[] = [];
  /** Calls already read with their arguments (by name, body, arguments and cwd). */
  private called = new Set<string>();
  /** A call, a definition or a nesting past its limit was not read with its arguments: 'too-deep'. */
  private callsCut = false;
  /** The text may define a function (`f()`, `function f`): commands are kept as possible calls. */
  private definesFunctions = false;
  /** Readings with known variable values walked so far (known-values.ts). */
  private readings = 0;
  /** The last parse held a shape the grammar misreads (precedence.ts): a parse error. */
  private misread = false;
  /**
   * Above 0 while walking where `set -e` is ignored (bash manual, "The Set Builtin"): a condition
   * of `if`, `while` or `until`, a `&&`/`||` operand but the last, a command inverted by `!`, and
   * everything they run (groups, subshells).
   */
  private ignoring = 0;
  /** Statements after a `cd` that may have failed walked in both directories so far (bothDirectories). */
  private forks = 0;

  /**
   * One parse budget for the whole text: every parse (guards a, d and e, heredoc bodies, payloads,
   * readings) ends by this time. Per parse, guard (d)'s rounds alone made 9 × the limit.
   */
  private readonly deadline: number;
  /** The budget ran out: no parse is started after it, and the text asks (run()). */
  private timedOut = false;

  constructor(
    private readonly parser: Parser,
    private readonly info: CommandInfo,
    private readonly timeoutMs: number,
    /** The shell reading the text being walked: a nested payload sets its own (walkNested). */
    private shell: Dialect,
  ) {
    this.deadline = performance.now() + timeoutMs;
  }

  run(text: string, cwd: Cwd): void {
    if (/\r(?!\n)/.test(text)) addReason(this.info, 'carriage-return');
    // Static text can only hold a substitution if it was quoted or escaped.
    this.scanQuoted = QUOTED_CODE_HINT.test(text);
    this.scanDollar = DOLLAR_HINT.test(text);
    this.definesFunctions = /\(\s*\)|\bfunction\b/.test(text);
    this.parseAndWalk(text, cwd);
    if (this.callsCut) this.reason('too-deep');
    // Also when it ran out in a reading for deny rules (which keeps no reason of its own).
    if (this.timedOut) {
      this.info.parseOk = false;
      this.reason(`${PARSE_TIMEOUT} (${this.timeoutMs} ms for all parses of the text)`);
    }
    // Anywhere in the text: `x=${PWD##*[/]}` may be evaluated by a later `(( x ))`.
    if (this.arithmetic && DIRECTORY_NAMES.test(text)) this.tainted = true;
    if ((this.arithmetic && (this.quotedCode.length > 0 || this.tainted)) || (this.evaluates && (this.dollarData || DOLLAR_PRODUCERS.test(text)))) {
      this.reason('arithmetic');
      // The substitutions bash may run are commands to decide: deny rules see them.
      for (const code of this.quotedCode.splice(0)) this.walkAsDoubleQuoted(code, null);
    }
    // Security: an evaluating context assigns the names it meets, also names held in values or
    // built at run time (`n=PA; (( ${n}TH = 0 ))`, printf escapes): `(( PATH=0 )); ls` ran ./0/ls,
    // `let 'BASH_CMDS[ls]=1'` filled the command hash table (docs/threat-model.md#where-bash-evaluates-text).
    // `coproc NAME …` sets NAME (an array of descriptors): `coproc PATH { :; }` makes PATH `63`.
    // (Looked for only in a text that holds the word: matchAll clones the expression for every text.)
    if (text.includes('coproc') && [...text.matchAll(/\bcoproc\s+([A-Za-z_][A-Za-z0-9_]*)/g)].some((m) => changesLaterCommands(m[1]!))) this.reason('environment');
    if (this.evaluates && (this.staticValues.some(namesShellVariable) || namesShellVariable(text.replace(/['"\\]/g, '')) || RUNTIME_NAME.test(text))) this.reason('environment');

    // A variable this text sets may be a GIT_CONFIG_* one naming branch.autoSetupMerge: a new branch's config write is not dropped (round 31).
    const { exported, assigned, exportedNames, allexport } = this.shellExports;
    if (exported.length > 0 || assigned.length > 0 || exportedNames.size > 0 || allexport) for (const segment of this.info.segments) for (const path of segment.paths) delete path.autoSetupMerge;
  }

  /**
   * `{rm,-rf,x}`, `rm${IFS}-rf${IFS}x`: the commands bash runs after brace expansion and word
   * splitting, added as nested segments so deny rules see them. The call was already judged on
   * what was written; this reading adds commands, never reasons (an expansion that does not parse
   * is simply not there).
   */
  private walkForDenyRules(text: string, cwd: Cwd): void {
    const { parseOk, unanalyzable, redirections, substitutions } = this.info;
    const saved = { parseOk, unanalyzable: [...unanalyzable], redirections: redirections.length, substitutions: substitutions.length };
    const first = this.info.segments.length;
    this.walkNested([{ kind: 'script', text, cwd, shell: this.shell }]);
    this.info.parseOk = saved.parseOk;
    this.info.unanalyzable = saved.unanalyzable;
    this.info.redirections.length = saved.redirections;
    this.info.substitutions.length = saved.substitutions;
    // A reading repeats most of the text: only the commands it adds are kept.
    const before = new Set(this.info.segments.slice(0, first).map(segmentKey));
    const added = this.info.segments.splice(first).filter((segment) => !before.has(segmentKey(segment)));
    for (const segment of added) segment.context = 'nested';
    this.info.segments.push(...added);
  }

  /** A static piece of text (a quoted or escaped word, a subscript) that may be evaluated later. */
  private noteStatic(value: string): void {
    if (SUBSTITUTION_TEXT.test(value) && this.quotedCode.length < 64 && !this.quotedCode.includes(value)) this.quotedCode.push(value);
  }

  private reason(reason: string): void {
    addReason(this.info, reason);
  }

  /**
   * The tree of `text` as bash reads it, from the plain-text reader or the grammar: with the words
   * the grammar drops (dropped-words.ts) and in bash's precedence (precedence.ts).
   */
  private parse(text: string): SyntaxTree | null {
    this.misread = false;
    if (this.timedOut || performance.now() > this.deadline) {
      this.timedOut = true;
      return null;
    }
    // The reader builds bash's reading itself (checked against the grammar's, rebuilt).
    const plain = readPlain(text);
    if (plain !== null) return plain;
    const tree = this.readGrammar(text);
    if (tree !== null && !asBashReads(tree, text)) this.misread = true;
    return tree;
  }

  private readGrammar(text: string): SyntaxTree | null {
    const deadline = this.deadline;
    const tree = this.parser.parse(text, null, { progressCallback: () => performance.now() > deadline });
    if (tree === null) {
      this.parser.reset();
      this.timedOut = true;
      return null;
    }
    try {
      return readTree(tree);
    } finally {
      tree.delete();
    }
  }

  /** Parses `text` (with guard a) and walks it; nested payloads come back here. */
  private parseAndWalk(text: string, cwd: Cwd): void {
    let tree = this.parse(text);
    if (tree === null) return;
    this.checkDialect(tree, text);
    let alternate: string | null = null;
    if (text.includes('\\\n') || text.includes('\\\r\n')) {
      const joined = joinContinuations(text, tree);
      if (joined.crlf) {
        // Security: bash does not join `\<CR><LF>` (the CR is escaped, the LF ends the command),
        // but a CRLF-normalising path would. Walk bash's reading, then the joined one as nested.
        this.reason('crlf-continuation');
        alternate = joined.all;
      }
      if (joined.lf !== text) {
        tree = this.parse(joined.lf);
        if (tree === null) return;
        text = joined.lf;
        this.checkDialect(tree, text);
      }
    }
    // Guard (e): each heredoc line ending in an operator gets the command line after its bodies.
    for (let round = 0; round < MAX_BLANK_ROUNDS && this.misread && text.includes('<<'); round++) {
      const moved = moveHeredocRest(text, tree);
      if (moved === null) break;
      tree = this.parse(moved);
      if (tree === null) return;
      text = moved;
      this.checkDialect(tree, text);
    }
    // Guard (d), again on each new parse: a keyword blanked may uncover another (`! { ! if …`).
    const background: number[] = [];
    const negated: number[] = [];
    for (let round = 0; round < MAX_BLANK_ROUNDS && /\b(time|coproc)\b|!/.test(text); round++) {
      const blanked = blankCompoundKeywords(text, tree);
      if (blanked === null) break;
      tree = this.parse(blanked.text);
      if (tree === null) return;
      text = blanked.text;
      this.checkDialect(tree, text);
      background.push(...blanked.background);
      negated.push(...blanked.negated);
    }
    const saved = this.src;
    const tails = this.tails;
    const outerBackground = this.background;
    const negations = this.negations;
    const outerCalls = this.calls;
    const calls: Call[] = [];
    this.src = text;
    this.tails = new Map();
    this.background = new Set(background);
    this.negations = new Set(negated);
    this.calls = calls;
    try {
      if (tree.hasError || this.misread) {
        this.info.parseOk = false;
        this.reason('parse-error');
      }
      this.visit(tree.rootNode, 'top', cwd);
      if (!this.info.unanalyzable.includes('substitution') && hasSubstitutionText(text, tree)) this.reason('substitution');
    } finally {
      this.src = saved;
      this.tails = tails;
      this.background = outerBackground;
      this.negations = negations;
      this.calls = outerCalls;
    }
    // After the whole text: a loop may call a function defined later in the text.
    this.readCalls(calls);
    if (alternate !== null) this.walkNested([{ kind: 'script', text: alternate, cwd, shell: this.shell }]);
    const spelled = expandForDenyRules(text);
    if (spelled !== null) this.walkForDenyRules(spelled, cwd);
    for (const reading of readingsWithValues(text)) {
      if (this.readings++ >= MAX_VALUE_READINGS) break;
      this.walkForDenyRules(reading, cwd);
    }
  }

  /**
   * Security: a form dash reads otherwise makes bash's reading not the one that runs (dialect.ts).
   * Every tree of the text is checked: the grammar's first may read `! (( 1 > 2 ))` as dash does
   * (subshells) and guard (d)'s as bash does (arithmetic).
   */
  private checkDialect(tree: SyntaxTree, text: string): void {
    if (this.shell !== 'sh' || this.info.unanalyzable.some((reason) => reason.startsWith(SH_DIALECT))) return;
    const form = (tree.commandNames !== undefined ? dashReadsPlainOtherwise(tree.commandNames) : dashReadsOtherwise(tree.rootNode, text)) ?? dashOnlyWord(text);
    if (form !== null) this.reason(shDialectReason(form));
  }

  private slice(node: SyntaxNode): string {
    return this.src.slice(node.startIndex, node.endIndex);
  }

  private readWord(node: SyntaxNode, pending: SyntaxNode[], from?: number): Word {
    return readWord(this.src, node, pending, from);
  }

  private readAssignment(node: SyntaxNode, pending: SyntaxNode[], declared = false): Word {
    return readAssignment(this.src, node, pending, declared);
  }

  private visit(node: SyntaxNode, ctx: SegmentContext, cwd: Cwd, stdin: string | null = null): Flow {
    const type = node.type;
    if (TOKENS.has(type)) {
      // `"a$"`, `a$`: the grammar's `$` token outside an expansion is a literal `$`.
      if (type === '$' && this.scanDollar && node.parent !== null && node.parent.type !== 'expansion' && node.parent.type !== 'simple_expansion' && !inCommandWord(node)) this.dollarData = true;
      return same(cwd);
    }
    if (LEAVES.has(type)) {
      if (this.scanQuoted && QUOTED_LEAVES.has(type)) this.noteStatic(type === 'ansi_c_string' ? decodeAnsiC(this.slice(node).slice(2, -1)) : this.slice(node).replace(/\\(.)/g, '$1'));
      if (this.scanDollar && QUOTED_LEAVES.has(type) && this.slice(node).includes('$') && !inCommandWord(node)) this.dollarData = true;
      return same(cwd);
    }
    if (++this.depth > MAX_DEPTH) {
      this.depth--;
      this.reason('too-deep');
      return same(null);
    }
    try {
      // The compound command itself (or it redirected), not a list or pipeline that starts with it:
      // in `coproc { cd x; } && echo y > f` only the group runs in the background.
      if (this.background.size > 0 && this.background.has(node.startIndex) && isStatement(type) && type !== 'list' && type !== 'pipeline') {
        // `coproc { cd x; }`: a subshell in the background, so its cwd and `set -e` stay inside.
        this.background.delete(node.startIndex);
        const errexit = this.errexit;
        this.visit(node, ctx, cwd, stdin);
        this.errexit = errexit;
        return same(cwd);
      }
      // `! { cd x; } && y`: the pipeline the group starts (not a list it starts) is inverted.
      if (this.negations.size > 0 && this.negations.has(node.startIndex) && isStatement(type) && type !== 'list') {
        this.negations.delete(node.startIndex);
        return this.negated(() => this.visit(node, ctx, cwd, stdin));
      }
      const tail = this.tails.size > 0 ? this.tails.get(node) : undefined;
      if (tail) {
        this.tails.delete(node);
        return this.withRedirects(node, tail, ctx, cwd, stdin);
      }
      return this.dispatch(node, type, ctx, cwd, stdin);
    } finally {
      this.depth--;
    }
  }

  private dispatch(node: SyntaxNode, type: string, ctx: SegmentContext, cwd: Cwd, stdin: string | null): Flow {
    switch (type) {
      case 'program':
        return this.sequence(node.children, ctx, cwd);
      case 'list':
        return this.list(node, ctx, cwd);
      case 'pipeline':
        return this.pipeline(node.children, ctx, cwd, null);
      case 'command':
        return this.command(node, [], ctx, cwd, stdin);
      case 'redirected_statement':
        return this.redirected(node, ctx, cwd, stdin);
      case 'subshell':
        return this.isolated(node.children, 'subshell', cwd);
      case 'compound_statement':
        if (node.child(0)?.type === '((') {
          this.arithmetic = this.evaluates = true;
          return this.generic(node, ctx, cwd); // (( arithmetic ))
        }
        return this.sequence(node.children, 'group', cwd);
      case 'if_statement':
        return this.perhaps(() => this.conditional(node, cwd));
      case 'c_style_for_statement':
        this.arithmetic = this.evaluates = true;
        return this.perhaps(() => this.loop(node, cwd));
      case 'for_statement':
        // `for f in *`: file names are values a later arithmetic context may evaluate.
        if (node.children.some((c) => c.type === 'word' && /[*?[]/.test(this.slice(c)))) this.tainted = true;
        // Security: the loop sets its variable in this shell, as `export NAME=…` would: `for PATH in .; do ls; done` runs ./ls.
        if (node.children.some((c) => c.type === 'variable_name' && changesLaterCommands(this.slice(c)))) this.reason('environment');
        return this.perhaps(() => this.loop(node, cwd));
      case 'while_statement':
        return this.perhaps(() => this.loop(node, cwd));
      case 'test_command':
        return this.testCommand(node, ctx, cwd);
      case 'arithmetic_expansion':
        // `$((2*3))`: numbers and operators only. With no name in it, no variable is referenced and
        // nothing is expanded (bash manual, "Shell Arithmetic"), so no stored text is evaluated.
        if (CONSTANT_ARITHMETIC.test(this.slice(node))) return same(cwd);
        this.arithmetic = this.evaluates = true;
        return this.generic(node, ctx, cwd);
      case 'subscript':
        this.arithmetic = this.evaluates = true;
        return this.generic(node, ctx, cwd);
      case 'case_statement':
        return this.perhaps(() => this.caseStatement(node, cwd));
      case 'function_definition':
        return this.perhaps(() => this.functionDefinition(node, cwd));
      case 'negated_command':
        return this.negated(() => this.sequence(node.children, ctx, cwd));
      case 'declaration_command':
      case 'unset_command':
        return this.declaration(node, ctx, cwd);
      case 'variable_assignment':
      case 'variable_assignments':
        return this.assignmentsOnly(node, ctx, cwd);
      case 'command_substitution':
      case 'process_substitution':
        this.substitution(node, type, cwd);
        return same(cwd);
      case 'expansion':
        this.expansion(node, cwd);
        return same(cwd);
      case 'file_redirect':
      case 'heredoc_redirect':
      case 'herestring_redirect':
        this.orphanRedirects([node], ctx, cwd);
        return same(cwd);
      case 'ERROR':
        this.info.parseOk = false;
        this.reason('parse-error');
        return this.sequence(node.children, ctx, cwd);
      default:
        return this.generic(node, ctx, cwd);
    }
  }

  /**
   * Children in order, for substitutions and commands inside anything that is not a statement list.
   * An assignment here is arithmetic (`(( x = 1 ))`, `for ((i=0;;))`), not a statement.
   */
  private generic(node: SyntaxNode, ctx: SegmentContext, cwd: Cwd): Flow {
    for (const child of node.children) {
      if (child.type === 'variable_assignment') this.generic(child, ctx, cwd);
      else this.visit(child, ctx, cwd);
    }
    return same(cwd);
  }

  /** Statements separated by `;`, `&` or newlines. `cmd &` runs in a subshell: its cd does not count. */
  private sequence(children: SyntaxNode[], ctx: SegmentContext, cwd: Cwd, inCase = false): Flow {
    let current = cwd;
    let last = same(cwd);
    // Simple commands only so far, none of them leaving the group: an `exit` among them ends it (Flow.ends).
    let plain = true;
    let ended = false;
    for (let k = 0; k < children.length; k++) {
      const child = children[k]!;
      const type = child.type;
      if (TOKENS.has(type)) {
        // The grammar accepts `ls;;` outside a case; bash refuses it.
        if (!inCase && (type === ';;' || type === ';&' || type === ';;&')) {
          this.info.parseOk = false;
          this.reason('parse-error');
        }
        continue;
      }
      if (children[k + 1]?.type === '&') {
        this.perhaps(() => this.visit(child, ctx, current));
        last = same(current);
        plain = false; // a background job runs in a subshell: its exit ends that one
        continue;
      }
      if (!isSimple(child)) plain = false;
      const flow = this.visit(child, ctx, current);
      if (flow.leaves) plain = false;
      if (flow.ends && plain) ended = true;
      // `cd sub; cargo build`: without `set -e` the rest runs in sub, or where the shell was when the
      // cd failed (bash manual, "Lists of Commands": `;` runs the next command whatever the status;
      // "Bash POSIX Mode": only a special builtin's error ends the shell, and cd is none; dash and
      // bash --posix ran `pwd` in the old directory): the rest is walked in each, every command of
      // both readings decided (round 32, rules32).
      if (this.errexit && this.ignoring === 0 && flow.quiet !== true) {
        current = flow.ok;
      } else if (flow.ok !== flow.fail && flow.ok !== null && flow.fail !== null && this.forks < MAX_CWD_FORKS && children.slice(k + 1).some((rest) => !TOKENS.has(rest.type))) {
        this.forks++;
        const rest = this.bothDirectories(children.slice(k + 1), ctx, flow, inCase);
        return ended || (plain && rest.ends === true) ? { ...rest, ends: true } : { ok: rest.ok, fail: rest.fail, ...(rest.quiet === true ? { quiet: true } : {}) };
      } else current = merge(flow.ok, flow.fail);
      last = flow;
    }
    if (ended) return { ...last, ends: true };
    return last.ends === true || last.leaves === true ? { ok: last.ok, fail: last.fail, ...(last.quiet === true ? { quiet: true } : {}) } : last;
  }

  /** The statements after a `cd` that may have failed, walked in the directory it went to and in the one it left. */
  private bothDirectories(rest: SyntaxNode[], ctx: SegmentContext, flow: Flow, inCase: boolean): Flow {
    const errexit = this.errexit;
    const moved = this.sequence(rest, ctx, flow.ok, inCase);
    const errexitMoved = this.errexit;
    this.errexit = errexit;
    const stayed = this.sequence(rest, ctx, flow.fail, inCase);
    // `set -e` counts as on after both only when each reading turned it on.
    this.errexit = this.errexit && errexitMoved;
    this.stdout = null;
    return { ok: merge(moved.ok, stayed.ok), fail: merge(moved.fail, stayed.fail), ...(moved.quiet === true || stayed.quiet === true ? { quiet: true } : {}), ...(moved.ends === true && stayed.ends === true ? { ends: true } : {}) };
  }

  /** `! …`: the status inverted, and `set -e` ignored inside (bash manual, "Pipelines", "The Set Builtin"). */
  private negated(walk: () => Flow): Flow {
    this.ignoring++;
    try {
      const flow = walk();
      return { ok: flow.fail, fail: flow.ok, quiet: true };
    } finally {
      this.ignoring--;
    }
  }

  /** What `walk` walks where it may not run, or not in this shell (see `maybe`). */
  private perhaps(walk: () => Flow): Flow {
    this.maybe++;
    try {
      return walk();
    } finally {
      this.maybe--;
    }
  }

  /** What `walk` walks with `set -e` ignored (a condition). */
  private ignoringErrexit(walk: () => Flow): Flow {
    this.ignoring++;
    try {
      return walk();
    } finally {
      this.ignoring--;
    }
  }

  /** `( … )`, `$( … )`, `<( … )`: a subshell, so neither cwd nor `set -e` leak out. */
  private isolated(children: SyntaxNode[], ctx: SegmentContext, cwd: Cwd): Flow {
    const errexit = this.errexit;
    this.sequence(children, ctx, cwd);
    this.errexit = errexit;
    return same(cwd);
  }

  /** `a && b || c`: the grammar nests lists to the left; walked as a chain so long ones do not recurse. */
  private list(node: SyntaxNode, ctx: SegmentContext, cwd: Cwd): Flow {
    const rest: Array<[string, SyntaxNode]> = [];
    let first = node;
    while (first.type === 'list') {
      // Comments between the operands (`a && # why⏎ b`) are skipped, never taken for an operand.
      const children = first.children.length === 3 ? first.children : first.children.filter((child) => child.type !== 'comment');
      const [left, op, right] = children;
      if (!left || !op || !right || children.length !== 3) return this.generic(first, ctx, cwd);
      rest.push([op.type, right]);
      first = left;
    }
    // `set -e` ignores a failure of every operand but the last.
    this.ignoring++;
    let flow: Flow;
    try {
      flow = this.visit(first, ctx, cwd);
      for (let k = rest.length - 1; k > 0; k--) flow = this.chain(flow, rest[k]![0], rest[k]![1], ctx);
    } finally {
      this.ignoring--;
    }
    return this.chain(flow, rest[0]![0], rest[0]![1], ctx);
  }

  /** The flow after `… op right`, given the flow of what came before. */
  private chain(flow: Flow, op: string | undefined, right: SyntaxNode, ctx: SegmentContext): Flow {
    if (op === '&&') {
      // The left side's failure is quiet: `set -e` goes on after `false && x`.
      const r = this.perhaps(() => this.visit(right, ctx, flow.ok));
      // `cd X && exit`: what follows runs only where the left side failed.
      if (r.ends === true) return { ok: flow.fail, fail: flow.fail, quiet: true };
      return { ok: r.ok, fail: merge(flow.fail, r.fail), quiet: true };
    }
    if (op === '||') {
      const r = this.perhaps(() => this.visit(right, ctx, flow.fail));
      // `cd X || exit`, `cd X || { echo no >&2; exit 1; }`: what follows runs only where cd went (round 33).
      if (r.ends === true) return { ok: flow.ok, fail: flow.ok, quiet: true };
      return { ok: merge(flow.ok, r.ok), fail: r.fail, quiet: r.quiet };
    }
    return this.visit(right, ctx, this.next(flow));
  }

  /**
   * The cwd the next statement runs in after one with `flow`. Without `set -e`, the next statement
   * runs even when this one (a `cd`) failed; with it, only after success, unless the failure was
   * one `set -e` ignores.
   */
  private next(flow: Flow): Cwd {
    return this.errexit && this.ignoring === 0 && flow.quiet !== true ? flow.ok : merge(flow.ok, flow.fail);
  }

  /**
   * Each stage runs in its own subshell with the same cwd; static output feeds the next stage's stdin.
   * Security: bash never makes a `&&`/`||` list a stage, but the grammar does (`cd x && a 2>&1 | b`
   * is read `(cd x && a 2>&1) | b`). precedence.ts rebuilds bash's reading; a shape it leaves as
   * the grammar built it is walked with an unknown cwd from that stage on, the stage included (its
   * list may run partly before the pipeline, partly after it).
   */
  private pipeline(children: SyntaxNode[], ctx: SegmentContext, cwd: Cwd, stdin: string | null): Flow {
    let input = stdin;
    let stageCwd = cwd;
    for (const child of children) {
      const type = child.type;
      if (type === '|' || type === '|&') continue;
      if (holdsList(child)) stageCwd = null;
      this.stdout = null;
      const errexit = this.errexit;
      this.visit(child, 'pipeline', stageCwd, input);
      this.errexit = errexit;
      input = this.stdout;
    }
    this.stdout = null;
    return same(stageCwd);
  }

  // -------------------------------------------------------------------------------------------
  // Simple commands
  // -------------------------------------------------------------------------------------------

  /** A simple command, with the redirections of an enclosing redirected_statement. */
  private command(node: SyntaxNode, outer: SyntaxNode[], ctx: SegmentContext, cwd: Cwd, stdin: string | null): Flow {
    if (node.startIndex === node.endIndex) return same(cwd); // a MISSING command (`ls &&`)
    const assignments: Word[] = [];
    const words: Word[] = [];
    /** Where each word starts. */
    const starts: number[] = [];
    const redirects: SyntaxNode[] = [];
    const pending: SyntaxNode[] = [];
    const children = node.children;
    for (let k = 0; k < children.length; k++) {
      const child = children[k]!;
      const type = child.type;
      if (type === 'variable_assignment' && words.length === 0) assignments.push(this.readAssignment(child, pending));
      else if (REDIRECTS.has(type)) redirects.push(child);
      else if (type === '$' && children[k + 1]?.type === 'string' && children[k + 1]!.startIndex === child.endIndex) {
        starts.push(child.startIndex);
        words.push(this.readWord(children[++k]!, pending, child.startIndex)); // $"translated"
      } else if (type !== 'comment') {
        starts.push(child.startIndex);
        words.push(this.readWord(child, pending));
      }
    }
    redirects.push(...outer);
    // `echo > a b`: bash passes `b` to echo; the grammar files it under the redirect. `cat <<E a`:
    // `a` is cat's, filed under the heredoc. In text order with the words after them
    // (`a 2>e b - 3>f`: a b -).
    let extras: Array<[number, Word]> | null = null;
    for (const redirect of redirects) {
      for (const extra of this.extraWords(redirect)) (extras ??= []).push([extra.startIndex, this.readWord(extra, pending)]);
    }
    if (extras !== null) {
      let at = 0;
      const ordered: Word[] = [];
      for (const [start, word] of extras) {
        while (at < words.length && starts[at]! < start) ordered.push(words[at++]!);
        ordered.push(word);
      }
      words.splice(0, words.length, ...ordered, ...words.slice(at));
    }
    return this.finish(assignments, words, redirects, pending, ctx, cwd, stdin);
  }

  private finish(assignments: Word[], words: Word[], redirects: SyntaxNode[], pending: SyntaxNode[], ctx: SegmentContext, cwd: Cwd, stdin: string | null): Flow {
    const input = this.stdinOf(redirects, stdin);
    const built = buildSegment({ assignments, words, context: this.forced ?? ctx, cwd, stdin: input, shell: this.shell });
    this.noteEvaluation(assignments, words, built.segment.name);
    const index = this.info.segments.push(ownReasons(built).segment) - 1;
    for (const reason of built.reasons) this.reason(reason);
    for (const node of pending) this.visit(node, 'substitution', cwd);
    for (const redirect of redirects) this.redirect(redirect, index, [built.segment], cwd);
    this.walkNested(built.nested);
    this.stdout = built.stdout;
    // `set -e` counts only where it runs for certain, in this shell (`nohup set -e` runs no builtin);
    // anything that may turn it off is taken as off (describeSet).
    if (built.errexit === false || (built.errexit === true && this.maybe === 0 && built.segment.wrappers.every((wrapper) => CWD_WRAPPERS.has(wrapper.split(' ')[0]!)))) this.errexit = built.errexit;
    // `coproc cd x`, `nohup cd x`: a background subshell or another program, not this shell's cd;
    // after any wrapper but `command`, `builtin` and `time` the cwd is unknown (fail closed).
    if (built.cwdAfter !== undefined && built.segment.wrappers.some((wrapper) => !CWD_WRAPPERS.has(wrapper.split(' ')[0]!))) return { ok: null, fail: cwd };
    // `CDPATH=.. cd home`: cd looks for its operand in CDPATH's directories first.
    if (built.cwdAfter !== undefined && assignments.some((a) => /^CDPATH\+?=/.test(a.raw))) return { ok: null, fail: cwd };
    const name = built.segment.name;
    const passes = name !== null && passesEnvironment(name, startsOthers);
    this.noteRecipe(null, passes ? name : null);
    if (name !== null && (name === 'set' || passes)) this.noteMakeEnvironment(name, built.segment, words.slice(words.length - built.segment.args.length));
    // `! ! cd x`: the grammar reads a command named `!`; bash negates twice and runs cd in this shell.
    if (name === '!') this.reason('parse-error');
    // A function defined in the text runs its body here, in this shell: a `cd` in it moves what
    // follows, whatever it returns (bash manual, "Shell Functions").
    // Its body may also have turned `set -e` off.
    // Any command of a text that defines a function may call it (in a loop, before the definition):
    // its arguments are known when its words are static (a tilde was expanded at the call).
    if (name !== null && this.definesFunctions) {
      const args = words.slice(words.length - built.segment.args.length);
      if (args.every((word) => word.isStatic && !word.raw.includes('~'))) this.calls.push({ name, args: args.map((word) => word.value), cwd });
    }
    if (name !== null && this.functions.has(name)) {
      this.errexit = false;
      return { ok: null, fail: null };
    }
    // `exit` ends this shell: a text that defines a function may define one named exit (bash reads
    // it before the builtin outside POSIX mode), and another wrapper runs another program.
    if (name === 'exit' && !this.definesFunctions && built.segment.wrappers.every((wrapper) => CWD_WRAPPERS.has(wrapper.split(' ')[0]!))) return { ...same(cwd), ends: true };
    if (name === 'break' || name === 'continue' || name === 'return') return { ...same(cwd), leaves: true };
    return flowOf(built, cwd);
  }

  /** `values`: assignments made in this shell; `passes`: the name of a program that passes its environment on. */
  private noteRecipe(values: readonly Word[] | null, passes: string | null): void {
    for (const word of values ?? []) {
      this.recipeValue ||= inRecipe(word, true);
      this.recipeValueBeyondGit ||= inRecipe(word);
    }
    if (passes !== null) {
      this.passesEnvironment = true;
      this.passesBeyondGit ||= !isGit(passes);
    }
    if ((this.recipeValue && this.passesEnvironment) || (this.recipeValueBeyondGit && this.passesBeyondGit)) this.reason('interpreter');
  }

  /**
   * `set -a` (`-o allexport`, an option known only at run time) and the makes met: then what this
   * shell exports is fed to each make (feedMakes). Round 29 (R28-10): a program that passes its
   * environment on may run make with it (`export BUILDER=…; npm run build`, a script, a hook), so it
   * is fed as a make with none of make's own words.
   */
  private noteMakeEnvironment(name: string, segment: Segment, args: Word[]): void {
    if (name === 'make' || name === 'gmake') this.makes.push({ segment, args, cwd: segment.cwd, fed: new Set() });
    else if (name !== 'set') this.makes.push({ segment, args: [], cwd: segment.cwd, fed: new Set(), later: { toGit: isGit(name) } });
    else if (args.some((word, i) => !word.isStatic || /^-[A-Za-z]*a/.test(word.value) || (word.value === 'allexport' && /^-[A-Za-z]*o$/.test(args[i - 1]?.value ?? '')))) this.shellExports.allexport = true;
    this.feedMakes();
  }

  /** A declaration builtin's words (`export A=1 B`, `declare -x A=1`, `local a=1`): what it sets, and whether it exports. */
  private noteDeclared(words: readonly Word[]): void {
    const builtin = words[0]?.value;
    const options = words.slice(1).filter((word) => word.isStatic && /^[-+]/.test(word.value));
    const exports = builtin === 'export' || options.some((word) => /^-[A-Za-z]*x/.test(word.value));
    for (const word of words.slice(1)) {
      if (!word.isStatic || options.includes(word)) continue;
      if (/^[A-Za-z_]\w*\+?=/.test(word.value)) (exports ? this.shellExports.exported : this.shellExports.assigned).push(word);
      else if (exports && /^[A-Za-z_]\w*$/.test(word.value)) this.shellExports.exportedNames.add(word.value);
    }
    this.feedMakes();
  }

  /**
   * `${NAME:=word}` and `${NAME=word}` assign word to NAME when it is unset or empty (bash(1)
   * "Parameter Expansion", POSIX 2.6.2): an assignment this shell makes, for the makes it exports
   * to (`: ${BUILDER:='rm -rf v'}; export BUILDER; make all` ran rm, bash 5.2 and dash; round 28
   * review R28-5). A word with a quote or expansion in it is known only at run time.
   */
  private noteDefaults(words: readonly Word[]): void {
    let found = false;
    for (const word of words) {
      if (!word.raw.includes('${')) continue;
      for (const match of word.raw.matchAll(/\$\{([A-Za-z_]\w*):?=((?:[^{}\\]|\\.)*)\}/g)) {
        const value = match[2]!;
        const plain = /^'[^']*'$/.test(value) ? value.slice(1, -1) : /^"[^"$`\\]*"$/.test(value) ? value.slice(1, -1) : /^[^'"$`\\]*$/.test(value) ? value : null;
        const text = `${match[1]}=${plain ?? value}`;
        this.shellExports.assigned.push({ value: text, raw: text, isStatic: plain !== null, ansi: false });
        found = true;
      }
    }
    if (found) this.feedMakes();
  }

  /** Each make met given each exported assignment once: read as assignments before it (make.ts makeEnvironment). */
  private feedMakes(): void {
    const { exported, assigned, exportedNames, allexport } = this.shellExports;
    if (this.makes.length === 0 || (exported.length === 0 && assigned.length === 0)) return;
    const words = [...exported, ...assigned.filter((word) => allexport || exportedNames.has(/^[A-Za-z_]\w*/.exec(word.value)![0]))];
    for (const make of this.makes) {
      const fresh = words.filter((word) => !make.fed.has(word));
      if (fresh.length === 0) continue;
      for (const word of fresh) make.fed.add(word);
      const facts: FileFacts = { paths: [], nested: [], reasons: [] };
      makeEnvironment(fresh, make.args, make.cwd, facts, make.later);
      for (const reason of facts.reasons) this.reason(reason);
      make.segment.paths.push(...facts.paths);
      if (facts.alternatives) make.segment.alternatives = [...(make.segment.alternatives ?? []), ...facts.alternatives];
      this.walkNested(facts.nested);
    }
  }

  /** Where a simple command makes bash evaluate text (see `arithmetic`). */
  private noteEvaluation(assignments: Word[], words: Word[], name: string | null): void {
    for (const word of assignments) this.noteWord(word);
    for (const word of words) this.noteWord(word);
    this.noteDefaults([...assignments, ...words]);
    if (name !== null && EVALUATING_COMMANDS.has(name)) {
      this.arithmetic = true;
      if (evaluatesArguments(name, words)) this.evaluates = true;
    }
    if (name !== null && READING_COMMANDS.has(name)) this.tainted = true;
    // printf decodes escapes in its format and in `%b` arguments: built at run time (`"${x}x24"` with
    // x a backslash), they give a `$` that no text holds.
    if (name === 'printf' && printfDecodesRuntimeText(words)) this.dollarData = true;
    if (this.scanDollar && !this.dollarData) {
      // Only builtins and functions keep their arguments as values; any command leaves its last in `$_`.
      const kept = name === null || STORING_COMMANDS.has(name) || this.functions.has(name) ? words : USES_LAST_ARGUMENT.test(this.src) ? words.slice(-1) : [];
      if ([...assignments, ...kept].some((word) => (word.isStatic ? /[$`]/.test(word.value) : DOLLAR_HINT.test(word.raw)))) this.dollarData = true;
    }
  }

  /** One word of a simple command, for noteEvaluation. */
  private noteWord(word: Word): void {
    if (word.isStatic || this.scanQuoted) this.noteStatic(word.value);
    // A glob: file names are values (not `$x`, which the caller's environment sets).
    else if (!/[$`]/.test(word.raw)) this.tainted = true;
    if (word.isStatic) this.staticValues.push(word.value);
    // `exec {a[i]}>f` names the descriptor variable with a subscript.
    if (word.value.startsWith('{') && /^\{[A-Za-z_][A-Za-z0-9_]*\[/.test(word.value)) this.arithmetic = this.evaluates = true;
  }

  /**
   * `[[ … ]]` and `[ … ]` (the grammar's test_command): a segment of their own, so deny rules and
   * the read-only list see them; `-eq` and friends evaluate their operands inside `[[`, `-v`
   * evaluates a subscript in both.
   */
  private testCommand(node: SyntaxNode, ctx: SegmentContext, cwd: Cwd): Flow {
    const open = node.child(0)?.type === '[[' ? '[[' : '[';
    const operators = node.descendantsOfType('test_operator').map((op) => this.slice(op));
    if (operators.some((op) => EVALUATING_TEST_OPERATORS.has(op) && (open === '[[' || op === '-v' || op === '-R'))) this.arithmetic = this.evaluates = true;
    const pending: SyntaxNode[] = [];
    const words = [staticWord(open)];
    for (const child of node.namedChildren) words.push(...this.testWords(child, pending));
    words.push(staticWord(open === '[[' ? ']]' : ']'));
    return this.finish([], words, [], pending, ctx, cwd, null);
  }

  /** The words of a test expression, operators included. */
  private testWords(node: SyntaxNode, pending: SyntaxNode[]): Word[] {
    const type = node.type;
    if (type === 'binary_expression' || type === 'unary_expression' || type === 'parenthesized_expression' || type === 'negated_expression' || type === 'ternary_expression' || type === 'postfix_expression') {
      return node.children.flatMap((child) => (child.isNamed ? this.testWords(child, pending) : [staticWord(this.slice(child))]));
    }
    if (type === 'test_operator' || type === 'regex' || type === 'extglob_pattern') return [staticWord(this.slice(node))];
    return [this.readWord(node, pending)];
  }

  private redirected(node: SyntaxNode, ctx: SegmentContext, cwd: Cwd, stdin: string | null): Flow {
    let body: SyntaxNode | null = null;
    const redirects: SyntaxNode[] = [];
    for (const child of node.children) {
      if (REDIRECTS.has(child.type)) redirects.push(child);
      else if (child.type !== 'comment' && !TOKENS.has(child.type)) body ??= child;
    }
    if (body === null) {
      this.orphanRedirects(redirects, ctx, cwd);
      return same(cwd);
    }
    // The grammar attaches `> f` in `a && b > f` and `a | b > f` to the whole list or pipeline;
    // bash binds it to the last command. Hand it to that command.
    let tail = body;
    while (tail.type === 'list' || tail.type === 'pipeline') tail = tail.lastChild ?? tail;
    if (tail !== body) {
      this.tails.set(tail, [...(this.tails.get(tail) ?? []), ...redirects]);
      return this.visit(body, ctx, cwd, stdin);
    }
    return this.withRedirects(body, redirects, ctx, cwd, stdin);
  }

  private withRedirects(body: SyntaxNode, redirects: SyntaxNode[], ctx: SegmentContext, cwd: Cwd, stdin: string | null): Flow {
    if (body.type === 'command') {
      // `cat <<EOF | sh`, `cat <<EOF && rm x`: the grammar puts what follows the heredoc inside it.
      const rests = redirects.filter((r) => r.type === 'heredoc_redirect').flatMap((r) => r.children.filter((c) => isStatement(c.type)));
      const piped = rests.some(isPipeTail);
      let flow = this.command(body, redirects, piped ? 'pipeline' : ctx, cwd, stdin);
      for (const rest of rests) flow = this.heredocRest(rest, ctx, cwd, flow);
      return flow;
    }
    const first = this.info.segments.length;
    const flow = body.type === 'redirected_statement' ? this.redirected(body, ctx, cwd, stdin) : this.dispatch(body, body.type, ctx, cwd, stdin);
    const inside = this.info.segments.slice(first).filter((s) => s.context !== 'substitution');
    for (const redirect of redirects) this.redirect(redirect, null, inside, cwd, ctx);
    return flow;
  }

  /** What follows a heredoc's start on its line: `| more stages`, or `&& next`. */
  private heredocRest(rest: SyntaxNode, ctx: SegmentContext, cwd: Cwd, flow: Flow): Flow {
    if (isPipeTail(rest)) {
      this.pipeline(rest.children, ctx, cwd, this.stdout);
      return same(cwd);
    }
    return this.chain(flow, rest.previousSibling?.type, rest, ctx);
  }

  /** `export X=$(…) Y`, `local a=1`, `unset x`: commands whose arguments may be assignments. */
  private declaration(node: SyntaxNode, ctx: SegmentContext, cwd: Cwd): Flow {
    const words: Word[] = [];
    const redirects: SyntaxNode[] = [];
    const pending: SyntaxNode[] = [];
    for (const child of node.children) {
      const type = child.type;
      if (REDIRECTS.has(type)) redirects.push(child);
      else if (type === 'variable_assignment') {
        words.push(this.readAssignment(child, pending, true));
        this.noteRecipe([words.at(-1)!], null);
      }
      else if (type === 'comment') continue;
      else if (words.length === 0 || type === 'variable_name' || TOKENS.has(type)) words.push(staticWord(this.slice(child)));
      else {
        // `export "CFLAGS=;touch F;"`, `export X\=…`: bash's declaration builtins read their own
        // words, a quoted `NAME=value` too; one known only at run time may be one (round 26 review S1).
        const word = this.readWord(child, pending);
        words.push(word);
        if (!word.isStatic || /^[A-Za-z_]\w*(\[.*\])?\+?=/s.test(word.value)) this.noteRecipe([word], null);
      }
    }
    this.noteDeclared(words);
    return this.finish([], words, redirects, pending, ctx, cwd, null);
  }

  /** `x=1`, `a=1 b=$(id)`: no program runs, but substitutions do and the values affect later commands. */
  private assignmentsOnly(node: SyntaxNode, ctx: SegmentContext, cwd: Cwd): Flow {
    const pending: SyntaxNode[] = [];
    const list = node.type === 'variable_assignment' ? [node] : node.children.filter((c) => c.type === 'variable_assignment');
    const assignments = list.map((a) => this.readAssignment(a, pending));
    // `PATH=/tmp; ls`, `CDPATH=..; cd home`: a variable the shell or a program reads, set for every
    // later command (PATH is exported, CDPATH moves `cd`; which others the server's environment
    // exports is unknown). IFS is read apart (see `ifs`).
    if (assignments.some((a) => (ENVIRONMENT.test(a.raw) && !/^IFS\+?=/.test(a.raw)) || isOptionEnvironment(a))) this.reason('environment');
    this.noteRecipe(assignments, null);
    this.shellExports.assigned.push(...assignments.filter((word) => word.isStatic));
    this.feedMakes();
    return this.finish(assignments, [], [], pending, ctx, cwd, null);
  }

  /** Redirections with no command (`> f`, `$(< f)`): their paths go to a segment without a program. */
  private orphanRedirects(redirects: SyntaxNode[], ctx: SegmentContext, cwd: Cwd): void {
    const built = buildSegment({ assignments: [], words: [], context: this.forced ?? ctx, cwd, stdin: null });
    const index = this.info.segments.push(built.segment) - 1;
    for (const redirect of redirects) this.redirect(redirect, index, [built.segment], cwd);
  }

  // -------------------------------------------------------------------------------------------
  // Compound statements
  // -------------------------------------------------------------------------------------------

  /** `if c; then …; elif c; then …; else …; fi`: the cwd afterwards is known only if no branch changes it. */
  private conditional(node: SyntaxNode, cwd: Cwd): Flow {
    const ends: Cwd[] = [];
    let pending: Cwd = cwd;
    let fallsThrough = true;
    // A body that ends the shell (`if ! cd X; then exit 1; fi`) leaves no cwd after the statement (round 33).
    let exits = false;
    const clause = (children: SyntaxNode[], from: Cwd): void => {
      const then = children.findIndex((c) => c.type === 'then');
      if (then === -1) {
        // else: a body only
        const body = this.sequence(children, 'condition', from);
        if (body.ends === true) exits = true;
        else ends.push(merge(body.ok, body.fail));
        fallsThrough = false;
        return;
      }
      const condition = this.ignoringErrexit(() => this.sequence(children.slice(0, then), 'condition', from));
      const body = this.sequence(children.slice(then + 1).filter((c) => c.type !== 'elif_clause' && c.type !== 'else_clause'), 'condition', condition.ok);
      if (body.ends === true) exits = true;
      else ends.push(merge(body.ok, body.fail));
      pending = condition.fail;
    };
    const children = node.children;
    clause(children, cwd);
    for (const child of children) if (child.type === 'elif_clause' || child.type === 'else_clause') clause(child.children, pending);
    if (fallsThrough) ends.push(pending);
    // Every way past the statement is in `ends`; without a body that exits, also the cwd it started in (as before).
    const end = exits ? (ends.length === 0 ? cwd : ends.reduce<Cwd>((a, b) => merge(a, b), ends[0]!)) : ends.reduce<Cwd>((a, b) => merge(a, b), cwd);
    return same(end);
  }

  /** Loops: if an iteration changes directory, later iterations run elsewhere, so every cwd inside is unknown. */
  private loop(node: SyntaxNode, cwd: Cwd): Flow {
    const first = this.info.segments.length;
    let current = cwd;
    let changed = false;
    for (const child of node.children) {
      const type = child.type;
      if (type === 'do_group' || type === 'compound_statement') {
        const body = this.sequence(child.children, 'loop', current);
        changed ||= body.ok !== cwd || body.fail !== cwd;
      } else if (node.type === 'while_statement' && isStatement(type)) {
        const flow = this.ignoringErrexit(() => this.visit(child, 'loop', current));
        current = flow.ok;
        changed ||= flow.ok !== cwd || flow.fail !== cwd;
      } else if (type === 'variable_assignment') {
        this.generic(child, 'loop', current); // for ((i = 0; …))
      } else {
        this.visit(child, 'loop', current);
      }
    }
    if (!changed && current === cwd) return same(cwd);
    for (const segment of this.info.segments.slice(first)) unknownCwd(segment);
    return same(null);
  }

  private caseStatement(node: SyntaxNode, cwd: Cwd): Flow {
    const ends: Cwd[] = [cwd];
    for (const child of node.children) {
      if (child.type !== 'case_item') {
        this.visit(child, 'case', cwd);
        continue;
      }
      const parts = child.children;
      const close = parts.findIndex((c) => c.type === ')');
      for (const pattern of parts.slice(0, Math.max(close, 0))) this.visit(pattern, 'case', cwd);
      const body = this.sequence(parts.slice(close + 1), 'case', cwd, true);
      ends.push(merge(body.ok, body.fail));
    }
    return same(ends.reduce<Cwd>((a, b) => merge(a, b), cwd));
  }

  /** A function body runs when called, from wherever the caller is: its cwd is unknown. */
  private functionDefinition(node: SyntaxNode, cwd: Cwd): Flow {
    const errexit = this.errexit;
    const first = this.info.segments.length;
    let name: string | null = null;
    for (const child of node.children) {
      const type = child.type;
      if (type === 'word') {
        name = this.slice(child);
        continue;
      }
      if (name !== null && (type === 'compound_statement' || type === 'subshell' || isStatement(type))) {
        // The body and the redirections after it, as a statement of its own (read at each call).
        const bodies = this.functions.get(name) ?? [];
        const body = this.src.slice(child.startIndex, node.endIndex);
        if (!bodies.includes(body)) {
          if (bodies.length < MAX_DEFINITIONS) bodies.push(body);
          else this.callsCut = true;
        }
        this.functions.set(name, bodies);
        name = null;
      }
      if (REDIRECTS.has(type)) {
        this.redirect(child, null, this.info.segments.slice(first), null, 'function');
        continue;
      }
      if (type === 'compound_statement' || type === 'subshell') this.sequence(child.children, 'function', null);
      else this.visit(child, 'function', null);
    }
    this.errexit = errexit;
    return same(cwd);
  }

  /**
   * Calls of functions the text defines, read with their arguments (positional.ts) for deny rules:
   * `f() { $1 -rf /; }; f rm` runs `rm -rf /`. Every definition of the name counts (a branch may
   * pick either); a limit reached fails closed ('too-deep').
   */
  private readCalls(calls: readonly Call[]): void {
    for (const call of calls) {
      const bodies = this.functions.get(call.name);
      if (bodies === undefined) continue;
      for (const body of bodies) {
        const readings = bodyWithArguments(body, call.args);
        // A body that uses no argument reads as it was walked where it is defined.
        if (readings !== null && readings.length === 0) continue;
        const key = JSON.stringify([call.name, body, call.args, call.cwd]);
        if (this.called.has(key)) continue;
        this.called.add(key);
        if (readings === null || this.called.size > MAX_CALL_READINGS || this.nesting >= MAX_NESTING) {
          this.callsCut = true;
          continue;
        }
        for (const reading of readings) this.walkForDenyRules(reading, call.cwd);
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Substitutions and expansions
  // -------------------------------------------------------------------------------------------

  private substitution(node: SyntaxNode, type: string, cwd: Cwd): void {
    const text = this.slice(node).trim();
    let kind: SubstitutionKind = 'command';
    if (type === 'process_substitution') kind = text.startsWith('<') ? 'process-in' : 'process-out';
    else if (text.startsWith('`')) kind = 'backtick';
    this.info.substitutions.push({ kind, text });
    this.reason('substitution');
    // bash runs a command substitution without `set -e` (unless inherit_errexit): off inside any
    // substitution, which only makes the walk claim less.
    const errexit = this.errexit;
    this.errexit = false;
    this.isolated(node.children, 'substitution', cwd);
    this.errexit = errexit;
  }

  private expansion(node: SyntaxNode, cwd: Cwd): void {
    const children = node.children;
    const text = this.slice(node).trim();
    // `${a[i]}`, `${x:offset:length}`, `${!name}`: subscripts and offsets are arithmetic.
    if (/^\$\{[#!]?[A-Za-z_0-9@*]*(\[|:(?![-=?+]))|^\$\{!/.test(text)) this.arithmetic = this.evaluates = true;
    // `${PATH:=.}`, `${BASH_CMDS[ls]=/bin/sh}` assign when unset (or null).
    const assigned = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(\[.*\])?:?=/s.exec(text);
    if (assigned && changesLaterCommands(assigned[1]!)) this.reason('environment');
    if (children[1]?.type === '!') {
      this.info.substitutions.push({ kind: 'indirection', text });
      this.reason('indirection');
    }
    for (let k = 0; k < children.length; k++) {
      if (children[k]!.type === '@' && PROMPT_OPS.has(children[k + 1]?.type ?? '')) {
        this.info.substitutions.push({ kind: 'prompt-expansion', text });
        this.reason('prompt-expansion');
        break;
      }
    }
    for (const child of children) {
      const type = child.type;
      // The grammar reads `${x:-`id`}` as a word: walk such text as the "…" string it expands like.
      if ((type === 'word' || type === 'regex') && /`|\$\(/.test(this.slice(child))) this.walkAsDoubleQuoted(this.slice(child), cwd);
      else this.visit(child, 'substitution', cwd);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Redirections
  // -------------------------------------------------------------------------------------------

  /** Words of the command the grammar filed under a redirection (see command()). */
  private extraWords(redirect: SyntaxNode): SyntaxNode[] {
    if (redirect.type === 'file_redirect') return this.destinations(redirect).slice(1);
    if (redirect.type !== 'heredoc_redirect') return [];
    // The words after `<<E` on its line; the grammar also files parts of the body as words.
    const start = redirect.children.find((c) => c.type === 'heredoc_start');
    const line = start ? this.src.indexOf('\n', start.endIndex) : -1;
    return redirect.children.filter((c) => c.isNamed && !HEREDOC_PARTS.has(c.type) && !isStatement(c.type) && (line === -1 || c.endIndex <= line) && c.startIndex >= (start?.endIndex ?? 0));
  }

  private destinations(node: SyntaxNode): SyntaxNode[] {
    return node.children.filter((c) => c.type !== 'file_descriptor' && !TOKENS.has(c.type) && !isRedirectOp(c.type) && c.type !== 'ERROR');
  }

  /** Static text a command reads on stdin: its last heredoc / here-string, else what the pipeline gives it. */
  private stdinOf(redirects: SyntaxNode[], stdin: string | null): string | null {
    let input = stdin;
    for (const redirect of redirects) {
      const type = redirect.type;
      if (type === 'heredoc_redirect') {
        const children = redirect.children;
        const start = children.find((c) => c.type === 'heredoc_start');
        const text = this.heredocText(children.find((c) => c.type === 'heredoc_body') ?? null, start?.endIndex ?? redirect.startIndex, children.find((c) => c.type === 'heredoc_end') ?? null);
        input = children.some((c) => c.type === '<<-') ? text.replace(/^\t+/gm, '') : text;
      } else if (type === 'herestring_redirect') {
        const word = redirect.namedChildren.find((c) => c.type !== 'file_descriptor');
        const value = word ? this.readWord(word, []) : null;
        input = value?.isStatic ? `${value.value}\n` : null;
      } else if (type === 'file_redirect' && this.redirectOp(redirect).startsWith('<')) {
        input = null;
      }
    }
    return input;
  }

  private redirectOp(node: SyntaxNode): string {
    for (const child of node.children) if (isRedirectOp(child.type)) return child.type;
    return '';
  }

  /**
   * Records one redirection and the path it opens. `segment` is the index for a simple command,
   * null for a compound statement, whose path goes to every segment in `targets`.
   */
  private redirect(node: SyntaxNode, segment: number | null, targets: Segment[], cwd: Cwd, ctx: SegmentContext = 'top'): void {
    const type = node.type;
    if (type === 'heredoc_redirect') return this.heredoc(node, segment, targets, cwd, ctx);
    const pending: SyntaxNode[] = [];
    let fd: string | null = null;
    let op = '<<<';
    let target: Word | null = null;
    let process: SyntaxNode | null = null;
    for (const child of node.children) {
      const t = child.type;
      if (t === 'file_descriptor') fd = this.slice(child);
      else if (isRedirectOp(t)) op = t;
      else if (t === 'process_substitution') process ??= child;
      else if (!TOKENS.has(t) && t !== 'ERROR' && target === null && process === null) target = this.readWord(child, pending);
    }
    let kind: RedirectionKind;
    if (type === 'herestring_redirect') kind = 'herestring';
    else if (op === '>>' || op === '&>>') kind = 'append';
    else if (op === '<' || op === '<&') kind = 'read';
    else kind = 'write';
    const targetText = process ? this.slice(process).trim() : target ? (target.isStatic ? target.value : target.raw) : '';
    // `>&2`, `2>&1`, `<&3`, `>&-`: descriptors, not files.
    if ((op === '>&' || op === '<&' || op.endsWith('-')) && (op.endsWith('-') || (target?.isStatic && /^(\d+-?|-)$/.test(target.value)))) kind = 'dup';
    const record: Redirection = { segment, fd, op, kind, target: targetText, isStatic: process === null && (target?.isStatic ?? false) };
    this.info.redirections.push(record);
    if (process) {
      // Security: `> >(cmd)` is code, not a file.
      this.substitution(process, 'process_substitution', cwd);
    } else if (target && kind !== 'dup' && kind !== 'herestring' && !(target.isStatic && (target.value === '/dev/null' || (kind !== 'read' && NULL_DEVICES.has(target.value))))) {
      const path: CommandPath = { path: target.isStatic ? target.value : target.raw, access: kind === 'read' ? 'read' : 'write', base: cwd, isStatic: target.isStatic, via: op };
      this.attach(path, targets, cwd, ctx);
      // `[n]<>word` opens word for reading and writing (bash manual); tree-sitter-bash reads it as
      // `<` and an ERROR node: a write too (round 12 review, S6: `echo x 1<>F` overwrote F).
      if (op === '<' && /^\d*<>/.test(this.slice(node))) this.attach({ ...path, access: 'write' }, targets, cwd, ctx);
    }
    for (const p of pending) this.visit(p, 'substitution', cwd);
  }

  private attach(path: CommandPath, targets: Segment[], cwd: Cwd, ctx: SegmentContext): void {
    if (targets.length === 0) {
      const built = buildSegment({ assignments: [], words: [], context: this.forced ?? ctx, cwd, stdin: null });
      this.info.segments.push(built.segment);
      targets = [built.segment];
    }
    // The file is opened once, before the statement runs: its base is the statement's cwd.
    for (const segment of targets) segment.paths.push({ ...path });
  }

  /** `<<EOF`, `<<-EOF`, `<<'EOF'`; guard (b); and the redirections written after the delimiter. */
  private heredoc(node: SyntaxNode, segment: number | null, targets: Segment[], cwd: Cwd, ctx: SegmentContext): void {
    let start = '';
    let startEnd = node.startIndex;
    let op = '<<';
    let fd: string | null = null;
    let body: SyntaxNode | null = null;
    let end: SyntaxNode | null = null;
    const inner: SyntaxNode[] = [];
    for (const child of node.children) {
      const t = child.type;
      if (t === 'heredoc_start') {
        start = this.slice(child);
        startEnd = child.endIndex;
      } else if (t === '<<' || t === '<<-') op = t;
      else if (t === 'file_descriptor') fd = this.slice(child);
      else if (t === 'heredoc_body') body = child;
      else if (t === 'heredoc_end') end = child;
      else if (t === 'file_redirect' || t === 'herestring_redirect') inner.push(child);
    }
    const quoted = isQuotedDelimiter(start);
    const text = this.heredocText(body, startEnd, end);
    this.info.redirections.push({ segment, fd, op, kind: 'heredoc', target: start.replace(/['"\\]/g, ''), isStatic: quoted || !/[$`]/.test(text) });
    if (!quoted && text !== '') {
      // Guard (b): the grammar misses `$(` after leading whitespace and inside backticks.
      if (HEREDOC_SUBSTITUTION.test(text)) {
        this.info.substitutions.push({ kind: 'heredoc', text: text.trim() });
        this.reason('heredoc-substitution');
      }
      if (HEREDOC_EXPANSION.test(text)) {
        this.info.substitutions.push({ kind: 'prompt-expansion', text: text.trim() });
        this.reason('heredoc-substitution');
      }
      // The grammar drops expansions after leading whitespace: walk the body as the "…" string it
      // is equivalent to instead of its own children.
      if (/[$`]/.test(text)) this.walkAsDoubleQuoted(text, cwd);
    }
    for (const redirect of inner) this.redirect(redirect, segment, targets, cwd, ctx);
  }

  /**
   * The body as bash reads it: from the line after the delimiter word to the end line. The grammar
   * sometimes files part of it elsewhere (`\\$(id)` became an argument and the body was empty).
   */
  private heredocText(body: SyntaxNode | null, startEnd: number, end: SyntaxNode | null): string {
    const line = this.src.indexOf('\n', startEnd);
    if (end !== null && line !== -1 && line < end.startIndex) return this.src.slice(line + 1, end.startIndex);
    return body ? this.slice(body) : '';
  }

  /** An unquoted heredoc body (or a word the grammar left unparsed) expands like a "…" string. */
  private walkAsDoubleQuoted(body: string, cwd: Cwd): void {
    const text = heredocAsString(body);
    const tree = this.parse(text);
    if (tree === null) return;
    if (this.misread) {
      this.info.parseOk = false;
      this.reason('parse-error');
    }
    const saved = this.src;
    const tails = this.tails;
    const background = this.background;
    const negations = this.negations;
    this.src = text;
    this.tails = new Map();
    this.background = new Set();
    this.negations = new Set();
    try {
      const string = tree.rootNode.descendantsOfType('string')[0];
      if (string) this.visit(string, 'substitution', cwd);
    } finally {
      this.src = saved;
      this.tails = tails;
      this.background = background;
      this.negations = negations;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Nested payloads
  // -------------------------------------------------------------------------------------------

  private walkNested(list: readonly Nested[]): void {
    for (const nested of list) {
      if (this.nesting >= MAX_NESTING) {
        this.reason('too-deep');
        continue;
      }
      this.nesting++;
      const forced = this.forced;
      const errexit = this.errexit;
      const stdout = this.stdout;
      const shell = this.shell;
      this.forced = 'nested';
      try {
        if (nested.kind === 'argv') {
          const built = buildSegment({ assignments: [], words: nested.words, context: 'nested', cwd: nested.cwd, stdin: null });
          if (nested.found) built.segment.paths = foundPaths(built.segment.paths, nested.found);
          this.info.segments.push(ownReasons(built).segment);
          for (const reason of built.reasons) this.reason(reason);
          this.walkNested(built.nested);
        } else {
          this.errexit = nested.errexit ?? false;
          this.shell = nested.shell ?? 'sh';
          this.parseAndWalk(nested.text, nested.cwd);
        }
      } finally {
        this.nesting--;
        this.forced = forced;
        this.errexit = errexit;
        this.stdout = stdout;
        this.shell = shell;
      }
    }
  }
}

function segmentKey(segment: Segment): string {
  return JSON.stringify([segment.words, segment.cwd]);
}

/** Wrappers that run a builtin in this shell (`command cd x`, `time cd x`). */
const CWD_WRAPPERS: ReadonlySet<string> = new Set(['command', 'builtin', 'time']);

/** The segment keeps the reasons it gave itself: the prompt lists such a command first (docs/approval.md "What the prompt shows"). */
function ownReasons(built: Built): Built {
  if (built.reasons.length > 0) built.segment.unanalyzable = [...new Set(built.reasons)];
  return built;
}

function flowOf(built: Built, cwd: Cwd): Flow {
  if (built.cwdAfter === undefined) return same(cwd);
  return { ok: built.cwdAfter, fail: cwd };
}

function unknownCwd(segment: Segment): void {
  segment.cwd = null;
  for (const path of segment.paths) path.base = null;
}

const STATEMENTS = new Set(['command', 'list', 'pipeline', 'redirected_statement', 'subshell', 'compound_statement', 'if_statement', 'while_statement', 'for_statement', 'c_style_for_statement', 'case_statement', 'function_definition', 'negated_command', 'declaration_command', 'unset_command', 'variable_assignment', 'variable_assignments', 'test_command']);
const isStatement = (type: string): boolean => STATEMENTS.has(type);
/** `| sh` after a heredoc's start: the rest of the heredoc command's pipeline. */
const isPipeTail = (node: SyntaxNode): boolean => node.type === 'pipeline' && ['|', '|&'].includes(node.child(0)?.type ?? '');
const isRedirectOp = (type: string): boolean => /^(&?>>?|>[|&]|<&?|<>|[<>]&-|&>>?)$/.test(type);

/**
 * Whether an evaluating builtin evaluates a value here: `let`; a name with a subscript
 * (`read 'a[i]'`, `unset 'a[i]'`, `exec {a[i]}>f`); `declare -i`/`-n` and compound array
 * assignments; `printf -v`; `test -v`/`-R`. `printf x` and `[ -f x ]` do not.
 */
function evaluatesArguments(name: string, words: readonly Word[]): boolean {
  if (name === 'let') return true;
  const args = words.slice(words.findIndex((word) => word.value === name) + 1);
  return args.some((word) => {
    const text = word.isStatic ? word.value : word.raw;
    if (text.includes('[')) return true;
    if (!word.isStatic || !text.startsWith('-')) return false;
    if (name === 'printf') return /^-\w*v/.test(text);
    if (name === 'test' || name === '[') return text === '-v' || text === '-R';
    return /^-\w*[inA]/.test(text);
  });
}

/** True when `node` is part of a simple command's word (noteEvaluation decides those), not of an assignment, a `for` list or a `case`. */
function inCommandWord(node: SyntaxNode): boolean {
  for (let up = node.parent; up !== null; up = up.parent) {
    if (up.type === 'command') return true;
    if (up.type === 'variable_assignment' || up.type === 'expansion' || isStatement(up.type) || up.type === 'case_item') return false;
  }
  return false;
}

/** printf's format is not static, or a `%b` format meets an argument that is not. */
function printfDecodesRuntimeText(words: readonly Word[]): boolean {
  let i = words.findIndex((word) => word.value === 'printf') + 1;
  while (i < words.length && words[i]!.isStatic && words[i]!.value.startsWith('-')) {
    if (words[i]!.value === '--') {
      i++;
      break;
    }
    i += words[i]!.value === '-v' ? 2 : 1;
  }
  const format = words[i];
  if (format === undefined) return false;
  return !format.isStatic || (/%[^a-zA-Z%]*b/.test(format.value) && words.slice(i + 1).some((word) => !word.isStatic));
}

/** A `&&`/`||` list the grammar made a pipeline stage, under redirections and inner pipelines. */
function holdsList(node: SyntaxNode): boolean {
  if (node.type === 'list') return true;
  if (node.type === 'redirected_statement') return node.children.some((child) => !REDIRECTS.has(child.type) && holdsList(child));
  if (node.type === 'pipeline') return node.children.some(holdsList);
  return false;
}
