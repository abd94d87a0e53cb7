import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Parser } from 'web-tree-sitter';

/**
 * The bash grammar's lifecycle: web-tree-sitter and tree-sitter-bash, loaded once per process on
 * first need. Module state, kept apart from the analysis, which only borrows the loaded parser.
 */
let parser: Parser | null = null;
let initialising: Promise<void> | null = null;
let initFailed = false;

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
      await Parser.init();
      const require = createRequire(import.meta.url);
      const language = await Language.load(readFileSync(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
      const instance = new Parser();
      instance.setLanguage(language);
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
