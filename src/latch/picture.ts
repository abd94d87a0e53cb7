import { createHash } from '../node-crypto.js';
import type { Decision, PathReport } from '../policy/types.js';

/**
 * Where a call's paths led when the person was shown it, against where they lead when it is
 * released (docs/approval.md#what-an-approval-covers). A link made while the prompt was open sends
 * an approved write elsewhere: the re-check before the forward sees it (round 15 review, A5), and
 * an answer given for one picture must not run the call in another.
 */
export function pathsPicture(decision: Decision): string[] {
  return decision.paths.map(pictureLine);
}

/** The first path of `now` that the person was not shown as it is now; null when every path leads where it did. */
export function pathNotShown(shown: readonly string[], now: Decision): PathReport | null {
  if (now.paths.length === 0) return null;
  const seen = new Set(shown);
  return now.paths.find((path) => !seen.has(pictureLine(path))) ?? null;
}

/** Why an answer does not hold for the call now: the path it names leads elsewhere than the prompt showed. */
export function changedReason(path: PathReport, when = 'while the person was asked'): string {
  const where = path.realPath === null ? 'cannot be resolved now' : `now leads to ${path.realPath}${path.inWorkspace ? '' : ' (outside the workspace)'}`;
  return `${path.path ?? path.input} changed ${when}: it ${where}, which the prompt did not show`;
}

/** The decision that denies a call whose paths changed since the person was asked; its reason names the path. */
export function changedDecision(now: Decision, path: PathReport): Decision {
  return { ...now, verdict: 'deny', by: 'error', rule: null, reason: `${changedReason(path)}; ask again to see the call as it is now` };
}

/** `value` read back from a state the client returned: a picture, or null when it is not one. */
export function pictureOf(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((line) => typeof line === 'string') ? (value as string[]) : null;
}

/**
 * One path as the person was shown it, as a digest: the picture travels in a 2026-07-28 prompt's
 * requestState, which holds at most MAX_REQUEST_STATE_CHARS (request-state.ts); the lines
 * themselves (two absolute paths each) made a call showing ~400 paths one that could never be
 * approved (round 19 review of the 2026-07-28 path, F7). 128 bits of SHA-256: only equality is asked.
 */
function pictureLine(path: PathReport): string {
  return createHash('sha256').update(`${path.access}\0${path.path}\0${path.realPath}\0${path.inWorkspace}\0${path.problem ?? ''}`).digest('base64url').slice(0, 22);
}
