import { SyntaxNode } from './syntax.js';

/**
 * Words the grammar loses before a redirection, put back where bash has them (docs/design.md#bashs-precedence).
 * Checked with bash 5.2 (`printf '[%s]' …` and `declare -f`):
 *
 *   cat - 2>e    bash: cat gets `-`, fd 2 goes to e       grammar: the `-` is in no node at all
 *   x -5>f       bash: x gets `-5`, stdout goes to f      grammar: a redirection of descriptor -5
 *
 * bash takes a word before `>` or `<` as a descriptor only when it is all digits (the manual,
 * "Redirections": `[n]>word`). Any other text of the command the tree does not cover is refused
 * (false: the walk treats the text as a parse error), so a word the grammar drops is never missed.
 */

const WORD_END = /[\s|&;<>()]/;

/** Restores the dropped words of the grammar's tree of `text`, in place; false on dropped text it cannot place. */
export function restoreDroppedWords(root: SyntaxNode, text: string): boolean {
  let covered = 0;
  let known = true;
  const fixes: Array<[at: number, word: string, before: SyntaxNode]> = [];
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const atomic = node.children.length === 0 || node.type === 'heredoc_body' || node.type === 'comment';
    if (atomic) {
      if (node.startIndex > covered) {
        const gap = dropped(text, covered, node.startIndex);
        if (gap !== null) fixes.push([gap, text.slice(gap, wordEnd(text, gap)), node]);
      }
      if (node.endIndex > covered) covered = node.endIndex;
      if (node.type === 'file_descriptor' && !/^\d+$/.test(text.slice(node.startIndex, node.endIndex))) fixes.push([node.startIndex, '', node]);
      continue;
    }
    for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k]!);
  }
  if (dropped(text, covered, text.length) !== null) return false;
  for (const [at, word, before] of fixes) if (!restore(text, at, word, before)) known = false;
  return known;
}

/** The offset of the first character of text[from, to) that is not blank or a line continuation, or null. */
function dropped(text: string, from: number, to: number): number | null {
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c === 0x5c && (text.charCodeAt(k + 1) === 0x0a || (text.charCodeAt(k + 1) === 0x0d && text.charCodeAt(k + 2) === 0x0a))) continue;
    return k;
  }
  return null;
}

function wordEnd(text: string, from: number): number {
  let k = from;
  while (k < text.length && !WORD_END.test(text[k]!)) k++;
  return k;
}

/**
 * Puts the word at `at` into the command whose redirection `before` starts: `word` dropped before
 * it (only a lone `-` has been seen), or '' for the non-numeric descriptor `before` itself.
 */
function restore(text: string, at: number, word: string, before: SyntaxNode): boolean {
  const fd = word === '';
  if (!fd && (word !== '-' || text[wordEnd(text, at)] !== ' ')) return false;
  const redirect = before.parent;
  if (redirect === null || (redirect.type !== 'file_redirect' && redirect.type !== 'heredoc_redirect') || redirect.children[0] !== before) return false;
  const end = fd ? before.endIndex : wordEnd(text, at);
  const restored = new SyntaxNode('word', true, at, end, null, 0);
  const statement = redirect.parent;
  if (statement === null || statement.type !== 'redirected_statement') return false;
  if (fd) {
    // The redirection without the descriptor.
    const bare = new SyntaxNode(redirect.type, true, redirect.children[1]!.startIndex, redirect.endIndex, null, 0);
    for (const child of redirect.children.slice(1)) bare.append(child);
    statement.replaceChild(statement.children.indexOf(redirect), bare);
  }
  const body = statement.children[0]!;
  if (body.type === 'command') {
    const command = new SyntaxNode('command', true, body.startIndex, Math.max(body.endIndex, end), null, 0);
    for (const child of [...body.children]) command.append(child);
    command.append(restored);
    statement.replaceChild(0, command);
    return true;
  }
  if (body === redirect || body.type === 'file_redirect' || body.type === 'heredoc_redirect') {
    // `- 2>e`: the dropped word is the command's name.
    if (fd) return false;
    const name = new SyntaxNode('command_name', true, at, end, null, 0);
    name.append(restored);
    const command = new SyntaxNode('command', true, at, end, null, 0);
    command.append(name);
    const rebuilt = new SyntaxNode('redirected_statement', true, at, statement.endIndex, null, 0);
    rebuilt.append(command);
    for (const child of [...statement.children]) rebuilt.append(child);
    const parent = statement.parent;
    if (parent === null) return false;
    parent.replaceChild(parent.children.indexOf(statement), rebuilt);
    return true;
  }
  return false;
}
