import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseConfigText, userConfigPath, type LoadedConfig } from '../config/load.js';
import type { ScopeConfig } from '../config/schema.js';
import { errorMessage, LatchError, usage } from '../errors.js';
import { ruleIssues } from '../policy/policy.js';
import { isPlainObject } from '../values.js';
import { backupFile, writeFileAtomic } from '../clients/backup.js';
import { editJsonc, parseJsonc, readClientFile, type ClientFile, type ClientLocation, type EntryContext } from '../clients/client-file.js';
import { unifiedDiff } from '../clients/diff.js';
import { CLIENT_NAMES, claudeCodeLocalBlocks, claudeCodeProjectFiles, clientLocations, discoverClients, gatewayEntryName, locationForFile, matchesClient, scopeName, type DiscoveryContext } from '../clients/discover.js';
import { importServers, type ImportResult } from '../clients/import.js';
import { gatewayLaunch, inNpxCache, packageRoot, schemaUrl } from '../clients/launch.js';
import { readManifest, writeManifest, type InitManifest, type WrapRecord } from '../clients/manifest.js';
import { manifestPath } from '../config/locate.js';
import { isGatewayEntry } from '../clients/server-entry.js';
import { starterRules, type StarterRules } from '../clients/starter-rules.js';
import { wrapBlock } from '../clients/wrap.js';
import { undo } from './init-undo.js';
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
 * every file it changes go to `backups/` beside the config (owner-only), and
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

/** The private folder beside the config where copies of changed files go. */
function backupsDir(configPath: string): string {
  return join(dirname(configPath), 'backups');
}

// ---------------------------------------------------------------------------------------------
// init [--wrap]

