import type { SyntaxNode } from './syntax.js';

/**
 * Which shell reads a command text. The model reads bash; `sh` is a POSIX shell that may be dash
 * (Debian's and Ubuntu's /bin/sh, which mcp-server-commands' `child_process.exec` runs), whose
 * language is not a subset of bash's: `echo $'\'; rm -rf x; #'` is one echo to bash and runs rm in
 * dash, `((rm -rf *x))` is arithmetic to bash and two subshells running rm in dash
 * (docs/threat-model.md#the-shell-that-reads-the-text).
 */
export type Dialect = 'bash' | 'sh';

/** The reason a text for a shell that may be dash gets when bash's reading holds a form dash reads otherwise. */
export const SH_DIALECT = 'sh-dialect';

/**
 * Named nodes of tree-sitter-bash that only bash reads so (bash manual "Bash POSIX Mode" and
 * "Major Differences From The Bourne Shell", against dash(1)); dash reads each as other words,
 * other commands or a syntax error after the commands before it ran.
 */
const BASH_NODES: Record<string, string> = {
  ansi_c_string: "$'…' (ANSI-C quoting)",
  translated_string: '$"…" (locale quoting)',
  process_substitution: '<(…)/>(…) (process substitution)',
  brace_expression: '{a,b}/{a..b} (brace expansion)',
  herestring_redirect: '<<< (a here-string)',
  array: 'an array assignment',
  subscript: 'an array subscript',
  c_style_for_statement: 'for ((…)) (an arithmetic for loop)',
  postfix_expression: '++/-- in arithmetic',
};

/** Tokens only bash has. `((` and `[[` start bash's arithmetic and conditional commands. */
const BASH_TOKENS: Record<string, string> = {
  '((': '((…)) (an arithmetic command)',
  '[[': '[[…]] (a conditional command)',
  '$[': '$[…] (old arithmetic expansion)',
  '&>': '&> (a redirection of both outputs)',
  '&>>': '&>> (a redirection of both outputs)',
  '|&': '|& (a pipe of both outputs)',
  ';&': ';& in case',
  ';;&': ';;& in case',
  '+=': '+= (an appending assignment)',
  '<<<': '<<< (a here-string)',
  '<(': '<(…) (process substitution)',
  '>(': '>(…) (process substitution)',
  function: 'the function keyword',
  select: 'select',
  declare: 'declare',
  typeset: 'typeset',
  '=~': '=~ (a regular expression match)',
  '**': '** in arithmetic',
  '**=': '**= in arithmetic',
  '++': '++ in arithmetic',
  '--': '-- in arithmetic',
};

/**
 * bash's keywords and builtins dash does not have: in dash each is a program looked up in PATH
 * (`time -o FILE cmd` is GNU time writing FILE; bash's `time` keyword times the pipeline).
 */
const BASH_COMMANDS: ReadonlySet<string> = new Set(['time', 'coproc', 'let', 'source', 'declare', 'typeset', 'shopt', 'enable', 'mapfile', 'readarray', 'pushd', 'popd', 'dirs', 'disown', 'caller', 'compgen', 'complete', 'compopt', 'bind', 'builtin', 'help', 'history', 'logout', 'suspend']);

/**
 * dash's builtins bash does not have: `chdir` is dash's `cd`, a program (mostly not installed) in
 * bash, so bash's reading misses the directory change (round 19 review of late commits, F1). Found
 * as any word, not only a command name: `command chdir d` runs the builtin too; a text holding the
 * word elsewhere (`echo chdir`) is read as dash-only as well, which only asks.
 */
const DASH_ONLY_WORD = /(?:^|[^\w./-])chdir(?:$|[^\w./-])/;

/** The reason a text for `sh` gets for `form`, a form dash reads otherwise (named for the person). */
export function shDialectReason(form: string): string {
  return `${SH_DIALECT}: sh may be dash (Debian's and Ubuntu's /bin/sh), which does not read ${form} as bash does`;
}

