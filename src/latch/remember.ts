import { escape as escapeMinimatch, Minimatch } from 'minimatch';
import { decide, type CallFacts, type Grants, type PolicyState } from '../policy/decide.js';
import { RuleSet } from '../policy/match.js';
import { parseRule, quoteRuleWord, type Rule } from '../policy/rule.js';
import type { Decision, Segment } from '../policy/types.js';
import { DELETERS } from '../programs.js';
import { isInside } from '../subjects/paths.js';
import { writesOnlyNamedPaths } from '../subjects/shell/index.js';
import { isPlainObject } from '../values.js';
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
 *   everything toggle-simulated-logging {} → mcp__everything__toggle-simulated-logging (no arguments)
 *   memory create_entities {…}   → null: the session grant is the exact call
 *
 * Security: a remembered rule covers no more than the person saw (docs/approval.md#answers). A
 * command is remembered as itself, word for word, unless its program is one whose later words the
 * analyser decides again on every call: the file programs that write only the paths they name
 * (subjects/shell/files.ts writesOnlyNamedPaths: touch, mkdir, cp, mv, tee), less the deleters. Any
 * other prefix lets later words choose the code or the target (`ipython -c CODE`, `go run URL@latest`,
 * `git push --force`, `aws ssm send-command`, `npm run test -- --reporter=./x.mjs`; round 15 review A1).
 */
const MAX_RULES = 5;

/**
 * `wholeTool`: the tool's arguments cannot matter (argumentsCannotMatter), so its rule
 * (`mcp__server__tool`) is what the person saw. A call decided as the whole tool otherwise is not
 * remembered: its rule would allow every other argument (round 15 left: "Always allow" on one
 * `gzip-file-as-resource` of a data: URI allowed fetching any URL).
 */
export function rememberRules(facts: CallFacts, decision: Decision, policy: PolicyState, wholeTool = false): string[] | null {
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
      if (!wholeTool || !/^[A-Za-z0-9_.-]+$/.test(facts.tool)) return null;
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
 * The call sent no arguments and the tool's input schema declares none (no properties, nothing
 * that could add one): remembering the tool whole remembers no more than the call shown. Its
 * definition is pinned (docs/pins.md): one that starts declaring arguments asks again, under the
 * rule too. Not modelled: a server that reads arguments its definition does not declare.
 */
export function argumentsCannotMatter(inputSchema: unknown, args: Record<string, unknown>): boolean {
  if (Object.keys(args).length > 0 || !isPlainObject(inputSchema)) return false;
  for (const [key, value] of Object.entries(inputSchema)) {
    if (key === 'type' && value === 'object') continue;
    if ((key === 'properties' || key === 'definitions' || key === '$defs') && isPlainObject(value) && Object.keys(value).length === 0) continue;
    if (key === 'required' && Array.isArray(value) && value.length === 0) continue;
    if (key === 'additionalProperties' && value === false) continue;
    if (key === '$schema' || key === 'title' || key === 'description') continue;
    return false;
  }
  return true;
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
