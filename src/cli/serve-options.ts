/**
 * The command line of a plain `serve`, read without the command-line library or the serve bundle:
 * bin/ reads it first, so that `serve` (what every MCP client session starts) loads neither yargs nor
 * its help layout, and no other command loads the serve bundles (docs/performance.md, "Start-up"). No imports at run time: bin/ loads this before anything else.
 */
export interface ServeOptions {
  config?: string | undefined;
  logLevel?: string | undefined;
  /** Serve only this entry of `scopes` (what `init --wrap` writes into each client file). */
  scope?: string | undefined;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The options of a plain `serve` command line (`[serve] [--config FILE] [--scope NAME] [--log-level LEVEL]`, the
 * forms clients write), or null for anything else, which goes to the full command line (main.ts):
 * help, other commands, mistakes.
 */
export function serveOptions(argv: readonly string[]): ServeOptions | null {
  const options: ServeOptions = {};
  let command = false;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === 'serve' && !command) {
      command = true;
      continue;
    }
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = inline ?? argv[++index];
    if (value === undefined || value === '' || value.startsWith('-')) return null;
    if ((flag === '--config' || flag === '-c') && options.config === undefined) options.config = value;
    else if (flag === '--scope' && options.scope === undefined) options.scope = value;
    else if ((flag === '--log-level' || flag === '--logLevel') && options.logLevel === undefined && LOG_LEVELS.includes(value)) options.logLevel = value;
    else return null;
  }
  return options;
}
