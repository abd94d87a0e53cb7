import { lstatSync, opendirSync, realpathSync, type Dirent, type Stats } from 'node:fs';
import { posix } from 'node:path';
import { Minimatch } from 'minimatch';
import { isBuiltIn, type Rule } from './rule.js';
import { containsRule, isNarrowEligible } from './command-match.js';
import type { Access, RuleList, Segment } from './types.js';
import { isPlainAbsolute } from '../plain-path.js';
import { BUILD_CACHE_LIMIT, BuildCache } from './build-cache.js';

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
  /**
   * The roots a deny or ask rule's relative glob is anchored at, when more than `roots`: every root
   * of this run, also those the client has since taken back and those a server was given (core.ts
   * ruleRoots). A rule that denied `./conf/secret/**` in a project still denies it after the client's
   * roots change, and a server still working in the old one meets it (round 31 review F31-2).
   */
  ruleRoots?: readonly string[];
  /**
   * The run has named more roots than MAX_ROOTS_OF_RUN (core.ts): those past it are not kept, so a
   * deny or ask rule's relative glob also holds below any directory (`Read(./conf/secret/**)` as
   * `/**\/conf/secret/**`): no anchor dropped, and no rule made thousands of globs (round 32 review F32-4).
   */
  rootsBeyond?: true;
  platform: NodeJS.Platform;
}

/** The entries RuleSet.linkedFiles looks at, at most, below the directories deny and ask rules name. */
export const MAX_LINKED_WALK = 20_000;
/** How long RuleSet.linkedFiles' answer is kept (ms): a file a rule covers, made later, is seen after it. */
const LINKED_FOR_MS = 2_000;
/**
 * The entries RuleSet.linkedFiles reads, at most, below the node_modules and .git directories of the
 * roots for rules by name at any depth (by name only: an entry is stat'ed when a rule's name meets
 * it); past it a read of a file with several names asks (round 33 review F33-2).
 */
export const MAX_LINKED_NAMES_WALK = 200_000;
/** How long that walk's answer is kept (ms): a package manager's or git's files change at an install or a commit, not between reads. */
const LINKED_NAMES_FOR_MS = 60_000;

/** The roots of a run kept (the client's, those a server was given): past it, MatchEnv.rootsBeyond. */
export const MAX_ROOTS_OF_RUN = 64;

interface PathMatcher {
  rule: Extract<Rule, { type: 'path' }>;
  matchers: GlobMatcher[];
}

/** A glob as a path rule tries it: minimatch, or a string test for the shapes most rules have (globMatchers). */
export interface GlobMatcher {
  match(path: string, partial?: boolean): boolean;
}

interface PathIndex {
  /** Literal directory prefix (match form) → matchers under it. */
  byPrefix: Map<string, PathMatcher[]>;
  /** The lengths of byPrefix's keys: an ancestor of another length is not looked up (hashing it cost more than the walk). */
  prefixLengths: Set<number>;
  /** Bare file-name rules with a literal name, by that name. */
  byBasename: Map<string, PathMatcher[]>;
  /** The lengths of byBasename's keys: a path whose name has another length is not looked up (its name not made). */
  basenameLengths: Set<number>;
  /** Rules that can match anywhere and have no literal to index by. */
  scan: PathMatcher[];
  /** Bare `Read` / `Edit` rules: every path of that access. */
  all: Array<Extract<Rule, { type: 'path' }>>;
}

type CommandRule = Extract<Rule, { type: 'command' }>;
type PathRule = Extract<Rule, { type: 'path' }>;

/** One anchored glob of a path rule, and the index it goes in under which key. */
interface Place {
  where: 'prefix' | 'basename' | 'scan';
  key: string;
  matcher: PathMatcher;
}

/**
 * The places of each path rule in the last build, with the environment they were made for: a
 * rule parsed once (policy.ts) is the same object in the next build, which a reload after "Always
 * allow" makes with thousands of rules unchanged (docs/performance.md, "Round 18: remembered rules
 * at scale"). Shared read-only by every build; weak, so a rule no policy holds goes.
 */
const placements = new WeakMap<Rule, { env: string; places: Place[] }>();
type McpRule = Extract<Rule, { type: 'mcp' }>;

