/**
 * When the calls of one read may be decided, and in what order they go on.
 *
 * The calls of one read from the client are one batch: each is decided first; when every one is
 * allowed (and no batch is waiting for a person) they go at once, otherwise through the latch
 * together. A call that cannot be decided yet — the gateway is still starting (the client's roots),
 * its server is, or the shell grammar its tool needs is loading — waits here, in the one readiness gate, with the rest of
 * its read; reads that arrive meanwhile queue behind it, in order, so none passes an earlier one.
 */
import { ErrorCode, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startWaitMs } from '../config/schema.js';
import type { ToolRoute } from '../downstream/registry.js';
import type { Supervisor } from '../downstream/supervisor.js';
import { unavailableResult } from '../latch/denial.js';
import { decideCall, handleToolCall, redecide, type BatchPosition, type DecidedCall } from './call.js';
import type { CallContext, SessionPort } from './ports.js';
import type { ANSWERING, IncomingCall } from './upstream-calls.js';
import { internalError, RpcError } from '../errors.js';
import { isPlainObject } from '../values.js';

/** Marks a call that cannot be decided yet (its server or the tool list is still starting). */
const NOT_YET = Symbol('not yet decidable');

/** The batch position of a read's only call (callTool): read, never changed. */
const ALONE_ALLOWED: BatchPosition = Object.freeze({ allAllowed: true, alone: true });
const ALONE: BatchPosition = Object.freeze({ allAllowed: false, alone: true });

/** Where a call stands before the latch: decided, not yet decidable, failed, or already answered. */
type Step = DecidedCall | typeof NOT_YET | { failed: unknown } | { answer: CallToolResult };

