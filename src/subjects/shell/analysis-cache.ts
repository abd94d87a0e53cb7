import type { CommandInfo } from '../../policy/types.js';
import { analyseCommand, type AnalyseOptions } from './command.js';
import { PARSE_TIMEOUT } from './walk.js';

/**
 * The last analyses of command texts met twice. An analysis is a pure function of the text and the
 * directory the command starts in (no file is looked at), clients send the same commands again and
 * again (`npm test`, `git status`), and one call is decided again after each answer. A text is kept
 * from its second analysis on: keeping every text's analysis made each new command cost more in
 * garbage collection than the reuse saved. Kept analyses are frozen, so no caller can change one
 * another caller gets. A parse that ran out of time or failed inside is not kept: the next may not.
 */
const MAX_ENTRIES = 64;
/** Longer texts are analysed every time: 64 of them stay small. */
const MAX_TEXT = 2048;
const NOT_KEPT = [PARSE_TIMEOUT, 'internal-error', 'parser-unavailable'];

/** By text and directory: the analysis, or null for a text analysed once. Oldest first. */
const recent = new Map<string, CommandInfo | null>();

export function analyseCommandCached(command: string, options: AnalyseOptions): CommandInfo {
  if (command.length > MAX_TEXT || options.parseTimeoutMs !== undefined) return analyseCommand(command, options);
  // A directory never holds NUL (paths with one are refused), so the key is unambiguous.
  const key = `${options.shell ?? 'bash'}\0${options.cwd ?? ''}\0${command}`;
  const found = recent.get(key);
  if (found) {
    recent.delete(key);
    recent.set(key, found);
    return found;
  }
  const info = analyseCommand(command, options);
  // The timeout's reason names its limit after the code.
  if (info.unanalyzable.some((reason) => NOT_KEPT.some((code) => reason.startsWith(code)))) return info;
  if (found === undefined && recent.size >= MAX_ENTRIES) recent.delete(recent.keys().next().value!);
  recent.delete(key);
  recent.set(key, found === null ? deepFreeze(info) : null);
  return info;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
  return value;
}
