import { findConfig, loadConfig, serversToRun } from '../config/load.js';
import { LatchError } from '../errors.js';
import { renderDefinition } from '../latch/definition-prompt.js';
import { escapeText } from '../latch/escape.js';
import { shellQuote } from '../latch/denial.js';
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
  // What a gateway holds (added or changed since the lock file's record) shows as held, and `--changed` lists it with its accept command.
  reports.addedLater = (kind, server, name, entry) => reports.addedSinceRecorded(kind, server, name, entry);
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
    // Every name is checked before anything is pinned: a refused one pins none of them.
    const toPin: Array<{ report: DefinitionReport; reviewed: boolean }> = [];
    for (const text of options.accept ?? []) {
      const { name, digest } = acceptTarget(text);
      const entry = listed.find((each) => each.exposed === name);
      const matching = entry ? [reports.forTool(entry, () => listed, policy)] : others().filter((report) => report.exposed === name);
      if (matching.length === 0) throw new LatchError('USAGE', `--accept ${escapeText(name)}: no listed tool, prompt or resource template has that name (run \`mcp-latch tools\` to see the names)`);
      if (digest === undefined) {
        for (const report of matching) toPin.push({ report, reviewed: false });
        continue;
      }
      // The definition reviewed, or none: the server may have changed it since `--changed` showed it (round 18, hostile servers #2).
      const reviewed = matching.filter((report) => report.digest === digest);
      if (reviewed.length === 0) {
        const now = matching.map((report) => report.digest).join(', ');
        throw new LatchError('USAGE', `--accept ${escapeText(text)}: the server no longer lists the definition reviewed (${escapeText(digest)}) but ${now}, so nothing was pinned; review it again with \`mcp-latch tools --changed\` and accept the digest it shows`);
      }
      for (const report of reviewed) toPin.push({ report, reviewed: true });
    }
    const accepted: Array<{ text: string; report: DefinitionReport; reviewed: boolean }> = [];
    for (const { report, reviewed } of toPin) {
      await reports.pin(report, servers[report.server] ?? {}, undefined, true);
      accepted.push({ text: `${report.exposed}@${report.digest}`, report, reviewed });
    }
    const tools = listed.map((entry) => {
      const identity = identifyServer(servers[entry.server] as { command?: string; args?: string[]; cwd?: string }, process.cwd());
      const override = config.file.tools[entry.exposed];
      const toolClass = classifyTool({ identity, tool: entry.tool, ...(override ? { override } : {}) });
      const report = reports.forTool(entry, () => listed, policy);
      // On a team gateway members may have accepted the change for themselves (docs/team.md#pins).
      const acceptedBy = report.pin.state === 'changed' ? store.acceptedBy('tool', entry.server, entry.tool.name, report.digest) : [];
      return { type: 'tool', name: entry.exposed, server: entry.server, tool: entry.tool.name, kind: toolClass.kind as string, source: toolClass.source as string, pin: report.pin.state, ...heldOf(report), ...(acceptedBy.length > 0 ? { acceptedBy } : {}), listed: !(policy === 'hide' && report.findings.length > 0), findings: report.findings, report };
    });
    const rest = others().map((report) => ({ type: report.kind, name: report.exposed, server: report.server, tool: report.name, kind: report.kind, source: '-', pin: report.pin.state, ...heldOf(report), listed: !(policy === 'hide' && report.findings.length > 0), findings: report.findings, report }));
    const prefix = clientPrefix(options.scope);
    const tooLong = tools.filter((tool) => prefix.length + tool.name.length > CLIENT_NAME_LIMIT).map((tool) => `${prefix}${tool.name}`);
    return { tools: [...tools, ...rest].filter((row) => !options.changed || row.pin === 'changed' || row.added === true), problems, tooLong, accepted };
  }, { waitMs: waitSeconds * 1000 });
  const unreadable = store.unreadable();
  if (options.json) {
    out.json({
      lockFile: store.path,
      ...(unreadable ? { lockFileProblem: unreadable } : {}),
      accepted: rows.accepted.map((entry) => entry.text),
      tools: rows.tools.map(({ report, ...row }) => ({ ...row, digest: report.digest, ...(report.pin.state === 'changed' ? { changes: report.pin.changes } : {}) })),
      problems: rows.problems,
      tooLong: rows.tooLong,
    });
  } else {
    for (const entry of rows.accepted) {
      out.line(`Pinned ${escapeText(entry.text)} in ${store.path}.`);
      // Named without the digest reviewed: what was pinned is shown, as it was listed in this run (docs/pins.md, "Accepting a change").
      if (!entry.reviewed) for (const line of [...detail(entry.report), ...definitionLines(entry.report)]) out.line(`    ${line}`);
    }
    const width = Math.max(4, ...rows.tools.map((row) => row.name.length));
    out.line(`${'TOOL'.padEnd(width)}  ${'KIND'.padEnd(7)}  ${'PIN'.padEnd(7)}  FROM`);
    for (const row of rows.tools) {
      out.line(`${row.name.padEnd(width)}  ${row.kind.padEnd(7)}  ${row.pin.padEnd(7)}  ${row.source}${row.listed ? '' : '  (hidden: policy.toolDescriptions)'}`);
      if (row.added === true) out.line('    held by the gateway: added or changed by its server since the listing the lock file records (docs/pins.md, "A tool added later")');
      if (row.pin === 'changed' || row.findings.length > 0) for (const line of detail(row.report)) out.line(`    ${line}`);
      if (row.pin === 'changed' || row.added === true) out.line(`    listed now: ${row.report.digest}`);
      if ('acceptedBy' in row && row.acceptedBy) out.line(`    accepted for themselves by ${row.acceptedBy.join(', ')}; --accept accepts it for every member`);
    }
    // The digest of the definition shown: an accept of it pins that one, or nothing if the server changed it since (round 18, #2).
    if (options.changed && rows.tools.length > 0) out.line(`Accept a change with: mcp-latch tools --accept ${rows.tools.map((row) => shellQuote(`${row.name}@${row.report.digest}`)).join(' --accept ')}`);
    if (unreadable) out.error(`The lock file ${store.path} cannot be read: ${escapeText(unreadable)}`);
    for (const problem of rows.problems) out.error(escapeText(problem.problem));
    for (const name of rows.tooLong) {
      out.error(`warning: ${name} is ${name.length} characters; clients that cap tool names at ${CLIENT_NAME_LIMIT} may refuse or cut it: shorten the server's name`);
    }
  }
  return rows.problems.length > 0 || unreadable ? 1 : 0;
}

/** `NAME@sha256:HEX`: the name and the digest the person reviewed; a bare `NAME`: no digest. */
function acceptTarget(text: string): { name: string; digest?: string } {
  const at = text.lastIndexOf('@sha256:');
  return at < 0 ? { name: text } : { name: text.slice(0, at), digest: text.slice(at + 1) };
}

/** The definition pinned, whole and escaped: what an accept without a digest pinned, for the person to read. */
function definitionLines(report: DefinitionReport): string[] {
  return ['pinned definition:', ...JSON.stringify(report.definition, null, 2).split('\n').map((line) => `  ${escapeText(line)}`)];
}

/** The diff and findings, in full: what a person reads before `tools --accept` (docs/approval.md "What the prompt shows"). */
function detail(report: DefinitionReport): string[] {
  return renderDefinition(report, new Set(), true);
}

/** `added: true` for an entry a gateway holds (added or changed since the lock file's record), for the row. */
function heldOf(report: DefinitionReport): { added?: true } {
  return report.pin.state === 'new' && report.pin.added === true ? { added: true } : {};
}
