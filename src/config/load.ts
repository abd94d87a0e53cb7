import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { expandHome } from '../home.js';
import type { z } from 'zod';
import { LatchError, type ConfigIssue } from '../errors.js';
import { quotedShown } from '../latch/escape.js';
import { formatKeyPath, readJson } from './json.js';
import { didYouMean, knownKeys } from './hints.js';
import { parseConfigFile, type ConfigFile } from './schema.js';
import { rulesGenerationsFile } from './locate.js';

export { configCandidates, findConfig, userConfigPath } from './locate.js';
export { expandServerEnv, serversToRun } from './servers.js';

/**
 * Finding, reading and checking the config file (docs/config.md). Rule strings are compiled by the caller
 * (policy/), which supplies its check as `ruleCheck`, so one run reports every problem.
 */

/** A checked config, with where it came from. */
export interface LoadedConfig {
  path: string;
  /** Directory of the config file; relative workspace roots and the audit file are anchored here. */
  dir: string;
  file: ConfigFile;
  /** The text that was parsed, to tell our own writes from a user's edit. */
  text: string;
  /** The scope served (`serve --scope NAME`): only its servers run, with its workspace. */
  scope?: string | undefined;
}

/**
 * The rule check (`ruleIssues` of policy/policy.ts), passed in because config/ does not know rule
 * syntax. Required: without it a bad deny rule would be dropped silently at load, not reported.
 */
export type RuleCheck = (file: ConfigFile) => ConfigIssue[];

/** Reads and validates a config file; throws LatchError CONFIG_INVALID listing every issue. */
export function loadConfig(path: string, ruleCheck: RuleCheck, scope?: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new LatchError('CONFIG_NOT_FOUND', `config file ${path} does not exist; create one with \`mcp-latch init\``, { cause: error });
    throw new LatchError('CONFIG_INVALID', `cannot read config file ${path}: ${(error as Error).message}`, { cause: error });
  }
  return parseConfigText(text, path, ruleCheck, scope);
}

/** Validates config text as if it were the file at `path`; with `scope`, that scope must exist. */
export function parseConfigText(text: string, path: string, ruleCheck: RuleCheck, scope?: string): LoadedConfig {
  const json = readJson(text);
  if (!json.ok) throw invalid(path, json.issues);
  const parsed = parseConfigFile(json.value);
  if (!parsed.success) throw invalid(path, zodIssues(parsed.error.issues, json.value));
  const issues = [...scopeIssues(parsed.data, scope), ...ruleCheck(parsed.data)];
  if (issues.length > 0) throw invalid(path, issues);
  return { path, dir: dirname(path), file: parsed.data, text, ...(scope === undefined ? {} : { scope }) };
}

/** Every scope names existing servers; the scope asked for exists. */
function scopeIssues(file: ConfigFile, scope: string | undefined): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const [name, entry] of Object.entries(file.scopes)) {
    entry.servers.forEach((server, index) => {
      if (!(server in file.mcpServers)) issues.push({ path: formatKeyPath(['scopes', name, 'servers', index]), message: `no server "${server}" in mcpServers` });
    });
  }
  if (scope !== undefined && !(scope in file.scopes)) {
    const known = Object.keys(file.scopes);
    issues.push({ path: formatKeyPath(['scopes']), message: `no scope ${quotedShown(scope)} (--scope); ${known.length > 0 ? `the scopes are ${known.map((name) => quotedShown(name)).join(', ')}` : 'the file has none'}` });
  }
  return issues;
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
    if (issue.code === 'invalid_union' && (path.length !== 2 || path[0] !== 'mcpServers')) {
      // `workspace` (or a scope's): a path or a list of paths.
      out.push({ path: formatKeyPath(path), message: 'expected a path or a list of paths' });
      continue;
    }
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
      for (const key of issue.keys) out.push({ path: formatKeyPath([...path, key]), message: serverKeyOfOtherShape(path, key, input) ?? `unknown key${didYouMean(key, knownKeys(path))}` });
      continue;
    }
    if (issue.code === 'invalid_key') {
      const inner = issue.issues[0];
      out.push({ path: formatKeyPath(path), message: `invalid name: ${inner?.message ?? issue.message}` });
      continue;
    }
    if (issue.code === 'invalid_value' && issue.values.every((value) => typeof value === 'string')) {
      const written = valueAt(input, path);
      out.push({ path: formatKeyPath(path), message: `${issue.message}${typeof written === 'string' ? didYouMean(written, issue.values as string[]) : ''}` });
      continue;
    }
    out.push({ path: formatKeyPath(path), message: issue.message });
  }
  return out;
}

/**
 * A server entry's key that belongs to the other shape (a stdio key in a remote entry, or the
 * reverse), said so; null for any other key. "Did you mean" offered the key itself (both shapes'
 * keys are known at the path): a remote server with `protocolVersion` read `unknown key (did you
 * mean "protocolVersion"?)`, naming no limit (round 32 review P32-3).
 */
function serverKeyOfOtherShape(path: ReadonlyArray<string | number>, key: string, input: unknown): string | null {
  if (path.length !== 2 || path[0] !== 'mcpServers' || !knownKeys(path).includes(key)) return null;
  const entry = valueAt(input, path);
  const remote = typeof entry === 'object' && entry !== null && 'url' in entry;
  if (!remote) return `"${key}" is a key of a remote server (one with "url"), not of a stdio server (one with "command")`;
  const shape = `"${key}" is a key of a stdio server (one with "command"), not of a remote server (one with "url")`;
  return key === 'protocolVersion' ? `${shape}: mcp-latch speaks MCP 2026-07-28 to stdio servers only, and a remote server in the 2025 era (remote 2026-07-28 servers are not supported yet; docs/approval.md). Remove the key` : shape;
}

function valueAt(input: unknown, path: ReadonlyArray<string | number>): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/** The file `store.passwordFile` or `store.signingKeyFile` names (relative to the config's directory, `~/…` expanded), or null. */
export function storeFile(config: LoadedConfig, key: 'passwordFile' | 'signingKeyFile'): string | null {
  const file = config.file.store?.[key];
  return file === undefined ? null : resolve(config.dir, expandHome(file, homedir()));
}

/** The team store's secret files, which no tool may read or write (policy.ts builtInRules); the rules' generations, which no tool may lower. */
export function storeSecretFiles(config: LoadedConfig): string[] {
  const generations = config.file.store?.url !== undefined ? rulesGenerationsFile(config.path) : null;
  return [storeFile(config, 'passwordFile'), storeFile(config, 'signingKeyFile'), generations].filter((file): file is string => file !== null);
}

/** Workspace roots as written (the scope's when it has its own), resolved against the config file's directory. */
export function workspaceRoots(config: LoadedConfig): string[] {
  const scoped = config.scope === undefined ? undefined : config.file.scopes[config.scope]?.workspace;
  const workspace = scoped ?? config.file.workspace;
  const roots = typeof workspace === 'string' ? [workspace] : workspace;
  return roots.map((root) => (root.startsWith('~') ? root : resolve(config.dir, root)));
}
