import { loadedParser, readTree } from '../../src/subjects/shell/parser.js';
import type { SyntaxTree } from '../../src/subjects/shell/syntax.js';

/** The tree tree-sitter-bash itself gives for `text` (the parser must be initialised), read into the analyser's own nodes. */
export function grammar(text: string): SyntaxTree {
  const tree = loadedParser()!.parse(text)!;
  try {
    return readTree(tree);
  } finally {
    tree.delete();
  }
}
