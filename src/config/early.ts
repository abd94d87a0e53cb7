import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isPlainObject as isRecord } from '../values.js';
import { DEFAULT_MESSAGE_MB, MAX_MESSAGE_MB } from './limits.js';
import type { StdioServer } from './schema.js';
import { expandServerEnv, serversToRun } from './servers.js';

/**
 * What `serve` can take from the config file before validating it: the stdio servers to start and
 * the log level. The full check (schema, rules) needs zod and the policy code, which take longer
 * to load than a server takes to start; so the servers start first, from this lenient read, and a
 * file the full check then refuses stops them (cli/serve.ts). Whatever this read is unsure of is
 * left out, to be started later, once validated, by the registry.
 */
export interface EarlyConfig {
  servers: Record<string, StdioServer>;
  logLevel: string | undefined;
  /** `limits.messageMB` in bytes. */
  maxMessageBytes: number;
}

/** What a file that is not a JSON object gives: no server started early (the full check then says what is wrong). */
const NOTHING: EarlyConfig = { servers: {}, logLevel: undefined, maxMessageBytes: DEFAULT_MESSAGE_MB * 1024 * 1024 };
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function readEarlyConfig(path: string, env: NodeJS.ProcessEnv = process.env, scope?: string): EarlyConfig {
  let file: unknown;
  try {
    file = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''));
  } catch {
    return NOTHING;
  }
  if (!isRecord(file)) return NOTHING;
  const stdio: Record<string, StdioServer> = {};
  if (isRecord(file.mcpServers)) {
    for (const [name, entry] of Object.entries(file.mcpServers)) {
      if (/^[A-Za-z0-9_-]+$/.test(name) && !name.includes('__') && isStdioServer(entry)) stdio[name] = entry;
    }
  }
  // With --scope, only that scope's servers; a scope this read cannot make out starts none early.
  const scopeServers = scope === undefined ? undefined : isRecord(file.scopes) && isRecord(file.scopes[scope]) ? file.scopes[scope].servers : undefined;
  const names = Array.isArray(scopeServers) ? scopeServers.filter((name): name is string => typeof name === 'string') : [];
  const scopes = scope === undefined ? undefined : { [scope]: { servers: names } };
  const servers: Record<string, StdioServer> = {};
  for (const [name, server] of Object.entries(serversToRun({ dir: dirname(path), file: { mcpServers: stdio, ...(scopes ? { scopes } : {}) }, scope }))) {
    const expanded = expandServerEnv(name, server, env);
    if (expanded.ok) servers[name] = expanded.server as StdioServer;
  }
  const logLevel = typeof file.logLevel === 'string' && LOG_LEVELS.has(file.logLevel) ? file.logLevel : undefined;
  const messageMB = isRecord(file.limits) ? file.limits.messageMB : undefined;
  const validMB = typeof messageMB === 'number' && messageMB > 0 && messageMB <= MAX_MESSAGE_MB ? messageMB : DEFAULT_MESSAGE_MB;
  return { servers, logLevel, maxMessageBytes: validMB * 1024 * 1024 };
}

/** The keys that decide how a stdio server's process starts, each of the type the schema requires. */
function isStdioServer(entry: unknown): entry is StdioServer {
  if (!isRecord(entry) || 'url' in entry) return false;
  const { command, args, env, envFile, cwd, disabled } = entry;
  return (
    typeof command === 'string' &&
    command !== '' &&
    (args === undefined || (Array.isArray(args) && args.every((arg) => typeof arg === 'string'))) &&
    (env === undefined || (isRecord(env) && Object.values(env).every((value) => typeof value === 'string'))) &&
    (cwd === undefined || typeof cwd === 'string') &&
    (envFile === undefined || typeof envFile === 'string') &&
    (disabled === undefined || typeof disabled === 'boolean')
  );
}
