import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { escapeText } from '../latch/escape.js';
import { unanswered, type HeldCall, type HeldQuestion } from './held-calls.js';
import { applyAnswer, promptInput, type AskContext, type AskedCall } from '../latch/ask.js';
import type { LatchAnswer } from '../latch/latch.js';
import { pictureOf } from '../latch/picture.js';
import type { DefinitionSeen } from '../pins/check.js';
import type { Decision } from '../policy/types.js';
import { buildPrompt, readAnswer } from '../latch/prompt.js';
import { editableFields } from '../latch/edit.js';
import { MAX_REQUEST_STATE_CHARS, type StateBinding } from '../latch/request-state.js';
import type { CallEdit } from '../latch/edit.js';
import type { ServerAnswers } from '../downstream/supervisor.js';
import type { ToolClass } from '../subjects/kind.js';
import { argumentsCannotMatter } from '../latch/remember.js';
import type { DecidedCall } from './call.js';
import { approvalResponse, inputRequiredResult, ownInputRequired } from './era-2026.js';
import type { CallContext, SessionPort } from './ports.js';
import { HELD_INPUT, HELD_ROOTS, rootsAnswered, rootsOf, serverAnswers, serverInputError, type ServerInput } from './server-input.js';
import { MAX_SERVER_QUESTIONS } from '../config/limits.js';
import { definitionChange, letThrough, notAsLetThrough, pathsMoved } from './let-through.js';
import { denialResult, DENIED_PREFIX } from '../latch/denial.js';
import { isPlainObject } from '../values.js';

/**
 * The latch's pause and resume for a 2026-07-28 client, which the gateway may not send a request:
 *
 *   call (no state)         → input_required: today's prompt as the one input request, the pending
 *                              call sealed in the requestState (latch/request-state.ts)
 *   retry (state + answer)  → the state verified and spent, the answer applied (grants and saved
 *                              rules first), then the call goes on through the latch as allowed or
 *                              is denied; a state that fails asks again, saying why
 *
 * Nothing waits in the gateway between the rounds, so a call that needs the person never holds
 * back an allowed call of the same turn: each paused call gets its own input_required at once.
 */
export interface Resumed {
  /** The person's answer the retry brought; null when there was none to use. */
  answer: LatchAnswer | null;
  /** Why a state the retry brought was not used. */
  problem: string | null;
  /** The server's own questions the retry answers (server-input.ts); null when it answers none. */
  server: { input: ServerInput; answers: ServerAnswers } | null;
  /** The id of the held call (held-calls.ts) whose question the retry answers; null when none. */
  held: string | null;
  /** The retry answers a question held by another process, where the call runs: it ends here, not run (heldElsewhere). */
  heldElsewhere?: true;
  /** With an approved edit: where the edited call's paths led when it was let through (its retry runs it decided anew, call.ts forwardEdited). */
  editShown?: string[];
  /** With an approval carried across its server's question: when that approval ends (epoch ms), whatever the rounds. */
  approvedUntil?: number;
}

/** What the state of a call paused for its server's questions holds besides the binding. */
interface ServerInputState {
  server: ServerInput;
  /** The person approved the call (it stays approved on the retry; a deny rule still denies). */
  approved: boolean;
  /** The person's change to the call: the retry runs the changed call again. */
  edit?: CallEdit;
  /** The tool's definition the call was let through for: an approval holds on the retry only for it (round 19). */
  definition?: DefinitionSeen | null;
  /** Where the call's paths led when it was let through (picture.ts): an approval holds on the retry only for that (round 19 review of the 2026-07-28 path, F2). */
  shown?: string[];
  /** When the approval ends (epoch ms): one `approval.timeoutSeconds` from when it was given, not renewed by the server's rounds. */
  approvedUntil?: number;
}

/** What a state sealed by pauseCall holds: where the call's paths led in the prompt it carries (picture.ts), and the tool's definition it showed (pins/check.ts). */
type PromptState = { shown: string[]; definition?: DefinitionSeen | null };

const NOTHING: Resumed = { answer: null, problem: null, server: null, held: null };

