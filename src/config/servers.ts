import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConfigIssue } from '../errors.js';
import { formatKeyPath } from './json.js';
import type { ServerConfig } from './schema.js';

/**
 * The server entries as they are run: `${env:NAME}` expanded, disabled ones dropped, the working
 * directory resolved. Free of zod, so `serve` can start servers from the file before validating it.
 */

/** A server entry with `${env:NAME}` expanded, or the key and variable that could not be expanded. */
export type ExpandedServer = { ok: true; server: ServerConfig } | { ok: false; issue: ConfigIssue };

/**
 * Expands `${env:NAME}` in every string of a server entry from the gateway's environment. A missing
 * variable fails only that server, naming the key, so the other servers still start.
 */
export function expandServerEnv(name: string, server: ServerConfig, env: NodeJS.ProcessEnv = process.env): ExpandedServer {
  let missing: ConfigIssue | undefined;
  const expand = (value: string, path: Array<string | number>): string =>
    value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, variable: string) => {
      const found = env[variable];
      if (found === undefined) {
        missing ??= { path: formatKeyPath(['mcpServers', name, ...path]), message: `environment variable ${variable} is not set` };
        return '';
      }
      return found;
    });
  const walk = (value: unknown, path: Array<string | number>): unknown => {
    if (typeof value === 'string') return expand(value, path);
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index]));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return value;
  };
  const server2 = walk(server, []) as ServerConfig;
  return missing ? { ok: false, issue: missing } : { ok: true, server: server2 };
}

/** The part of a loaded config that says which servers run where (config/load.ts LoadedConfig has it). */
export interface ServersOf {
  /** Directory of the config file. */
  dir: string;
  file: { mcpServers: Record<string, ServerConfig> };
}

/**
 * The servers to run: disabled ones dropped, a relative `cwd` resolved against the config file's
 * directory and `~` expanded (Claude Desktop gives no cwd at all; a server without one runs in
 * the gateway's own working directory).
 */
export function serversToRun(config: ServersOf, home: string = homedir()): Record<string, ServerConfig> {
  const out: Record<string, ServerConfig> = {};
  for (const [name, server] of Object.entries(config.file.mcpServers)) {
    if (server.disabled) continue;
    if ('command' in server && server.cwd !== undefined) {
      const cwd = server.cwd === '~' || server.cwd.startsWith('~/') ? join(home, server.cwd.slice(1)) : resolve(config.dir, server.cwd);
      out[name] = { ...server, cwd };
    } else out[name] = server;
  }
  return out;
}

