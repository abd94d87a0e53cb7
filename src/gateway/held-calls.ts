import { randomBytes } from '../node-crypto.js';
import { ErrorCode, type CallToolResult, type ClientCapabilities, type ElicitRequestParams, type ElicitResult, type ListRootsResult } from '@modelcontextprotocol/sdk/types.js';
import { RpcError } from '../errors.js';
import { canShowForm } from './era-2026.js';

/**
 * A 2025-era server's `elicitation/create` or `roots/list` during the call of a 2026-07-28 client,
 * which the gateway may not send a request ("hold and translate", input-required.ts): the downstream
 * call stays open with the request unanswered, the client gets it as `input_required`, and its retry
 * hands the answer to the waiting request. A question whose retry never comes is answered `cancel`
 * when it expires, and the server decides what that means; a roots request is refused with an error
 * (a roots answer has no "nobody answered").
 */
export type HeldQuestion =
  | {
      /** The server's question as the client is shown it (relay.ts: its name first, escaped). */
      params: ElicitRequestParams;
      answer(result: ElicitResult): void;
      roots?: undefined;
    }
  | {
      /** A roots/list: the answer goes on only as the gateway read and noted it (input-required.ts resumeHeld). */
      roots: true;
      answer(result: ListRootsResult): void;
      refuse(why: string): void;
    };

/** Answers a held request nobody answered: a question `cancel`, a roots request an error saying why. */
export function unanswered(question: HeldQuestion, why: string): void {
  if (question.roots) question.refuse(why);
  else question.answer({ action: 'cancel' });
}

/** What a held call does next: asks (again), ends with its result, or fails. */
type HeldEvent = { question: HeldQuestion } | { result: CallToolResult } | { error: unknown };

/** One forwarded call whose server may ask mid-call: its questions and its end, in order. */
export class HeldCall {
  private readonly events: HeldEvent[] = [];
  private wake: (() => void) | null = null;
  /** The questions put to the client so far, one a round (MAX_SERVER_QUESTIONS over the call; input-required.ts nextHeldRound). */
  asked = 0;
  /** The client was told the call ended: whatever the server asks from now on is answered `cancel` at once. */
  private ended = false;

  /**
   * `client`: what the 2026-07-28 client's envelope declares (a URL-mode question goes only to one
   * declaring it, roots only to one declaring roots). `released`: where the call's paths led when it
   * was let through (latch/picture.ts; made only if asked, when its server asks for roots) and
   * whether the person approved it, for the roots its retry brings (input-required.ts resumeHeld).
   */
  constructor(
    private readonly client: ClientCapabilities,
    readonly released: { shown: () => readonly string[]; approved: boolean } = { shown: () => [], approved: false },
  ) {}

  /** The relay's hook for the server's elicitation: it waits for the client's answer (or a cancel). */
  readonly ask = (params: ElicitRequestParams, signal?: AbortSignal): Promise<ElicitResult> =>
    new Promise<ElicitResult>((resolve, reject) => {
      // Refused as the SDK refuses it to a handshake-era client (2026-07-28 client/elicitation: "Servers MUST NOT send elicitation requests with modes that are not supported by the client").
      if (params.mode === 'url' && !(this.client.elicitation as Record<string, unknown> | undefined)?.url) {
        reject(new RpcError(ErrorCode.InvalidRequest, 'mcp-latch cannot relay this request: the client of this call does not support URL-mode elicitation'));
        return;
      }
      // A call held for its roots alone (its client shows no forms).
      if (params.mode !== 'url' && !canShowForm(this.client)) {
        reject(new RpcError(ErrorCode.InvalidRequest, 'mcp-latch cannot relay this request: the client of this call does not support elicitation'));
        return;
      }
      if (this.ended) {
        resolve({ action: 'cancel' });
        return;
      }
      // The server gave up on its question (its own timeout, or the call ended): nothing waits for it.
      signal?.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true });
      this.push({ question: { params, answer: resolve } });
    });

  /**
   * The relay's hook for the server's roots/list: it waits for the roots the client's retry brings,
   * of a client whose envelope declares roots (2026-07-28 client/roots); else refused, as relay.ts
   * refuses it to a handshake-era client that did not declare roots.
   */
  readonly roots = (signal?: AbortSignal): Promise<ListRootsResult> =>
    new Promise<ListRootsResult>((resolve, reject) => {
      const refuse = (why: string) => reject(new RpcError(ErrorCode.InvalidRequest, `mcp-latch cannot relay this request: ${why}`));
      if (!this.client.roots) return refuse('the client of this call does not support roots');
      if (this.ended) return refuse('the client\'s call it was asked for has ended');
      signal?.addEventListener('abort', () => refuse('the server gave up on it'), { once: true });
      this.push({ question: { roots: true, answer: resolve, refuse } });
    });

  /** The client's call ends here: every question waiting and to come is answered `cancel` (a roots request refused); the server's result is not awaited. */
  end(): void {
    this.ended = true;
    for (const event of this.events.splice(0)) if ('question' in event) unanswered(event.question, "the client's call it was asked for has ended");
  }

  /** The call's end, once it comes. */
  settle(result: Promise<CallToolResult>): void {
    result.then(
      (value) => this.push({ result: value }),
      (error: unknown) => this.push({ error }),
    );
  }

  async next(): Promise<HeldEvent> {
    while (this.events.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.events.shift()!;
  }

  private push(event: HeldEvent): void {
    this.events.push(event);
    this.wake?.();
    this.wake = null;
  }
}

/** The questions of one session's calls waiting for a retry, by an id the client's requestState names. */
export class HeldCalls {
  private readonly waiting = new Map<string, { call: HeldCall; question: HeldQuestion; timer: NodeJS.Timeout }>();

  /** Holds `question` until its retry takes it; answered `cancel` after `ttlMs`. */
  hold(call: HeldCall, question: HeldQuestion, ttlMs: number): string {
    const id = randomBytes(16).toString('base64url');
    const timer = setTimeout(() => {
      this.waiting.delete(id);
      unanswered(question, 'the client did not answer it in time (approval.timeoutSeconds)');
    }, ttlMs);
    timer.unref();
    this.waiting.set(id, { call, question, timer });
    return id;
  }

  /** The held question, once: a second retry naming it finds nothing. */
  take(id: string): { call: HeldCall; question: HeldQuestion } | null {
    const held = this.waiting.get(id);
    if (!held) return null;
    this.waiting.delete(id);
    clearTimeout(held.timer);
    return { call: held.call, question: held.question };
  }

  /** The session ended: every held question is answered `cancel`. */
  cancelAll(): void {
    for (const id of [...this.waiting.keys()]) {
      const held = this.take(id);
      if (held) unanswered(held.question, "the client's session ended");
    }
  }
}
