import { SyntaxNode, type SyntaxTree } from './syntax.js';

/**
 * A reader for plain command texts: the tree the grammar path gives (tree-sitter-bash's tree, read
 * by syntax.ts, with its dropped words put back and rebuilt into bash's precedence: `asBashReads`
 * in precedence.ts), built without the grammar, for a subset of texts where bash's reading is
 * trivial. Anything outside the subset returns null and is parsed by the grammar as before. Why
 * bash splits the subset the way this reader does, from the bash manual:
 * docs/design.md#the-plain-text-reader; the trees are compared with the grammar path's on seeded
 * texts in and around the subset (test/subjects/plain-text.test.ts) and on a few texts at start-up
 * (parser.ts).
 *
 * The subset:
 *   - characters: ASCII letters, digits, `-_./=:,@%+`, the space, and the operators below; no
 *     `$`, backticks, globs, braces, `~`, `#`, parentheses, `<`, `!`, backslash, tab or newline
 *     outside quotes;
 *   - arguments may be whole quoted words of printable ASCII: `'…'`, and `"…"` without `$`, a
 *     backquote, a backslash or `!` (not a command's name, not a redirection's target, not
 *     joined to another part: `a'b'` is left to the grammar);
 *   - simple commands joined by `&&`, `||`, `|` and `;` (never first, last, or two in a row);
 *   - after the command's words, redirections `>w`, `>>w`, `[d]>w`, `[d]>>w`, `[d]>&e` (d, e one
 *     digit, e right after `>&`), each with one target word;
 *   - a command's first word is not a reserved word or one the grammar treats as a keyword
 *     (RESERVED) and holds no `=` (no assignment); no argument is `==`/`=~`-led (test operators
 *     to the grammar).
 *
 * The tree, in bash's precedence (bash manual, "Pipelines", "Lists of Commands"): a word that is
 * all digits (optionally `-` and `0x` first) is a `number`, as the grammar has it; a command with
 * redirections is a `redirected_statement` of the command and them; stages joined by `|` are one
 * flat `pipeline`; pipelines joined by `&&`/`||` are left-nested `list`s; statements joined by `;`
 * are the program's children.
 *
 * The sh-dialect check reads only the command names of such a tree (dialect.ts
 * dashReadsPlainOtherwise): widening the subset to a form dash reads otherwise (`$'…'`, braces,
 * `&>`, `|&`, `[`, `~`, globs, a `>&` target that is not a digit) must widen that check too
 * (plain-text.test.ts compares the two on every accepted seeded text).
 */

/** Words the grammar or bash treat as something other than a command name when they come first. */
const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'for', 'while', 'until', 'do', 'done', 'case', 'esac', 'function', 'select', 'time', 'coproc', 'in', 'declare', 'typeset', 'export', 'readonly', 'local', 'unset', 'unsetenv']);

const NUMBER = /^-?(?:0x)?[0-9]+$/;
/**
 * A command name: no `=` (an assignment), no `%` or `@` (the grammar reads `a@b` as a variable name
 * and an error), no `+:` (the grammar reads `a+:` as `a+` of an assignment and an error), and not
 * led by `-`, `+` or punctuation (the grammar drops a lone `-` there).
 */
const COMMAND_NAME = /^[A-Za-z0-9_./](?:[A-Za-z0-9_./:,-]|\+(?!:))*$/;

const SPACE = 0x20;
const GT = 0x3e;
const AMP = 0x26;
const BAR = 0x7c;
const SEMI = 0x3b;
const SQUOTE = 0x27;
const DQUOTE = 0x22;

/** Characters of a word: letters, digits and `-_./=:,@%+`. */
const WORD_CHAR = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@%+') WORD_CHAR[c.charCodeAt(0)] = 1;

const enum Kind {
  Word,
  /** A whole word in single quotes: `'a b'`. */
  Raw,
  /** A whole word in double quotes without `$`, backquote, backslash or `!`: `"a b"`. */
  Quoted,
  /** A one-digit word right before `>`. */
  Descriptor,
  /** `>`, `>>` or `>&`. */
  Redirect,
  And,
  Or,
  Pipe,
  Semicolon,
}

interface Token {
  kind: Kind;
  start: number;
  end: number;
}

