import { findConfig, loadConfig, serversToRun } from '../config/load.js';
import { ruleIssues } from '../policy/policy.js';
import { classifyTool, identifyServer } from '../subjects/kind.js';
import type { Output } from './output.js';
import { withServers } from './servers.js';

/** `mcp-latch tools`: every exposed tool with its kind and where the kind came from. */
export async function listTools(options: { config?: string | undefined; json?: boolean | undefined; scope?: string | undefined }, out: Output): Promise<number> {
  const config = loadConfig(findConfig(options.config), ruleIssues, options.scope);
  const servers = serversToRun(config);
  const rows = await withServers(config, null, async (registry) => {
    const problems = registry
      .all()
      .filter((supervisor) => supervisor.state !== 'ready')
      .map((supervisor) => ({ server: supervisor.name, problem: supervisor.unavailableReason() }));
    const tools = registry.toolRoutesList().map((route) => {
      const identity = identifyServer(servers[route.supervisor.name] as { command?: string; args?: string[]; cwd?: string }, process.cwd());
      const override = config.file.tools[route.exposed];
      const toolClass = classifyTool({ identity, tool: route.tool, ...(override ? { override } : {}) });
      return { name: route.exposed, server: route.supervisor.name, tool: route.tool.name, kind: toolClass.kind, source: toolClass.source };
    });
    return { tools, problems };
  });
  if (options.json) {
    out.json(rows);
  } else {
    const width = Math.max(4, ...rows.tools.map((row) => row.name.length));
    out.line(`${'TOOL'.padEnd(width)}  ${'KIND'.padEnd(7)}  FROM`);
    for (const row of rows.tools) out.line(`${row.name.padEnd(width)}  ${row.kind.padEnd(7)}  ${row.source}`);
    for (const problem of rows.problems) out.error(`${problem.server}: ${problem.problem}`);
  }
  return rows.problems.length > 0 ? 1 : 0;
}
