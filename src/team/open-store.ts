import type { Logger } from '../log.js';
import { readFileSync, statSync } from 'node:fs';
import { storeFile, type LoadedConfig } from '../config/load.js';
import { rulesGenerationsFile } from '../config/locate.js';
import { errorMessage, LatchError } from '../errors.js';
import { configIssues } from '../policy/policy.js';
import { RulesFile } from '../store/rules-file.js';
import { MemoryTeamStore } from './memory-store.js';
import { MIN_SIGNING_KEY_CHARS } from './store-signing.js';
import type { TeamStore } from './store.js';

/**
 * The team store a config asks for: shared (Redis at `store.url`) for several replicas, else the
 * embedded one, whose remembered rules are the users' overlays in the config file itself.
 */
export async function openTeamStore(config: LoadedConfig, logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<TeamStore> {
  const url = config.file.store?.url;
  if (url) {
    const password = storePassword(config, env);
    if (hasPassword(url)) logger.warn({ key: 'store.url' }, `store.url holds the Redis password, and whoever has it answers every member's calls: give it by store.passwordEnv or store.passwordFile instead (docs/team.md#two-replicas)`);
    const signingKey = storeSigningKey(config, logger);
    if (!signingKey) logger.warn({ key: 'store.signingKeyFile' }, 'answers, remembered rules and session grants in Redis are not signed: whoever can write to Redis answers every member\'s calls; set store.signingKeyFile in every replica\'s config (docs/team.md#two-replicas)');
    // ioredis loads only here, so a single replica never pays for it.
    const { RedisTeamStore } = await import('./redis-store.js');
    return RedisTeamStore.connect({ url, logger, ...(password !== undefined ? { password } : {}), ...(signingKey ? { signingKey, generationsFile: rulesGenerationsFile(config.path) } : {}) });
  }
  const file = new RulesFile(config.path, configIssues);
  return new MemoryTeamStore({
    list: (user) => file.list('allow', user),
    add: (user, rules, most) => file.add('allow', rules, user, most),
    remove: (user, rule) => file.remove('allow', rule, user),
  });
}

/** The Redis password from `store.passwordEnv` or `store.passwordFile` (its first line), or undefined when neither is given; a LatchError naming the key when it cannot be had. */
function storePassword(config: LoadedConfig, env: NodeJS.ProcessEnv): string | undefined {
  const variable = config.file.store?.passwordEnv;
  if (variable !== undefined) {
    const value = env[variable];
    if (value === undefined || value === '') throw new LatchError('STORE_UNAVAILABLE', `store.passwordEnv: the environment variable ${variable} is not set`);
    return value;
  }
  const file = storeFile(config, 'passwordFile');
  if (file === null) return undefined;
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/)[0]!;
  } catch (error) {
    throw new LatchError('STORE_UNAVAILABLE', `store.passwordFile: cannot read ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

/** The key of `store.signingKeyFile` (its first line), or null when none is set; a LatchError naming the key when it cannot be used. */
function storeSigningKey(config: LoadedConfig, logger: Logger): Buffer | null {
  const file = storeFile(config, 'signingKeyFile');
  if (file === null) return null;
  let key: string;
  try {
    if ((statSync(file).mode & 0o077) !== 0) logger.warn({ file }, 'store.signingKeyFile is readable or writable by other users of this machine: chmod 600 it');
    key = readFileSync(file, 'utf8').split(/\r?\n/)[0]!.trim();
  } catch (error) {
    throw new LatchError('STORE_UNAVAILABLE', `store.signingKeyFile: cannot read ${file}: ${errorMessage(error)}`, { cause: error });
  }
  if (key.length < MIN_SIGNING_KEY_CHARS) throw new LatchError('STORE_UNAVAILABLE', `store.signingKeyFile: the first line of ${file} has ${key.length} characters; the key needs ${MIN_SIGNING_KEY_CHARS} or more (for example: openssl rand -base64 32 > ${file})`);
  return Buffer.from(key, 'utf8');
}

function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}
