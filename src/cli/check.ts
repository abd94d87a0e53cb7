import { findConfig, loadConfig, serversToRun, storeSecretFiles, workspaceRoots } from '../config/load.js';
import { serverStartFiles } from '../config/servers.js';
import { auditFile } from '../store/audit.js';
import { escapeText, quotedShown } from '../latch/escape.js';
import { decide } from '../policy/decide.js';
import { policyFor, ruleIssues } from '../policy/policy.js';
import type { Decision } from '../policy/types.js';
import { initShellParser } from '../subjects/shell/index.js';
import { inspectCall } from '../subjects/inspect.js';
import { classifyTool, type ToolClass } from '../subjects/kind.js';
import { identifyServerEntry } from '../subjects/server-identity.js';
import { canonicalRoot, defaultPathEnv } from '../subjects/paths.js';
import type { Output } from './output.js';
import { usage } from '../errors.js';
import { withServers } from './servers.js';
import { isPlainObject } from '../values.js';

/**
 * `mcp-latch check --tool SERVER__TOOL --args JSON`: decides one call exactly as the gateway would,
 * without forwarding anything. The server is started only when neither a `tools` override nor a
 * built-in profile classifies the tool (its schema is then needed).
 */
/**
 * Exit codes of `check --exit-code`, so a script can branch on the decision: 0 allow, 2 ask,
 * 3 deny (1 stays "could not decide": bad usage or config). Without the flag, 0 whatever the decision.
 */
const CHECK_EXIT_CODES = { allow: 0, ask: 2, deny: 3 } as const;

export async function check(options: { config?: string | undefined; tool: string; args?: string | undefined; json?: boolean | undefined; exitCode?: boolean | undefined }, out: Output): Promise<number> {
  const config = loadConfig(findConfig(options.config), ruleIssues);
  const separator = options.tool.indexOf('__');
  if (separator <= 0) throw usage(`--tool must be SERVER__TOOL (for example fs__read_text_file), got ${quotedShown(options.tool)}`);
  const server = options.tool.slice(0, separator);
  const toolName = options.tool.slice(separator + 2);
  const serverConfig = config.file.mcpServers[server];
  if (!serverConfig) throw usage(`no server named ${quotedShown(server)} in the config (servers: ${Object.keys(config.file.mcpServers).join(', ') || 'none'})`);
  let args: Record<string, unknown> = {};
  if (options.args !== undefined) {
    try {
      args = JSON.parse(options.args) as Record<string, unknown>;
    } catch (error) {
      throw usage(`--args is not valid JSON: ${(error as Error).message}`);
    }
    if (!isPlainObject(args)) throw usage('--args must be a JSON object');
  }

  await initShellParser();
  const identity = identifyServerEntry(server, serversToRun(config)[server] ?? serverConfig, process.cwd());
  const override = config.file.tools[options.tool];
  let toolClass: ToolClass = classifyTool({ identity, tool: { name: toolName }, ...(override ? { override } : {}) });
  let started = false;
  if (toolClass.source !== 'override' && !toolClass.source.startsWith('profile:')) {
    // Heuristics need the real schema and annotations: ask the server.
    started = true;
    const tool = await withServers(config, [server], async (registry) => {
      const supervisor = registry.get(server);
      if (supervisor?.state !== 'ready') throw usage(`could not start ${server} to classify ${toolName}: ${supervisor?.unavailableReason() ?? 'unknown server'}`);
      const found = supervisor.listing.tools.find((candidate) => candidate.name === toolName);
      // The server's names, and the one typed, escaped (a name with an ESC sequence reached the terminal; round 31 review S31-4).
      if (!found) throw usage(`${server} has no tool named "${escapeText(toolName)}" (it has: ${supervisor.listing.tools.map((t) => escapeText(t.name)).join(', ')})`);
      return found;
    });
    toolClass = classifyTool({ identity, tool, ...(override ? { override } : {}) });
  }

  const pathEnv = defaultPathEnv();
  const roots = workspaceRoots(config).map((root) => canonicalRoot(root, pathEnv));
  const env = { home: pathEnv.home, roots, platform: pathEnv.platform };
  const policy = policyFor(config.file.permissions, config.path, auditFile(config), env, serverStartFiles(config), storeSecretFiles(config));
  const facts = inspectCall(server, toolName, args, toolClass, { workspace: roots, clientRoots: [], pathEnv });
  const decision = decide(facts, policy);

  if (options.json) {
    out.json({
      decision: decision.verdict,
      kind: decision.kind,
      kindSource: toolClass.source,
      reason: decision.reason,
      rule: decision.rule,
      by: decision.by,
      paths: decision.paths,
      commandInfo: decision.commandInfo,
      subjects: decision.subjects.map(({ subject, verdict, rule, reason, by }) => ({ type: subject.type, verdict, rule, by, reason })),
      serverStarted: started,
    });
  } else {
    printDecision(decision, toolClass, out);
  }
  return options.exitCode ? CHECK_EXIT_CODES[decision.verdict] : 0;
}

function printDecision(decision: Decision, toolClass: ToolClass, out: Output): void {
  out.line(`Decision: ${decision.verdict.toUpperCase()}`);
  out.line(`Kind:     ${decision.kind} (from ${toolClass.source})`);
  out.line(`Rule:     ${decision.rule ? escapeText(decision.rule) : `none (decided by ${decision.by})`}`);
  out.line(`Reason:   ${escapeText(decision.reason)}`);
  if (decision.paths.length > 0) {
    out.line('Paths:');
    for (const path of decision.paths) {
      const real = path.realPath && path.realPath !== path.path ? ` -> ${escapeText(path.realPath)}` : '';
      out.line(`  ${path.access.padEnd(5)} ${escapeText(path.path)}${real} (${path.inWorkspace ? 'inside' : 'outside'} the workspace)${path.problem ? ` [${escapeText(path.problem)}]` : ''}`);
    }
  }
  const info = decision.commandInfo;
  if (info) {
    out.line(`Command:  ${escapeText(info.raw)}`);
    info.segments.forEach((segment, index) => out.line(`  ${index + 1}. ${escapeText(segment.words.join(' '))}${segment.context !== 'top' ? ` (${segment.context})` : ''}`));
    // A reason may quote the call or a process it names (`input to …, \`CMD\``): escaped as the rest (round 31 review S31-4).
    if (info.unanalyzable.length > 0) out.line(`  cannot be fully analysed: ${info.unanalyzable.map(escapeText).join(', ')}`);
    if (info.signature) out.line(`  signature: ${escapeText(info.signature)}`);
  }
  out.line('Subjects:');
  for (const subject of decision.subjects) {
    out.line(`  ${subject.verdict.padEnd(5)} ${escapeText(subject.reason)}`);
  }
}
