import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LatchError, usage } from '../errors.js';
import { isPlainObject } from '../values.js';
import { parseJsonc, readClientFile, type ClientFile, type ClientLocation } from '../clients/client-file.js';
import { CLIENT_NAMES, claudeCodeLocalBlocks, claudeCodeProjectFiles, clientLocations, discoverClients, locationForFile, matchesClient, type DiscoveryContext } from '../clients/discover.js';
import type { ImportResult } from '../clients/import.js';

// Which client files `init` reads, and why it found nothing to import from them.

/** The client files to import from: `--from`, or the discovered ones (filtered by `--client`) that have servers. */
export function selectFiles(options: { from?: string | undefined; client?: string | undefined }, context: DiscoveryContext, warnings: string[]): ClientFile[] {
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
  const unreadable: string[] = [];
  const read = (location: ClientLocation): ClientFile | undefined => {
    try {
      return readClientFile(location);
    } catch (error) {
      // A file the user picked must be readable; a broken file merely found is skipped, loudly.
      if (names.length > 0) throw error;
      const skipped = `${location.label} ${location.path}: ${(error as Error).message}`;
      unreadable.push(skipped);
      warnings.push(`skipped ${skipped}`);
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
  // Found but none readable (a UTF-16 file from Notepad, one cut off mid-save): saying "none found"
  // sent the person looking in the wrong place (round 16 review H6).
  if (files.length === 0 && unreadable.length > 0) throw usage(`no client config could be read: ${unreadable.join(' | ')}; fix the file or pass --from FILE to import another one`);
  if (files.length === 0) {
    const looked = clientLocations(context).filter(wanted).map((location) => location.path);
    const what = names.length > 0 ? `no ${names.join(' or ')} config found` : 'no MCP client config found';
    throw usage(`${what} (looked at ${looked.join(', ')}); pass --from FILE to import another file`);
  }
  return files.filter((file) => file.entries.length > 0);
}

export function nothingToImport(files: ClientFile[], result: ImportResult): LatchError {
  if (files.length === 0) return usage('the client configs found have no servers to import; pass --from FILE to import another file');
  const why = result.sources.map((source) => {
    const reasons = source.skipped.map((skip) => `"${skip.name}" ${skip.reason}`);
    return `${source.location.label} ${source.location.path}: ${reasons.join('; ')}`;
  });
  const wrapped = result.sources.every((source) => source.skipped.every((skip) => skip.self));
  return usage(`no servers to import${wrapped ? ' (the client configs already start mcp-latch, but its config is missing; init --undo restores them)' : ''}: ${why.join(' | ')}`);
}
