import { basename } from 'node:path';
import type { EntryContext } from './client-file.js';

/**
 * Client variables in server entries, translated to what mcp-latch expands (`${env:NAME}` and
 * `${env:NAME:-default}`, the spelling VS Code and Cursor use). A variable mcp-latch cannot give
 * the same value the client would makes the entry a blocker: it stays in the client file untouched.
 *
 *   ${env:HOME}            kept as is
 *   ${userHome}            → the home directory (VS Code, Cursor)
 *   ${workspaceFolder}     → the project folder of a project file (VS Code, Cursor); in a user-level
 *                            file it is whichever folder is open, so the entry is not imported
 *   ${pathSeparator} ${/}  → the platform's separator
 *   ${input:token}         not imported: VS Code asks the person for it, mcp-latch cannot
 *   ${TOKEN}               → ${env:TOKEN} in Claude Code files, which expand `${VAR}` from the environment
 *   ${TOKEN:-default}      → ${env:TOKEN:-default} in Claude Code files
 *   anything else          not imported
 */

/** What a translation did, for the summary; `blockers` say why the entry cannot be imported. */
export interface VariableReport {
  notes: string[];
  warnings: string[];
  blockers: string[];
}

const EDITOR_FAMILIES = new Set(['vscode', 'cursor']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Translates the variables of one string value; `where` names the value in messages (`env.TOKEN`). */
export function translateVariables(value: string, where: string, context: EntryContext, report: VariableReport): string {
  return value.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
    if (/^env:[A-Za-z_][A-Za-z0-9_]*(:-.*)?$/.test(inner)) return whole;
    if (EDITOR_FAMILIES.has(context.family)) {
      if (inner === 'userHome') return context.home;
      if (inner === 'workspaceFolder' || inner === 'workspaceFolderBasename') {
        if (context.projectDir === undefined) {
          report.blockers.push(`${where} uses ${whole}, which in a user-level file is whichever folder is open`);
          return whole;
        }
        return inner === 'workspaceFolder' ? context.projectDir : basename(context.projectDir);
      }
      if (inner === 'pathSeparator' || inner === '/') return context.platform === 'win32' ? '\\' : '/';
      if (inner.startsWith('input:')) {
        report.blockers.push(`${where} uses ${whole}, a VS Code input prompt mcp-latch cannot show`);
        return whole;
      }
    }
    if (context.family === 'claude-code') {
      const [variable, ...rest] = inner.split(':-');
      if (NAME.test(variable ?? '')) {
        const translated = `\${env:${inner}}`;
        if (rest.length > 0) report.notes.push(`${where}: ${whole} written as ${translated}`);
        return translated;
      }
    }
    report.blockers.push(`${where} uses ${whole}, which mcp-latch does not expand`);
    return whole;
  });
}
