import type { CancelSource } from '../cancellation.js';
import type { Decision } from '../policy/types.js';
import { askFailedDenial, definitionMovedDenial } from './denial.js';
import type { CallEdit } from './edit.js';
import { changedDecision, pathNotShown, pathsPicture } from './picture.js';

/**
 * The latch of one client session (docs/approval.md#the-latch): pause, decide, resume exactly once.
 *
 * With ordering "batch", calls that arrive in the same read from the transport (before the event
 * loop turns) and calls that arrive while an earlier call waits for the human form one batch:
 *
 *   t0  call 1 (allow)  call 2 (ask)      ← same read: one batch
 *   t1  prompt for call 2 shown           ← call 1 has NOT been forwarded
 *   t2  call 3 (ask) arrives              ← joins the batch, prompted after call 2
 *   t3  "Always allow" on call 2          ← written first; call 3 re-checked: allowed if the rule is
 *                                           exact for it (`Bash(git status)`), else asked (a prefix)
 *   t4  batch released: 1, 2, 3 forwarded in arrival order
 *
 * The latch knows nothing of MCP: a call brings its decision, a way to re-check it and a way to
 * ask the human. It resolves each call exactly once: forward, deny (with the text), or cancelled.
 */
export interface LatchAnswer {
  verdict: 'allow' | 'deny';
  /** The denial text when denied (starts with "Denied by mcp-latch:"). */
  text?: string;
  /** Who settled it, for the audit: 'user', 'timeout', 'fallback', 'error'. */
  by: string;
  note?: string;
  /** What the person must know about how their answer was applied (a rule kept only for this session). */
  notice?: string;
  /** The person changed the call before approving it: the gateway decides the edited call again, and runs only that. */
  edit?: CallEdit;
  /**
   * Rules the answer put in force that cover more than the call it was given for (a prefix, a
   * tool; remember.ts broaderRules): the other calls of its batch, which the person did not see,
   * are decided without them and keep their own question (round 15 review A1).
   */
  broader?: string[];
}

export interface LatchCall {
  cancel: CancelSource;
  /** The decision when the call arrived. */
  decision: Decision;
  /** Decides again against the current rules and grants (after another answer or a reload), less the allow rules `withheld`. */
  recheck(withheld?: ReadonlySet<string>): Decision;
  /** Shows the prompt; resolves after any grant or rule of the answer has been saved. Should not throw. */
  ask(decision: Decision, clock: BatchClock): Promise<LatchAnswer>;
  /**
   * Identical calls (same server, tool, canonical arguments) share one key: one prompt serves them,
   * and a "Deny" answers them all; an "Allow once" runs only the call it was given for (round 15
   * review, A6), the others are re-checked (a grant the answer saved may allow them) or asked.
   */
  key?: string;
  /** The denial text for a decision that is `deny` without a prompt. */
  denial(decision: Decision): string;
  /**
   * Taken when the person is asked: what the prompt shows of the tool itself (its definition
   * against its pin). The function it returns is called at release and says why an allow given for
   * that does not hold for the tool as it is now (its server changed it while the prompt was open),
   * or null (docs/approval.md#what-an-approval-covers; round 18, hostile servers #6). Should not throw.
   */
  shownDefinition?(): () => string | null;
}

/**
 * One clock per batch: the whole batch must be answered within what the client allows, so each
 * prompt gets what is left since the batch started waiting, not a fresh limit of its own.
 */
export interface BatchClock {
  /** When the batch started waiting for the person (ms since the epoch). */
  started: number;
  /** Calls of the batch still waiting after this one. */
  more: number;
}

export type LatchOutcome =
  | { type: 'forward'; decision: Decision; answer: LatchAnswer | null }
  | { type: 'deny'; decision: Decision; text: string; answer: LatchAnswer | null }
  | { type: 'cancelled' };

