import { findConfig, loadConfig, serversToRun } from '../config/load.js';
import { ruleIssues } from '../policy/policy.js';
import { classifyTool, identifyServer } from '../subjects/kind.js';
import type { Output } from './output.js';
import { withServers } from './servers.js';

/** Some clients (Claude Code, Cursor) refuse or cut tool names longer than this, prefix included. */
const CLIENT_NAME_LIMIT = 64;

/**
 * The prefix clients put before a tool of the wrapped entry (`mcp__<entry>__`): `latch` for a
 * user-level scope; a project scope (`id:dir`) may be `latch-project`, the longest name init writes.
 */
function clientPrefix(scope: string | undefined): string {
  return scope?.includes(':') ? 'mcp__latch-project__' : 'mcp__latch__';
}

/** `mcp-latch tools`: every exposed tool with its kind and where the kind came from, and names too long for clients. */
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
    const prefix = clientPrefix(options.scope);
    const tooLong = tools.filter((tool) => prefix.length + tool.name.length > CLIENT_NAME_LIMIT).map((tool) => `${prefix}${tool.name}`);
    return { tools, problems, tooLong };
  });
  if (options.json) {
    out.json(rows);
  } else {
    const width = Math.max(4, ...rows.tools.map((row) => row.name.length));
    out.line(`${'TOOL'.padEnd(width)}  ${'KIND'.padEnd(7)}  FROM`);
    for (const row of rows.tools) out.line(`${row.name.padEnd(width)}  ${row.kind.padEnd(7)}  ${row.source}`);
    for (const problem of rows.problems) out.error(`${problem.server}: ${problem.problem}`);
    for (const name of rows.tooLong) {
      out.error(`warning: ${name} is ${name.length} characters; clients that cap tool names at ${CLIENT_NAME_LIMIT} may refuse or cut it: shorten the server's name`);
    }
  }
  return rows.problems.length > 0 ? 1 : 0;
}
