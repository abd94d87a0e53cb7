import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { z } from 'zod';
import { LatchError, type ConfigIssue } from '../errors.js';
import { formatKeyPath, readJson } from './json.js';
import { ConfigSchema, type ConfigFile, type ServerConfig } from './schema.js';

/**
 * Finding, reading and checking the config file (docs/config.md). Rule strings are compiled by the caller
 * (policy/), which adds its own issues through `extraCheck`, so one run reports every problem.
 */

/** A checked config, with where it came from. */
export interface LoadedConfig {
  path: string;
  /** Directory of the config file; relative workspace roots and the audit file are anchored here. */
  dir: string;
  file: ConfigFile;
  /** The text that was parsed, to tell our own writes from a user's edit. */
  text: string;
}

/** Lookup order of docs/config.md: --config, $MCP_LATCH_CONFIG, ./mcp-latch.json, the per-user config dir. */
export function configCandidates(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string[] {
  if (explicit) return [resolve(cwd, explicit)];
  if (env.MCP_LATCH_CONFIG) return [resolve(cwd, env.MCP_LATCH_CONFIG)];
  return [join(cwd, 'mcp-latch.json'), userConfigPath(env)];
}

/** `~/.config/mcp-latch/mcp-latch.json`, or `%APPDATA%\mcp-latch\mcp-latch.json` on Windows. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'mcp-latch', 'mcp-latch.json');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'mcp-latch', 'mcp-latch.json');
}

export function findConfig(explicit?: string): string {
  const candidates = configCandidates(explicit);
  // An explicit path is taken as given so its absence is reported for that path.
  if (explicit || process.env.MCP_LATCH_CONFIG) return candidates[0]!;
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) {
    throw new LatchError('CONFIG_NOT_FOUND', `no config file found (looked at ${candidates.join(', ')}); create one with \`mcp-latch init\` or pass --config FILE`);
  }
  return found;
}

/** Checks that the caller adds (rule strings, tool names): issues with their key paths. */
export type ExtraCheck = (file: ConfigFile) => ConfigIssue[];

/** Reads and validates a config file; throws LatchError CONFIG_INVALID listing every issue. */
export function loadConfig(path: string, extraCheck?: ExtraCheck): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new LatchError('CONFIG_NOT_FOUND', `config file ${path} does not exist; create one with \`mcp-latch init\``, { cause: error });
    throw new LatchError('CONFIG_INVALID', `cannot read config file ${path}: ${(error as Error).message}`, { cause: error });
  }
  return parseConfigText(text, path, extraCheck);
}

/** Validates config text as if it were the file at `path`. */
export function parseConfigText(text: string, path: string, extraCheck?: ExtraCheck): LoadedConfig {
  const json = readJson(text);
  if (!json.ok) throw invalid(path, json.issues);
  const parsed = ConfigSchema.safeParse(json.value);
  if (!parsed.success) throw invalid(path, zodIssues(parsed.error.issues, json.value));
  const issues = extraCheck ? extraCheck(parsed.data) : [];
  if (issues.length > 0) throw invalid(path, issues);
  return { path, dir: dirname(path), file: parsed.data, text };
}

function invalid(path: string, issues: ConfigIssue[]): LatchError {
  const lines = issues.map((issue) => `  ${issue.path}: ${issue.message}`);
  return new LatchError('CONFIG_INVALID', `invalid config ${path}:\n${lines.join('\n')}`, { issues });
}

/**
 * zod's issues flattened to one line per problem. A server entry that matches neither the stdio nor
 * the remote shape is reported against the shape it was meant to have (it has `url` → remote).
 */
export function zodIssues(issues: readonly z.core.$ZodIssue[], input: unknown): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of issues) {
    const path = issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key));
    if (issue.code === 'invalid_union') {
      const entry = valueAt(input, path);
      const meantRemote = typeof entry === 'object' && entry !== null && 'url' in entry;
      const meantStdio = typeof entry === 'object' && entry !== null && 'command' in entry;
      if (!meantRemote && !meantStdio) {
        out.push({ path: formatKeyPath(path), message: 'a server needs either "command" (stdio) or "url" (remote)' });
        continue;
      }
      if (meantRemote && meantStdio) {
        out.push({ path: formatKeyPath(path), message: 'a server has either "command" (stdio) or "url" (remote), not both' });
        continue;
      }
      const branch = issue.errors[meantRemote ? 1 : 0] ?? [];
      const nested = branch.map((inner) => ({ ...inner, path: [...path, ...inner.path] }));
      out.push(...zodIssues(nested as z.core.$ZodIssue[], input));
      continue;
    }
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: formatKeyPath([...path, key]), message: 'unknown key' });
      continue;
    }
    if (issue.code === 'invalid_key') {
      const inner = issue.issues[0];
      out.push({ path: formatKeyPath(path), message: `invalid name: ${inner?.message ?? issue.message}` });
      continue;
    }
    out.push({ path: formatKeyPath(path), message: issue.message });
  }
  return out;
}

function valueAt(input: unknown, path: ReadonlyArray<string | number>): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

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

/**
 * The servers to run: disabled ones dropped, a relative `cwd` resolved against the config file's
 * directory and `~` expanded (Claude Desktop gives no cwd at all; a server without one runs in
 * the gateway's own working directory).
 */
export function serversToRun(config: LoadedConfig, home: string = homedir()): Record<string, ServerConfig> {
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

/** Workspace roots as written, resolved against the config file's directory. */
export function workspaceRoots(config: LoadedConfig): string[] {
  const roots = typeof config.file.workspace === 'string' ? [config.file.workspace] : config.file.workspace;
  return roots.map((root) => (root.startsWith('~') ? root : resolve(config.dir, root)));
}