interface Entry {
  call: LatchCall;
  decision: Decision;
  answer: LatchAnswer | null;
  /** Where the call's paths led in the prompt the answer was given to (picture.ts). */
  shown: string[] | null;
  /** Whether the tool is still the one the prompt showed (LatchCall.shownDefinition); null before it is asked. */
  definitionMoved: (() => string | null) | null;
  done: boolean;
  resolve: (outcome: LatchOutcome) => void;
  stopListening: () => void;
}

interface Batch {
  entries: Entry[];
  /** A prompt was answered: decisions made before it may be stale and are re-checked. */
  prompted: boolean;
  /** The batch waits for a person: its calls listen for cancellation (see listen()). */
  waiting: boolean;
  /** When it started waiting: its one clock. */
  started: number;
  /** The broader rules its answers put in force, with the key of the call each was given for (withheldFor()). */
  broader: Array<{ key: string | undefined; rules: readonly string[] }>;
}

export interface SessionLatchOptions {
  ordering: 'batch' | 'none';
  /** Called when a call could not be decided safely (a recheck or ask that threw). */
  onError?: (error: unknown) => void;
}

export class SessionLatch {
  private batch: Batch | null = null;
  /** With ordering "none": prompts still come one at a time, in arrival order. */
  private promptChain: Promise<void> = Promise.resolve();
  /** With ordering "none": prompts still open, by call key, so an identical call waits on the same one. */
  private readonly openPrompts = new Map<string, Promise<LatchAnswer | null>>();

  constructor(private readonly options: SessionLatchOptions) {}

  /** A reload changed `approval.ordering`: calls submitted from now on follow it. */
  setOrdering(ordering: 'batch' | 'none'): void {
    this.options.ordering = ordering;
  }

  /**
   * Hands a call to the latch; resolves exactly once. `alone` says the call was the only call of
   * its read from the transport: nothing else can join its batch before the loop turns, so it need
   * not wait for the turn.
   */
  submit(call: LatchCall, alone = false): Promise<LatchOutcome> {
    return new Promise<LatchOutcome>((resolve) => {
      const entry: Entry = { call, decision: call.decision, answer: null, shown: null, definitionMoved: null, done: false, resolve, stopListening: noop };
      if (call.cancel.cancelled) {
        this.cancel(entry);
        return;
      }
      if (this.options.ordering === 'none') this.submitUnordered(entry);
      else this.submitBatched(entry, alone);
    });
  }

  /**
   * The outcome for an allowed call that has nothing to wait for, without making an entry; null when
   * it must go through submit(). `alone`: no call still to come belongs to its batch (it was the
   * only call of its read, or every call of its read is decided and allowed). With ordering "batch"
   * it must also find no batch open (a person is being asked). The common case, so it costs no
   * promise, listener or closure.
   */
  passNow(decision: Decision, alone: boolean, cancelled: boolean): (LatchOutcome & { type: 'forward' }) | null {
    if (decision.verdict !== 'allow' || cancelled) return null;
    if (this.options.ordering === 'batch' && (this.batch !== null || !alone)) return null;
    return { type: 'forward', decision, answer: null };
  }

  private finish(entry: Entry, outcome: LatchOutcome): void {
    if (entry.done) return;
    entry.done = true;
    entry.stopListening();
    entry.resolve(outcome);
  }

  private cancel(entry: Entry): void {
    this.finish(entry, { type: 'cancelled' });
  }

  /**
   * A call listens for cancellation only once it may wait for a person (a prompt in its batch, or
   * its own ask): a batch of allowed calls is released within the same turn of the event loop,
   * and release() sees a cancellation that came meanwhile.
   */
  private listen(entry: Entry): void {
    if (entry.done || entry.stopListening !== noop) return;
    if (entry.call.cancel.cancelled) {
      this.cancel(entry);
      return;
    }
    entry.stopListening = entry.call.cancel.onCancel(() => this.cancel(entry));
  }

