import { restoreDroppedWords } from './dropped-words.js';
import { SyntaxNode, type SyntaxTree } from './syntax.js';

/**
 * Bash's precedence, rebuilt from the grammar's tree before the walk (docs/design.md#bashs-precedence).
 * In bash, `|` binds tighter than `&&`/`||`, `!` negates a whole pipeline, and what follows a
 * heredoc's start on its line is the rest of the command line. tree-sitter-bash nests otherwise:
 *
 *   cd src && make 2>&1 | tee log   grammar: ((cd src && make) 2>&1) | tee log
 *                                   bash:    cd src && ((make 2>&1) | tee log)
 *   a | b | c && d                  grammar: a | ((b | c) && d)       bash: (a | b | c) && d
 *   ! a | b                         grammar: (! a) | b                bash: ! (a | b)
 *   cat <<E | cd x && y             grammar: cat <<E [| (cd x && y)]  bash: (cat <<E | cd x) && y
 *   a && b > f                      grammar: (a && b) > f             bash: a && (b > f)
 *
 * A region (the lists, pipelines, negations, redirections written after a list or pipeline, and
 * heredoc rests, nested in any way) is flattened back into what bash's parser reads, in text order:
 * the stages, the operators between them, and the `!`s; a redirection written after a list or
 * pipeline goes to its last stage (the only command it can follow in bash). The flat sequence is
 * then parsed by bash's rules (the bash manual, "Pipelines" and "Lists of Commands"):
 *
 *   list     := pipeline (('&&' | '||') pipeline)*        left-associative
 *   pipeline := '!'* stage (('|' | '|&') stage)*
 *
 * and built as the grammar builds a correct tree (a left-nested `list`, a flat `pipeline`, a
 * `negated_command` around the pipeline, a `redirected_statement` around a stage), so the walk reads
 * it as it reads any other. A region with a shape not listed here (a comment between operators, a
 * second heredoc rest, an operator out of place) is left as the grammar built it: the walk treats
 * those shapes as unknown (an unknown cwd after a list inside a pipeline), which fails closed.
 * Stages themselves (subshells, groups, loops, substitutions inside words) are rebuilt inside.
 */

const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
const LIST_OPS = new Set(['&&', '||']);
const PIPE_OPS = new Set(['|', '|&']);

/**
 * A stage of a flattened region, built only once the whole region is known to fit (building moves
 * nodes into new parents): the node as it is, or a body with the redirections bash gives it.
 */
interface Stage {
  node: SyntaxNode | null;
  body: SyntaxNode | null;
  redirects: Array<SyntaxNode | Stripped>;
}

/** A heredoc redirection without the rest of its line (see splitRest). */
interface Stripped {
  heredoc: SyntaxNode;
  kept: SyntaxNode[];
}

/** One element of a flattened region: a stage, or an operator (`&&`, `||`, `|`, `|&`, `!`). */
type Piece = Stage | SyntaxNode;

/** A flattened region: its pieces in text order, and the comments written between them. */
interface Flat {
  pieces: Piece[];
  comments: SyntaxNode[];
  text: string;
  /** A shape the grammar misreads was met (see rebuildPrecedence). */
  misread: boolean;
}

/** Reserved words that start a compound command: the grammar cannot read one after `!`. */
const COMPOUND_STARTS = new Set(['{', 'if', 'while', 'until', 'for', 'case', 'select', 'function', '((']);

/**
 * The grammar's tree of `text` made the tree bash reads, in place: its dropped words put back
 * (dropped-words.ts; not in a tree with errors) and rebuilt into bash's precedence. False when
 * either meets a shape it cannot repair: the walk treats the text as a parse error. The
 * plain-text reader (plain-text.ts) builds this very tree for its subset without the grammar.
 */
export function asBashReads(tree: SyntaxTree, text: string): boolean {
  const words = tree.hasError || restoreDroppedWords(tree.rootNode, text);
  return rebuildPrecedence(tree.rootNode, text) && words;
}

/**
 * Rebuilds every region in the tree of `text` under `root`, in place. False when the tree holds a
 * shape the grammar misreads and this cannot rebuild (the walk then treats the text as a parse
 * error): a heredoc's rest running past its line (`cat <<E |⏎body⏎E⏎b`: the grammar reads the body
 * as a command), `!` before a compound command (`! { cd x; }`: read as a command named `{`), or a
 * simple command across a newline (joinsLines).
 */