/**
 * `exec` followed by a word that starts with `-`: bash's exec takes `-a NAME`, `-c`, `-l` and `--`
 * before the command (bash manual, "Bourne Shell Builtins"); dash's takes no options (dash(1):
 * `exec [command arg ...]`), so it looks the word up in PATH as the program: `exec -a foo echo hi`
 * prints hi in bash, "exec: -a: not found" in dash (round 19 review of late commits, F2). A lone
 * `-` is a program to both.
 */
export function dashExecForm(first: { isStatic: boolean; value: string } | undefined): string | null {
  return first !== undefined && first.isStatic && first.value.length > 1 && first.value.startsWith('-') ? "exec -a/-c/-l/-- (bash's exec options; dash's exec runs a program of that name from PATH)" : null;
}

/** The dash-only builtin `text` names, described for the reason; null when none. */
export function dashOnlyWord(text: string): string | null {
  return text.includes('chdir') && DASH_ONLY_WORD.test(text) ? 'chdir (a dash builtin that changes directory like cd; a program in bash)' : null;
}

/** `${name}`, `${#name}`, `${name<op>word}` with POSIX's operators; anything else (`${x/a/b}`, `${x:1}`, `${!x}`, `${x^^}`, `${x@Q}`) is bash's. */
const POSIX_EXPANSION = /^\$\{(?:#?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[-@*#?$!])|#)(?:\}|:?[-=?+]|##?|%%?)/;

/** Parts of a word whose text bash and dash both take as it is (quoted) or that the checks above see (expansions). */
const OPAQUE_PARTS: ReadonlySet<string> = new Set(['string', 'raw_string', 'ansi_c_string', 'translated_string', 'expansion', 'simple_expansion', 'command_substitution', 'arithmetic_expansion', 'process_substitution']);

/**
 * The first form in `root` (bash's reading of `text`) that dash reads otherwise, described for the
 * reason; null when none. Up to the first such form both shells split the text alike, so a text
 * with none is one reading for both.
 */
export function dashReadsOtherwise(root: SyntaxNode, text: string): string | null {
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const found = bashForm(node, text);
    if (found !== null) return found;
    for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k]!);
  }
  return null;
}

/**
 * dashReadsOtherwise of a tree the plain-text reader built (plain-text.ts), from its command names
 * in text order: of that subset's nodes only a command name can be a form dash reads otherwise.
 * The others, by bashForm below: no type of BASH_NODES or BASH_TOKENS is built; a `string` is a
 * whole double-quoted word after a space, so neither `$"` nor a `$` before it; a `>&` target is one
 * digit; a word holds no `{ [ ~` and no glob, so wordForm finds none of its forms. Walking the
 * tree's nodes for this cost ~1 µs of the bench's new text (docs/performance.md "Round 19:
 * decision time"); plain-text.test.ts compares both on every accepted seeded text.
 */
export function dashReadsPlainOtherwise(names: readonly string[]): string | null {
  for (const name of names) if (BASH_COMMANDS.has(name)) return commandForm(name);
  return null;
}

function commandForm(name: string): string {
  return `${name} (a bash keyword or builtin; a program in dash)`;
}

