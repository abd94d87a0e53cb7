/**
 * Asking the person about one call, and applying their answer before the call goes on.
 *
 *   the client shows prompts   → an elicitation form (prompt.ts), answered in the client
 *   it cannot, fallback "deny" → denied with the rule the user could add (denial.ts)
 *   it cannot, otherwise       → the local approval page (page.ts); a call the client would give up
 *                                on is answered "pending", and a later approval allows one retry
 *
 * "Allow for this session" becomes a session grant and "Always allow" a rule written to the config
 * file; either is in force before the answer is returned, so the latch's re-check sees it. Nothing
 * here knows MCP: the gateway binds a `Person` to the client session and maps its errors.
 */
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, ListRootsResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigFile } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { definitionSeen, type DefinitionReport } from '../pins/check.js';
import type { CallFacts, PolicyState } from '../policy/decide.js';
import type { Decision } from '../policy/types.js';
import { changedToolDenial } from './definition-prompt.js';
import { clientErrorDenial, closedDenial, declinedDenial, dismissedDenial, invalidAnswerDenial, noPromptDenial, pendingDenial, promptFailedDenial, timeoutDenial, userDenial, waitCancelledDenial } from './denial.js';
import type { EditableField } from './edit.js';
import { fileChangeOf } from './file-change.js';
import { pathsPicture } from './picture.js';
import type { BatchClock, LatchAnswer } from './latch.js';
import type { ApprovalPage, PageItem, RetryApprovals } from './page.js';
import type { ToolClass } from '../subjects/kind.js';
import { buildPrompt, readAnswer, renderMessage, type PromptAnswer, type PromptInput, type RunsIn } from './prompt.js';
import { redactText } from '../redact.js';
import { broaderRules, rememberRules } from './remember.js';

/**
 * Why a prompt gave no result, as far as the gateway knows: the gateway maps the client's errors to
 * one of these. `invalid`: the client answered with something that does not fit the form;
 * `client-error`: it answered with an error; `closed`: the connection closed first; `unsent`: the
 * request could not be sent. Only the last is known not to have been shown (round 15 review A9).
 */
export interface PromptFailure {
  failure: 'cancelled' | 'timeout' | 'invalid' | 'client-error' | 'closed' | 'unsent';
  detail: string;
}

/** One call's way to its person, bound by the gateway to the client session and the request. */
export interface Person {
  /** Aborts when the call is cancelled. */
  readonly signal: AbortSignal;
  /** True when the gateway's prompt may be shown in the client: it shows forms, and the person answers there (not with an approver credential of their own). */
  canPrompt(): boolean;
  /** True when the client declared form elicitation and is not known to ignore it: a server's own questions may be asked there. */
  showsForms(): boolean;
  /** True when the client declared URL-mode elicitation (a handshake-era client): a server's URL-mode question may be asked there (server-input.ts). */
  showsUrls(): boolean;
  /** True when the client declared roots at initialize (a handshake-era client): a 2026-07-28 server's roots/list may be asked of it (server-input.ts). */
  listsRoots(): boolean;
  /** The client's roots/list answer, or why there is none (an error, a timeout, the call cancelled); never rejects. */
  listRoots(timeoutMs: number): Promise<ListRootsResult | string>;
  /** Shows the form, or a server's URL-mode question (checked and named first: server-input.ts); never rejects. */
  prompt(params: ElicitRequestFormParams | ElicitRequestURLParams, timeoutMs: number): Promise<{ result: ElicitResult } | PromptFailure>;
  /** How the person sees this session on the approval page ("claude-ai 0.1.0"). */
  label(): string;
  /** The local approval page (started on first use). */
  page(): Promise<ApprovalPage>;
  /** Opens the page or points the person to it (browser, notification, URL elicitation). */
  announcePage(page: ApprovalPage, input: PromptInput): void;
  /** How long this client waits for a tool result before it gives up. */
  clientWaitLimitMs(): number;
}

/** What answers change in the session; a grant is in force once the returned promise, if any, resolves (it rejects when it could not be kept). */
export interface SessionGrantsPort {
  addRules(rules: string[]): void | Promise<void>;
  addCall(digest: string): void | Promise<void>;
}

