import { findConfig, loadConfig } from '../config/load.js';
import { configIssues } from '../policy/policy.js';
import { parseRule } from '../policy/rule.js';
import { RulesFile } from '../store/rules-file.js';
import type { Output } from './output.js';

/**
 * `mcp-latch allow RULE` / `mcp-latch deny RULE`: adds a rule to the config file (checked, atomic
 * write); a running gateway picks it up through hot reload, about 0.2 s later (docs/config.md).
 */
export async function addRule(list: 'allow' | 'deny' | 'ask', rule: string, options: { config?: string | undefined }, out: Output): Promise<number> {
  parseRule(rule, list);
  const path = findConfig(options.config);
  const result = await new RulesFile(path, configIssues).add(list, [rule]);
  if (result.added.length === 0) out.line(`${rule} is already in permissions.${list} of ${path}.`);
  else out.line(`Added ${rule} to permissions.${list} in ${path}.`);
  if (list === 'allow') {
    const { permissions } = loadConfig(path, configIssues).file;
    for (const [other, kind] of [...permissions.deny.map((r) => [r, 'deny'] as const), ...permissions.ask.map((r) => [r, 'ask'] as const)]) {
      if (covers(other, rule)) out.error(`warning: the ${kind} rule ${other} also matches what ${rule} allows; ${kind} wins over allow, so this allow has no effect there`);
    }
  }
  return 0;
}

/**
 * Does `wider` (a deny or ask rule) match everything `rule` (an allow rule) does? Judged on the
 * rule text, for the common shapes: the same rule, a bare tool (`Bash`), a prefix (`Bash(git *)`
 * over `Bash(git push *)`), a whole server (`mcp__fs` over `mcp__fs__write_file`). A `false` is
 * not a promise that the two never overlap.
 */
function covers(wider: string, rule: string): boolean {
  if (wider === rule) return true;
  if (rule.startsWith('mcp__')) return wider.startsWith('mcp__') && (rule.startsWith(`${wider}__`) || (wider.endsWith('*') && rule.startsWith(wider.slice(0, -1))));
  const split = (text: string) => /^([A-Za-z_]+)(?:\((.*)\))?$/s.exec(text);
  const a = split(wider);
  const b = split(rule);
  if (!a || !b) return false;
  const tool = (name: string) => (name === 'Write' ? 'Edit' : name);
  if (tool(a[1]!) !== tool(b[1]!)) return false;
  if (a[2] === undefined) return true;
  if (b[2] === undefined) return false;
  const prefix = /(?::\*| \*)$/.exec(a[2]);
  return prefix ? b[2].startsWith(a[2].slice(0, prefix.index)) : a[2] === b[2];
}