function emptyPathIndex(): PathIndex {
  return { byPrefix: new Map(), byBasename: new Map(), scan: [], all: [], prefixLengths: new Set(), basenameLengths: new Set() };
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
  /** The user's rules hold a deny or an ask rule (of any type): something `bypassPermissions` must still stop. */
  readonly limited: boolean;
  /** What a rule's places depend on besides the rule (placements). */
  private readonly envKey: string;
  private linked: { [A in Access]?: { at: number; files: Map<string, { path: string; rule: PathRule }> | null } } = {};
  /** The covered files with several names below node_modules and .git (walkNames), kept LINKED_NAMES_FOR_MS. */
  private linkedNames: { [A in Access]?: { at: number; files: Map<string, { path: string; rule: PathRule }> | null } } = {};

  constructor(
    readonly rules: readonly Rule[],
    readonly env: MatchEnv,
  ) {
    this.lists = { allow: newList(), ask: newList(), deny: newList() };
    this.envKey = [env.platform, env.home, ...env.roots, '', ...(env.ruleRoots ?? []), env.rootsBeyond ? '\0beyond' : ''].join('\0');
    const real = new Map<string, string | null>();
    for (const rule of rules) this.add(rule, real);
    this.size = rules.length;
    this.limited = rules.some((rule) => rule.list !== 'allow' && !isBuiltIn(rule));
  }

  /** `real`: the real paths of rule directories found so far in this build (realGlob). */
  private add(rule: Rule, real: Map<string, string | null>): void {
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
    // A deny or ask rule whose own path goes through a link (a stow-managed `~/.ssh -> dotfiles/ssh`)
    // holds for the target under its real name too; an allow rule is not widened (round 15 review P4).
    // Read from the disk at each build, such a rule's places are made again each time; any other's
    // are a function of the rule and the environment, kept with the rule for the next build.
    const linked = rule.list !== 'allow' && rule.holds === undefined && this.env.platform === process.platform;
    let placed = linked ? undefined : placements.get(rule);
    if (placed?.env !== this.envKey) {
      placed = { env: this.envKey, places: this.places(rule, linked, real) };
      if (!linked) placements.set(rule, placed);
    }
    for (const place of placed.places) {
      if (place.where === 'scan') index.scan.push(place.matcher);
      else if (place.where === 'basename') {
        push(index.byBasename, place.key, place.matcher);
        index.basenameLengths.add(place.key.length);
      } else {
        push(index.byPrefix, place.key, place.matcher);
        index.prefixLengths.add(place.key.length);
      }
    }
  }

  /** Where a path rule goes in the index: one place for each of its anchored globs. */
  private places(rule: PathRule, linked: boolean, real: Map<string, string | null>): Place[] {
    const nocase = caseFold(this.env.platform, rule.list);
    const globs = ruleGlobs(rule, this.env);
    if (linked) {
      for (const glob of [...globs]) {
        const resolved = realGlob(glob, real);
        if (resolved !== null && !globs.includes(resolved)) globs.push(resolved);
      }
    }
    return globs.map((glob): Place => {
      const matcher: PathMatcher = { rule, matchers: globMatchers(glob, nocase, nocase === 'none' || rule.list !== 'allow') };
      // minimatch takes `x/..` out of a glob (`/w/proj/../secret/**` matches /w/secret/x), which the
      // index by literal prefix does not: such a glob is tried on every path; so is one whose braces
      // may make a `..` (`/w/proj/x/{.,y}.` is `/w/proj/x/..`, which matches /w/proj).
      if (/(^|\/)\.\.(\/|$)/.test(glob) || /\{.*\./.test(glob)) return { where: 'scan', key: '', matcher };
      if (glob.startsWith('/**/')) {
        const name = glob.slice(4);
        return !/[*?[\]{}\\]/.test(name) && !name.includes('/') ? { where: 'basename', key: fold(name, nocase), matcher } : { where: 'scan', key: '', matcher };
      }
      return { where: 'prefix', key: fold(literalPrefix(glob), nocase), matcher };
    });
  }

  /**
   * The first rule of `list` matching a path (match form: absolute, forward slashes). For deny and
   * ask, rules about reading also cover writing the same path (a Read deny also denies writing it).
   * Without `codeFiles` the built-in rules on git's and the clients' code files are left out (a
   * harmless `git config` setting: decide.ts GIT_CONFIG_SETTING).
   */
  matchPath(list: RuleList, access: Access, path: string, withReads = true, removes = false, codeFiles = true): Rule | null {
    const paths = this.lists[list].path;
    const nocase = caseFold(this.env.platform, list);
    const folded = fold(path, nocase);
    return matchIn(paths[access], path, folded, nocase, removes, codeFiles) ?? (list !== 'allow' && access === 'write' && withReads ? matchIn(paths.read, path, folded, nocase, removes, codeFiles) : null);
  }

  /**
   * The files deny and ask Read rules cover that have more than one name (st_nlink > 1), by
   * `dev:ino`: a read of another name of one (a hard link another process made) meets its rule
   * (round 32 review F32-5; docs/rules.md#path-globs). Found by walking, without following links,
   * the literal directory of each rule's globs (the workspace roots for a rule by name at any
   * depth, `**\/.env`), at most MAX_LINKED_WALK entries; null past that, or when a rule starts with
   * a wildcard at `/`. Looked up only for a read of a file with several names; kept LINKED_FOR_MS.
   * The roots' node_modules and .git directories (a package manager's and git's files, many linked
   * from a store) are read by name only, at most MAX_LINKED_NAMES_WALK entries, kept
   * LINKED_NAMES_FOR_MS (round 33 review F33-2: a covered `.env` there, linked elsewhere, was missed).
   * For a `write` (round 33 review F33-3: `echo x >> pub/h.txt` wrote through another name), the
   * files deny and ask Edit rules cover too, Read rules among them (a Read deny also denies writing).
   */
  linkedFiles(access: Access = 'read'): Map<string, { path: string; rule: PathRule }> | null {
    const now = Date.now();
    const kept = this.linked[access];
    if (kept !== undefined && now - kept.at < LINKED_FOR_MS) return kept.files;
    const files = this.walkLinked(access);
    this.linked[access] = { at: now, files };
    return files;
  }

  private walkLinked(access: Access): Map<string, { path: string; rule: PathRule }> | null {
    const dirs = new Set<string>();
    const exact = new Set<string>();
    const roots = new Set<string>();
    for (const list of ['deny', 'ask'] as const) {
      for (const index of access === 'write' ? [this.lists[list].path.write, this.lists[list].path.read] : [this.lists[list].path.read]) {
        if (index.all.length > 0) return null;
        for (const rule of new Set([...index.byPrefix.values(), ...index.byBasename.values(), index.scan].flat().map((m) => m.rule))) {
          // A directory above a protected file (policy.ts ancestorRules) holds for its removal only.
          if (rule.type !== 'path' || rule.holds !== undefined) continue;
          for (const glob of ruleGlobs(rule, this.env)) {
            if (glob.startsWith('/**/')) {
              for (const root of this.env.ruleRoots ?? this.env.roots) roots.add(root);
              continue;
            }
            // A rule naming one file (`Read(./.env)`): that file alone, not what is below it.
            const literal = !/[*?[\]{}\\]/.test(glob);
            const prefix = literal ? glob : literalPrefix(glob);
            if (prefix === '/' || !prefix.startsWith('/')) return null;
            (literal ? exact : dirs).add(prefix);
          }
        }
      }
    }
    const files = new Map<string, { path: string; rule: PathRule }>();
    let left = MAX_LINKED_WALK;
    const seen = new Set<string>();
    const pruned: string[] = [];
    const note = (path: string, stat: Stats, into: Map<string, { path: string; rule: PathRule }>): void => {
      if (!stat.isFile() || stat.nlink <= 1) return;
      const rule = this.matchPath('deny', access, path) ?? this.matchPath('ask', access, path);
      const key = `${stat.dev}:${stat.ino}`;
      if (rule && rule.type === 'path' && !into.has(key)) into.set(key, { path, rule });
    };
    // `prune`: for a rule by name at any depth, the roots' node_modules and .git, whose files a
    // package manager or git links from its store, are left to walkNames (docs/threat-model.md, F32-5, F33-2).
    const walk = (path: string, prune: boolean): boolean => {
      if (left-- <= 0) return false;
      let stat;
      try {
        stat = lstatSync(path);
      } catch {
        return true;
      }
      note(path, stat, files);
      if (!stat.isDirectory() || seen.has(path)) return true;
      seen.add(path);
      return eachEntry(path, (entry) => {
        if (prune && (entry.name === 'node_modules' || entry.name === '.git')) {
          if (entry.isDirectory()) pruned.push(`${path === '/' ? '' : path}/${entry.name}`);
          return true;
        }
        return walk(`${path === '/' ? '' : path}/${entry.name}`, prune);
      });
    };
    for (const dir of dirs) if (!walk(dir, false)) return null;
    for (const root of roots) if (!dirs.has(root) && !walk(root, true)) return null;
    for (const file of exact) {
      if (dirs.has(file) || left-- <= 0) continue;
      try {
        note(file, lstatSync(file), files);
      } catch {
        // not there: nothing shares its inode
      }
    }
    if (pruned.length === 0) return files;
    const now = Date.now();
    const kept = this.linkedNames[access];
    const names = kept !== undefined && now - kept.at < LINKED_NAMES_FOR_MS ? kept : (this.linkedNames[access] = { at: now, files: this.walkNames(access, pruned, note) });
    const below = names.files;
    if (below === null) return null;
    for (const [key, value] of below) if (!files.has(key)) files.set(key, value);
    return files;
  }

  /**
   * The covered files with several names below `dirs` (node_modules and .git of the roots), read by
   * name: a directory's entries from readdir alone, an entry stat'ed only when a rule by name (its
   * basename, or a by-name glob) could match it; links not followed. Null past MAX_LINKED_NAMES_WALK.
   */
  private walkNames(access: Access, dirs: readonly string[], note: (path: string, stat: Stats, into: Map<string, { path: string; rule: PathRule }>) => void): Map<string, { path: string; rule: PathRule }> | null {
    const files = new Map<string, { path: string; rule: PathRule }>();
    const names = new Set<string>();
    let globs = false;
    for (const list of ['deny', 'ask'] as const) {
      for (const index of access === 'write' ? [this.lists[list].path.write, this.lists[list].path.read] : [this.lists[list].path.read]) {
        for (const key of index.byBasename.keys()) names.add(key);
        if (index.scan.length > 0) globs = true;
      }
    }
    let left = MAX_LINKED_NAMES_WALK;
    const walk = (path: string): boolean =>
      eachEntry(path, (entry) => {
        if (left-- <= 0) return false;
        const at = `${path}/${entry.name}`;
        if (entry.isDirectory()) return walk(at);
        if (!entry.isSymbolicLink() && (globs || names.has(fold(entry.name, 'names')))) {
          let stat;
          try {
            stat = lstatSync(at);
          } catch {
            return true; // gone since the listing: nothing shares its inode
          }
          note(at, stat, files);
        }
        return true;
      });
    for (const dir of dirs) if (!walk(dir)) return null;
    return files;
  }

  /**
   * The first deny/ask rule of `list` that could match a path below `dir`, for a read of a whole
   * tree (`grep -r x dir`): minimatch's partial match, "could `dir` start a matching path?". For a
   * `removal` (a write of the tree), the Edit rules only, less those for git's code files (decide.ts)
   * unless the write `plants` (`chmod -R` can make a hook runnable); with `reads` the Read rules
   * too (a move: what is below is read under its new name).
   */
  matchPathBelow(list: 'deny' | 'ask', access: Access, dir: string, removal = false, plants = false, reads = !removal): Rule | null {
    const indexes = [this.lists[list].path[access]];
    if (access === 'write' && reads) indexes.push(this.lists[list].path.read);
    const counts = (rule: Rule): boolean => !(removal && !plants && rule.type === 'path' && rule.codeFile);
    for (const index of indexes) {
      for (const rule of index.all) if (counts(rule)) return rule;
      for (const group of [...index.byPrefix.values(), ...index.byBasename.values(), index.scan]) {
        for (const candidate of group) if (counts(candidate.rule) && candidate.matchers.some((m) => m.match(dir, true))) return candidate.rule;
      }
    }
    return null;
  }

  /**
   * Whether a deny or an ask rule may match a shell command widely: a bare `Bash` rule, or one
   * filed under one of `heads` (its wideHeads). When not, matchCommandWide finds nothing in either
   * list whatever the candidates, and they need not be made.
   */
  wideRulesFor(heads: readonly string[]): boolean {
    for (const list of ['deny', 'ask'] as const) {
      const rules = this.lists[list].command;
      if (rules.size === 0) continue;
      if (rules.has('')) return true;
      for (const head of heads) if (rules.has(head)) return true;
    }
    return false;
  }

  /** The first deny or ask rule (deny first) filed under the program `name` (`Bash(git push *)` under git); null when none. */
  firstCommandRule(name: string): Rule | null {
    for (const list of ['deny', 'ask'] as const) {
      const found = this.lists[list].command.get(name);
      if (found && found.length > 0) return found[0]!;
    }
    return null;
  }

  /** The first deny/ask rule matching a shell command, matched widely: `candidates` are its wideCandidates (made once for both lists). */
  matchCommandWide(list: 'deny' | 'ask', candidates: readonly string[][]): Rule | null {
    const rules = this.lists[list].command;
    if (rules.size === 0) return null;
    const bare = rules.get('');
    if (bare && bare.length > 0) return bare[0]!;
    for (const candidate of candidates) {
      const first = candidate[0];
      if (first === undefined) continue;
      const found = rules.get(posix.basename(first));
      if (!found) continue;
      for (const rule of found) if (rule.words && containsRule(candidate, rule.words)) return rule;
    }
    return null;
  }

  /** An allow rule whose words after the program are `word` itself (`Bash(git lg *)`, `Bash(gh pr co *)`) matching the segment as written (decide.ts namedByAllow, ghAlias). */
  allowNaming(segment: Segment, word: string | readonly string[]): Rule | null {
    if (!isNarrowEligible(segment)) return null;
    const named = typeof word === 'string' ? [word] : word;
    for (const rule of this.lists.allow.command.get(segment.program!) ?? []) {
      if (!named.every((each, i) => rule.words?.[i + 1] === each) || !programWords(segment.program!, segment.args, rule.words!, !rule.prefix)) continue;
      if (rule.within === undefined || this.runsWithin(segment.cwd, rule.within)) return rule;
    }
    return null;
  }

  /** The first allow rule matching a shell command, matched narrowly; null when the segment is not eligible. */
  matchCommandNarrow(segment: Segment): Rule | null {
    const rules = this.lists.allow.command;
    if (!isNarrowEligible(segment)) return null;
    for (const rule of rules.get('') ?? []) if (rule.within === undefined || this.runsWithin(segment.cwd, rule.within)) return rule;
    const found = rules.get(segment.program!);
    if (!found) return null;
    for (const rule of found) {
      if (!programWords(segment.program!, segment.args, rule.words!, !rule.prefix)) continue;
      if (rule.within === undefined || this.runsWithin(segment.cwd, rule.within)) return rule;
    }
    return null;
  }

  /**
   * A `Bash(…) in DIR` rule's condition: the command runs in DIR or below, compared as the kernel
   * finds the directory now. The working directory is resolved through links (the same project
   * reached through a link to it holds; a link inside DIR leading out, or DIR replaced by a link
   * since the rule was saved, does not), and DIR must be its own real path (what "Always allow"
   * saves: a workspace root is real); an unknown directory, one not there, or one whose readings
   * differ is not in it (docs/rules.md, round 15 left: compared as written).
   */
  private runsWithin(cwd: string | null, within: string): boolean {
    if (cwd === null) return false;
    const dir = posix.normalize(within === '~' ? this.env.home : within.startsWith('~/') ? posix.join(this.env.home, within.slice(2)) : within);
    const real = realDirectory(dir);
    if (real !== dir) return false;
    // `cd link/..` is the workspace to bash's logical cd and link's parent to the kernel: both must be in DIR.
    for (const form of new Set([cwd, posix.normalize(cwd)])) {
      const resolved = realDirectory(form);
      if (resolved === null) return false;
      const rel = posix.relative(dir, resolved);
      if (!(rel === '' || (!rel.startsWith('..') && !posix.isAbsolute(rel)))) return false;
    }
    return true;
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

/**
 * Whether `[program, ...args]` starts with `words` (is `words`, when `whole`), as startsWith and
 * equalWords compare them, without making that list: spreading a kept analysis's frozen `args`
 * took the slow path for every allow lookup (docs/performance.md "Round 18: decision time").
 */
function programWords(program: string, args: readonly string[], words: readonly string[], whole: boolean): boolean {
  if (whole ? words.length !== args.length + 1 : words.length > args.length + 1) return false;
  if (words.length > 0 && words[0] !== program) return false;
  for (let i = 1; i < words.length; i++) if (args[i - 1] !== words[i]) return false;
  return true;
}

/** The first rule of one index matching a path (RuleSet.matchPath; `folded`, the path as the index keys it). */
function matchIn(index: PathIndex, path: string, folded: string, nocase: Fold, removes: boolean, codeFiles = true): Rule | null {
  if (index.all.length > 0) return index.all[0]!;
  // Walk the path's ancestors (and the path itself) through the prefix index; a trailing slash
  // is dropped first, or the walk would step over the directory it names.
  const dir = folded.length > 1 && folded.endsWith('/') ? folded.replace(/\/+$/, '') || '/' : folded;
  const found = dir.charCodeAt(0) === 47 && !dir.includes('//') ? inPrefixesOf(index, dir, path, removes, codeFiles) : inAncestors(index, dir, path, removes, codeFiles);
  if (found !== null) return found;
  // Most rule sets file no rule by name alone: the path's name is then not made (a slice and its hash
  // per lookup), nor when no name filed has its length (a name's length is its folded one off macOS and Windows).
  if (index.byBasename.size > 0 && (nocase !== 'none' || path.endsWith('/') || index.basenameLengths.has(path.length - 1 - path.lastIndexOf('/')))) {
    const byName = index.byBasename.get(fold(posix.basename(path), nocase));
    if (byName) for (const candidate of byName) if (counts(candidate, path, removes, codeFiles)) return candidate.rule;
  }
  for (const candidate of index.scan) if (counts(candidate, path, removes, codeFiles)) return candidate.rule;
  return null;
}

/**
 * The first rule filed under `dir` or a directory above it (matchIn), for an absolute `dir` with no
 * `//` and no trailing `/`: its ancestors are then the texts before each of its slashes, and `/`,
 * as posix.dirname steps them. Only a prefix of a length some key has is made and looked up
 * (docs/performance.md, "Round 28: decision time").
 */
function inPrefixesOf(index: PathIndex, dir: string, path: string, removes: boolean, codeFiles: boolean): Rule | null {
  const lengths = index.prefixLengths;
  for (let end = dir.length; end > 1; end = dir.lastIndexOf('/', end - 1)) {
    if (!lengths.has(end)) continue;
    const found = index.byPrefix.get(end === dir.length ? dir : dir.slice(0, end));
    if (found) for (const candidate of found) if (counts(candidate, path, removes, codeFiles)) return candidate.rule;
  }
  const root = lengths.has(1) ? index.byPrefix.get('/') : undefined;
  if (root) for (const candidate of root) if (counts(candidate, path, removes, codeFiles)) return candidate.rule;
  return null;
}

/** inPrefixesOf for any other `dir` (relative, or with `//`): its ancestors as posix.dirname gives them. */
function inAncestors(index: PathIndex, dir: string, path: string, removes: boolean, codeFiles: boolean): Rule | null {
  for (;;) {
    const found = index.prefixLengths.has(dir.length) ? index.byPrefix.get(dir) : undefined;
    if (found) for (const candidate of found) if (counts(candidate, path, removes, codeFiles)) return candidate.rule;
    if (dir === '/' || dir === '') return null;
    const parent = posix.dirname(dir);
    dir = parent === dir ? '/' : parent;
    if (dir === '/' && index.byPrefix.size === 0) return null;
  }
}

/**
 * Whether a rule's globs match a path. The rules on the directories above a protected file
 * (policy.ts ancestorRules) count only for a write that moves or removes the path with what is
 * below it (`removes`), not one into it.
 */
function counts(candidate: PathMatcher, path: string, removes: boolean, codeFiles = true): boolean {
  if (!removes && candidate.rule.holds !== undefined) return false;
  if (!codeFiles && candidate.rule.type === 'path' && candidate.rule.codeFile) return false;
  for (const matcher of candidate.matchers) if (matcher.match(path)) return true;
  return false;
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

/**
 * How a list's path rules compare names. Deny and ask rules on every platform as any file system
 * may (`names`, nameKey): a Linux file system may fold case where the gateway cannot see it (vfat,
 * exfat, ntfs3 and SMB mounts, an ext4 or f2fs directory with the casefold attribute `+F`):
 * `Conf/Secret/db.txt` opens conf/secret/db.txt there, and realpath keeps the spelling given (round
 * 31 review F31-5). Allow rules keep the case written, lower-cased only on macOS and Windows, whose
 * file systems fold case (docs/rules.md#path-globs).
 */
export type Fold = 'none' | 'lower' | 'names';

function caseFold(platform: NodeJS.Platform, list: RuleList): Fold {
  return list !== 'allow' ? 'names' : isCaseInsensitive(platform) ? 'lower' : 'none';
}

function fold(text: string, how: Fold): string {
  return how === 'none' ? text : how === 'lower' ? text.toLowerCase() : nameKey(text);
}

const NOT_ASCII = /[^\x00-\x7f]/;
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * A path as the file systems that fold names compare it, one string for every name any of them
 * takes for the same (round 32 review F32-1; docs/rules.md#path-globs): decomposed (NFD: APFS and
 * HFS+ are normalisation-insensitive, ext4's casefold compares NFD), Default_Ignorable code points
 * dropped (ext4/f2fs casefold before Linux 6.13 and HFS+ ignore them: `secret\u200c` is `secret`),
 * then lower, upper and lower case: full case folding as ext4's utf8_casefold (`ß`, `ẞ` and `SS` are
 * `ss`, the ligature `ﬁ` is `fi`, the Kelvin sign `K` is `k`) and what upcase tables make equal
 * (NTFS, exFAT: `ſ` and `s`, `ı` and `i` upcase alike), `ς` as `σ`. ASCII is only lower-cased.
 */
export function nameKey(text: string): string {
  // One path is folded by the index and again by each rule's matcher: the last answer is kept.
  if (text === lastKeyed) return lastKey;
  lastKeyed = text;
  lastKey = NOT_ASCII.test(text) ? text.normalize('NFD').replace(IGNORABLE, '').toLowerCase().toUpperCase().toLowerCase().replaceAll('ς', 'σ').normalize('NFD') : text.toLowerCase();
  return lastKey;
}
let lastKeyed = '';
let lastKey = '';

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

/**
 * The absolute globs a path rule names (anchorGlob). Until round 21 every `\` of a rule was a
 * separator: a user's deny or ask rule written so (`Read(C:\Users\me\.ssh\**)`, `Edit(src\gen\**)`)
 * also names what it named then, so none matches less after the upgrade (fail closed; round 21
 * late review L3, docs/rules.md#path-globs). An allow rule takes the escape reading only.
 */
export function ruleGlobs(rule: PathRule, env: MatchEnv): string[] {
  // Deny and ask rules hold at every root of the run; allow rules only at the roots now (F31-2).
  if (rule.list !== 'allow' && env.ruleRoots !== undefined) env = { ...env, roots: [...env.ruleRoots] };
  const globs = anchorGlob(rule.pattern!, env);
  if (rule.list !== 'allow' && !isBuiltIn(rule) && rule.pattern!.includes('\\')) {
    for (const glob of anchorGlob(rule.pattern!.replace(/\\/g, '/'), env)) if (!globs.includes(glob)) globs.push(glob);
  }
  // Past MAX_ROOTS_OF_RUN a root the run did not keep may be any directory (F32-4).
  if (rule.list !== 'allow' && env.rootsBeyond) {
    for (const glob of anchorGlob(rule.pattern!, { ...env, roots: [ANY_ROOT] })) {
      const any = `/**${glob.slice(ANY_ROOT.length)}`;
      if (glob.startsWith(`${ANY_ROOT}/`) && !globs.includes(any)) globs.push(any);
    }
  }
  return globs;
}

/** A root no path has (a NUL): what anchorGlob puts before a relative pattern, to be told from the others. */
const ANY_ROOT = '/\u0000';

/**
 * Absolute globs for one rule pattern (docs/rules.md#path-globs):
 *   ~/x → <home>/x   //x → /x   /x → /x   ./x or a/b → <root>/a/b for each workspace root
 *   .env (a bare name) → /**\/.env, at any depth   x/ → x/** (a directory)
 */
export function anchorGlob(pattern: string, env: MatchEnv): string[] {
  // A `\` before a glob character escapes it (the gateway's own rules name their files so, policy.ts
  // literal; remembered paths too): only on Windows is any other `\` a separator. Until round 21 every
  // `\` became `/`, so the built-in protection of a config in `~/work (2)/` or `/srv/app[1]/` named
  // another path and the file was written freely (review-bypass21 B8). On Windows `\*` and `\?` are
  // separators too: no Windows name holds `*` or `?`, so they cannot be escapes there, and
  // `Read(C:\Users\me\.ssh\**)` is the everyday way to write that rule (round 21 late review L3).
  let glob = env.platform === 'win32' ? pattern.replace(/\\(?![[\]{}()!])/g, '/') : pattern;
  if (glob.endsWith('/') && glob.length > 1) glob += '**';
  if (glob === '~') return [baseGlob(env.home, env)];
  if (glob.startsWith('~/')) return [joinGlob(baseGlob(env.home, env), glob.slice(2))];
  if (glob.startsWith('//')) return [normaliseGlob(glob.slice(1))];
  if (glob.startsWith('/')) return [normaliseGlob(glob)];
  if (/^[A-Za-z]:\//.test(glob)) return [normaliseGlob(glob)];
  if (!glob.includes('/')) return [`/**/${glob}`];
  const relative = glob.startsWith('./') ? glob.slice(2) : glob;
  return env.roots.map((root) => joinGlob(baseGlob(root, env), relative));
}

/**
 * The home directory or a workspace root as the start of a glob: its glob characters escaped, so
 * `Read(./.env)` in a workspace `/w/app[v2]` names `/w/app[v2]/.env`, not `/w/appv/.env` (round 21
 * review, B8). On Windows, where `\` is a separator in rules, the path is kept as it is.
 */
function baseGlob(path: string, env: MatchEnv): string {
  return env.platform === 'win32' ? toForward(path) : path.replace(/[*?[\]{}()!\\]/g, '\\$&');
}

/**
 * `glob` with its literal directory part (the whole path when it has no wildcard) as the kernel
 * resolves it now, when a link on it leads elsewhere: `/h/.ssh/**` → `/h/dotfiles/ssh/**`. A part
 * not there yet is kept under its parent's real path. Null when nothing on it is a link, or it
 * starts with a wildcard. Read when the rules are built (load, reload, a change of roots): a link
 * made later is not seen until then (docs/rules.md#links-in-rule-paths).
 */
function realGlob(glob: string, real: Map<string, string | null>): string | null {
  if (!glob.startsWith('/')) return null;
  const parts = glob.split('/');
  let literal = 1;
  while (literal < parts.length && parts[literal] !== '' && !/[*?[\]{}\\]/.test(parts[literal]!) && parts[literal] !== '.' && parts[literal] !== '..') literal += 1;
  const dir = parts.slice(0, literal).join('/');
  if (dir === '') return null;
  const resolved = realPathOf(dir, real);
  if (resolved === null || resolved === dir) return null;
  const escaped = resolved.replace(/[*?[\]{}()!\\]/g, '\\$&');
  return literal === parts.length ? escaped : `${escaped === '/' ? '' : escaped}/${parts.slice(literal).join('/')}`;
}

/** The real path of a directory that is there now; null otherwise. */
function realDirectory(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

/** The real path of `path`, or of its nearest existing ancestor with the rest of the names below it; null when none resolves. */
function realPathOf(path: string, real: Map<string, string | null>): string | null {
  const known = real.get(path);
  if (known !== undefined) return known;
  let found: string | null;
  try {
    found = realpathSync.native(path);
  } catch {
    const parent = posix.dirname(path);
    const above = parent === path ? null : realPathOf(parent, real);
    found = above === null ? null : posix.join(above, posix.basename(path));
  }
  real.set(path, found);
  return found;
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
    // An escaped character (`cfg \(2\)`) is matched by the glob, not by the index's key.
    if (/[*?[\]{}\\]/.test(part)) break;
    literal.push(part);
  }
  if (literal.length === parts.length) literal.pop(); // the whole glob is literal: index under its parent
  const prefix = literal.join('/');
  return prefix === '' ? '/' : prefix;
}

/** `fast`: a literal shape is matched by a string test (globMatcher), both sides folded as `nocase` says. Exported for test/policy/glob-head.test.ts. */
export function globMatchers(glob: string, nocase: Fold, fast: boolean): GlobMatcher[] {
  return compiledGlobs.get(`${nocase}${fast ? 'f' : 'm'}${glob}`, () => {
    const matchers = [globMatcher(glob, nocase, fast)];
    // `dir/**` also matches `dir` itself (deleting or moving the directory).
    if (glob.endsWith('/**') && glob.length > 3) matchers.push(globMatcher(glob.slice(0, -3), nocase, fast));
    // A deny or ask glob past ASCII also as round 31 matched it: a class `[ß]` is one character, not `[ss]`.
    if (nocase === 'names' && NOT_ASCII.test(glob)) matchers.push(...globMatchers(glob, 'lower', fast));
    return Object.freeze(matchers) as GlobMatcher[];
  });
}

/**
 * Globs compiled by earlier builds: a matcher is a function of the glob and the case rule alone,
 * and answers without changing (build-cache.ts). Compiling every path rule again took most of a
 * reload with thousands of remembered rules (docs/performance.md, "Round 18: remembered rules at scale").
 */
const compiledGlobs = new BuildCache<string, GlobMatcher[]>(BUILD_CACHE_LIMIT);

// A literal path `P`, `P/**` and `P/**/NAME` (P and NAME without glob characters, `.` or `..`:
// `Read(./**)` and `Read(**/.env)` anchored at a root) match a plain absolute path exactly when it
// is P, is below P, is below P and ends in `/NAME`, as minimatch matches them (dot: true, `**` never
// takes `.` or `..`): a string test instead of minimatch's walk over the segments, 1–3 µs for each
// path subject (docs/performance.md "Round 13: decision time"). A path minimatch would normalise
// (`//`, `.`, `..`, a trailing `/`), a partial match and a case-insensitive platform go to minimatch.
//
// Each Minimatch is made at its first match: made for every rule at load (regexes per part with
// `nocase`, every deny and ask rule since round 31's F31-5), they brought a full collection into a
// gateway's first calls (docs/performance.md, "End of round 31").
function globMatcher(raw: string, nocase: Fold, fast: boolean): GlobMatcher {
  // Deny and ask rules compare names as nameKey has them: the glob's literal characters folded as the path's (glob characters are ASCII, kept).
  const names = nocase === 'names';
  const glob = names ? nameKey(raw) : raw;
  const shape = fast ? LITERAL_SHAPE.exec(glob) : null;
  if (shape === null) {
    let minimatch: Minimatch | undefined;
    const head = literalHead(glob);
    if (head === null) return { match: (path, partial = false) => (minimatch ??= minimatchOf(glob, nocase !== 'none')).match(names ? nameKey(path) : path, partial) };
    return {
      match: (path, partial = false) =>
        partial || startsWithHead(path, head, nocase !== 'none') || !isPlainAbsolute(path) ? (minimatch ??= minimatchOf(glob, nocase !== 'none')).match(names ? nameKey(path) : path, partial) : false,
    };
  }
  // In any case: both sides folded (lower-cased on macOS and Windows for allow rules), as minimatch compares a literal part with nocase.
  const [, dir, tree, name] = (nocase === 'lower' ? shape.map((part) => part?.toLowerCase()) : shape) as unknown as [string, string, string | undefined, string | undefined];
  const below = `${dir}/`;
  const tail = name === undefined ? null : `/${name}`;
  const matches = tree === undefined ? (path: string) => path === dir : tail === null ? (path: string) => path.startsWith(below) : (path: string) => path.length >= dir.length + tail.length && path.startsWith(below) && path.endsWith(tail);
  // minimatch only for what the string test does not answer, made then.
  let minimatch: Minimatch | undefined;
  return { match: (path, partial = false) => (partial || !isPlainAbsolute(path) ? (minimatch ??= minimatchOf(glob, nocase !== 'none')).match(names ? nameKey(path) : path, partial) : matches(fold(path, nocase))) };
}

/**
 * The text every path a glob matches starts with (minimatch, the options of minimatchOf; a plain
 * absolute path, not a partial match): the glob up to its first character that is not taken
 * literally, less a `/` it ends in (`a/**` may match `a`). A path not starting so is not given to
 * minimatch: the built-in sibling globs of the gateway's files (`DIR/mcp-latch.json.*`, …) are
 * filed under DIR and tried on each path in it and on DIR itself, which made minimatch's `match`
 * hot enough for TurboFan in a gateway's first commands (docs/performance.md, "Round 32: the sibling
 * globs, the start and a new text's decision"). Null when a part can move: braces (`{.,y}.` makes a
 * `..`), a `.` or `..` part (minimatch takes `x/..` out), `//` (one `/` to minimatch), and on
 * Windows (a drive letter matches in any case). Each character of the head is one path character;
 * test/policy/glob-head.test.ts checks minimatch agrees on every path.
 */
export function literalHead(glob: string): string | null {
  if (process.platform === 'win32' || glob.includes('{') || glob.includes('//') || /(^|\/)\.\.?(\/|$)/.test(glob)) return null;
  const magic = glob.search(/[*?[\]{}()|+@!\\]/);
  const head = (magic === -1 ? glob : glob.slice(0, magic)).replace(/\/$/, '');
  return head === '' ? null : head;
}

/**
 * Whether `path` may start with `head` as minimatch compares them: the same characters, an ASCII
 * letter in either case with `nocase`. At the first character past ASCII on either side, yes:
 * nameKey and minimatch's folding (a RegExp with `iu`: `K` U+212A is `k`) decide. Before it,
 * nameKey only lower-cases the path, so an ASCII difference there is one to minimatch too.
 */
export function startsWithHead(path: string, head: string, nocase: boolean): boolean {
  if (!nocase) return path.startsWith(head);
  for (let i = 0; i < head.length; i++) {
    const h = head.charCodeAt(i);
    const c = path.charCodeAt(i);
    if (c === h) continue;
    if (h > 127 || c > 127) return true;
    // Past the path's end c is NaN: no match.
    const lower = c | 32;
    if (lower !== (h | 32) || lower < 97 || lower > 122) return false;
  }
  return true;
}

function minimatchOf(glob: string, nocase: boolean): Minimatch {
  return new Minimatch(glob, { dot: true, nonegate: true, nocomment: true, noext: true, nocase, optimizationLevel: 2 });
}

// `/a/b`, `/a/b/**`, `/a/b/**/NAME`: components without glob or extglob characters or `\`, and no `.` or `..` one.
const LITERAL_SHAPE = /^((?:\/(?!\.\.?(?:\/|$))[^/*?[\]{}\\()|+@!]+)+)(\/\*\*(?:\/(?!\.\.?$)([^/*?[\]{}\\()|+@!]+))?)?$/;

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

/**
 * Visits the entries of directory `path` until `visit` returns false (then false); true when the
 * directory cannot be opened (the linked-file walks see nothing there, as before round 33).
 */
function eachEntry(path: string, visit: (entry: Dirent) => boolean): boolean {
  let dir;
  try {
    dir = opendirSync(path);
  } catch {
    return true;
  }
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) if (!visit(entry)) return false;
  } finally {
    dir.closeSync();
  }
  return true;
}