export function rebuildPrecedence(root: SyntaxNode, text: string): boolean {
  let known = true;
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (joinsLines(node, text)) known = false;
    const children = node.children;
    for (let k = 0; k < children.length; k++) {
      const child = children[k]!;
      if (misread(child, text)) known = false;
      if (isRegion(child)) {
        const flat: Flat = { pieces: [], comments: [], text, misread: false };
        const rebuilt = region(child, flat, stack);
        if (flat.misread) known = false;
        if (rebuilt !== child) node.replaceChild(k, rebuilt);
      } else if (child.children.length > 0) {
        stack.push(child);
      }
    }
  }
  return known;
}

/** Nodes a newline always ends in bash (outside their words): a simple command and its redirections. */
const ONE_LINE = new Set(['command', 'redirected_statement', 'file_redirect', 'herestring_redirect']);

/**
 * A newline between two children of a node bash ends at a newline: the grammar took two lines for
 * one command (`a |& b | c⏎rm -rf / >&2` is read as `c rm -rf /`). A backslash-newline is a
 * continuation, not an end.
 */
function joinsLines(node: SyntaxNode, text: string): boolean {
  if (!ONE_LINE.has(node.type)) return false;
  let at = text.indexOf('\n', node.startIndex);
  if (at === -1 || at >= node.endIndex) return false;
  const children = node.children;
  for (let k = 1; k < children.length; k++) {
    const to = children[k]!.startIndex;
    if (at < children[k - 1]!.endIndex) at = text.indexOf('\n', children[k - 1]!.endIndex);
    for (; at !== -1 && at < to; at = text.indexOf('\n', at + 1)) if (!continues(text, at)) return true;
    if (at === -1) return false;
  }
  return false;
}

/** The newline at `at` follows a backslash: a continuation (`\<CR><LF>` too: walk.ts handles it). */
function continues(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1) === 0x0d ? at - 2 : at - 1;
  return text.charCodeAt(before) === 0x5c;
}

function misread(node: SyntaxNode, text: string): boolean {
  return (node.type === 'heredoc_redirect' && !restOnItsLine(node, text)) || (node.type === 'negated_command' && negatesCompound(node, text));
}

/** Whatever the grammar filed inside a heredoc redirection before its body ends on the heredoc's line. */
function restOnItsLine(heredoc: SyntaxNode, text: string): boolean {
  const start = heredoc.children.find((child) => child.type === 'heredoc_start');
  if (start === undefined) return true;
  const line = text.indexOf('\n', start.endIndex);
  if (line === -1) return true;
  // Only what the grammar reads as statements: it also files parts of a body as words (the walk
  // reads the body from the text).
  const children = heredoc.children;
  for (let k = 0; k < children.length; k++) {
    const child = children[k]!;
    // The operand of `&&`/`||`, past a comment (`cat <<E && # why⏎body`: the body read as the operand).
    let operand = k + 1;
    while (LIST_OPS.has(child.type) && children[operand]?.type === 'comment') operand++;
    const statement = child.type === 'pipeline' || (LIST_OPS.has(child.type) && operand < children.length);
    if (statement && (child.type === 'pipeline' ? child : children[operand]!).endIndex > line) return false;
  }
  return true;
}

function negatesCompound(node: SyntaxNode, text: string): boolean {
  const name = node.children[1]?.type === 'command' ? node.children[1].children[0] : undefined;
  return name?.type === 'command_name' && COMPOUND_STARTS.has(text.slice(name.startIndex, name.endIndex));
}

function isRegion(node: SyntaxNode): boolean {
  const type = node.type;
  if (type === 'list' || type === 'pipeline' || type === 'negated_command') return true;
  if (type !== 'redirected_statement') return false;
  return isRegion(node.children[0]!) || node.children.some(hasRest);
}

/**
 * The region's tree in bash's precedence, or `node` itself when its shape is unknown. Every stage
 * (in either case) is pushed on `stack`, to be rebuilt inside.
 */
