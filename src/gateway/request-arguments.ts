/**
 * The arguments of prompts/get and completion/complete, decided against the deny rules and audited
 * before they reach a server. A server's prompt may embed the file its argument names ("review this
 * file"): before round 12 a `Read` deny rule did not stop `prompts/get review_file {path: secret}`,
 * and nothing was recorded (docs/threat-model.md, "Requests other than tools/call").
 *
 * Only a deny counts: a prompt or a completion has no latch to ask through, and neither was ever
 * decided by mode, so a decision other than a rule's deny lets it through. A decision that could not
 * be made (an argument past the limits, a throw) refuses it.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ruleDenial } from '../latch/denial.js';
import { RpcError } from '../errors.js';
import { decide } from '../policy/decide.js';
import { argsDigest } from '../policy/digest.js';
import type { Decision } from '../policy/types.js';
import { inspectRequestArguments } from '../subjects/inspect.js';
import type { ToolClass } from '../subjects/kind.js';
import { errorDecision } from './call.js';
import type { CallContext, SessionPort } from './ports.js';

/**
 * Decides the string arguments `args` of a `method` request to `server` and records the decision
 * with `shown` (what the audit keeps of the request); throws InvalidRequest, naming the rule, when
 * it may not go on, and when its record cannot be written.
 */
export function checkRequestArguments(server: string, method: 'prompts/get' | 'completion/complete', args: Record<string, unknown>, shown: Record<string, unknown>, argumentClass: ToolClass, context: CallContext, session: SessionPort): void {
  let decision: Decision;
  try {
    decision = decide(inspectRequestArguments(server, method, args, argumentClass, context.inspectContext()), context.policy());
  } catch (error) {
    decision = errorDecision(error);
  }
  const refused = decision.by === 'error' || (decision.verdict === 'deny' && decision.by === 'rule');
  context.audit.record({
    session: session.id,
    user: session.user,
    server,
    tool: method,
    kind: 'all',
    decision: refused ? 'deny' : 'allow',
    by: refused ? decision.by : 'mode',
    rule: refused ? decision.rule : null,
    reason: refused ? decision.reason : 'no deny rule matches its arguments',
    paths: decision.paths,
    command: null,
    argsDigest: () => argsDigest(server, method, shown),
    args: shown,
    waitMs: 0,
  });
  if (refused) throw new RpcError(ErrorCode.InvalidRequest, ruleDenial(decision));
}