/** The session state and settings asking reads and changes. */
export interface AskContext {
  approval: ConfigFile['approval'];
  policy: PolicyState;
  grants: SessionGrantsPort;
  retryApprovals: RetryApprovals;
  /** Adds rules to permissions.allow in the config file and applies them before returning. */
  rememberAlways(rules: string[]): Promise<void>;
  /** Records the definition in the lock file ("Accept the new definition"; on a team gateway for the asking member only); in force when it resolves. */
  acceptDefinition(report: DefinitionReport): Promise<void>;
  /** Records a new definition in the lock file as the person was shown it, when they allow a call of it; in force when it resolves. */
  pinDefinition?(report: DefinitionReport): Promise<void>;
  logger: Logger;
}

/** The call as the person is asked about it. */
export interface AskedCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  digest: string;
  decision: Decision;
  /** Null when the call could not be analysed (it then cannot be remembered). */
  facts: CallFacts | null;
  /** The tool's pin and scan findings; null when they could not be worked out. */
  definition?: DefinitionReport | null;
  /** Where its command runs; absent or null when it runs none. */
  runsIn?: RunsIn | null;
  /** The arguments the person may change before approving (edit.ts). */
  editable?: EditableField[];
  /** Why the rules would deny the call with changed arguments (escaped), or null: the page tells the person at once. */
  checkEdit?: (args: Record<string, unknown>) => string | null;
  /** The user whose call it is, on a team gateway. */
  user?: string | undefined;
  /** The tool's arguments cannot matter (remember.ts argumentsCannotMatter): a call decided as the whole tool may be remembered as it. */
  wholeTool?: boolean;
  /** No client session is behind the call (SessionPort.sessionless): "Allow for this session" is not offered. */
  sessionless?: boolean;
}

/** Where a command-kind call runs: the directory it names, or the server's own (`base`) when it names none. */
export function commandRunsIn(toolClass: ToolClass, args: Record<string, unknown>, decision: Decision): RunsIn | null {
  const info = decision.commandInfo;
  if (!info) return null;
  const named = toolClass.cwd ? args[toolClass.cwd] : undefined;
  const given = typeof named === 'string' && named !== '';
  return { dir: info.segments[0]?.cwd ?? null, given };
}

/** Asks the person about one call; grants and saved rules of the answer are in force before it resolves. */
export async function askPerson(call: AskedCall, person: Person, context: AskContext, clock: BatchClock = { started: Date.now(), more: 0 }): Promise<LatchAnswer> {
  const { decision, definition } = call;
  const changed = definition?.pin.state === 'changed' || (definition?.pin.state === 'new' && definition.pin.added === true);
  const input: PromptInput = { ...promptInput(call, context.policy), change: call.facts ? await fileChangeOf(call.facts, call.args, context.policy) : null };
  const remember = input.rememberRules;

  if (!person.canPrompt()) {
    if (context.approval.fallback === 'deny') return { verdict: 'deny', by: 'fallback', text: changed && definition ? changedToolDenial(definition) : noPromptDenial(decision, remember) };
    return askOnPage(input, person, context, clock, call.checkEdit);
  }

  const timeoutSeconds = context.approval.timeoutSeconds;
  // One clock per batch: a prompt gets what is left of the batch's time, and none once it is spent.
  const leftMs = timeoutSeconds * 1000 - (Date.now() - clock.started);
  if (leftMs <= 0) return { verdict: 'deny', by: 'timeout', text: timeoutDenial(timeoutSeconds) };
  const prompted = await person.prompt(buildPrompt(input), leftMs);
  if ('failure' in prompted) {
    switch (prompted.failure) {
      case 'cancelled':
        return { verdict: 'deny', by: 'client', text: waitCancelledDenial() };
      case 'timeout':
        return { verdict: 'deny', by: 'timeout', text: timeoutDenial(timeoutSeconds) };
      case 'invalid':
        return { verdict: 'deny', by: 'client', text: invalidAnswerDenial() };
      case 'client-error':
        return { verdict: 'deny', by: 'client', text: clientErrorDenial(prompted.detail) };
      case 'closed':
        return { verdict: 'deny', by: 'client', text: closedDenial() };
      case 'unsent':
        return { verdict: 'deny', by: 'error', text: promptFailedDenial(prompted.detail) };
    }
  }
  return applyAnswer(readAnswer(prompted.result, input), input, context);
}

