import { randomBytes } from '../node-crypto.js';
import type { ApprovalPage, PageItem } from '../latch/page.js';
import { readEdit } from '../latch/edit.js';
import { choiceLabels, parseChoice, requestPayload, type PromptAnswer } from '../latch/prompt.js';
import type { InteractionAnswer, PendingCall, TeamStore } from './store.js';
import type { WaitingBudget } from './waiting-budget.js';
import { isPlainObject } from '../values.js';

/**
 * Where a team session's call waits when its client cannot show a prompt: the team store, where
 * its user sees it through the interactions API (or the page that uses it) from any replica. It
 * plays the part of the local approval page for the latch (latch/page.ts), so waiting, answering
 * "pending" and the retry window work as they do on one machine.
 */
export class WaitingRoom implements ApprovalPage {
  private readonly ids = new WeakMap<PageItem, string>();
  /** The calls held now, so that closing the room (its session ended) withdraws every one. */
  private readonly held = new Set<AbortController>();
  /** The items held now, each with the bytes it keeps of its user's waiting budget once answered "pending" (answeredPending). */
  private readonly holding = new Map<PageItem, { kept: number | null }>();
  private closed = false;

  constructor(
    private readonly store: TeamStore,
    private readonly owner: { user: string; session: string },
    readonly url: string,
    /** The user's waiting calls on this replica (waiting-budget.ts), which a call kept for its retry window still counts in. */
    private readonly budget?: WaitingBudget,
  ) {}

  /** The interactions API needs the user's own token, so its address holds no secret. */
  link(): string {
    return this.url;
  }

  plainAddress(): string {
    return this.url;
  }

  async ask(item: PageItem, signal: AbortSignal): Promise<PromptAnswer> {
    const id = randomBytes(18).toString('base64url');
    this.ids.set(item, id);
    const { input } = item;
    const call: PendingCall = {
      id,
      user: this.owner.user,
      session: this.owner.session,
      client: item.session,
      replica: this.store.replica,
      server: input.server,
      tool: input.tool,
      kind: input.kind,
      message: item.message,
      request: requestPayload(input),
      args: isPlainObject(input.args) ? input.args : {},
      choices: choiceLabels(input),
      editable: input.editable ?? [],
      created: new Date().toISOString(),
      deadline: new Date(item.deadline).toISOString(),
      retryUntil: null,
    };
    if (this.closed) return { type: 'dismissed' };
    const hold = new AbortController();
    const withdraw = () => hold.abort();
    signal.addEventListener('abort', withdraw, { once: true });
    if (signal.aborted) hold.abort();
    this.held.add(hold);
    const holding = { kept: null as number | null };
    this.holding.set(item, holding);
    let answer: InteractionAnswer | null;
    try {
      answer = await this.store.hold(call, hold.signal);
    } catch {
      // The store failed (Redis gone): nobody can answer, so the call is not run.
      return { type: 'dismissed' };
    } finally {
      this.held.delete(hold);
      this.holding.delete(item);
      if (holding.kept !== null) this.budget?.release(holding.kept);
      signal.removeEventListener('abort', withdraw);
    }
    return answerOf(answer, item);
  }

  answeredPending(item: PageItem, retryUntil: number): void {
    item.retryUntil = retryUntil;
    // Security: the store keeps the call, its arguments included, until its retry window ends: it stays
    // one of the user's waiting calls, or a client answered "pending" every timeoutSeconds piles up
    // retryWindow/timeout times http.maxWaitingCallsPerUser of them (round 31 review, T31-1).
    const holding = this.holding.get(item);
    if (holding && holding.kept === null && this.budget) {
      holding.kept = Buffer.byteLength(JSON.stringify(item.input.args ?? {}));
      this.budget.keep(holding.kept);
    }
    const id = this.ids.get(item);
    if (id) void this.store.update(id, { retryUntil: new Date(retryUntil).toISOString() }).catch(() => undefined);
  }

  /**
   * The session ended: every call still held is withdrawn, including those whose client was already
   * answered "pending" (an approval would find no session to retry in).
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const hold of this.held) hold.abort();
  }
}

/** The latch's reading of an answer; the API checked `decision` against the call's choices before it was stored. */
function answerOf(answer: InteractionAnswer | null, item: PageItem): PromptAnswer {
  if (answer === null) return { type: 'dismissed' };
  if (answer.decision === 'decline') return { type: 'declined' };
  const choice = parseChoice(answer.decision, item.input);
  if (!choice) return { type: 'invalid' };
  // Checked again here, where the call is held: only offered fields, and none once the client was answered.
  const edit = readEdit(answer.edit, item.retryUntil === null ? (item.input.editable ?? []) : [], isPlainObject(item.input.args) ? item.input.args : {});
  if (edit === 'invalid') return { type: 'invalid' };
  return { type: 'choice', choice, note: answer.note?.trim() ? answer.note : undefined, ...(edit && choice.type !== 'deny' ? { edit } : {}) };
}

