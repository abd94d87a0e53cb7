import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Parser, Tree } from 'web-tree-sitter';
import { cursorExports, NodeTypes, readTreeDirect, readTreePublic, sameTree, type SyntaxTree } from './syntax.js';

/**
 * The bash grammar's lifecycle: web-tree-sitter and tree-sitter-bash, loaded once per process on
 * first need. Module state, kept apart from the analysis, which only borrows the loaded parser.
 */
let parser: Parser | null = null;
let initialising: Promise<void> | null = null;
let initFailed = false;
let read: (tree: Tree) => SyntaxTree = readTreePublic;

/**
 * Texts the direct tree read is checked on at start-up against the public API (errors, a missing
 * node, heredocs, substitutions, non-ASCII text): if web-tree-sitter's internals ever differ, the
 * public API is used.
 */
const CHECKS = ['git status && npm run test -- --run t1 2>&1 | tail -n 20', 'ls &&', 'echo "é $(id)" > ü; cat <<EOF\n$x `y`\nEOF\n', 'if [[ a -eq "${b[1]}" ]]; then (x) fi )', 'f() { case $1 in a|b) echo ${x:-`id`};; esac; }'];

/**
 * Loads the WASM runtime and the bash grammar. Idempotent; never throws: on failure every command
 * is reported unanalyzable ('parser-unavailable') and so asks. Nothing of web-tree-sitter is loaded
 * before this is called (the grammar's memory is about 30 MiB): the gateway calls it only once a
 * tool takes shell commands.
 */
export function initShellParser(): Promise<void> {
  initialising ??= (async () => {
    try {
      const { Language, Parser } = await import('web-tree-sitter');
      // The WASM module's exports are set on this object (unless web-tree-sitter was started before).
      const module: Record<string, unknown> = {};
      await Parser.init(module);
      const require = createRequire(import.meta.url);
      const language = await Language.load(readFileSync(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
      const instance = new Parser();
      instance.setLanguage(language);
      const exports = cursorExports(module);
      if (exports) {
        const types = new NodeTypes(language);
        const direct = (tree: Tree): SyntaxTree => readTreeDirect(exports, types, tree);
        if (CHECKS.every((text) => agree(instance, text, direct))) read = direct;
      }
      parser = instance;
    } catch {
      initFailed = true;
    }
  })();
  return initialising;
}

/** True once initShellParser() has been called, whether or not it has finished. */
export function isShellParserRequested(): boolean {
  return initialising !== null;
}

/** True once initShellParser() has succeeded. */
export function isShellParserReady(): boolean {
  return parser !== null && !initFailed;
}

/** The loaded parser, or null before initShellParser() has succeeded. */
export function loadedParser(): Parser | null {
  return parser;
}

/** True when trees are read through the WASM exports directly (syntax.ts), false when through the public API. */
export function isDirectTreeRead(): boolean {
  return read !== readTreePublic;
}

/** The parse of `text` read into plain objects; the caller deletes `tree`. */
export function readTree(tree: Tree): SyntaxTree {
  return read(tree);
}

function agree(instance: Parser, text: string, direct: (tree: Tree) => SyntaxTree): boolean {
  const tree = instance.parse(text);
  if (tree === null) return false;
  try {
    return sameTree(direct(tree), readTreePublic(tree));
  } catch {
    return false;
  } finally {
    tree.delete();
  }
}
