import { escape as escapeMinimatch, Minimatch } from 'minimatch';
import { decide, type CallFacts, type Grants, type PolicyState } from '../policy/decide.js';
import { RuleSet } from '../policy/match.js';
import { parseRule, quoteRuleWord, type Rule } from '../policy/rule.js';
import type { Decision, Segment } from '../policy/types.js';
import { DELETERS } from '../programs.js';
import { isInside } from '../subjects/paths.js';
import { writesOnlyNamedPaths } from '../subjects/shell/index.js';
import { isPlainText } from './escape.js';

/**
 * The rules "Always allow" would save for a call (docs/approval.md): one per subject that needed the human,
 * in the same syntax users write. Null when the call cannot be remembered safely: something could
 * not be analysed, an ask rule or a problem (not a missing rule) made it ask, or the candidate rules
 * would not actually allow the call when re-decided.
 *
 *   `npm run test -- --run` in /p → Bash(npm run test -- --run) in /p   (the exact command, where it ran)
 *   `mkdir -p build/out` in /p   → Bash(mkdir *) in /p, Edit(/p/build/out)
 *   write_file /p/notes.txt      → Edit(/p/notes.txt)
 *   memory create_entities       → mcp__memory__create_entities
 *
 * Security: a remembered rule covers no more than the person saw (docs/approval.md#answers). A
 * command is remembered as itself, word for word, unless its program is one whose later words the
 * analyser decides again on every call: the file programs that write only the paths they name
 * (subjects/shell/files.ts writesOnlyNamedPaths: touch, mkdir, cp, mv, tee), less the deleters. Any
 * other prefix lets later words choose the code or the target (`ipython -c CODE`, `go run URL@latest`,
 * `git push --force`, `aws ssm send-command`, `npm run test -- --reporter=./x.mjs`; round 15 review A1).
 */
const MAX_RULES = 5;

export function rememberRules(facts: CallFacts, decision: Decision, policy: PolicyState): string[] | null {
  const texts: string[] = [];
  for (const subjectDecision of decision.subjects) {
    if (subjectDecision.verdict !== 'ask') continue;
    if (subjectDecision.by !== 'mode') return null;
    const { subject } = subjectDecision;
    if (subject.type === 'path') {
      if (subject.problem || subject.path === null) return null;
      const tool = subject.access === 'read' ? 'Read' : 'Edit';
      for (const form of new Set([subject.path, subject.realPath ?? subject.path])) texts.push(`${tool}(${escapeGlob(form)})`);
    } else if (subject.type === 'command') {
      if (!subject.info.rememberable || subject.info.unanalyzable.length > 0) return null;
      const rule = commandRule(subject.segment, policy.rules.env.roots);
      if (!rule) return null;
      texts.push(rule);
    } else {
      if (!/^[A-Za-z0-9_.-]+$/.test(facts.tool)) return null;
      texts.push(`mcp__${facts.server}__${facts.tool}`);
    }
  }
  const unique = [...new Set(texts)];
  if (unique.length === 0 || unique.length > MAX_RULES || !unique.every(isPlainText)) return null;

  let parsed: Rule[];
  try {
    parsed = unique.map((text) => parseRule(text, 'allow'));
  } catch {
    return null;
  }
  // Security: only offer rules that really allow this call when saved, and nothing more is needed.
  const rules = new RuleSet([...policy.rules.rules, ...parsed], policy.rules.env);
  const after = decide(facts, { mode: policy.mode, rules });
  return after.verdict === 'allow' ? unique : null;
}

/**
 * The exact command (`Bash(npm run test -- --run) in /p`), or `Bash(touch *) in /p` for a program
 * whose every later word is a path decided on each call; a deleter stays exact (one `rm -rf build`
 * approved is not every removal the mode lets through). Bound to the workspace root the command ran
 * in: what `npm run test`, `make` or `./build.sh` do is that project's files, and the person approved
 * this project's (round 15 review A4: an "Always allow" from project A ran a cloned repository's own
 * `npm run test`). Null when it ran outside every root, or where is not known.
 */
function commandRule(segment: Segment, roots: readonly string[]): string | null {
  if (!segment.isStatic || segment.program === null || segment.name === null || segment.program !== segment.name) return null;
  const root = segment.cwd === null ? undefined : roots.filter((dir) => isInside(dir, segment.cwd!)).sort((a, b) => b.length - a.length)[0];
  if (root === undefined) return null;
  const where = ` in ${root}`;
  if (writesOnlyNamedPaths(segment.name) && !DELETERS.has(segment.name)) return `Bash(${quoteRuleWord(segment.program)} *)${where}`;
  const words = [segment.program, ...segment.args];
  if (words.some((word) => word.includes('*'))) return null;
  return `Bash(${words.map(quoteRuleWord).join(' ')})${where}`;
}

/**
 * The rules of `texts` that cover more than one exact subject: a command prefix (`Bash(touch *)`), a
 * tool (`mcp__s__t`, whatever its arguments), any glob. Exact are a command word for word and one
 * absolute path (remember.ts makes no others); anything that does not parse counts as broader.
 */
export function broaderRules(texts: readonly string[]): string[] {
  return texts.filter((text) => {
    let rule: Rule;
    try {
      rule = parseRule(text, 'allow');
    } catch {
      return true;
    }
    if (rule.type === 'command') return rule.prefix || rule.words === null;
    if (rule.type === 'path') return rule.pattern === null || !rule.pattern.startsWith('/') || !isOnePath(rule.pattern);
    return true;
  });
}

/** The policy and grants less the allow rules `withheld` (the latch's re-check of a call the person did not see). */
export function withoutAllowRules(policy: PolicyState, grants: Grants, withheld: ReadonlySet<string>): { policy: PolicyState; grants: Grants } {
  const keep = (rule: Rule) => rule.list !== 'allow' || !withheld.has(rule.text);
  return {
    policy: { ...policy, rules: new RuleSet(policy.rules.rules.filter(keep), policy.rules.env) },
    grants: { ...grants, rules: grants.rules ? new RuleSet(grants.rules.rules.filter(keep), grants.rules.env) : null },
  };
}

/** A glob without wildcards or braces: it names one path. */
function isOnePath(glob: string): boolean {
  const compiled = new Minimatch(glob, { dot: true });
  return !compiled.hasMagic() && compiled.set.length === 1;
}

/** A literal path as a glob that matches only itself. */
function escapeGlob(path: string): string {
  return escapeMinimatch(path.replace(/\\/g, '/')).replace(/[{}]/g, '\\$&');
}
