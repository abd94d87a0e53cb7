import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { parseConfigText, userConfigPath, type LoadedConfig } from '../config/load.js';
import type { ScopeConfig } from '../config/schema.js';
import { errorMessage, usage } from '../errors.js';
import { ruleIssues } from '../policy/policy.js';
import { backupFile, writeFileAtomic } from '../clients/backup.js';
import { editJsonc, type ClientLocation, type EntryContext } from '../clients/client-file.js';
import { unifiedDiff } from '../clients/diff.js';
import { scopeName, type DiscoveryContext } from '../clients/discover.js';
import { claudeProjectApproval } from '../clients/claude-approval.js';
import { importServers, type ImportResult } from '../clients/import.js';
import { gatewayLaunch, inNpxCache, packageRoot, schemaUrl } from '../clients/launch.js';
import { backupsDir, manifestPath } from '../config/locate.js';
import { starterRules, type StarterRules } from '../clients/starter-rules.js';
import { nothingToImport, selectFiles } from './init-sources.js';
import { undo } from './init-undo.js';
import { applyWraps, planWraps, staleGatewayEntries } from './init-wrap.js';
import type { Output } from './output.js';

/**
 * `mcp-latch init`: adopt mcp-latch in one command, reversibly, as often as you like.
 *
 *   init                 import the servers of every client config found into the mcp-latch config
 *   init --wrap          …and put each client file's servers behind mcp-latch (backup first)
 *   init --undo          the same edits in reverse, keeping whatever the clients wrote since
 *   init --dry-run       print the config and the diffs, write nothing
 *
 * One config holds every server and the rules; its `scopes` say which servers each client file
 * had, and each wrapped entry serves one scope (`serve --scope cursor`), so every client starts
 * exactly the servers it had, project servers in their project. Run again, init adds what the
 * clients gained since and changes nothing else; with nothing new it writes nothing. Copies of
 * every file it changes go to `mcp-latch-backups/` beside the config (owner-only; config/locate.ts), and
 * `mcp-latch-init.json` records each edit so --undo can reverse it.
 */

/** The flags of `mcp-latch init`, as yargs parses them. */
export interface InitOptions {
  config?: string | undefined;
  /** One explicit client config file instead of discovery. */
  from?: string | undefined;
  /** Client ids or families, comma-separated (`cursor`, `vscode-user`). */
  client?: string | undefined;
  workspace?: string | undefined;
  wrap?: boolean | undefined;
  undo?: boolean | undefined;
  dryRun?: boolean | undefined;
  /** Replace an existing mcp-latch config instead of adding to it (it is backed up first). */
  force?: boolean | undefined;
  json?: boolean | undefined;
}

/** Where init looks and what it writes with; tests point it at temp dirs and another platform's layout. */
export interface InitContext extends DiscoveryContext {
  now: () => Date;
  /** The Node binary the wrapped entry runs. */
  execPath: string;
  /** This package's root (bin/, schema/). */
  packageRoot: string;
}

/** The real machine: this user's home, platform, environment and working directory. */
function defaultInitContext(): InitContext {
  return {
    home: homedir(),
    platform: process.platform,
    env: process.env,
    cwd: process.cwd(),
    now: () => new Date(),
    execPath: process.execPath,
    packageRoot: packageRoot(),
  };
}

/** Runs `init` (or `init --undo`); returns the exit code, throws LatchError for one-line failures. */
export function init(options: InitOptions, out: Output, context: InitContext = defaultInitContext()): number {
  if (options.undo) {
    const extra = (['from', 'client', 'workspace', 'wrap', 'force'] as const).filter((key) => options[key] !== undefined && options[key] !== false);
    if (extra.length > 0) throw usage(`--undo takes only --config, --dry-run and --json (not --${extra.join(', --')})`);
    const configPath = configPathOf(options, context);
    return undo({ configPath, backups: backupsDir(configPath), dryRun: options.dryRun === true, json: options.json === true }, out, context.now());
  }
  return adopt(options, out, context);
}

function configPathOf(options: InitOptions, context: InitContext): string {
  return options.config ? resolve(context.cwd, options.config) : userConfigPath(context.env);
}

// ---------------------------------------------------------------------------------------------
// init [--wrap]

