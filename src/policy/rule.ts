import { LatchError } from '../errors.js';
import { quotedShown } from '../latch/escape.js';
import type { RuleList, RuleText } from './types.js';

/**
 * Rule strings (docs/rules.md), Claude Code's permission syntax:
 *
 *   Read(~/code/**)       read subjects whose path matches the glob
 *   Edit(src/**)          write subjects (alias Write(…), file_write(…))
 *   Bash(npm run test *)  shell commands starting with the words `npm run test`
 *   Bash(git status)      exactly `git status`
 *   Bash(npm test) in /p  `npm test` run in /p or below (allow rules only; what "Always allow" saves)
 *   Read | Edit | Bash    every subject of that kind
 *   mcp__fs__read_*       the whole call to matching tools of server `fs`
 *
 * parseRule turns the text into a Rule or throws RULE_INVALID naming the rule and the problem.
 */
export type Rule =
  | {
      type: 'path';
      text: RuleText;
      list: RuleList;
      access: 'read' | 'write';
      pattern: string | null;
      /** A built-in rule for a file git runs code from (policy.ts): writing one plants code, removing one does not. */
      codeFile?: true;
      /**
       * A built-in rule on a directory above this protected file (policy.ts ancestorRules): moving
       * or removing the directory moves or removes the file. Met only by such a write (decide.ts),
       * not by one into the directory (`cp a.txt .`).
       */
      holds?: string;
    }
  | {
      type: 'command';
      text: RuleText;
      list: RuleList;
      words: string[] | null;
      prefix: boolean;
      /**
       * `Bash(…) in DIR`: the rule holds only for a command whose working directory is DIR or below
       * (`~/` is the home directory), as written; an unknown directory is not in it (match.ts).
       */
      within?: string;
    }
  | { type: 'mcp'; text: RuleText; list: RuleList; server: string; toolGlob: string | null };

const PATH_TOOLS: Record<string, 'read' | 'write'> = {
  Read: 'read',
  file_read: 'read',
  Edit: 'write',
  Write: 'write',
  file_write: 'write',
};
const COMMAND_TOOLS = new Set(['Bash', 'bash']);

/**
 * Rules mcp-latch adds itself (policy.ts, builtInRules) are named `built-in …`; parseRule refuses
 * such a text (an unknown rule type), so a user's rule can never look like one.
 */
export function isBuiltIn(rule: Rule): boolean {
  return rule.text.startsWith('built-in');
}

function ruleError(text: string, problem: string): LatchError {
  // Quoted escaped and cut: a rule file's string is shown to a person (round 32 review S32-4).
  return new LatchError('RULE_INVALID', `invalid rule ${quotedShown(text)}: ${problem}`);
}

export function parseRule(text: RuleText, list: RuleList): Rule {
  if (typeof text !== 'string' || text.trim() === '') throw ruleError(String(text), 'a rule must be a non-empty string');
  if (text !== text.trim()) throw ruleError(text, 'remove the spaces around the rule');
  if (/[\0\r\n]/.test(text)) throw ruleError(text, 'a rule must be on one line');

  if (text.startsWith('mcp__')) return parseMcpRule(text, list);

  // `Bash(npm test) in /home/me/app`: the last ") in " followed by an absolute or ~/ path.
  const scoped = /^(.*\)) in ((?:\/|~\/|~$).*)$/.exec(text);
  if (scoped) {
    const rule = parseRule(scoped[1]!, list);
    if (rule.type !== 'command' || list !== 'allow' || rule.within !== undefined) throw ruleError(text, 'only Bash allow rules take a directory (" in DIR"), and only one');
    return { ...rule, text, within: scoped[2]! };
  }

  const open = text.indexOf('(');
  const tool = open === -1 ? text : text.slice(0, open);
  let specifier: string | null = null;
  if (open !== -1) {
    if (!text.endsWith(')')) throw ruleError(text, 'missing ")" at the end');
    specifier = text.slice(open + 1, -1);
  }

  if (tool in PATH_TOOLS) {
    const access = PATH_TOOLS[tool]!;
    if (specifier === null || specifier === '*' || specifier === '**') return { type: 'path', text, list, access, pattern: null };
    return { type: 'path', text, list, access, pattern: checkGlob(text, specifier) };
  }
  if (COMMAND_TOOLS.has(tool)) {
    if (specifier === null || specifier.trim() === '*') return { type: 'command', text, list, words: null, prefix: true };
    return { type: 'command', text, list, ...parseCommandSpecifier(text, specifier) };
  }
  const known = [...Object.keys(PATH_TOOLS), 'Bash', 'mcp__server[__tool]'].join(', ');
  throw ruleError(text, `unknown rule type "${tool}" (expected one of ${known})`);
}

