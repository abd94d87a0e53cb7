import { isAbsolute, resolve } from 'node:path';
import { configSchemas, type ServerConfig } from '../config/schema.js';
import { isHomePath } from '../home.js';
import type { EntryContext, EntryResult } from './client-file.js';
import { translateVariables, type VariableReport } from './variables.js';
import { isPlainObject } from '../values.js';

/**
 * One client server entry → one mcp-latch server entry. The formats differ in a few keys (Windsurf's
 * `serverUrl`, Cline's `transportType` and timeout in seconds) and share the rest, so each format
 * module passes its differences here. The result is checked against mcp-latch's own ServerSchema, so
 * whatever is imported loads.
 */
export interface EntryDialect {
  /** Keys holding a remote server's URL, in order of preference. */
  urlKeys: string[];
  /** Keys holding the transport type (`type`, Cline's older `transportType`). */
  typeKeys: string[];
  /** The unit the client writes `timeout` in; mcp-latch's is milliseconds. */
  timeoutUnit: 'ms' | 's';
}

/** Keys some clients write that mcp-latch replaces with its own mechanism, and what to use instead. */
const REPLACED_KEYS: Record<string, string> = {
  autoApprove: 'mcp-latch decides approvals with its rules; add allow rules instead',
  alwaysAllow: 'mcp-latch decides approvals with its rules; add allow rules instead',
};

const REMOTE_TYPES = new Set(['http', 'sse', 'streamable-http', 'streamableHttp']);

/**
 * True when the entry starts mcp-latch itself (`npx -y mcp-latch`, `node …/bin/mcp-latch.js`,
 * `cmd /c npx mcp-latch@1`), so re-running init never wraps the gateway into itself. A directory that
 * merely has that name (`server-filesystem ~/code/mcp-latch`) does not count.
 */
export function isGatewayEntry(raw: Record<string, unknown>): boolean {
  const words = [raw.command, ...(Array.isArray(raw.args) ? raw.args : [])];
  return words.some((word, index) => {
    if (typeof word !== 'string') return false;
    const normal = word.replace(/\\/g, '/');
    const isScript = /\.(c?js|mjs|cmd|exe|ps1)$/i.test(normal);
    const isPackage = !normal.includes('/') || /^@[^/]+\/[^/]+$/.test(normal);
    if (index !== 0 && !isScript && !isPackage) return false;
    const leaf = (normal.split('/').pop() ?? '').replace(/\.(c?js|mjs|cmd|exe|ps1)$/i, '');
    const at = leaf.lastIndexOf('@');
    const name = at > 0 ? leaf.slice(0, at) : leaf;
    return name.toLowerCase() === 'mcp-latch';
  });
}

