/**
 * resources/read: the second way a client reaches a server's data, with no latch. A read cannot
 * carry a denial result, so anything but a clear allow is refused with a protocol error. Each
 * decision is audited as a tool call's is, the tool named `resources/read`. A `resources/subscribe`
 * is decided the same way (decideResource).
 */
import { ErrorCode, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { definitionRefusal } from '../latch/definition-prompt.js';
import { readNeedsRuleDenial, ruleDenial } from '../latch/denial.js';
import { startWaitMs } from '../config/schema.js';
import { errorMessage, RpcError } from '../errors.js';
import { decide } from '../policy/decide.js';
import type { Decision } from '../policy/types.js';
import { inspectResourceRead, lazyDigest, URI_SPELLING_RULE } from '../subjects/inspect.js';
import { escapeText } from '../latch/escape.js';
import { errorDecision } from './call.js';
import { withheldContents } from './embedded-resources.js';
import { contentsShown } from './listed-text.js';
import type { DefinitionReport } from '../pins/check.js';
import type { CallContext, Extra, SessionPort } from './ports.js';

export async function readResource(uri: string, extra: Extra, context: CallContext, session: SessionPort): Promise<ReadResourceResult> {
  const registry = context.registry;
  const waitMs = startWaitMs(context.config());
  // A read can come before any list: every server is waited for (bounded) before one is chosen, or the read refused.
  const supervisor = await registry.whenAllListed(() => registry.resolveResource(uri), waitMs, uri);
  if (!supervisor) throw new RpcError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
  await supervisor.whenUp(waitMs);
  const template = decideResource('resources/read', supervisor.name, uri, context, session);
  if (template?.pin.state === 'new') await context.pinDefinition(template).catch((error: unknown) => context.logger.error({ err: errorMessage(error), template: template.exposed }, 'could not pin the resource template definition'));
  const permit = context.permits.issue(supervisor.name, 'resources/read', uri);
  // Given up before the server answered (cancelled, timed out), its origin lingers as a call's does (direct-calls.ts clientRequest; round 28).
  const origin = session.origin(extra);
  const result = await context.running.during(supervisor.name, origin, () => supervisor.readResource(permit, uri, { signal: extra.signal, timeout: context.config().timeouts.callSeconds * 1000 }, context.running.lingering(supervisor.name, origin)));
  // Each content's mimeType, shown beside it, escaped as a listing's (listed-text.ts contentsShown; round 26 review P4);
  // a content under another URI than the one read decided as an embedded resource is (embedded-resources.ts; round 33 review P33-3).
  const contents = contentsShown(withheldContents(result.contents, uri, supervisor.name, context));
  return contents === result.contents ? result : { ...result, contents };
}

/**
 * Decides a read of `uri` on `server`, or a subscribe to it (`resources/subscribe`, and the resources
 * a 2026-07-28 `subscriptions/listen` names): a subscribe asks the server to watch what a read
 * would read, and its updates tell the client when that changes, so it is allowed only where a read
 * is (round 32 review P32-1: a subscribe to a URI a deny rule refuses reached the server, unrecorded,
 * and the client was told each change of the file). Anything but a clear allow throws, the request
 * refused; the decision is audited either way. Returns the template the URI is read through, if any.
 */
export function decideResource(method: 'resources/read' | 'resources/subscribe', server: string, uri: string, context: CallContext, session: SessionPort): DefinitionReport | null {
  // The read's arguments and digest, made once for the decision (an exact-call grant) and the record.
  const args = { uri };
  const digest = lazyDigest(server, method, args);
  let decision: Decision;
  try {
    decision = decide(inspectResourceRead(server, uri, context.inspectContext(), digest), context.policy(), session.grants.current());
  } catch (error) {
    decision = errorDecision(error);
  }
  // A read through a resource template is refused, like a prompt, when the template changed since it was pinned or was flagged.
  const template = decision.verdict === 'allow' ? context.templateReport(uri) : null;
  const refusal = template ? definitionRefusal(template, context.config().policy) : null;
  if (refusal) decision = { ...decision, verdict: 'deny', by: 'pin', rule: null, reason: refusal };
  // Every decision is audited (docs/design.md#records), an allowed read as an allowed call: its
  // record reaches the OS before the read leaves, and a read whose record cannot be written is
  // refused (record() throws), not forwarded.
  context.audit.record({
    session: session.id,
    user: session.user,
    server,
    tool: method,
    kind: 'read',
    decision: decision.verdict === 'allow' ? 'allow' : 'deny',
    by: decision.by,
    rule: decision.rule,
    reason: decision.reason,
    paths: decision.paths,
    command: null,
    argsDigest: digest,
    args,
    waitMs: 0,
  });
  if (decision.verdict !== 'allow') {
    if (refusal) throw new RpcError(ErrorCode.InvalidRequest, refusal);
    // A URI not written as the server's parser reads it is the request's fault, not a rule's (round 26 review P5).
    if (decision.rule === URI_SPELLING_RULE) throw new RpcError(ErrorCode.InvalidParams, `mcp-latch refuses this ${method === 'resources/read' ? 'read' : 'subscribe'}: ${escapeText(decision.reason)}. Write the URI as a URL parser reads it.`);
    throw new RpcError(ErrorCode.InvalidRequest, decision.verdict === 'deny' ? ruleDenial(decision) : readNeedsRuleDenial(uri, decision.reason));
  }
  return template;
}
