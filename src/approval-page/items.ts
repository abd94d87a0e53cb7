import { randomBytes } from '../node-crypto.js';
import type { PageItem } from '../latch/page.js';
import { argumentsText, choiceLabels, parseChoice, requestPayload, riskOf, type PromptAnswer } from '../latch/prompt.js';
import { readEdit, type EditableField } from '../latch/edit.js';
import { SettledIds } from '../latch/settled-ids.js';
import type { FileChange } from '../latch/file-change.js';
import type { Risk } from '../latch/risk.js';
import { isPlainObject } from '../values.js';

/**
 * The calls waiting on the approval page. Each item gets a random id (so an answer names the call
 * it was shown for and nothing else) and is settled at most once: by an answer from the page, or
 * withdrawn when the call no longer waits. A settled id is remembered for a while so a second answer
 * gets "already answered" rather than "unknown".
 *
 *   add(item) → id ──answer(id, {decision: "Allow once"})──▶ { type: 'choice', choice: { type: 'once' } }
 *              └──withdraw(id)──────────────────────────────▶ { type: 'dismissed' }
 */
const MAX_ARGS_TEXT = 4000;
const MAX_NOTE = 2000;
const REMEMBERED_SETTLED = 1000;
/** Decisions listed under "Recently decided". */
const RECENT_SHOWN = 8;

/** What the page receives for one waiting call. Strings are raw: the page escapes them for display. */
export interface PublicItem {
  id: string;
  session: string;
  server: string;
  tool: string;
  kind: string;
  /** The prompt text, already escaped by the latch (as an elicitation would carry it). */
  message: string;
  /** The structured payload of docs/approval.md (`mcp-latch/request`). */
  request: Record<string, unknown>;
  /** Every path as decided, with where it came from and any problem. */
  paths: Array<{ path: string; realPath: string | null; access: string; inWorkspace: boolean; via: string; problem: string | null }>;
  /** The call's arguments as JSON, cut at a bound; `argsMore` counts what was cut. */
  args: string;
  argsMore: number;
  /** The exact choices, as `choiceLabels` gives them. */
  choices: string[];
  created: string;
  /** How much could go wrong, shown first. */
  risk: Risk;
  /** What a write will change (its diff is raw text: the page escapes each line). */
  change: FileChange | null;
  /** When the client is answered "pending" if nobody decides (ISO time). */
  deadline: string;
  /** Calls of the same batch still waiting after this one. */
  more: number;
  /** Set once the client was answered "pending": until when approving allows one identical retry (ISO time). */
  retryUntil: string | null;
  /** The arguments the person may change before approving, with their values (raw); none once the client was answered. */
  editable: EditableField[];
}

/** One line of "Recently decided". */
export interface RecentDecision {
  session: string;
  server: string;
  tool: string;
  /** The choice's label ("Allow once", "Deny"), "Declined", or why it left the page unanswered. */
  outcome: string;
  /** 'person' when answered on this page; 'gone' when the call stopped waiting (cancelled, expired). */
  by: 'person' | 'gone';
  at: string;
}

/** Why an answer was refused; the HTTP status follows from it. */
export type AnswerRefusal = 'unknown' | 'settled' | 'invalid' | 'edit' | { editDenied: string };

interface Pending {
  item: PageItem;
  view: PublicItem;
  settle: (answer: PromptAnswer) => void;
}

export class PendingItems {
  private readonly pending = new Map<string, Pending>();
  private readonly settled = new SettledIds(REMEMBERED_SETTLED);
  private readonly recentList: RecentDecision[] = [];

  constructor(private readonly onChange: () => void) {}

  /** Shows an item until it is answered or withdrawn; `settle` is called exactly once. */
  add(item: PageItem, settle: (answer: PromptAnswer) => void): string {
    const id = randomBytes(18).toString('base64url');
    this.pending.set(id, { item, view: publicItem(id, item), settle });
    this.onChange();
    return id;
  }

  list(): PublicItem[] {
    return [...this.pending.values()].map((entry) => entry.view);
  }

  /** The last decisions, newest first. */
  recent(): RecentDecision[] {
    return [...this.recentList];
  }