/** Verifies and spends the state of a retry and applies the answer it brings. */
export async function resumeCall(decided: DecidedCall, session: SessionPort, context: AskContext, toolClass: ToolClass, rootsGiven: (lists: string[][]) => void): Promise<Resumed> {
  const params = decided.call.request.params as Record<string, unknown>;
  if (params.requestState === undefined) return NOTHING;
  const opened = session.requestStates.open(params.requestState, binding(decided, session));
  if (!opened.ok) {
    context.logger.warn({ server: decided.route.supervisor.name, tool: decided.route.tool.name, problem: opened.problem }, 'a requestState was refused');
    if (opened.elsewhere === 'held') return { ...NOTHING, problem: opened.problem, heldElsewhere: true };
    return { ...NOTHING, problem: opened.problem };
  }
  const pending = opened.data as Partial<ServerInputState> & { held?: string };
  // The call already runs (it was let through before its server asked): the answer goes to it, not to the latch.
  if (typeof pending.held === 'string') return { ...NOTHING, held: pending.held };
  const server = pending.server ? { input: pending.server, answers: serverAnswers(pending.server, params.inputResponses) } : null;
  // The roots the client gave its server's `roots/list`: what the server resolves relative paths
  // against in this call. Noted, and the call decided again with them, before anything below reads
  // its decision (call.ts; docs/threat-model.md "A path the server reads otherwise").
  const roots = server ? rootsAnswered(server.input, params.inputResponses) : [];
  if (roots.length > 0) rootsGiven(roots);
  // Security: the client's answer to the gateway's prompt is not the person's once they have an approver credential (docs/team.md#approvers).
  const response = session.answersInClient() ? approvalResponse(params.inputResponses) : null;
  if (server && !response) {
    if (!pending.approved) return { ...NOTHING, server };
    // The call was let through before its server asked: approved by the person, it stays approved,
    // for the call as it was then (let-through.ts). A path that leads elsewhere now, or a definition
    // its server listed while its question was open, is decided anew, the person asked again with the
    // server's question (round 19; docs/pins.md, "A tool changed while a prompt is open"). An edited
    // call's paths are the edit's: compared once it is decided (call.ts forwardEdited).
    const when = "while its server's question was open";
    // Each round's state expires, but the approval it carries does not start again with it: a server that kept asking kept one approval alive for good (round 19 review of the 2026-07-28 path, F2).
    const until = typeof pending.approvedUntil === 'number' ? pending.approvedUntil : 0;
    if (until <= Date.now()) return { ...NOTHING, problem: "the approval given before its server's questions expired (approval.timeoutSeconds), whatever rounds of questions came since", server };
    const moved = pending.edit ? definitionChange(pending.definition, decided.definition, when) : notAsLetThrough(pending, decided.decision, decided.definition, when);
    if (moved) return { ...NOTHING, problem: moved, server };
    if (pending.edit) return { ...NOTHING, answer: { verdict: 'allow', by: 'user', edit: pending.edit }, server, editShown: pictureOf(pending.shown) ?? [], approvedUntil: until };
    return { ...NOTHING, answer: { verdict: 'allow', by: 'user' }, server, approvedUntil: until };
  }
  if (!response) return { ...NOTHING, problem: 'the answer to the prompt was missing' };
  // The answer holds for the call as the prompt showed it: a path that now leads elsewhere asks again (round 15 review, A5),
  // and so does a definition its server listed since (round 18, hostile servers #6).
  const moved = notAsLetThrough(opened.data as Partial<PromptState>, decided.decision, decided.definition);
  if (moved) return { ...NOTHING, problem: moved };
  const input = promptInput(asked(decided, toolClass, session), context.policy);
  return { ...NOTHING, answer: await applyAnswer(readAnswer(response, input), input, context), server };
}

/**
 * Pauses a call that needs the person; the state lives as long as a prompt may wait. A call whose
 * server's questions are still open (a retry that needs the gateway's approval again) asks both in
 * this one round.
 */
export function pauseCall(decided: DecidedCall, context: CallContext, session: SessionPort, problem: string | null, server: ServerInput | null, refused: (final: Decision) => void): CallToolResult {
  const prompt = buildPrompt(promptInput(asked(decided, context.toolClass(decided.route), session), context.policy()));
  if (problem) prompt.message = `Your earlier answer to this prompt was not used: ${problem}.\n\n${prompt.message}`;
  const data: Partial<ServerInputState> & PromptState = { ...(server ? { server, approved: false } : {}), ...letThrough(decided.decision, decided.definition) };
  const state = session.requestStates.seal(binding(decided, session), context.config().approval.timeoutSeconds * 1000, data);
  // A state its retry could never bring back (request-state.ts refuses it unread) would ask forever: the call ends here, naming the limit (round 19 review of the 2026-07-28 path, F7).
  // Audited as denied by the gateway: the trail shows the call that was not run and why (round 20).
  if (state.length > MAX_REQUEST_STATE_CHARS) {
    context.logger.warn({ server: decided.route.supervisor.name, tool: decided.route.tool.name, chars: state.length, limit: MAX_REQUEST_STATE_CHARS }, "a call's prompt state would be too long; the call was not run");
    refused({ ...decided.decision, verdict: 'deny', reason: stateTooLongReason(state.length) });
    return stateTooLong(decided, state.length);
  }
  const result = inputRequiredResult(prompt, state);
  if (server) result.inputRequests = { ...server.requests, ...(result.inputRequests as Record<string, unknown>) };
  return result as unknown as CallToolResult;
}

