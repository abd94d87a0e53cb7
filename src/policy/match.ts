import { posix } from 'node:path';
import { Minimatch } from 'minimatch';
import type { Rule } from './rule.js';
import { globalValueOptions, isScriptRunner, RUNNERS, SAFE_WRAPPERS } from '../programs.js';
import type { Access, RuleList, Segment } from './types.js';

/**
 * Compiled, indexed rules (docs/rules.md). Built once per config load (and when the workspace roots
 * change); a reload swaps the whole set. Lookups touch only the rules that can match:
 * path rules are indexed by their literal directory prefix, command rules by program name, mcp
 * rules by server — so 1,000 rules cost about as much as ten.
 *
 * Matching is asymmetric on purpose: deny and ask rules match widely (basename of the program,
 * wrappers looked through, flags in any order and spelling), allow rules narrowly (literal program
 * name, static words, only harmless wrappers and environment assignments).
 */
export interface MatchEnv {
  home: string;
  /** Canonical workspace roots; relative rule globs are anchored at each. */
  roots: string[];
  platform: NodeJS.Platform;
}

interface PathMatcher {
  rule: Extract<Rule, { type: 'path' }>;
  matchers: Minimatch[];
}

interface PathIndex {
  /** Literal directory prefix (match form) → matchers under it. */
  byPrefix: Map<string, PathMatcher[]>;
  /** Bare file-name rules with a literal name, by that name. */
  byBasename: Map<string, PathMatcher[]>;
  /** Rules that can match anywhere and have no literal to index by. */
  scan: PathMatcher[];
  /** Bare `Read` / `Edit` rules: every path of that access. */
  all: Array<Extract<Rule, { type: 'path' }>>;
}

type CommandRule = Extract<Rule, { type: 'command' }>;
type McpRule = Extract<Rule, { type: 'mcp' }>;

function emptyPathIndex(): PathIndex {
  return { byPrefix: new Map(), byBasename: new Map(), scan: [], all: [] };
}

interface ListIndex {
  path: { read: PathIndex; write: PathIndex };
  /** By program basename (deny/ask) or literal program (allow); key '' = bare `Bash`. */
  command: Map<string, CommandRule[]>;
  mcp: Map<string, McpRule[]>;
}

export class RuleSet {
  private readonly lists: Record<RuleList, ListIndex>;
  readonly size: number;

  constructor(
    readonly rules: readonly Rule[],
    readonly env: MatchEnv,
  ) {
    this.lists = { allow: newList(), ask: newList(), deny: newList() };
    for (const rule of rules) this.add(rule);
    this.size = rules.length;
  }

  private add(rule: Rule): void {
    const list = this.lists[rule.list];
    if (rule.type === 'mcp') {
      push(list.mcp, rule.server, rule);
      return;
    }
    if (rule.type === 'command') {
      const first = rule.words?.[0];
      const key = first === undefined ? '' : rule.list === 'allow' ? first : posix.basename(first);
      push(list.command, key, rule);
      return;
    }
    const index = list.path[rule.access];
    if (rule.pattern === null) {
      index.all.push(rule);
      return;
    }
    const nocase = isCaseInsensitive(this.env.platform);
    for (const glob of anchorGlob(rule.pattern, this.env)) {
      const matcher: PathMatcher = { rule, matchers: globMatchers(glob, nocase) };
      if (glob.startsWith('/**/')) {
        const name = glob.slice(4);
        if (!/[*?[\]{}]/.test(name) && !name.includes('/')) push(index.byBasename, fold(name, nocase), matcher);
        else index.scan.push(matcher);
        continue;
      }
      push(index.byPrefix, fold(literalPrefix(glob), nocase), matcher);
    }
  }

  /**
   * The first rule of `list` matching a path (match form: absolute, forward slashes). For deny and
   * ask, rules about reading also cover writing the same path (a Read deny also denies writing it).
   */
  matchPath(list: RuleList, access: Access, path: string): Rule | null {
    const indexes = [this.lists[list].path[access]];
    if (list !== 'allow' && access === 'write') indexes.push(this.lists[list].path.read);
    const nocase = isCaseInsensitive(this.env.platform);
    const folded = fold(path, nocase);
    for (const index of indexes) {
      if (index.all.length > 0) return index.all[0]!;
      // Walk the path's ancestors (and the path itself) through the prefix index.
      let dir = folded;
      for (;;) {
        const found = index.byPrefix.get(dir);
        if (found) for (const candidate of found) if (candidate.matchers.some((m) => m.match(path))) return candidate.rule;
        if (dir === '/' || dir === '') break;
        const parent = posix.dirname(dir);
        dir = parent === dir ? '/' : parent;
        if (dir === '/' && index.byPrefix.size === 0) break;
      }
      const byName = index.byBasename.get(fold(posix.basename(path), nocase));
      if (byName) for (const candidate of byName) if (candidate.matchers.some((m) => m.match(path))) return candidate.rule;
      for (const candidate of index.scan) if (candidate.matchers.some((m) => m.match(path))) return candidate.rule;
    }
    return null;
  }

