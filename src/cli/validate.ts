import { expandServerEnv, findConfig, loadConfig, type LoadedConfig } from '../config/load.js';
import { closest } from '../config/hints.js';
import { formatKeyPath } from '../config/json.js';
import type { ConfigFile } from '../config/schema.js';
import { LatchError } from '../errors.js';
import { quotedShown } from '../latch/escape.js';
import { parseRule } from '../policy/rule.js';
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
  const warnings = [
    ...Object.entries(config.file.mcpServers)
      .map(([name, server]) => expandServerEnv(name, server))
      .filter((result) => !result.ok)
      .map((result) => (result.ok ? '' : `${result.issue.path}: ${result.issue.message} (this server will not start)`)),
    ...inputPlaceholders(config.file.mcpServers),
    ...rulesForMissingServers(config.file),
  ];
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

/** VS Code's `${input:…}` is asked of the person by VS Code when it starts a server; copied here, it stays literal. */
function inputPlaceholders(servers: ConfigFile['mcpServers']): string[] {
  const out: string[] = [];
  const walk = (value: unknown, path: Array<string | number>): void => {
    if (typeof value === 'string') {
      const placeholder = /\$\{input:[^}]*\}/.exec(value)?.[0];
      if (placeholder) out.push(`${formatKeyPath(path)}: ${placeholder} is a VS Code input, which only VS Code can ask for; the server would get it literally: write the value, or \${env:NAME}`);
    } else if (Array.isArray(value)) value.forEach((item, index) => walk(item, [...path, index]));
    else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
  };
  walk(servers, ['mcpServers']);
  return out;
}

/** An `mcp__server…` rule for a server the file does not configure never matches: a typo, or a server that was renamed. */
function rulesForMissingServers(file: ConfigFile): string[] {
  const servers = Object.keys(file.mcpServers);
  const out: string[] = [];
  for (const list of ['deny', 'ask', 'allow'] as const) {
    file.permissions[list].forEach((text, index) => {
      if (!text.startsWith('mcp__')) return;
      const rule = parseRule(text, list);
      if (rule.type !== 'mcp' || servers.includes(rule.server)) return;
      const guess = closest(rule.server, servers);
      out.push(`${formatKeyPath(['permissions', list, index])}: ${quotedShown(text)} names the server ${quotedShown(rule.server)}, which is not in mcpServers, so it matches nothing${guess ? ` (did you mean ${quotedShown(guess)}?)` : ''}`);
    });
  }
  return out;
}
