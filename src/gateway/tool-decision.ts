import { decide, type CallFacts, type Grants, type PolicyState } from '../policy/decide.js';
import type { Decision } from '../policy/types.js';
import { checkDefinition, type DefinitionReport, type DescriptionPolicy } from '../pins/check.js';

/**
 * A call's decision, policy's and pin's (decide, then checkDefinition), kept for the next call of the
 * same tool when nothing in it came from the call's arguments (docs/performance.md, "Round 27: the
 * record's cost"). A call whose only subject is its tool, of its kind (no path, command or URL found
 * in its arguments, no built-in ask of them) and no command is decided by what is the same for every call of its tool: the rules and mode (`policy`,
 * a new object at each config or rules change), the session's grant rules (`grants`, a new object
 * at each grant), its kind, and its definition's report (a new object when its pin, scan or lock
 * file's state changes: pins/reports.ts). An exact-call grant is bound to the arguments' digest:
 * while the session holds one, nothing is kept. Deciding it again cost ~2.6k instructions a call.
 */
interface Kept {
  readonly policy: PolicyState;
  readonly grants: Grants['rules'];
  readonly descriptions: DescriptionPolicy;
  readonly server: string;
  readonly tool: string;
  readonly kind: CallFacts['kind'];
  readonly kindTrusted: boolean;
  readonly decision: Decision;
}

/** By the tool's report: one per tool listed (a report no longer made is let go with it). */
const kept = new WeakMap<DefinitionReport, Kept>();

/** checkDefinition(decide(facts, policy, grants), report, descriptions), from what was kept when it cannot depend on the arguments. */
export function toolDecision(facts: CallFacts, policy: PolicyState, grants: Grants, report: DefinitionReport, descriptions: DescriptionPolicy): Decision {
  if (!argumentFree(facts) || grants.digests.size > 0) return checkDefinition(decide(facts, policy, grants), report, descriptions);
  const last = kept.get(report);
  if (last !== undefined && last.policy === policy && last.grants === grants.rules && last.descriptions === descriptions && last.server === facts.server && last.tool === facts.tool && last.kind === facts.kind && last.kindTrusted === facts.kindTrusted) return last.decision;
  // Frozen: every call of the tool shares it, and no reader may change it for the next.
  const decision = Object.freeze(checkDefinition(decide(facts, policy, grants), report, descriptions));
  kept.set(report, { policy, grants: grants.rules, descriptions, server: facts.server, tool: facts.tool, kind: facts.kind, kindTrusted: facts.kindTrusted, decision });
  return decision;
}

/** Only the tool itself is decided: no subject the arguments gave (inspect.ts adds `{type: 'tool', kind}` when there is none). */
function argumentFree(facts: CallFacts): boolean {
  if (facts.commandInfo !== null) return false;
  if (facts.subjects.length === 0) return true;
  const only = facts.subjects[0]!;
  return facts.subjects.length === 1 && only.type === 'tool' && only.kind === facts.kind && only.refused === undefined;
}
