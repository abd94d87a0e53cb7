import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { applyAnswer, promptInput, type AskContext, type AskedCall } from '../latch/ask.js';
import type { LatchAnswer } from '../latch/latch.js';
import { buildPrompt, readAnswer } from '../latch/prompt.js';
import { editableFields } from '../latch/edit.js';
import type { StateBinding } from '../latch/request-state.js';
import type { ToolClass } from '../subjects/kind.js';
import type { DecidedCall } from './call.js';
import { approvalResponse, inputRequiredResult } from './era-2026.js';
import type { CallContext, SessionPort } from './ports.js';

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
}

/** Verifies and spends the state of a retry and applies the answer it brings. */
export async function resumeCall(decided: DecidedCall, session: SessionPort, context: AskContext, toolClass: ToolClass): Promise<Resumed> {
  const params = decided.call.request.params as Record<string, unknown>;
  if (params.requestState === undefined) return { answer: null, problem: null };
  const opened = session.requestStates.open(params.requestState, binding(decided, session));
  if (!opened.ok) {
    context.logger.warn({ server: decided.route.supervisor.name, tool: decided.route.tool.name, problem: opened.problem }, 'a requestState was refused');
    return { answer: null, problem: opened.problem };
  }
  const response = approvalResponse(params.inputResponses);
  if (!response) return { answer: null, problem: 'the answer to the prompt was missing' };
  const input = promptInput(asked(decided, toolClass, session), context.policy);
  return { answer: await applyAnswer(readAnswer(response, input), input, context), problem: null };
}

/** Pauses a call that needs the person; the state lives as long as a prompt may wait. */
export function pauseCall(decided: DecidedCall, context: CallContext, session: SessionPort, problem: string | null): CallToolResult {
  const prompt = buildPrompt(promptInput(asked(decided, context.toolClass(decided.route), session), context.policy()));
  if (problem) prompt.message = `Your earlier answer to this prompt was not used: ${problem}.\n\n${prompt.message}`;
  const state = session.requestStates.seal(binding(decided, session), context.config().approval.timeoutSeconds * 1000);
  return inputRequiredResult(prompt, state) as unknown as CallToolResult;
}

/** The call as the person is asked about it; the arguments they may change are read back from the same list. */
function asked(decided: DecidedCall, toolClass: ToolClass, session: SessionPort): AskedCall {
  const { decision, args } = decided;
  return { server: decided.route.supervisor.name, tool: decided.route.tool.name, args, digest: decided.digest(), decision, facts: decided.facts, editable: editableFields(toolClass, decision.kind, args), user: session.user };
}

function binding(decided: DecidedCall, session: SessionPort): StateBinding {
  return { session: session.id, server: decided.route.supervisor.name, tool: decided.route.tool.name, argsDigest: decided.digest() };
}
