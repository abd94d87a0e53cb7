import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { errorMessage, LatchError } from '../errors.js';
import { showAudit } from './audit.js';
import { check } from './check.js';
import { processOutput } from './output.js';
import { addRule } from './rules.js';
import { serve } from './serve.js';
import { listTools } from './tools.js';
import { tryGateway } from './try.js';
import { validate } from './validate.js';

/**
 * The `mcp-latch` command line (SPEC §8). Every command takes --config (else $MCP_LATCH_CONFIG,
 * ./mcp-latch.json, then the per-user config). Errors are one clear line on stderr and exit 1.
 */
export async function main(argv: string[] = hideBin(process.argv)): Promise<void> {
  const out = processOutput;
  const run = (task: () => number | Promise<number>) => async () => {
    try {
      process.exitCode = await task();
    } catch (error) {
      out.error(`mcp-latch: ${formatError(error)}`);
      process.exitCode = 1;
    }
  };

  await yargs(argv)
    .scriptName('mcp-latch')
    .usage('$0 <command> [options]\n\nAn MCP gateway that checks every tool call against your rules and asks you before anything risky runs.')
    .option('config', { alias: 'c', type: 'string', describe: 'Config file (default: $MCP_LATCH_CONFIG, ./mcp-latch.json, ~/.config/mcp-latch/mcp-latch.json)', global: true })
    .command(
      ['serve', '$0'],
      'Run the gateway on stdio (what your MCP client starts)',
      (y) => y.option('log-level', { type: 'string', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], describe: 'Log level (logs go to stderr)' }).example('$0 serve --config ~/mcp-latch.json', 'Serve the servers and rules of that file'),
      (args) =>
        serve({ config: args.config, logLevel: args['log-level'] }).catch((error: unknown) => {
          out.error(`mcp-latch: ${formatError(error)}`);
          process.exit(1);
        }),
    )
    .command(
      'validate',
      'Check a config file and list every problem',
      (y) => y.option('json', { type: 'boolean', describe: 'Print the result as JSON' }).example('$0 validate --config mcp-latch.json', 'Exit 0 when valid, 1 with one line per problem otherwise'),
      (args) => run(() => validate({ config: args.config, json: args.json }, out))(),
    )
    .command(
      'check',
      'Decide one call without running it: decision, kind, paths, command and the deciding rule',
      (y) =>
        y
          .option('tool', { type: 'string', demandOption: true, describe: 'Exposed tool name, SERVER__TOOL' })
          .option('args', { type: 'string', describe: 'The call arguments as a JSON object' })
          .option('json', { type: 'boolean', describe: 'Print one JSON object' })
          .example(`$0 check --tool shell__run_command --args '{"command":"git status && rm -rf build"}'`, 'What would happen to this command?')
          .example(`$0 check --tool fs__read_text_file --args '{"path":".env"}' --json`, 'Machine-readable decision'),
      (args) => run(() => check({ config: args.config, tool: args.tool, args: args.args, json: args.json }, out))(),
    )
    .command(
      'tools',
      'List every tool the gateway exposes, with its kind and where the kind came from',
      (y) => y.option('json', { type: 'boolean', describe: 'Print JSON' }),
      (args) => run(() => listTools({ config: args.config, json: args.json }, out))(),
    )
    .command(
      'allow <rule>',
      'Add a rule to permissions.allow (a running gateway picks it up)',
      (y) => y.positional('rule', { type: 'string', demandOption: true, describe: 'A rule, e.g. "Bash(npm run test *)"' }).example(`$0 allow 'Bash(npm run test *)'`, 'Allow the test script without asking'),
      (args) => run(() => addRule('allow', args.rule, { config: args.config }, out))(),
    )
    .command(
      'deny <rule>',
      'Add a rule to permissions.deny (a running gateway picks it up)',
      (y) => y.positional('rule', { type: 'string', demandOption: true, describe: 'A rule, e.g. "Read(**/.env)"' }).example(`$0 deny 'Read(**/.env)'`, 'Never let a tool read .env files'),
      (args) => run(() => addRule('deny', args.rule, { config: args.config }, out))(),
    )
    .command(
      'try',
      'Start the gateway and call its tools from this terminal, answering approval prompts with the keyboard',
      (y) => y.option('log', { type: 'string', describe: 'Where the gateway logs go (default: a file in the temp directory)' }).example('$0 try --config examples/mcp-latch.json', 'Test your rules before plugging in a client'),
      (args) => run(() => tryGateway({ config: args.config, log: args.log }))(),
    )
    .command(
      'audit',
      'Show the most recent decisions',
      (y) => y.option('limit', { alias: 'n', type: 'number', default: 20, describe: 'How many' }).option('json', { type: 'boolean', describe: 'Print the records as JSON' }),
      (args) => run(() => showAudit({ config: args.config, json: args.json, limit: args.limit }, out))(),
    )
    .strict()
    .demandCommand(0)
    .help()
    .alias('h', 'help')
    .version('0.1.0')
    .fail((message, error) => {
      out.error(`mcp-latch: ${error ? formatError(error) : message}`);
      out.error('Run mcp-latch --help for usage.');
      process.exit(1);
    })
    .parseAsync();
}

function formatError(error: unknown): string {
  if (error instanceof LatchError) return error.message;
  return errorMessage(error);
}
