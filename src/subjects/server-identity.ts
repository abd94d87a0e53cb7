import path from 'node:path';
import { isHomePath } from '../home.js';
import { expandServerEnv } from '../config/servers.js';
import type { ServerConfig } from '../config/schema.js';
import { PROFILES, type Profile } from './profiles.js';

/** Which built-in profile a server matches, its allowed roots from the command line, and its cwd. */
export interface ServerIdentity {
  profile: string | null;
  roots: string[];
  cwd: string | null;
  /**
   * The server's own `env` (its envFile and `${env:…}` read: identifyServerEntry), given when the
   * entry has one; null when it could not be read. The rest it inherits from the gateway.
   */
  env?: Readonly<Record<string, string>> | null;
}

/**
 * Recognises a well-known server from its command line (`npx -y @modelcontextprotocol/server-filesystem@1.2 ~/code`,
 * `node …/node_modules/mcp-server-commands/build/index.js`, `uvx mcp-server-git --repository x`,
 * `python -m mcp_server_git`, …). Remote servers get no profile and no cwd (their relative paths
 * mean nothing here). Filesystem roots and the git `--repository` are kept as written (`~` stays),
 * relative ones resolved against the server's cwd.
 */
export function identifyServer(
  server: { command?: string; args?: string[]; cwd?: string; url?: string; env?: Record<string, string>; envFile?: string },
  gatewayCwd: string,
): ServerIdentity {
  if (server.url !== undefined && server.command === undefined) return { profile: null, roots: [], cwd: null };
  const cwd = server.cwd === undefined ? gatewayCwd : resolveKeepingHome(gatewayCwd, server.cwd);
  // An envFile not read, or a `${env:…}` not expanded, leaves the server's environment unknown.
  const env = server.envFile !== undefined || Object.values(server.env ?? {}).some((value) => value.includes('${env:')) ? { env: null } : server.env ? { env: server.env } : {};
  const words = [server.command ?? '', ...(server.args ?? [])];
  for (let i = 0; i < words.length; i++) {
    const profile = PROFILES.find((p) => matchesPackage(words[i] as string, i, p));
    if (!profile) continue;
    const rest = words.slice(i + 1);
    return { profile: profile.name, roots: rootsFor(profile, rest, cwd), cwd, ...env };
  }
  return { profile: null, roots: [], cwd, ...env };
}

/**
 * The directory the server expands `~` to: os.homedir() of its process, which is its `HOME`
 * (`USERPROFILE` on Windows). Its own `env` may set one other than the gateway's (a server run
 * under a home of its own); undefined when it does not (the server inherits the gateway's); null
 * when its environment is not known or the value is no absolute directory. Round 29 review F29-1:
 * `~/secret/id` was decided as the gateway's home and read in the server's (docs/threat-model.md
 * "A path the server reads otherwise").
 */
export function serverHome(identity: ServerIdentity, platform: NodeJS.Platform = process.platform): string | null | undefined {
  if (identity.env === null) return null;
  const value = identity.env?.[platform === 'win32' ? 'USERPROFILE' : 'HOME'];
  if (value === undefined) return undefined;
  return (platform === 'win32' ? path.win32 : path.posix).isAbsolute(value) ? value : null;
}

/**
 * Whether the server's own environment may give git settings the command does not show:
 * `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS` (as `-c`), a
 * global or system file of its own (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `XDG_CONFIG_HOME`);
 * true when its environment is not known. Round 32 (rules32): a new branch from HEAD then stays a
 * write of the repository's config (`branch.autoSetupMerge`, inspect.ts setsAutoSetupMerge).
 */
export function serverSetsGitConfig(identity: ServerIdentity): boolean {
  if (identity.env === null) return true;
  return Object.keys(identity.env ?? {}).some((name) => /^(?:GIT_CONFIG_(?:COUNT|PARAMETERS|GLOBAL|SYSTEM)|XDG_CONFIG_HOME)$/.test(name));
}

/** identifyServer of a server entry as it is run (serversToRun): `${env:…}` expanded and its envFile read into its env. */
export function identifyServerEntry(name: string, server: ServerConfig, gatewayCwd: string): ServerIdentity {
  const expanded = 'command' in server ? expandServerEnv(name, server) : null;
  return identifyServer((expanded?.ok ? expanded.server : server) as Parameters<typeof identifyServer>[0], gatewayCwd);
}

/**
 * A word names the package exactly (version removed), or is a file of it. File forms count only for
 * the program itself or a script/installed path, so a root directory that happens to be called
 * `desktop-commander` does not make another server look like Desktop Commander.
 */
function matchesPackage(word: string, index: number, profile: Profile): boolean {
  const w = word.replace(/\\/g, '/');
  const bare = stripVersion(w);
  const isScript = /\.(c?js|mjs|cmd|exe|ps1|py)$/i.test(w) || /\/(node_modules|site-packages|\.bin)\//.test(w);
  const leaf = (bare.split('/').pop() ?? '').replace(/\.(c?js|mjs|cmd|exe|ps1|py)$/i, '');
  return profile.packages.some(
    (name) => bare === name || ((index === 0 || isScript) && leaf === name) || (isScript && w.includes(`/${name}/`)),
  );
}

/** `@scope/pkg@1.2.3` → `@scope/pkg`, `pkg@latest` → `pkg`, `mcp-server-git==0.6` → `mcp-server-git`. */
function stripVersion(word: string): string {
  const python = word.replace(/(==|>=|<=|~=|!=).*$/, '');
  const at = python.lastIndexOf('@');
  return at > 0 && !python.slice(at).includes('/') ? python.slice(0, at) : python;
}

function rootsFor(profile: Profile, rest: string[], cwd: string): string[] {
  if (profile.name === 'filesystem') {
    // server-filesystem treats every argument after the package as an allowed directory.
    return rest.map((dir) => resolveKeepingHome(cwd, dir));
  }
  if (profile.name === 'git') {
    for (let i = 0; i < rest.length; i++) {
      const word = rest[i] as string;
      if ((word === '--repository' || word === '-r') && rest[i + 1] !== undefined) return [resolveKeepingHome(cwd, rest[i + 1] as string)];
      if (word.startsWith('--repository=')) return [resolveKeepingHome(cwd, word.slice('--repository='.length))];
    }
  }
  return [];
}

/** Resolves `p` against `dir` unless it is absolute or starts with `~`; a `~` dir is joined, not resolved. */
function resolveKeepingHome(dir: string, p: string): string {
  if (isHomePath(p) || path.isAbsolute(p) || /^file:/i.test(p)) return p;
  if (dir.startsWith('~')) return path.join(dir, p);
  return path.resolve(dir, p);
}