  private submitUnordered(entry: Entry): void {
    if (entry.decision.verdict !== 'ask') {
      this.release(entry, false);
      return;
    }
    this.listen(entry);
    const key = entry.call.key;
    const open = key === undefined ? undefined : this.openPrompts.get(key);
    if (open) {
      void open.then((answer) => {
        if (answer?.verdict !== 'allow') {
          entry.answer = answer;
          this.release(entry, false);
          return;
        }
        // Allowed once for the call shown, not for its copies: a grant the answer saved may allow this one.
        this.refresh(entry);
        this.submitUnordered(entry);
      });
      return;
    }
    const asked = (this.promptChain = this.promptChain.then(async () => {
      await this.settleAsk(entry, { started: Date.now(), more: 0 });
      this.release(entry, false);
    }));
    if (key !== undefined) {
      const answer = asked.then(() => entry.answer);
      this.openPrompts.set(key, answer);
      void answer.finally(() => this.openPrompts.delete(key));
    }
  }

  private submitBatched(entry: Entry, alone: boolean): void {
    if (this.batch) {
      this.batch.entries.push(entry);
      if (this.batch.waiting) this.listen(entry);
      return;
    }
    if (alone && entry.decision.verdict !== 'ask') {
      this.release(entry, false);
      return;
    }
    const batch: Batch = { entries: [entry], prompted: false, waiting: false, started: 0, broader: [] };
    this.batch = batch;
    if (alone) void this.run(batch);
    // Everything in the same read from the transport has been handed over once the loop turns.
    else setImmediate(() => void this.run(batch));
  }

  private async run(batch: Batch): Promise<void> {
    try {
      for (;;) {
        const next = this.nextToAsk(batch);
        if (!next) break;
        if (!batch.waiting) {
          // From here the batch may wait for a person: every call in it listens for cancellation,
          // and one cancelled meanwhile is settled now, so the next pick skips it.
          batch.waiting = true;
          batch.started = Date.now();
          for (const entry of batch.entries) this.listen(entry);
          continue;
        }
        await this.settleAsk(next, { started: batch.started, more: this.waitingAfter(batch, next) });
        batch.prompted = true;
        if (next.answer?.broader?.length) batch.broader.push({ key: next.call.key, rules: next.answer.broader });
        // An identical call waiting in the batch is denied with it; an allow is re-checked below (key).
        if (next.answer?.verdict === 'deny') {
          for (const entry of batch.entries) {
            if (entry !== next && !entry.done && !entry.answer && next.call.key !== undefined && entry.call.key === next.call.key) entry.answer = next.answer;
          }
        }
      }
    } finally {
      if (this.batch === batch) this.batch = null;
      for (const entry of batch.entries) this.release(entry, batch.prompted, this.withheldFor(batch, entry));
    }
  }

  /**
   * The rules a call of the batch is re-checked without: those an answer in the batch put in force
   * that cover more than the call it was given for, unless this call is identical to that one. A
   * call the person never saw is released by a new grant only where the grant is exact for it
   * (`Bash(git status)`, `Edit(/p/a.txt)`); otherwise it keeps its own question (round 15 review A1:
   * "Allow for this session" on `ipython app.py` released `ipython -c CODE` of the same read unseen).
   */
  private withheldFor(batch: Batch, entry: Entry): ReadonlySet<string> | undefined {
    const withheld = batch.broader.filter((grant) => grant.key === undefined || grant.key !== entry.call.key).flatMap((grant) => grant.rules);
    return withheld.length > 0 ? new Set(withheld) : undefined;
  }

  /** The first undecided call, in arrival order, that still needs the human after a re-check. */
  private nextToAsk(batch: Batch): Entry | undefined {
    for (const entry of batch.entries) {
      if (entry.done || entry.answer) continue;
      if (batch.prompted) this.refresh(entry, this.withheldFor(batch, entry));
      if (entry.decision.verdict === 'ask') return entry;
    }
    return undefined;
  }

  /** Calls after `current` that still wait for the person (identical ones too: each is asked for itself). */
  private waitingAfter(batch: Batch, current: Entry): number {
    let count = 0;
    for (const entry of batch.entries.slice(batch.entries.indexOf(current) + 1)) {
      if (!entry.done && !entry.answer && entry.decision.verdict === 'ask') count += 1;
    }
    return count;
  }

