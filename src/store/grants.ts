import type { Grants } from '../policy/decide.js';
import { RuleSet, type MatchEnv } from '../policy/match.js';
import { parseRule, type Rule } from '../policy/rule.js';

/**
 * "Allow for this session" answers, held in memory for one client session: the rules "Always
 * allow" would have saved, or the exact call (server, tool, argument digest) when the call cannot be
 * a rule. Gone when the session ends.
 */
export class SessionGrants {
  private readonly rules: Rule[] = [];
  private readonly digests = new Set<string>();
  private cached: Grants | null = null;

  constructor(private env: MatchEnv) {}

  addRules(texts: string[]): void {
    for (const text of texts) this.rules.push(parseRule(text, 'allow'));
    this.cached = null;
  }

  addCall(digest: string): void {
    this.digests.add(digest);
    this.cached = null;
  }

  /** Workspace roots changed: relative globs are re-anchored. */
  setEnv(env: MatchEnv): void {
    this.env = env;
    this.cached = null;
  }

  current(): Grants {
    this.cached ??= { rules: this.rules.length > 0 ? new RuleSet(this.rules, this.env) : null, digests: this.digests };
    return this.cached;
  }
}
