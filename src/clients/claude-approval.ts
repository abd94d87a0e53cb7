import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainObject } from '../values.js';
import { parseJsonc } from './client-file.js';

/**
 * Which servers of a project's `.mcp.json` the person approved in Claude Code. Claude Code starts a
 * project-scope server only once approved: named in `enabledMcpjsonServers`, or all of them with
 * `enableAllProjectMcpServers: true`, and never one named in `disabledMcpjsonServers` (its settings
 * reference; the choices are kept in `~/.claude.json` `projects[dir]` and may be set in the settings
 * files). `init` imports only those: a server the person declined, or was never asked about, would
 * otherwise run behind the `latch-project` entry they trust (round 12 review, F8; docs/setup.md).
 *
 * Fail closed: a declining anywhere wins; an approval counts from the person's own files
 * (`~/.claude.json` `projects[dir]`, `~/.claude/settings.json`), and from the project's
 * `.claude/settings.json` and `.claude/settings.local.json` only when the person accepted the
 * project's trust dialog (`hasTrustDialogAccepted`), since a cloned repository brings those files.
 */
export type ProjectApproval = (name: string) => { approved: true } | { approved: false; reason: string };

export function claudeProjectApproval(projectDir: string, home: string): ProjectApproval {
  const state = readObject(join(home, '.claude.json'));
  const projects = state?.projects;
  const project = isPlainObject(projects) && isPlainObject(projects[projectDir]) ? (projects[projectDir] as Record<string, unknown>) : null;
  const trusted = project?.hasTrustDialogAccepted === true;
  const own = [project, readObject(join(home, '.claude', 'settings.json'))];
  const repository = [readObject(join(projectDir, '.claude', 'settings.json')), readObject(join(projectDir, '.claude', 'settings.local.json'))];
  const approving = trusted ? [...own, ...repository] : own;
  const names = (sources: Array<Record<string, unknown> | null>, key: string) => new Set(sources.flatMap((source) => (Array.isArray(source?.[key]) ? (source[key] as unknown[]).filter((item): item is string => typeof item === 'string') : [])));
  const declined = names([...own, ...repository], 'disabledMcpjsonServers');
  const enabled = names(approving, 'enabledMcpjsonServers');
  const all = approving.some((source) => source?.enableAllProjectMcpServers === true);
  return (name) => {
    if (declined.has(name)) return { approved: false, reason: 'declined in Claude Code (disabledMcpjsonServers): it does not start it' };
    if (enabled.has(name) || all) return { approved: true };
    return { approved: false, reason: `not approved in Claude Code${trusted ? '' : ' (the project is not trusted there)'}: it asks before starting it; approve it there, then run init again` };
  };
}

/** A JSON(C) object file, or null when it is missing or not an object. */
function readObject(path: string): Record<string, unknown> | null {
  try {
    const data = parseJsonc(readFileSync(path, 'utf8'), path);
    return isPlainObject(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
