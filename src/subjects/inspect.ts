import fs from 'node:fs';
import { basename, dirname, posix, win32 } from 'node:path';
import { DENY_CANDIDATE, GIT_CONFIG_SETTING, GIT_REWRITE, INTO_DIRECTORY, LINK_TARGET, RECURSIVE, RULE_CANDIDATE, type CallFacts } from '../policy/decide.js';
import { argsDigest, type Digest } from '../policy/digest.js';
import type { CommandInfo, CommandPath, Kind, PathSubject, Subject, TreeRead, TreeWalk } from '../policy/types.js';
import { BASH_SHELLS, POSIX_SHELLS, runsCode } from '../programs.js';
import { analyseCommandCached } from './shell/index.js';
import { COREPACK_MANIFEST, customToolchainIn, RUST_TOOLCHAIN_FILE } from './project-files.js';
import type { PathArg, ToolClass } from './kind.js';
import type { ProcessUse } from './profiles.js';
import type { ShellReading } from './desktop-commander.js';
import type { ArgsJson } from '../values.js';
import { GIT_CONFIG_CODE, GIT_CONFIG_NAMED, GIT_DIRECTORY_MADE, GIT_REMOTE_NAME, GIT_REPOSITORY_FOUND, gitDirectoryAbove, gitDirectoryOf, gitDirectoryOfTree, hooksDirectoryOf, isGitCodeFile, outsideRepositories, repositoryConfigFiles, repositoryGitDirectory, repositoryProblem, workTreeOf } from './git-dir.js';
import { absolutePath, canonicalPath, DecisionPaths, isInside, needsBase, type PathEnv } from './paths.js';
import { arrivals, isDirectory, isFile, isLink, LINKED, MAX_TREE_ENTRIES, MOVED, walkTree, type WalkBudget } from './tree.js';
import { makesLinks, markBelowLinksMade, type SegmentPaths } from './links-made.js';
import { indexIsHead, trackedPaths } from './git-index.js';
import { objectIdOf, refsEverNamed, revisionType } from './git-objects.js';
import { skippedByFilters } from './tree-filter.js';
import { ignoreRules } from './git-ignore.js';
import { fileUrlReading, quoted, uriSpellingProblem } from './url-spelling.js';
import { head } from '../code-points.js';

/**
 * What one call touches (docs/design.md): from the tool's classification and the call's arguments to the
 * subjects the policy decides on — canonical paths with their access, every shell command, or the
 * tool itself when its effect is not described by paths and commands.
 *
 *   fs__write_file {path: "notes.txt"}          → write /root1/notes.txt
 *   shell__run_command {command: "cd src && cat a > b", workdir: "~/p"}
 *       → commands `cd src`, `cat a`; read ~/p/src, read ~/p/src/a; write ~/p/src/b
 */
export interface InspectContext {
  /** Canonical workspace roots (config `workspace` plus the client's MCP roots). */
  workspace: string[];
  /** Client roots, for servers that take their roots from the client. */
  clientRoots: string[];
  /** Per server, the roots the client gave it through the gateway's relay (gateway/core.ts noteServerRoots). */
  serverRoots?: ReadonlyMap<string, string[][]>;
  pathEnv: PathEnv;
  /** The server's processes as the calling session knows them (gateway/processes.ts); absent: none known. */
  processes?: ProcessView;
  /** The server's own environment may set git settings (ToolClass.gitConfigByEnvironment). */
  gitConfigByEnvironment?: boolean;
}

/** A server's processes, as one session sees them (gateway/processes.ts). */
export interface ProcessView {
  /** A team gateway: another member's process is refused, and one nobody started through the gateway asks. */
  team: boolean;
  /**
   * `pid` as a start_process this gateway forwarded answered it: started by this session, by another
   * session of the same user, or by another member; `reads`: null for a bash or sh reading commands
   * from its input, else what reads it. Null when no forwarded call started it.
   */
  find(pid: number): { owner: 'session' | 'user' | 'member'; reads: string | null } | null;
}


export function inspectCall(server: string, tool: string, args: Record<string, unknown>, toolClass: ToolClass, given: InspectContext, digest: () => Digest = lazyDigest(server, tool, args)): CallFacts {
  const context = serverContext(given, toolClass);
  const subjects: Subject[] = [];
  // Security: text run by a shell other than bash, or typed into a process that is not a bash this
  // session started, is not what the analyser reads (docs/threat-model.md#desktop-commanders-shell).
  const shell = toolClass.shell ? shellFrom(toolClass.shell, args) : null;
  const notBash = shell !== null ? (shell.problem ?? null) : toolClass.process ? processUse(toolClass.process, args, context.processes, subjects) : null;
  const kind = notBash === null ? effectiveKind(toolClass, args) : 'all';
  const commandArg = toolClass.selectCommand ? toolClass.selectCommand(args) : toolClass.command;
  // Only a call with paths or a command to resolve makes the path cache (most calls by count are neither).
  const cache = toolClass.paths.length > 0 || commandArg || toolClass.runs ? new DecisionPaths() : null;
  const asks = toolClass.asks ? reasonFrom(toolClass.asks, args) : null;
  if (asks !== null) subjects.push({ type: 'tool', kind, refused: { verdict: 'ask', rule: `built-in: ${tool} asks`, reason: asks } });

  if (cache && toolClass.paths.length > 0) {
    const bases = relativeBases(server, toolClass, args, context, cache);
    const fileStrings = toolClass.plainFileStrings ? 'plain' : 'both';
    let left = MAX_CALL_PATHS;
    const moved: Array<string | null> = [];
    const budget: WalkBudget = { left: MAX_TREE_ENTRIES };
    for (const pathArg of toolClass.paths) {
      // A refinement to `read` (edit_file with dryRun) makes the tool's write paths reads.
      const access = kind === 'read' ? 'read' : pathArg.access;
      const values = valuesAt(args, pathArg.arg);
      const tree = pathArg.tree?.(args) ?? null;
      const names = listingDepth(pathArg, args);
      for (const value of values.slice(0, Math.max(left, 0))) {
        const found = pathSubjects(value, access, bases, pathArg.arg, context, cache, fileStrings);
        subjects.push(...found);
        if (pathArg.moves && access === 'write') for (const subject of found) subjects.push(...movedSubjects(subject, pathArg.moves, moved, budget, context, cache));
        if (names > 0) for (const subject of found) listedNames(subject, names, budget, context);
        // A tool that reads the tree below its path (Desktop Commander's content search): the shell's recursive read.
        if (tree !== null) for (const subject of found) subjects.push(...recursiveSubjects(subject, tree, budget, context, cache));
      }
      left -= values.length;
      // Each path is resolved on disk while every call waits: 100,000 of them stalled the gateway 14 s.
      if (left < 0) subjects.push({ type: 'path', access, input: `<${(-left).toLocaleString('en-US')} more in ${pathArg.arg}>`, path: null, realPath: null, problem: `the call names more than ${MAX_CALL_PATHS.toLocaleString('en-US')} paths, the most mcp-latch checks in one call (docs/config.md, "limits")`, inWorkspace: false, via: pathArg.arg });
      left = Math.max(left, 0);
    }
  }

  let commandInfo: CommandInfo | null = null;
  if (cache && commandArg) {
    const command = commandText(args[commandArg.arg], commandArg.mode);
    if (command !== null) {
      const cwd = commandCwd(toolClass, args, context, cache);
      // Security: a server's shell string goes to a `sh` that may be dash, not bash (shell/dialect.ts),
      // unless the profile knows the shell is a bash; argv words are single-quoted, read alike by both.
      commandInfo = analyseCommandCached(command, { cwd, shell: shell?.dialect ?? (commandArg.mode === 'shell' ? 'sh' : 'bash') });
      // Security: a command tool refined away from `command` (desktop-commander's `shell: zsh`) runs
      // the text with a shell the model does not read: deny rules still meet the bash reading, and
      // nothing is allowed on it (docs/threat-model.md#where-bash-evaluates-text).
      if (toolClass.kind === 'command' && kind !== 'command') commandInfo = { ...commandInfo, unanalyzable: [...new Set([...commandInfo.unanalyzable, notBash ?? 'other-shell'])], rememberable: false };
      const stdin = toolClass.stdin ? args[toolClass.stdin] : undefined;
      if (typeof stdin === 'string' && stdin.trim() !== '') commandInfo = withStdin(commandInfo, { arg: toolClass.stdin!, text: stdin, reader: '' }, cwd);
      addSegmentSubjects(commandInfo, true, subjects, context, cache);
    }
  }

  // A tool that runs a fixed git or other command line: what that touches, as the shell model reads it.
  if (cache && toolClass.runs) addRunSubjects(toolClass, args, kind === 'read' ? 'read' : 'write', subjects, context, cache);

  const hasWrite = subjects.some((subject) => subject.type === 'path' && subject.access === 'write');
  const hasCommand = subjects.some((subject) => subject.type === 'command');
  if (kind === 'all' || subjects.length === 0 || (kind === 'write' && !hasWrite) || (kind === 'command' && !hasCommand)) {
    subjects.push({ type: 'tool', kind });
  }
  // A profile or the user's `tools` entry says what the tool does; a guess does not (step 5). A
  // profile also says where every path is (its server validates its arguments, profiles.ts); a
  // `tools` entry describes a server no profile knows, which may read a path at a place the entry
  // does not name (`{files: [{path}]}` beside the `paths[]` named, a misspelt pointer), so its other
  // strings are deny-only candidates too (round 30 review F30-3, docs/threat-model.md
  // "Path-looking strings of a tool classified by guess").
  const kindTrusted = toolClass.source === 'override' || toolClass.source.startsWith('profile:');
  if (!toolClass.source.startsWith('profile:')) addCandidateSubjects(subjects, server, args, toolClass, kind, commandArg?.arg ?? null, context, cache);

  return {
    server,
    tool,
    kind,
    kindTrusted,
    subjects,
    commandInfo,
    digest,
  };
}

