import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  type Progress,
  type ReadResourceResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { CancelSource } from '../cancellation.js';
import type { ConfigFile } from '../config/schema.js';
import { ConnectionLost, ServerReplyError } from '../downstream/direct-calls.js';
import type { PermitBook } from '../downstream/permit.js';
import type { ServerRegistry, ToolRoute } from '../downstream/registry.js';
import { ServerUnavailableError, type Supervisor } from '../downstream/supervisor.js';
import { errorMessage } from '../errors.js';
import {
  declinedDenial,
  denialResult,
  dismissedDenial,
  invalidAnswerDenial,
  noPromptDenial,
  pendingDenial,
  promptFailedDenial,
  ruleDenial,
  timeoutDenial,
  unavailableResult,
  userDenial,
} from '../latch/denial.js';
import { escapeText } from '../latch/escape.js';
import type { LatchAnswer, LatchOutcome, SessionLatch } from '../latch/latch.js';
import type { ApprovalPage, RetryApprovals } from '../latch/page.js';
import { buildPrompt, readAnswer, renderMessage, type PromptAnswer, type PromptInput } from '../latch/prompt.js';
import { rememberRules } from '../latch/remember.js';
import type { Logger } from '../log.js';
import { decide, type CallFacts, type PolicyState } from '../policy/decide.js';
import { argsDigest } from '../policy/digest.js';
import type { Decision } from '../policy/types.js';
import type { Audit } from '../store/audit.js';
import type { SessionGrants } from '../store/grants.js';
import { inspectCall, inspectResourceRead, lazyDigest, type InspectContext } from '../subjects/inspect.js';
import type { ToolClass } from '../subjects/kind.js';
import { checkToolResult } from './call-result.js';
import { ProgressRelay } from './progress.js';
import type { IncomingCall } from './upstream-calls.js';

/**
 * The one path every tools/call and resources/read takes (SPEC §4–6):
 *
 *   inspect → decide → latch.submit → forward (with a permit) | denial
 *
 * A call reaches a server only through `Supervisor.callTool`/`readResource`, which spend a permit;
 * permits are issued only below, after the latch released the call as allowed.
 */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What the pipeline needs from the gateway: read at call time, so a reload applies to the next call. */
export interface GatewayView {
  registry: ServerRegistry;
  permits: PermitBook;
  audit: Audit;
  logger: Logger;
  config(): ConfigFile;
  policy(): PolicyState;
  toolClass(route: ToolRoute): ToolClass;
  inspectContext(): InspectContext;
  /** Adds rules to permissions.allow in the config file and applies them before returning. */
  rememberAlways(rules: string[]): Promise<void>;
}

/** One client session: its latch, its grants, and how to reach its human. */
export interface SessionView {
  id: string;
  latch: SessionLatch;
  grants: SessionGrants;
  /** True when the client declared form elicitation and is not known to ignore it. */
  canPrompt(): boolean;
  elicit(params: ElicitRequestFormParams, extra: Extra, timeoutMs: number): Promise<ElicitResult>;
  /** How the person sees this session on the approval page ("claude-ai 0.1.0"). */
  label(): string;
  /** The local approval page (started on first use). */
  page(): Promise<ApprovalPage>;
  /** Opens the page or points the person to it (browser, notification, URL elicitation). */
  announcePage(page: ApprovalPage, input: PromptInput, extra: Extra): void;
  /** How long this client waits for a tool result before it gives up. */
  clientWaitLimitMs(): number;
  retryApprovals: RetryApprovals;
}

export class CallPipeline {
  constructor(
    private readonly gateway: GatewayView,
    private readonly session: SessionView,
  ) {}

  /** Groups of calls waiting in `callToolsInOrder`, and the end of the last one. */
  private waitingGroups = 0;
  private waitingTail: Promise<unknown> = Promise.resolve();

