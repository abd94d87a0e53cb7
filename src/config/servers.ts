import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, normalize, resolve } from 'node:path';
import type { ConfigIssue } from '../errors.js';
import { expandHome } from '../home.js';
import { formatKeyPath } from './json.js';
import type { ServerConfig } from './schema.js';

/**
 * The server entries as they are run: `${env:NAME}` expanded, disabled ones dropped, the working
 * directory resolved. Free of zod, so `serve` can start servers from the file before validating it.
 */

/** A server entry with `${env:NAME}` expanded, or the key and variable that could not be expanded. */
export type ExpandedServer = { ok: true; server: ServerConfig } | { ok: false; issue: ConfigIssue };

/**
 * Expands `${env:NAME}` and `${env:NAME:-default}` in every string of a server entry from the
 * gateway's environment, and reads its `envFile` (absolute by now: see serversToRun) into `env`,
 * under the entry's own `env`. A missing variable without a default, or an unreadable env file,
 * fails only that server, naming the key, so the other servers still start.
 */
export function expandServerEnv(name: string, server: ServerConfig, env: NodeJS.ProcessEnv = process.env): ExpandedServer {
  let missing: ConfigIssue | undefined;
  const expand = (value: string, path: Array<string | number>): string =>
    value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, variable: string, fallback: string | undefined) => {
      const found = env[variable];
      if (found !== undefined && !(fallback !== undefined && found === '')) return found;
      if (fallback !== undefined) return fallback;
      missing ??= { path: formatKeyPath(['mcpServers', name, ...path]), message: `environment variable ${variable} is not set` };
      return '';
    });
  const walk = (value: unknown, path: Array<string | number>): unknown => {
    if (typeof value === 'string') return expand(value, path);
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index]));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return value;
  };
  const expanded = walk(server, []) as ServerConfig;
  if (missing) return { ok: false, issue: missing };
  if ('envFile' in expanded && expanded.envFile !== undefined) {
    const { envFile, ...rest } = expanded;
    let text: string;
    try {
      text = readFileSync(envFile, 'utf8');
    } catch (error) {
      return { ok: false, issue: { path: formatKeyPath(['mcpServers', name, 'envFile']), message: `cannot read ${envFile}: ${(error as Error).message}` } };
    }
    return { ok: true, server: { ...rest, env: { ...parseEnvFile(text), ...rest.env } } };
  }
  return { ok: true, server: expanded };
}

/**
 * A dotenv file as VS Code reads `envFile`: `NAME=value` lines, `export ` allowed, `#` comments,
 * values optionally in single or double quotes (double quotes take `\n`).
 */
function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/.exec(raw);
    if (!match) continue;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n');
    } else value = value.replace(/\s+#.*$/, '');
    out[match[1]!] = value;
  }
  return out;
}

/** The part of a loaded config that says which servers run where (config/load.ts LoadedConfig has it). */
export interface ServersOf {
  /** Directory of the config file. */
  dir: string;
  file: { mcpServers: Record<string, ServerConfig>; scopes?: Record<string, { servers: string[] }> };
  /** Only this scope's servers run (`serve --scope`). */
  scope?: string | undefined;
}

/**
 * The servers to run: disabled ones and those outside the scope dropped, a relative `cwd` and
 * `envFile` resolved against the config file's directory and `~` expanded (Claude Desktop gives no
 * cwd at all; a server without one runs in the gateway's own working directory).
 */
export function serversToRun(config: ServersOf, home: string = homedir()): Record<string, ServerConfig> {
  const out: Record<string, ServerConfig> = {};
  const selected = config.scope === undefined ? undefined : new Set(config.file.scopes?.[config.scope]?.servers ?? []);
  const absolute = (path: string) => resolve(config.dir, expandHome(path, home));
  for (const [name, server] of Object.entries(config.file.mcpServers)) {
    if (server.disabled || (selected && !selected.has(name))) continue;
    if ('command' in server) {
      out[name] = {
        ...server,
        ...(server.cwd === undefined ? {} : { cwd: absolute(server.cwd) }),
        ...(server.envFile === undefined ? {} : { envFile: absolute(server.envFile) }),
      };
    } else out[name] = server;
  }
  return out;
}