/** Converts one entry; drops what mcp-latch does not know, saying so, and skips what cannot load. */
export function convertEntry(name: string, raw: unknown, dialect: EntryDialect, context: EntryContext): EntryResult {
  if (!isPlainObject(raw)) return { ok: false, self: false, reason: 'the entry is not an object' };
  const entry = raw as Record<string, unknown>;
  if (isGatewayEntry(entry)) return { ok: false, self: true, reason: 'it starts mcp-latch itself' };

  const report: VariableReport = { notes: [], warnings: [], blockers: [] };
  const text = (value: string, where: string) => translateVariables(value, `"${name}" ${where}`, context, report);
  const used = new Set<string>();
  const take = (key: string) => {
    used.add(key);
    return entry[key];
  };

  const urlKey = dialect.urlKeys.find((key) => typeof entry[key] === 'string');
  const command = take('command');
  const type = dialect.typeKeys.map((key) => take(key)).find((value) => value !== undefined);
  if (command !== undefined && urlKey !== undefined) return { ok: false, self: false, reason: `it has both "command" and "${urlKey}"` };
  if (command === undefined && urlKey === undefined) return { ok: false, self: false, reason: `it has neither "command" nor ${dialect.urlKeys.map((key) => `"${key}"`).join(' / ')}` };

  const out: Record<string, unknown> = {};
  if (command !== undefined) {
    if (typeof command !== 'string' || command === '') return { ok: false, self: false, reason: '"command" is not a non-empty string' };
    if (type !== undefined && type !== 'stdio') return { ok: false, self: false, reason: `it has a "command" but type ${JSON.stringify(type)}` };
    if (type === 'stdio') out.type = 'stdio';
    out.command = text(command, 'command');
    const args = take('args');
    if (args !== undefined) {
      if (!Array.isArray(args) || !args.every((arg) => ['string', 'number', 'boolean'].includes(typeof arg))) {
        return { ok: false, self: false, reason: '"args" is not a list of strings' };
      }
      out.args = args.map((arg, index) => text(String(arg), `args[${index}]`));
    }
    const env = stringRecord(take('env'), 'env', text, report, name);
    if (env === null) return { ok: false, self: false, reason: '"env" is not an object of strings' };
    if (env) out.env = env;
    const cwd = take('cwd');
    if (cwd !== undefined && typeof cwd !== 'string') return { ok: false, self: false, reason: '"cwd" is not a string' };
    const anchored = anchorCwd(name, typeof cwd === 'string' ? text(cwd, 'cwd') : undefined, context, report);
    if (anchored !== undefined) out.cwd = anchored;
  } else {
    used.add(urlKey!);
    if (type !== undefined) {
      if (typeof type === 'string' && REMOTE_TYPES.has(type)) out.type = type;
      else report.notes.push(`"${name}": type ${JSON.stringify(type)} dropped (mcp-latch tries Streamable HTTP, then SSE)`);
    }
    out.url = text(entry[urlKey!] as string, urlKey!);
    if (urlKey !== 'url') report.notes.push(`"${name}": ${urlKey} written as url`);
    const headers = stringRecord(take('headers'), 'headers', text, report, name);
    if (headers === null) return { ok: false, self: false, reason: '"headers" is not an object of strings' };
    if (headers) out.headers = headers;
  }

  const disabled = take('disabled');
  if (typeof disabled === 'boolean') out.disabled = disabled;
  const description = take('description');
  if (typeof description === 'string') out.description = description;
  const timeout = take('timeout');
  if (typeof timeout === 'number' && timeout > 0) {
    out.timeout = Math.round(dialect.timeoutUnit === 's' ? timeout * 1000 : timeout);
    if (dialect.timeoutUnit === 's') report.notes.push(`"${name}": timeout ${timeout} s written as ${out.timeout as number} ms`);
  }

  const disabledTools = take('disabledTools');
  const hidden = Array.isArray(disabledTools) ? disabledTools.filter((tool): tool is string => typeof tool === 'string' && tool !== '') : [];
  const envFile = take('envFile');
  if (envFile !== undefined) {
    if (typeof envFile !== 'string' || command === undefined) return { ok: false, self: false, reason: '"envFile" is not a string on a stdio server' };
    const path = text(envFile, 'envFile');
    out.envFile = context.projectDir !== undefined && isRelative(path) ? resolve(context.projectDir, path) : path;
  }
  if (report.blockers.length > 0) return { ok: false, self: false, reason: report.blockers.join('; ') };

  const dropped = Object.keys(entry).filter((key) => !used.has(key));
  const replaced = dropped.filter((key) => key in REPLACED_KEYS);
  const unknown = dropped.filter((key) => !(key in REPLACED_KEYS));
  for (const key of replaced) report.notes.push(`"${name}": ${key} dropped (${REPLACED_KEYS[key]})`);
  if (unknown.length > 0) report.notes.push(`"${name}": dropped ${unknown.map((key) => `"${key}"`).join(', ')} (mcp-latch does not use ${unknown.length === 1 ? 'it' : 'them'})`);

  const parsed = configSchemas().server.safeParse(out);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const detail = issue?.code === 'invalid_union' ? (issue.errors[command !== undefined ? 0 : 1]?.[0]?.message ?? issue.message) : issue?.message;
    return { ok: false, self: false, reason: detail ?? 'it does not fit mcp-latch\'s server shape' };
  }
  // Key order as written above (type, command, args, env, cwd / url, headers), not zod's.
  return { ok: true, server: out as ServerConfig, disabledTools: hidden, notes: report.notes, warnings: report.warnings };
}

/** An object of strings (numbers and booleans converted); `undefined` when absent, `null` when malformed. */
function stringRecord(
  value: unknown,
  key: string,
  text: (value: string, where: string) => string,
  report: VariableReport,
  server: string,
): Record<string, string> | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const out: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'string') out[name] = text(item, `${key}.${name}`);
    else if (typeof item === 'number' || typeof item === 'boolean') {
      out[name] = String(item);
      report.notes.push(`"${server}" ${key}.${name}: ${String(item)} written as the string ${JSON.stringify(String(item))}`);
    } else return null;
  }
  return out;
}

function isRelative(value: string): boolean {
  return !isHomePath(value) && !isAbsolute(value) && !/^[A-Za-z]:[\\/]/.test(value);
}

/**
 * mcp-latch resolves a relative `cwd` against its config file and starts a server without one in its
 * own working directory, while a project-scoped client starts it in the project. So a relative cwd
 * is made absolute against the project, and a project server without a cwd gets the project.
 */
function anchorCwd(name: string, cwd: string | undefined, context: EntryContext, report: VariableReport): string | undefined {
  if (cwd !== undefined) {
    if (!isRelative(cwd)) return cwd;
    if (context.projectDir !== undefined) {
      const absolute = resolve(context.projectDir, cwd);
      report.notes.push(`"${name}": cwd ${cwd} written as ${absolute} (relative to the project)`);
      return absolute;
    }
    report.warnings.push(`"${name}": the relative cwd ${cwd} will be taken relative to the mcp-latch config folder; make it absolute if that is wrong`);
    return cwd;
  }
  return context.projectDir;
}
