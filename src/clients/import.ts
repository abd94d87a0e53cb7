import type { ServerConfig } from '../config/schema.js';
import { canonicalJson } from '../policy/digest.js';
import { quotedShown } from '../latch/escape.js';
import { parseRule } from '../policy/rule.js';
import type { ProjectApproval } from './claude-approval.js';
import type { ClientFile, ClientLocation, EntryContext } from './client-file.js';

/**
 * The servers of several client files merged into one `mcpServers` block. Worked example, Claude
 * Desktop then Cursor (the discovery order):
 *
 *   Claude Desktop  fs → npx server-filesystem ~/code     imported as fs
 *   Cursor          fs → npx server-filesystem ~/code     the same server: imported once, as fs
 *   Cursor          fs.old → uvx …                        renamed fs-old (mcp-latch names: [A-Za-z0-9_-], no "__")
 *   Cursor          fs → npx server-filesystem ~/work     a different server: fs-cursor
 *
 * Suffixes are the client id, then -2, -3…, so the same inputs always give the same names.
 */

/** One server as imported, with where it came from. */
export interface ImportedServer {
  name: string;
  originalName: string;
  location: ClientLocation;
  server: ServerConfig;
}

/** What happened to the entries of one client file. */
export interface SourceReport {
  location: ClientLocation;
  /** Final names of the servers taken from this file (including ones merged with an identical server). */
  servers: string[];
  /** `self`: a gateway entry; `unapproved`: a project server the person did not approve in the client (left to it). */
  skipped: Array<{ name: string; reason: string; self: boolean; unapproved?: true }>;
}

/** The merged servers, what each file gave, and what to tell the user. */
export interface ImportResult {
  servers: Record<string, ServerConfig>;
  imported: ImportedServer[];
  sources: SourceReport[];
  /** `mcp__server__tool` deny rules for tools a client had disabled. */
  deny: string[];
  notes: string[];
  warnings: string[];
}

/** mcp-latch's server name rule: `[A-Za-z0-9_-]+` without `__`. */
function sanitizeServerName(name: string): string {
  const clean = name
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/^[-_]+|[-_]+$/g, '');
  return clean === '' ? 'server' : clean;
}

/**
 * Imports every file in order; `contextFor` gives each file its variable context, `approvalFor` which
 * of its servers the person approved in the client (null: all). `existing` are the
 * servers of the mcp-latch config already there: an identical server takes its name, a different one
 * with the same name gets a suffix (reported), and only the new ones are in `imported`.
 */
export function importServers(files: ClientFile[], contextFor: (location: ClientLocation) => EntryContext, existing: Record<string, ServerConfig> = {}, approvalFor: (location: ClientLocation) => ProjectApproval | null = () => null): ImportResult {
  const servers: Record<string, ServerConfig> = { ...existing };
  const result: ImportResult = { servers, imported: [], sources: [], deny: [], notes: [], warnings: [] };
  for (const file of files) {
    const { location } = file;
    const source: SourceReport = { location, servers: [], skipped: [] };
    result.sources.push(source);
    const context = contextFor(location);
    const approval = approvalFor(location);
    for (const [originalName, raw] of file.entries) {
      const approved = approval?.(originalName);
      if (approved && !approved.approved) {
        source.skipped.push({ name: originalName, reason: approved.reason, self: false, unapproved: true });
        continue;
      }
      const converted = location.format.toServer(originalName, raw, context);
      if (!converted.ok) {
        source.skipped.push({ name: originalName, reason: converted.reason, self: converted.self });
        continue;
      }
      const prefix = (message: string) => `${location.label}: ${message}`;
      result.notes.push(...converted.notes.map(prefix));
      result.warnings.push(...converted.warnings.map(prefix));

      const base = sanitizeServerName(originalName);
      if (base !== originalName) result.notes.push(prefix(`"${originalName}" renamed ${base} (server names may use letters, digits, "_" and "-", and no "__")`));
      const name = placeServer(servers, base, converted.server, location);
      if (name.merged) {
        if (!(name.name in existing) || name.name !== base) result.notes.push(prefix(`"${originalName}" is the same server as ${name.name}, imported once`));
      } else {
        servers[name.name] = converted.server;
        if (name.name !== base) result.warnings.push(prefix(`"${originalName}" imported as ${name.name}: ${base} is already a different server`));
        result.imported.push({ name: name.name, originalName, location, server: converted.server });
      }
      // Two entries of one file that start the same server: started once, listed once.
      if (!source.servers.includes(name.name)) source.servers.push(name.name);
      for (const tool of converted.disabledTools) {
        const rule = `mcp__${name.name}__${tool}`;
        try {
          parseRule(rule, 'deny');
          if (!result.deny.includes(rule)) result.deny.push(rule);
          result.notes.push(prefix(`"${originalName}" hides the tool ${tool}: deny rule ${rule} added`));
        } catch {
          result.warnings.push(prefix(`"${originalName}" hides the tool ${quotedShown(tool)}, which cannot be written as a rule; deny it by hand`));
        }
      }
    }
  }
  return result;
}

/** The name a server takes: its own, or the same as an identical server, or suffixed by the client id. */
function placeServer(servers: Record<string, ServerConfig>, base: string, server: ServerConfig, location: ClientLocation): { name: string; merged: boolean } {
  for (let attempt = 0; ; attempt++) {
    const name = attempt === 0 ? base : attempt === 1 ? `${base}-${location.id}` : `${base}-${location.id}-${attempt}`;
    const existing = servers[name];
    if (existing === undefined) return { name, merged: false };
    if (canonicalJson(existing) === canonicalJson(server)) return { name, merged: true };
  }
}
