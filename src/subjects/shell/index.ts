/**
 * The shell model as the rest of the gateway calls it: the only module outside subjects/shell/ may
 * import from (scripts/bundle.js refuses any other). In the serve bundle the model is a file of its
 * own (dist/serve/shell.cjs), loaded at the first call of one of these, which happens only once a
 * tool takes shell commands: an idle gateway without one does not hold its ~170 KB of code and its
 * tables (docs/performance.md, "Round 11: idle memory"). So every export here is a function.
 */
export { analyseCommandCached } from './analysis-cache.js';
export { analyseCommand, commandSignature } from './command.js';
export { writesOnlyNamedPaths } from './files.js';
export { initShellParser, isShellParserReady } from './parser.js';
export type { AnalyseOptions } from './command.js';