  private refresh(entry: Entry, withheld?: ReadonlySet<string>): void {
    try {
      entry.decision = entry.call.recheck(withheld);
    } catch (error) {
      // Fail closed: a decision that cannot be recomputed is not allowed to stand.
      this.options.onError?.(error);
      entry.decision = { ...entry.decision, verdict: 'deny', by: 'error', rule: null, reason: `could not re-check the call: ${String(error)}` };
    }
  }

  private async settleAsk(entry: Entry, clock: BatchClock): Promise<void> {
    if (entry.done) return;
    const shown = entry.decision;
    try {
      entry.shown = pathsPicture(shown);
      entry.definitionMoved = entry.call.shownDefinition?.() ?? null;
      entry.answer = await entry.call.ask(shown, clock);
    } catch (error) {
      this.options.onError?.(error);
      entry.answer = { verdict: 'deny', by: 'error', text: askFailedDenial() };
    }
  }

  /** Why the tool is no longer the one the prompt showed, or null; a check that throws is a change (fail closed). */
  private definitionMoved(entry: Entry): string | null {
    if (!entry.definitionMoved) return null;
    try {
      return entry.definitionMoved();
    } catch (error) {
      this.options.onError?.(error);
      return `the tool's definition could not be compared with the one the person was shown (${String(error)})`;
    }
  }

  private release(entry: Entry, recheck: boolean, withheld?: ReadonlySet<string>): void {
    if (entry.done) return;
    // A call that did not listen (its batch never waited) may have been cancelled meanwhile.
    if (entry.call.cancel.cancelled) {
      this.cancel(entry);
      return;
    }
    if (entry.answer) {
      // A deny rule added while the person was answering beats their "Allow": nothing reaches a
      // server that a rule in force forbids (docs/approval.md#the-latch; round 13 review R1).
      if (entry.answer.verdict === 'allow') this.refresh(entry);
      // A path that leads elsewhere than the prompt showed (a link made while it was open) was not
      // what the person allowed (round 15 review, A5).
      const moved = entry.answer.verdict === 'allow' && entry.decision.verdict !== 'deny' && entry.shown !== null ? pathNotShown(entry.shown, entry.decision) : null;
      if (moved) entry.decision = changedDecision(entry.decision, moved);
      // The tool's server changed its definition while the prompt was open: the person approved the
      // definition shown, not this one (round 18, hostile servers #6). Denied; the next call asks with the change.
      const redefined = entry.answer.verdict === 'allow' && entry.decision.verdict !== 'deny' ? this.definitionMoved(entry) : null;
      if (redefined) entry.decision = { ...entry.decision, verdict: 'deny', by: 'pin', rule: null, reason: redefined };
      if (entry.answer.verdict === 'allow' && entry.decision.verdict === 'deny') this.finish(entry, { type: 'deny', decision: entry.decision, answer: null, text: redefined ? definitionMovedDenial(redefined) : entry.call.denial(entry.decision) });
      else if (entry.answer.verdict === 'allow') this.finish(entry, { type: 'forward', decision: entry.decision, answer: entry.answer });
      else this.finish(entry, { type: 'deny', decision: entry.decision, answer: entry.answer, text: entry.answer.text ?? entry.call.denial(entry.decision) });
      return;
    }
    if (recheck) this.refresh(entry, withheld);
    const decision = entry.decision;
    if (decision.verdict === 'allow') this.finish(entry, { type: 'forward', decision, answer: null });
    else if (decision.verdict === 'deny') this.finish(entry, { type: 'deny', decision, answer: null, text: entry.call.denial(decision) });
    else {
      // Only reachable when ordering is "none" raced a reload, or a batch ended early: never forward an ask.
      this.finish(entry, { type: 'deny', decision, answer: null, text: entry.call.denial({ ...decision, verdict: 'deny', by: 'error', reason: 'approval was needed but not obtained' }) });
    }
  }
}

function noop(): void {}