function bashForm(node: SyntaxNode, text: string): string | null {
  const type = node.type;
  if (node.isNamed) {
    if (Object.hasOwn(BASH_NODES, type) && !(type === 'brace_expression' && isAssignedValue(node))) return BASH_NODES[type]!;
    // The node's text only for the types read below (a slice per node was most of this walk's allocation).
    switch (type) {
      case 'string': {
        // The grammar reads `$"…"` as a string that starts at the `$`.
        // After a word (`a$"x"`) the `$` ends that word; an odd run of backslashes before it escapes it.
        const translated = (node.endIndex - node.startIndex >= 2 && text.startsWith('$"', node.startIndex)) || /(?:^|[^\\])(?:\\\\)*\$$/.test(text.slice(node.previousSibling?.startIndex ?? node.startIndex, node.startIndex));
        return translated ? BASH_NODES['translated_string']! : null;
      }
      case 'expansion': {
        const slice = text.slice(node.startIndex, node.endIndex);
        return POSIX_EXPANSION.test(slice) ? null : `${slice.slice(0, 24)} (a bash parameter expansion)`;
      }
      case 'arithmetic_expansion':
        return text.slice(node.startIndex, node.endIndex).includes('#') ? 'base# or # in arithmetic' : null;
      case 'command_name': {
        const slice = text.slice(node.startIndex, node.endIndex);
        return BASH_COMMANDS.has(slice) ? commandForm(slice) : null;
      }
      case 'file_redirect':
        return redirectForm(node, text);
      case 'extglob_pattern':
        // The grammar names any case or `==` pattern so (`*)` too); only `?(`, `*(`, `+(`, `@(`, `!(` are bash's extglob.
        if (/[?*+@!]\(/.test(text.slice(node.startIndex, node.endIndex))) return '?(…)/*(…)/@(…) (an extended glob)';
        return node.parent?.type !== 'concatenation' ? wordForm(node, text) : null;
      case 'word':
      case 'concatenation':
        return node.parent?.type !== 'concatenation' ? wordForm(node, text) : null;
      default:
        return null;
    }
  }
  // POSIX arithmetic has the assignment operators: `$((x+=2))` is the same in dash (round 16, both shells run).
  if (type === '+=' && inArithmetic(node)) return null;
  if (Object.hasOwn(BASH_TOKENS, type)) return BASH_TOKENS[type]!;
  // dash's test knows `=` only: `[ a == a ] || CMD` runs CMD in dash.
  if (type === '==' && node.parent?.type === 'binary_expression' && node.parent.parent?.type === 'test_command') return '== in [ ] (dash knows only =)';
  return null;
}

/** Whether `node` is (a part of) an assignment's value, which neither shell brace-expands, outside a declaration builtin (see wordForm). */
function isAssignedValue(node: SyntaxNode): boolean {
  const value = node.parent?.type === 'concatenation' ? node.parent : node;
  return value.parent?.type === 'variable_assignment' && value.parent.parent?.type !== 'declaration_command';
}

/** Whether `node` is inside `$((…))` of the same command text (not inside a substitution in it). */
function inArithmetic(node: SyntaxNode): boolean {
  for (let p = node.parent; p !== null; p = p.parent) {
    if (p.type === 'arithmetic_expansion') return true;
    if (p.type === 'command_substitution' || p.type === 'subscript') return false;
  }
  return false;
}

/** `>&FILE`/`<&FILE` with a word that is not a descriptor: bash's `&>FILE`, a syntax error in dash. */
function redirectForm(node: SyntaxNode, text: string): string | null {
  const op = node.children.find((child) => child.type === '>&' || child.type === '<&');
  if (!op) return null;
  const target = node.children[node.children.indexOf(op) + 1];
  if (target && !/^(?:[0-9]+|-)$/.test(text.slice(target.startIndex, target.endIndex))) return `${op.type}WORD (bash's redirection of both outputs to a file)`;
  return null;
}

/**
 * A word's unquoted text (quoted parts and expansions replaced by `x`, escaped characters too),
 * checked for what bash expands and dash does not, or the reverse.
 */
function wordForm(node: SyntaxNode, text: string): string | null {
  // Every check below needs one of `{ [ ~ .` in the skeleton, made of this text and `x`s: a word
  // without them (most words) has none of the forms.
  if (!holdsAny(text, node.startIndex, node.endIndex)) return null;
  let skeleton = '';
  let at = node.startIndex;
  const parts = node.type === 'concatenation' ? node.children : [];
  for (const part of parts) {
    if (!OPAQUE_PARTS.has(part.type)) continue;
    skeleton += text.slice(at, part.startIndex) + 'x';
    at = part.endIndex;
  }
  skeleton += text.slice(at, node.endIndex);
  skeleton = skeleton.replace(/\\[\s\S]/g, 'x');
  // Neither shell expands braces or pathnames in an assignment's value (`x={a,b}`, `x=[^a]`, `x=.*`;
  // bash manual "Simple Command Expansion"): those forms are words' only. bash brace-expands a
  // declaration builtin's argument (`export x={a,b}` set x=b, bash 5.2), dash does not.
  const globbed = node.parent?.type !== 'variable_assignment';
  if (!isAssignedValue(node) && /\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}/.test(skeleton)) return BASH_NODES['brace_expression']!;
  if (/^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(skeleton) && /^[<>]/.test(text.slice(node.endIndex))) return '{NAME}> (a named descriptor)';
  // bash reads `[^s]` as "not s"; dash as the set of `^` and `s` (`cat [^s]ecret` reads secret in
  // dash). Without a closing `]` (`a[^b`) it is no bracket in either.
  if (globbed && /\[\^[\s\S][\s\S]*\]/.test(skeleton)) return '[^…] (a negated bracket in bash, a plain one in dash)';
  // bash's `~+` is $PWD, `~-` $OLDPWD, `~N` the directory stack; dash looks up a user named `+` and
  // keeps the word: `cat ~+/x` reads ./~+/x, a directory or link of that name, in dash.
  if (/(?:^|[=:])~[-+0-9]/.test(skeleton)) return '~+, ~- or ~N (bash\'s directory tilde; a plain name in dash)';
  // bash expands `~` after `=` and `:` in any word that looks like an assignment; dash only in assignments.
  if (node.parent?.type !== 'variable_assignment' && /[=:]~/.test(skeleton)) return '=~/ or :~/ in an argument (bash expands that ~, dash does not)';
  // bash 5.2 (globskipdots) never matches `.` and `..` with `.*`; dash does. A pattern that cannot
  // match them (`.g*`, `./*.ts`, `.*.ts`) is read alike.
  if (globbed && skeleton.split('/').some(matchesDots)) return '.* (a glob that matches . and .. in dash)';
  return null;
}