function region(node: SyntaxNode, flat: Flat, stack: SyntaxNode[]): SyntaxNode {
  if (!flatten(node, flat) || !fits(flat.pieces)) {
    stack.push(node);
    return node;
  }
  const pieces = flat.pieces;
  let at = 0;
  const pipeline = (): SyntaxNode => {
    const bangs: SyntaxNode[] = [];
    while (isToken(pieces[at]!, '!')) bangs.push(pieces[at++] as SyntaxNode);
    const stages: SyntaxNode[] = [];
    for (;;) {
      const stage = build(pieces[at++] as Stage);
      stack.push(stage);
      stages.push(stage);
      const op = pieces[at];
      if (op === undefined || !isPipeOp(op)) break;
      stages.push(op as SyntaxNode);
      at++;
    }
    let built = stages.length === 1 ? stages[0]! : branch('pipeline', stages);
    for (let k = bangs.length - 1; k >= 0; k--) built = branch('negated_command', [bangs[k]!, built]);
    return built;
  };
  let top = pipeline();
  while (at < pieces.length) {
    const op = pieces[at++] as SyntaxNode;
    top = branch('list', [top, op, pipeline()]);
  }
  // Comments between operators (`a && # why⏎ b`) stay in the tree (the guards read their
  // ranges), after the statements: the walk skips them.
  for (const comment of flat.comments) top.append(comment);
  return top;
}

function isStage(piece: Piece): piece is Stage {
  return !(piece instanceof SyntaxNode);
}

function isToken(piece: Piece, type: string): boolean {
  return !isStage(piece) && piece.type === type;
}

function isPipeOp(piece: Piece): boolean {
  return !isStage(piece) && PIPE_OPS.has(piece.type);
}

function isListOp(piece: Piece): boolean {
  return !isStage(piece) && LIST_OPS.has(piece.type);
}

/**
 * Appends `node`'s pieces to `out` in text order; false on a shape this does not know. Builds
 * nothing and moves nothing: a region that turns out unknown is left exactly as it was.
 */
function flatten(node: SyntaxNode, flat: Flat): boolean {
  const out = flat.pieces;
  if (misread(node, flat.text)) flat.misread = true;
  switch (node.type) {
    case 'list': {
      const [left, op, right, more] = statements(node, flat);
      return more === undefined && right !== undefined && LIST_OPS.has(op!.type) && flatten(left!, flat) && push(out, op!) && flatten(right, flat);
    }
    case 'pipeline': {
      const parts = statements(node, flat);
      if (parts.length < 3 || parts.length % 2 === 0) return false;
      for (let k = 0; k < parts.length; k++) {
        const part = parts[k]!;
        if (k % 2 === 1 ? !PIPE_OPS.has(part.type) || !push(out, part) : !flatten(part, flat)) return false;
      }
      return true;
    }
    case 'negated_command': {
      const [bang, body, more] = statements(node, flat);
      return more === undefined && body !== undefined && bang!.type === '!' && push(out, bang!) && flatten(body, flat);
    }
    case 'redirected_statement': {
      const children = node.children;
      const body = REDIRECTS.has(children[0]!.type) ? null : children[0]!;
      const redirects = body === null ? children : children.slice(1);
      if (!redirects.every((child) => REDIRECTS.has(child.type))) return false;
      if (redirects.some((child) => misread(child, flat.text))) flat.misread = true;
      const split = splitRest(redirects);
      if (split === null) return false;
      const { kept, rest } = split;
      if (body === null || !isRegion(body)) {
        // A stage of its own: its redirections stay with it.
        out.push(rest === null ? { node, body: null, redirects: [] } : { node: null, body, redirects: kept });
      } else {
        // Written after a list or pipeline: bash reads them as its last stage's.
        if (!flatten(body, flat)) return false;
        const last = out[out.length - 1];
        if (last === undefined || !isStage(last)) return false;
        out[out.length - 1] = withRedirects(last, kept);
      }
      return rest === null || (push(out, rest[0]) && flatten(rest[1], flat));
    }
    default:
      out.push({ node, body: null, redirects: [] });
      return true;
  }
}

/** `node`'s children without its comments, which go to `flat`. */
function statements(node: SyntaxNode, flat: Flat): SyntaxNode[] {
  const children = node.children;
  if (!children.some((child) => child.type === 'comment')) return children;
  const parts: SyntaxNode[] = [];
  for (const child of children) (child.type === 'comment' ? flat.comments : parts).push(child);
  return parts;
}