  /**
   * The calls of one read from the client; one answer per call, in the same order. They are one
   * batch (SPEC §6): each is decided first, and when every one of them is allowed (and no batch is
   * waiting for a person) they go at once; otherwise they go through the latch together.
   *
   * `before`: what calls must wait for first (the gateway's own start). Calls that cannot all be
   * decided yet take the slower path of callToolsInOrder.
   */
  callTools(calls: IncomingCall[], before: Promise<void> | null = null): Array<Promise<CallToolResult>> {
    if (before || this.waitingGroups > 0) return this.callToolsInOrder(calls, calls.map(() => LATER), before);
    const steps = calls.map((call): Step => {
      try {
        return this.prepareNow(call);
      } catch (error) {
        return { failed: error };
      }
    });
    if (steps.includes(LATER)) return this.callToolsInOrder(calls, steps, null);
    const allAllowed = steps.every((step) => !(step instanceof PreparedCall) || step.decision.verdict === 'allow');
    return steps.map((step) => this.settle(step, allAllowed, calls.length === 1));
  }

  /**
   * Calls of a read that cannot all be decided yet (a server, or the gateway, is still starting).
   * They wait until every one of them can be decided, then go on together, as one batch: a call
   * whose server is up must not run before a call of the same read that will need a person. Reads
   * that arrive meanwhile queue behind, in order, so none passes an earlier one.
   */
  private callToolsInOrder(calls: IncomingCall[], steps: Step[], before: Promise<void> | null): Array<Promise<CallToolResult>> {
    this.waitingGroups += 1;
    const answers = this.waitingTail.then(async () => {
      try {
        if (before) await before;
        const ready = await Promise.all(steps.map((step, index) => (step === LATER ? this.prepareLater(calls[index]!).catch((error: unknown): Step => ({ failed: error })) : step)));
        // Decided before the wait: decided again, as rules or grants may have changed meanwhile.
        ready.forEach((step, index) => {
          if (steps[index] !== LATER && step instanceof PreparedCall) step.decision = step.evaluate();
        });
        // Every call of the read is decided (or failed): they reach the latch together, now.
        return ready.map((step) => this.settle(step, false, calls.length === 1));
      } finally {
        this.waitingGroups -= 1;
      }
    });
    this.waitingTail = answers.catch(() => undefined);
    return calls.map((_, index) => answers.then((list) => list[index]!));
  }

  private settle(step: Step, groupAllowed: boolean, alone: boolean): Promise<CallToolResult> {
    if (step === LATER) return Promise.reject(new Error('mcp-latch internal error: a call was not decided'));
    if (step instanceof PreparedCall) return this.proceed(step, groupAllowed, alone);
    if ('failed' in step) return Promise.reject(step.failed);
    return Promise.resolve(step.answer);
  }

  /** Decides a call once its server is up (waiting, bounded, while servers start); `answer` when it cannot be. */
  private async prepareLater(call: IncomingCall): Promise<Step> {
    const { request } = call;
    const route = await this.resolveTool(request.params.name);
    if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = argumentsOf(request);
    if (route.supervisor.state !== 'ready' && !(await route.supervisor.whenReady(this.gateway.config().timeouts.firstListSeconds * 1000))) {
      return { answer: unavailableResult(route.supervisor.unavailableReason()) };
    }
    return new PreparedCall(this.gateway, this.session, call, route, args);
  }

