import { changedReason, pathNotShown, pathsPicture, pictureOf } from '../latch/picture.js';
import { definitionMoved, definitionSeen, definitionSeenOf, type DefinitionReport, type DefinitionSeen } from '../pins/check.js';
import type { Decision } from '../policy/types.js';

/**
 * What a call was let through as: where its paths led (latch/picture.ts) and the tool's definition
 * (pins/check.ts). An answer holds for the call only as it was then. Each time the call goes to its
 * server again after it was let through — a 2026-07-28 client's retry after the gateway's prompt or
 * after its server's own question, a handshake-era client's answers to that question sent back —
 * both are compared with the call as it is now, as the latch's release re-check does (round 15
 * review A5; round 18 hostile servers #6, 6d0de5a, 128f914; round 19 review of the 2026-07-28 path,
 * F2: an approval carried across a server's question wrote through a link made between the rounds).
 * docs/approval.md#what-an-approval-covers.
 */
export interface LetThrough {
  shown: string[];
  definition: DefinitionSeen | null;
}

export function letThrough(decision: Decision, definition: DefinitionReport | null): LetThrough {
  return { shown: pathsPicture(decision), definition: definition ? definitionSeen(definition) : null };
}

/**
 * Why the call as decided `now` (its tool's definition now `definition`) is not the call let
 * through as `then`, or null. `then` may come back from a client's state: what it does not hold
 * counts as changed (fail closed). `when` says when the change happened, for the reason's text.
 */
export function notAsLetThrough(then: { shown?: unknown; definition?: unknown }, now: Decision, definition: DefinitionReport | null, when?: string): string | null {
  return pathsMoved(pictureOf(then.shown) ?? [], now, when) ?? definitionChange(then.definition, definition, when);
}

/** Why a path of the call as decided `now` leads elsewhere than in the picture `shown` it was let through with, or null. */
export function pathsMoved(shown: readonly string[], now: Decision, when?: string): string | null {
  const moved = pathNotShown(shown, now);
  return moved ? changedReason(moved, when) : null;
}

/**
 * Why the answer given for the definition `value` (the report itself, whose change the reason then
 * names, or a DefinitionSeen from a state, or null) does not hold for the tool as listed now
 * (`now`), or null. Not known then or now is a change (fail closed).
 */
export function definitionChange(value: unknown, now: DefinitionReport | null, when = 'since the person was asked'): string | null {
  const seen = isReport(value) ? value : definitionSeenOf(value);
  if (now === null) return "the tool's definition could not be worked out now";
  if (seen === null) return `it is not known which definition of ${now.exposed} the call was let through for`;
  return definitionMoved(seen, now, when);
}

function isReport(value: unknown): value is DefinitionReport {
  return typeof value === 'object' && value !== null && 'exposed' in value && 'definition' in value;
}
