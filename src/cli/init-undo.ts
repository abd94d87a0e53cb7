import { existsSync, readFileSync } from 'node:fs';
import { errorMessage, usage } from '../errors.js';
import { backupFile, writeFileAtomic } from '../clients/backup.js';
import { unifiedDiff } from '../clients/diff.js';
import { readManifest, writeManifest, type WrapRecord } from '../clients/manifest.js';
import { manifestPath } from '../config/locate.js';
import { unwrapBlock } from '../clients/wrap.js';
import type { Output } from './output.js';

/**
 * `mcp-latch init --undo`: each wrap recorded in the init manifest is reversed as the same JSONC
 * edit in reverse (clients/wrap.ts), so whatever the clients wrote since is kept (a rewritten
 * `~/.claude.json`, a server added next to the wrapped entry). A file that changed while undo ran
 * is left alone. docs/setup.md describes the manifest.
 */
export interface UndoOptions {
  configPath: string;
  /** The private folder where a copy of each file goes before it is changed. */
  backups: string;
  dryRun: boolean;
  json: boolean;
}

interface Restored {
  file: string;
  blocks: string[];
  servers: string[];
  backup: string | null;
  diff: string;
}

export function undo(options: UndoOptions, out: Output, now: Date): number {
  const { configPath } = options;
  const file = manifestPath(configPath);
  const manifest = readManifest(file);
  if (!manifest || manifest.wrapped.length === 0) throw usage(`nothing to undo: ${file} does not exist (init --wrap writes it next to the config)`);

  const groups = new Map<string, WrapRecord[]>();
  for (const record of manifest.wrapped) groups.set(record.file, [...(groups.get(record.file) ?? []), record]);

  const restored: Restored[] = [];
  const refused: Array<{ file: string; reason: string }> = [];
  const kept: string[] = [];
  for (const [path, records] of groups) {
    if (!existsSync(path)) {
      refused.push({ file: path, reason: `it no longer exists; its servers are in ${records[0]!.backup}` });
      continue;
    }
    const bytes = readFileSync(path);
    const before = bytes.toString('utf8');
    let text = before;
    try {
      const left = [...records];
      for (const record of [...records].reverse()) {
        left.pop();
        const alone = !left.some((other) => JSON.stringify(other.blockPath) === JSON.stringify(record.blockPath));
        const change = unwrapBlock(text, record, alone);
        text = change.text;
        kept.push(...change.kept);
      }
    } catch (error) {
      refused.push({ file: path, reason: errorMessage(error) });
      continue;
    }
    const servers = records.flatMap((record) => record.removed.map(([name]) => name));
    const item: Restored = { file: path, blocks: records.map((record) => record.label), servers, backup: null, diff: unifiedDiff(before, text, path, `${path} (restored)`) };
    if (!options.dryRun) {
      if (text !== before) {
        if (!readFileSync(path).equals(bytes)) {
          refused.push({ file: path, reason: 'it changed while init ran; run init --undo again' });
          continue;
        }
        try {
          item.backup = backupFile(options.backups, path, now);
          writeFileAtomic(path, text);
        } catch (error) {
          // Named, and the other files still restored: a full disk ended --undo with a bare error
          // after earlier files were restored, naming none (review of round 20 faults).
          refused.push({ file: path, reason: `it could not be written (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}); it is as it was` });
          continue;
        }
      }
      const left = manifest.wrapped.filter((record) => record.file !== path);
      try {
        writeManifest(file, { ...manifest, wrapped: left });
      } catch (error) {
        refused.push({ file: path, reason: `it was restored, but ${file} could not be updated (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}): it still lists the file` });
        continue;
      }
      manifest.wrapped = left;
    }
    restored.push(item);
  }

  if (options.json) {
    out.json({ dryRun: options.dryRun === true, manifest: file, restored, refused, kept });
  } else {
    const verb = options.dryRun ? 'Would restore' : 'Restored';
    for (const item of restored) {
      out.line(`${verb} ${item.servers.length} server${item.servers.length === 1 ? '' : 's'} (${item.servers.join(', ')}) in ${item.file}${item.backup ? ` (its content before this was saved to ${item.backup})` : ''}.`);
      if (options.dryRun && item.diff) out.line(item.diff);
    }
    for (const line of kept) out.error(`warning: ${line}`);
    for (const item of refused) out.error(`mcp-latch: could not restore ${item.file}: ${item.reason}`);
    if (restored.length > 0 && !options.dryRun) {
      out.line(`${configPath} is left in place. Restart the clients to use their own servers again.`);
    }
    if (options.dryRun) out.line('Dry run: nothing was written.');
  }
  return refused.length > 0 ? 1 : 0;
}
