/**
 * Programmatic entry: what bin/ and tests use. The gateway, config loading and the policy engine.
 */
import { loadConfig as loadConfigFile, parseConfigText as parseConfigFileText, type LoadedConfig } from './config/load.js';
import { configSchemas } from './config/schema.js';
import { ruleIssues } from './policy/policy.js';
export { Gateway } from './gateway/server.js';
export { mirrorCapabilities } from './gateway/core.js';
export { VERSION } from './version.js';
export { findConfig, type LoadedConfig } from './config/load.js';
export { configJsonSchema, configSchemas, type ConfigFile, type ConfigInput } from './config/schema.js';
export { decide, type CallFacts, type PolicyState } from './policy/decide.js';
export { configIssues, policyFor, ruleIssues } from './policy/policy.js';
export { parseRule, type Rule } from './policy/rule.js';
export { RuleSet } from './policy/match.js';
export { analyseCommand, initShellParser } from './subjects/shell/index.js';
export { inspectCall } from './subjects/inspect.js';
export { classifyTool } from './subjects/kind.js';
export { identifyServer } from './subjects/server-identity.js';
export { canonicalPath } from './subjects/paths.js';
export { LatchError, type LatchErrorCode } from './errors.js';
export type * from './policy/types.js';

/** Reads and checks a config file, rules included; throws LatchError CONFIG_INVALID listing every issue. */
export function loadConfig(path: string): LoadedConfig {
  return loadConfigFile(path, ruleIssues);
}

/** Checks config text as if it were the file at `path`, rules included. */
export function parseConfigText(text: string, path: string): LoadedConfig {
  return parseConfigFileText(text, path, ruleIssues);
}

/** The config file's schema, made once for users of this package (the gateway makes one per read: config/schema.ts). */
export const ConfigSchema = configSchemas().config;