  /** The client was answered "pending" for this item: it stays, approvable until `retryUntil`. */
  answeredPending(item: PageItem, retryUntil: number): void {
    for (const [id, entry] of this.pending) {
      if (entry.item !== item) continue;
      item.retryUntil = retryUntil;
      entry.view = publicItem(id, item, entry.view.created);
      this.onChange();
      return;
    }
  }

  get size(): number {
    return this.pending.size;
  }

  /**
   * Applies an answer from the page. `body` is the parsed JSON the page posted:
   * `{ id, decision, note? }` or `{ id, action: 'decline' }`. Refused answers have no effect.
   */
  answer(body: unknown): AnswerRefusal | null {
    if (!isPlainObject(body)) return 'invalid';
    const { id, decision, action, note, edit } = body as Record<string, unknown>;
    if (typeof id !== 'string') return 'invalid';
    const entry = this.pending.get(id);
    if (!entry) return this.settled.has(id) ? 'settled' : 'unknown';
    if (note !== undefined && (typeof note !== 'string' || note.length > MAX_NOTE)) return 'invalid';
    if (action === 'decline' && decision === undefined && edit === undefined) {
      this.settle(id, { type: 'declined' }, 'Declined');
      return null;
    }
    if (action !== undefined) return 'invalid';
    // Security: only a label this item offered is accepted, mapped back by the latch's own parser.
    const choice = parseChoice(decision, entry.item.input);
    if (!choice) return 'invalid';
    // Security: only the fields this item offers, and only while its call still waits.
    const edited = readEdit(edit, entry.view.editable, entry.item.input.args as Record<string, unknown>);
    if (edited === 'invalid') return 'edit';
    // The person learns at once when their rules deny the changed call; the gateway decides it again anyway when it runs.
    const denied = edited && choice.type !== 'deny' ? entry.item.checkEdit?.(edited.args) : null;
    if (denied) return { editDenied: denied };
    const answer: PromptAnswer = { type: 'choice', choice, note: typeof note === 'string' && note.trim() !== '' ? note : undefined, ...(edited && choice.type !== 'deny' ? { edit: edited } : {}) };
    this.settle(id, answer, edited && choice.type !== 'deny' ? `${decision as string} (edited)` : (decision as string));
    return null;
  }

  /** The call no longer waits: take it off the page. */
  withdraw(id: string): void {
    if (this.pending.has(id)) this.settle(id, { type: 'dismissed' });
  }

  /** Withdraws everything (the page is closing). */
  withdrawAll(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, { type: 'dismissed' });
  }

  private settle(id: string, answer: PromptAnswer, outcome?: string): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    const { view } = entry;
    const gone = view.retryUntil !== null && Date.parse(view.retryUntil) <= Date.now() ? 'the retry window ended' : 'the call stopped waiting';
    this.recentList.unshift({ session: view.session, server: view.server, tool: view.tool, outcome: outcome ?? gone, by: outcome ? 'person' : 'gone', at: new Date().toISOString() });
    this.recentList.splice(RECENT_SHOWN);
    this.settled.add(id);
    entry.settle(answer);
    this.onChange();
  }
}

function publicItem(id: string, item: PageItem, created = new Date().toISOString()): PublicItem {
  const { input } = item;
  const args = argumentsText(input.args);
  return {
    id,
    session: item.session,
    server: input.server,
    tool: input.tool,
    kind: input.kind,
    message: item.message,
    request: requestPayload(input),
    paths: input.decision.paths.map((path) => ({
      path: path.path,
      realPath: path.realPath,
      access: path.access,
      inWorkspace: path.inWorkspace,
      via: path.via,
      problem: path.problem ?? null,
    })),
    args: args.slice(0, MAX_ARGS_TEXT),
    argsMore: Math.max(0, args.length - MAX_ARGS_TEXT),
    choices: choiceLabels(input),
    created,
    risk: riskOf(input),
    change: input.change ?? null,
    deadline: new Date(item.deadline).toISOString(),
    more: item.more,
    retryUntil: item.retryUntil === null ? null : new Date(item.retryUntil).toISOString(),
    editable: item.retryUntil === null ? (input.editable ?? []) : [],
  };
}
