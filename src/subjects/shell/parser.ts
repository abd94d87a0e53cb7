import { createRequire } from 'node:module';
import type { Parser, Tree } from 'web-tree-sitter';
import { readFilePages } from '../../file-pages.js';
import { readPlainText } from './plain-text.js';
import { asBashReads } from './precedence.js';
import { cursorExports, NodeTypes, readTreeDirect, readTreePublic, sameTree, type SyntaxTree } from './syntax.js';

/**
 * The bash grammar's lifecycle: web-tree-sitter and tree-sitter-bash, loaded once per process on
 * first need. Module state, kept apart from the analysis, which only borrows the loaded parser.
 */
let parser: Parser | null = null;
let initialising: Promise<void> | null = null;
let initFailed = false;
let read: (tree: Tree) => SyntaxTree = readTreePublic;
/** Plain texts are read without the grammar (plain-text.ts) once it agreed with it at start-up. */
let plainAgreed = false;
let plain = false;

/**
 * Texts the direct tree read is checked on at start-up against the public API (errors, a missing
 * node, heredocs, substitutions, non-ASCII text): if web-tree-sitter's internals ever differ, the
 * public API is used.
 */
const CHECKS = ['git status && npm run test -- --run t1 2>&1 | tail -n 20', 'ls &&', 'echo "é $(id)" > ü; cat <<EOF\n$x `y`\nEOF\n', 'if [[ a -eq "${b[1]}" ]]; then (x) fi )', 'f() { case $1 in a|b) echo ${x:-`id`};; esac; }'];

/**
 * Texts the plain-text reader is checked on at start-up against the grammar path (the grammar's
 * tree made bash's reading, every shape the reader builds): if a new grammar version reads them
 * otherwise, every text goes to the grammar.
 */
const PLAIN_CHECKS = ['git status && npm run test -- --run t1 2>&1 | tail -n 20', 'a -5 0x1f 07 | b > f | c; d 2>/dev/null || e >> g', 'a && b > f && c >&2 || d 2>>e', 'a | b 2>&1 | c -n 1 && d | e | f || g > h | i'];

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
      // The grammar's 1.3 MB outside malloc (file-pages.ts).
      const language = await Language.load(readFilePages(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
      const instance = new Parser();
      instance.setLanguage(language);
      const exports = cursorExports(module);
      if (exports) {
        const types = new NodeTypes(language);
        const direct = (tree: Tree): SyntaxTree => readTreeDirect(exports, types, tree);
        if (CHECKS.every((text) => agree(instance, text, direct))) read = direct;
      }
      plain = plainAgreed = PLAIN_CHECKS.every((text) => agreePlain(instance, text));
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

/** The tree of a plain text (plain-text.ts), or null: the text is parsed by the grammar. */
export function readPlain(text: string): SyntaxTree | null {
  return plain ? readPlainText(text) : null;
}

/** Turns the plain-text reader off, or on again if it agreed with the grammar at start-up (for tests and benches comparing the two). */
export function usePlainTextReader(on: boolean): void {
  plain = on && plainAgreed;
}

/** True when plain texts are read without the grammar. */
export function isPlainTextReader(): boolean {
  return plain;
}

/** The parse of `text` read into plain objects; the caller deletes `tree`. */
export function readTree(tree: Tree): SyntaxTree {
  return read(tree);
}

function agreePlain(instance: Parser, text: string): boolean {
  const tree = instance.parse(text);
  if (tree === null) return false;
  try {
    const ours = readPlainText(text);
    const theirs = read(tree);
    return ours !== null && asBashReads(theirs, text) && sameTree(ours, theirs);
  } catch {
    return false;
  } finally {
    tree.delete();
  }
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