/**
 * The context as the server sees it: `~` is the server's own home where its environment sets one
 * (ToolClass.home), not the gateway's; a problem where its environment is not known (round 29
 * review F29-1, docs/threat-model.md "A path the server reads otherwise").
 */
function serverContext(context: InspectContext, toolClass: ToolClass): InspectContext {
  if (toolClass.gitConfigByEnvironment) context = { ...context, gitConfigByEnvironment: true };
  const home = toolClass.home;
  if (home === undefined || home === context.pathEnv.home) return context;
  if (home === null) return { ...context, pathEnv: { ...context.pathEnv, homeUnknown: "a path starting with ~ is in the server's home, and its environment (an envFile or a variable mcp-latch could not read) is not known here" } };
  return { ...context, pathEnv: { ...context.pathEnv, home } };
}

/**
 * The subjects of an analysed command line: each simple command (unless `asCommands` is false: a
 * tool that runs a fixed program, whose own kind and rules decide it) and the paths it touches.
 */
function addSegmentSubjects(info: CommandInfo, asCommands: boolean, subjects: Subject[], context: InspectContext, cache: DecisionPaths): void {
  const budget: WalkBudget = { left: MAX_TREE_ENTRIES };
  const madeGitDirectories: PathSubject[] = [];
  const commands: SegmentPaths[] | null = info.segments.some(makesLinks) ? [] : null;
  for (const segment of info.segments) {
    if (asCommands) subjects.push({ type: 'command', segment, info });
    const first = subjects.length;
    const own: PathSubject[] = [];
    for (const path of segment.paths) {
      if (path.via === GIT_REPOSITORY_FOUND) {
        const found = repositorySubject(path, context, cache);
        if (found !== null) subjects.push(found);
        continue;
      }
      if (path.via === GIT_CONFIG_SETTING || path.via === GIT_CONFIG_CODE) {
        subjects.push(...repositoryConfigSubjects(path, context, cache));
        continue;
      }
      if (path.via === COREPACK_MANIFEST) {
        subjects.push(corepackManifestSubject(path, context, cache));
        continue;
      }
      if (path.via === RUST_TOOLCHAIN_FILE) {
        const named = rustToolchainFile(path, context, cache);
        if (named !== null) subjects.push(named);
        continue;
      }
      if (path.via === GIT_DIRECTORY_MADE || path.via === GIT_CONFIG_NAMED) {
        const unknown = path.isStatic ? undefined : UNKNOWN_GIT_LOCATION;
        madeGitDirectories.push(pathSubject(ownCwd(path.path, path.base), path.access, path.base, null, path.via, context, cache, unknown));
        continue;
      }
      // Security: a word like `$F` or `"$HOME/x"` names a path only known at run time; it is
      // matched as written (for deny rules) but can never be allowed.
      const problem = path.isStatic ? null : 'the path is not a fixed string (it contains an expansion)';
      // What a ref is set to (`git branch x C`), a stored path from the top (`git show HEAD:a`,
      // files.ts storedPath): outside any repository git stops, and sets or reads nothing.
      if ((path.refTarget || (path.access === 'read' && typeof path.workTree === 'string')) && path.isStatic && outsideRepository(path, context, cache)) continue;
      const subject = path.workTree ? workTreeSubject(path, context, cache) : pathSubject(ownCwd(path.path, path.base), path.access, path.base, null, path.via, context, cache, problem);
      // `git show ID`: what ID names in the object store; a commit, a tree or a file prints no stored file.
      if (path.revisions && subject.path !== null && !subject.problem && namesNoStoredFile(subject.path, path.revisions, path.treesPrinted === true, path.base, cache)) continue;
      // A remote's name names a local repository only when it is a directory (git-dir.ts GIT_REMOTE_NAME).
      if (path.via === GIT_REMOTE_NAME) {
        if (subject.realPath === null || !isDirectory(subject.realPath)) continue;
        subject.via = RECURSIVE;
      }
      // What git checks out under the index's names inside a git directory is its config and hooks (files.ts planting).
      if (path.via === GIT_REWRITE && path.tree?.plants && !subject.gitDirectory && context.pathEnv.platform !== 'win32') {
        const dir = gitDirectoryAbove(subject.path, cache.disk) ?? gitDirectoryAbove(subject.realPath, cache.disk);
        if (dir !== null) subject.gitDirectory = dir;
      }
      subjects.push(subject);
      own.push(subject);
      if (path.prefix) subjects.push(...prefixedSubjects(subject, path, context, cache));
      // What git rewrites is decided from the rules alone (policy/decide.ts treeRule): never walked.
      if (path.tree && path.via !== GIT_REWRITE) subjects.push(...treeSubjects(subject, path.tree, path.base, budget, context, cache));
    }
    if (segment.name !== null && COPIERS.has(segment.name)) madeGitDirectories.push(...copiedGitDirectories(own, TARGET_OPTION.has(segment.name) && segment.args.some((arg) => /^(-[A-Za-z]*t|--target-directory)/.test(arg)), segment.name === 'ln', cache));
    commands?.push({ segment, own, all: subjects.slice(first).filter((subject): subject is PathSubject => subject.type === 'path') });
  }
  if (commands) markBelowLinksMade(commands);
  if (context.pathEnv.platform !== 'win32') markGitDirectoriesMade(subjects, madeGitDirectories, cache);
}

/** The `via` of what a tool's fixed command line touches when it cannot be described (kind.ts ToolClass.runs). */
const RUNS_UNKNOWN = 'the command the server runs';

/**
 * The paths of the command line a tool runs (`git_diff_unstaged` is `git diff`, profiles.ts), read
 * by the shell model with the tool's working directory: one home for what `git diff` prints, whoever
 * runs it. Its commands are not subjects: the tool's kind and its mcp__ rules decide the call.
 */
function addRunSubjects(toolClass: ToolClass, args: Record<string, unknown>, access: 'read' | 'write', subjects: Subject[], context: InspectContext, cache: DecisionPaths): void {
  let argv: string[] | null;
  try {
    argv = toolClass.runs!(args);
  } catch {
    argv = null;
  }
  const text = argv !== null && argv.length <= MAX_CALL_PATHS ? commandText(argv, 'argv') : null;
  const info = text === null ? null : analyseCommandCached(text, { cwd: commandCwd(toolClass, args, context, cache) });
  if (info === null || info.unanalyzable.length > 0 || !info.parseOk) {
    subjects.push({ type: 'path', access, input: '<what the tool runs>', path: null, realPath: null, problem: 'the command the server runs for this call cannot be described from its arguments', inWorkspace: false, via: RUNS_UNKNOWN });
    return;
  }
  addSegmentSubjects(info, false, subjects, context, cache);
}

/** A path a tool reads recursively: decided as the shell's `grep -r` operand (policy/decide.ts treeRule). */
function recursiveSubjects(subject: PathSubject, tree: TreeRead, budget: WalkBudget, context: InspectContext, cache: DecisionPaths): PathSubject[] {
  subject.via = RECURSIVE;
  return treeSubjects(subject, tree, null, budget, context, cache);
}

/** The paths of one call resolved and checked; past them the call asks, naming the limit. */
export const MAX_CALL_PATHS = 1_000;

/** Path-looking strings of one call's arguments checked against deny rules (step 5), and how deep they are looked for; past either the call asks (docs/config.md "limits"). */
export const MAX_CANDIDATES = 100;
export const MAX_CANDIDATE_DEPTH = 32;

/** An argument named for a URL: `url`, `uri`, `urls`, `href`, `fileUrl`, `resource_uri`. */
const URL_ARGUMENT = /(?:url|uri)s?$|^href$/i;

/** The longest string looked at as a path (step 5); a `file:` URL longer asks (docs/config.md, "limits"). */
const MAX_PATH_STRING = 4096;

/**
 * A string that may name a file: a separator, a leading `~` or `.`, a `file:` URL, or one word
 * with an extension (`secrets.txt`, `.env`). Not text over a line or 4,096 characters, nor a URL of another scheme.
 * (A string a URL parser reads as a `file:` URL is one whatever its controls: pathStrings.)
 */
function looksLikePath(value: string): boolean {
  if (value.length === 0 || value.length > MAX_PATH_STRING || !hasPathCharacter(value) || /[\0-\x1f]/.test(value)) return false;
  if (/^file:/i.test(value)) return true;
  if (/^[A-Za-z][A-Za-z0-9+.-]+:\/\//.test(value)) return false;
  return /^[~.]|[\\/]/.test(value) || /^[\w-]*\.[\w.-]+$/.test(value);
}

/**
 * What every string looksLikePath accepts holds: a leading `~`, or a `.`, `/`, `\\` or `:` (a `file:`
 * scheme) anywhere. One pass over the text, no regular expression: most arguments (`ping 1`, a
 * message, a query) have none, and their calls then pay for nothing else of step 5
 * (docs/performance.md, "Round 12: the warm path").
 */
function hasPathCharacter(value: string): boolean {
  if (value.charCodeAt(0) === 0x7e) return true;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code === 0x2e || code === 0x2f || code === 0x5c || code === 0x3a) return true;
  }
  return false;
}

/**
 * The path-looking strings of a call's arguments, the `file:` URLs among them in an argument named
 * for a URL (as a URL parser reads them), the strings a URL parser reads as a `file:` URL other than
 * they are written or past MAX_PATH_STRING (`unread`: each asks), and why the walk stopped short (a limit), if it did.
 */
interface PathStrings {
  strings: string[];
  opened: Array<{ value: string; name: string }>;
  unread: Array<{ value: string; name: string; problem: string }>;
  beyond: string | null;
}

/**
 * Walks the arguments for path-looking strings, to MAX_CANDIDATES of them and MAX_CANDIDATE_DEPTH
 * levels; `name` is the key that holds `value` (an array's items keep their argument's name, `urls:
 * [...]`), and with `urlReads` a `file:` URL in an argument named for a URL (`url`, `uri`, `fileUrl`)
 * is also one the tool opens. Nothing is allocated until the first string: most calls have none,
 * and then pay only for the walk (docs/performance.md, "Round 12: the warm path"). for…in with the
 * own-key test visits what Object.keys lists, without making its array.
 */
