import { findConfig } from '../config/load.js';
import { configIssues } from '../policy/policy.js';
import { parseRule } from '../policy/rule.js';
import { RulesFile } from '../store/rules-file.js';
import type { Output } from './output.js';

/**
 * `mcp-latch allow RULE` / `mcp-latch deny RULE`: adds a rule to the config file (checked, atomic
 * write); a running gateway picks it up through hot reload.
 */
export async function addRule(list: 'allow' | 'deny' | 'ask', rule: string, options: { config?: string | undefined }, out: Output): Promise<number> {
  parseRule(rule, list);
  const path = findConfig(options.config);
  const result = await new RulesFile(path, configIssues).add(list, [rule]);
  if (result.added.length === 0) out.line(`${rule} is already in permissions.${list} of ${path}.`);
  else out.line(`Added ${rule} to permissions.${list} in ${path}.`);
  return 0;
}
