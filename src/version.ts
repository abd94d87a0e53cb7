import { readFileSync } from 'node:fs';

/** mcp-latch's version, from its package.json (one source of truth for the CLI and the protocol). */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
