import pino, { type Logger as PinoLogger, type LevelWithSilent } from 'pino';

/** The logger every module receives; created once, here. */
export type Logger = PinoLogger;

/**
 * Keys whose values are secrets wherever they appear in logged objects (docs/design.md#records). pino's redact
 * paths match exact keys, so the common spellings are listed at the depths our objects use.
 */
const SECRET_KEYS = ['token', 'password', 'passwd', 'apiKey', 'api_key', 'apikey', 'authorization', 'Authorization', 'secret', 'accessToken', 'access_token', 'refreshToken', 'clientSecret', 'client_secret', 'privateKey', 'private_key', 'cookie', 'Cookie', 'credential', 'credentials', 'sessionId', 'session_id'];

export const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.*.${k}`),
  'env.*',
  '*.env.*',
  'headers.*',
  '*.headers.*',
];

/**
 * Operational logs: pino to stderr only, because stdout is the MCP channel when serving over stdio.
 * `destination` is for tests (a sink stream).
 */
export function createLogger(options: { level?: LevelWithSilent; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? (process.env.MCP_LATCH_LOG_LEVEL as LevelWithSilent | undefined) ?? 'info',
      base: { name: 'mcp-latch' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ fd: 2, sync: false }),
  );
}

/** A logger that drops everything (CLI commands that print their own output, unit tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