  /** Decides a call now, or says it must wait (LATER) because its server or the tool list is not ready. */
  private prepareNow(call: IncomingCall): PreparedCall | typeof LATER {
    const { request } = call;
    const registry = this.gateway.registry;
    const route = registry.resolveTool(request.params.name);
    if (!route) {
      if (registry.all().some((supervisor) => supervisor.state === 'starting')) return LATER;
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    const args = argumentsOf(request);
    if (route.supervisor.state !== 'ready') return LATER;
    return new PreparedCall(this.gateway, this.session, call, route, args);
  }

  /** Latch, then forward (with a permit) or deny; every outcome is audited. */
  private async proceed(prepared: PreparedCall, groupAllowed: boolean, alone: boolean): Promise<CallToolResult> {
    const { call, supervisor, tool, args, digest, decision } = prepared;
    const { request, extra, cancel } = call;
    const progress = new ProgressRelay(extra);
    if (decision.verdict !== 'allow') progress.startHeartbeat(this.gateway.config().approval.heartbeatSeconds * 1000, `Waiting for approval: ${supervisor.name}/${tool.name}`);
    let outcome: LatchOutcome;
    try {
      outcome =
        (groupAllowed ? this.session.latch.passNow(decision, true, cancel.cancelled) : null) ??
        (await this.session.latch.submit({
          cancel,
          decision,
          recheck: () => prepared.evaluate(),
          ask: (current) => this.ask(supervisor, tool.name, args, digest(), current, prepared.facts, extra),
          denial: ruleDenial,
        }, alone));
    } finally {
      progress.stopHeartbeat();
    }
    const waitMs = Date.now() - prepared.started;
    const record = (final: Decision, verdict: 'allow' | 'deny' | 'cancelled', by: string, note?: string) =>
      this.gateway.audit.record({
        session: this.session.id,
        server: supervisor.name,
        tool: tool.name,
        kind: final.kind,
        decision: verdict,
        by,
        rule: final.rule,
        reason: final.reason,
        paths: final.paths,
        command: final.commandInfo?.raw ?? null,
        argsDigest: digest,
        args,
        waitMs,
        ...(note ? { note } : {}),
      });

    if (outcome.type === 'cancelled') {
      record(decision, 'cancelled', 'client');
      return denialResult('Denied by mcp-latch: the call was cancelled before it was run.');
    }
    if (outcome.type === 'deny') {
      record(outcome.decision, 'deny', outcome.answer?.by ?? outcome.decision.by, outcome.answer?.note);
      return denialResult(outcome.text);
    }
    const permit = this.gateway.permits.issue(supervisor.name, tool.name, args);
    const timeout = ('timeout' in supervisor.config && supervisor.config.timeout) || this.gateway.config().timeouts.callSeconds * 1000;
    try {
      const forwarded = supervisor.callTool(permit, tool.name, args, forwardedMeta(request.params._meta), {
        cancel,
        ...(progress.hasToken ? { onprogress: (update: Progress) => progress.emit(update) } : {}),
        timeout,
      });
      record(outcome.decision, 'allow', outcome.answer?.by ?? outcome.decision.by, outcome.answer?.note);
      const result = checkToolResult(await forwarded);
      const note = outcome.answer?.note?.trim();
      if (note) result.content = [...(result.content ?? []), { type: 'text', text: `Note from the user who approved this call: "${escapeText(note)}"` }];
      return result;
    } catch (error) {
      return forwardError(error, supervisor);
    }
  }

  /** A call may come before the first tools/list: wait (bounded) for servers still starting. */
  private async resolveTool(exposed: string): Promise<ToolRoute | undefined> {
    const registry = this.gateway.registry;
    const route = registry.resolveTool(exposed);
    if (route || !registry.all().some((supervisor) => supervisor.state === 'starting')) return route;
    await registry.whenSettled(this.gateway.config().timeouts.firstListSeconds * 1000);
    return registry.resolveTool(exposed);
  }

  async readResource(uri: string, extra: Extra): Promise<ReadResourceResult> {
    const supervisor = this.gateway.registry.resolveResource(uri);
    if (!supervisor) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
    if (supervisor.state !== 'ready' && !(await supervisor.whenReady(this.gateway.config().timeouts.firstListSeconds * 1000))) {
      throw new McpError(ErrorCode.InternalError, supervisor.unavailableReason());
    }
    const evaluate = (): Decision => {
      try {
        return decide(inspectResourceRead(supervisor.name, uri, this.gateway.inspectContext()), this.gateway.policy(), this.session.grants.current());
      } catch (error) {
        return errorDecision(error);
      }
    };
    const decision = evaluate();
    // A resource read cannot carry a denial result: anything but a clear allow is refused.
    if (decision.verdict !== 'allow') {
      this.gateway.audit.record({ session: this.session.id, server: supervisor.name, tool: 'resources/read', kind: 'read', decision: 'deny', by: decision.by, rule: decision.rule, reason: decision.reason, paths: decision.paths, command: null, argsDigest: argsDigest(supervisor.name, 'resources/read', { uri }), args: { uri }, waitMs: 0 });
      throw new McpError(ErrorCode.InvalidRequest, decision.verdict === 'deny' ? ruleDenial(decision) : `Denied by mcp-latch: reading ${escapeText(uri)} needs a rule (${escapeText(decision.reason)}).`);
    }
    const permit = this.gateway.permits.issue(supervisor.name, 'resources/read', uri);
    return supervisor.readResource(permit, uri, { signal: extra.signal, timeout: this.gateway.config().timeouts.callSeconds * 1000 });
  }

  /** Asks the human about one call and applies the answer (grant or saved rule) before returning. */
  private async ask(supervisor: Supervisor, tool: string, args: Record<string, unknown>, digest: string, decision: Decision, facts: CallFacts | null, extra: Extra): Promise<LatchAnswer> {
    const config = this.gateway.config();
    const policy = this.gateway.policy();
    const remember = facts ? rememberRules(facts, decision, policy) : null;
    const onlyModeAsks = decision.subjects.every((subject) => subject.verdict !== 'ask' || subject.by === 'mode');
    const input: PromptInput = {
      server: supervisor.name,
      tool,
      kind: decision.kind,
      decision,
      args,
      argsDigest: digest,
      rememberRules: remember,
      offerSession: onlyModeAsks && facts !== null,
    };

    if (!this.session.canPrompt()) {
      if (config.approval.fallback === 'deny') return { verdict: 'deny', by: 'fallback', text: noPromptDenial(decision, remember) };
      return this.askOnPage(input, extra);
    }

    const timeoutSeconds = config.approval.timeoutSeconds;
    let result: ElicitResult;
    try {
      result = await this.session.elicit(buildPrompt(input), extra, timeoutSeconds * 1000);
    } catch (error) {
      if (extra.signal.aborted) return { verdict: 'deny', by: 'client', text: 'Denied by mcp-latch: the call was cancelled while waiting for approval.' };
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return { verdict: 'deny', by: 'timeout', text: timeoutDenial(timeoutSeconds) };
      if (error instanceof McpError && error.code === ErrorCode.InvalidParams) return { verdict: 'deny', by: 'user', text: invalidAnswerDenial() };
      return { verdict: 'deny', by: 'error', text: promptFailedDenial(errorMessage(error)) };
    }
    return this.applyAnswer(readAnswer(result, input), input);
  }

  /**
   * The local approval page, for clients that cannot show prompts. The call waits as long as the
   * client allows; if the person has not answered by then, the call is answered "pending" and an
   * approval given later applies once to the identical call retried within the window.
   */
  private async askOnPage(input: PromptInput, extra: Extra): Promise<LatchAnswer> {
    const config = this.gateway.config();
    let page: ApprovalPage;
    try {
      page = await this.session.page();
    } catch (error) {
      return { verdict: 'deny', by: 'error', text: promptFailedDenial(`the approval page could not be started: ${errorMessage(error)}`) };
    }
    const withdraw = new AbortController();
    const onCancel = () => withdraw.abort();
    extra.signal.addEventListener('abort', onCancel, { once: true });
    const answered = page.ask({ session: this.session.label(), input, message: renderMessage(input) }, withdraw.signal);
    this.session.announcePage(page, input, extra);

    const waitMs = Math.min(config.approval.timeoutSeconds * 1000, this.session.clientWaitLimitMs());
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<null>((done) => {
      timer = setTimeout(() => done(null), waitMs);
    });
    const first = await Promise.race([answered, expired]);
    clearTimeout(timer);
    extra.signal.removeEventListener('abort', onCancel);
    if (first !== null) return this.applyAnswer(first, input);
    if (extra.signal.aborted) return { verdict: 'deny', by: 'client', text: 'Denied by mcp-latch: the call was cancelled while waiting for approval.' };

    // Answer the call before the client gives up; keep the item on the page for the retry window.
    const windowMs = config.approval.retryWindowSeconds * 1000;
    const expiry = setTimeout(() => withdraw.abort(), windowMs);
    expiry.unref();
    void answered.then(async (answer) => {
      clearTimeout(expiry);
      const applied = await this.applyAnswer(answer, input);
      if (applied.verdict === 'allow') this.session.retryApprovals.grant(input.argsDigest, windowMs);
      this.gateway.logger.info({ server: input.server, tool: input.tool, verdict: applied.verdict }, 'answer on the approval page for a pending call');
    });
    return { verdict: 'deny', by: 'fallback', text: pendingDenial(config.approval.retryWindowSeconds) };
  }

  /** What an answer means for the call; grants and saved rules are in force before it returns. */
  private async applyAnswer(answer: PromptAnswer, input: PromptInput): Promise<LatchAnswer> {
    switch (answer.type) {
      case 'declined':
        return { verdict: 'deny', by: 'user', text: declinedDenial() };
      case 'dismissed':
        return { verdict: 'deny', by: 'user', text: dismissedDenial() };
      case 'invalid':
        return { verdict: 'deny', by: 'user', text: invalidAnswerDenial() };
    }
    const { choice, note } = answer;
    const withNote = note && note.trim() !== '' ? { note: note.trim() } : {};
    switch (choice.type) {
      case 'deny':
        return { verdict: 'deny', by: 'user', text: userDenial(note), ...withNote };
      case 'once':
        return { verdict: 'allow', by: 'user', ...withNote };
      case 'session':
        if (input.rememberRules) this.session.grants.addRules(input.rememberRules);
        else this.session.grants.addCall(input.argsDigest);
        return { verdict: 'allow', by: 'user', ...withNote };
      case 'always':
        try {
          await this.gateway.rememberAlways(choice.rules);
        } catch (error) {
          // The person allowed the call; only remembering failed. Forward it once and say so in the log.
          this.gateway.logger.error({ err: errorMessage(error) }, 'could not save the "Always allow" rule');
          this.session.grants.addRules(choice.rules);
        }
        return { verdict: 'allow', by: 'user', ...withNote };
    }
  }
}

/** Marks a call that cannot be decided yet (its server or the tool list is still starting). */
const LATER = Symbol('later');

/** Where a call stands before the latch: decided, not yet decidable, failed, or already answered. */
type Step = PreparedCall | typeof LATER | { failed: unknown } | { answer: CallToolResult };

function argumentsOf(request: CallToolRequest): Record<string, unknown> {
  const args = request.params.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new McpError(ErrorCode.InvalidParams, 'arguments must be an object');
  return args;
}

/** One call with its route and its decision; `evaluate()` decides again (after an answer or a reload). */
class PreparedCall {
  readonly supervisor: Supervisor;
  readonly tool: ToolRoute['tool'];
  readonly digest: () => string;
  readonly started = Date.now();
  facts: CallFacts | null = null;
  decision: Decision;
  private approvedOnPage = false;

