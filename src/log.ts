import pino, { type Logger as PinoLogger, type LevelWithSilent } from 'pino';
import { redactLogRecord } from './redact.js';

/** The logger every module receives; created once, here. */
export type Logger = PinoLogger;

/**
 * Operational logs: pino to stderr only, because stdout is the MCP channel when serving over stdio.
 * `destination` is for tests (a sink stream).
 */
export function createLogger(options: { level?: LevelWithSilent; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? (process.env.MCP_LATCH_LOG_LEVEL as LevelWithSilent | undefined) ?? 'info',
      base: { name: 'mcp-latch' },
      formatters: { log: redactLogRecord },
    },
    options.destination ?? pino.destination({ fd: 2, sync: false }),
  );
}

/** A logger that drops everything (CLI commands that print their own output, unit tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
