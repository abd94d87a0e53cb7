import { loadedParser, readTree } from '../../src/subjects/shell/parser.js';
import { asBashReads } from '../../src/subjects/shell/precedence.js';
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

/**
 * The tree the walk reads for `text` from the grammar: its tree made bash's reading (asBashReads),
 * or null when that met a shape it cannot repair (the walk's parse error).
 */
export function grammarPath(text: string): SyntaxTree | null {
  const tree = grammar(text);
  return asBashReads(tree, text) ? tree : null;
}
