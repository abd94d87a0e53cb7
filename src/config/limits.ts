/** `limits.messageMB` when the file does not set it; here, free of zod, for the early read of the file (early.ts). */
export const DEFAULT_MESSAGE_MB = 10;
/** The largest `limits.messageMB` accepted. */
export const MAX_MESSAGE_MB = 1024;