  /**
   * The first deny/ask rule of `list` that could match a path below `dir`, for a read of a whole
   * tree (`grep -r x dir`): minimatch's partial match, "could `dir` start a matching path?".
   */
  matchPathBelow(list: 'deny' | 'ask', access: Access, dir: string): Rule | null {
    const indexes = [this.lists[list].path[access]];
    if (access === 'write') indexes.push(this.lists[list].path.read);
    for (const index of indexes) {
      if (index.all.length > 0) return index.all[0]!;
      for (const group of [...index.byPrefix.values(), ...index.byBasename.values(), index.scan]) {
        for (const candidate of group) if (candidate.matchers.some((m) => m.match(dir, true))) return candidate.rule;
      }
    }
    return null;
  }

  /** The first deny/ask rule matching a shell command, matched widely. */
  matchCommandWide(list: 'deny' | 'ask', segment: Segment): Rule | null {
    const rules = this.lists[list].command;
    const bare = rules.get('');
    if (bare && bare.length > 0) return bare[0]!;
    for (const candidate of wideCandidates(segment)) {
      const first = candidate[0];
      if (first === undefined) continue;
      const found = rules.get(posix.basename(first));
      if (!found) continue;
      for (const rule of found) if (rule.words && containsRule(candidate, rule.words)) return rule;
    }
    return null;
  }

  /** The first allow rule matching a shell command, matched narrowly; null when the segment is not eligible. */
  matchCommandNarrow(segment: Segment): Rule | null {
    const rules = this.lists.allow.command;
    if (!isNarrowEligible(segment)) return null;
    const bare = rules.get('');
    if (bare && bare.length > 0) return bare[0]!;
    const words = [segment.program!, ...segment.args];
    const found = rules.get(words[0]!);
    if (!found) return null;
    for (const rule of found) {
      const ruleWords = rule.words!;
      if (rule.prefix ? startsWith(words, ruleWords) : equalWords(words, ruleWords)) return rule;
    }
    return null;
  }

  /** The first mcp__ rule of `list` for this server and tool (the server's own tool name). */
  matchTool(list: RuleList, server: string, tool: string): Rule | null {
    const found = this.lists[list].mcp.get(server);
    if (!found) return null;
    for (const rule of found) if (rule.toolGlob === null || simpleGlob(rule.toolGlob).test(tool)) return rule;
    return null;
  }

  /** Bare `Read` / `Edit` / `Bash` rule of a list, for tool subjects of that kind. */
  bareRule(list: RuleList, kind: 'read' | 'write' | 'command'): Rule | null {
    if (kind === 'command') return this.lists[list].command.get('')?.[0] ?? null;
    return this.lists[list].path[kind].all[0] ?? null;
  }
}

