import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Decision } from '../policy/types.js';
import { editSummary, type CallEdit } from './edit.js';
import { escapeText } from './escape.js';

/**
 * The results a client sees when a call is not forwarded (docs/approval.md): a tool result with
 * `isError: true` and one text that starts with "Denied by mcp-latch:", different for each cause,
 * so the model can tell "denied" from "failed". Nothing here invites the model to approve itself:
 * how-to-allow hints are addressed to the user, and the gateway denies `mcp-latch allow` and
 * writes to its own config file from any tool.
 */
export const DENIED_PREFIX = 'Denied by mcp-latch:';

export function denialResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A deny decided without a prompt: by a rule, by the mode, or because deciding failed. */
export function ruleDenial(decision: Decision): string {
  const reason = escapeText(decision.reason);
  if (decision.by === 'rule' && decision.rule) {
    return `${DENIED_PREFIX} the rule ${escapeText(decision.rule)} in the user's mcp-latch config forbids this call (${reason}). It was not run.`;
  }
  if (decision.by === 'error') return `${DENIED_PREFIX} the call could not be checked safely (${reason}), so it was not run.`;
  if (decision.by === 'pin') return `${DENIED_PREFIX} the user's mcp-latch config blocks this tool: ${reason}. It was not run.`;
  return `${DENIED_PREFIX} no rule allows this call (${reason}). It was not run.`;
}

/**
 * The person allowed the call, but its tool is no longer the one the prompt showed (latch.ts
 * release; docs/approval.md#what-an-approval-covers): nothing ran, and the next call asks with the change.
 */
export function definitionMovedDenial(reason: string): string {
  return `${DENIED_PREFIX} ${escapeText(reason)}. It was not run; call it again to have the user asked about the tool as it is now.`;
}

/** The person changed the call, and the changed call is not allowed: neither version runs. */
export function editedDenial(edit: CallEdit, decision: Decision): string {
  const why = decision.by === 'rule' && decision.rule ? `the rule ${escapeText(decision.rule)} in the user's mcp-latch config forbids it (${escapeText(decision.reason)})` : `it could not be allowed (${escapeText(decision.reason)})`;
  return `${DENIED_PREFIX} the user changed this call before approving it (${editSummary(edit)}), but ${why}. Neither the original nor the changed call was run.`;
}

export function cancelledDenial(): string {
  return `${DENIED_PREFIX} the call was cancelled before it was run.`;
}

export function waitCancelledDenial(): string {
  return `${DENIED_PREFIX} the call was cancelled while waiting for approval.`;
}

/** The asking itself threw (a bug): the call is not run. */
export function askFailedDenial(): string {
  return `${DENIED_PREFIX} the approval prompt failed, so the call was not run.`;
}

/** A resource read cannot carry a denial result, so an `ask` is refused with this text. */
export function readNeedsRuleDenial(uri: string, reason: string): string {
  return `${DENIED_PREFIX} reading ${escapeText(uri)} needs a rule (${escapeText(reason)}).`;
}

export function userDenial(note: string | undefined): string {
  const message = note && note.trim() !== '' ? ` Their message: "${escapeText(note.trim())}"` : '';
  return `${DENIED_PREFIX} the user denied this call in the approval prompt. It was not run.${message}`;
}

export function declinedDenial(): string {
  return `${DENIED_PREFIX} the user declined the approval prompt. The call was not run.`;
}

export function dismissedDenial(): string {
  return `${DENIED_PREFIX} the approval prompt was dismissed without an answer, so the call was not run.`;
}

export function timeoutDenial(seconds: number): string {
  return `${DENIED_PREFIX} no answer to the approval prompt within ${formatSeconds(seconds)}, so the call was not run.`;
}

/** The client's answer does not fit the form (a choice not offered, a field of the wrong type): not known to be the person's. */
export function invalidAnswerDenial(): string {
  return `${DENIED_PREFIX} the client returned an answer to the approval prompt that does not fit its form, so the call was not run.`;
}

/** The client answered the prompt's request with an error: whether the person saw the prompt is not known. */
export function clientErrorDenial(detail: string): string {
  return `${DENIED_PREFIX} the client returned an error instead of an answer to the approval prompt (${escapeText(detail)}), so the call was not run.`;
}

export function closedDenial(): string {
  return `${DENIED_PREFIX} the connection to the client closed before the approval prompt was answered, so the call was not run.`;
}

/** The prompt could not be sent, or the approval page could not be started. */
export function promptFailedDenial(detail: string): string {
  return `${DENIED_PREFIX} the approval prompt could not be shown (${escapeText(detail)}), so the call was not run.`;
}

/**
 * `ask` on a client that cannot show prompts: name the exact rule(s) that would allow the call and
 * the command the USER can run to add them.
 */
export function noPromptDenial(decision: Decision, rules: string[] | null): string {
  const why = escapeText(decision.reason);
  const head = `${DENIED_PREFIX} this call needs the user's approval (${why}), but this client cannot show approval prompts. It was not run.`;
  if (!rules || rules.length === 0) {
    return `${head} This call cannot be allowed by a saved rule; the user can review it with \`mcp-latch check\` or use a client that shows prompts.`;
  }
  const quoted = rules.map((rule) => shellQuote(rule)).join(' ');
  const list = rules.map((rule) => escapeText(rule)).join(', ');
  return `${head} To allow calls like this, the user (not the assistant) can add ${rules.length === 1 ? 'the rule' : 'the rules'} ${list} to permissions.allow in their mcp-latch config, for example by running in their own terminal: mcp-latch allow ${quoted}`;
}

/**
 * The client would give up before the person answers on the approval page. The page's address is
 * deliberately not in the text: the model must not be able to reach it.
 */
export function pendingDenial(windowSeconds: number): string {
  return `${DENIED_PREFIX} this call is waiting for the user's approval on the mcp-latch approval page and was not run. If the user approves it there, the same call (identical arguments) will be allowed once if it is made again within ${formatSeconds(windowSeconds)}.`;
}

/** A call to a server that is down. Not a denial: the call failed. */
/** `reason`: Supervisor.unavailableReason(), already escaped (escaping again would double its backslashes). */
export function unavailableResult(reason: string): CallToolResult {
  return { content: [{ type: 'text', text: `mcp-latch: the call was not run because ${reason}.` }], isError: true };
}

export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function formatSeconds(seconds: number): string {
  return Number.isInteger(seconds) ? `${seconds} s` : `${seconds.toFixed(1)} s`;
}