/** What the gateway starts its stdio servers from, beyond its config (docs/threat-model.md, "What starts a server"). */
export interface StartFiles {
  /** Each server's `envFile`: what it holds is the server's environment (`NODE_OPTIONS=--require …`). */
  envFiles: string[];
  /** A `command` or argument that names a file (`node tools/server.mjs`, `./run.sh`): code the server runs. */
  programs: string[];
  /**
   * The configuration files a server's own `env` points git or Mercurial at, which they run code from
   * (`core.fsmonitor`, aliases, hooks): `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `XDG_CONFIG_HOME`'s
   * `git/config` and `hg/hgrc`, each `HGRCPATH` entry (a directory: its `*.rc` files, as `dir/**`);
   * a relative one also below any directory (git reads it from the one it runs in), as `**` then `/VALUE`.
   * Round 32 (rules32; docs/threat-model.md "Round 32: round 31's command-rule leftovers").
   */
  configFiles?: string[];
}

/** A server's `env` entries naming git's or Mercurial's configuration, resolved against `base`: files, and directories ending in `/`. */
export function serverConfigFiles(env: Readonly<Record<string, string>>, base: string, home: string): string[] {
  const out: string[] = [];
  const add = (value: string, directory = false): void => {
    // A value expanded only at start (`${env:X}`) is not known here: nothing to name.
    if (value === '' || value.includes('${')) return;
    const file = resolve(base, expandHome(value, home));
    const dir = directory || isDirectory(file);
    out.push(dir ? `${file}/` : file);
    // A relative value is read from whatever directory git or hg runs in (`cd sub && git status`): below any.
    const relative = normalize(value);
    if (!isAbsolute(value) && !/^~/.test(value) && !relative.startsWith('..')) out.push(`**/${relative}${dir ? '/' : ''}`);
  };
  for (const name of ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM']) if (env[name] !== undefined) add(env[name]!);
  if (env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '') for (const tail of ['git/config', 'hg/hgrc']) add(`${env.XDG_CONFIG_HOME}/${tail}`);
  // hg help config: HGRCPATH is a list (`:`), each a file or a directory whose `*.rc` files are read.
  if (env.HGRCPATH !== undefined) for (const entry of env.HGRCPATH.split(':')) add(entry);
  return out;
}

/**
 * The files of `serversToRun` a tool call could change to run code at a server's next start (round 11
 * review: a model wrote a project server's `envFile` with `NODE_OPTIONS=--require pwn.cjs`, which ran
 * at the next start, outside every rule). A word is a file when it holds a `/` or ends in a script's
 * extension; it is resolved against the server's `cwd` (or the gateway's own, as the server runs).
 */
export function serverStartFiles(config: ServersOf, cwd: string = process.cwd(), home: string = homedir()): StartFiles {
  const out: StartFiles = { envFiles: [], programs: [], configFiles: [] };
  for (const server of Object.values(serversToRun(config, home))) {
    if (!('command' in server)) continue;
    if (server.envFile !== undefined) out.envFiles.push(server.envFile);
    const base = server.cwd ?? cwd;
    if (server.env !== undefined) out.configFiles!.push(...serverConfigFiles(server.env, base, home));
    for (const word of [server.command, ...(server.args ?? [])]) {
      if (word.startsWith('-') || !(word.includes('/') || /\.(m?[jt]s|c[jt]s|py|sh|rb|pl|php)$/i.test(word))) continue;
      const file = resolve(base, expandHome(word, home));
      // A directory (mcp-server-git's `--repository P`, server-filesystem's roots) is where the server
      // works, not what it runs: as a start file every write tool acting on it asked (round 14 review T4).
      if (isDirectory(file)) continue;
      out.programs.push(file);
    }
  }
  return out;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
