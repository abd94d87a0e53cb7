import { findConfig, loadConfig } from '../config/load.js';
import { escapeName, escapeText } from '../latch/escape.js';
import { ruleIssues } from '../policy/policy.js';
import { auditFile, readAudit } from '../store/audit.js';
import type { Output } from './output.js';

/** `mcp-latch audit`: the most recent decisions, one line each (or the raw records with --json). */
export function showAudit(options: { config?: string | undefined; json?: boolean | undefined; limit: number; user?: string | undefined }, out: Output): number {
  const config = loadConfig(findConfig(options.config), ruleIssues);
  const file = auditFile(config);
  if (!file) {
    out.error('auditing is disabled in this config (audit.enabled is false).');
    return 1;
  }
  const skipped: number[] = [];
  const records = readAudit(file, options.limit, options.user, (line) => skipped.push(line));
  // Bad input loses nothing: the records are shown, and the lines that are not records named.
  if (skipped.length > 0) out.error(`${skipped.length} line${skipped.length === 1 ? '' : 's'} of ${file} ${skipped.length === 1 ? 'is' : 'are'} not mcp-latch records and ${skipped.length === 1 ? 'was' : 'were'} skipped (line${skipped.length === 1 ? '' : 's'} ${skipped.slice(0, 5).join(', ')}${skipped.length > 5 ? ', …' : ''}).`);
  if (options.json) {
    out.json(records);
    return 0;
  }
  if (records.length === 0) out.line(options.user === undefined ? `No decisions recorded yet in ${file}.` : `No decisions on calls of ${escapeText(options.user)} in ${file}.`);
  for (const record of records) {
    const time = record.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
    const what = record.command ? `\`${escapeText(record.command)}\`` : record.paths.map((path) => `${path.access} ${escapeText(path.path)}`).join(', ');
    const note = record.note ? ` — note: "${escapeText(record.note)}"` : '';
    const user = record.user === undefined ? '' : `${escapeText(record.user)}: `;
    // A tool's name is the server's text: escaped like every other (an ESC sequence reached the terminal otherwise).
    out.line(`${time}  ${escapeText(record.decision.toUpperCase()).padEnd(9)} ${user}${escapeName(record.server)}/${escapeName(record.tool)} by ${escapeText(record.by)}${record.rule ? ` (${escapeText(record.rule)})` : ''}: ${what || escapeText(record.reason)}${note}`);
  }
  return 0;
}
