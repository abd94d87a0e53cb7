/**
 * The gateway's own answers in a server's place (the answer was too big, or none could be read) are
 * told from a server's by identity, not by shape: a server's error whose data was `{mcpLatch:
 * "unanswered", text}` was shown as the gateway's own sentence, without the server's mark (round 25
 * review R3). In process the data object is one `ownAnswer` made (a remote stream's text carries a
 * nonce instead: remote-bounds.ts). A module of its own, without imports: child-transport.ts, in
 * boot.cjs, makes them, and what else remote-bounds.ts loads (zod and the SDK's types through
 * invalid-answer.ts, node:crypto) was ~195 KB more of boot.cjs and ~19 ms more CPU before the first
 * spawn (docs/performance.md, "Round 25: ten servers").
 */

/** What the gateway answered in a server's place: the answer was too big, or none could be read. */
export interface GatewayAnswer {
  mcpLatch: 'too-large' | 'unanswered';
  /** Why, for the call's text. */
  text: string;
}

const OWN_ANSWERS = new WeakSet<object>();

export function ownAnswer(mcpLatch: GatewayAnswer['mcpLatch'], text: string): GatewayAnswer {
  const data: GatewayAnswer = { mcpLatch, text };
  OWN_ANSWERS.add(data);
  return data;
}

/** The `data` of an error the gateway answered in a server's place (ownAnswer), or null. */
export function gatewayAnswer(data: unknown): GatewayAnswer | null {
  return typeof data === 'object' && data !== null && OWN_ANSWERS.has(data) ? (data as GatewayAnswer) : null;
}
