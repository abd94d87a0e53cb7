import { homedir } from 'node:os';
import { LatchError, type ConfigIssue } from '../errors.js';
import type { PolicyState } from './decide.js';
import { RuleSet, type MatchEnv } from './match.js';
import { parseRule, type Rule } from './rule.js';
import type { DefaultMode, RuleList, RuleText } from './types.js';

/**
 * From the config's `permissions` block to a PolicyState: rule strings parsed once per load, every
 * bad rule reported with its key path, then indexed against the workspace roots.
 */
export interface PermissionsInput {
  defaultMode: DefaultMode;
  allow: RuleText[];
  ask: RuleText[];
  deny: RuleText[];
}

const LISTS: RuleList[] = ['deny', 'ask', 'allow'];

/** Parses every rule; returns the rules and one issue per bad rule (`permissions.allow[2]: …`). */
export function parseRules(permissions: PermissionsInput): { rules: Rule[]; issues: ConfigIssue[] } {
  const rules: Rule[] = [];
  const issues: ConfigIssue[] = [];
  for (const list of LISTS) {
    permissions[list].forEach((text, index) => {
      try {
        rules.push(parseRule(text, list));
      } catch (error) {
        const message = error instanceof LatchError ? error.message : String(error);
        issues.push({ path: `permissions.${list}[${index}]`, message });
      }
    });
  }
  return { rules, issues };
}

export function defaultMatchEnv(roots: string[]): MatchEnv {
  return { home: homedir(), roots, platform: process.platform };
}

/** Compiles a policy; throws RULE_INVALID when a rule is bad. */
export function compilePolicy(permissions: PermissionsInput, env: MatchEnv): PolicyState {
  const { rules, issues } = parseRules(permissions);
  if (issues.length > 0) throw new LatchError('RULE_INVALID', issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n'), { issues });
  return { mode: permissions.defaultMode, rules: new RuleSet(rules, env) };
}
