import { expandServerEnv, findConfig, loadConfig, serversToRun } from '../config/load.js';
import { messageBytes, type ServerConfig } from '../config/schema.js';
import { watchConfig } from '../config/watch.js';
import { Prespawned } from '../downstream/prespawn.js';
import { errorMessage } from '../errors.js';
import { createLogger } from '../log.js';
import { ruleIssues } from '../policy/policy.js';

/**
 * `mcp-latch serve`: the stdio gateway. Refuses an invalid config like `validate` does. Exits, after
 * closing every server's process tree, on stdin EOF (the client went away; the SDK transport does
 * not notice, typescript-sdk#2002), SIGINT, SIGTERM or SIGHUP.
 */
export async function serve(options: { config?: string | undefined; logLevel?: string | undefined }): Promise<void> {
  // Security: stdout is the MCP channel; a stray console.log from any library would corrupt it.
  console.log = console.error;
  console.info = console.error;
  const path = findConfig(options.config);
  const config = loadConfig(path, ruleIssues);
  const level = (options.logLevel ?? config.file.logLevel ?? process.env.MCP_LATCH_LOG_LEVEL ?? 'info') as 'info';
  const logger = createLogger({ level });
  // The servers' processes start now and boot while the gateway's own code loads (below) and the
  // client initializes; their MCP handshake waits for the client's capabilities.
  const prespawned = new Prespawned();
  const early: Record<string, ServerConfig> = {};
  for (const [name, server] of Object.entries(serversToRun(config))) {
    const expanded = expandServerEnv(name, server);
    if (expanded.ok) early[name] = expanded.server;
  }
  prespawned.spawn(early, logger, messageBytes(config.file));
  const [{ Gateway }, { StdioUpstream }, { initShellParser }] = await Promise.all([
    import('../gateway/server.js'),
    import('../gateway/stdio-upstream.js'),
    import('../subjects/shell/command.js'),
  ]);
  // The shell grammar loads while the client initializes and the servers start; calls wait for it.
  const parser = initShellParser();
  const gateway = new Gateway({ config, logger, beforeCalls: parser, prespawned });
  const watcher = watchConfig(
    path,
    (text) => gateway.reload(text, 'file changed'),
    (error) => logger.warn({ err: errorMessage(error) }, 'config watch error'),
  );

  let closing = false;
  const shutdown = (why: string) => {
    if (closing) return;
    closing = true;
    logger.info({ why }, 'shutting down');
    watcher.close();
    const force = setTimeout(() => process.exit(0), 10_000);
    force.unref();
    void gateway.close().finally(() => {
      logger.flush();
      process.exit(0);
    });
  };
  process.stdin.on('end', () => shutdown('stdin closed'));
  process.stdin.on('close', () => shutdown('stdin closed'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));

  await gateway.connect(new StdioUpstream(messageBytes(config.file)));
  logger.info({ config: path, servers: Object.keys(config.file.mcpServers) }, 'mcp-latch serving on stdio');
}
