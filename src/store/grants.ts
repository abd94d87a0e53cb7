import type { Grants } from '../policy/decide.js';
import { RuleSet, type MatchEnv } from '../policy/match.js';
import { parseRule, type Rule } from '../policy/rule.js';

/**
 * A session's "Allow for this session" grants as the call pipeline uses them: answers add to them
 * (in force once the returned promise, if any, resolves), and every decision reads `current()`,
 * synchronously, so an allowed call never waits for a store.
 */
export interface SessionGrantBook {
  addRules(texts: string[]): void | Promise<void>;
  addCall(digest: string): void | Promise<void>;
  /** Workspace roots changed: relative globs are re-anchored. */
  setEnv(env: MatchEnv): void;
  current(): Grants;
}

/**
 * "Allow for this session" answers, held in memory for one client session: the rules "Always
 * allow" would have saved, or the exact call (server, tool, argument digest) when the call cannot be
 * a rule. Gone when the session ends. A team session keeps them in the team store and this as its
 * copy (team/session-grants.ts).
 */
export class SessionGrants implements SessionGrantBook {
  private rules: Rule[] = [];
  private digests = new Set<string>();
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

  /** Replaces every grant (a team session's copy, read again from its store); throws, changing nothing, on a rule that does not parse. */
  replace(grants: Array<{ rules?: string[]; digest?: string }>): void {
    const rules = grants.flatMap((grant) => grant.rules ?? []).map((text) => parseRule(text, 'allow'));
    this.rules = rules;
    this.digests = new Set(grants.flatMap((grant) => (grant.digest ? [grant.digest] : [])));
    this.cached = null;
  }

  setEnv(env: MatchEnv): void {
    this.env = env;
    this.cached = null;
  }

  current(): Grants {
    this.cached ??= { rules: this.rules.length > 0 ? new RuleSet(this.rules, this.env) : null, digests: this.digests };
    return this.cached;
  }
}