function push(out: Piece[], piece: Piece): true {
  out.push(piece);
  return true;
}

/** `stage` with `redirects` after its own (one redirected_statement, as the grammar writes `b 2>&1 > f`). */
function withRedirects(stage: Stage, redirects: Array<SyntaxNode | Stripped>): Stage {
  if (stage.node === null) return { node: null, body: stage.body, redirects: [...stage.redirects, ...redirects] };
  const node = stage.node;
  if (node.type === 'redirected_statement') {
    const own = REDIRECTS.has(node.children[0]!.type) ? node.children : node.children.slice(1);
    return { node: null, body: own === node.children ? null : node.children[0]!, redirects: [...own, ...redirects] };
  }
  return { node: null, body: node, redirects };
}

function build(stage: Stage): SyntaxNode {
  if (stage.node !== null) return stage.node;
  const redirects = stage.redirects.map((r) => (r instanceof SyntaxNode ? r : branch('heredoc_redirect', r.kept, r.heredoc)));
  return branch('redirected_statement', stage.body === null ? redirects : [stage.body, ...redirects]);
}

/**
 * A heredoc's rest (`cat <<E | b`, `cat <<E && b`: the grammar files what follows `<<E` on its
 * line inside the heredoc): the redirections with that rest taken out, and the rest as an operator
 * and the statement after it. At most one, on the last redirection; anything else is unknown (null).
 */
function splitRest(redirects: SyntaxNode[]): { kept: Array<SyntaxNode | Stripped>; rest: [SyntaxNode, SyntaxNode] | null } | null {
  const at = redirects.findIndex(hasRest);
  if (at === -1) return { kept: redirects, rest: null };
  if (at !== redirects.length - 1) return null;
  const heredoc = redirects[at]!;
  const children = heredoc.children;
  const kept: SyntaxNode[] = [];
  let rest: [SyntaxNode, SyntaxNode] | null = null;
  for (let k = 0; k < children.length; k++) {
    const child = children[k]!;
    if (rest === null && child.type === 'pipeline' && child.children.length === 2 && PIPE_OPS.has(child.children[0]!.type) && child.children[1]!.type !== 'comment') {
      rest = [child.children[0]!, child.children[1]!];
    } else if (rest === null && LIST_OPS.has(child.type) && k + 1 < children.length && children[k + 1]!.type !== 'comment') {
      rest = [child, children[++k]!];
    } else {
      kept.push(child);
    }
  }
  if (rest === null || kept.some((child) => LIST_OPS.has(child.type) || child.type === 'pipeline')) return null;
  return { kept: [...redirects.slice(0, at), { heredoc, kept }], rest };
}

/** A heredoc redirection holding the rest of its line: a `| …` pipeline or `&&`/`||` and a statement. */
function hasRest(node: SyntaxNode): boolean {
  return node.type === 'heredoc_redirect' && node.children.some((child) => LIST_OPS.has(child.type) || (child.type === 'pipeline' && PIPE_OPS.has(child.children[0]?.type ?? '')));
}

/**
 * The pieces follow bash's rules (see the top): stages and operators alternate, the first and last
 * are stages, and a `!` comes only where a pipeline starts (bash refuses `a | ! b`).
 */
function fits(pieces: Piece[]): boolean {
  let start = true;
  let stage = false;
  for (const piece of pieces) {
    if (isStage(piece)) {
      if (stage) return false;
      start = false;
      stage = true;
    } else if (piece.type === '!') {
      if (!start) return false;
    } else {
      if (!stage) return false;
      start = isListOp(piece);
      stage = false;
    }
  }
  return stage;
}

/**
 * A new node over `children` (moved into it), spanning all of them: a heredoc's body ends after
 * the stages that follow its start. `like` gives the span instead (a heredoc without its rest).
 */
function branch(type: string, children: SyntaxNode[], like?: SyntaxNode): SyntaxNode {
  let start = like?.startIndex ?? children[0]!.startIndex;
  let end = like?.endIndex ?? children[0]!.endIndex;
  for (const child of children) {
    if (child.startIndex < start) start = child.startIndex;
    if (child.endIndex > end) end = child.endIndex;
  }
  const node = new SyntaxNode(type, true, start, end, null, 0);
  for (const child of children) node.append(child);
  return node;
}
