import type { Decision } from '../policy/types.js';
import { definitionDigest, diffDefinitions, type Definition, type DefinitionChange, type Pin, type PinKind } from './definition.js';
import type { Finding } from './scan.js';

/**
 * Where a listed tool stands against the lock file, and what that does to a call's decision:
 *
 *   new      no pin yet: the policy decides as usual; the first allowed call pins it
 *   pinned   listed exactly as pinned: nothing changes
 *   changed  listed differently from its pin: `ask`, even under an allow rule (a deny stays a deny)
 *   unknown  the lock file cannot be read: `ask` instead of `allow` (fail closed)
 *
 * and, for a description the scanner flagged, `policy.toolDescriptions`: `warn` shows the findings
 * with the call, `hide` drops the tool from the list and `deny` keeps it listed; both deny calls.
 */
export type DescriptionPolicy = 'warn' | 'hide' | 'deny';

export type PinState =
  /** `added`: its server added the tool after its first listing in this gateway's run, and has pins (docs/pins.md, "A tool added later"). */
  | { state: 'new'; added?: true }
  | { state: 'pinned'; pinnedAt: string }
  | { state: 'changed'; pinnedAt: string; changes: DefinitionChange[] }
  | { state: 'unknown'; problem: string };

/** What the gateway knows about one listed tool (or prompt, or template) beyond its name. */
export interface DefinitionReport {
  kind: PinKind;
  server: string;
  /** The server's own name for it. */
  name: string;
  /** The name the client sees (`server__tool`), what `mcp-latch tools --accept` takes. */
  exposed: string;
  definition: Definition;
  digest: string;
  pin: PinState;
  /** While `pin` is `changed`: the definition pinned, which is what clients are listed (core.ts toolsList). */
  pinned?: Definition;
  findings: Finding[];
}

export function pinState(pin: Pin | undefined, definition: Definition, digest: string, unreadable: string | null, added = false): PinState {
  if (unreadable !== null) return { state: 'unknown', problem: unreadable };
  if (!pin) return added ? { state: 'new', added: true } : { state: 'new' };
  if (pin.digest === digest) return { state: 'pinned', pinnedAt: pin.pinnedAt };
  return { state: 'changed', pinnedAt: pin.pinnedAt, changes: diffDefinitions(pin.definition, definition) };
}

/** The decision for a call to a tool in the state `report` describes; the policy's decision otherwise unchanged. */
export function checkDefinition(decision: Decision, report: DefinitionReport, policy: DescriptionPolicy): Decision {
  if (report.findings.length > 0 && policy !== 'warn') {
    if (decision.verdict === 'deny') return decision;
    const codes = [...new Set(report.findings.map((finding) => finding.code))].join(', ');
    return { ...decision, verdict: 'deny', by: 'pin', rule: null, reason: `its description was flagged (${codes}) and policy.toolDescriptions is "${policy}"` };
  }
  const pin = report.pin;
  // A tool its server added after its first listing is a rename or a slipped-in tool until a person accepts it: no rule answers that.
  if (pin.state === 'new' && pin.added && decision.verdict !== 'deny') {
    const otherwise = decision.verdict === 'ask' ? `; also: ${decision.reason}` : '';
    return { ...decision, verdict: 'ask', by: 'pin', rule: decision.verdict === 'ask' ? decision.rule : null, reason: `the server added this tool after its first listing, and it is not listed until accepted${otherwise}` };
  }
  if (pin.state === 'changed' && decision.verdict !== 'deny') {
    const what = [...new Set(pin.changes.map((change) => change.path.split('.')[0]))].join(', ');
    const otherwise = decision.verdict === 'ask' ? `; also: ${decision.reason}` : '';
    return { ...decision, verdict: 'ask', by: 'pin', rule: decision.verdict === 'ask' ? decision.rule : null, reason: `the tool's definition changed since it was pinned (${what})${otherwise}` };
  }
  if (pin.state === 'unknown' && decision.verdict === 'allow') {
    return { ...decision, verdict: 'ask', by: 'pin', rule: null, reason: `the lock file cannot be read, so the tool's definition cannot be checked (${pin.problem})` };
  }
  return decision;
}

/**
 * What a person was shown of a tool's definition, compact enough to travel in an approval (a page
 * approval kept for the retry, a 2026-07-28 request state): its digest, its pin state, and the
 * digest of the pin it was shown changed against.
 */
export interface DefinitionSeen {
  digest: string;
  pin: PinState['state'];
  pinned: string | null;
}

export function definitionSeen(report: DefinitionReport): DefinitionSeen {
  return { digest: report.digest, pin: report.pin.state, pinned: report.pinned ? definitionDigest(report.pinned) : null };
}

/** `value` read back from a state the client returned: a DefinitionSeen, or null when it is not one. */
export function definitionSeenOf(value: unknown): DefinitionSeen | null {
  if (typeof value !== 'object' || value === null) return null;
  const { digest, pin, pinned } = value as Record<string, unknown>;
  if (typeof digest !== 'string' || !['new', 'pinned', 'changed', 'unknown'].includes(pin as string) || !(typeof pinned === 'string' || pinned === null)) return null;
  return { digest, pin: pin as PinState['state'], pinned };
}

/**
 * Why an answer the person gave for the tool as `shown` does not hold for it as it is `now`, or
 * null when it does (docs/approval.md#what-an-approval-covers): its server listed another
 * definition while the prompt was open (list_changed), or its pin changed under it other than to
 * exactly what was shown (another gateway pinned another definition, or `tools --accept` did).
 * The approval of definition A never runs the call on definition B (round 18, hostile servers #6).
 * `when`: when the change came, for the reason.
 */
export function definitionMoved(shown: DefinitionReport | DefinitionSeen, now: DefinitionReport, when = 'while the person was being asked'): string | null {
  const seen = 'exposed' in shown ? definitionSeen(shown) : shown;
  if (now.digest !== seen.digest) {
    const what = 'exposed' in shown ? [...new Set(diffDefinitions(shown.definition, now.definition).map((change) => change.path.split('.')[0]))].join(', ') : '';
    return `the server changed the definition of ${now.exposed} ${when} (${what || `${seen.digest} then, ${now.digest} now`}), so their answer, given for the definition shown, does not hold for it`;
  }
  // Pinned now exactly as listed and shown ("Accept the new definition" of this answer, or a first use).
  if (now.pin.state === 'pinned') return null;
  const samePin = seen.pin === now.pin.state && (seen.pin !== 'changed' || (seen.pinned !== null && now.pinned !== undefined && seen.pinned === definitionDigest(now.pinned)));
  if (samePin) return null;
  return `the pin of ${now.exposed} changed ${when} (${seen.pin} when asked, ${now.pin.state} now), so their answer, given for the pin state shown, does not hold for it`;
}
