import { expandServerEnv, findConfig, loadConfig, type LoadedConfig } from '../config/load.js';
import { LatchError } from '../errors.js';
import { ruleIssues } from '../policy/policy.js';
import type { Output } from './output.js';

/** `mcp-latch validate`: checks a config; each problem on its own line with its key path (with --json, as `issues`); non-zero on any. */
export function validate(options: { config?: string | undefined; json?: boolean | undefined }, out: Output): number {
  const path = findConfig(options.config);
  let config: LoadedConfig;
  try {
    config = loadConfig(path, ruleIssues);
  } catch (error) {
    if (!options.json || !(error instanceof LatchError) || error.code !== 'CONFIG_INVALID') throw error;
    out.json({ ok: false, path, issues: error.issues.length > 0 ? error.issues : [{ path: '', message: error.message }] });
    return 1;
  }
  const warnings = Object.entries(config.file.mcpServers)
    .map(([name, server]) => expandServerEnv(name, server))
    .filter((result) => !result.ok)
    .map((result) => (result.ok ? '' : `${result.issue.path}: ${result.issue.message} (this server will not start)`));
  const servers = Object.keys(config.file.mcpServers).length;
  const { allow, ask, deny } = config.file.permissions;
  if (options.json) {
    out.json({ ok: true, path, servers, rules: allow.length + ask.length + deny.length, warnings });
    return 0;
  }
  for (const warning of warnings) out.error(`warning: ${warning}`);
  out.line(`${path} is valid: ${servers} server${servers === 1 ? '' : 's'}, ${allow.length} allow / ${ask.length} ask / ${deny.length} deny rules, mode ${config.file.permissions.defaultMode}.`);
  return 0;
}
