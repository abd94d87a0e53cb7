import { findConfig, loadConfig } from '../config/load.js';
import { errorMessage, LatchError } from '../errors.js';
import { IdleCollector } from '../gateway/idle-collector.js';
import { createLogger } from '../log.js';
import { ruleIssues } from '../policy/policy.js';
import { TeamGateway } from '../team/http.js';
import { runUntilStopped } from './run-until-stopped.js';
import { openTeamStore } from '../team/open-store.js';

/**
 * `mcp-latch serve --http`: the team gateway (docs/team.md) on 127.0.0.1 by default. Exits, after
 * closing every server's process tree, on SIGINT, SIGTERM or SIGHUP.
 */
export interface ServeHttpOptions {
  config?: string | undefined;
  logLevel?: string | undefined;
  host: string;
  port: number;
}

export function runServeHttp(options: ServeHttpOptions): void {
  serveHttp(options).catch((error: unknown) => {
    process.stderr.write(`mcp-latch: ${error instanceof LatchError ? error.message : errorMessage(error)}\n`);
    process.exit(1);
  });
}

async function serveHttp(options: ServeHttpOptions): Promise<void> {
  const path = findConfig(options.config);
  const config = loadConfig(path, ruleIssues);
  const logger = createLogger({ level: (options.logLevel ?? config.file.logLevel ?? process.env.MCP_LATCH_LOG_LEVEL ?? 'info') as 'info' });
  const store = await openTeamStore(config, logger);
  const gateway = new TeamGateway({ config, logger, store, host: options.host, port: options.port });
  try {
    const url = await gateway.listen();
    // The help first: whoever waits for the "serving" line (a script, a test) has it by then.
    const secret = gateway.secretFile();
    if (secret) process.stderr.write(secretHelp(url, secret));
    logger.info({ config: path, url }, `mcp-latch serving MCP on ${url}`);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  runUntilStopped(path, gateway, logger);
  // Memory promoted during a burst of calls is given back once no client has sent anything for a
  // second and no call is in flight, as in `serve` (gateway/idle-collector.ts). The servers' start
  // counts as in flight: a collection then would take the cores from them.
  let startedUp = false;
  void gateway.whenStartedUp().then(() => (startedUp = true));
  new IdleCollector({
    input: gateway.received,
    inFlight: () => gateway.callsInFlight() + (startedUp ? 0 : 1),
    // As in `serve`: a full collection drops what the shell warm-up left warm (core.ts, warmAgain).
    collected: () => gateway.core.warmAgain(),
    report: (outcome, detail) => logger.debug({ ...detail, outcome }, 'idle: heap checked after a burst'),
  });
}

/**
 * How a client reaches a gateway that has no `http.tokens` or `http.oauth`: with this run's secret
 * (docs/team.md#identity), through a variable the client expands. Never a command line holding the
 * secret (`--header "Authorization: Bearer $(cat FILE)"`: the shell expands it into the client's
 * argv, which every local user reads in /proc) nor the secret in a project `.mcp.json`, often
 * committed and 0644 (round 18 review, L2).
 */
function secretHelp(url: string, file: string): string {
  const page = new URL('/approve', url).href;
  const quoted = `'${file.replaceAll("'", "'\\''")}'`;
  return [
    `mcp-latch: no http.tokens or http.oauth: every request must send "Authorization: Bearer <secret>".`,
    `  The secret is in ${file} (mode 0600, only you can read it; a new one at each start).`,
    `  Never put the secret itself on a command line (every local user can read those) or in a project file: give the client a variable it expands.`,
    `  Claude Code, in .mcp.json or ~/.claude.json:  "latch": { "type": "http", "url": "${url}", "headers": { "Authorization": "Bearer \${MCP_LATCH_SECRET}" } }`,
    `    and start claude from a shell where:  export MCP_LATCH_SECRET="$(cat ${quoted})"`,
    `  VS Code, in .vscode/mcp.json (it asks for the value once and keeps it in its secret storage):`,
    `    "inputs": [{ "type": "promptString", "id": "mcp-latch-secret", "description": ${JSON.stringify(`mcp-latch secret (${file})`)}, "password": true }],`,
    `    "servers": { "latch": { "type": "http", "url": "${url}", "headers": { "Authorization": "Bearer \${input:mcp-latch-secret}" } } }`,
    `  The approval page ${page}: sign in with the same secret. For a credential that outlives a restart, use http.tokens (mcp-latch token).`,
    '',
  ].join('\n');
}
