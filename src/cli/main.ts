import { createRequire } from 'node:module';
import { errorMessage } from '../errors.js';
import { VERSION } from '../version.js';
import { processOutput } from './output.js';
// Each command's module is loaded when it runs: `serve` starts with every MCP client session, and
// need not load the code of `init`, `try` or the others first. A plain `serve` command line does
// not even load the command-line library (bin/mcp-latch.js, serve-options.ts).

const SERVE_BOOT = '../serve/boot.cjs';

/**
 * The `mcp-latch` command line (docs/design.md#command-line). Every command takes --config (else $MCP_LATCH_CONFIG,
 * ./mcp-latch.json, then the per-user config). Errors are one clear line on stderr and exit 1.
 */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { default: yargs } = await import('yargs');
  const out = processOutput;
  const run = (task: () => number | Promise<number>) => async () => {
    try {
      process.exitCode = await task();
    } catch (error) {
      out.error(`mcp-latch: ${errorMessage(error)}`);
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
      (y) =>
        y
          .option('log-level', { type: 'string', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], describe: 'Log level (logs go to stderr)' })
          .option('scope', { type: 'string', describe: 'Serve only the servers of this entry of "scopes" (init writes one per client file), with its workspace' })
          .option('http', { type: 'boolean', describe: 'Serve a team over Streamable HTTP at /mcp instead of stdio (docs/team.md)' })
          .option('port', { type: 'number', default: 8080, describe: 'With --http: the port (0 picks a free one)' })
          .option('host', { type: 'string', default: '127.0.0.1', describe: 'With --http: the address; another than loopback needs http.tokens or http.oauth' })
          .example('$0 serve --config ~/mcp-latch.json', 'Serve the servers and rules of that file')
          .example('$0 serve --scope cursor', 'Serve what Cursor\'s own file listed, under the shared rules')
          .example('$0 serve --http --port 8080', 'Serve a team on http://127.0.0.1:8080/mcp'),
      (args) =>
        args.http
          ? import('./serve-http.js').then(({ runServeHttp }) => runServeHttp({ config: args.config, logLevel: args['log-level'], host: args.host, port: args.port }))
          : // What bin/ loads (dist/serve/boot.cjs, which loads serve.cjs): the gateway's bundle takes the modules it shares with serve from them.
            (createRequire(import.meta.url)(SERVE_BOOT) as typeof import('./serve-boot.js')).runServe({ config: args.config, logLevel: args['log-level'], scope: args.scope }),
    )
    .command(
      'page',
      'Print a one-time link to the approval page of every running gateway (for clients that cannot show prompts)',
      (y) => y.option('open', { type: 'boolean', describe: 'Open each page in the browser (with a link of its own)' }).example('$0 page --open', 'Open the page where waiting calls are approved'),
      (args) => run(async () => (await import('./page.js')).page({ config: args.config, open: args.open }, out))(),
    )
    .command(
      'validate',
      'Check a config file and list every problem',
      (y) =>
        y
          .option('json', { type: 'boolean', describe: 'Print the result as JSON' })
          .example('$0 validate --config mcp-latch.json', 'Exit 0 when valid, 1 with one line per problem otherwise'),
      (args) => run(async () => (await import('./validate.js')).validate({ config: args.config, json: args.json }, out))(),
    )
    .command(
      'check',
      'Decide one call without running it: decision, kind, paths, command and the deciding rule',
      (y) =>
        y
          .option('tool', { type: 'string', demandOption: true, describe: 'Exposed tool name, SERVER__TOOL' })
          .option('args', { type: 'string', describe: 'The call arguments as a JSON object' })
          .option('json', { type: 'boolean', describe: 'Print one JSON object' })
          .option('exit-code', { type: 'boolean', describe: 'Exit 0 for allow, 2 for ask, 3 for deny (1: could not decide)' })
          .example(`$0 check --tool shell__run_command --args '{"command":"git status && rm -rf build"}'`, 'What would happen to this command?')
          .example(`$0 check --tool fs__read_text_file --args '{"path":".env"}' --json`, 'Machine-readable decision'),
      (args) => run(async () => (await import('./check.js')).check({ config: args.config, tool: args.tool, args: args.args, json: args.json, exitCode: args['exit-code'] }, out))(),
    )
    .command(
      'tools',
      'List every tool the gateway exposes, with its kind, where the kind came from, its pin and what the description scan found',
      (y) =>
        y
          .option('json', { type: 'boolean', describe: 'Print JSON' })
          .option('scope', { type: 'string', describe: 'Only the servers of this scope, as `serve --scope` exposes them' })
          .option('changed', { type: 'boolean', describe: 'Only tools whose definition changed since it was pinned, with the diff' })
          .option('accept', { type: 'string', array: true, describe: 'Pin this tool (SERVER__TOOL@DIGEST, as --changed shows it): accepts a changed definition, or refuses when the server lists another than the digest; SERVER__TOOL alone pins what is listed now and prints it' })
          .option('wait', { type: 'number', describe: 'Seconds to wait for servers still starting (default: timeouts.firstListSeconds)' })
          .example('$0 tools', 'Start every server, list its tools with their kind (read, write, command, all) and pin state')
          .example('$0 tools --changed', 'Tools that changed since they were pinned, and how')
          .example('$0 tools --accept fs__read_file@sha256:…', 'Accept the new definition of fs__read_file that --changed showed')
          .example('$0 tools --json | jq \'.tools[] | select(.kind == "all")\'', 'Tools mcp-latch knows nothing about: give them a "tools" entry'),
      (args) => run(async () => (await import('./tools.js')).listTools({ config: args.config, json: args.json, scope: args.scope, changed: args.changed, accept: args.accept, wait: args.wait }, out))(),
    )
    .command(
      'allow <rule>',
      'Add a rule to permissions.allow (a running gateway picks it up)',
      (y) => y.positional('rule', { type: 'string', demandOption: true, describe: 'A rule, e.g. "Bash(npm run test *)"' }).example(`$0 allow 'Bash(npm run test *)'`, 'Allow the test script without asking'),
      (args) => run(async () => (await import('./rules.js')).addRule('allow', args.rule, { config: args.config }, out))(),
    )
    .command(
      'deny <rule>',
      'Add a rule to permissions.deny (a running gateway picks it up)',
      (y) => y.positional('rule', { type: 'string', demandOption: true, describe: 'A rule, e.g. "Read(**/.env)"' }).example(`$0 deny 'Read(**/.env)'`, 'Never let a tool read .env files'),
      (args) => run(async () => (await import('./rules.js')).addRule('deny', args.rule, { config: args.config }, out))(),
    )
    .command(
      'try',
      'Start the gateway and call its tools from this terminal, answering approval prompts with the keyboard',
      (y) => y.option('log', { type: 'string', describe: 'Where the gateway logs go (default: a file in the temp directory)' }).example('$0 try --config examples/mcp-latch.json', 'Test your rules before plugging in a client'),
      (args) => run(async () => (await import('./try.js')).tryGateway({ config: args.config, log: args.log }))(),
    )
    .command(
      'audit',
      'Show the most recent decisions',
      (y) =>
        y
          .option('limit', { alias: 'n', type: 'number', default: 20, describe: 'How many' })
          .option('json', { type: 'boolean', describe: 'Print the records as JSON' })
          .option('user', { type: 'string', describe: 'Only the calls of this user of a team gateway' })
          .example('$0 audit -n 50', 'The last 50 decisions: time, decision, server/tool, who decided, what it touched')
          .example('$0 audit --user alice', 'The last decisions on calls of alice'),
      (args) => run(async () => (await import('./audit.js')).showAudit({ config: args.config, json: args.json, limit: args.limit, user: args.user }, out))(),
    )
    .command(
      'token',
      'Make a bearer token for a user of a team gateway and print the http.tokens entry holding its hash',
      (y) =>
        y
          .option('user', { type: 'string', demandOption: true, describe: 'The user id the token stands for' })
          .option('role', { type: 'string', choices: ['user', 'admin', 'approver'], default: 'user', describe: 'admin may read every user\'s pending calls and rules; approver answers the user\'s waiting calls (the page, /api) and makes none' })
          .example('$0 token --user alice', 'A token for alice, and the line to add to http.tokens'),
      (args) => run(async () => (await import('./token.js')).makeToken({ user: args.user, role: args.role as 'user' | 'admin' | 'approver' }, out))(),
    )
    .command(
      'init',
      'Create an mcp-latch config from your client configs (Claude Desktop, Cursor, VS Code, Claude Code, Windsurf); --wrap also points the clients at mcp-latch, reversibly',
      (y) =>
        y
          .option('from', { type: 'string', describe: 'Import this client config file instead of looking for them' })
          .option('client', { type: 'string', describe: 'Only these clients, comma-separated: claude-desktop, claude-code, claude-code-user, cursor, cursor-project, vscode, vscode-user, windsurf' })
          .option('workspace', { type: 'string', describe: 'Project root the rules treat as the workspace (default: the current directory)' })
          .option('wrap', { type: 'boolean', describe: 'Rewrite each client config to start only mcp-latch (a timestamped backup is made first)' })
          .option('undo', { type: 'boolean', describe: 'Restore every client config --wrap changed, from its backup' })
          .option('dry-run', { type: 'boolean', describe: 'Print the config and the client file diffs; write nothing' })
          .option('force', { type: 'boolean', describe: 'Replace an existing mcp-latch config (backed up first); with --undo, restore files changed since' })
          .option('json', { type: 'boolean', describe: 'Print a machine-readable summary' })
          .example('$0 init --dry-run --wrap', 'Show what would be imported and how each client file would change')
          .example('$0 init --wrap', 'Import every client config found and make mcp-latch their only server')
          .example('$0 init --client cursor --workspace ~/code/app', 'Import only Cursor\'s servers, with ~/code/app as the workspace')
          .example('$0 init --from ~/Downloads/cline_mcp_settings.json --config ./mcp-latch.json', 'Import one file into a project config')
          .example('$0 init --undo', 'Put the client configs back as they were')
          .epilog(
            'Writes the config to --config FILE, else the per-user config (~/.config/mcp-latch/mcp-latch.json; %APPDATA%\\mcp-latch\\mcp-latch.json on Windows). ' +
              'With --wrap each client file is first copied into mcp-latch-backups/ next to the config (owner-only, timestamped), and what was written is recorded in mcp-latch-init.json next to the config for --undo.',
          ),
      (args) =>
        run(async () =>
          (await import('./init.js')).init(
            { config: args.config, from: args.from, client: args.client, workspace: args.workspace, wrap: args.wrap, undo: args.undo, dryRun: args['dry-run'], force: args.force, json: args.json },
            out,
          ),
        )(),
    )
    .strict()
    .demandCommand(0)
    .help()
    .alias('h', 'help')
    .version(VERSION)
    .fail((message, error) => {
      out.error(`mcp-latch: ${error ? errorMessage(error) : message}`);
      out.error('Run mcp-latch --help for usage.');
      process.exit(1);
    })
    .parseAsync();
}
