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