  constructor(
    private readonly gateway: GatewayView,
    private readonly session: SessionView,
    readonly call: IncomingCall,
    private readonly route: ToolRoute,
    readonly args: Record<string, unknown>,
  ) {
    this.supervisor = route.supervisor;
    this.tool = route.tool;
    this.digest = lazyDigest(this.supervisor.name, this.tool.name, args);
    this.decision = this.evaluate();
  }

  evaluate(): Decision {
    try {
      this.facts = inspectCall(this.supervisor.name, this.tool.name, this.args, this.gateway.toolClass(this.route), this.gateway.inspectContext(), this.digest);
      const decided = decide(this.facts, this.gateway.policy(), this.session.grants.current());
      // An approval given on the page for this exact call after it was answered "pending": spent once.
      if (decided.verdict === 'ask' && (this.approvedOnPage || (this.approvedOnPage = this.session.retryApprovals.take(this.digest())))) {
        return { ...decided, verdict: 'allow', by: 'user', reason: 'approved by the user on the approval page' };
      }
      return decided;
    } catch (error) {
      // Fail closed: a call that could not be analysed needs the human.
      this.gateway.logger.error({ err: errorMessage(error), tool: this.call.request.params.name }, 'could not analyse a call');
      this.facts = null;
      return errorDecision(error);
    }
  }
}

/** The client's `_meta` for the server, without its progress token (the server gets its own). */
function forwardedMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!meta) return undefined;
  const { progressToken: _dropped, ...rest } = meta;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

function errorDecision(error: unknown): Decision {
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

/** A failed forward is a tool error naming the server, never a crash; protocol faults keep their code. */
function forwardError(error: unknown, supervisor: Supervisor): CallToolResult {
  if (error instanceof ServerUnavailableError) return unavailableResult(error.message);
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return { content: [{ type: 'text', text: `mcp-latch: ${supervisor.name} did not answer in time (${escapeText(error.message)}).` }], isError: true };
  }
  if (error instanceof ConnectionLost) {
    return { content: [{ type: 'text', text: `mcp-latch: server "${escapeText(supervisor.name)}" stopped while the call was running: it may have had effects.` }], isError: true };
  }
  if (error instanceof McpError || error instanceof ServerReplyError) throw error;
  return { content: [{ type: 'text', text: `mcp-latch: the call to ${supervisor.name} failed: ${escapeText(errorMessage(error))}` }], isError: true };
}