function isWordChar(c: number): boolean {
  return c < 128 && WORD_CHAR[c] === 1;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** The text's tokens, or null at anything outside the subset's characters and operators. */
function tokenize(text: string): Token[] | null {
  const tokens: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === SPACE) {
      i++;
    } else if (isWordChar(c)) {
      let j = i + 1;
      while (j < n && isWordChar(text.charCodeAt(j))) j++;
      // `a'b'`, `a"b"`: one word of several parts (a concatenation), left to the grammar.
      if (j < n && (text.charCodeAt(j) === SQUOTE || text.charCodeAt(j) === DQUOTE)) return null;
      if (j < n && text.charCodeAt(j) === GT && !isLetter(c)) {
        // `2>`: a descriptor. More than one digit is left to the grammar, and so is `0>` (the
        // grammar reads the 0 as an argument) and any other word right before `>` not led by a
        // letter (it reads `-5>f` as descriptor -5).
        if (j - i !== 1 || c < 0x31 || c > 0x39) return null;
        tokens.push({ kind: Kind.Descriptor, start: i, end: j });
      } else {
        tokens.push({ kind: Kind.Word, start: i, end: j });
      }
      i = j;
    } else if (c === SQUOTE || c === DQUOTE) {
      // A whole quoted word of printable ASCII: nothing in it is special to bash in single quotes,
      // nor in double quotes without `$`, a backquote, a backslash (and `!`, history expansion
      // in an interactive shell). It must end where a word ends: a space, `|`, `&`, `;` or the end.
      let j = i + 1;
      while (j < n && text.charCodeAt(j) !== c && isQuotedChar(text.charCodeAt(j), c === DQUOTE)) j++;
      if (j === n || text.charCodeAt(j) !== c) return null;
      j++;
      const after = text.charCodeAt(j);
      if (j < n && after !== SPACE && after !== BAR && after !== AMP && after !== SEMI) return null;
      tokens.push({ kind: c === SQUOTE ? Kind.Raw : Kind.Quoted, start: i, end: j });
      i = j;
    } else if (c === GT) {
      const next = text.charCodeAt(i + 1);
      const end = next === GT || next === AMP ? i + 2 : i + 1;
      tokens.push({ kind: Kind.Redirect, start: i, end });
      i = end;
    } else if (c === AMP) {
      if (text.charCodeAt(i + 1) !== AMP) return null;
      tokens.push({ kind: Kind.And, start: i, end: i + 2 });
      i += 2;
    } else if (c === BAR) {
      const next = text.charCodeAt(i + 1);
      if (next === AMP) return null;
      const end = next === BAR ? i + 2 : i + 1;
      tokens.push({ kind: end === i + 2 ? Kind.Or : Kind.Pipe, start: i, end });
      i = end;
    } else if (c === SEMI) {
      tokens.push({ kind: Kind.Semicolon, start: i, end: i + 1 });
      i++;
    } else {
      return null;
    }
  }
  return tokens;
}

/** A character of a quoted word (besides its closing quote): printable ASCII; in double quotes not `$`, a backquote, a backslash or `!`. */
function isQuotedChar(c: number, double: boolean): boolean {
  if (c < 0x20 || c > 0x7e) return false;
  return !double || (c !== 0x24 && c !== 0x60 && c !== 0x5c && c !== 0x21);
}

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function leaf(type: string, isNamed: boolean, token: Token): SyntaxNode {
  return new SyntaxNode(type, isNamed, token.start, token.end, null, 0);
}

function branch(type: string, children: SyntaxNode[]): SyntaxNode {
  const node = new SyntaxNode(type, true, children[0]!.startIndex, children[children.length - 1]!.endIndex, null, 0);
  for (const child of children) node.append(child);
  return node;
}

function literal(text: string, token: Token): SyntaxNode {
  if (token.kind === Kind.Raw) return leaf('raw_string', true, token);
  if (token.kind === Kind.Quoted) {
    // The grammar's `string`: its quotes, and the text between them when there is some.
    const { start, end } = token;
    const string = new SyntaxNode('string', true, start, end, null, 0);
    string.append(new SyntaxNode('"', false, start, start + 1, null, 0));
    if (end - start > 2) string.append(new SyntaxNode('string_content', true, start + 1, end - 1, null, 0));
    string.append(new SyntaxNode('"', false, end - 1, end, null, 0));
    return string;
  }
  return leaf(isNumber(text, token.start, token.end) ? 'number' : 'word', true, token);
}

function isArgument(token: Token | undefined): boolean {
  return token !== undefined && (token.kind === Kind.Word || token.kind === Kind.Raw || token.kind === Kind.Quoted);
}

/** NUMBER, without slicing the word out. */
function isNumber(text: string, start: number, end: number): boolean {
  let k = start;
  if (text.charCodeAt(k) === 0x2d) k++;
  if (text.charCodeAt(k) === 0x30 && text.charCodeAt(k + 1) === 0x78) k += 2;
  if (k === end) return false;
  for (; k < end; k++) if (!isDigit(text.charCodeAt(k))) return false;
  return true;
}

/**
 * The tree the grammar path gives for `text` (the grammar's tree with its dropped words put back
 * and rebuilt into bash's precedence: `asBashReads` in precedence.ts), or null when `text` is
 * outside the subset above, to be parsed by the grammar.
 */