/** A server left in a client file: started by the client directly, outside the gate. */
interface Bypass {
  client: string;
  label: string;
  path: string;
  name: string;
  reason: string;
}

function adopt(options: InitOptions, out: Output, context: InitContext): number {
  if (options.from !== undefined && options.client !== undefined) throw usage('pass either --from FILE or --client NAME, not both');
  const configPath = configPathOf(options, context);
  const existingText = existsSync(configPath) ? readFileSync(configPath, 'utf8') : undefined;
  let existing: LoadedConfig | undefined;
  if (existingText !== undefined && !options.force) {
    try {
      existing = parseConfigText(existingText, configPath, ruleIssues);
    } catch (error) {
      throw usage(`${configPath} is not a valid config, so init cannot add to it (${errorMessage(error).split('\n').slice(1).join(';').trim()}); fix it (mcp-latch validate) or pass --force to replace it (it is backed up first)`);
    }
  }
  const workspace = resolve(context.cwd, options.workspace ?? '.');
  if (!isDirectory(workspace)) throw usage(`the workspace ${workspace} is not a directory (--workspace DIR)`);

  const warnings: string[] = [];
  if (inNpxCache(context.packageRoot)) warnings.push(`this mcp-latch runs from npx's cache (${context.packageRoot}), which npm may clear; the wrapped entries point there. Install it first (see the README) and run init again`);
  const files = selectFiles(options, context, warnings);
  const contextFor = (location: ClientLocation): EntryContext => ({ family: location.family, home: context.home, platform: context.platform, projectDir: location.projectDir });
  // Claude Code starts a project's .mcp.json servers only once the person approved them there (claude-approval.ts).
  const approvalFor = (location: ClientLocation) => (location.family === 'claude-code' && location.scope === 'project' && location.projectDir !== undefined ? claudeProjectApproval(location.projectDir, context.home) : null);
  const result = importServers(files, contextFor, existing?.file.mcpServers ?? {}, approvalFor);
  if (!existing && Object.keys(result.servers).length === 0) throw nothingToImport(files, result);
  warnings.push(...result.warnings);

  const scopes = scopesOf(result);
  let rules: StarterRules | undefined;
  let configText: string;
  if (existing) {
    configText = mergeConfig(existing, result, scopes);
  } else {
    if (workspace === resolve(context.home)) {
      warnings.push(`the workspace is your home directory, so reads anywhere in it are allowed (except the denied secrets); pass --workspace DIR for a project`);
    }
    rules = starterRules(result.servers, { workspace, home: context.home, platform: context.platform, extraDeny: result.deny });
    const config = { $schema: schemaUrl(context.packageRoot), mcpServers: result.servers, workspace: rules.workspace, scopes: Object.fromEntries(scopes), permissions: rules.permissions };
    configText = `${JSON.stringify(config, null, 2)}\n`;
  }
  // What init writes must load: a failure here is a bug in the import, reported before anything is written.
  const written = parseConfigText(configText, configPath, ruleIssues);
  const configChanged = configText !== existingText;

  const plans = options.wrap ? planWraps(files, result, written, configPath, context, warnings) : [];
  const bypass = bypassing(result);
  for (const file of files) {
    const stale = staleGatewayEntries(file, written);
    if (stale) warnings.push(stale);
  }

  const summary = {
    config: configPath,
    dryRun: options.dryRun === true,
    configChanged,
    sources: result.sources.map((source) => ({
      client: source.location.id,
      label: source.location.label,
      path: source.location.path,
      scope: scopeName(source.location),
      servers: source.servers,
      skipped: source.skipped,
    })),
    added: Object.fromEntries(result.imported.map((item) => [item.name, { client: item.location.id, originalName: item.originalName }])),
    scopes: Object.fromEntries(scopes),
    bypass,
    ...(rules ? { permissions: rules.permissions, reasons: rules.reasons } : {}),
    notes: result.notes,
    warnings,
  };

  const unchanged = !configChanged && plans.length === 0;
  if (options.dryRun || unchanged) {
    if (options.json) {
      out.json({ ...summary, configText, wrap: plans.map((plan) => ({ path: plan.path, diff: plan.diff })) });
      return 0;
    }
    printSummary(summary, result, rules, out);
    if (unchanged) {
      out.line('');
      out.line(`Nothing to change: ${configPath} already has every server of these client files${options.wrap ? ', and each file already starts mcp-latch' : ''}. Nothing was written.`);
      if (!options.wrap) printRegisterHint(written, configPath, context, out);
      return 0;
    }
    out.line('');
    if (configChanged) {
      out.line(existingText === undefined ? `Would write ${configPath}:` : `Would ${existing ? 'add to' : 'replace (after a backup)'} ${configPath}:`);
      out.line(existing ? unifiedDiff(existingText!, configText, configPath, `${configPath} (new)`) : configText.trimEnd());
    }
    for (const plan of plans) {
      out.line('');
      out.line(`Would back up and change ${plan.label}:`);
      out.line(plan.diff);
    }
    if (!options.wrap) printRegisterHint(written, configPath, context, out);
    out.line('');
    out.line('Dry run: nothing was written.');
    return 0;
  }

  const now = context.now();
  const configBackup = configChanged && existingText !== undefined ? backupFile(backupsDir(configPath), configPath, now) : null;
  const madePrivate = configChanged ? writePrivateConfig(configPath, configText) : null;
  const { wrapped, failed } = plans.length > 0 ? applyWraps(plans, configPath, backupsDir(configPath), now) : { wrapped: [], failed: [] };
  const status = failed.length > 0 ? 1 : 0;

  if (options.json) {
    out.json({ ...summary, configBackup, wrapped, notWrapped: failed, manifest: wrapped.length > 0 ? manifestPath(configPath) : null });
    return status;
  }
  printSummary(summary, result, rules, out);
  out.line('');
  if (configBackup) out.line(`Backed up the previous config to ${configBackup}.`);
  if (configChanged) {
    const added = result.imported.length;
    const what = existing ? `added ${added} server${added === 1 ? '' : 's'}; your rules and edits are kept` : `${Object.keys(result.servers).length} servers`;
    out.line(`Wrote ${configPath} (${what}). Check it with: mcp-latch validate --config ${quote(configPath)}`);
    if (madePrivate !== null) out.line(`Made ${configPath} readable by you only (it was ${madePrivate.toString(8).padStart(4, '0')}): it holds your servers' env and headers.`);
  }
  if (wrapped.length > 0) {
    out.line('Wrapped (each block now starts its servers through mcp-latch):');
    for (const record of wrapped) out.line(`  ${record.label}  ${record.file}  "${record.entry}" serves scope ${record.scope}`);
    out.line(`Backups: ${backupsDir(configPath)}`);
    const clients = [...new Set(wrapped.map((record) => record.label.replace(/ \(.*$/, '')))];
    out.line(`Restart ${clients.join(', ')} to use mcp-latch. Undo with: mcp-latch init --undo --config ${quote(configPath)}`);
  } else if (!options.wrap) {
    printRegisterHint(written, configPath, context, out);
  }
  if (failed.length > 0) {
    out.error('Not changed (their servers still start directly, outside mcp-latch; run init --wrap again once fixed):');
    for (const failure of failed) out.error(`  ${failure.label}  ${failure.file}: ${failure.reason}`);
  }
  return status;
}

/** Which servers each block gave, as `scopes` entries; a project block's scope gets its project as workspace. */
function scopesOf(result: ImportResult): Map<string, ScopeConfig> {
  const scopes = new Map<string, ScopeConfig>();
  for (const source of result.sources) {
    if (source.servers.length === 0) continue;
    const name = scopeName(source.location);
    const scope = scopes.get(name) ?? { servers: [], ...(source.location.projectDir === undefined ? {} : { workspace: [source.location.projectDir] }) };
    for (const server of source.servers) if (!scope.servers.includes(server)) scope.servers.push(server);
    scopes.set(name, scope);
  }
  return scopes;
}

/**
 * The existing config with the new servers, scopes and scope members added, as edits of its text:
 * every rule, key and format of the file stays as the person left it.
 */
function mergeConfig(existing: LoadedConfig, result: ImportResult, scopes: Map<string, ScopeConfig>): string {
  let text = existing.text;
  for (const item of result.imported) text = editJsonc(text, ['mcpServers', item.name], item.server);
  for (const [name, scope] of scopes) {
    const had = existing.file.scopes[name];
    if (!had) text = editJsonc(text, ['scopes', name], scope);
    else {
      const missing = scope.servers.filter((server) => !had.servers.includes(server));
      if (missing.length > 0) text = editJsonc(text, ['scopes', name, 'servers'], [...had.servers, ...missing]);
    }
  }
  const newNames = new Set(result.imported.map((item) => item.name));
  const deny = result.deny.filter((rule) => newNames.has(rule.split('__')[1] ?? '') && !existing.file.permissions.deny.includes(rule));
  if (deny.length > 0) text = editJsonc(text, ['permissions', 'deny'], [...existing.file.permissions.deny, ...deny]);
  return text;
}

/** The entries init leaves in client files, with why: the client keeps starting them, unchecked. */
function bypassing(result: ImportResult): Bypass[] {
  return result.sources.flatMap((source) =>
    source.skipped
      .filter((skip) => !skip.self && !skip.unapproved)
      .map((skip) => ({ client: source.location.id, label: source.location.label, path: source.location.path, name: skip.name, reason: skip.reason })),
  );
}

interface Summary {
  config: string;
  bypass: Bypass[];
  warnings: string[];
  notes: string[];
}

function printSummary(summary: Summary, result: ImportResult, rules: StarterRules | undefined, out: Output): void {
  const sources = result.sources.filter((source) => source.servers.length > 0);
  out.line(`Found ${sources.length} client servers block${sources.length === 1 ? '' : 's'}:`);
  for (const source of sources) out.line(`  ${source.location.label}  ${source.location.path}  (${source.servers.join(', ')})`);
  if (result.imported.length > 0) out.line(`New in the mcp-latch config: ${result.imported.map((item) => item.name).join(', ')}`);
  if (summary.bypass.length > 0) {
    out.line('Still bypasses mcp-latch (left in the client file, untouched; the client starts it directly):');
    for (const item of summary.bypass) out.line(`  ${item.label} "${item.name}": ${item.reason}`);
  }
  const unapproved = result.sources.flatMap((source) => source.skipped.filter((skip) => skip.unapproved).map((skip) => `  ${source.location.label} ${source.location.path} "${skip.name}": ${skip.reason}`));
  if (unapproved.length > 0) {
    out.line('Not imported (left in the client file, which decides about it as before):');
    for (const line of unapproved) out.line(line);
  }
  if (summary.notes.length > 0) {
    out.line('Notes:');
    for (const note of summary.notes) out.line(`  ${note}`);
  }
  if (rules) {
    out.line('Starter rules (defaultMode "default"):');
    for (const reason of rules.reasons) out.line(`  ${reason}`);
  }
  for (const warning of summary.warnings) out.error(`warning: ${warning}`);
}

function printRegisterHint(config: LoadedConfig, configPath: string, context: InitContext, out: Output): void {
  out.line('Next: run init --wrap to put each client file\'s servers behind mcp-latch (with backups), or replace them by hand with:');
  for (const scope of Object.keys(config.file.scopes)) {
    const launch = gatewayLaunch(configPath, scope, { execPath: context.execPath, packageRoot: context.packageRoot });
    out.line(`  ${scope}: ${JSON.stringify({ command: launch.command, args: launch.args })}`);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function quote(path: string): string {
  return /^[A-Za-z0-9_\-./:\\]+$/.test(path) ? path : JSON.stringify(path);
}

/**
 * Writes the config readable by its owner only: it now holds the servers' `env` and `headers`
 * (tokens) taken from client files that were private (round 12 review, F4). A new config and its
 * new folder are made private; an existing one loses group and other access, returning its old
 * mode when it had any (null when it did not).
 */
function writePrivateConfig(configPath: string, configText: string): number | null {
  mkdirSync(dirname(configPath), { recursive: true, mode: 0o700 });
  writeFileAtomic(configPath, configText, 0o600);
  const mode = statSync(configPath).mode & 0o7777;
  if ((mode & 0o077) === 0) return null;
  chmodSync(configPath, mode & ~0o077);
  return mode;
}
