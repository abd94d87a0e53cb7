/**
 * One tools/call, from the client to a server and back (docs/design.md):
 *
 *   decideCall      inspect (subjects/) → decide (policy/) → an approval given on the page for it
 *   handleToolCall  latch (latch/; asking the person: latch/ask.ts) → forward with a permit | deny → audit
 *
 * A 2026-07-28 client's call that needs the person is paused instead (input-required.ts): answered
 * `input_required`, resumed by the client's retry with the answer.
 *
 * call-order.ts decides every call of one read before any of them passes the latch (they are one
 * batch), and holds calls while the gateway or their server is starting. A call reaches a server
 * only through `Supervisor.callTool`, which spends a permit; permits are issued only in forward(),
 * after the latch released the call as allowed.
 */
import { ErrorCode, McpError, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { ConnectionLost, type CallSettle, type DirectCallOptions } from '../downstream/direct-calls.js';
import { AnswerDropped } from '../downstream/answer-entries.js';
import { InvalidAnswer, schemaProblem } from '../downstream/invalid-answer.js';
import { gatewayAnswer } from '../downstream/remote-bounds.js';
import { asksUrls, serverError, URL_ERROR_REFUSAL } from '../downstream/server-error.js';
import type { ToolRoute } from '../downstream/registry.js';
import type { Supervisor } from '../downstream/supervisor.js';
import { GATEWAY_STOPPING, type CancelSource } from '../cancellation.js';
import type { Permit } from '../downstream/permit.js';
import { asRpcError, errorMessage, keptBack, LatchError, NotSent, RpcError } from '../errors.js';
import { askPerson, commandRunsIn, type AskContext, type Person } from '../latch/ask.js';
import { cancelledDenial, DENIED_PREFIX, denialResult, editedDenial, ruleDenial, unavailableResult } from '../latch/denial.js';
import { editableFields, editNotice, type CallEdit } from '../latch/edit.js';
import { escapeText } from '../latch/escape.js';
import type { LatchOutcome } from '../latch/latch.js';
import { checkDefinition, definitionMoved, type DefinitionReport } from '../pins/check.js';
import { pathsPicture } from '../latch/picture.js';
import { definitionChange, pathsMoved } from './let-through.js';
import { decide, type CallFacts } from '../policy/decide.js';
import { toolDecision } from './tool-decision.js';
import type { Decision } from '../policy/types.js';
import type { Digest } from '../policy/digest.js';
import type { AuditRecord } from '../store/audit.js';
import type { ProcessUse } from '../subjects/profiles.js';
import { inspectCall, lazyDigest } from '../subjects/inspect.js';
import { withheldEmbedded } from './embedded-resources.js';
import { checkToolResult, droppedResult } from './call-result.js';
import type { CallContext, SessionPort } from './ports.js';
import type { CallOrigin, RunningCall, RunningCalls } from './running-calls.js';
import { ProgressRelay } from './progress.js';
import { ANSWERING, type IncomingCall } from './upstream-calls.js';
import { ArgsJson } from '../values.js';
import { canShowForm, envelopeOf, withoutEnvelope, type Envelope } from './era-2026.js';
import { heldElsewhere, nextHeldRound, pauseCall, relayServerInput, resumeCall, resumeHeld } from './input-required.js';
import { HeldCall, unanswered } from './held-calls.js';
import { answerServerQuestions, capabilitiesForServer, isInputRequired, resolvedQuestionsProblem, serverInput, serverInputError, type ServerInput } from './server-input.js';
import { envelopeMeta } from '../downstream/era-2026.js';
import type { ServerAnswers } from '../downstream/supervisor.js';
import { MAX_REQUEST_STATE_CHARS } from '../latch/request-state.js';
import { argumentsCannotMatter, withoutAllowRules } from '../latch/remember.js';
import { VERSION } from '../version.js';

/** One call with its route and its decision. */
export interface DecidedCall {
  readonly call: IncomingCall;
  /** Made current again when the call is re-checked (currentRoute): a reload may replace its server while it waits. */
  route: ToolRoute;
  readonly args: Record<string, unknown>;
  /** The text of `args`, made once for the digest, the record and the call sent (values.ts). */
  readonly argsJson: ArgsJson;
  readonly digest: () => Digest;
  /** The digest of the arguments as the client sent them (an edited call keeps its original's): what a 2026-07-28 retry is bound to. */
  readonly sentDigest: () => Digest;
  /** The answers to its server's own questions a 2026-07-28 retry brought (server-input.ts); null when none. */
  serverAnswers: ServerAnswers | null;
  /** The round of its server's questions those answers are for (its number and the questions so far travel in the state: MAX_SERVER_ROUNDS); null when none. */
  serverRound: ServerInput | null;
  readonly started: number;
  /** What inspection found; null when the call could not be analysed. */
  facts: CallFacts | null;
  decision: Decision;
  /** An approval given on the page for this exact call was spent on it (it stays spent on a re-check). */
  approvedOnPage: boolean;
  /** The person allowed it in the answer a 2026-07-28 retry brought (it stays allowed on a re-check). */
  approvedInState: boolean;
  /** The tool's definition against its pin, and the description scan's findings. */
  definition: DefinitionReport | null;
  /** An edit approved before its server's question, resumed by a 2026-07-28 retry: where the edited call's paths led then (let-through.ts); null otherwise. */
  editShown: string[] | null;
  /** An approval carried across its server's question by a 2026-07-28 retry: when it ends (epoch ms, input-required.ts); null otherwise. */
  approvedUntil: number | null;
}

/** Where a call stands in its read: what lets it skip the latch's batch. */
export interface BatchPosition {
  /** Every call of its read is decided and allowed: none of them needs to wait for another. */
  allAllowed: boolean;
  /** It was the only call of its read. */
  alone: boolean;
}

/** A call's decision until it is made (decideCall): what it would be if it were ever read, ask (fail closed). */
const UNDECIDED: Decision = Object.freeze({ verdict: 'ask', kind: 'all', rule: null, by: 'error', reason: 'mcp-latch has not decided this call yet', subjects: [], paths: [], commandInfo: null });

/** Inspects and decides a call routed to its server. */
export function decideCall(call: IncomingCall, route: ToolRoute, args: Record<string, unknown>, context: CallContext, session: SessionPort): DecidedCall {
  // The client's own text of these very arguments when the scanner read it (call-scan.ts).
  const argsJson = call.argsJson?.args === args ? call.argsJson : new ArgsJson(args);
  const digest = lazyDigest(route.supervisor.name, route.tool.name, args, argsJson);
  // Made whole, with its decision set after: Object.assign copied the decision from one more object
  // through the generic property copy, on every call (docs/performance.md, "Round 23: 16 in flight").
  // Nothing reads `decision` before it is set: redecide takes the call without it.
  const decided: DecidedCall = { call, route, args, argsJson, digest, sentDigest: digest, serverAnswers: null, serverRound: null, started: Date.now(), facts: null, approvedOnPage: false, approvedInState: false, definition: null, editShown: null, approvedUntil: null, decision: UNDECIDED };
  decided.decision = redecide(decided, context, session);
  return decided;
}

/** Inspects and decides against the current rules and grants: first, and again after an answer or a wait. */
export function redecide(decided: Omit<DecidedCall, 'decision'>, context: CallContext, session: SessionPort, withheld?: ReadonlySet<string>): Decision {
  const decision = inspectAndDecide(decided, context, session, withheld);
  return decided.facts ? withPageApproval(decision, decided, session) : decision;
}

/** The policy's decision alone, from scratch: no approval given for the call is taken into account; nor the allow rules `withheld` (latch.ts withheldFor). */
function inspectAndDecide(decided: Omit<DecidedCall, 'decision'>, context: CallContext, session: SessionPort, withheld?: ReadonlySet<string>): Decision {
  const { supervisor, tool } = decided.route;
  try {
    const toolClass = context.toolClass(decided.route);
    // The server's processes as this session knows them, for a call that uses one (processes.ts).
    const inspect = toolClass.process ? { ...context.inspectContext(), processes: context.processes.view(supervisor, session) } : context.inspectContext();
    // First: a call that cannot be analysed still shows, and is held to, the tool's definition (latch.ts shownDefinition).
    decided.definition = context.definitionReport(decided.route);
    decided.facts = inspectCall(supervisor.name, tool.name, decided.args, toolClass, inspect, decided.digest);
    if (withheld) {
      const state = withoutAllowRules(context.policy(), session.grants.current(), withheld);
      return checkDefinition(decide(decided.facts, state.policy, state.grants), decided.definition, context.config().policy.toolDescriptions);
    }
    // A call whose arguments cannot change its decision gets its tool's last one (tool-decision.ts).
    return toolDecision(decided.facts, context.policy(), session.grants.current(), decided.definition, context.config().policy.toolDescriptions);
  } catch (error) {
    // Fail closed: a call that could not be analysed needs the person.
    context.logger.error({ err: errorMessage(error), tool: decided.call.request.params.name }, 'could not analyse a call');
    decided.facts = null;
    return errorDecision(error);
  }
}

/**
 * The pipeline after deciding: latch, then forward (with a permit) or deny; every outcome is audited.
 * A call forwarded at once to a server of the handshake era on this machine is answered through
 * the call itself (ANSWERING), without a promise.
 */
export function handleToolCall(decided: DecidedCall, context: CallContext, session: SessionPort, batch: BatchPosition & { allAllowed: false }): Promise<CallToolResult>;
export function handleToolCall(decided: DecidedCall, context: CallContext, session: SessionPort, batch: BatchPosition): Promise<CallToolResult> | typeof ANSWERING;
export function handleToolCall(decided: DecidedCall, context: CallContext, session: SessionPort, batch: BatchPosition): Promise<CallToolResult> | typeof ANSWERING {
  // The common case, a handshake-era call the latch passes at once, is forwarded without an async
  // step in between: each async function returning another's promise cost the call a promise and
  // two turns of the microtask queue (docs/performance.md#the-hot-path).
  const envelope = envelopeOf(decided.call.request.params);
  const outcome = batch.allAllowed && !envelope ? session.latch.passNow(decided.decision, true, decided.call.cancel.cancelled) : null;
  if (outcome === null) return latchAndForward(decided, envelope, context, session, batch);
  try {
    const { supervisor } = decided.route;
    // A new tool's pin waits for the answer's promise; a 2026-07-28 server's answer may be questions; a remote server's call may be sent again.
    // A call on one of the server's processes is noted with its answer (processes.ts), in forward().
    if (!supervisor.modern && !supervisor.remote && decided.definition?.pin.state !== 'new' && !context.toolClass(decided.route).process) {
      forwardNow(decided, outcome, context, session);
      return ANSWERING;
    }
    return forward(decided, envelope, outcome, new ProgressRelay(decided.call.extra), context, session, auditor(decided, context, session));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** `envelope`: the call's 2026-07-28 envelope; without one, the latch's synchronous pass was tried already and refused. */
async function latchAndForward(decided: DecidedCall, envelope: Envelope | null, context: CallContext, session: SessionPort, batch: BatchPosition): Promise<CallToolResult> {
  const resumed = envelope ? await resumeCall(decided, session, askContext(context, session), context.toolClass(decided.route), (lists) => rootsGiven(decided, lists, context, session)) : null;
  if (resumed?.heldElsewhere) return heldElsewhere(decided);
  if (resumed?.held) {
    if (decided.decision.verdict !== 'deny') return resumeHeld(decided, resumed.held, context, session, (lists) => rootsGiven(decided, lists, context, session), (final) => auditor(decided, context, session)(final, 'deny', 'gateway'));
    // A deny rule added while the question waited: the server's question is cancelled, its result never reaches the client.
    const taken = session.held.take(resumed.held);
    if (taken) unanswered(taken.question, 'the call is denied now');
    auditor(decided, context, session)(decided.decision, 'deny', decided.decision.by);
    return denialResult(ruleDenial(decided.decision));
  }
  if (resumed?.server) {
    decided.serverAnswers = resumed.server.answers;
    decided.serverRound = resumed.server.input;
  }
  if (resumed?.editShown) decided.editShown = resumed.editShown;
  if (resumed?.approvedUntil !== undefined) decided.approvedUntil = resumed.approvedUntil;
  if (resumed?.answer?.verdict === 'allow') {
    decided.approvedInState = true;
    decided.decision = redecide(decided, context, session);
  }
  if (resumed?.answer?.verdict === 'deny') {
    auditor(decided, context, session)(decided.decision, 'deny', resumed.answer.by, resumed.answer.note);
    return denialResult(resumed.answer.text ?? ruleDenial(decided.decision));
  }
  // A 2026-07-28 client is never sent a request: its call pauses as `input_required` instead of waiting;
  // for a user with an approver credential it waits for that credential's answer (docs/team.md#approvers).
  if (envelope && decided.decision.verdict === 'ask' && canShowForm(envelope.capabilities) && session.answersInClient()) {
    return pauseCall(decided, context, session, resumed?.problem ?? null, resumed?.server?.input ?? null, (final) => auditor(decided, context, session)(final, 'deny', 'gateway'));
  }

  const progress = new ProgressRelay(decided.call.extra);
  // A resumed call's decision may have changed since handleToolCall; any other was refused the pass there.
  let outcome = (batch.allAllowed && envelope ? session.latch.passNow(decided.decision, true, decided.call.cancel.cancelled) : null) ?? (await waitInLatch(decided, progress, context, session, batch));
  if (outcome.type === 'forward' && !outcome.answer && resumed?.answer) outcome = { ...outcome, answer: resumed.answer };
  const audit = auditor(decided, context, session);
  if (outcome.type === 'cancelled') {
    audit(decided.decision, 'cancelled', decided.call.cancel.reason === GATEWAY_STOPPING ? 'gateway' : 'client');
    return denialResult(cancelledDenial());
  }
  if (outcome.type === 'deny') {
    audit(outcome.decision, 'deny', outcome.answer?.by ?? outcome.decision.by, outcome.answer?.note);
    return denialResult(outcome.text);
  }
  const edit = outcome.answer?.edit;
  if (edit) return forwardEdited(decided, envelope, edit, outcome, progress, context, session);
  return forward(decided, envelope, outcome, progress, context, session, audit);
}

/**
 * A 2026-07-28 retry answers its server's `roots/list`: the roots are noted as the server's (every
 * list the server was given is decided, core.ts noteServerRoots) and the call is decided again with
 * them, so its relative paths are read where the server will read them (round 20; before, the
 * gateway did not relay `roots/list` to a 2026-07-28 client at all).
 */
function rootsGiven(decided: DecidedCall, lists: string[][], context: CallContext, session: SessionPort): void {
  for (const uris of lists) context.noteServerRoots(decided.route.supervisor.name, uris);
  decided.decision = redecide(decided, context, session);
}

/**
 * The person changed the call before approving it: the edited call is inspected and decided again
 * from scratch. A deny denies, and so does a call that could not be analysed (fail closed); an ask
 * is what the person just approved, for exactly these arguments. Only the edited call runs, once.
 */
async function forwardEdited(original: DecidedCall, envelope: Envelope | null, edit: CallEdit, outcome: LatchOutcome & { type: 'forward' }, progress: ProgressRelay, context: CallContext, session: SessionPort): Promise<CallToolResult> {
  const edited = decideEdited(original, edit.args, context, session);
  const { decision } = edited;
  const audit = auditor(edited, context, session, original.digest());
  const note = outcome.answer?.note;
  if (editRefusal(edited) !== null) {
    audit(decision, 'deny', decision.verdict === 'deny' ? decision.by : 'error', note);
    return denialResult(editedDenial(edit, decision));
  }
  // Resumed after its server's question: the edit was approved for its paths as they led then (let-through.ts; round 19 review of the 2026-07-28 path, F2).
  const reason = original.editShown ? pathsMoved(original.editShown, decision, "while its server's question was open") : null;
  if (reason) {
    audit({ ...decision, verdict: 'deny', by: 'error', reason }, 'deny', 'error', note);
    return denialResult(`${DENIED_PREFIX} ${escapeText(reason)}. Call the tool again to have it decided as it is now.`);
  }
  const approved = decision.verdict === 'ask' ? { ...decision, verdict: 'allow' as const, by: 'user' as const, reason: 'changed and approved by the user' } : decision;
  const result = await forward({ ...edited, decision: approved }, envelope, { ...outcome, decision: approved }, progress, context, session, audit);
  if (isInputRequired(result)) return result;
  return { ...result, content: [{ type: 'text', text: editNotice(edit) }, ...(result.content ?? [])] };
}

/** The call with the person's changed arguments, inspected and decided from scratch (no approval of the original carries over). */
function decideEdited(original: DecidedCall, args: Record<string, unknown>, context: CallContext, session: SessionPort): DecidedCall {
  const { supervisor, tool } = original.route;
  const argsJson = new ArgsJson(args);
  const edited: Omit<DecidedCall, 'decision'> = { ...original, args, argsJson, digest: lazyDigest(supervisor.name, tool.name, args, argsJson), facts: null, approvedOnPage: false, approvedInState: false, definition: null };
  return Object.assign(edited, { decision: inspectAndDecide(edited, context, session) });
}

/** Why an edited call may not run (escaped): the rules deny it, or it could not be analysed (fail closed); null when it may. */
function editRefusal(edited: DecidedCall): string | null {
  const { decision } = edited;
  if (decision.verdict === 'deny') return decision.by === 'rule' && decision.rule ? `the rule ${escapeText(decision.rule)} denies it (${escapeText(decision.reason)})` : escapeText(decision.reason);
  if (edited.facts === null) return `it could not be analysed (${escapeText(decision.reason)})`;
  return null;
}

/** The latch's slow path: the call joins its session's batch, where the person may be asked. */
async function waitInLatch(decided: DecidedCall, progress: ProgressRelay, context: CallContext, session: SessionPort, batch: BatchPosition): Promise<LatchOutcome> {
  const { call, route, decision } = decided;
  // Security: one member's waiting calls are bounded, or their arguments fill the shared gateway's heap (docs/team.md, round 16 review T2).
  const waiting = decision.verdict === 'deny' ? undefined : session.waiting;
  const bytes = waiting ? Buffer.byteLength(decided.argsJson.textOf(decided.args) ?? '') : 0;
  const refusal = waiting?.take(bytes) ?? null;
  if (refusal !== null) {
    const text = `${DENIED_PREFIX} this call may not wait for approval: ${escapeText(refusal)}.`;
    return { type: 'deny', decision: { ...decision, verdict: 'deny', reason: refusal }, text, answer: { verdict: 'deny', by: 'gateway', text } };
  }
  if (decision.verdict !== 'allow') progress.startHeartbeat(context.config().approval.heartbeatSeconds * 1000, `Waiting for approval: ${route.supervisor.name}/${route.tool.name}`);
  try {
    return await session.latch.submit(
      {
        cancel: call.cancel,
        decision,
        recheck: (withheld) => redecide(currentRoute(decided, context), context, session, withheld),
        key: decided.digest(),
        ask: (current, clock) =>
          askPerson(
            { server: route.supervisor.name, tool: route.tool.name, args: decided.args, digest: decided.digest(), decision: current, facts: decided.facts, definition: decided.definition, runsIn: commandRunsIn(context.toolClass(route), decided.args, current), editable: editableFields(context.toolClass(route), current.kind, decided.args), checkEdit: (args) => editRefusal(decideEdited(decided, args, context, session)), user: session.user, wholeTool: argumentsCannotMatter(route.tool.inputSchema, decided.args), sessionless: session.sessionless === true },
            session.person(call.extra),
            askContext(context, session),
            clock,
          ),
        shownDefinition: () => {
          const shown = decided.definition;
          return () => {
            const now = context.definitionReport(currentRoute(decided, context).route);
            return shown ? definitionMoved(shown, now) : `the tool's definition could not be worked out when the person was asked, so their answer cannot be said to be for ${now.exposed} as it is now`;
          };
        },
        denial: ruleDenial,
      },
      batch.alone,
    );
  } finally {
    progress.stopHeartbeat();
    waiting?.give(bytes);
  }
}

/**
 * `decided` routed to the server now configured under its server's name, when a reload replaced that
 * server while the call waited: the call approved then went to the replaced, stopped server and
 * failed "server is stopped" while the new one ran (round 13 review R10). The re-check that follows
 * decides it against the new config and listing; a server that is still starting, or no longer
 * lists the tool, answers the call with that (docs/approval.md#the-latch).
 */
function currentRoute(decided: DecidedCall, context: CallContext): DecidedCall {
  const { supervisor, tool, exposed } = decided.route;
  const listed = context.registry.resolveTool(exposed);
  // Its server listed the tool anew while the call waited (list_changed): it is decided, and held to
  // what the prompt showed, as listed now; the route kept the definition of its arrival (round 18, hostile servers #6).
  if (listed !== undefined && listed.supervisor === supervisor) {
    decided.route = listed;
    return decided;
  }
  if (supervisor.state !== 'stopped') return decided;
  const now = context.registry.get(supervisor.name);
  if (!now || now === supervisor) return decided;
  decided.route = listed?.supervisor === now ? listed : { exposed, supervisor: now, tool };
  return decided;
}

/** What asking the person reads and changes, for a call of `session`. */
export function askContext(context: CallContext, session: SessionPort): AskContext {
  return { approval: context.config().approval, policy: context.policy(), grants: session.grants, retryApprovals: session.retryApprovals, rememberAlways: (rules) => context.rememberAlways(rules), acceptDefinition: (report) => context.acceptDefinition(report), pinDefinition: (report) => context.pinDefinition(report), logger: context.logger };
}

type Audit = (final: Decision, verdict: AuditRecord['decision'], by: string, note?: string) => void;

/** Records the call's outcome in the audit log, with how long it waited in the latch; `editedFrom` is the digest of the call as the model sent it, when the person changed it. */
function auditor(decided: DecidedCall, context: CallContext, session: SessionPort, editedFrom?: Digest): Audit {
  const waitMs = Date.now() - decided.started;
  return (final, verdict, by, note) => recordCall(decided, context, session, waitMs, final, verdict, by, note, editedFrom);
}

/**
 * What auditor()'s function records, without the closure (the call forwarded at once records once,
 * right away). `at`: the time waitMs was measured at, when it is the record's time too.
 */
function recordCall(decided: DecidedCall, context: CallContext, session: SessionPort, waitMs: number, final: Decision, verdict: AuditRecord['decision'], by: string, note?: string, editedFrom?: Digest, at?: number): void {
  // Absent fields are undefined rather than spread in: JSON.stringify leaves them out all the same.
  context.audit.record({
    session: session.id,
    user: session.user,
    server: decided.route.supervisor.name,
    tool: decided.route.tool.name,
    kind: final.kind,
    decision: verdict,
    by,
    rule: final.rule,
    reason: final.reason,
    paths: final.paths,
    command: final.commandInfo?.raw ?? null,
    argsDigest: decided.digest,
    args: decided.args,
    argsJson: decided.argsJson,
    waitMs,
    note: note || undefined,
    editedFrom: editedFrom || undefined,
  }, at);
}

/**
 * Forwards an allowed call with a permit; the result is checked, and the person's note appended. A
 * 2026-07-28 server's own questions (server-input.ts) go to a 2026-07-28 client as input_required,
 * or are asked of a handshake-era client here, before the call goes to the server again.
 */
function forward(decided: DecidedCall, envelope: Envelope | null, outcome: LatchOutcome & { type: 'forward' }, progress: ProgressRelay, context: CallContext, session: SessionPort, audit: Audit): Promise<CallToolResult> {
  const { supervisor, tool } = decided.route;
  const { request } = decided.call;
  // Only a 2026-07-28 server needs the client's era and its person here (off the path of every other call).
  const modern = supervisor.modern ? { envelope, person: session.person(decided.call.extra) } : null;
  const meta = forwardedMeta(request.params._meta, modern ? envelopeMeta(VERSION, capabilitiesForServer(modern.envelope, modern.person)) : undefined);
  // A 2025 server's elicitation or roots/list cannot be sent to a 2026-07-28 client: it is held and asked as input_required (input-required.ts).
  const held = !supervisor.modern && envelope && (canShowForm(envelope.capabilities) || envelope.capabilities.roots) ? new HeldCall(envelope.capabilities, { shown: () => pathsPicture(outcome.decision), approved: outcome.answer?.verdict === 'allow' || decided.approvedInState || decided.approvedOnPage }) : null;
  const origin = session.origin(decided.call.extra);
  if (held) {
    origin.hold = held.ask;
    origin.holdRoots = held.roots;
  }
  const options = callOptions(decided, progress, context, origin);
  const callServer = (answers: ServerAnswers | null) => supervisor.callTool(context.permits.issue(supervisor.name, tool.name, decided.args), tool.name, decided.args, meta, options, answers ?? undefined);
  const use = context.toolClass(decided.route).process;
  // A line decided for a shell that an earlier line of its batch, sent first, may have left to another reader (processes.ts).
  if (use === 'input' && !context.processes.sending(supervisor, decided.args, decided.facts?.kind === 'command')) {
    audit({ ...outcome.decision, verdict: 'deny', reason: 'the process was decided as a shell reading lines, and an earlier line sent to it is still running or changed what reads its input' }, 'deny', 'gateway');
    return Promise.resolve(denialResult(`${DENIED_PREFIX} an earlier line sent to process ${String(decided.args['pid'])} is still running or changed what reads its input, so this line, decided as a command for its shell, was not sent. Send it again to have it decided anew.`));
  }
  // Written to the file before the call leaves: a killed gateway loses no record of what ran.
  audit(outcome.decision, 'allow', outcome.answer?.by ?? outcome.decision.by, outcome.answer?.note);
  // While it runs, the server's own requests and log messages can be sent back to this call's session (relay.ts).
  const answered = modern ? finishModern(decided, outcome, modern, (answers) => context.running.during(supervisor.name, origin, () => callServer(answers)), context, session, audit) : finishPlain(decided, outcome, origin, callServer, context);
  // Noted before the client sees the answer, so the pid it names is known to the next call.
  const finished = use ? noteProcess(answered, use, decided, context, session) : answered;
  // A new tool is pinned as listed on its first allowed call, after that call's answer.
  if (decided.definition?.pin.state === 'new') context.pinAfter(decided.definition, finished);
  if (!held) return finished;
  held.settle(finished);
  return nextHeldRound(decided, held, context, session);
}

/** The call's answer, once the server's processes book has noted what it did to one (processes.ts). */
function noteProcess(answered: Promise<CallToolResult>, use: ProcessUse, decided: DecidedCall, context: CallContext, session: SessionPort): Promise<CallToolResult> {
  const note = (result: CallToolResult | null) => context.processes.answered(decided.route.supervisor, session, use, decided.args, decided.facts, result);
  return answered.then(
    (result) => {
      note(result);
      return result;
    },
    (error: unknown) => {
      note(null);
      throw error;
    },
  );
}

/**
 * forward() for a call the latch passed at once to a handshake-era server on this machine (not a
 * new tool's first call): the server's answer is checked and sent to the client without a promise,
 * a `then` or a microtask turn on the way (docs/performance.md, "Round 8"). The record is written
 * before the call leaves, as in forward().
 */
function forwardNow(decided: DecidedCall, outcome: LatchOutcome & { type: 'forward' }, context: CallContext, session: SessionPort): void {
  const { supervisor, tool } = decided.route;
  const { call, args } = decided;
  const meta = call.extra._meta;
  const origin = session.origin(call.extra);
  const options = callOptions(decided, meta?.progressToken !== undefined ? new ProgressRelay(call.extra) : null, context, origin);
  // Written to the file before the call leaves: a killed gateway loses no record of what ran. One
  // reading of the clock for its wait and its time (docs/performance.md, "Round 28: per-call work").
  const now = Date.now();
  recordCall(decided, context, session, now - decided.started, outcome.decision, 'allow', outcome.answer?.by ?? outcome.decision.by, outcome.answer?.note, undefined, now);
  const answer = new PlainAnswer(call, decided.route, outcome, context.running.add(supervisor.name, origin), context);
  let permit: Permit;
  try {
    permit = context.permits.issue(supervisor.name, tool.name, args);
  } catch (error) {
    answer.reject(error);
    return;
  }
  supervisor.callToolNow(permit, tool.name, args, forwardedMeta(meta, undefined), options, answer, decided.argsJson);
}

/**
 * The server's answer to a call of the handshake era, checked, with the call's origin removed, and
 * passed on to `call`: the upstream call itself (forwardNow) or a promise (finishPlain). Never throws.
 */
class PlainAnswer implements CallSettle {
  constructor(
    private readonly call: Pick<IncomingCall, 'answer' | 'fail' | 'answerText'>,
    private readonly route: ToolRoute,
    private readonly outcome: LatchOutcome & { type: 'forward' },
    private readonly running: RunningCall,
    private readonly context: CallContext,
  ) {}

  resolve(answered: unknown): void {
    this.running.end();
    let result: CallToolResult;
    try {
      result = checkedResult(answered, this.route, this.outcome, this.context);
    } catch (error) {
      this.failed(error);
      return;
    }
    this.call.answer(result);
  }

  /**
   * A result answer-scan.ts found to pass checkedResult unchanged and to be written as the full path
   * would write it: passed on as it is, when nothing is appended to it (no person answered, so no
   * note or notice) and the call can take text (docs/performance.md, "Round 10: the answer's own bytes").
   */
  resolveText(resultText: string): void {
    if (this.outcome.answer || !this.call.answerText) {
      this.resolve(JSON.parse(resultText));
      return;
    }
    this.running.end();
    this.call.answerText(resultText);
  }

  reject(error: unknown): void {
    this.running.end();
    this.failed(error);
  }

  private failed(error: unknown): void {
    let result: CallToolResult;
    try {
      result = forwardError(error, this.route.supervisor);
    } catch (thrown) {
      this.call.fail(thrown);
      return;
    }
    this.call.answer(result);
  }
}

/**
 * How a forwarded call waits for its server: cancelled with the client's call, its progress
 * relayed, timed out; given up, its origin stays on the server's running calls until the server is
 * done with it (direct-calls.ts `linger`), so what the server asks meanwhile goes to no other
 * session; without the call's hold (input-required.ts), which ended with it.
 */
function callOptions(decided: DecidedCall, progress: ProgressRelay | null, context: CallContext, origin: CallOrigin): DirectCallOptions {
  const { supervisor } = decided.route;
  const timeout = ('timeout' in supervisor.config && supervisor.config.timeout) || context.config().timeouts.callSeconds * 1000;
  const relayed = progress?.hasToken ? progress : null;
  return new CallWait(decided.call.cancel, relayed ? relayTo(relayed, supervisor.name) : undefined, timeout, context.running, supervisor.name, origin, relayed);
}

/** The progress relay of a call whose client asked for progress; a function of its own, so callOptions captures nothing and V8 makes it no context per call. */
function relayTo(progress: ProgressRelay, server: string): (update: Progress) => void {
  return (update) => progress.relay(server, update);
}

/**
 * A forwarded call's DirectCallOptions, its `linger` a method reading the call's own fields: until
 * round 28 a closure made for every call (docs/performance.md, "Round 28: the linger").
 */
class CallWait implements DirectCallOptions {
  constructor(
    readonly cancel: CancelSource | undefined,
    readonly onprogress: ((progress: Progress) => void) | undefined,
    readonly timeout: number,
    private readonly running: RunningCalls,
    private readonly server: string,
    private readonly origin: CallOrigin,
    private readonly progress: ProgressRelay | null,
  ) {}

  /** The call's wait ended: the relay sends the update it held back before the answer, or drops it (progress.ts). */
  progressEnd(answered: boolean): void {
    this.progress?.end(answered);
  }

  linger(): RunningCall {
    const { origin } = this;
    return this.running.add(this.server, { client: origin.client, requestId: origin.requestId, session: origin.session });
  }
}

/**
 * The answer of a call to a server of the handshake era that is not forwardNow's (a new tool's first
 * call, a remote server, a call that waited in the latch): PlainAnswer, settling a promise.
 */
function finishPlain(decided: DecidedCall, outcome: LatchOutcome & { type: 'forward' }, origin: CallOrigin, callServer: (answers: ServerAnswers | null) => Promise<unknown>, context: CallContext): Promise<CallToolResult> {
  const { supervisor } = decided.route;
  const running = context.running.add(supervisor.name, origin);
  return new Promise((resolve, reject) => {
    const answer = new PlainAnswer({ answer: resolve, fail: reject }, decided.route, outcome, running, context);
    let working: Promise<unknown>;
    try {
      working = callServer(decided.serverAnswers);
    } catch (error) {
      answer.reject(error);
      return;
    }
    working.then(
      (answered) => answer.resolve(answered),
      (error: unknown) => answer.reject(error),
    );
  });
}

/** The forwarded call's answer as the client gets it: checked, with the person's note; a 2026-07-28 server's questions relayed or asked first. */
async function finishModern(
  decided: DecidedCall,
  outcome: LatchOutcome & { type: 'forward' },
  modern: { envelope: Envelope | null; person: Person },
  send: (answers: ServerAnswers | null) => Promise<unknown>,
  context: CallContext,
  session: SessionPort,
  audit: Audit,
): Promise<CallToolResult> {
  const { supervisor } = decided.route;
  try {
    let answered = await send(decided.serverAnswers);
    if (isInputRequired(answered)) {
      if (modern.envelope) {
        const approved = outcome.answer?.verdict === 'allow' || decided.approvedInState || decided.approvedOnPage;
        const read = serverInput(supervisor.name, answered as Record<string, unknown>, modern.envelope.capabilities, decided.serverRound);
        // A URL-mode question's host resolved (url-host.ts; round 21): as written it was checked in serverInput.
        const input = typeof read === 'string' ? read : ((await resolvedQuestionsProblem(read.requests, context.config().approval.localUrlNetworks, supervisor.name)) ?? read);
        const relayed = typeof input === 'string' ? null : relayServerInput(decided, outcome.decision, input, approved, outcome.answer?.edit, context, session);
        if (relayed) return relayed;
        answered = serverInputError(supervisor.name, typeof input === 'string' ? input : `its requestState is too long (the gateway's state holds at most ${MAX_REQUEST_STATE_CHARS} characters)`);
      } else {
        // The call goes to its server again with the answers: only as it was let through (round 19; let-through.ts).
        let moved: { reason: string; by: string } | null = null;
        const again = (answers: ServerAnswers) => {
          moved = movedSince(decided, outcome.decision, context, session);
          return moved === null ? send(answers) : Promise.resolve(null);
        };
        // Roots the client gave are noted as the server's before `again` decides the call with them (rootsGiven's reading, for a handshake-era client).
        const noteRoots = (lists: string[][]) => {
          for (const uris of lists) context.noteServerRoots(supervisor.name, uris);
        };
        answered = await answerServerQuestions(supervisor.name, answered as Record<string, unknown>, modern.person, { timeoutMs: context.config().approval.timeoutSeconds * 1000, localUrlNetworks: context.config().approval.localUrlNetworks }, again, noteRoots);
        if (moved !== null) {
          const { reason, by } = moved;
          audit({ ...outcome.decision, verdict: 'deny', by, reason }, 'deny', by);
          return denialResult(`${DENIED_PREFIX} ${escapeText(reason)}. Its server asked a question while the call ran, and the call was not sent to it again with the answer. Call the tool again to have it decided as it is now.`);
        }
      }
    }
    return checkedResult(answered, decided.route, outcome, context);
  } catch (error) {
    return forwardError(error, supervisor);
  }
}

/**
 * Why the call may not go to its server again after the server's own question (a 2026-07-28 server
 * asks by answering, and is called again with the answers; each round is a request the server acts
 * on anew), or null: it is decided again, and a deny now, a call that cannot be analysed now, a path
 * that leads elsewhere than when it was let through (`released`), or another definition or pin of
 * the tool (round 19: 4abfa0e; round 19 review of the 2026-07-28 path, F2) stops it, failing
 * closed. As the latch's release re-check (let-through.ts; docs/pins.md, "A tool changed while a
 * prompt is open"). `by`: what the audit record names.
 */
function movedSince(decided: DecidedCall, released: Decision, context: CallContext, session: SessionPort): { reason: string; by: string } | null {
  const when = "while its server's question was open";
  try {
    const now: Omit<DecidedCall, 'decision'> = { ...decided, route: currentRoute(decided, context).route };
    const decision = inspectAndDecide(now, context, session);
    if (decision.verdict === 'deny') return { reason: `it is denied now (${decision.reason})`, by: decision.by };
    if (now.facts === null) return { reason: `it could not be analysed again (${decision.reason})`, by: 'error' };
    // The checks of a retry after the gateway's prompt (let-through.ts), with the report itself (not a state's DefinitionSeen): the reason names what changed.
    const moved = pathsMoved(pathsPicture(released), decision, when);
    if (moved) return { reason: moved, by: 'error' };
    const redefined = definitionChange(decided.definition, now.definition, when);
    return redefined === null ? null : { reason: redefined, by: 'pin' };
  } catch (error) {
    return { reason: `the call could not be checked again (${errorMessage(error)})`, by: 'error' };
  }
}

/** A server's result checked, with the person's note and the approval's notice appended; throws when it is not a tools/call result. */
function checkedResult(answered: unknown, route: ToolRoute, outcome: LatchOutcome & { type: 'forward' }, context: CallContext): CallToolResult {
  const result = checkToolResult(answered, route.supervisor.name, route.tool.name);
  // An embedded resource a deny rule refuses to read is withheld (embedded-resources.ts; round 32 review P32-5).
  if (result.content.length > 0) result.content = withheldEmbedded(result.content, route.supervisor.name, context) as typeof result.content;
  const note = outcome.answer?.note?.trim();
  if (note) result.content = [...(result.content ?? []), { type: 'text', text: `Note from the user who approved this call: "${escapeText(note)}"` }];
  const notice = outcome.answer?.notice;
  if (notice) result.content = [...(result.content ?? []), { type: 'text', text: escapeText(notice) }];
  return result;
}

/** An approval given on the page for this exact call after it was answered "pending": spent once. */
function withPageApproval(decision: Decision, decided: Omit<DecidedCall, 'decision'>, session: SessionPort): Decision {
  if (decision.verdict !== 'ask') return decision;
  if (decided.approvedInState) return { ...decision, verdict: 'allow', by: 'user', reason: 'approved by the user' };
  if (!decided.approvedOnPage && !session.retryApprovals.take(decided.digest(), decision, decided.definition)) return decision;
  decided.approvedOnPage = true;
  return { ...decision, verdict: 'allow', by: 'user', reason: 'approved by the user on the approval page' };
}

/** The client's `_meta` for the server, without its progress token (the server gets its own) and the client's envelope; a 2026-07-28 server gets the gateway's. */
function forwardedMeta(meta: Record<string, unknown> | undefined, envelope: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!meta && !envelope) return undefined;
  const { progressToken: _dropped, ...rest } = meta ? withoutEnvelope(meta) : {};
  const forwarded = { ...rest, ...envelope };
  return Object.keys(forwarded).length > 0 ? forwarded : undefined;
}

/** The decision for a call that could not be analysed: the person is asked. */
export function errorDecision(error: unknown): Decision {
  return {
    verdict: 'ask',
    kind: 'all',
    rule: null,
    by: 'error',
    reason: `mcp-latch could not analyse this call (${errorMessage(error)})`,
    subjects: [],
    paths: [],
    commandInfo: null,
  };
}

/**
 * A forwarded call its server did not answer within the limit: the text names the limit and the
 * key that sets it, and says the call went out (round 13 review R6: it said only "did not answer in
 * time").
 */
function timeoutResult(error: McpError, supervisor: Supervisor): CallToolResult {
  const ms = (error.data as { timeout?: unknown } | undefined)?.timeout;
  const own = 'timeout' in supervisor.config && supervisor.config.timeout;
  const limit = own ? `mcpServers.${supervisor.name}.timeout` : 'timeouts.callSeconds';
  const seconds = typeof ms === 'number' ? ` (${ms / 1000} s)` : '';
  const unread = (error.data as { unread?: unknown } | undefined)?.unread;
  // The server had stopped reading its input: whether the call (or its cancellation) reached it is not known (review of round 20 faults, F4).
  const text =
    typeof unread === 'number' && unread > 0
      ? `mcp-latch: server "${supervisor.name}" did not answer within ${limit}${seconds}, and it was not reading its input (${unread.toLocaleString('en-US')} bytes written to it were still unread): the call was sent and then cancelled, and may not have reached it, or may yet; it may have had effects.`
      : `mcp-latch: server "${supervisor.name}" did not answer within ${limit}${seconds}. The call was forwarded and then cancelled at the server: it may have had effects. Raise ${limit} for slow tools.`;
  return { content: [{ type: 'text', text: escapeText(text) }], isError: true };
}

/** A failed forward is a tool error naming the server, never a crash; protocol faults keep their code. */
function forwardError(error: unknown, supervisor: Supervisor): CallToolResult {
  if (error instanceof LatchError && error.code === 'SERVER_UNAVAILABLE') return unavailableResult(error.message);
  if (error instanceof NotSent) return unavailableResult(escapeText(error.message));
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return timeoutResult(error, supervisor);
  if (error instanceof AnswerDropped) return droppedResult(supervisor.name, error.problem);
  // The gateway's own answer in the server's place (remote-bounds.ts, child-transport.ts): the call was forwarded.
  const ours = error instanceof McpError || error instanceof RpcError ? gatewayAnswer(error.data) : null;
  if (ours?.mcpLatch === 'too-large') return droppedResult(supervisor.name, escapeText(ours.text));
  if (ours) return forwardedFailure(supervisor.name, escapeText(ours.text));
  const unreadable = schemaProblem(error);
  if (unreadable) return forwardedFailure(supervisor.name, `its answer could not be read: ${unreadable}`);
  if (error instanceof ConnectionLost) {
    // The gateway stopped it for a pipe it closed (child-transport.ts): said so, the call having been written to it.
    const what = error.why !== null ? `${error.why} while the call was running, and is stopped and started again` : error.stoppedFor !== null ? `was stopped while the call was running (${error.stoppedFor})` : 'stopped while the call was running';
    return { content: [{ type: 'text', text: `mcp-latch: server "${escapeText(supervisor.name)}" ${what}: it may have had effects.` }], isError: true };
  }
  if (error instanceof InvalidAnswer) supervisor.warnInvalidAnswer(error);
  const kept = keptBack(error);
  if (kept) throw kept;
  // The server's own error: passed on escaped, a URLElicitationRequiredError's questions never (server-error.ts).
  if (asksUrls(error)) return forwardedFailure(supervisor.name, URL_ERROR_REFUSAL);
  const servers = serverError(supervisor.name, error);
  if (servers) throw servers;
  if (error instanceof RpcError) throw error;
  if (error instanceof McpError) throw asRpcError(error);
  return { content: [{ type: 'text', text: `mcp-latch: the call to ${supervisor.name} failed: ${escapeText(errorMessage(error))}. The call was forwarded to the server and may have had effects.` }], isError: true };
}

/** A forwarded call whose answer the gateway could not pass on (`why`, escaped): it may have run. */
function forwardedFailure(server: string, why: string): CallToolResult {
  return { content: [{ type: 'text', text: `mcp-latch: the call to server "${escapeText(server)}" failed: ${why}. The call was forwarded to the server and may have had effects.` }], isError: true };
}