function pathStrings(value: unknown, depth: number, name: string, urlReads: boolean, found: PathStrings | null, known: ReadonlySet<unknown> | null = null): PathStrings | null {
  if (found?.beyond) return found;
  if (typeof value === 'string') {
    // A declared path or the command is decided as one already (`known`: not counted toward the limit).
    if (known?.has(value)) return found;
    // Security: what a URL parser reads as a `file:` URL is one, however it is written: `" file:///etc/passwd"`,
    // `"fi\nle:///…"`, `"view-source:file:///…"` opened /etc/passwd past Read(/etc/**) (round 26 review P5; url-spelling.ts),
    // `"jar:file:///etc/passwd!/"` the archive (round 27).
    const url = value.length > 0 && hasPathCharacter(value) ? fileUrlReading(value) : null;
    if (url === null && !looksLikePath(value)) return found;
    found ??= { strings: [], opened: [], unread: [], beyond: null };
    if (url !== null && (url !== value || url.length > MAX_PATH_STRING)) {
      const problem = url.length > MAX_PATH_STRING ? `it is a file: URL of ${url.length.toLocaleString('en-US')} characters, longer than the ${MAX_PATH_STRING.toLocaleString('en-US')} mcp-latch reads as a path (MAX_PATH_STRING)` : `a URL parser reads it as the file: URL ${quoted(url)}, which it is not written as (leading or trailing controls or blanks, a tab or newline: the WHATWG URL Standard; a view-source:, jar:, url: or <…> wrapper, which browsers, Java or Python open the file through)`;
      if (!found.unread.some((other) => other.value === value)) found.unread.push({ value, name, problem });
      if (url.length > MAX_PATH_STRING) return found;
    }
    const parsed = url ?? value;
    if (urlReads && URL_ARGUMENT.test(name) && url !== null && !found.opened.some((other) => other.value === parsed)) found.opened.push({ value: parsed, name });
    // The string as written stays a candidate when it looks like a path (a server that does not parse it as a URL reads that).
    for (const text of url !== null && url !== value && looksLikePath(value) ? [parsed, value] : [parsed]) {
      if (found.strings.includes(text)) continue;
      if (found.strings.length === MAX_CANDIDATES) {
        found.beyond = `the arguments hold more than ${MAX_CANDIDATES} strings that may be paths, the most mcp-latch checks in one call (docs/config.md, "limits")`;
        break;
      }
      found.strings.push(text);
    }
    return found;
  }
  if (typeof value !== 'object' || value === null) return found;
  if (depth === MAX_CANDIDATE_DEPTH) {
    found ??= { strings: [], opened: [], unread: [], beyond: null };
    found.beyond = `the arguments nest deeper than ${MAX_CANDIDATE_DEPTH} levels, the deepest mcp-latch looks for paths (docs/config.md, "limits")`;
    return found;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) found = pathStrings(value[index], depth + 1, name, urlReads, found, known);
    return found;
  }
  for (const key in value) if (Object.hasOwn(value, key)) found = pathStrings((value as Record<string, unknown>)[key], depth + 1, key, urlReads, found, known);
  return found;
}

/**
 * docs/design.md#classifying-an-unknown-tool-in-order, step 5: for a tool classified by guess,
 * every string of the arguments that looks like a path, declared or not, at any depth, that is not
 * already a path or the command, is a deny-only candidate (policy/decide.ts DENY_CANDIDATE: denied
 * when a deny rule matches one of its readings, otherwise changing nothing), read for a read tool
 * and written otherwise. `{to: "/w/secret/id"}`, `{opts: {target: "~/.ssh/k"}}`, `{url: "file:///w/.env"}`.
 * Added to `subjects`.
 */
function addCandidateSubjects(subjects: Subject[], server: string, args: Record<string, unknown>, toolClass: ToolClass, kind: Kind, commandArg: string | null, context: InspectContext, cache: DecisionPaths | null, urlReads = true, via = DENY_CANDIDATE): void {
  let found = pathStrings(args, 0, '', urlReads, null);
  if (found === null) return;
  // What is already a path or the command (a command's words are the shell analyser's) is not looked at twice.
  const known = new Set<unknown>([...toolClass.paths.flatMap((pathArg) => valuesAt(args, pathArg.arg)), ...(commandArg ? [args[commandArg]] : []), ...(toolClass.stdin ? [args[toolClass.stdin]] : [])]);
  // Past the limit, again without them: a `tools` entry's 150 declared paths are each decided already (round 30).
  if (found.beyond !== null && known.size > 0) found = pathStrings(args, 0, '', urlReads, null, known);
  if (found === null) return;
  const access = kind === 'read' ? 'read' : 'write';
  const paths = cache ?? new DecisionPaths();
  const bases = relativeBases(server, toolClass, args, context, paths);
  for (const value of found.strings) {
    if (known.has(value)) continue;
    for (const subject of pathSubjects(value, access, bases, via, context, paths, 'both')) subjects.push(subject);
  }
  // Security: a `file:` URL the tool is asked to open is a read of that file, decided as one (a
  // read outside the workspace asks), not only against deny rules: `browser_navigate {url:
  // "file:///home/me/.ssh/id_rsa"}` was allowed under an allow rule for the tool (round 12,
  // docs/threat-model.md "Path-looking strings of a tool classified by guess").
  for (const { value, name } of found.opened) {
    if (known.has(value)) continue;
    for (const subject of pathSubjects(value, 'read', bases, name, context, paths, 'both')) subjects.push(subject);
  }
  // A `file:` URL written otherwise than a URL parser reads it is not allowed on any reading: it asks (deny rules still meet its parsed form above).
  for (const { value, name, problem } of found.unread) subjects.push({ type: 'path', access: 'read', input: value, path: null, realPath: null, problem, inWorkspace: false, via: name || 'arguments' });
  if (found.beyond !== null) subjects.push({ type: 'path', access, input: '<arguments>', path: null, realPath: null, problem: found.beyond, inWorkspace: false, via: 'arguments' });
}

/**
 * prompts/get and completion/complete (`method`): a server's prompt may embed a file or run a query
 * named by its arguments, and no schema says which. Every string of `args` is looked at as step 5
 * looks at a tool classified by guess, read and written, but met by deny and ask rules
 * (RULE_CANDIDATE; docs/threat-model.md, "Requests other than tools/call"). `argumentClass`: how
 * the server resolves a relative path.
 */
export function inspectRequestArguments(server: string, method: string, args: Record<string, unknown>, argumentClass: ToolClass, context: InspectContext): CallFacts {
  // A `file:` URL among a prompt's arguments is a candidate too, not a read of its own.
  const subjects: Subject[] = [];
  addCandidateSubjects(subjects, server, args, argumentClass, 'all', null, serverContext(context, argumentClass), null, false, RULE_CANDIDATE);
  return { server, tool: method, kind: 'all', kindTrusted: false, subjects, commandInfo: null, digest: lazyDigest(server, method, args) };
}

/** The rule a resource URI written otherwise than it is read is denied by (inspectResourceRead). */
export const URI_SPELLING_RULE = 'built-in: a resource URI is read as it is written';

/**
 * A resources/read: a `file:` URI — as the server's URL parser reads it (url-spelling.ts) — is a
 * read of that path; anything else is a read of the server's data. A URI not written as every parser
 * reads it (a blank at an end, a control anywhere) is denied, naming why: `" file:///etc/passwd"`
 * was allowed as a read of the server's data and the server read /etc/passwd (round 26 review P5).
 * `digest` is the read's, which its record shares (gateway/resource-read.ts).
 */
export function inspectResourceRead(server: string, uri: string, context: InspectContext, digest: () => Digest): CallFacts {
  const file = fileUrlReading(uri);
  const subjects: Subject[] = file !== null ? pathSubjects(file, 'read', NO_BASE, 'uri', context, new DecisionPaths(), 'uri') : [{ type: 'tool', kind: 'read' }];
  const problem = uriSpellingProblem(uri);
  if (problem !== null) subjects.unshift({ type: 'tool', kind: 'read', refused: { verdict: 'deny', rule: URI_SPELLING_RULE, reason: `the resource URI ${quoted(uri)} is not written as it is read: ${problem}` } });
  return { server, tool: 'resources/read', kind: 'read', kindTrusted: true, subjects, commandInfo: null, digest };
}

/** The call's argument digest, computed once, when first needed. */
export function lazyDigest(server: string, tool: string, args: unknown, json?: ArgsJson): () => Digest {
  let value: Digest | undefined;
  return () => (value ??= argsDigest(server, tool, args, json));
}

