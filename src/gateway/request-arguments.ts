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
 * it may not go on, and when its record cannot be written.
 */
export async function checkRequestArguments(server: string, method: 'prompts/get' | 'completion/complete', args: Record<string, unknown>, shown: Record<string, unknown>, argumentClass: ToolClass, context: CallContext, session: SessionPort, extra: Extra, prompt: { name: string; toolClass: ToolClass } | null = null): Promise<void> {
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
}
