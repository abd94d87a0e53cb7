import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { parseConfigText, userConfigPath } from '../config/load.js';
import { LatchError } from '../errors.js';
import { ruleIssues } from '../policy/policy.js';
import { backupFile, sha256, writeFileAtomic } from '../clients/backup.js';
import { parseJsonc, readClientFile, replaceServersBlock, type ClientFile, type ClientLocation, type EntryContext, type Launch } from '../clients/client-file.js';
import { unifiedDiff } from '../clients/diff.js';
import { CLIENT_NAMES, clientLocations, discoverClients, locationForFile, matchesClient, type DiscoveryContext } from '../clients/discover.js';
import { importServers, type ImportResult } from '../clients/import.js';
import { gatewayLaunch, packageRoot, schemaUrl } from '../clients/launch.js';
import { manifestPath, readManifest, writeManifest, type InitManifest, type WrapRecord } from '../clients/manifest.js';
import { starterRules, type StarterRules } from '../clients/starter-rules.js';
import type { Output } from './output.js';
import { usage } from './rules.js';

/**
 * `mcp-latch init`: adopt mcp-latch in one command, reversibly.
 *
 *   init                 import the servers of every client config found into a new mcp-latch config
 *   init --wrap          …and rewrite each of those client configs to start only mcp-latch (backup first)
 *   init --undo          put every wrapped client config back, byte for byte, from its backup
 *   init --dry-run       print the config and the diffs, write nothing
 *
 * Nothing is overwritten without a backup: an existing mcp-latch config needs --force and is copied
 * first; a client file is copied to `<file>.mcp-latch-backup-<stamp>` before it is rewritten, and
 * `mcp-latch-init.json` beside the config records what was written so --undo can tell our write
 * from a later edit by the user.
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
export function defaultInitContext(): InitContext {
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
    const extra = (['from', 'client', 'workspace', 'wrap'] as const).filter((key) => options[key] !== undefined && options[key] !== false);
    if (extra.length > 0) throw usage(`--undo takes only --config, --force, --dry-run and --json (not --${extra.join(', --')})`);
    return undo(options, out, context);
  }
  return adopt(options, out, context);
}

function configPathOf(options: InitOptions, context: InitContext): string {
  return options.config ? resolve(context.cwd, options.config) : userConfigPath(context.env);
}

// ---------------------------------------------------------------------------------------------
// init [--wrap]

interface WrapPlan {
  file: ClientFile;
  text: string;
  diff: string;
}

function adopt(options: InitOptions, out: Output, context: InitContext): number {
  if (options.from !== undefined && options.client !== undefined) throw usage('pass either --from FILE or --client NAME, not both');
  const configPath = configPathOf(options, context);
  const configExists = existsSync(configPath);
  if (configExists && !options.force) {
    throw usage(`${configPath} already exists; pass --force to replace it (it is backed up first), or --config FILE to write another file`);
  }
  const workspace = resolve(context.cwd, options.workspace ?? '.');
  if (!isDirectory(workspace)) throw usage(`the workspace ${workspace} is not a directory (--workspace DIR)`);

  const warnings: string[] = [];
  const files = selectFiles(options, context, warnings);
  const contextFor = (location: ClientLocation): EntryContext => ({
    family: location.family,
    home: context.home,
    platform: context.platform,
    workspaceFolder: location.projectDir ?? workspace,
    workspaceFolderGuessed: location.projectDir === undefined,
    projectDir: location.projectDir,
  });
  const result = importServers(files, contextFor);
  if (result.imported.length === 0) throw nothingToImport(files, result);
  warnings.push(...result.warnings);
  if (workspace === resolve(context.home)) {
    warnings.push(`the workspace is your home directory, so reads anywhere in it are allowed (except the denied secrets); pass --workspace DIR for a project`);
  }

  const rules = starterRules(result.servers, { workspace, home: context.home, platform: context.platform, extraDeny: result.deny });
  const config = { $schema: schemaUrl(context.packageRoot), mcpServers: result.servers, workspace: rules.workspace, permissions: rules.permissions };
  const configText = `${JSON.stringify(config, null, 2)}\n`;
  // What init writes must load: a failure here is a bug in the import, reported before anything is written.
  parseConfigText(configText, configPath, ruleIssues);

  const launch = gatewayLaunch(configPath, { execPath: context.execPath, packageRoot: context.packageRoot, platform: context.platform });
  const plans = options.wrap ? planWraps(result, files, launch, warnings) : [];

  const summary = {
    config: configPath,
    dryRun: options.dryRun === true,
    workspace: rules.workspace,
    sources: result.sources.map((source) => ({
      client: source.location.id,
      label: source.location.label,
      path: source.location.path,
      servers: source.servers,
      skipped: source.skipped,
    })),
    servers: Object.fromEntries(result.imported.map((item) => [item.name, { client: item.location.id, originalName: item.originalName }])),
    permissions: rules.permissions,
    reasons: rules.reasons,
    notes: result.notes,
    warnings,
  };

  if (options.dryRun) {
    if (options.json) {
      out.json({ ...summary, configText, configExists, wrap: plans.map((plan) => ({ client: plan.file.location.id, path: plan.file.location.path, diff: plan.diff })) });
      return 0;
    }
    printSummary(summary, result, rules, out);
    out.line('');
    out.line(`Would write ${configPath}${configExists ? ' (the existing file would be backed up first)' : ''}:`);
    out.line(configText.trimEnd());
    for (const plan of plans) {
      out.line('');
      out.line(`Would back up and rewrite ${plan.file.location.label}:`);
      out.line(plan.diff);
    }
    if (!options.wrap) printRegisterHint(launch, out);
    out.line('');
    out.line('Dry run: nothing was written.');
    return 0;
  }

  const now = context.now();
  const configBackup = configExists ? backupFile(configPath, now) : null;
  writeFileAtomic(configPath, configText, 0o600);
  const wrapped = plans.length > 0 ? applyWraps(plans, configPath, now) : [];

  if (options.json) {
    out.json({ ...summary, configBackup, wrapped, manifest: wrapped.length > 0 ? manifestPath(configPath) : null });
    return 0;
  }
  printSummary(summary, result, rules, out);
  out.line('');
  if (configBackup) out.line(`Backed up the previous config to ${configBackup}.`);
  const count = Object.keys(result.servers).length;
  out.line(`Wrote ${configPath} (${count} server${count === 1 ? '' : 's'}). Check it with: mcp-latch validate --config ${quote(configPath)}`);
  if (wrapped.length > 0) {
    out.line('Wrapped (each now starts only mcp-latch):');
    for (const record of wrapped) out.line(`  ${record.label}  ${record.file}  (backup: ${record.backup})`);
    out.line(`Restart ${[...new Set(wrapped.map((record) => record.label.replace(/ \(.*\)$/, '')))].join(', ')} to use mcp-latch. Undo with: mcp-latch init --undo --config ${quote(configPath)}`);
  } else {
    printRegisterHint(launch, out);
  }
  return 0;
}

/** The client files to import from: `--from`, or the discovered ones (filtered by `--client`) that have servers. */
function selectFiles(options: InitOptions, context: InitContext, warnings: string[]): ClientFile[] {
  if (options.from !== undefined) {
    const path = resolve(context.cwd, options.from);
    if (!existsSync(path)) throw usage(`--from ${path} does not exist`);
    const data = parseJsonc(readFileSync(path, 'utf8'), path);
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new LatchError('CONFIG_INVALID', `${path} is not a JSON object`);
    const file = readClientFile(locationForFile(path, data as Record<string, unknown>, context));
    if (file.entries.length === 0) throw usage(`${path} has no servers (no "${file.location.format.serversKey}" block with entries)`);
    return [file];
  }

  const names = options.client?.split(',').map((name) => name.trim()).filter((name) => name !== '') ?? [];
  const unknown = names.filter((name) => !CLIENT_NAMES.includes(name));
  if (unknown.length > 0) throw usage(`unknown client ${unknown.map((name) => JSON.stringify(name)).join(', ')} (known: ${CLIENT_NAMES.join(', ')})`);
  const wanted = (location: ClientLocation) => names.length === 0 || names.some((name) => matchesClient(location, name));
  const found = discoverClients(context).filter(wanted);
  if (found.length === 0) {
    const looked = clientLocations(context).filter(wanted).map((location) => location.path);
    const what = names.length > 0 ? `no ${names.join(' or ')} config found` : 'no MCP client config found';
    throw usage(`${what} (looked at ${looked.join(', ')}); pass --from FILE to import another file`);
  }
  const files: ClientFile[] = [];
  for (const location of found) {
    try {
      files.push(readClientFile(location));
    } catch (error) {
      // A file the user picked must be readable; a broken file merely found is skipped, loudly.
      if (names.length > 0) throw error;
      warnings.push(`skipped ${location.label} ${location.path}: ${(error as Error).message}`);
    }
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
  return usage(`no servers to import${wrapped ? ' (the client configs already start only mcp-latch; init --undo restores them)' : ''}: ${why.join(' | ')}`);
}

/** The rewritten text of each file that gave servers, checked to parse back to the one entry. */
function planWraps(result: ImportResult, files: ClientFile[], launch: Launch, warnings: string[]): WrapPlan[] {
  const plans: WrapPlan[] = [];
  for (const source of result.sources) {
    if (source.servers.length === 0) continue;
    const file = files.find((candidate) => candidate.location === source.location)!;
    const { format, label, path } = file.location;
    const block = { 'mcp-latch': format.gatewayEntry(launch) };
    const text = replaceServersBlock(file.text, format.serversKey, block);
    const check = parseJsonc(text, path) as Record<string, unknown>;
    if (JSON.stringify(check[format.serversKey]) !== JSON.stringify(block)) throw new LatchError('CONFIG_INVALID', `could not rewrite ${path} safely; nothing was changed`);
    const lost = source.skipped.filter((skip) => !skip.self);
    if (lost.length > 0) {
      warnings.push(`${label}: ${lost.map((skip) => `"${skip.name}"`).join(', ')} could not be imported and will no longer be started once wrapped (${lost.map((skip) => skip.reason).join('; ')}); the backup keeps ${lost.length === 1 ? 'it' : 'them'}`);
    }
    if (file.location.scope === 'project') {
      warnings.push(`${label}: ${path} is often committed to the project; its wrapped entry holds absolute paths of this machine`);
    }
    plans.push({ file, text, diff: unifiedDiff(file.text, text, path, `${path} (wrapped)`) });
  }
  return plans;
}

/** Backs up and rewrites each client file, recording each write in the manifest as it happens. */
function applyWraps(plans: WrapPlan[], configPath: string, now: Date): WrapRecord[] {
  const file = manifestPath(configPath);
  const manifest: InitManifest = readManifest(file) ?? { version: 1, config: configPath, wrapped: [] };
  const records: WrapRecord[] = [];
  for (const plan of plans) {
    const { path, id, label } = plan.file.location;
    // Security: the file is re-read so an edit made while init ran is never overwritten unseen.
    if (!readFileSync(path).equals(plan.file.bytes)) throw new LatchError('STORE_WRITE_FAILED', `${path} changed while init was running; it was left as is (run init again)`);
    const backup = backupFile(path, now);
    writeFileAtomic(path, plan.text);
    const record: WrapRecord = { client: id, label, file: path, backup, sha256: sha256(Buffer.from(plan.text, 'utf8')), wrappedAt: now.toISOString() };
    manifest.wrapped.push(record);
    writeManifest(file, manifest);
    records.push(record);
  }
  return records;
}

interface Summary {
  config: string;
  workspace: string[];
  warnings: string[];
  notes: string[];
}

function printSummary(summary: Summary, result: ImportResult, rules: StarterRules, out: Output): void {
  const sources = result.sources.filter((source) => source.servers.length > 0);
  out.line(`Importing from ${sources.length} client config${sources.length === 1 ? '' : 's'}:`);
  for (const source of sources) out.line(`  ${source.location.label}  ${source.location.path}  (${source.servers.join(', ')})`);
  const skipped = result.sources.flatMap((source) => source.skipped.map((skip) => `${source.location.label} "${skip.name}": ${skip.reason}`));
  if (skipped.length > 0) {
    out.line('Skipped:');
    for (const line of skipped) out.line(`  ${line}`);
  }
  if (summary.notes.length > 0) {
    out.line('Notes:');
    for (const note of summary.notes) out.line(`  ${note}`);
  }
  out.line('Starter rules (defaultMode "default"):');
  for (const reason of rules.reasons) out.line(`  ${reason}`);
  for (const warning of summary.warnings) out.error(`warning: ${warning}`);
}

function printRegisterHint(launch: Launch, out: Output): void {
  out.line('Next: make mcp-latch the only server of your client (or run init --wrap to do it, with backups):');
  out.line(`  "mcp-latch": ${JSON.stringify({ command: launch.command, args: launch.args })}`);
}

// ---------------------------------------------------------------------------------------------
// init --undo

interface Restored {
  client: string;
  file: string;
  from: string;
  /** Where the file's changed content was saved first (--force over a later edit). */
  savedCurrent: string | null;
}

function undo(options: InitOptions, out: Output, context: InitContext): number {
  const configPath = configPathOf(options, context);
  const file = manifestPath(configPath);
  const manifest = readManifest(file);
  if (!manifest || manifest.wrapped.length === 0) throw usage(`nothing to undo: ${file} does not exist (init --wrap writes it next to the config)`);

  const groups = new Map<string, WrapRecord[]>();
  for (const record of manifest.wrapped) groups.set(record.file, [...(groups.get(record.file) ?? []), record]);

  const restored: Restored[] = [];
  const refused: Array<{ client: string; file: string; reason: string }> = [];
  const now = context.now();
  for (const [path, records] of groups) {
    const first = records[0]!;
    const last = records.at(-1)!;
    if (!existsSync(first.backup)) {
      refused.push({ client: first.client, file: path, reason: `its backup ${first.backup} is missing` });
      continue;
    }
    const current = existsSync(path) ? readFileSync(path) : undefined;
    const changed = current !== undefined && sha256(current) !== last.sha256;
    if (changed && !options.force) {
      refused.push({ client: first.client, file: path, reason: 'it was changed after init wrapped it; pass --force to restore it anyway (its current content is backed up first)' });
      continue;
    }
    if (options.dryRun) {
      restored.push({ client: first.client, file: path, from: first.backup, savedCurrent: changed ? 'would be made' : null });
      continue;
    }
    const savedCurrent = changed ? backupFile(path, now) : null;
    writeFileAtomic(path, readFileSync(first.backup));
    manifest.wrapped = manifest.wrapped.filter((record) => record.file !== path);
    writeManifest(file, manifest);
    restored.push({ client: first.client, file: path, from: first.backup, savedCurrent });
  }

  if (options.json) {
    out.json({ dryRun: options.dryRun === true, manifest: file, restored, refused });
  } else {
    const verb = options.dryRun ? 'Would restore' : 'Restored';
    for (const item of restored) {
      out.line(`${verb} ${item.file} from ${item.from}${item.savedCurrent ? ` (its changed content ${options.dryRun ? 'would be' : 'was'} saved to ${item.savedCurrent})` : ''}.`);
    }
    for (const item of refused) out.error(`mcp-latch: refused to restore ${item.file}: ${item.reason}`);
    if (restored.length > 0 && !options.dryRun) {
      out.line(`The backups are kept; ${configPath} is left in place. Restart the clients to use their own servers again.`);
    }
    if (options.dryRun) out.line('Dry run: nothing was written.');
  }
  return refused.length > 0 ? 1 : 0;
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
