/** `limits.messageMB` when the file does not set it; here, free of zod, for the early read of the file (early.ts). */
export const DEFAULT_MESSAGE_MB = 10;
/** The largest `limits.messageMB` accepted. */
export const MAX_MESSAGE_MB = 1024;
/**
 * The most `sampling/createMessage` requests of one server open at once (relayed to the client and
 * not yet answered); more are refused with an error naming this limit (docs/config.md, "limits"):
 * a server had 500 open at once, each a model call the client pays for or a person is asked about.
 */
export const MAX_OPEN_SAMPLING = 8;
/**
 * The most `roots/list` requests of one server open at once (relayed to the client, or held for a
 * 2026-07-28 client's retry, and not yet answered); more are refused with an error naming this limit (docs/config.md, "limits"): a server
 * sending 200,000 took the gateway to 1.7 GB, each held for its 30 s (round 21 review, review-diff21 R5).
 */
export const MAX_OPEN_ROOTS = 8;
/**
 * The most resources one client session is subscribed to at once (`resources/subscribe`, and those
 * a 2026-07-28 `subscriptions/listen` names); more are refused with an error naming this limit
 * (docs/config.md, "limits"). Each is kept for the session, and every `notifications/resources/updated`
 * of a server is matched against all of its subscriptions: a team member subscribing to 50,000 URIs of a
 * template grew the gateway 33 MB and made each update of that server cost 50,000 comparisons (round 29
 * review, P29-2).
 */
export const MAX_SESSION_SUBSCRIPTIONS = 1_000;

/**
 * "Allow for this session" grants one team session keeps at most (team/session-grants.ts): each is in
 * the team store and the session's copy, read whole again at each change (round 31 review, T31-7:
 * unbounded). Past it, the answer allows its call and keeps nothing; the next such call asks.
 */
export const MAX_SESSION_GRANTS = 1_000;

/**
 * The most questions of one server before the person at once, in either era (docs/config.md,
 * "limits"); more are refused with an error naming this limit:
 * - a 2025 server's `elicitation/create` waiting in one client session (relay.ts; round 13 review
 *   R15: 2,000 at once were all put before the person), also while held for a 2026-07-28 client;
 * - the input requests of one `input_required` of a 2026-07-28 server, and those asked of a
 *   handshake-era client over all the rounds of one call (server-input.ts; round 19 review of the
 *   2026-07-28 path, F3: 1,600 prompts for one call).
 */
export const MAX_SERVER_QUESTIONS = 32;
/**
 * The most rounds of a server's own questions in one tools/call, in either era (docs/config.md,
 * "limits"): each time a 2026-07-28 server answers `input_required` and the call goes back to it
 * with the answers. A handshake-era client is asked by the gateway; a 2026-07-28 client gets each
 * round as an `input_required` of the gateway's, and the rounds so far travel in its signed state.
 * Past it the call ends with a tool error naming this limit (server-input.ts; round 20: a 2026-07-28
 * client's rounds were not counted, so a server asking after every answer kept it answering for good).
 * A 2025 server's questions held for a 2026-07-28 client (one a round) count against
 * MAX_SERVER_QUESTIONS over the call instead.
 */
export const MAX_SERVER_ROUNDS = 8;
