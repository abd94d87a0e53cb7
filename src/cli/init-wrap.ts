import { readFileSync } from 'node:fs';
import { isPlainObject } from '../values.js';
import { backupFile, writeFileAtomic } from '../clients/backup.js';
import type { ClientFile } from '../clients/client-file.js';
import { unifiedDiff } from '../clients/diff.js';
import { gatewayEntryName, scopeName } from '../clients/discover.js';
import type { ImportResult } from '../clients/import.js';
import { gatewayLaunch } from '../clients/launch.js';
import { readManifest, writeManifest, type InitManifest, type WrapRecord } from '../clients/manifest.js';
import { isGatewayEntry } from '../clients/server-entry.js';
import { wrapBlock } from '../clients/wrap.js';
import type { LoadedConfig } from '../config/load.js';
import { manifestPath } from '../config/locate.js';

// `init --wrap`: each client file's imported servers replaced by one entry that starts mcp-latch for its scope.

/** The edits to one client file: every block of it that changes. */
export interface WrapPlan {
  path: string;
  label: string;
  bytes: Buffer;
  text: string;
  diff: string;
  records: Array<Omit<WrapRecord, 'backup' | 'wrappedAt'>>;
}

/** A block that starts mcp-latch for a scope the config does not have (the config was replaced): that entry would fail. */
export function staleGatewayEntries(file: ClientFile, config: LoadedConfig): string | undefined {
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
export function planWraps(files: ClientFile[], result: ImportResult, config: LoadedConfig, configPath: string, context: { execPath: string; packageRoot: string }, warnings: string[]): WrapPlan[] {
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

/** A client file `applyWraps` left as it was, and why. */
export interface WrapFailure {
  label: string;
  file: string;
  reason: string;
}

/**
 * Backs up and rewrites each client file, recording each block's edit in the manifest as it happens.
 * A file that cannot be written is left as it was and reported, and the others are still done: a
 * first failure used to end init with a bare error after it had rewritten earlier files, naming none
 * of them (round 16 review H2).
 */
export function applyWraps(plans: WrapPlan[], configPath: string, backups: string, now: Date): { wrapped: WrapRecord[]; failed: WrapFailure[] } {
  const file = manifestPath(configPath);
  const manifest: InitManifest = readManifest(file) ?? { version: 2, config: configPath, wrapped: [] };
  const wrapped: WrapRecord[] = [];
  const failed: WrapFailure[] = [];
  for (const plan of plans) {
    // Security: the file is re-read so an edit made while init ran is never overwritten unseen.
    if (!readFileSync(plan.path).equals(plan.bytes)) {
      failed.push({ label: plan.label, file: plan.path, reason: 'it changed while init was running' });
      continue;
    }
    let backup: string;
    try {
      backup = backupFile(backups, plan.path, now);
      writeFileAtomic(plan.path, plan.text);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      failed.push({ label: plan.label, file: plan.path, reason: code === undefined ? String((error as Error).message ?? error) : `it could not be written (${code})` });
      continue;
    }
    const records: WrapRecord[] = plan.records.map((partial) => ({ ...partial, backup, wrappedAt: now.toISOString() }));
    try {
      writeManifest(file, { ...manifest, wrapped: [...manifest.wrapped, ...records] });
    } catch (error) {
      // Unrecorded, the change would be one `--undo` does not know: the file is put back. A full
      // disk there ended init with a bare "ENOSPC" after a client file was rewritten, unrecorded
      // and unnamed (review of round 20 faults, F8).
      let reason = `its change could not be recorded in ${file} (${why(error)}), so it was put back as it was`;
      try {
        // Security: only over init's own text. A client that saved the file meanwhile (Claude Code
        // rewrites ~/.claude.json as it runs) keeps its save (round 22 review), which may hold the
        // wrap or, saved from what the client read before init ran, not: not known here, so not
        // said (round 23 review, F3).
        const ours = Buffer.from(plan.text);
        if (!writeFileAtomic(plan.path, plan.bytes, undefined, () => readFileSync(plan.path).equals(ours))) {
          reason = `its change could not be recorded in ${file} (${why(error)}), and the file was saved by something else since, so it was not put back; whether that save kept the wrap is not known: look at the file, and run init again for what it does not wrap; its backup is ${backup}`;
        }
      } catch (undoError) {
        reason = `its change could not be recorded in ${file} (${why(error)}) nor undone (${why(undoError)}): it is wrapped; its backup is ${backup}`;
      }
      failed.push({ label: plan.label, file: plan.path, reason });
      continue;
    }
    manifest.wrapped.push(...records);
    wrapped.push(...records);
  }
  return { wrapped, failed };
}

/** An error's system code (`ENOSPC`), or its message. */
function why(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String((error as Error).message ?? error);
}
