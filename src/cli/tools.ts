import { findConfig, loadConfig, serversToRun } from '../config/load.js';
import { LatchError } from '../errors.js';
import { renderDefinition } from '../latch/definition-prompt.js';
import { escapeText } from '../latch/escape.js';
import { silentLogger } from '../log.js';
import type { DefinitionReport } from '../pins/check.js';
import { DefinitionReports } from '../pins/reports.js';
import { ruleIssues } from '../policy/policy.js';
import { PinStore } from '../store/pins.js';
import { pinsFileFor } from '../config/locate.js';
import { classifyTool } from '../subjects/kind.js';
import { identifyServer } from '../subjects/server-identity.js';
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

export interface ToolsOptions {
  config?: string | undefined;
  json?: boolean | undefined;
  /** Only the servers of this scope, as `serve --scope` exposes them. */
  scope?: string | undefined;
  /** Only tools whose definition changed since it was pinned. */
  changed?: boolean | undefined;
  /** Exposed names (`server__tool`) whose current definition is pinned: a change the user accepts. */
  accept?: string[] | undefined;
  /** How long to wait for servers still starting; default `timeouts.firstListSeconds`, as a client's first list. */
  wait?: number | undefined;
}

/**
 * `mcp-latch tools`: every exposed tool with its kind, where the kind came from, its pin state
 * against the lock file and what the description scan found. `--accept` pins tools as they are
 * listed now; a running gateway reads the lock file again before its next call to them.
 */
export async function listTools(options: ToolsOptions, out: Output): Promise<number> {
  const config = loadConfig(findConfig(options.config), ruleIssues, options.scope);
  const servers = serversToRun(config);
  const store = new PinStore(pinsFileFor(config.path));
  const reports = new DefinitionReports(store, silentLogger());
  const policy = config.file.policy.toolDescriptions;
  if (options.wait !== undefined && !(Number.isFinite(options.wait) && options.wait >= 0)) throw new LatchError('USAGE', '--wait takes a number of seconds, 0 or more');
  const waitSeconds = options.wait ?? config.file.timeouts.firstListSeconds;
  const rows = await withServers(config, null, async (registry) => {
    const problems = registry.unavailable().map((entry) => ({
      server: entry.server,
      problem: entry.state === 'starting' ? `${entry.reason} after ${waitSeconds} s; wait longer with --wait SECONDS` : entry.reason,
    }));
    const listed = registry.toolRoutesList().map((route) => ({ exposed: route.exposed, server: route.supervisor.name, tool: route.tool }));
    // Prompts and resource templates are pinned and scanned as tools are (docs/pins.md).
    const others = () => [
      ...registry.promptRoutesList().map((route) => reports.forPrompt({ exposed: route.exposed, server: route.supervisor.name, prompt: route.prompt }, () => listed, policy)),
      ...registry.templates().map((entry) => reports.forTemplate({ server: entry.supervisor.name, template: entry.template }, () => listed, policy)),
    ];
    const accepted: string[] = [];
    for (const name of options.accept ?? []) {
      const entry = listed.find((each) => each.exposed === name);
      const matching = entry ? [reports.forTool(entry, () => listed, policy)] : others().filter((report) => report.exposed === name);
      if (matching.length === 0) throw new LatchError('USAGE', `--accept ${name}: no listed tool, prompt or resource template has that name (run \`mcp-latch tools\` to see the names)`);
      for (const report of matching) {
        await reports.pin(report, servers[report.server] ?? {}, undefined, true);
        accepted.push(`${name} (${report.digest})`);
      }
    }
    const tools = listed.map((entry) => {
      const identity = identifyServer(servers[entry.server] as { command?: string; args?: string[]; cwd?: string }, process.cwd());
      const override = config.file.tools[entry.exposed];
      const toolClass = classifyTool({ identity, tool: entry.tool, ...(override ? { override } : {}) });
      const report = reports.forTool(entry, () => listed, policy);
      // On a team gateway members may have accepted the change for themselves (docs/team.md#pins).
      const acceptedBy = report.pin.state === 'changed' ? store.acceptedBy('tool', entry.server, entry.tool.name, report.digest) : [];
      return { type: 'tool', name: entry.exposed, server: entry.server, tool: entry.tool.name, kind: toolClass.kind as string, source: toolClass.source as string, pin: report.pin.state, ...(acceptedBy.length > 0 ? { acceptedBy } : {}), listed: !(policy === 'hide' && report.findings.length > 0), findings: report.findings, report };
    });
    const rest = others().map((report) => ({ type: report.kind, name: report.exposed, server: report.server, tool: report.name, kind: report.kind, source: '-', pin: report.pin.state, listed: !(policy === 'hide' && report.findings.length > 0), findings: report.findings, report }));
    const prefix = clientPrefix(options.scope);
    const tooLong = tools.filter((tool) => prefix.length + tool.name.length > CLIENT_NAME_LIMIT).map((tool) => `${prefix}${tool.name}`);
    return { tools: [...tools, ...rest].filter((row) => !options.changed || row.pin === 'changed'), problems, tooLong, accepted };
  }, { waitMs: waitSeconds * 1000 });
  const unreadable = store.unreadable();
  if (options.json) {
    out.json({
      lockFile: store.path,
      ...(unreadable ? { lockFileProblem: unreadable } : {}),
      accepted: rows.accepted,
      tools: rows.tools.map(({ report, ...row }) => ({ ...row, ...(report.pin.state === 'changed' ? { changes: report.pin.changes } : {}) })),
      problems: rows.problems,
      tooLong: rows.tooLong,
    });
  } else {
    for (const line of rows.accepted) out.line(`Pinned ${line} in ${store.path}.`);
    const width = Math.max(4, ...rows.tools.map((row) => row.name.length));
    out.line(`${'TOOL'.padEnd(width)}  ${'KIND'.padEnd(7)}  ${'PIN'.padEnd(7)}  FROM`);
    for (const row of rows.tools) {
      out.line(`${row.name.padEnd(width)}  ${row.kind.padEnd(7)}  ${row.pin.padEnd(7)}  ${row.source}${row.listed ? '' : '  (hidden: policy.toolDescriptions)'}`);
      if (row.pin === 'changed' || row.findings.length > 0) for (const line of detail(row.report)) out.line(`    ${line}`);
      if ('acceptedBy' in row && row.acceptedBy) out.line(`    accepted for themselves by ${row.acceptedBy.join(', ')}; --accept accepts it for every member`);
    }
    if (options.changed && rows.tools.length > 0) out.line(`Accept a change with: mcp-latch tools --accept ${rows.tools.map((row) => row.name).join(' --accept ')}`);
    if (unreadable) out.error(`The lock file ${store.path} cannot be read: ${escapeText(unreadable)}`);
    for (const problem of rows.problems) out.error(escapeText(problem.problem));
    for (const name of rows.tooLong) {
      out.error(`warning: ${name} is ${name.length} characters; clients that cap tool names at ${CLIENT_NAME_LIMIT} may refuse or cut it: shorten the server's name`);
    }
  }
  return rows.problems.length > 0 || unreadable ? 1 : 0;
}

/** The diff and findings, in full: what a person reads before `tools --accept` (docs/approval.md "What the prompt shows"). */
function detail(report: DefinitionReport): string[] {
  return renderDefinition(report, new Set(), true);
}
