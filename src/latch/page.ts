import type { Decision } from '../policy/types.js';
import { definitionMoved, type DefinitionReport, type DefinitionSeen } from '../pins/check.js';
import { pathNotShown } from './picture.js';
import type { PromptAnswer, PromptInput } from './prompt.js';

/**
 * The approval channel beside elicitation, for clients that cannot show prompts (Claude Desktop,
 * Gemini CLI, Windsurf, Zed): a local web page served by the gateway on 127.0.0.1 that lists the
 * waiting calls with the same payload and the same choices as the prompt. The model cannot reach it:
 * a browser gets in only through a one-time link and then a session cookie, the page checks Host
 * and Origin, and its answers are bound to the call they were shown for.
 *
 * The latch does not care how the page is served; it hands items over and waits for answers.
 */
export interface PageItem {
  /** Which client session the call comes from, as shown to the person ("claude-ai 0.1.0"). */
  session: string;
  input: PromptInput;
  /** The prompt text, already escaped (the same text an elicitation would carry). */
  message: string;
  /** When the client will be answered "pending" if the person has not decided (ms since the epoch). */
  deadline: number;
  /** Calls of the same batch still waiting after this one. */
  more: number;
  /** Set once the client was answered "pending": until when an approval allows one identical retry. */
  retryUntil: number | null;
  /** Why the rules would deny the call with the person's edit (escaped), or null; the page refuses such an edit at once. */
  checkEdit?: (args: Record<string, unknown>) => string | null;
}

export interface ApprovalPage {
  /** The page's address, without any secret in it. */
  readonly url: string;
  /** An address to give the person: for the local page a fresh one-time link (approval-page/link.ts). */
  link(): string;
  /**
   * An address with no credential in it, for a party that must not be handed a session (a URL
   * elicitation: round 18 review, L8): it opens the page in a browser that already holds one.
   */
  plainAddress(): string;
  /**
   * Shows a call on the page until the person answers or `signal` aborts (the item is then
   * withdrawn from the page). Resolves with the answer; never rejects; a withdrawn item resolves
   * `{ type: 'dismissed' }`.
   */
  ask(item: PageItem, signal: AbortSignal): Promise<PromptAnswer>;
  /** The client was answered "pending" for this item: it stays on the page, approvable until `retryUntil`. */
  answeredPending(item: PageItem, retryUntil: number): void;
  close(): Promise<void>;
}

/**
 * Single-use approvals given on the page after the call itself was already answered ("approval
 * pending"): bound to the exact call (server, tool, canonical-arguments digest), valid for a short
 * window, spent by the first identical retry. Nothing the model sends can create or widen one.
 */
export class RetryApprovals {
  private readonly approvals = new Map<string, { expires: number; shown: string[]; definition: DefinitionSeen | null }>();

  /** `shown`: where the call's paths led in the prompt answered (picture.ts); `definition`: the tool's definition it showed (pins/check.ts). */
  grant(digest: string, windowMs: number, shown: string[], definition: DefinitionSeen | null = null, now = Date.now()): void {
    this.approvals.set(digest, { expires: now + windowMs, shown, definition });
  }

  /**
   * Spends the approval for this exact call; false when there is none, it expired, a path of
   * `decision` leads elsewhere than the prompt showed, or the tool (`definition`, as listed now) is
   * not the one the prompt showed (round 18, hostile servers #6): the retry is then asked again.
   */
  take(digest: string, decision: Decision, definition: DefinitionReport | null = null, now = Date.now()): boolean {
    const approval = this.approvals.get(digest);
    if (approval === undefined) return false;
    this.approvals.delete(digest);
    if (approval.definition !== null || definition !== null) {
      if (approval.definition === null || definition === null || definitionMoved(approval.definition, definition) !== null) return false;
    }
    return approval.expires >= now && pathNotShown(approval.shown, decision) === null;
  }
}