function parseMcpRule(text: string, list: RuleList): Rule {
  if (text.includes('(')) throw ruleError(text, 'mcp__ rules take no "(…)": write mcp__server or mcp__server__tool');
  const rest = text.slice('mcp__'.length);
  const separator = rest.indexOf('__');
  const server = separator === -1 ? rest : rest.slice(0, separator);
  const toolGlob = separator === -1 ? null : rest.slice(separator + 2);
  if (!/^[A-Za-z0-9_-]+$/.test(server) || server.endsWith('_')) throw ruleError(text, 'the server name may only use letters, digits, "_" and "-"');
  if (toolGlob !== null) {
    if (toolGlob === '') throw ruleError(text, 'nothing after "__"; write mcp__server or mcp__server__tool');
    if (!/^[A-Za-z0-9_*?.-]+$/.test(toolGlob)) throw ruleError(text, 'a tool pattern may only use letters, digits, "_", "-", "." and the wildcards * and ?');
  }
  return { type: 'mcp', text, list, server, toolGlob: toolGlob === '*' ? null : toolGlob };
}

/** Glob checks of docs/rules.md: no negation, no comments, no extglobs (minimatch CVE-2026-27904). */
function checkGlob(text: string, glob: string): string {
  if (glob.trim() === '') throw ruleError(text, 'empty path pattern; write Read to match every path');
  if (glob.startsWith('!')) throw ruleError(text, 'negated patterns ("!…") are not supported; put the path in another list instead');
  if (glob.startsWith('#')) throw ruleError(text, 'a path pattern cannot start with "#"');
  if (/[@!+?*]\(/.test(glob)) throw ruleError(text, 'extglob patterns like "*(…)" or "@(…)" are not supported');
  if (/^~[^/]/.test(glob)) throw ruleError(text, '"~user" paths are not supported; write ~/… or an absolute path');
  if (glob.length > 4096) throw ruleError(text, 'path pattern is too long');
  let depth = 0;
  for (const ch of glob) {
    if (ch === '[') depth++;
    if (ch === ']') depth = Math.max(0, depth - 1);
  }
  if (depth > 0) throw ruleError(text, 'unclosed "[" in the path pattern');
  return glob;
}

/**
 * `npm run test *` / `npm run test:*` → prefix rule of words [npm, run, test]; `git status` → exact.
 * A `*` anywhere else is refused: `Bash(git * main)` would also match `git -c core.pager=… diff main`.
 */
function parseCommandSpecifier(text: string, specifier: string): { words: string[]; prefix: boolean } {
  let body = specifier.trim();
  let prefix = false;
  if (body.endsWith(':*')) {
    body = body.slice(0, -2).trimEnd();
    prefix = true;
  } else if (body.endsWith(' *')) {
    body = body.slice(0, -2).trimEnd();
    prefix = true;
  }
  if (body === '') throw ruleError(text, 'no command before "*"; write Bash to match every command');
  const words = splitWords(text, body);
  if (words.some((word) => word.includes('*'))) {
    throw ruleError(text, 'a "*" is only allowed at the end, after a space: Bash(npm run test *)');
  }
  return { words, prefix };
}

/** Splits rule words like a shell would for plain words and simple quotes. */
function splitWords(text: string, body: string): string[] {
  const words: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < body.length) current += body[++i];
      else current += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (ch === '\\' && i + 1 < body.length) {
      current += body[++i];
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) words.push(current);
      current = '';
      started = false;
    } else {
      if ('|&;<>()$`'.includes(ch)) throw ruleError(text, `shell operator "${ch}" in a command rule; write one rule per command`);
      current += ch;
      started = true;
    }
  }
  if (quote) throw ruleError(text, 'unterminated quote');
  if (started) words.push(current);
  return words;
}

/** Quotes a word for a rule string when it needs it (the inverse of splitWords). */
export function quoteRuleWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./~^-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}
