import { randomBytes } from 'node:crypto';
import type { PageItem } from '../latch/page.js';
import { choiceLabels, parseChoice, requestPayload, type PromptAnswer } from '../latch/prompt.js';

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
}

/** Why an answer was refused; the HTTP status follows from it. */
export type AnswerRefusal = 'unknown' | 'settled' | 'invalid';

interface Pending {
  item: PageItem;
  view: PublicItem;
  settle: (answer: PromptAnswer) => void;
}

export class PendingItems {
  private readonly pending = new Map<string, Pending>();
  private readonly settled = new Set<string>();

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

  get size(): number {
    return this.pending.size;
  }

  /**
   * Applies an answer from the page. `body` is the parsed JSON the page posted:
   * `{ id, decision, note? }` or `{ id, action: 'decline' }`. Refused answers have no effect.
   */
  answer(body: unknown): AnswerRefusal | null {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'invalid';
    const { id, decision, action, note } = body as Record<string, unknown>;
    if (typeof id !== 'string') return 'invalid';
    const entry = this.pending.get(id);
    if (!entry) return this.settled.has(id) ? 'settled' : 'unknown';
    if (note !== undefined && (typeof note !== 'string' || note.length > MAX_NOTE)) return 'invalid';
    if (action === 'decline' && decision === undefined) {
      this.settle(id, { type: 'declined' });
      return null;
    }
    if (action !== undefined) return 'invalid';
    // Security: only a label this item offered is accepted, mapped back by the latch's own parser.
    const choice = parseChoice(decision, entry.item.input);
    if (!choice) return 'invalid';
    this.settle(id, { type: 'choice', choice, note: typeof note === 'string' && note.trim() !== '' ? note : undefined });
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

  private settle(id: string, answer: PromptAnswer): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    this.settled.add(id);
    if (this.settled.size > REMEMBERED_SETTLED) {
      const oldest = this.settled.values().next().value;
      if (oldest !== undefined) this.settled.delete(oldest);
    }
    entry.settle(answer);
    this.onChange();
  }
}

function publicItem(id: string, item: PageItem): PublicItem {
  const { input } = item;
  const args = safeJson(input.args);
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
    created: new Date().toISOString(),
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value ?? {}) ?? '{}';
  } catch {
    return '"(arguments could not be shown)"';
  }
}
