import type { SyntaxNode as Node, SyntaxTree as Tree } from './syntax.js';

/**
 * The two places where tree-sitter-bash and bash disagree in a way that hides commands
 * (docs/design.md#what-the-gateway-works-out-for-each-call), handled on the text:
 *
 *   (a) `r\⏎m -rf /`: bash joins the halves (`rm`), the grammar splits the word. Continuations
 *       outside '…', $'…', comments and quoted heredoc bodies are removed before parsing again.
 *       `echo ok # note \⏎rm -rf /` keeps its newline: a comment ends there and `rm` runs.
 *   (b) `cat <<EOF⏎  $(id)⏎EOF`: the grammar drops expansions after leading whitespace and never
 *       parses backticks in heredoc bodies. Bodies are scanned here and re-parsed as a "…" string.
 */

export interface Joined {
  /** `\<LF>` removed; `\<CR><LF>` kept as bash reads it (an escaped character, then a newline; the CR shown as `r`). */
  lf: string;
  /** Both `\<LF>` and `\<CR><LF>` removed: the reading of a shell that normalises CRLF first. */
  all: string;
  /** A `\<CR><LF>` continuation was found. */
  crlf: boolean;
}

/** Guard (a). `tree` is the parse of `text`, used to find where a backslash-newline is literal. */
export function joinContinuations(text: string, tree: Tree): Joined {
  const skips = literalRanges(text, tree);
  const skipped = (at: number): boolean => skips.some(([start, end]) => at >= start && at < end);
  let lf = '';
  let all = '';
  let crlf = false;
  let last = 0;
  const re = /\\(\r?)\n/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const at = m.index;
    let run = 0;
    while (at - run >= 0 && text[at - run] === '\\') run++;
    // `\\⏎` is an escaped backslash followed by a real newline.
    if (run % 2 === 0 || skipped(at)) continue;
    const before = text.slice(last, at);
    if (m[1] === '\r') {
      crlf = true;
      lf += `${before}\\r\n`;
    } else {
      lf += before;
    }
    all += before;
    last = at + m[0].length;
  }
  return { lf: lf + text.slice(last), all: all + text.slice(last), crlf };
}

/** Ranges where bash keeps a backslash-newline as it is. */
function literalRanges(text: string, tree: Tree): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const stack: Node[] = [tree.rootNode];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const type = node.type;
    if (type === 'raw_string' || type === 'ansi_c_string' || type === 'comment') {
      ranges.push([node.startIndex, node.endIndex]);
      continue;
    }
    if (type === 'heredoc_redirect') {
      const start = node.children.find((c) => c.type === 'heredoc_start');
      const body = node.children.find((c) => c.type === 'heredoc_body');
      if (start && body && isQuotedDelimiter(text.slice(start.startIndex, start.endIndex))) ranges.push([body.startIndex, body.endIndex]);
    }
    for (const child of node.children) stack.push(child);
  }
  return ranges;
}

/**
 * Guard (c), a net under the grammar: an unescaped backtick or `$(` outside '…', $'…', comments
 * and quoted heredocs is a command substitution for bash. True when one is there (the caller asks
 * only when the walk recorded none: the grammar took it for text, as in `${x:-\`id\`}`).
 */
export function hasSubstitutionText(text: string, tree: Tree): boolean {
  const re = /`|\$\((?!\()/g;
  let ranges: Array<[number, number]> | null = null;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const at = m.index;
    let run = 0;
    while (at - run - 1 >= 0 && text[at - run - 1] === '\\') run++;
    if (run % 2 === 1) continue;
    ranges ??= literalRanges(text, tree);
    if (!ranges.some(([start, end]) => at >= start && at < end)) return true;
  }
  return false;
}

/** `<<'EOF'`, `<<"EOF"`, `<<E\OF`: any quoting makes the body literal (bash), whatever the grammar says. */
export function isQuotedDelimiter(start: string): boolean {
  return /['"\\]/.test(start);
}

/** Guard (b): a command substitution in an unquoted heredoc body (`$(` or a backtick not escaped). */
export const HEREDOC_SUBSTITUTION = /(^|[^\\])(\\\\)*(\$\(|`)/;
/** `${x@P}` or `${!x}` in an unquoted heredoc body. */
export const HEREDOC_EXPANSION = /(^|[^\\])(\\\\)*\$\{(!|[^}]*@[PEAKak]\})/;

