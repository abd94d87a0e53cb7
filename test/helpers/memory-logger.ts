import { Writable } from 'node:stream';
import type { LevelWithSilent } from 'pino';
import { createLogger, type Logger } from '../../src/log.js';

/** The product's logger (src/log.ts) writing into memory, and what it wrote once pino has passed it on (the next turn). */
export function memoryLogger(level: LevelWithSilent): { logger: Logger; written(): Promise<string> } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return {
    logger: createLogger({ level, destination: sink }),
    written: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return lines.join('');
    },
  };
}
