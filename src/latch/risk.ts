import { commandWordAt, otherGitCommand } from '../policy/command-match.js';
import type { Decision, Segment } from '../policy/types.js';
import { DELETERS, NETWORK_PROGRAMS, NETWORK_SUBCOMMANDS, PRIVILEGE, RUNNERS } from '../programs.js';
import type { FileChange } from './file-change.js';

/**
 * How much could go wrong if a call runs, for the person deciding: `low`, `medium` or `high`, with
 * the reasons, shown first in the prompt and on the page. It explains; it never changes a decision.
 *
 *   rm -rf build/                       → high: deletes files; recursive
 *   write_file over a 2 kB file         → medium: overwrites an existing file
 *   curl -o /tmp/x https://example.com  → high: writes outside the workspace; network access
 *   write_file of a new file in the workspace → low
 */
export type RiskLevel = 'low' | 'medium' | 'high';

export interface Risk {
  level: RiskLevel;
  /** Plain phrases (no call-supplied text), most serious first. */
  reasons: string[];
}

/** Programs whose `-r`/`-R`/`--recursive` makes them act on whole trees. */
const RECURSIVE_CAPABLE = new Set(['rm', 'cp', 'mv', 'chmod', 'chown', 'chgrp', 'rsync', 'scp']);
/** Tool names (not shell commands) that delete. */
const DELETE_TOOL = /(^|[_-])(delete|remove|rm|unlink|destroy|drop|purge|erase)([_-]|$)/i;

const LEVEL_RANK: Record<RiskLevel, number> = { low: 0, medium: 1, high: 2 };

interface Reason {
  level: RiskLevel;
  text: string;
}

export function assessRisk(tool: string, decision: Decision, change: FileChange | null = null): Risk {
  const found: Reason[] = [];
  const add = (level: RiskLevel, text: string) => {
    if (!found.some((reason) => reason.text === text)) found.push({ level, text });
  };

  if (DELETE_TOOL.test(tool)) add('high', 'deletes');
  if (change?.action === 'replace') add('medium', 'overwrites an existing file');
  if (change?.action === 'move') add(change.bytesBefore === null ? 'medium' : 'high', change.bytesBefore === null ? 'moves a file (the source is removed)' : 'overwrites an existing file');

  for (const path of decision.paths) {
    if (path.inWorkspace) continue;
    if (path.access === 'write') add('high', 'writes outside the workspace');
    else add('medium', 'reads outside the workspace');
  }

  const info = decision.commandInfo;
  if (info) {
    for (const segment of info.segments) segmentReasons(segment, add);
    if (info.redirections.some((redirection) => redirection.kind === 'write')) add('medium', 'overwrites a file (redirection >)');
    if (info.substitutions.length > 0) add('medium', 'runs commands inside substitutions');
    if (info.unanalyzable.length > 0) add('medium', 'cannot be fully analysed');
  }
  if (decision.kind === 'all') add('medium', 'its effect is not known (kind: all)');

  const sorted = found.sort((a, b) => LEVEL_RANK[b.level] - LEVEL_RANK[a.level]);
  const level = sorted[0]?.level ?? 'low';
  return { level, reasons: sorted.map((reason) => reason.text) };
}

function segmentReasons(segment: Segment, add: (level: RiskLevel, text: string) => void): void {
  const name = segment.name ?? '';
  const wrappers = segment.wrappers.map((wrapper) => wrapper.split(/\s+/)[0] ?? '');
  if (wrappers.some((wrapper) => PRIVILEGE.has(wrapper)) || PRIVILEGE.has(name)) add('high', 'runs with another user\'s privileges');
  if (DELETERS.has(name) || (name === 'git' && segment.args[0] === 'clean') || (name === 'find' && segment.args.includes('-delete'))) add('high', 'deletes files');
  if (RECURSIVE_CAPABLE.has(name) && segment.args.some(isRecursiveFlag)) add(name === 'rm' ? 'high' : 'medium', 'recursive');
  // Past the global options that take a value (`git -C dir push` pushes).
  const subcommand = segment.args[commandWordAt(name, segment.args)] ?? '';
  // `git psuh` may push (help.autocorrect) and `git p` be an alias of anything (round 21 review B1):
  // it was shown as low risk.
  if (name === 'git' && otherGitCommand([[name, ...segment.args]]) !== null) add('medium', 'may run any git command (an alias, or the one help.autocorrect takes a typo for)');
  if (NETWORK_PROGRAMS.has(name) || NETWORK_SUBCOMMANDS[name]?.has(subcommand)) add('medium', 'network access');
  const fetches = Object.hasOwn(RUNNERS, name) ? RUNNERS[name]!.fetch : [];
  if (fetches.includes('') || fetches.includes(subcommand)) add('medium', 'network access (may run a downloaded package)');
  if (segment.context === 'nested') add('medium', 'runs a command given to another program');
}

function isRecursiveFlag(arg: string): boolean {
  if (arg === '--recursive') return true;
  return /^-[A-Za-z]+$/.test(arg) && /[rR]/.test(arg);
}

/** `high — deletes files; recursive` as one line (reasons are gateway text, never call-supplied). */
export function riskLine(risk: Risk): string {
  return risk.reasons.length > 0 ? `${risk.level} — ${risk.reasons.join('; ')}` : risk.level;
}