function stateTooLongReason(length: number): string {
  return `its prompt's requestState would be ${length} characters, more than the ${MAX_REQUEST_STATE_CHARS} a requestState may hold (the limit)`;
}

/** The call's end when the state of its prompt would not fit MAX_REQUEST_STATE_CHARS: not run, nothing asked. */
function stateTooLong(decided: DecidedCall, length: number): CallToolResult {
  const text = `mcp-latch: the call to ${escapeText(decided.route.supervisor.name)}/${escapeText(decided.route.tool.name)} needs the user's approval, but ${stateTooLongReason(length)}. The call was not run; split it into smaller calls.`;
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Relays a server's own questions to a 2026-07-28 client: its requests under the gateway's keys, its
 * state sealed in the gateway's, bound to the call as the client sent it. Null when the server's
 * answer is not a usable input_required (the caller reports it).
 */
export function relayServerInput(decided: DecidedCall, released: Decision, input: ServerInput, approved: boolean, edit: CallEdit | undefined, context: CallContext, session: SessionPort): CallToolResult | null {
  // `released`: the call as the latch let it through (of the edited call, for an edit).
  const ttlMs = context.config().approval.timeoutSeconds * 1000;
  const data: ServerInputState = { server: input, approved, ...(edit ? { edit } : {}), ...letThrough(released, decided.definition), ...(approved ? { approvedUntil: decided.approvedUntil ?? Date.now() + ttlMs } : {}) };
  const state = session.requestStates.seal(binding(decided, session), ttlMs, data as unknown as Record<string, unknown>);
  if (state.length > MAX_REQUEST_STATE_CHARS) return null;
  return ownInputRequired(input.requests, state) as unknown as CallToolResult;
}

/**
 * A retry whose answer is for a 2025 server's question held by another process (another replica,
 * or this gateway before a restart): the call was sent to its server there and waits there for the
 * answer until its question expires (answered "cancel"), and only that process can give it. Run
 * here too, it would run twice, so it ends here, not sent (docs/team.md, "Two replicas"). Until
 * round 24 it was decided anew: an allowed call ran again here, its server asking the person the
 * same question with no word of why; an asked one was put to the person as if never answered.
 */
export function heldElsewhere(decided: DecidedCall): CallToolResult {
  const server = escapeText(decided.route.supervisor.name);
  const text = `mcp-latch: your answer was to a question ${server} asked while this call ran through another mcp-latch process (another replica of this team gateway, or this gateway before it restarted), and only that process can give it to the call: there the call waits for it until the question expires (answered "cancel"), if that process still runs. This one has not sent the call to its server and does not. Each request of a member must reach one replica (docs/team.md, "Two replicas"); call the tool again to run it anew.`;
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Hold and translate: a 2025 server asks mid-call (`elicitation/create`) while a 2026-07-28 client
 * waits for the call. The client is answered at once with the question as `input_required` (under
 * `mcp-latch/server/elicitation`), and the state names the held call, which stays open in this
 * gateway's memory until the retry brings the answer or the question expires (answered `cancel`).
 * Returns the call's next event as the client gets it: its result, or its next question.
 */
export async function nextHeldRound(decided: DecidedCall, call: HeldCall, context: CallContext, session: SessionPort): Promise<CallToolResult> {
  const event = await call.next();
  if ('error' in event) throw event.error;
  if ('result' in event) return event.result;
  // One question a round, counted over the call as a handshake-era client's are (server-input.ts):
  // a server asking after every answer kept the client answering for good (round 20).
  call.asked += 1;
  if (call.asked > MAX_SERVER_QUESTIONS) {
    unanswered(event.question, `it asked again after ${MAX_SERVER_QUESTIONS} questions in one call (the limit)`);
    call.end();
    context.logger.warn({ server: decided.route.supervisor.name, tool: decided.route.tool.name, limit: MAX_SERVER_QUESTIONS }, "a server's question past the limit of one call was answered cancel; the client's call ended");
    return serverInputError(decided.route.supervisor.name, `it asked a question again after ${MAX_SERVER_QUESTIONS} in one call (the limit is ${MAX_SERVER_QUESTIONS} of one server for one call)`) as CallToolResult;
  }
  return holdQuestion(decided, call, event.question, context, session, null);
}

/**
 * The retry of a held call: its answer goes to the waiting question, then the call's next event
 * comes back. A held roots/list gets the roots as read (server-input.ts rootsOf: absolute file:
 * directories), noted as the server's and the call decided again with them (`rootsGiven`) before the
 * server has them: it resolves this very call's paths against them. The call goes on when the rules
 * allow it now, or when the person approved it and its paths lead where they did; otherwise the
 * server's request is refused and the client's call ends, denied (`refused` audits it).
 */
export function resumeHeld(decided: DecidedCall, id: string, context: CallContext, session: SessionPort, rootsGiven: (lists: string[][]) => void, refused: (final: Decision) => void): Promise<CallToolResult> | CallToolResult {
  const held = session.held.take(id);
  if (!held) {
    return { content: [{ type: 'text', text: `mcp-latch: the question of ${escapeText(decided.route.supervisor.name)} this answer was for is no longer waiting (it expired, or its session closed, and was answered "cancel"). Call the tool again to run it anew.` }], isError: true };
  }
  const { inputResponses } = decided.call.request.params as Record<string, unknown>;
  const { question } = held;
  if (question.roots) {
    const server = decided.route.supervisor.name;
    const roots = rootsOf(isPlainObject(inputResponses) ? inputResponses[HELD_ROOTS] : undefined);
    if (!roots) {
      question.refuse('the client answered it with no list of roots');
      held.call.end();
      return serverInputError(server, "it asked for the client's roots, and the retry brought no list of roots under mcp-latch/server/roots") as CallToolResult;
    }
    rootsGiven([roots.map((root) => root.uri)]);
    const why = rootsRefusal(decided.decision, held.call.released);
    if (why) {
      question.refuse(`with the roots the client gave, ${why}`);
      held.call.end();
      const reason = `with the roots its server asked for while the call ran, ${why}`;
      context.logger.warn({ server, tool: decided.route.tool.name, why }, "a server's roots/list was refused: the running call is not as it was let through with those roots");
      refused({ ...decided.decision, verdict: 'deny', reason });
      return denialResult(`${DENIED_PREFIX} ${escapeText(reason)}. The call had been forwarded: its server was not given those roots and may still finish it with the roots it had, and what it answers is not passed on. Call the tool again to have it decided with them.`);
    }
    question.answer({ roots });
    return nextHeldRound(decided, held.call, context, session);
  }
  const answer = approvalResponse(inputResponses, HELD_INPUT);
  if (!answer) return holdQuestion(decided, held.call, question, context, session, 'the answer to the question was missing');
  question.answer(answer);
  return nextHeldRound(decided, held.call, context, session);
}

/** Why a held call may not go on with roots its client gave (its decision `now`, made with them), or null. */
function rootsRefusal(now: Decision, released: HeldCall['released']): string | null {
  if (now.verdict === 'allow') return null;
  if (now.verdict === 'deny') return `the call is denied (${now.reason})`;
  if (!released.approved) return `the call needs the user's approval (${now.reason})`;
  // Approved by the person: for its paths as they led then (let-through.ts).
  return pathsMoved(released.shown(), now, 'with the roots its server was given');
}

function holdQuestion(decided: DecidedCall, call: HeldCall, question: HeldQuestion, context: CallContext, session: SessionPort, problem: string | null): CallToolResult {
  const ttlMs = context.config().approval.timeoutSeconds * 1000;
  const id = session.held.hold(call, question, ttlMs);
  const state = session.requestStates.seal(binding(decided, session), ttlMs, { held: id });
  if (question.roots) return ownInputRequired({ [HELD_ROOTS]: { method: 'roots/list' } }, state) as unknown as CallToolResult;
  const params = problem ? { ...question.params, message: `Your earlier answer to this question was not used: ${problem}.\n\n${question.params.message}` } : question.params;
  return ownInputRequired({ [HELD_INPUT]: { method: 'elicitation/create', params } }, state) as unknown as CallToolResult;
}

/** The call as the person is asked about it; the arguments they may change are read back from the same list. */
function asked(decided: DecidedCall, toolClass: ToolClass, session: SessionPort): AskedCall {
  const { decision, args } = decided;
  // With the definition: a changed tool's prompt shows the diff and offers to accept it, as a 2025 prompt does (round 18: it showed neither, and offered "Allow for this session").
  return { server: decided.route.supervisor.name, tool: decided.route.tool.name, args, digest: decided.digest(), decision, facts: decided.facts, definition: decided.definition, editable: editableFields(toolClass, decision.kind, args), user: session.user, wholeTool: argumentsCannotMatter(decided.route.tool.inputSchema, args), sessionless: session.sessionless === true };
}

/** A state is bound to the call as the client sent it: its retry brings those arguments, whatever the person changed. */
function binding(decided: DecidedCall, session: SessionPort): StateBinding {
  return { session: session.id, server: decided.route.supervisor.name, tool: decided.route.tool.name, argsDigest: decided.sentDigest() };
}