export function readPlainText(text: string): SyntaxTree | null {
  const tokens = tokenize(text);
  if (tokens === null || tokens.length === 0) return null;
  const count = tokens.length;
  const program = new SyntaxNode('program', true, tokens[0]!.start, text.length, null, 0);
  const names: string[] = [];
  let k = 0;
  for (;;) {
    // One statement: pipelines joined by && and ||, nested to the left.
    let statement: SyntaxNode | null = null;
    let op: SyntaxNode | null = null;
    for (;;) {
      // One pipeline: stages joined by |.
      const stages: SyntaxNode[] = [];
      for (;;) {
        const stage = readStage(text, tokens, k, names);
        if (stage === null) return null;
        stages.push(stage.node);
        k = stage.next;
        const next = tokens[k];
        if (next === undefined || next.kind !== Kind.Pipe) break;
        stages.push(leaf('|', false, next));
        k++;
      }
      const pipeline = stages.length === 1 ? stages[0]! : branch('pipeline', stages);
      statement = statement === null ? pipeline : branch('list', [statement, op!, pipeline]);
      const next = tokens[k];
      if (next === undefined || (next.kind !== Kind.And && next.kind !== Kind.Or)) break;
      op = leaf(next.kind === Kind.And ? '&&' : '||', false, next);
      k++;
    }
    program.append(statement);
    if (k === count) return { rootNode: program, hasError: false, commandNames: names };
    // A `;` with a command after it.
    if (tokens[k]!.kind !== Kind.Semicolon) return null;
    program.append(leaf(';', false, tokens[k]!));
    k++;
    if (k === count) return null;
  }
}

/**
 * The stage at tokens[k]: a simple command, in a `redirected_statement` with the redirections
 * written after it; and the index of the token after it. Null outside the subset. Its command's
 * name goes into `names`.
 */
function readStage(text: string, tokens: Token[], k: number, names: string[]): { node: SyntaxNode; next: number } | null {
  const count = tokens.length;
  const name = tokens[k];
  if (name === undefined || name.kind !== Kind.Word) return null;
  const first = text.slice(name.start, name.end);
  if (!COMMAND_NAME.test(first) || RESERVED.has(first) || NUMBER.test(first)) return null;
  names.push(first);
  let last = k + 1;
  while (last < count && isArgument(tokens[last])) {
    const arg = tokens[last]!;
    const c = text.charCodeAt(arg.start);
    const d = text.charCodeAt(arg.start + 1);
    if (c === 0x3d && (d === 0x3d || d === 0x7e)) return null;
    // The grammar drops a lone `-` right before a descriptor (`cat - 2>e`).
    if (c === 0x2d && arg.end === arg.start + 1 && tokens[last + 1]?.kind === Kind.Descriptor) return null;
    last++;
  }
  const command = new SyntaxNode('command', true, name.start, tokens[last - 1]!.end, null, 0);
  const commandName = new SyntaxNode('command_name', true, name.start, name.end, null, 0);
  commandName.append(literal(text, name));
  command.append(commandName);
  for (let a = k + 1; a < last; a++) command.append(literal(text, tokens[a]!));
  k = last;
  if (k === count || (tokens[k]!.kind !== Kind.Descriptor && tokens[k]!.kind !== Kind.Redirect)) return { node: command, next: k };
  const children = [command];
  while (k < count && (tokens[k]!.kind === Kind.Descriptor || tokens[k]!.kind === Kind.Redirect)) {
    const redirect = redirection(text, tokens, k);
    if (redirect === null) return null;
    children.push(redirect);
    k += redirect.children.length;
  }
  // A word after a redirection's target is refused (the grammar adds it to the target).
  if (isArgument(tokens[k])) return null;
  return { node: branch('redirected_statement', children), next: k };
}

/** The redirection at tokens[k]: `[d]>w`, `[d]>>w` or `[d]>&e`; null outside the subset. */
function redirection(text: string, tokens: Token[], k: number): SyntaxNode | null {
  const parts: SyntaxNode[] = [];
  let token = tokens[k]!;
  if (token.kind === Kind.Descriptor) {
    parts.push(leaf('file_descriptor', true, token));
    token = tokens[++k]!;
    if (token === undefined || token.kind !== Kind.Redirect) return null;
  }
  const op = text.slice(token.start, token.end);
  parts.push(leaf(op, false, token));
  const target = tokens[k + 1];
  if (target === undefined || target.kind !== Kind.Word) return null;
  // `>&` takes a descriptor right after it: `>&1`, not `>& 1` or `>&file`.
  if (op === '>&' && (target.start !== token.end || target.end - target.start !== 1 || !isDigit(text.charCodeAt(target.start)))) return null;
  parts.push(literal(text, target));
  return branch('file_redirect', parts);
}
