import { basename } from 'node:path';
import type { EntryContext } from './client-file.js';

/**
 * Client variables in server entries, translated to what mcp-latch understands. mcp-latch expands
 * only `${env:NAME}` (the same spelling VS Code and Cursor use), so:
 *
 *   ${env:HOME}            kept as is
 *   ${userHome}            → the home directory (VS Code, Cursor)
 *   ${workspaceFolder}     → the project folder (VS Code, Cursor); a guess for user-level files
 *   ${pathSeparator} ${/}  → the platform's separator
 *   ${input:token}         kept, with a warning: VS Code asks the user for it; mcp-latch cannot
 *   ${TOKEN}               → ${env:TOKEN} in Claude Code files, which expand `${VAR}` from the environment
 *   ${TOKEN:-default}      kept, with a warning (no defaults in mcp-latch)
 */

/** What a translation did, for the summary. */
export interface VariableReport {
  notes: string[];
  warnings: string[];
}

const EDITOR_FAMILIES = new Set(['vscode', 'cursor']);

/** Translates the variables of one string value; `where` names the value in messages (`env.TOKEN`). */
export function translateVariables(value: string, where: string, context: EntryContext, report: VariableReport): string {
  return value.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
    if (/^env:[A-Za-z_][A-Za-z0-9_]*$/.test(inner)) return whole;
    if (EDITOR_FAMILIES.has(context.family)) {
      if (inner === 'userHome') return context.home;
      if (inner === 'workspaceFolder' || inner === 'workspaceFolderBasename') {
        const resolved = inner === 'workspaceFolder' ? context.workspaceFolder : basename(context.workspaceFolder);
        const message = `${where}: \${${inner}} replaced by ${resolved}`;
        if (context.workspaceFolderGuessed) report.warnings.push(`${message} (a user-level file has no project of its own; this is the init workspace)`);
        else report.notes.push(message);
        return resolved;
      }
      if (inner === 'pathSeparator' || inner === '/') return context.platform === 'win32' ? '\\' : '/';
      if (inner.startsWith('input:')) {
        report.warnings.push(`${where}: ${whole} is a VS Code input prompt that mcp-latch cannot show; replace it with the value or \${env:NAME}`);
        return whole;
      }
    }
    if (context.family === 'claude-code') {
      if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(inner)) {
        report.notes.push(`${where}: ${whole} written as \${env:${inner}}`);
        return `\${env:${inner}}`;
      }
      if (/^[A-Za-z_][A-Za-z0-9_]*:-/.test(inner)) {
        report.warnings.push(`${where}: ${whole} has a default value, which mcp-latch cannot expand; set the variable or write the value`);
        return whole;
      }
    }
    report.warnings.push(`${where}: mcp-latch does not expand ${whole}; it is passed on as written`);
    return whole;
  });
}