/** An unquoted heredoc body as the "…" string it expands like (`"` is literal in a heredoc, so it is escaped). */
export function heredocAsString(body: string): string {
  let quoted = '"';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === '\\' && i + 1 < body.length && '$`\\\n'.includes(body[i + 1]!)) quoted += ch + body[++i]!;
    else if (ch === '\\') quoted += '\\\\';
    else if (ch === '"') quoted += '\\"';
    else quoted += ch;
  }
  return `${quoted}"`;
}

/**
 * Guard (e): a heredoc whose line ends in an operator (`cat <<E &&⏎body⏎E⏎echo ok`, `cat <<E |⏎…`).
 * bash reads the bodies after that line's newline, then goes on with the command line after them
 * (bash manual, "Here Documents": the lines read are those that follow; the list or pipeline
 * continues after a newline that follows `&&`, `||` or `|`). The grammar takes the first body line
 * for the command after the operator. The next command line after the bodies (blank and comment
 * lines skipped, as bash skips them there) is moved up to the end of the heredoc's line (before a
 * comment there), which reads the same for bash: `cat <<E && echo ok⏎body⏎E⏎`. One line per call
 * (the moved line may end in an operator again); null when there is none, or its shape is not this
 * simple one (a parenthesis, `${` or a backtick on either line, an unclosed quote, a body never
 * ended, a heredoc on the moved line after skipped lines): it stays a parse error, which asks.
 */
export function moveHeredocRest(text: string, tree: Tree): string | null {
  const starts: Node[] = [];
  const stack: Node[] = [tree.rootNode];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'heredoc_start') starts.push(node);
    else for (const child of node.children) stack.push(child);
  }
  starts.sort((a, b) => a.startIndex - b.startIndex);
  const tried = new Set<number>();
  for (const start of starts) {
    const end = text.indexOf('\n', start.endIndex);
    if (end === -1 || tried.has(end)) continue;
    tried.add(end);
    const op = start.parent?.children.find((child) => child.type === '<<' || child.type === '<<-');
    if (op === undefined) continue;
    const moved = moveLine(text, op.startIndex, end);
    if (moved !== null) return moved;
  }
  return null;
}

