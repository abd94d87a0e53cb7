import type { GatewayCore } from '../gateway/core.js';
import type { CallContext } from '../gateway/ports.js';
import { BoundReached, errorMessage, LatchError } from '../errors.js';
import type { PolicyState } from '../policy/decide.js';
import { parseRule } from '../policy/rule.js';
import type { TeamStore } from './store.js';

/**
 * Each user's rules (docs/team.md#per-user-rules): the team's `permissions`, then their overlay
 * `users.<id>` from the config, then the rules they remembered (the store). All lists are merged
 * and decided deny → ask → allow, so nothing a user adds can lift a team deny or ask; the overlay's
 * `defaultMode` replaces the team's for that user only.
 */
export class UserPolicies {
  private readonly remembered = new Map<string, string[]>();
  private readonly built = new Map<string, PolicyState>();

  constructor(
    private readonly core: GatewayCore,
    private readonly store: TeamStore,
  ) {
    core.onPolicyChange(() => this.built.clear());
    // The embedded store's remembered rules are the config's overlay (`own.allow` below): what it
    // writes is put in force at once, through the core, before the answer or the forget returns
    // (round 24; until then a forgotten rule held until the file watcher read the file again).
    store.useConfig({
      rules: (user) => [...(core.config().users[user]?.permissions?.allow ?? [])],
      apply: (text) => {
        core.reload(text, 'remembered rules changed');
        // Fail closed: a forget whose text is not in force (refused, logged) must not say it is.
        if (core.currentText() !== text) throw new LatchError('STORE_WRITE_FAILED', "the config file was written but the gateway could not put it in force (see the log): the rules it held before still hold");
      },
    });
    // Awaited by the store: a forget is in force here once this has read the rules again.
    store.onRulesChanged((user) => this.load(user));
  }

  /** Reads a user's remembered rules; their calls wait for this (holdCallsUntil). Never rejects. */
  async load(user: string): Promise<void> {
    // The embedded store's are the config in force, read at each policy build: nothing to copy.
    if (this.store.remembersInConfig) {
      this.built.delete(user);
      return;
    }
    try {
      // Fail closed: a replica that does not hear of forgets holds none (redis-store.ts, 'close').
      if (!this.store.hearsRuleChanges()) throw new Error('this replica does not hear of changes to remembered rules now (the team store\'s subscriber connection is down)');
      const rules = await this.store.rememberedRules(user);
      if (!this.store.hearsRuleChanges()) throw new Error('this replica stopped hearing of changes to remembered rules while it read them');
      this.remembered.set(user, rules);
    } catch (error) {
      // Fail closed: without their remembered rules a user's calls ask more, never less. Until
      // round 24 the copy from before was kept, so a rule forgotten meanwhile still allowed.
      this.remembered.delete(user);
      this.core.logger.error({ err: errorMessage(error), user }, 'could not read the remembered rules of a user; none of them holds until they are read');
    }
    this.built.delete(user);
  }

  policy(user: string): PolicyState {
    let policy = this.built.get(user);
    if (!policy) {
      const config = this.core.config();
      const team = config.permissions;
      const own = config.users[user]?.permissions;
      const remembered = (this.remembered.get(user) ?? []).filter((rule) => this.valid(rule, user));
      policy = this.core.policyOf({
        defaultMode: own?.defaultMode ?? team.defaultMode,
        allow: [...team.allow, ...(own?.allow ?? []), ...remembered],
        ask: [...team.ask, ...(own?.ask ?? [])],
        deny: [...team.deny, ...(own?.deny ?? [])],
      });
      this.built.set(user, policy);
    }
    return policy;
  }

  /** A remembered rule the store holds but that does not parse is left out (and logged), not the whole policy. */
  private valid(rule: string, user: string): boolean {
    try {
      parseRule(rule, 'allow');
      return true;
    } catch (error) {
      this.core.logger.error({ err: errorMessage(error), user, rule }, 'a remembered rule is invalid and is ignored');
      return false;
    }
  }
}

/** The call pipeline's view of the gateway for one user: their policy and their remembered rules (their id reaches the audit through the session). */
export function userContext(core: GatewayCore, policies: UserPolicies, store: TeamStore, user: string): CallContext {
  return {
    registry: core.registry,
    permits: core.permits,
    running: core.running,
    processes: core.processes,
    get audit() {
      return core.audit;
    },
    logger: core.logger,
    config: () => core.config(),
    policy: () => policies.policy(user),
    toolClass: (route) => core.toolClass(route),
    analysisReady: (route) => core.analysisReady(route),
    inspectContext: () => core.inspectContext(),
    // "Always allow" goes to this user's rules only, and is in force before the call goes on.
    rememberAlways: async (rules) => {
      // Security: a member's remembered rules are bounded: each is in the config's text (or the store), written
      // and read again, for every member, at each change (round 31 review, T31-4: unbounded).
      // The store counts in the step that writes (round 32: the count was read first, so answers given at once,
      // on one replica or several, passed the bound by as many).
      const most = core.config().http.maxRememberedRulesPerUser;
      try {
        await store.remember(user, rules, most);
      } catch (error) {
        if (error instanceof BoundReached) throw new LatchError('STORE_WRITE_FAILED', `user ${user} keeps ${error.kept} remembered rules, and http.maxRememberedRulesPerUser allows ${most}: forget some (DELETE /api/rules), or raise http.maxRememberedRulesPerUser`);
        throw error;
      }
      await policies.load(user);
    },
    // A definition this member accepted holds for them only: another member is still asked (docs/team.md, "Pins").
    definitionReport: (route) => core.definitionReport(route, user),
    templateReport: (uri) => core.templateReport(uri),
    pinDefinition: (report) => core.pinDefinition(report),
    acceptDefinition: (report) => core.acceptDefinition(report, user),
    pinAfter: (report, answered) => core.pinAfter(report, answered),
    // Shared by every member: another list only adds readings each call is decided against (docs/threat-model.md).
    noteServerRoots: (server, uris) => core.noteServerRoots(server, uris),
  };
}