/** The shell a profile says runs the command (ToolClass.shell); a failure to tell is a reason (fail closed). */
function shellFrom(reading: (args: Record<string, unknown>) => ShellReading, args: Record<string, unknown>): ShellReading {
  try {
    return reading(args);
  } catch (error) {
    return { problem: `mcp-latch could not tell what the call runs (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** A profile's reason for the call (ToolClass.asks), or null; a failure to tell is a reason too (fail closed). */
function reasonFrom(problem: (args: Record<string, unknown>) => string | null, args: Record<string, unknown>): string | null {
  try {
    return problem(args);
  } catch (error) {
    return `mcp-latch could not tell what the call runs (${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * A call on one of the server's processes (Desktop Commander's `pid`): for input, why it is not a
 * command for bash (null when the process is a bash or sh this session started); another member's
 * process is refused, and on a team gateway one nobody started through it asks, for every use
 * (round 14 review T7, T12; docs/threat-model.md#desktop-commanders-processes).
 */
function processUse(use: ProcessUse, args: Record<string, unknown>, processes: ProcessView | undefined, subjects: Subject[]): string | null {
  if (use === 'starts') return null;
  const pid = args['pid'];
  const known = typeof pid === 'number' && Number.isSafeInteger(pid) ? (processes?.find(pid) ?? null) : null;
  const named = `process ${typeof pid === 'number' ? pid : head(JSON.stringify(pid) ?? 'undefined', 40)}`;
  if (known?.owner === 'member') {
    subjects.push({ type: 'tool', kind: 'all', refused: { verdict: 'deny', rule: "built-in: a team member's processes are theirs", reason: `${named} was started by another member's session` } });
    return use === 'input' ? `input to another member's ${named}` : null;
  }
  if (processes?.team && known === null && use !== 'input') {
    subjects.push({ type: 'tool', kind: 'all', refused: { verdict: 'ask', rule: "built-in: a team member's processes are theirs", reason: `${named} was not started by this member's sessions through this gateway, so whose it is is not known` } });
  }
  if (use !== 'input') return null;
  if (known === null || known.owner !== 'session') return `input to ${named}, which this session did not start, so what reads it is not known`;
  return known.reads === null ? null : `input to ${named}, \`${known.reads}\`, which is not a bash or sh reading commands`;
}

function effectiveKind(toolClass: ToolClass, args: Record<string, unknown>): Kind {
  if (!toolClass.refine) return toolClass.kind;
  try {
    return toolClass.refine(args);
  } catch {
    return 'all';
  }
}

/** One way a server may read a path argument: the text it resolves, and whether a `file:` string is a plain path to it. */
interface Reading {
  text: string;
  plain: boolean;
}

/**
 * The readings of a `file:` string (docs/design.md "Paths, step by step", step 2): the URI
 * (fileURLToPath, which drops `?…` and `#…`); the text after `file://`, percent-decoded, as a path
 * (what a server that strips `file://` by hand opens: `file:///w/a.txt?/../../secret` is
 * `/secret`); the path Python's `urllib.parse.urlparse` gives, decoded (`unquote`), which for a
 * `file:` not followed by `//` is relative (`file:conf/x` is `conf/x` to Python, `/conf/x` to a
 * WHATWG parser: round 31 review F31-1), and the text after a hand strip of `file:` alone; and, for
 * a server with no URI handling, the string as a plain path (`file:/../secret` is `<root>/secret` to
 * server-filesystem). `plain`: only that last one; `uri`: the others (a resource URI is always a
 * URI), and the whole string too when its scheme is not written `file:` (a hand strip of
 * `file://` does not take `FILE://`, and what is left is a relative name).
 */
function readingsOf(value: string, fileStrings: 'plain' | 'uri' | 'both'): Reading[] {
  if (!/^file:/i.test(value)) return [{ text: value, plain: false }];
  if (fileStrings === 'plain') return [{ text: value, plain: true }];
  const out: Reading[] = [{ text: value, plain: false }];
  const add = (text: string): void => {
    if (!out.some((other) => other.plain && other.text === text)) out.push({ text, plain: true });
  };
  const slashes = /^file:\/\//i.test(value);
  if (slashes) add(decoded(value.slice(7)));
  add(pythonFilePath(value));
  if (!slashes) add(decoded(value.slice(5)));
  if (fileStrings === 'both' || !value.startsWith('file:')) add(value);
  return out;
}

/**
 * The path of a `file:` URL as `urllib.parse.urlparse` splits it (RFC 3986: the authority after
 * `//` up to the next `/`, `?` or `#` is the host, dropped; the path ends at `?` or `#`), decoded
 * as `unquote` decodes it: what the common Python server opens (`open(unquote(urlparse(uri).path))`).
 */
function pythonFilePath(value: string): string {
  let rest = value.slice(5);
  const end = rest.search(/[?#]/);
  if (end !== -1) rest = rest.slice(0, end);
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    rest = slash === -1 ? '' : rest.slice(slash);
  }
  return decoded(rest);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Where a relative reading may be resolved: every base the server may use (one unless the server's roots are not known for certain). */
type Bases = (reading: Reading) => { dirs: Array<string | null>; problem: string | null };

const NO_BASE: Bases = () => ({ dirs: [null], problem: null });

/**
 * The subjects of one path argument: one for each distinct place the server may open (each
 * reading, against each base it may use). Deny rules match any of them; the call is allowed
 * only if every one is (docs/threat-model.md "A path the server reads otherwise").
 */
function pathSubjects(value: unknown, access: 'read' | 'write', bases: Bases, via: string, context: InspectContext, cache: DecisionPaths, fileStrings: 'plain' | 'uri' | 'both'): PathSubject[] {
  if (typeof value !== 'string') return [pathSubject(value, access, null, null, via, context, cache)];
  const readings = readingsOf(value, fileStrings);
  const out: PathSubject[] = [];
  for (const reading of readings) {
    const { dirs, problem } = bases(reading);
    for (const dir of dirs) {
      const subject = pathSubject(value, access, dir, problem, via, context, cache, null, reading);
      if (!out.some((other) => other.path === subject.path && other.realPath === subject.realPath && other.problem === subject.problem)) out.push(subject);
    }
  }
  return out;
}

function pathSubject(value: unknown, access: 'read' | 'write', base: string | null, baseProblem: string | null, via: string, context: InspectContext, cache: DecisionPaths, valueProblem: string | null = null, reading?: Reading): PathSubject {
  if (typeof value !== 'string') {
    return { type: 'path', access, input: String(JSON.stringify(value)), path: null, realPath: null, problem: 'the path argument is not a string', inWorkspace: false, via };
  }
  // `"$HOME/.ssh/id_rsa"` is still never allowed, but deny rules see it as `~/.ssh/id_rsa`.
  const spelled = valueProblem !== null ? homeSpelling(value) : null;
  const canonical = canonicalPath(spelled ?? reading?.text ?? value, base, context.pathEnv, cache, reading?.plain);
  const problem = valueProblem ?? canonical.problem ?? processRelative(canonical.path) ?? (canonical.path === null ? (baseProblem ?? 'unresolved path') : undefined);
  const inWorkspace =
    canonical.path !== null &&
    canonical.realPath !== null &&
    context.workspace.some((root) => isInside(root, canonical.path!, context.pathEnv.platform)) &&
    context.workspace.some((root) => isInside(root, canonical.realPath!, context.pathEnv.platform));
  // A deny-only or rule-only candidate (`npm test -- t1`'s t1) is decided by rules alone, before
  // any git directory is looked at (policy/decide.ts decidePath): finding its repository only cost
  // lookups (docs/performance.md, "Round 15: decision time").
  // A link's target (LINK_TARGET) is not written by making the link: a write through it later is decided as one.
  const gitChecked = access === 'write' && via !== DENY_CANDIDATE && via !== RULE_CANDIDATE && via !== LINK_TARGET && context.pathEnv.platform !== 'win32';
  const gitDirectory = gitChecked ? gitCodeDirectory(canonical.path, canonical.realPath, cache) : null;
  // A hook in the directory the repository's core.hooksPath names (`.husky/pre-commit`): git runs it as one in .git/hooks;
  // a file the repository's config includes is its config.
  const hooks = gitChecked && gitDirectory === null && canonical.realPath !== null ? hooksDirectoryOf(canonical.realPath, context.pathEnv.home, cache.disk) : null;
  // A file read or written under one of several names: which one a rule covers is looked for when deciding (F32-5, F33-3).
  const stat = canonical.realPath !== null && problem === undefined ? statOrNone(canonical.realPath, cache) : undefined;
  const inode = stat !== undefined && stat.nlink > 1 && stat.isFile() ? `${stat.dev}:${stat.ino}` : undefined;
  return { type: 'path', access, input: value, path: canonical.path, realPath: canonical.realPath, ...(problem ? { problem } : {}), inWorkspace, ...(inode ? { inode } : {}), via, ...(gitDirectory ? { gitDirectory } : hooks ? { gitDirectory: hooks.dir, ...(hooks.include ? { gitInclude: true as const } : { gitHooks: true as const }) } : {}) };
}

/** The file's stat, none where it cannot be taken (`DIR/NAME` of a copy into a DIR that is a file: ENOTDIR, no such file to write through). */
function statOrNone(path: string, cache: DecisionPaths): fs.Stats | undefined {
  try {
    return cache.disk.stat(path);
  } catch {
    return undefined;
  }
}

/**
 * The top of the git working tree a git command rewrites (`git checkout main`): the directory git
 * finds by walking up from its working directory to one holding `.git` (git(1) "GIT_DIR"; read-only,
 * no git process). Not found, or moved by `core.worktree` in that repository's config, or git
 * pointed elsewhere (`--git-dir`, `GIT_DIR`): the top is unknown, and the write asks.
 */
function workTreeSubject(path: CommandPath, context: InspectContext, cache: DecisionPaths): PathSubject {
  const unknown = (why: string): PathSubject => ({ type: 'path', access: path.access, input: '<git working tree>', path: null, realPath: null, problem: why, inWorkspace: false, via: path.via });
  if (!path.isStatic) return unknown('git is pointed at a working tree known only at run time (--git-dir, GIT_DIR, GIT_WORK_TREE)');
  const start = pathSubject(path.path, path.access, path.base, null, path.via, context, cache);
  const top = start.realPath === null || start.problem ? null : workTreeOf(start.realPath, cache.disk);
  // What git prints outside any repository: nothing (`git diff` there fails), so the directory alone is read.
  if (top === null && path.via === RECURSIVE && start.path !== null && !start.problem && outsideRepositories(start.realPath ?? start.path, cache.disk)) return { ...start, tree: { entries: [], complete: true } };
  if (top === null) return unknown(`no git working tree whose top is known holds ${start.path ?? path.path} (no .git above it, or core.worktree moves it)`);
  return pathSubject(path.workTree === true ? top : `${top}/${path.workTree}`, path.access, null, null, path.via, context, cache);
}

/** Whether git run from the path's directory finds no repository (resolved through links, as git does). */
function outsideRepository(path: CommandPath, context: InspectContext, cache: DecisionPaths): boolean {
  const start = pathSubject(path.path, path.access, path.base, null, path.via, context, cache);
  return start.realPath !== null && !start.problem && context.pathEnv.platform !== 'win32' && outsideRepositories(start.realPath, cache.disk);
}

/**
 * The repository git finds from a git command's working directory, when its code files are not
 * ones the built-in rules protect (git-dir.ts repositoryProblem): a subject that asks, as
 * `--git-dir` does. Null for a repository whose code files they protect, or none.
 */
function repositorySubject(path: CommandPath, context: InspectContext, cache: DecisionPaths): PathSubject | null {
  if (context.pathEnv.platform === 'win32') return null;
  // The working directory itself, as the command's other paths resolve it (one lookup per decision).
  const start = pathSubject(path.base ?? path.path, path.access, null, null, path.via, context, cache);
  if (path.base === null || start.realPath === null || start.problem) return { ...start, input: '<the repository git finds>', problem: start.problem ?? 'the directory git runs in is not known' };
  // After a logical `cd link/..` the shell is where the lexical form leads; after `cd -P`, the kernel's.
  let problem = repositoryProblem(start.realPath, cache.disk);
  if (problem === null && start.path !== null && start.path !== start.realPath) {
    try {
      problem = repositoryProblem(fs.realpathSync.native(start.path), cache.disk);
    } catch {
      problem = `the directory git runs in, ${start.path}, cannot be resolved`;
    }
  }
  return problem === null ? null : { ...start, input: '<the repository git finds>', problem };
}

/**
 * The configuration file(s) of the repository git finds from a `git config` command's working
 * directory, which it changes (git-dir.ts repositoryConfigFiles): each a write subject under the
 * command's `via` (decide.ts GIT_CONFIG_SETTING, git-dir.ts GIT_CONFIG_CODE); none outside any
 * repository (git writes nothing there); a problem where the directory or the repository is not
 * known (`cd "$D"`, `--git-dir`, `GIT_DIR`: asks). On Windows, `.git/config` below the directory.
 */
function repositoryConfigSubjects(path: CommandPath, context: InspectContext, cache: DecisionPaths): PathSubject[] {
  const tail = path.path === 'config.worktree' ? 'config.worktree' : 'config';
  const unknown = (problem: string): PathSubject[] => [{ type: 'path', access: 'write', input: `<the repository's ${tail} git config changes>`, path: null, realPath: null, problem, inWorkspace: false, via: path.via }];
  if (!path.isStatic) return unknown('git is pointed at a repository known only at run time (--git-dir, GIT_DIR)');
  if (path.base === null) return unknown('the directory git runs in is not known');
  if (context.pathEnv.platform === 'win32') return [pathSubject(`.git/${tail}`, 'write', path.base, null, path.via, context, cache)];
  const start = pathSubject(path.base, 'read', null, null, path.via, context, cache);
  if (start.realPath === null || start.problem) return unknown(start.problem ?? 'the directory git runs in cannot be resolved');
  let files: string[] | null;
  try {
    files = repositoryConfigFiles(start.realPath, cache.disk, tail === 'config.worktree');
    // `git checkout NAME` guesses no branch when NAME names a commit or a tag (a local branch among
    // them), or, without `--`, a file there (git-config-writes.ts branchGuess; round 30).
    const guess = path.branchGuess;
    const gitDir = guess && files !== null ? repositoryGitDirectory(start.realPath, cache.disk) : null;
    if (guess && gitDir !== null) {
      const named = revisionType(gitDir, guess.name, guess.pathsStop ? start.realPath : null);
      if (named === 'commit' || named === 'tag' || (guess.pathsStop && named === 'path')) return [];
    }
    // A new branch from HEAD: written only when a config git reads sets branch.autoSetupMerge (round 31).
    // The server's own environment may set it (GIT_CONFIG_COUNT, GIT_CONFIG_GLOBAL…; round 32): a write.
    if (path.autoSetupMerge && files !== null && context.gitConfigByEnvironment !== true && !setsAutoSetupMerge(start.realPath, files, context.pathEnv.home, cache)) return [];
  } catch {
    return unknown(`the repository git finds from ${start.realPath} cannot be read`);
  }
  return (files ?? []).map((file) => pathSubject(file, 'write', null, null, path.via, context, cache));
}

/**
 * Whether a config file git reads for a command run in `dir` may set `branch.autoSetupMerge`: the
 * repository's (`files`, and a linked worktree's config.worktree), the user's (`~/.gitconfig`,
 * `~/.config/git/config`) and the system's (`/etc/gitconfig`). A file naming it, or any `[include]`
 * or `[includeIf]` (another file may), counts; one that cannot be read counts (fail closed).
 */
function setsAutoSetupMerge(dir: string, files: readonly string[], home: string, cache: DecisionPaths): boolean {
  const gitDir = repositoryGitDirectory(dir, cache.disk);
  const all = [...files, ...(gitDir === null ? [] : [posix.join(gitDir, 'config.worktree')]), posix.join(home, '.gitconfig'), posix.join(home, '.config', 'git', 'config'), '/etc/gitconfig'];
  return all.some((file) => {
    try {
      if (cache.disk.stat(file) === undefined) return false;
      return /autosetupmerge|^\s*\[\s*include/im.test(cache.disk.text(file));
    } catch {
      return true;
    }
  });
}

/**
 * The package.json `corepack use` and `up` write (shell/corepack.ts COREPACK_MANIFEST), as corepack's
 * loadSpec finds it from the working directory's real path: walking up, skipping directories in
 * node_modules, the first package.json with a `packageManager` field, else the last (highest) one
 * read, else ./package.json. A write subject as any other (deny and ask rules, the mode outside the
 * workspace); a directory not known or a file that cannot be read asks.
 */
function corepackManifestSubject(path: CommandPath, context: InspectContext, cache: DecisionPaths): PathSubject {
  const unknown = (problem: string): PathSubject => ({ type: 'path', access: 'write', input: '<the package.json corepack finds>', path: null, realPath: null, problem, inWorkspace: false, via: path.via });
  if (path.base === null) return unknown('the directory corepack runs in is not known');
  const start = pathSubject(path.base, 'read', null, null, path.via, context, cache);
  if (start.realPath === null || start.problem) return unknown(start.problem ?? 'the directory corepack runs in cannot be resolved');
  if (context.pathEnv.platform === 'win32') return pathSubject('package.json', 'write', path.base, null, 'argument', context, cache);
  let found: string | null = null;
  try {
    for (let dir = start.realPath; ; dir = posix.dirname(dir)) {
      if (!/\/node_modules\/(@[^/]*\/)?[^@/][^/]*$/.test(dir)) {
        const file = posix.join(dir, 'package.json');
        if (cache.disk.stat(file) !== undefined) {
          found = file;
          // corepack stops at the first with the field; a file it cannot parse stops it (it writes nothing): this one, fail closed.
          let data: unknown = null;
          try {
            data = JSON.parse(cache.disk.text(file));
          } catch {
            break;
          }
          if (typeof data === 'object' && data !== null && (data as { packageManager?: unknown }).packageManager) break;
        }
      }
      if (posix.dirname(dir) === dir) break;
    }
  } catch {
    return unknown(`the package.json corepack finds from ${start.realPath} cannot be read`);
  }
  return pathSubject(found ?? posix.join(start.realPath, 'package.json'), 'write', null, null, 'argument', context, cache);
}

/**
 * The toolchain file a rustup proxy run without `+TOOLCHAIN` obeys (shell/rust-toolchains.ts
 * RUST_TOOLCHAIN_FILE): in the working directory or the nearest directory above with
 * `rust-toolchain` or `rust-toolchain.toml` (both read: rustup warns and takes one). When it names
 * a toolchain that is no channel's (a linked one, or a `path`), a read of that toolchain's
 * directory (`~/.rustup/toolchains/NAME`, a link to what `rustup toolchain link` gave it, or the
 * path) that asks in every mode, as `cargo +NAME` does; deny rules on the directory still deny.
 * null when no file names one. A directory not known, or a file that cannot be read, asks (round 30).
 */
function rustToolchainFile(path: CommandPath, context: InspectContext, cache: DecisionPaths): PathSubject | null {
  const unknown = (problem: string): PathSubject => ({ type: 'path', access: 'read', input: '<the toolchain a rust-toolchain file names>', path: null, realPath: null, problem, inWorkspace: false, via: path.via });
  if (context.pathEnv.platform === 'win32') return null;
  // Round 30: where the directory is not known (`cd sub; cargo build`, a function's body) the file
  // rustup obeys cannot be looked for: asks in every mode, as a file naming a linked toolchain does.
  if (path.base === null) return unknown('the directory the command runs in is not known, so the rust-toolchain file rustup obeys there cannot be read');
  const start = pathSubject(path.base, 'read', null, null, path.via, context, cache);
  if (start.realPath === null || start.problem) return null;
  try {
    for (let dir = start.realPath; ; dir = posix.dirname(dir)) {
      const files = ['rust-toolchain', 'rust-toolchain.toml'].map((name) => posix.join(dir, name)).filter((file) => cache.disk.stat(file)?.isFile() === true);
      if (files.length > 0) {
        for (const file of files) {
          const named = customToolchainIn(cache.disk.text(file));
          if (named === null) continue;
          const problem = `${file} names the toolchain ${JSON.stringify(named)}, no channel's: one \`rustup toolchain link\` may have made, whose programs run`;
          const place = named.includes('/') ? (named.startsWith('/') ? named : posix.join(dir, named)) : posix.join(context.pathEnv.home, '.rustup', 'toolchains', named);
          return { ...pathSubject(place, 'read', null, null, path.via, context, cache), problem };
        }
        return null;
      }
      if (posix.dirname(dir) === dir) return null;
    }
  } catch {
    return unknown(`the rust-toolchain file above ${start.realPath} cannot be read`);
  }
}

/** The problem of a git location the command names with an expansion (`HOME=$PWD`). */
const UNKNOWN_GIT_LOCATION = 'a git location known only at run time';

/**
 * A git directory the same call makes (`git init --bare r && echo … > r/hooks/pre-commit`, or by
 * hand: a `HEAD` file written beside the config) is not on disk when the call is decided: writes
 * to its code files are matched against it by path. The order of the commands is not considered.
 */
function markGitDirectoriesMade(subjects: Subject[], made: PathSubject[], cache: DecisionPaths): void {
  const writes = subjects.filter((subject): subject is PathSubject => subject.type === 'path' && subject.access === 'write' && subject.via !== LINK_TARGET);
  const dirs = new Set<string>();
  const files = new Set<string>();
  for (const subject of made) if (subject.via === GIT_CONFIG_NAMED) for (const form of [subject.path, subject.realPath]) if (form !== null) files.add(form);
  for (const subject of [...made.filter((m) => m.via === GIT_DIRECTORY_MADE), ...writes.filter((write) => write.path !== null && basename(write.path) === 'HEAD')]) {
    for (const form of [subject.path, subject.realPath]) if (form !== null) dirs.add(basename(form) === 'HEAD' && subject.via !== GIT_DIRECTORY_MADE ? dirname(form) : form);
  }
  const links = made.filter((m) => m.via === LINK_MADE);
  // Security: git pointed at a place known only at run time (`HOME=$PWD git status`): any write of
  // the same call may be its configuration or its hooks.
  const unknown = made.find((m) => m.problem === UNKNOWN_GIT_LOCATION);
  if (dirs.size === 0 && files.size === 0 && links.length === 0 && unknown === undefined) return;
  for (const write of writes) {
    if (write.gitDirectory) continue;
    if (unknown) write.problem ??= `git is pointed where only the run knows (${unknown.input}): this write may be its configuration or hooks`;
    const named = [write.path, write.realPath].find((form) => form !== null && files.has(form));
    if (named) {
      write.gitDirectory = named;
      write.gitConfigNamed = true;
      continue;
    }
    const linked = throughLink(write, links, cache);
    if (linked) {
      write.gitDirectory = linked;
      continue;
    }
    // Making the directory itself (`mkdir r && git init --bare r`) is the setup, not a change of one.
    const dir = [...dirs].find((d) => [write.path, write.realPath].some((form) => form !== null && form !== d && isGitCodeFile(d, form)));
    if (dir !== undefined) write.gitDirectory = dir;
  }
}

/** Programs that copy a directory to a destination, or link one there: the copy of a git directory, or a link to one, is one too. */
const COPIERS: ReadonlySet<string> = new Set(['cp', 'mv', 'rsync', 'scp', 'install', 'ln']);
/** The copiers whose `-t DIR` names the destination; rsync's `-t` keeps times, and its option paths come before the destination. */
const TARGET_OPTION: ReadonlySet<string> = new Set(['cp', 'mv', 'install', 'ln']);

/**
 * `cp -r repo.git r`, `cp -r .git/. r`, `rsync -a bare/ r/`, `mv .git r`, `ln -s .git r`: when a source is a git
 * directory on disk (or named `*.git`), the destination and `destination/<source name>` (a copy into
 * an existing directory) are git directories made by the call. The destination is the last path
 * written (the first with `-t DIR`, which files.ts records first); the sources are the others.
 */
function copiedGitDirectories(operands: PathSubject[], targetFirst: boolean, link: boolean, cache: DecisionPaths): PathSubject[] {
  // `ln -s plain r` into a directory r makes r/plain a link: its write is the name's own, not one through r.
  if (link) for (const name of operands) if (name.via === INTO_DIRECTORY) linkNames.add(name);
  const own = operands.filter((subject) => subject.via !== INTO_DIRECTORY);
  // Where a symbolic link leads is its source, not a name it writes.
  const writes = own.filter((subject) => subject.access === 'write' && subject.path !== null && subject.via !== LINK_TARGET);
  const destination = targetFirst ? writes[0] : writes.at(-1);
  if (destination === undefined) return [];
  const made: PathSubject[] = [];
  for (const source of own) {
    if (source === destination || source.path === null) continue;
    const inside = (form: string | null): string | null => (form === null ? null : `${form.replace(/\/+$/, '')}/${basename(source.path!)}`);
    // A link made by the call (`ln -s .git/hooks h`): what is written below it is written below its target.
    if (link) {
      linkNames.add(destination);
      for (const form of [source.path, source.realPath]) if (form !== null) made.push({ ...destination, realPath: form, via: LINK_MADE }, { ...destination, path: inside(destination.path), realPath: form, via: LINK_MADE });
    }
    if (![source.path, source.realPath].some((form) => form !== null && gitDirectoryOf(form, cache.disk) === form)) continue;
    made.push({ ...destination, via: GIT_DIRECTORY_MADE }, { ...destination, path: inside(destination.path), realPath: inside(destination.realPath), via: GIT_DIRECTORY_MADE });
  }
  return made;
}

/** The `via` of a link the call makes; its `realPath` is the link's target. */
const LINK_MADE = 'link made by the command';

/** ln's own write of the links it makes: making a link writes nothing where it points. */
const linkNames = new WeakSet<PathSubject>();

/** The git directory a write of or below a link the call makes reaches a code file of (`ln -s .git/hooks h && echo x > h/pre-commit`), or null. */
function throughLink(write: PathSubject, links: PathSubject[], cache: DecisionPaths): string | null {
  if (write.via === INTO_DIRECTORY && linkNames.has(write)) return null;
  for (const link of links) {
    for (const form of [write.path, write.realPath]) {
      if (form === null || link.path === null || link.realPath === null) continue;
      // A write of the link itself (`ln -s .git/config c && echo x >> c`) or of a path below it.
      if (form === link.path ? linkNames.has(write) : !form.startsWith(`${link.path}/`)) continue;
      const dir = gitDirectoryOf(`${link.realPath}${form.slice(link.path.length)}`, cache.disk);
      if (dir !== null) return dir;
    }
  }
  return null;
}

/** The git directory a written path is a code file of, by its lexical or its real path. */
function gitCodeDirectory(path: string | null, realPath: string | null, cache: DecisionPaths): string | null {
  return (path !== null ? gitDirectoryOf(path, cache.disk) : null) ?? (realPath !== null && realPath !== path ? gitDirectoryOf(realPath, cache.disk) : null);
}

/** The `via` of a link met inside a recursive read whose target is outside the tree. */
const LINK_IN_TREE = 'link in a recursive read';

/**
 * A recursive read (`grep -r x dir`, `cp -r`, `find -L … -exec`): the tree is walked as the
 * program walks it. The subject gets the entries (deny and ask rules are tried on the files really
 * there); every followed link leaving the tree is a read of its target, decided like any path.
 * A walk cut short by its bound while links are followed cannot tell where the rest leads: ask.
 */
function treeSubjects(subject: PathSubject, tree: NonNullable<CommandPath['tree']>, base: string | null, budget: WalkBudget, context: InspectContext, cache: DecisionPaths): PathSubject[] {
  if (subject.path === null || subject.realPath === null || subject.problem) return [];
  if (tree.noIndex && !noIndex(tree.noIndex, cache)) {
    subject.tree = { entries: [], complete: true };
    return [];
  }
  if (tree.copiedFrom) {
    const there = fs.existsSync(subject.realPath);
    // `mv src dir` with dir there: src arrives at dir/src, its own subject; dir keeps what it holds.
    if (tree.copiedFrom.absentOnly && there && tree.moved) {
      subject.tree = { entries: [], complete: true, plants: true };
      return [];
    }
    const retargeted: Retargeted[] = [];
    const made = tree.copiedFrom.absentOnly && there ? null : copiedEntries(subject.realPath, tree.copiedFrom, base, budget, context, cache, retargeted);
    const leads = retargeted.flatMap((link) => linkTargetSubjects(link, subject.realPath!, budget, context, cache));
    if (!there || !isDirectory(subject.realPath)) {
      if (made) subject.tree = { ...made, plants: true, ...(tree.moved ? { moved: true as const } : {}) };
      return leads;
    }
    if (made) {
      const walk = walkTree(subject.realPath, false, budget, context.pathEnv.platform);
      const held = new Set(walk.entries.map((entry) => entry.rel));
      subject.tree = { entries: [...walk.entries, ...made.entries.filter((entry) => !held.has(entry.rel))], complete: walk.complete && made.complete, ...(walk.links.length > 0 ? { links: walk.links } : {}), plants: true, ...(tree.moved ? { moved: true as const } : {}) };
      return leads;
    }
  }
  if (!isDirectory(subject.realPath)) {
    // `diff a.ts b.ts` reads the files themselves; what is not there yet may be a directory when it runs.
    // `git add src/a.ts`: a file stores itself (unless the same call may change the tree: ignores-changed.ts).
    if ((tree.onlyDirectories || tree.unignored) && isFile(subject.realPath)) subject.tree = { entries: [], complete: true };
    return [];
  }
  if (tree.tracked) {
    subject.tree = trackedBelow(subject.realPath, budget, context.pathEnv.platform, cache, tree.head);
    return [];
  }
  const walk = walkTree(subject.realPath, tree.follows, budget, context.pathEnv.platform, tree.unignored ? ignoredBelow(subject.realPath, context.pathEnv.platform, cache) : undefined);
  if (tree.content) {
    const filters = tree.filters;
    const entries = filters ? walk.entries.filter((entry) => !skippedByFilters(filters, subject.input, entry.rel, entry.directory === true)) : walk.entries;
    subject.tree = { entries, complete: walk.complete, ...(walk.links.length > 0 ? { links: walk.links } : {}), ...(tree.plants ? { plants: true as const } : {}), ...(tree.moved ? { moved: true as const } : {}), ...(tree.linked ? { linked: true as const } : {}) };
  }
  if (walk.undecodable !== undefined) subject.problem = `the name ${JSON.stringify(walk.undecodable)} below it is not UTF-8 (shown with U+FFFD): what it is and what is below it is unknown`;
  else if (!walk.complete && tree.follows) subject.problem = `the tree has more than ${MAX_TREE_ENTRIES} entries to check and the command follows symbolic links: where the rest leads is unknown`;
  // A link followed out of the tree is read, or written below (`find -L … -delete`), where it leads.
  return walk.escapes.map((escape) => pathSubject(`${subject.path}/${escape.rel}`, subject.access, null, null, LINK_IN_TREE, context, cache));
}

/**
 * One end of a file tool's move, as the shell's `mv -T SOURCE DESTINATION` (round 14 review T1/T2:
 * `move_file conf pub` was one write of conf, and pub/secret/db.txt then read a file under
 * `Read(./conf/secret/**)`): the source's tree leaves its place (MOVED), and what the sources hold
 * arrives below the destination (arrivals). `sources` collects the sources, named before the destination.
 */
function movedSubjects(subject: PathSubject, end: 'source' | 'destination', sources: Array<string | null>, budget: WalkBudget, context: InspectContext, cache: DecisionPaths): PathSubject[] {
  if (end === 'source') sources.push(subject.problem ? null : subject.path);
  subject.via = RECURSIVE;
  return treeSubjects(subject, end === 'source' ? MOVED : arrivals([...sources]), null, budget, context, cache);
}

/**
 * Where a link a copy or a move puts elsewhere leads from its new place (copiedEntries lists them):
 * a new name for that path and for what is below it. A call decided before the move or copy runs
 * meets that name after it: `move_file pub/d d` with `pub/d/l -> ../conf` (naming nothing from
 * pub/d), and a `write_file d/l/x` sent with it, decided while `d` did not exist, wrote into conf
 * (round 29 review F29-3; round 30 review F30-2: the shell's `mv` and `cp -a` across calls, and a
 * rule below the target). So the target is decided as a move's source is (LINKED: the Edit and Read
 * rules on it and below it), unless it stays within what arrives at `dest` (docs/threat-model.md
 * "Moving a directory moves what is below it").
 */
function linkTargetSubjects(link: Retargeted, dest: string, budget: WalkBudget, context: InspectContext, cache: DecisionPaths): PathSubject[] {
  const platform = context.pathEnv.platform;
  // Kept with its `..`: walked in kernel order from the link's new directory.
  // One that leads where it did reached the same by its old name: the deny rules on the path itself (round 29's absolute link).
  const subject = pathSubject(link.target, 'write', null, null, link.same ? DENY_CANDIDATE : LINK_TARGET, context, cache);
  if (subject.path !== null && subject.realPath !== null && !subject.problem && isInside(dest, subject.path, platform) && isInside(dest, subject.realPath, platform)) return [];
  return link.same ? [subject] : [subject, ...treeSubjects(subject, LINKED, null, budget, context, cache)];
}

/** A link a copy or move puts elsewhere (copiedEntries): where it leads from there, and whether that is where it led before. */
interface Retargeted {
  target: string;
  same: boolean;
}

/**
 * A tool that lists every name below a directory (PathArg.names): the directories below, each read
 * as a listing of it (policy/decide.ts treeRule), so `Read(./conf/secret/**)` asks for
 * `directory_tree conf` as it denies `list_directory conf/secret`.
 */
function listedNames(subject: PathSubject, depth: number, budget: WalkBudget, context: InspectContext): void {
  if (subject.realPath === null || subject.problem || !isDirectory(subject.realPath)) return;
  const walk = walkTree(subject.realPath, false, budget, context.pathEnv.platform);
  subject.via = RECURSIVE;
  subject.tree = { entries: walk.entries.filter((entry) => entry.directory === true && (depth === Infinity || entry.rel.split('/').length < depth)), complete: walk.complete, names: true };
}

/** How many levels below its path a names-listing argument lists (PathArg.names): 0 for none, Infinity for all, and when it cannot be told. */
function listingDepth(pathArg: PathArg, args: Record<string, unknown>): number {
  if (pathArg.names === undefined) return 0;
  if (pathArg.names === true) return Infinity;
  try {
    const depth = pathArg.names(args);
    return Number.isNaN(depth) ? Infinity : depth;
  } catch {
    return Infinity;
  }
}

/** What git ignores below `dir` (a real directory) in the working tree it is in (git-ignore.ts); nothing outside one. */
function ignoredBelow(dir: string, platform: NodeJS.Platform, cache: DecisionPaths): ((rel: string, directory: boolean) => boolean) | undefined {
  const top = platform === 'win32' ? null : workTreeOf(dir, cache.disk);
  if (top === null || !isInside(top, dir, platform)) return undefined;
  return ignoreRules(top, dir, cache.disk).ignored;
}

/**
 * What a recursive copy makes below `dest` (a real path) from its sources (types.ts TreeRead.copiedFrom):
 * each file and link a source directory holds, at its name below dest, its real path through what
 * dest holds now (a link there is written through, as cp does). A source known only at run time,
 * remote, not there yet (made by the same call) or past the walk's bound leaves the list incomplete:
 * a rule that could match below dest then asks (docs/threat-model.md#copies-create-files).
 */
function copiedEntries(dest: string, from: NonNullable<TreeRead['copiedFrom']>, base: string | null, budget: WalkBudget, context: InspectContext, cache: DecisionPaths, retargeted: Retargeted[]): TreeWalk {
  const P = context.pathEnv.platform === 'win32' ? win32 : posix;
  // A link the copy keeps as a link leads, from its new place, where its text says from there (linkTargetSubjects).
  const relink = (link: string, place: string): void => {
    let target: string;
    try {
      target = fs.readlinkSync(link);
    } catch {
      return;
    }
    const absolute = P.isAbsolute(target);
    // One that leads where it led (an absolute one, `../x` moved as deep): its new name reaches only what its old one did.
    const same = absolute || P.resolve(P.dirname(link), target) === P.resolve(P.dirname(place), target);
    retargeted.push({ target: absolute ? target : `${P.dirname(place)}${P.sep}${target}`, same });
  };
  const out: TreeWalk = { entries: [], complete: true };
  const reals = new Map<string, string>([['', dest]]);
  const realBelow = (rel: string): string => {
    const known = reals.get(rel);
    if (known !== undefined) return known;
    const slash = rel.lastIndexOf('/');
    const joined = `${realBelow(slash === -1 ? '' : rel.slice(0, slash))}/${rel.slice(slash + 1)}`;
    let real = joined;
    try {
      real = fs.realpathSync.native(joined);
    } catch {
      // not there yet: made where its directory is
    }
    reals.set(rel, real);
    return real;
  };
  for (const source of from.sources) {
    const read = source === null ? null : pathSubject(ownCwd(source, base), 'read', base, null, RECURSIVE, context, cache);
    // A source that is itself a link is moved (copied, with -r, -a, -P) as the link, dangling or not: `mv pub/l l` with `pub/l -> conf`.
    if (!from.follows && read?.path && !read.problem && isLink(read.path)) relink(read.path, dest);
    if (read === null || read.realPath === null || read.problem || !fs.existsSync(read.realPath)) {
      out.complete = false;
      continue;
    }
    if (!isDirectory(read.realPath)) continue; // a file is written as the destination's own name, already a subject
    const walk = walkTree(read.realPath, from.follows, budget, context.pathEnv.platform);
    if (!walk.complete) out.complete = false;
    for (const rel of [...walk.entries.filter((entry) => entry.directory !== true).map((entry) => entry.rel), ...walk.links]) out.entries.push({ rel, real: realBelow(rel) });
    for (const rel of walk.links) relink(P.join(read.realPath, rel), P.join(dest, rel));
  }
  return out;
}

/**
 * Each revision names a commit, a tree (unless `trees`: the command prints its files), (no object) a
 * file on disk, or nothing git can use, in the repository whose working tree's top is `top`. A commit
 * named by its id counts only when a ref ever pointed at it: `git commit-tree T` makes one around any
 * stored blob, which no ref names (docs/threat-model.md#what-git-prints).
 */
function namesNoStoredFile(top: string, revisions: readonly string[], trees: boolean, cwd: string | null, cache: DecisionPaths): boolean {
  const gitDir = gitDirectoryOfTree(top, cache.disk);
  if (gitDir === null) return false;
  return revisions.every((rev) => {
    const type = revisionType(gitDir, rev, cwd);
    const id = type === 'commit' ? objectIdOf(rev) : null;
    return (type === 'commit' && (id === null || refsEverNamed(gitDir, id))) || (type === 'tree' && !trees) || type === 'path' || type === 'none';
  });
}

/** The files there now whose names start with a prefix path's last component, in its directory (types.ts CommandPath.prefix), each as written through. */
function prefixedSubjects(subject: PathSubject, path: CommandPath, context: InspectContext, cache: DecisionPaths): PathSubject[] {
  if (subject.path === null || subject.realPath === null || subject.problem) return [];
  const name = basename(subject.path);
  let names: string[];
  try {
    names = fs.readdirSync(dirname(subject.realPath)).filter((entry) => entry.startsWith(name) && entry !== name);
  } catch {
    return [];
  }
  return names.map((entry) => pathSubject(`${dirname(subject.path!)}/${entry}`, path.access, null, null, path.via, context, cache));
}

/** Whether git runs `git diff A B` as `--no-index` (types.ts TreeRead.noIndex): when in doubt, yes. */
function noIndex(given: NonNullable<TreeRead['noIndex']>, cache: DecisionPaths): boolean {
  // git compares the operands as written, against the real directory it runs in (path_inside_repo).
  const cwd = given.from === null ? null : realPathOr(given.from);
  const top = cwd === null ? null : workTreeOf(cwd, cache.disk);
  return cwd === null || top === null || given.operands.some((operand) => operand === null || !isInside(top, posix.resolve(cwd, operand), 'linux'));
}

function realPathOr(path: string): string {
  try {
    return fs.realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The files git tracks below `dir` (a real directory), as tree entries: what `git diff`, `git log -p`,
 * `git grep` may print there (docs/threat-model.md#what-git-prints). Outside a working tree whose top
 * is known, or past the walk's bound, the list is incomplete (a rule that could match below asks).
 */
function trackedBelow(dir: string, budget: WalkBudget, platform: NodeJS.Platform, cache: DecisionPaths, head?: TreeRead['head']): TreeWalk {
  const top = platform === 'win32' ? null : workTreeOf(dir, cache.disk);
  if (top === null) return { entries: [], complete: platform !== 'win32' && outsideRepositories(dir, cache.disk) };
  const tracked = trackedPaths(top, budget.left, cache.disk);
  const prefix = dir === top ? '' : `${dir.slice(top === '/' ? 1 : top.length + 1)}/`;
  const entries: TreeWalk['entries'] = [];
  for (const rel of tracked.paths) if (rel.startsWith(prefix)) entries.push({ rel: rel.slice(prefix.length), real: `${top === '/' ? '' : top}/${rel}` });
  budget.left -= tracked.paths.length;
  return { entries, complete: tracked.complete && (head === undefined || indexIsHead(top, tracked, head.branch, cache.disk)) };
}

/**
 * `/proc/self/cwd/…` in a shell command names the working directory of the process opening it —
 * the command's own, which the analyser knows (the kernel then walks the rest, `..` included).
 */
function ownCwd(path: string, base: string | null): string {
  const match = /^\/proc\/(?:self|thread-self)\/cwd(\/.*)?$/.exec(path);
  return match && base !== null ? `${base}${match[1] ?? ''}` : path;
}

/**
 * `/proc/self/…` and `/dev/fd/…` name the process that resolves them: here the gateway, at run time
 * the server. Their real path here says nothing about what the server reaches.
 */
function processRelative(path: string | null): string | undefined {
  return path !== null && (path.startsWith('/proc/') || path.startsWith('/dev/fd')) && /^\/(proc\/(self|thread-self|\d+)|dev\/fd)(\/|$)/.test(path) ? 'the path names the running process (/proc/self, /dev/fd): it resolves differently for the server' : undefined;
}

/** `$HOME/x`, `"${HOME}"/x` → `~/x`: the one expansion whose value the gateway knows; null otherwise. */
function homeSpelling(raw: string): string | null {
  const match = /^\$(?:HOME|\{HOME\})(\/[^$`'\\*?[\]{}]*)?$/.exec(raw.replace(/"/g, ''));
  return match ? `~${match[1] ?? ''}` : null;
}

/** Values at a pointer like `paths[]`, `edits[].file`, `source`; missing → none. */
function valuesAt(args: unknown, pointer: string): unknown[] {
  if (!pointer.includes('.') && !pointer.endsWith('[]')) {
    // One plain key (`path`, `workdir`): the loop below, without its arrays.
    const item = typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[pointer] : undefined;
    return item === undefined || item === null ? [] : [item];
  }
  let values: unknown[] = [args];
  for (const part of pointer.split('.')) {
    const isArray = part.endsWith('[]');
    const key = isArray ? part.slice(0, -2) : part;
    const next: unknown[] = [];
    for (const value of values) {
      if (typeof value !== 'object' || value === null) continue;
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined || item === null) continue;
      if (isArray) {
        if (Array.isArray(item)) next.push(...item);
        else next.push(item); // a single value where a list was expected is still checked
      } else next.push(item);
    }
    values = next;
  }
  return values;
}

function relativeBases(server: string, toolClass: ToolClass, args: Record<string, unknown>, context: InspectContext, cache: DecisionPaths): Bases {
  const base = toolClass.base;
  if (base.type === 'roots') return rootBases(base.roots, context.serverRoots?.get(server) ?? [], context, cache);
  const one = relativeBase(base, args, context, cache);
  const bases = { dirs: [one.dir], problem: one.problem };
  return () => bases;
}

function relativeBase(base: Exclude<ToolClass['base'], { type: 'roots' }>, args: Record<string, unknown>, context: InspectContext, cache: DecisionPaths): { dir: string | null; problem: string | null } {
  if (base.type === 'dir') return { dir: base.dir, problem: base.dir ? null : 'relative path and the server directory is unknown' };
  const value = args[base.arg];
  if (typeof value === 'string' && tildeDirectory(value)) return { dir: null, problem: tildeProblem(base.arg) };
  if (typeof value === 'string' && value !== '') {
    // Kept with its `..`: a path below it is then walked in kernel order through the whole join.
    const resolved = canonicalPath(value, base.fallback, context.pathEnv, cache, false, true);
    return { dir: resolved.problem ? resolved.path : absolutePath(value, base.fallback, context.pathEnv, cache), problem: resolved.problem ?? null };
  }
  return { dir: base.fallback, problem: base.fallback ? null : `relative path and no ${base.arg}` };
}

/**
 * server-filesystem's bases for a relative path (lib.js resolveRelativePathAgainstAllowedDirectories):
 * of its allowed directories, the first one the path resolved against lands inside one of them, else
 * the first. Its allowed directories are those of its command line until the client's MCP roots
 * replace them (when the server has asked for them): the command line's, the gateway's own view of
 * the client's roots, and the lists the server was given through the relay (`given`: the gateway's
 * own request may have failed, timed out or been answered otherwise) are each decided. Worked out
 * only for a relative path.
 */
function rootBases(commandLine: string[], given: string[][], context: InspectContext, cache: DecisionPaths): Bases {
  let lists: string[][] | null = null;
  const P = context.pathEnv.platform === 'win32' ? win32 : posix;
  return (reading) => {
    if (context.pathEnv.platform !== 'win32' && reading.text.startsWith('/')) return { dirs: [null], problem: null };
    if (!needsBase(reading.text, context.pathEnv, reading.plain)) return { dirs: [null], problem: null };
    // The server resolves its directories when it starts (realpath); so are the client's roots here.
    lists ??= [commandLine.map((root) => canonicalPath(root, null, context.pathEnv, cache, false, true)).map((root) => root.realPath ?? root.path).filter((root): root is string => root !== null), context.clientRoots, ...given].filter((list) => list.length > 0);
    if (lists.length === 0) return { dirs: [null], problem: 'relative path and the server has no roots' };
    const dirs = lists.map((roots) => roots.find((dir) => roots.some((root) => isInside(root, P.resolve(dir, reading.text), context.pathEnv.platform))) ?? (roots[0] as string));
    return { dirs: [...new Set(dirs)], problem: null };
  };
}

/**
 * A directory argument spelled with a leading `~`: mcp-server-commands hands `workdir` to
 * child_process as written (`~` is then a directory named `~` below its own cwd), other servers
 * expand it. Which one a server does is not known here, so the call's directory is unknown and its
 * relative paths ask (round 15 review of paths, P3: `workdir: "~/../conf"` with a `./~` made first
 * read a Read-denied file in bypassPermissions, the prompt naming `/conf/secret/key`).
 */
function tildeDirectory(value: string): boolean {
  return value.startsWith('~');
}

function tildeProblem(arg: string): string {
  return `${arg} starts with "~", which some servers take as a directory named "~" and others as the home directory`;
}

function commandCwd(toolClass: ToolClass, args: Record<string, unknown>, context: InspectContext, cache: DecisionPaths): string | null {
  const fallback = toolClass.base.type === 'dir' ? toolClass.base.dir : toolClass.base.type === 'arg' ? toolClass.base.fallback : null;
  if (toolClass.cwd) {
    const value = args[toolClass.cwd];
    if (typeof value === 'string' && tildeDirectory(value)) return null;
    if (typeof value === 'string' && value !== '') return absolutePath(value, fallback, context.pathEnv, cache);
  }
  return fallback;
}

/** The shell text to analyse: a string as given, or argv words quoted so each stays one word. */
function commandText(value: unknown, mode: 'shell' | 'argv'): string | null {
  if (mode === 'shell') return typeof value === 'string' ? value : null;
  if (!Array.isArray(value) || value.length === 0 || !value.every((word) => typeof word === 'string')) return null;
  return value.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
}

/**
 * Text fed to a command's stdin is code when the command is a shell or an interpreter
 * (mcp-server-commands: `bash` with the script on stdin). A shell script is analysed too, so deny
 * rules still see its commands; either way it is never auto-allowed, and the prompt shows the text
 * (`CommandInfo.stdin`, docs/approval.md "What the prompt shows").
 */
function withStdin(info: CommandInfo, given: NonNullable<CommandInfo['stdin']>, cwd: string | null): CommandInfo {
  const stdin = given.text;
  const last = info.segments[info.segments.length - 1];
  const name = last?.name ?? null;
  if (name && POSIX_SHELLS.has(name)) {
    const script = analyseCommandCached(stdin, { cwd, shell: BASH_SHELLS.has(name) ? 'bash' : 'sh' });
    return {
      ...info,
      segments: [...info.segments, ...script.segments.map((segment) => ({ ...segment, context: 'nested' as const }))],
      redirections: [...info.redirections, ...script.redirections.map((r) => ({ ...r, segment: r.segment === null ? null : r.segment + info.segments.length }))],
      substitutions: [...info.substitutions, ...script.substitutions],
      unanalyzable: [...new Set([...info.unanalyzable, ...script.unanalyzable, 'stdin-script'])],
      rememberable: false,
      stdin: { ...given, reader: name },
    };
  }
  if (name && runsCode(name)) return { ...info, unanalyzable: [...new Set([...info.unanalyzable, 'stdin-script'])], rememberable: false, stdin: { ...given, reader: name } };
  // `xargs cat` with stdin ".env": the words xargs adds are in the call, but not modelled as the
  // program's (round 14 review T8); such a call asks.
  if (info.segments.some((segment) => segment.wrappers.some((wrapper) => /^(?:\S*\/)?xargs(?:\s|$)/.test(wrapper)))) return { ...info, unanalyzable: [...new Set([...info.unanalyzable, 'xargs-input'])], rememberable: false, stdin: { ...given, reader: 'xargs' } };
  return info;
}