/**
 * Whether a path component that starts with `.` and holds a glob (`.*`, `.?`, `.[!a]`) can match
 * `.` or `..`: the rest matches "" or "." (each `*` anything, `?` one character, a bracket `.` when
 * it may hold it). A bracket with a character class, or with `^` (two readings), counts as holding it.
 */
function matchesDots(component: string): boolean {
  if (!component.startsWith('.') || !/[*?[]/.test(component)) return false;
  let others = 0;
  let dot = true;
  for (let i = 1; i < component.length; i++) {
    const c = component[i]!;
    if (c === '*') continue;
    others++;
    if (c === '?') continue;
    if (c !== '[') {
      dot &&= c === '.';
      continue;
    }
    const close = component.indexOf(']', i + (/[!^]/.test(component[i + 1] ?? '') ? 3 : 2));
    if (close === -1) {
      dot = false; // a literal `[`
      continue;
    }
    const body = component.slice(i + 1, close);
    i = close;
    dot &&= bracketHoldsDot(body);
  }
  return others === 0 || (others === 1 && dot);
}

function bracketHoldsDot(body: string): boolean {
  if (body.startsWith('^') || body.includes('[:')) return true;
  const negated = body.startsWith('!');
  const set = negated ? body.slice(1) : body;
  let holds = false;
  for (let k = 0; k < set.length; k++) {
    if (set[k + 1] === '-' && k + 2 < set.length) {
      if (set[k]! <= '.' && '.' <= set[k + 2]!) holds = true;
      k += 2;
    } else if (set[k] === '.') holds = true;
  }
  return negated ? !holds : holds;
}

/** Whether `text` between `start` and `end` holds `{`, `[`, `~` or `.`. */
function holdsAny(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b || c === 0x7e || c === 0x2e) return true;
  }
  return false;
}