export class CallOrder {
  /** Start-up work every call waits for; empty once the gateway is ready. */
  private readonly startup = new Set<Promise<unknown>>();
  /** Reads waiting in `callToolsInOrder`, and the end of the last one. */
  private waitingReads = 0;
  private waitingTail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly context: CallContext,
    private readonly session: SessionPort,
  ) {}

  /** Calls wait for `work` before they are decided (the client's first roots). Must not reject. */
  holdCallsUntil(work: Promise<unknown>): void {
    const held: Promise<unknown> = work.finally(() => this.startup.delete(held));
    this.startup.add(held);
  }

  /** The calls of one read from the client; one answer per call, in the same order (ANSWERING: through the call itself). */
  callTools(calls: IncomingCall[]): Array<Promise<CallToolResult> | typeof ANSWERING> {
    if (this.startup.size > 0 || this.waitingReads > 0) return this.callToolsInOrder(calls, calls.map(() => NOT_YET), this.startup.size > 0 ? Promise.all(this.startup) : null);
    if (calls.length === 1) return [this.callTool(calls[0]!)];
    const steps = calls.map((call): Step => {
      try {
        return this.decideNow(call);
      } catch (error) {
        return { failed: error };
      }
    });
    if (steps.includes(NOT_YET)) return this.callToolsInOrder(calls, steps, null);
    const batch = { allAllowed: steps.every((step) => !isDecided(step) || step.decision.verdict === 'allow'), alone: calls.length === 1 };
    // The records of the calls that go on at once are written together, before any is sent.
    return this.context.audit.together(() => steps.map((step) => (isDecided(step) ? handleToolCall(step, this.context, this.session, batch) : this.settle(step))));
  }

  /**
   * callTools for the one call of a read (a client calling one tool at a time): the same steps
   * without the batch's arrays, closures and position object, ~0.6k instructions and ~270 bytes a
   * call (docs/performance.md, "Round 31: the call path").
   */
  private callTool(call: IncomingCall): Promise<CallToolResult> | typeof ANSWERING {
    let step: Step;
    try {
      step = this.decideNow(call);
    } catch (error) {
      step = { failed: error };
    }
    if (step === NOT_YET) return this.callToolsInOrder([call], [step], null)[0]!;
    if (!isDecided(step)) return this.settle(step);
    const decided = step;
    const batch = decided.decision.verdict === 'allow' ? ALONE_ALLOWED : ALONE;
    return this.context.audit.together(() => handleToolCall(decided, this.context, this.session, batch));
  }

  /**
   * Calls of a read that cannot all be decided yet. They wait until every one of them can be
   * decided, then go on together, as one batch: a call whose server is up must not run before a
   * call of the same read that will need a person.
   */
  private callToolsInOrder(calls: IncomingCall[], steps: Step[], startup: Promise<unknown> | null): Array<Promise<CallToolResult>> {
    this.waitingReads += 1;
    const answers = this.waitingTail.then(async () => {
      try {
        if (startup) await startup;
        const ready = await Promise.all(steps.map((step, index) => (step === NOT_YET ? this.decideWhenReady(calls[index]!).catch((error: unknown): Step => ({ failed: error })) : step)));
        // Decided before the wait: decided again, as rules or grants may have changed meanwhile.
        ready.forEach((step, index) => {
          if (steps[index] !== NOT_YET && isDecided(step)) step.decision = redecide(step, this.context, this.session);
        });
        // Every call of the read is decided (or failed): they reach the latch together, now.
        const batch = { allAllowed: false as const, alone: calls.length === 1 };
        return ready.map((step) => (isDecided(step) ? handleToolCall(step, this.context, this.session, batch) : this.settle(step)));
      } finally {
        this.waitingReads -= 1;
      }
    });
    this.waitingTail = answers.catch(() => undefined);
    return calls.map((_, index) => answers.then((list) => list[index]!));
  }

  /** The answer of a call that was not decided. */
  private settle(step: Exclude<Step, DecidedCall>): Promise<CallToolResult> {
    if (step === NOT_YET) return Promise.reject(internalError('a call was not decided'));
    if ('failed' in step) return Promise.reject(step.failed);
    return Promise.resolve(step.answer);
  }

  /** Decides a call now, or says it must wait (NOT_YET) because its server or the tool list is not ready. */
  private decideNow(call: IncomingCall): DecidedCall | typeof NOT_YET {
    const { request } = call;
    const registry = this.context.registry;
    const route = registry.resolveTool(request.params.name);
    if (!route) {
      if (registry.all().some((supervisor) => supervisor.state === 'starting') || this.downServerOf(request.params.name)) return NOT_YET;
      throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    const args = argumentsOf(request);
    if (route.supervisor.state !== 'ready' || this.context.analysisReady(route)) return NOT_YET;
    return decideCall(call, route, args, this.context, this.session);
  }

  /** Decides a call once its server is up (waiting, bounded, while servers start); `answer` when it cannot be. */
  private async decideWhenReady(call: IncomingCall): Promise<Step> {
    const { request } = call;
    const route = await this.routeWhenListed(request.params.name);
    if (!route) {
      const down = this.downServerOf(request.params.name);
      if (down) return { answer: unavailableResult(down.unavailableReason()) };
      throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    const args = argumentsOf(request);
    if (route.supervisor.state !== 'ready' && !(await route.supervisor.whenReady(startWaitMs(this.context.config())))) {
      return { answer: unavailableResult(route.supervisor.unavailableReason()) };
    }
    await this.context.analysisReady(route);
    return decideCall(call, route, args, this.context, this.session);
  }

  /**
   * The configured server whose prefix `exposed` has and that is not up (failed, or stopped): a call
   * of a tool it never listed got "Unknown tool", not the reason it is down (round 13 review R13).
   */
  private downServerOf(exposed: string): Supervisor | undefined {
    return this.context.registry.all().find((supervisor) => supervisor.state !== 'ready' && supervisor.state !== 'starting' && supervisor.config.prefix !== false && exposed.startsWith(`${supervisor.name}__`));
  }

  /** A call may come before the first tools/list: wait (bounded) for servers still starting. */
  private routeWhenListed(exposed: string): Promise<ToolRoute | undefined> {
    const registry = this.context.registry;
    return registry.whenListed(() => registry.resolveTool(exposed), startWaitMs(this.context.config()));
  }
}

function isDecided(step: Step): step is DecidedCall {
  return typeof step === 'object' && 'decision' in step;
}

function argumentsOf(request: CallToolRequest): Record<string, unknown> {
  const args = request.params.arguments ?? {};
  if (!isPlainObject(args)) throw new RpcError(ErrorCode.InvalidParams, 'arguments must be an object');
  return args;
}