/** The edits to one client file: every block of it that changes. */
interface WrapPlan {
  path: string;
  label: string;
  bytes: Buffer;
  text: string;
  diff: string;
  records: Array<Omit<WrapRecord, 'backup' | 'wrappedAt'>>;
}

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
  const result = importServers(files, contextFor, existing?.file.mcpServers ?? {});
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
  if (configChanged) writeFileAtomic(configPath, configText, 0o600);
  const wrapped = plans.length > 0 ? applyWraps(plans, configPath, now) : [];

  if (options.json) {
    out.json({ ...summary, configBackup, wrapped, manifest: wrapped.length > 0 ? manifestPath(configPath) : null });
    return 0;
  }
  printSummary(summary, result, rules, out);
  out.line('');
  if (configBackup) out.line(`Backed up the previous config to ${configBackup}.`);
  if (configChanged) {
    const added = result.imported.length;
    const what = existing ? `added ${added} server${added === 1 ? '' : 's'}; your rules and edits are kept` : `${Object.keys(result.servers).length} servers`;
    out.line(`Wrote ${configPath} (${what}). Check it with: mcp-latch validate --config ${quote(configPath)}`);
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
  return 0;
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

/** The client files to import from: `--from`, or the discovered ones (filtered by `--client`) that have servers. */
function selectFiles(options: InitOptions, context: InitContext, warnings: string[]): ClientFile[] {
  if (options.from !== undefined) {
    const path = resolve(context.cwd, options.from);
    if (!existsSync(path)) throw usage(`--from ${path} does not exist`);
    const data = parseJsonc(readFileSync(path, 'utf8'), path);
    if (!isPlainObject(data)) throw new LatchError('CLIENT_FILE_INVALID', `${path} is not a JSON object; pass --from a client config file`);
    const file = readClientFile(locationForFile(path, data as Record<string, unknown>, context));
    const files = [file, ...claudeCodeLocalBlocks(file)].filter((one) => one.entries.length > 0);
    if (files.length === 0) throw usage(`${path} has no servers (no "${file.location.format.serversKey}" block with entries)`);
    return files;
  }

  const names = options.client?.split(',').map((name) => name.trim()).filter((name) => name !== '') ?? [];
  const unknown = names.filter((name) => !CLIENT_NAMES.includes(name));
  if (unknown.length > 0) throw usage(`unknown client ${unknown.map((name) => JSON.stringify(name)).join(', ')} (known: ${CLIENT_NAMES.join(', ')})`);
  const wanted = (location: ClientLocation) => names.length === 0 || names.some((name) => matchesClient(location, name));
  const files: ClientFile[] = [];
  const read = (location: ClientLocation): ClientFile | undefined => {
    try {
      return readClientFile(location);
    } catch (error) {
      // A file the user picked must be readable; a broken file merely found is skipped, loudly.
      if (names.length > 0) throw error;
      warnings.push(`skipped ${location.label} ${location.path}: ${(error as Error).message}`);
      return undefined;
    }
  };
  const found = discoverClients(context);
  const known = new Set(found.map((one) => one.path));
  for (const location of found) {
    // ~/.claude.json holds Claude Code's user and local scopes, and names the projects of its project scope.
    const isClaudeUser = location.id === 'claude-code-user';
    if (!wanted(location) && !(isClaudeUser && names.includes('claude-code-local'))) continue;
    const file = read(location);
    if (!file) continue;
    if (wanted(location)) files.push(file);
    if (!isClaudeUser) continue;
    files.push(...claudeCodeLocalBlocks(file).filter((block) => wanted(block.location)));
    for (const project of claudeCodeProjectFiles(file)) {
      const other = wanted(project) && !known.has(project.path) ? read(project) : undefined;
      if (other) files.push(other);
    }
  }
  if (files.length === 0) {
    const looked = clientLocations(context).filter(wanted).map((location) => location.path);
    const what = names.length > 0 ? `no ${names.join(' or ')} config found` : 'no MCP client config found';
    throw usage(`${what} (looked at ${looked.join(', ')}); pass --from FILE to import another file`);
  }
  return files.filter((file) => file.entries.length > 0);
}

function nothingToImport(files: ClientFile[], result: ImportResult): LatchError {
  if (files.length === 0) return usage('the client configs found have no servers to import; pass --from FILE to import another file');
  const why = result.sources.map((source) => {
    const reasons = source.skipped.map((skip) => `"${skip.name}" ${skip.reason}`);
    return `${source.location.label} ${source.location.path}: ${reasons.join('; ')}`;
  });
  const wrapped = result.sources.every((source) => source.skipped.every((skip) => skip.self));
  return usage(`no servers to import${wrapped ? ' (the client configs already start mcp-latch, but its config is missing; init --undo restores them)' : ''}: ${why.join(' | ')}`);
}

/** The entries init leaves in client files, with why: the client keeps starting them, unchecked. */
function bypassing(result: ImportResult): Bypass[] {
  return result.sources.flatMap((source) =>
    source.skipped
      .filter((skip) => !skip.self)
      .map((skip) => ({ client: source.location.id, label: source.location.label, path: source.location.path, name: skip.name, reason: skip.reason })),
  );
}

/** A block that starts mcp-latch for a scope the config does not have (the config was replaced): that entry would fail. */
function staleGatewayEntries(file: ClientFile, config: LoadedConfig): string | undefined {
  for (const [name, raw] of file.entries) {
    if (!isPlainObject(raw) || !isGatewayEntry(raw) || !Array.isArray(raw.args)) continue;
    const at = raw.args.indexOf('--scope');
    const scope = at >= 0 ? raw.args[at + 1] : undefined;
    if (typeof scope === 'string' && !(scope in config.file.scopes)) {
      return `${file.location.label} ${file.location.path}: "${name}" serves scope ${scope}, which ${config.path} does not have; that entry will not start (init --undo restores the servers it replaced)`;
    }
  }
  return undefined;
}

/** The edits to each client file: per block, the imported entries out and the scope's gateway entry in. */
function planWraps(files: ClientFile[], result: ImportResult, config: LoadedConfig, configPath: string, context: InitContext, warnings: string[]): WrapPlan[] {
  const byPath = new Map<string, ClientFile[]>();
  for (const file of files) byPath.set(file.location.path, [...(byPath.get(file.location.path) ?? []), file]);
  const plans: WrapPlan[] = [];
  for (const [path, blocks] of byPath) {
    const first = blocks[0]!;
    let text = first.text;
    const records: WrapPlan['records'] = [];
    for (const file of blocks) {
      const { location } = file;
      const source = result.sources.find((candidate) => candidate.location === location);
      const skipped = new Set(source?.skipped.map((skip) => skip.name) ?? []);
      const remove = file.entries.map(([name]) => name).filter((name) => !skipped.has(name));
      if (remove.length === 0) continue;
      const scope = scopeName(location);
      if (!(scope in config.file.scopes)) continue;
      const entry = gatewayEntryName(location);
      const value = location.format.gatewayEntry(gatewayLaunch(configPath, scope, { execPath: context.execPath, packageRoot: context.packageRoot }));
      const change = wrapBlock(text, location, remove, entry, value);
      text = change.text;
      records.push({ client: location.id, label: location.label, file: path, blockPath: location.blockPath, scope, entry, removed: change.removed, originalBlock: change.originalBlock, written: change.written });
      if (location.scope === 'project') warnings.push(`${location.label}: ${path} is often committed to the project; its wrapped entry holds absolute paths of this machine`);
    }
    if (text === first.text) continue;
    plans.push({ path, label: blocks.map((block) => block.location.label).join(', '), bytes: first.bytes, text, diff: unifiedDiff(first.text, text, path, `${path} (wrapped)`), records });
  }
  return plans;
}

/** Backs up and rewrites each client file, recording each block's edit in the manifest as it happens. */
function applyWraps(plans: WrapPlan[], configPath: string, now: Date): WrapRecord[] {
  const file = manifestPath(configPath);
  const manifest: InitManifest = readManifest(file) ?? { version: 2, config: configPath, wrapped: [] };
  const records: WrapRecord[] = [];
  for (const plan of plans) {
    // Security: the file is re-read so an edit made while init ran is never overwritten unseen.
    if (!readFileSync(plan.path).equals(plan.bytes)) throw new LatchError('STORE_WRITE_FAILED', `${plan.path} changed while init was running; it was left as is (run init again)`);
    const backup = backupFile(backupsDir(configPath), plan.path, now);
    writeFileAtomic(plan.path, plan.text);
    for (const partial of plan.records) {
      const record: WrapRecord = { ...partial, backup, wrappedAt: now.toISOString() };
      manifest.wrapped.push(record);
      records.push(record);
    }
    writeManifest(file, manifest);
  }
  return records;
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
