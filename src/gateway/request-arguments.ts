/**
 * The arguments of prompts/get and completion/complete, decided against the rules and audited
 * before they reach a server. A server's prompt may embed the file its argument names ("review this
 * file"): before round 12 a `Read` deny rule did not stop `prompts/get review_file {path: secret}`,
 * and nothing was recorded (docs/threat-model.md, "Requests other than tools/call").
 *
 *   a deny rule, or no decision (past the limits, a throw)   refused, -32600 naming the rule
 *   an ask rule, the client shows forms                      the person is asked (Allow once / Deny)
 *   an ask rule, it does not                                 refused, naming the rule (round 13)
 *   anything else                                            goes on
 *
 * Neither was ever decided by mode (a mode's ask lets it through): a prompt has no latch, no batch
 * and no retry, so the person is asked at once and an answer is never remembered. A prompt that does
 * what a tool does (`promptClass`: mcp-server-commands' `run_command` prompt runs its command; round
 * 14 review T3) is decided as that tool is, mode included: its deny and its ask, by a rule or by the
 * mode, refuse or ask (docs/rules.md "Prompts").
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { askPerson } from '../latch/ask.js';
import { noPromptDenial, ruleDenial } from '../latch/denial.js';
import type { LatchAnswer } from '../latch/latch.js';
import { RpcError } from '../errors.js';
import { decide } from '../policy/decide.js';
import { argsDigest } from '../policy/digest.js';
import type { Decision } from '../policy/types.js';
import { inspectCall, inspectRequestArguments } from '../subjects/inspect.js';
import type { ToolClass } from '../subjects/kind.js';
import { askContext, errorDecision } from './call.js';
import type { CallContext, Extra, SessionPort } from './ports.js';

/**
 * Decides the string arguments `args` of a `method` request to `server` and records the decision
 * with `shown` (what the audit keeps of the request); throws InvalidRequest, naming the rule, when
 * it may not go on, and when its record cannot be written. Resolves true when the person was asked
 * and allowed it (completionValuesShown).
 */
export async function checkRequestArguments(server: string, method: 'prompts/get' | 'completion/complete', args: Record<string, unknown>, shown: Record<string, unknown>, argumentClass: ToolClass, context: CallContext, session: SessionPort, extra: Extra, prompt: { name: string; toolClass: ToolClass } | null = null): Promise<boolean> {
  const started = Date.now();
  let decision: Decision;
  try {
    const candidates = inspectRequestArguments(server, method, args, argumentClass, context.inspectContext());
    // The prompt's own name meets mcp__server__name rules, as a tool of that name does.
    const facts = prompt ? inspectCall(server, prompt.name, args, prompt.toolClass, context.inspectContext()) : candidates;
    if (prompt) facts.subjects.push(...candidates.subjects);
    decision = decide(facts, context.policy());
  } catch (error) {
    decision = errorDecision(error);
  }
  const digest = () => argsDigest(server, method, shown);
  const counts = decision.by === 'rule' || prompt !== null;
  let answer: LatchAnswer | null = null;
  if (decision.by === 'error' || (decision.verdict === 'deny' && counts)) answer = { verdict: 'deny', by: decision.by, text: ruleDenial(decision) };
  else if (decision.verdict === 'ask' && counts) {
    const person = session.person(extra);
    // Security: no page and no "pending" here: a prompt has no retry that a later approval could let through.
    answer = person.canPrompt()
      ? await askPerson({ server, tool: method, args: shown, digest: digest(), decision, facts: null, user: session.user }, person, askContext(context, session))
      : { verdict: 'deny', by: 'fallback', text: noPromptDenial(decision, null) };
  }
  const refused = answer !== null && answer.verdict !== 'allow';
  context.audit.record({
    session: session.id,
    user: session.user,
    server,
    tool: method,
    kind: 'all',
    decision: refused ? 'deny' : 'allow',
    by: answer ? answer.by : prompt ? decision.by : 'mode',
    rule: answer || prompt ? decision.rule : null,
    reason: answer || prompt ? decision.reason : 'no deny or ask rule matches its arguments',
    paths: decision.paths,
    command: null,
    argsDigest: digest,
    args: shown,
    ...(answer?.note !== undefined ? { note: answer.note } : {}),
    waitMs: Date.now() - started,
  });
  if (refused) throw new RpcError(ErrorCode.InvalidRequest, answer?.text ?? ruleDenial(decision));
  return answer !== null && answer.by === 'user';
}

/**
 * A server's completion values (MCP `completion/complete`: at most 100 suggestions for the argument,
 * each a whole value the client offers in its menu and sends back when picked) with those the
 * gateway would refuse as that argument withheld: a value a deny rule meets (a file under a denied
 * folder: `/w/priv` completed to `/w/private/id_rsa`), or that cannot be checked (fail closed), and
 * one an ask rule meets unless the person was asked for this completion and allowed it (`asked`).
 * The same candidates and rules as the argument (checkRequestArguments), not the mode. `total` is
 * lowered by as many. The same object when none is withheld (round 33 review, P33-1;
 * docs/threat-model.md).
 */
export function completionValuesShown<T extends { completion: { values: string[]; total?: number } }>(result: T, server: string, argumentClass: ToolClass, context: CallContext, asked: boolean): T {
  const { values } = result.completion;
  const kept = values.filter((value) => completionValueShown(value, server, argumentClass, context, asked));
  if (kept.length === values.length) return result;
  const { total } = result.completion;
  return { ...result, completion: { ...result.completion, values: kept, ...(typeof total === 'number' ? { total: Math.max(kept.length, total - (values.length - kept.length)) } : {}) } };
}

function completionValueShown(value: string, server: string, argumentClass: ToolClass, context: CallContext, asked: boolean): boolean {
  try {
    const decision = decide(inspectRequestArguments(server, 'completion/complete', { value }, argumentClass, context.inspectContext()), context.policy());
    if (decision.by === 'error') return false;
    return decision.by !== 'rule' || decision.verdict === 'allow' || (decision.verdict === 'ask' && asked);
  } catch {
    return false;
  }
}
