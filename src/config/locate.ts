import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, posix, resolve, win32 } from 'node:path';
import { LatchError } from '../errors.js';

/**
 * Where the config file is. Kept apart from load.ts, which needs zod: `serve` finds and reads the
 * file, and starts its servers, before it loads the schema (config/early.ts).
 */

/** Lookup order of docs/config.md: --config, $MCP_LATCH_CONFIG, ./mcp-latch.json, the per-user config dir. */
export function configCandidates(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string[] {
  if (explicit) return [resolve(cwd, explicit)];
  if (env.MCP_LATCH_CONFIG) return [resolve(cwd, env.MCP_LATCH_CONFIG)];
  return [join(cwd, 'mcp-latch.json'), userConfigPath(env)];
}

/**
 * A base folder named by the environment (`XDG_CONFIG_HOME`, `APPDATA`, …), read as the XDG Base
 * Directory spec reads one: empty or relative means unset. An exported but empty XDG_CONFIG_HOME
 * put the config and the backups of `~/.claude.json` in the project folder and a relative
 * `--config` in every client (round 16 review H1).
 */
export function baseDirectory(value: string | undefined, fallback: string, platform: NodeJS.Platform = process.platform): string {
  return value !== undefined && (platform === 'win32' ? win32 : posix).isAbsolute(value) ? value : fallback;
}

/** `~/.config/mcp-latch/mcp-latch.json`, or `%APPDATA%\mcp-latch\mcp-latch.json` on Windows. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32') return join(baseDirectory(env.APPDATA, join(homedir(), 'AppData', 'Roaming')), 'mcp-latch', 'mcp-latch.json');
  return join(baseDirectory(env.XDG_CONFIG_HOME, join(homedir(), '.config')), 'mcp-latch', 'mcp-latch.json');
}

/**
 * Where bin/ keeps V8's code cache of the serve bundle (cli/code-cache.ts): `$XDG_CACHE_HOME/mcp-latch`
 * (~/.cache), ~/Library/Caches/mcp-latch, %LOCALAPPDATA%\mcp-latch. Writes there are denied like
 * writes of the config (policy/policy.ts): the cache is code the gateway runs.
 */
export function codeCacheDirectory(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (process.platform === 'win32') return join(baseDirectory(env.LOCALAPPDATA, join(home, 'AppData', 'Local')), 'mcp-latch');
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'mcp-latch');
  return join(baseDirectory(env.XDG_CACHE_HOME, join(home, '.cache')), 'mcp-latch');
}

/**
 * The files kept next to the config, named after it. Named here once: the built-in write protection
 * (policy/policy.ts) covers exactly these paths.
 */
function sibling(configPath: string, suffix: string): string {
  return join(dirname(configPath), `${basename(configPath).replace(/\.jsonc?$/i, '')}${suffix}`);
}

/** `init`'s record of the client files it wrapped: `mcp-latch.json` → `mcp-latch-init.json`. */
export function manifestPath(configPath: string): string {
  return sibling(configPath, '-init.json');
}

/**
 * Where `init` keeps byte copies of the client files it changes (tokens included): `mcp-latch.json`
 * → `mcp-latch-backups/` beside the config, a name that says whose it is, so the whole folder is
 * protected (policy/policy.ts) without taking a project's own `backups/`.
 */
export function backupsDir(configPath: string): string {
  return sibling(configPath, '-backups');
}

/**
 * Where `init` kept them before round 20: `backups/` beside the config. A project's own folder of
 * that name was then denied to every tool (round 19 review, F-backups); now only init's copies in
 * it are (clients/backup.ts `initCopiesIn`), which stay where the manifest names them.
 */
export function legacyBackupsDir(configPath: string): string {
  return join(dirname(configPath), 'backups');
}

/** The lock file of pinned tool definitions: `mcp-latch.json` → `mcp-latch.lock.json`. */
export function pinsFileFor(configPath: string): string {
  return sibling(configPath, '.lock.json');
}

/**
 * The approval page's state file (its address and secret, for `mcp-latch page`): beside the
 * config, `.NAME-pages.json`.
 */
export function pageStateFile(configPath: string): string {
  return join(dirname(configPath), `.${basename(configPath).replace(/\.jsonc?$/i, '')}-pages.json`);
}

/**
 * Where the one-time links given to a browser wait, each in a file of its own (approval-page/opener.ts):
 * beside the config, `.NAME-open/`, mode 0700. The browser is given the file's path, never the
 * link: a command line is read by every local user (round 18 review, L1).
 */
export function pageOpenerDir(configPath: string): string {
  return join(dirname(configPath), `.${basename(configPath).replace(/\.jsonc?$/i, '')}-open`);
}

/**
 * The secret `serve --http` requires when no `http.tokens` or `http.oauth` is configured
 * (team/local-secret.ts): beside the config, `.NAME-http-secret`, mode 0600, new at each start.
 */
export function httpSecretFile(configPath: string): string {
  return join(dirname(configPath), `.${basename(configPath).replace(/\.jsonc?$/i, '')}-http-secret`);
}

/**
 * The newest generation of each user's remembered rules a team gateway on Redis has verified
 * (team/redis-store.ts): beside the config, `.NAME-rules-generations.json`, mode 0600, so a
 * restarted replica still refuses an older copy of the rules written back into Redis.
 */
export function rulesGenerationsFile(configPath: string): string {
  return join(dirname(configPath), `.${basename(configPath).replace(/\.jsonc?$/i, '')}-rules-generations.json`);
}

/** The key that signs paused calls' requestState (latch/request-state.ts): beside the config file. */
export function stateKeyPath(configPath: string): string {
  return join(dirname(configPath), 'mcp-latch-state.key');
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

