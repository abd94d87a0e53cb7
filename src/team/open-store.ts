import type { Logger } from '../log.js';
import type { LoadedConfig } from '../config/load.js';
import { configIssues } from '../policy/policy.js';
import { RulesFile } from '../store/rules-file.js';
import { MemoryTeamStore } from './memory-store.js';
import type { TeamStore } from './store.js';

/**
 * The team store a config asks for: shared (Redis at `store.url`) for several replicas, else the
 * embedded one, whose remembered rules are the users' overlays in the config file itself.
 */
export async function openTeamStore(config: LoadedConfig, logger: Logger): Promise<TeamStore> {
  if (config.file.store?.url) {
    // ioredis loads only here, so a single replica never pays for it.
    const { RedisTeamStore } = await import('./redis-store.js');
    return RedisTeamStore.connect({ url: config.file.store.url, logger });
  }
  const file = new RulesFile(config.path, configIssues);
  return new MemoryTeamStore({
    list: (user) => file.list('allow', user),
    add: async (user, rules) => (await file.add('allow', rules, user)).added,
    remove: async (user, rule) => (await file.remove('allow', rule, user)).added.length > 0,
  });
}
