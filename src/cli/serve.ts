import { findConfig, loadConfig } from '../config/load.js';
import { watchConfig } from '../config/watch.js';
import { errorMessage } from '../errors.js';
import { Gateway } from '../gateway/server.js';
import { StdioUpstream } from '../gateway/stdio-upstream.js';
import { createLogger } from '../log.js';
import { ruleIssues } from '../policy/policy.js';
import { initShellParser } from '../subjects/command.js';

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
  // The shell grammar loads while the client initializes and the servers start; calls wait for it.
  const parser = initShellParser();
  const gateway = new Gateway({ config, logger, beforeCalls: parser });
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

  await gateway.connect(new StdioUpstream());
  logger.info({ config: path, servers: Object.keys(config.file.mcpServers) }, 'mcp-latch serving on stdio');
}