/** What the person is shown about a call, and the choices offered. */
export function promptInput(call: AskedCall, policy: PolicyState): PromptInput {
  const { decision, facts, definition } = call;
  // A changed tool is asked about as such: no saved rule or session grant would answer it.
  const changed = definition?.pin.state === 'changed';
  const onlyModeAsks = !changed && decision.subjects.every((subject) => subject.verdict !== 'ask' || subject.by === 'mode');
  const rules = facts && !changed ? rememberRules(facts, decision, policy, call.wholeTool === true) : null;
  // A rule is saved in clear in the config (often shared or committed): one that would carry a
  // credential (redact.ts recognises one in it) is not offered; the session grant, kept in memory,
  // is (round 18 review, L5).
  const withCredential = rules !== null && rules.some((rule) => redactText(rule) !== rule);
  return {
    server: call.server,
    tool: call.tool,
    kind: decision.kind,
    decision,
    args: call.args,
    argsDigest: call.digest,
    rememberRules: withCredential ? null : rules,
    ...(withCredential ? { rememberHoldsCredential: true } : {}),
    offerSession: onlyModeAsks && facts !== null && call.sessionless !== true,
    ...(definition ? { definition } : {}),
    runsIn: call.runsIn ?? null,
    editable: call.editable ?? [],
    ...(call.user !== undefined ? { user: call.user } : {}),
  };
}

/**
 * The local approval page, for clients that cannot show prompts. The call waits as long as the
 * client allows; if the person has not answered by then, the call is answered "pending" and an
 * approval given later applies once to the identical call retried within the window.
 */