/** The text with the command line after the bodies of the heredocs on `[from, end)` moved up to `end`, or null. */
function moveLine(text: string, from: number, end: number): string | null {
  const line0 = heredocDelimiters(text, from, end);
  if (line0 === null || line0.delimiters.length === 0) return null;
  const { delimiters, code } = line0;
  if (!/(^|[^\\])(&&|\|\||\|&?)[ \t]*$/.test(text.slice(from, code))) return null;
  let at = end + 1;
  const line = (): string | null => {
    if (at >= text.length) return null;
    const nl = text.indexOf('\n', at);
    const read = text.slice(at, nl === -1 ? text.length : nl);
    at = nl === -1 ? text.length : nl + 1;
    return read;
  };
  for (const { word, strip } of delimiters) {
    for (let read = line(); read !== word && (!strip || read?.replace(/^\t+/, '') !== word); read = line()) if (read === null) return null;
  }
  const bodiesEnd = at;
  while (at < text.length && /^[ \t]*(#[^\n]*)?(\n|$)/.test(text.slice(at, text.indexOf('\n', at) + 1 || text.length))) line();
  if (at >= text.length) return null;
  const restStart = at;
  const nl = text.indexOf('\n', restStart);
  const restEnd = nl === -1 ? text.length : nl;
  const rest = heredocDelimiters(text, restStart, restEnd);
  // A heredoc of its own on the moved line would read the skipped lines as its body.
  if (rest === null || text[restEnd - 1] === '\\' || (rest.delimiters.length > 0 && restStart !== bodiesEnd)) return null;
  // Before a comment that ends the heredoc's line (`cat <<E && # why`).
  const gap = code < end ? ' ' : '';
  return `${text.slice(0, code)} ${text.slice(restStart, restEnd)}${gap}${text.slice(code, restStart)}${text.slice(restEnd + 1)}`;
}

/**
 * The delimiters of the heredocs started on `[from, end)`, quotes removed, in order, and where a
 * comment starts (`code`; `end` without one); null when the text there has a parenthesis (an
 * arithmetic `<<`, a `$(` that could hold a newline), `${`, a backtick or a quote not closed before `end`.
 */
function heredocDelimiters(text: string, from: number, end: number): { delimiters: Array<{ word: string; strip: boolean }>; code: number } | null {
  const out: Array<{ word: string; strip: boolean }> = [];
  const close = (i: number, quote: string): number => {
    for (let j = i + 1; j < end; j++) {
      if (quote === '"' && text[j] === '\\') j++;
      else if (text[j] === quote) return j;
    }
    return -1;
  };
  let i = from;
  while (i < end) {
    const ch = text[i]!;
    if (ch === '\\') {
      i += 2;
    } else if (ch === "'" || ch === '"') {
      const j = close(i, ch);
      if (j === -1) return null;
      i = j + 1;
    } else if (ch === '`' || ch === '(' || ch === ')' || (ch === '$' && text[i + 1] === '{')) {
      // Security: `((1 << 2))` is no heredoc; a `$(`, `${` or backtick may hold a newline.
      return null;
    } else if (ch === '#' && (i === from || /[\s;&|()<>]/.test(text[i - 1]!))) {
      return { delimiters: out, code: i };
    } else if (text.startsWith('<<<', i)) {
      i += 3;
    } else if (text.startsWith('<<', i)) {
      const strip = text[i + 2] === '-';
      i += strip ? 3 : 2;
      while (text[i] === ' ' || text[i] === '\t') i++;
      let word = '';
      while (i < end && !/[\s;&|()<>]/.test(text[i]!)) {
        const c = text[i]!;
        if (c === "'" || c === '"') {
          const j = close(i, c);
          if (j === -1) return null;
          word += c === '"' ? text.slice(i + 1, j).replace(/\\([$`"\\])/g, '$1') : text.slice(i + 1, j);
          i = j + 1;
        } else if (c === '\\') {
          word += text[i + 1] ?? '';
          i += 2;
        } else if (c === '$' || c === '`') {
          return null;
        } else {
          word += c;
          i++;
        }
      }
      if (word === '') return null;
      out.push({ word, strip });
    } else {
      i++;
    }
  }
  return { delimiters: out, code: end };
}

/** Reserved words that start a compound command (after `time` or `coproc`). */
const COMPOUND_STARTS = new Set(['{', 'if', 'while', 'until', 'for', 'case', 'select', '[[', '!', 'function']);

export interface Blanked {
  /** The text with each `time [-p]` / `coproc [NAME]` / `!` before a compound command replaced by spaces. */
  text: string;
  /** Offsets of the compound commands a `coproc` ran (in a subshell, in the background). */
  background: number[];
  /** Offsets of the pipelines a `!` inverted (their first compound command starts there). */
  negated: number[];
}

/** Reserved words that start a compound command the grammar cannot read after `!` (it reads `! {` as a command named `{`). */
const NEGATED_STARTS = new Set(['{', 'if', 'while', 'until', 'for', 'case', 'select', 'function']);

/**
 * Guard (d): bash's `time` and `coproc` are keywords that take a whole compound command
 * (`time { rm x; }`, `coproc NAME { rm x; }`), and `!` starts a pipeline whose first command may
 * be compound (`! { rm x; }`); the grammar reads them as plain commands with `{`, `rm`, `x` as
 * arguments and `}` as a command of its own, and `! (( x ))` as subshells around a command `x`.
 * The keyword is blanked (offsets kept) so the text parses as the compound command it times, runs
 * or inverts; null when there is none.
 */
export function blankCompoundKeywords(text: string, tree: Tree): Blanked | null {
  const ranges: Array<[number, number]> = [];
  const background: number[] = [];
  const negated: number[] = [];
  const stack: Node[] = [tree.rootNode];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const child of node.children) stack.push(child);
    if (node.type === 'negated_command') {
      // `! { …; }`, `! if …`: the `!` inverts the pipeline the compound command starts (bash
      // manual, "Pipelines"). Blanked, the text parses as that pipeline; the walk inverts it.
      const [bang, body] = node.children;
      // The grammar's `{` as a command, maybe the first stage of a pipeline (precedence.ts put
      // the `!` around the pipeline) or under redirections.
      let first = body;
      while (first !== undefined && (first.type === 'pipeline' || first.type === 'redirected_statement')) first = first.children[0];
      const name = first?.type === 'command' ? first.children[0] : undefined;
      if (bang?.type === '!' && name?.type === 'command_name' && NEGATED_STARTS.has(text.slice(name.startIndex, name.endIndex))) {
        ranges.push([bang.startIndex, bang.endIndex]);
        negated.push(name.startIndex);
      } else if (bang?.type === '!' && first !== undefined && isArithmeticCommand(first, text)) {
        ranges.push([bang.startIndex, bang.endIndex]);
        negated.push(first.startIndex);
      }
      continue;
    }
    if (node.type !== 'command') continue;
    const words = node.children.filter((c) => c.type !== 'comment');
    const keyword = words[0] ? text.slice(words[0].startIndex, words[0].endIndex) : '';
    if (keyword !== 'time' && keyword !== 'coproc') continue;
    let next = 1;
    const word = (k: number): string => (words[k] ? text.slice(words[k].startIndex, words[k].endIndex) : '');
    if (keyword === 'time') while (word(next) === '-p' || word(next) === '--') next++;
    else if (!COMPOUND_STARTS.has(word(next)) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(word(next))) next++; // coproc NAME
    if (!COMPOUND_STARTS.has(word(next)) && !(words[next] !== undefined && isArithmeticCommand(words[next]!, text))) continue;
    const start = words[next]!.startIndex;
    ranges.push([node.startIndex, start]);
    if (keyword === 'coproc') background.push(start);
  }
  if (ranges.length === 0) return null;
  let out = text;
  for (const [from, to] of ranges) out = out.slice(0, from) + ' '.repeat(to - from) + out.slice(to);
  return { text: out, background, negated };
}

/**
 * `(( x ))` that the grammar read as a subshell in a subshell (it does after `!`, `time` and
 * `coproc`: `! (( x ))` became a command `x`). bash reads `((` as an arithmetic command when the
 * `)` matching the second `(` is followed by `)` (bash's parse_dparen; else nested subshells, as in
 * `((a); (b))`): here, when the inner subshell ends right before the outer one.
 */
function isArithmeticCommand(node: Node, text: string): boolean {
  const inner = node.children[1];
  return node.type === 'subshell' && text.startsWith('((', node.startIndex) && inner?.type === 'subshell' && inner.startIndex === node.startIndex + 1 && inner.endIndex === node.endIndex - 1 && text[node.endIndex - 2] === ')';
}

/** Words one brace expansion may produce before the spelling is given up (bash has no limit; deny matching needs few). */
const MAX_BRACE_WORDS = 64;

/**
 * `$IFS`, `${IFS}`, the parts of it (`${IFS:0:1}`, `${IFS%?}`, `${IFS#…}`) and its defaults
 * (`${IFS:-WORD}`, `${IFS+WORD}`, …; bash manual, "Shell Parameter Expansion"). Unquoted, each
 * character of IFS is a field separator; when IFS is empty or unset `$IFS` is nothing and the text
 * around it joins (`IFS=; r${IFS}m` runs rm). Other operators (`${IFS/ /m}`, `${IFS^^}`) are not
 * matched: their word stays dynamic.
 */
const IFS_EXPANSION = /\$(?:\{IFS(?:(:?[-=+])([^}]*)|(?::|##?|%%?)[^}]*)?\}|IFS\b)/g;

/** What IFS holds in one reading of the command: the default (any separators), empty, or unset. */
type IfsState = 'set' | 'empty' | 'unset';

/** The text an IFS expansion stands for in one state (a space for separators). */
function ifsText(state: IfsState, operator: string | undefined, word: string | undefined): string {
  const value = state === 'set' ? ' ' : '';
  if (operator === undefined) return value;
  const useWord = operator.startsWith(':') ? state !== 'set' : state === 'unset';
  if (operator.endsWith('+')) return useWord ? '' : (word ?? '');
  return useWord ? (word ?? '') : value;
}

/**
 * The command as bash sees it after brace expansion and word splitting, for deny rules only:
 * `{rm,-rf,x}` runs `rm -rf x` (the grammar reports an error), `rm${IFS}-rf${IFS}x` runs `rm -rf x`
 * (the program word is dynamic). `$IFS` is read with IFS as the default, empty and unset, since the
 * command may set it anywhere, also in ways no scan can see (`declare -n`, `eval`); the readings are
 * one line each. Other quoted text, `${…}` and `$'…'` are left alone (a quoted `"$IFS"` is read
 * as nothing when IFS is empty or unset). Null when there is nothing to expand. A text scan, not a
 * parser: a wrong guess only adds commands for deny rules to look at.
 */
export function expandForDenyRules(text: string): string | null {
  if (!/\{[^}]*,|\$\{?IFS\b/.test(text)) return null;
  const states: IfsState[] = /\$\{?IFS\b/.test(text) ? ['set', 'empty', 'unset'] : ['set'];
  const readings = states.map((state) =>
    spell(text, (word) =>
      word.replace(IFS_EXPANSION, (m, operator: string | undefined, value: string | undefined, at: number) => {
        const quoted = state === 'set' ? quoteMask(word, false)[at] : singleQuoted(word, at);
        return quoted ? m : ifsText(state, operator, value);
      }),
    ),
  );
  const changed = [...new Set(readings)].filter((reading) => reading !== text);
  return changed.length === 0 ? null : changed.join('\n');
}

/** Each shell word of `text` through `ifs`, then brace-expanded. */
function spell(text: string, ifs: (word: string) => string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (/[\s;&|()<>]/.test(text[i]!)) {
      out += text[i++];
      continue;
    }
    const end = wordEnd(text, i);
    out += expandWord(ifs(text.slice(i, end)));
    i = end;
  }
  return out;
}

/** True when the character at `at` is inside '…' or $'…' or escaped (where `$` is not an expansion). */
function singleQuoted(word: string, at: number): boolean {
  for (let i = 0; i < word.length && i <= at; i++) {
    const ch = word[i]!;
    if (ch === '\\') {
      if (i + 1 === at) return true;
      i++;
    } else if (ch === "'") {
      const end = closing(word, i + 1, "'");
      if (at <= end) return true;
      i = end;
    } else if (ch === '"') {
      // Inside "…", `\$` is escaped; `$IFS` expands.
      const end = closing(word, i + 1, '"');
      for (let j = i + 1; j < end; j++) {
        if (word[j] === '\\') {
          if (j + 1 === at) return true;
          j++;
        }
      }
      if (at <= end) return false;
      i = end;
    }
  }
  return false;
}

/** The end of the shell word starting at `from` (quotes and escapes included). */
function wordEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && !/[\s;&|()<>]/.test(text[i]!)) {
    const ch = text[i]!;
    if (ch === '\\') i += 2;
    else if (ch === "'") i = closing(text, i + 1, "'") + 1;
    else if (ch === '"') i = closing(text, i + 1, '"') + 1;
    else i++;
  }
  return Math.min(i, text.length);
}

function closing(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return text.length;
}

/** For each character of a word: true when quoted or escaped (or, with `expansions`, part of a `${…}`). */
function quoteMask(word: string, expansions = true): boolean[] {
  const mask = new Array<boolean>(word.length).fill(false);
  for (let i = 0; i < word.length; i++) {
    const ch = word[i]!;
    let end = -1;
    if (ch === '\\') end = i + 1;
    else if (ch === "'" || ch === '"') end = closing(word, i + 1, ch);
    else if (expansions && ch === '$' && word[i + 1] === '{') end = closing(word, i + 2, '}');
    if (end === -1) continue;
    for (let j = i; j <= end && j < word.length; j++) mask[j] = true;
    i = end;
  }
  return mask;
}

/** Brace expansion of one word (`pre{a,b}post` → `preapost prebpost`), leftmost group first. */
function expandWord(word: string): string {
  const words = expandBraces(word, 0);
  return words.length > MAX_BRACE_WORDS ? word : words.join(' ');
}

function expandBraces(word: string, depth: number): string[] {
  if (depth > 8) return [word];
  const mask = quoteMask(word);
  for (let i = 0; i < word.length; i++) {
    if (word[i] !== '{' || mask[i]) continue;
    let level = 0;
    let end = -1;
    const commas: number[] = [];
    for (let j = i; j < word.length && end === -1; j++) {
      if (mask[j]) continue;
      if (word[j] === '{') level++;
      else if (word[j] === '}' && --level === 0) end = j;
      else if (word[j] === ',' && level === 1) commas.push(j);
    }
    if (end === -1 || commas.length === 0) continue;
    const bounds = [i, ...commas, end];
    const out: string[] = [];
    for (let k = 0; k + 1 < bounds.length && out.length <= MAX_BRACE_WORDS; k++) {
      out.push(...expandBraces(word.slice(0, i) + word.slice(bounds[k]! + 1, bounds[k + 1]) + word.slice(end + 1), depth + 1));
    }
    return out;
  }
  return [word];
}