function newList(): ListIndex {
  return { path: { read: emptyPathIndex(), write: emptyPathIndex() }, command: new Map(), mcp: new Map() };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function isCaseInsensitive(platform: NodeJS.Platform): boolean {
  return platform === 'darwin' || platform === 'win32';
}

function fold(text: string, nocase: boolean): string {
  return nocase ? text.toLowerCase() : text;
}

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

/**
 * Absolute globs for one rule pattern (docs/rules.md#path-globs):
 *   ~/x → <home>/x   //x → /x   /x → /x   ./x or a/b → <root>/a/b for each workspace root
 *   .env (a bare name) → /**\/.env, at any depth   x/ → x/** (a directory)
 */
export function anchorGlob(pattern: string, env: MatchEnv): string[] {
  let glob = pattern.replace(/\\/g, '/');
  if (glob.endsWith('/') && glob.length > 1) glob += '**';
  if (glob === '~') return [toForward(env.home)];
  if (glob.startsWith('~/')) return [joinGlob(toForward(env.home), glob.slice(2))];
  if (glob.startsWith('//')) return [normaliseGlob(glob.slice(1))];
  if (glob.startsWith('/')) return [normaliseGlob(glob)];
  if (/^[A-Za-z]:\//.test(glob)) return [normaliseGlob(glob)];
  if (!glob.includes('/')) return [`/**/${glob}`];
  const relative = glob.startsWith('./') ? glob.slice(2) : glob;
  return env.roots.map((root) => joinGlob(toForward(root), relative));
}

function toForward(path: string): string {
  return path.replace(/\\/g, '/');
}

function joinGlob(base: string, rest: string): string {
  return normaliseGlob(`${base.replace(/\/+$/, '')}/${rest}`);
}

/** Collapses `//` and `/./` so the glob compares with normalised paths. */
function normaliseGlob(glob: string): string {
  let out = glob.replace(/\/+/g, '/').replace(/\/\.(?=\/|$)/g, '');
  if (out.length > 1 && out.endsWith('/')) out = out.slice(0, -1);
  return out === '' ? '/' : out;
}

/** Directory part before the first glob character: `/home/u/code/**` → `/home/u/code`. */
function literalPrefix(glob: string): string {
  const parts = glob.split('/');
  const literal: string[] = [];
  for (const part of parts) {
    if (/[*?[\]{}]/.test(part)) break;
    literal.push(part);
  }
  if (literal.length === parts.length) literal.pop(); // the whole glob is literal: index under its parent
  const prefix = literal.join('/');
  return prefix === '' ? '/' : prefix;
}

function globMatchers(glob: string, nocase: boolean): Minimatch[] {
  const options = { dot: true, nonegate: true, nocomment: true, noext: true, nocase, optimizationLevel: 2 } as const;
  const matchers = [new Minimatch(glob, options)];
  // `dir/**` also matches `dir` itself (deleting or moving the directory).
  if (glob.endsWith('/**') && glob.length > 3) matchers.push(new Minimatch(glob.slice(0, -3), options));
  return matchers;
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

/** Environment assignments an allow rule may look past: they change formatting, not behaviour. */
export const SAFE_ASSIGNMENTS = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|COLUMNS|LINES|TERM|CI|NODE_ENV|RUST_BACKTRACE|PYTHONUNBUFFERED|DEBUG)=/;

function isNarrowEligible(segment: Segment): boolean {
  if (!segment.isStatic || segment.program === null || segment.name === null) return false;
  // A path to the program (/tmp/evil/git) is not the program the rule names.
  if (segment.program !== segment.name) return false;
  if (!segment.assignments.every((assignment) => SAFE_ASSIGNMENTS.test(assignment))) return false;
  return segment.wrappers.every((wrapper) => SAFE_WRAPPERS.has(wrapper.split(/\s+/)[0] ?? ''));
}

/**
 * Word lists a deny/ask rule is tried against: without wrappers, as written (wrappers included),
 * and for runners (`uv run CMD…`, `npx PKG…`, `bundle exec CMD…`) every word after the subcommand
 * that could be the command they run, so `Bash(rm *)` also meets `uv run rm -rf .` (Claude Code
 * #92542: programs that exec their arguments hid them from deny rules).
 */
function wideCandidates(segment: Segment): string[][] {
  const out: string[][] = [];
  if (segment.name !== null) {
    out.push([segment.name, ...segment.args]);
    out.push(...runnerPayloads(segment.name, segment.args));
    // `node …/bin/mcp-latch.js allow`: the script is the program a deny rule names.
    const script = isScriptRunner(segment.name) ? segment.args.findIndex((arg) => !arg.startsWith('-')) : -1;
    if (script >= 0) out.push([posix.basename(segment.args[script]!).replace(/\.(c?js|mjs|ts|py|rb|pl|php|sh)$/, ''), ...segment.args.slice(script + 1)]);
  }
  const written = segment.words.slice(segment.assignments.length);
  if (written.length > 0) out.push([posix.basename(stripQuotesForDeny(written[0]!)), ...written.slice(1)]);
  if (segment.alternatives) for (const words of segment.alternatives) if (words.length > 0) out.push([posix.basename(words[0]!), ...words.slice(1)]);
  return out;
}

/** Each non-option word after a runner's subcommand, with the words after it. */
function runnerPayloads(name: string, args: readonly string[]): string[][] {
  const subcommands = Object.hasOwn(RUNNERS, name) ? RUNNERS[name]!.run : [];
  if (subcommands.length === 0) return [];
  let from = 0;
  if (!subcommands.includes('')) {
    const valueOptions = globalValueOptions(name);
    let i = 0;
    while (i < args.length && args[i]!.startsWith('-')) i += valueOptions.has(args[i]!) ? 2 : 1;
    if (i >= args.length || !subcommands.includes(args[i]!)) return [];
    from = i + 1;
  }
  const out: string[][] = [];
  for (let j = from; j < args.length; j++) if (!args[j]!.startsWith('-')) out.push([posix.basename(args[j]!), ...args.slice(j + 1)]);
  return out;
}

/** `\rm`, `"rm"`, `r''m` are already unquoted by the analyser; a raw dynamic word keeps only its letters. */
function stripQuotesForDeny(word: string): string {
  return word.replace(/["'\\]/g, '');
}

/** Long options and their short letters, so `rm --recursive --force` contains `-rf`. */
const LONG_FLAG_ALIASES: Record<string, Record<string, string>> = {
  rm: { '--recursive': 'r', '--force': 'f', '--dir': 'd', '--verbose': 'v' },
  cp: { '--recursive': 'r', '--force': 'f' },
  chmod: { '--recursive': 'r' },
  chown: { '--recursive': 'r' },
  git: { '--force': 'f', '--delete': 'd', '--all': 'a' },
};
/** Programs whose short flags are case-insensitive aliases (`rm -R` = `rm -r`). */
const FOLD_FLAG_CASE = new Set(['rm', 'cp', 'chmod', 'chown', 'chgrp']);

interface ParsedWords {
  program: string;
  shortFlags: Set<string>;
  longFlags: string[];
  positionals: string[];
}

function parseWords(words: readonly string[], expandAliases: boolean): ParsedWords {
  const program = posix.basename(words[0] ?? '');
  const valueOptions = globalValueOptions(program);
  const aliases = LONG_FLAG_ALIASES[program] ?? {};
  const foldCase = FOLD_FLAG_CASE.has(program);
  const shortFlags = new Set<string>();
  const longFlags: string[] = [];
  const positionals: string[] = [];
  let optionsEnded = false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (optionsEnded || word === '-' || !word.startsWith('-')) {
      positionals.push(word);
      continue;
    }
    if (word === '--') {
      optionsEnded = true;
      continue;
    }
    if (positionals.length === 0 && valueOptions.has(word)) {
      i++; // its value is not a positional
      continue;
    }
    if (word.startsWith('--')) {
      const name = word.split('=')[0]!;
      longFlags.push(name);
      const letter = expandAliases ? aliasOf(aliases, name) : undefined;
      if (letter) shortFlags.add(letter);
      continue;
    }
    for (const ch of word.slice(1)) shortFlags.add(foldCase ? ch.toLowerCase() : ch);
  }
  // `git push origin +main` force-pushes main, exactly like `git push --force origin main`.
  if (expandAliases && program === 'git' && positionals[0] === 'push' && positionals.slice(1).some((p) => p.startsWith('+'))) shortFlags.add('f');
  return { program, shortFlags, longFlags, positionals };
}

/** The short letter of a long option, also when abbreviated (GNU getopt: `rm --recur` is `--recursive`). */
function aliasOf(aliases: Record<string, string>, name: string): string | undefined {
  if (aliases[name]) return aliases[name];
  if (name.length < 3) return undefined;
  const matches = Object.keys(aliases).filter((long) => long.startsWith(name));
  return matches.length === 1 ? aliases[matches[0]!] : undefined;
}

/**
 * Does a command contain everything a deny/ask rule names? The program (by basename), every short
 * flag in any order or grouping, every long flag (or an abbreviation git would accept, or its short
 * alias), and the rule's positional words as a prefix of the command's positionals.
 */
export function containsRule(commandWords: readonly string[], ruleWords: readonly string[]): boolean {
  const command = parseWords(commandWords, true);
  const rule = parseWords(ruleWords, false);
  if (command.program !== rule.program) return false;
  const foldCase = FOLD_FLAG_CASE.has(rule.program);
  for (const flag of rule.shortFlags) if (!command.shortFlags.has(foldCase ? flag.toLowerCase() : flag)) return false;
  const aliases = LONG_FLAG_ALIASES[rule.program] ?? {};
  for (const flag of rule.longFlags) {
    const letter = aliases[flag];
    const present = command.longFlags.some((given) => given === flag || (given.length >= 4 && flag.startsWith(given)));
    if (!present && !(letter && command.shortFlags.has(letter))) return false;
  }
  // The gateway's own CLI parses options anywhere, and an unknown `--opt` takes the next word as
  // its value: its subcommand is found wherever it stands.
  if (rule.program === 'mcp-latch') return rule.positionals.every((word) => command.positionals.includes(word));
  return startsWith(command.positionals, rule.positionals);
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > words.length) return false;
  for (let i = 0; i < prefix.length; i++) if (words[i] !== prefix[i]) return false;
  return true;
}

function equalWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && startsWith(a, b);
}

const globCache = new Map<string, RegExp>();

/** `*` and `?` on a tool name. */
function simpleGlob(glob: string): RegExp {
  let regex = globCache.get(glob);
  if (!regex) {
    regex = new RegExp(`^${glob.replace(/[.+^${}()|[\]\\-]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    globCache.set(glob, regex);
  }
  return regex;
}