async function askOnPage(input: PromptInput, person: Person, context: AskContext, clock: BatchClock, checkEdit?: PageItem['checkEdit']): Promise<LatchAnswer> {
  const { approval } = context;
  let page: ApprovalPage;
  try {
    page = await person.page();
  } catch (error) {
    return { verdict: 'deny', by: 'error', text: promptFailedDenial(`the approval page could not be started: ${errorMessage(error)}`) };
  }
  const withdraw = new AbortController();
  const onCancel = () => withdraw.abort();
  person.signal.addEventListener('abort', onCancel, { once: true });
  // One clock per batch: every call of the batch is answered before the client gives up on it.
  const deadline = clock.started + Math.min(approval.timeoutSeconds * 1000, person.clientWaitLimitMs());
  const item: PageItem = { session: person.label(), input, message: renderMessage(input), deadline, more: clock.more, retryUntil: null, ...(checkEdit ? { checkEdit } : {}) };
  const answered = page.ask(item, withdraw.signal);
  person.announcePage(page, input);

  const waitMs = Math.max(0, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<null>((done) => {
    timer = setTimeout(() => done(null), waitMs);
  });
  const first = await Promise.race([answered, expired]);
  clearTimeout(timer);
  person.signal.removeEventListener('abort', onCancel);
  if (first !== null) return applyAnswer(first, input, context);
  if (person.signal.aborted) return { verdict: 'deny', by: 'client', text: waitCancelledDenial() };

  // Answer the call before the client gives up; keep the item on the page for the retry window.
  const windowMs = approval.retryWindowSeconds * 1000;
  page.answeredPending(item, Date.now() + windowMs);
  const expiry = setTimeout(() => withdraw.abort(), windowMs);
  expiry.unref();
  void answered.then(async (answer) => {
    clearTimeout(expiry);
    const applied = await applyAnswer(answer, input, context);
    // The page takes no edit once the client was answered; were one to come, it grants nothing.
    if (applied.verdict === 'allow' && !applied.edit) context.retryApprovals.grant(input.argsDigest, windowMs, pathsPicture(input.decision), input.definition ? definitionSeen(input.definition) : null);
    context.logger.info({ server: input.server, tool: input.tool, verdict: applied.verdict }, 'answer on the approval page for a pending call');
  });
  return { verdict: 'deny', by: 'fallback', text: pendingDenial(approval.retryWindowSeconds) };
}

/**
 * What an answer means for the call; grants, saved rules and the pin are in force before it returns.
 * A new tool the person allowed is pinned as they were shown it, before the call goes on (in a
 * prompt, on the page, in a 2026-07-28 retry): a definition its server lists after, even while they
 * answered, is then a change, and asks with the diff whatever grant or rule the answer saved (round
 * 18, hostile servers #6; docs/pins.md "A tool changed while a prompt is open").
 */
export async function applyAnswer(answer: PromptAnswer, input: PromptInput, context: AskContext): Promise<LatchAnswer> {
  const applied = await applyChoice(answer, input, context);
  const shown = input.definition;
  if (applied.verdict === 'allow' && shown?.pin.state === 'new' && context.pinDefinition) {
    try {
      await context.pinDefinition(shown);
    } catch (error) {
      // Another gateway pinned another definition meanwhile (the call is then denied at release, the next asks with the change), or the file cannot be written.
      context.logger.error({ err: errorMessage(error), tool: shown.exposed }, 'could not pin the tool definition');
    }
  }
  return applied;
}

async function applyChoice(answer: PromptAnswer, input: PromptInput, context: AskContext): Promise<LatchAnswer> {
  switch (answer.type) {
    case 'declined':
      return { verdict: 'deny', by: 'user', text: declinedDenial() };
    case 'dismissed':
      return { verdict: 'deny', by: 'user', text: dismissedDenial() };
    case 'invalid':
      // Not the person's decision: what the client sent is not an answer the form allows.
      return { verdict: 'deny', by: 'client', text: invalidAnswerDenial() };
  }
  const { choice, note, edit } = answer;
  const withNote = note && note.trim() !== '' ? { note: note.trim() } : {};
  if (choice.type === 'deny') return { verdict: 'deny', by: 'user', text: userDenial(note), ...withNote };
  // An edited call is allowed once, for exactly its arguments, after the gateway decides it again:
  // a grant, rule or accepted definition of the answer describes the call as shown, so none is kept.
  if (edit) return { verdict: 'allow', by: 'user', ...withNote, edit };
  switch (choice.type) {
    case 'once':
      return { verdict: 'allow', by: 'user', ...withNote };
    case 'session':
      try {
        if (input.rememberRules) await context.grants.addRules(input.rememberRules);
        else await context.grants.addCall(input.argsDigest);
      } catch (error) {
        // The person allowed the call; only keeping the grant failed: no grant holds, the next such call asks.
        context.logger.error({ err: errorMessage(error) }, 'could not keep the "Allow for this session" grant');
        const notice = `mcp-latch could not keep "Allow for this session" (${errorMessage(error)}); this call was allowed, the next one like it will be asked again.`;
        return { verdict: 'allow', by: 'user', ...withNote, notice };
      }
      return { verdict: 'allow', by: 'user', ...withNote, ...broader(input.rememberRules ?? []) };
    case 'always':
      try {
        await context.rememberAlways(choice.rules);
      } catch (error) {
        // The person allowed the call; only remembering failed: the rule holds for this session, and the answer says so.
        context.logger.error({ err: errorMessage(error) }, 'could not save the "Always allow" rule');
        let kept = true;
        try {
          await context.grants.addRules(choice.rules);
        } catch {
          kept = false;
        }
        const notice = `mcp-latch could not save ${choice.rules.join(', ')} to the config (${errorMessage(error)}); ${kept ? 'it holds only for this session' : 'this call was allowed, the next one like it will be asked again'}.`;
        return { verdict: 'allow', by: 'user', ...withNote, notice, ...broader(choice.rules) };
      }
      return { verdict: 'allow', by: 'user', ...withNote, ...broader(choice.rules) };
    case 'accept':
      if (input.definition) {
        try {
          await context.acceptDefinition(input.definition);
        } catch (error) {
          // The person allowed the call; only pinning failed: forward it once, the next call asks again.
          context.logger.error({ err: errorMessage(error) }, 'could not pin the accepted tool definition');
        }
      }
      return { verdict: 'allow', by: 'user', ...withNote };
  }
}

/** The answer's `broader` field: the rules it put in force that cover more than its own call (latch.ts withheldFor). */
function broader(rules: readonly string[]): Pick<LatchAnswer, 'broader'> {
  const found = broaderRules(rules);
  return found.length > 0 ? { broader: found } : {};
}
