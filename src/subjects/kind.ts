/**
 * Tool classification (docs/design.md): what kind a tool is and which of its arguments hold paths, a
 * command, its working directory and stdin. Order: `tools` override → built-in profile →
 * heuristics (tool-name verbs, argument names, schema) → annotations as a tie-breaker → `all`.
 * Among heuristic signals the most dangerous kind wins; a profile is trusted as is.
 *
 * Example: an unknown server's tool
 *   { name: 'run_in_container', inputSchema: { properties: { cmd: {type:'string'}, workdir: {type:'string'} } } }
 * gets kind 'command' ("run" verb, `cmd` argument), command { arg: 'cmd', mode: 'shell' },
 * cwd 'workdir', paths [workdir: read], base { type: 'arg', arg: 'workdir' }, source 'heuristic'.
 * Had it also taken `env`, it would be 'all': an environment can change what any command does.
 */
import type { Access, Kind, TreeRead } from '../policy/types.js';
import { KIND_RANK } from '../policy/types.js';
import { isPlainObject } from '../values.js';
import { profileByName } from './profiles.js';
import { serverHome, serverSetsGitConfig, type ServerIdentity } from './server-identity.js';
import type { ShellReading } from './desktop-commander.js';
import type { ProcessUse, Profile, ProfileBase, ProfileTool } from './profiles.js';

/** A path argument: dotted pointer into the arguments (`path`, `paths[]`, `edits[].file`) and how it is touched. */
export interface PathArg {
  arg: string;
  access: Access;
  /**
   * A move's ends (`move_file {source, destination}`), decided as the shell's `mv -T` is: the
   * source leaves its place with what is below it, which arrives below the destination
   * (subjects/shell/files.ts MOVED and arrivals).
   */
  moves?: 'source' | 'destination';
  /**
   * The tool lists the names below the directory (directory_tree, search_files): each directory
   * below is read as `list_directory` reads it, so a `Read` rule on one asks (round 14 review T11).
   * A function gives, per call, how deep: the directories fewer levels below than that are listed
   * (Desktop Commander's `list_directory {depth}`; 0 lists none below).
   */
  names?: true | ((args: Record<string, unknown>) => number);
  /** Per call: the tool reads the whole tree below the path, as the shell's `grep -r` does (null: the path alone). */
  tree?: (args: Record<string, unknown>) => TreeRead | null;
}

/** How a tool was classified, for the policy engine and `mcp-latch tools`. */
export interface ToolClass {
  kind: Kind;
  /** 'override' | 'profile:<profile name>' | 'heuristic' | 'annotations' | 'unknown': where the kind came from. */
  source: string;
  paths: PathArg[];
  /** The argument holding the command; argv mode = an array of words run without a shell. */
  command: { arg: string; mode: 'shell' | 'argv' } | null;
  /** Argument naming the command's working directory (for git tools: `repo_path`, the base of `files[]`). */
  cwd: string | null;
  /** Argument whose text is fed to the command's stdin; code when the command is an interpreter. */
  stdin?: string | null;
  /** Per-call kind from the arguments (edit_file dryRun ⇒ read, read_file isUrl ⇒ all); call it before deciding. */
  refine?: (args: Record<string, unknown>) => Kind;
  /**
   * Per-call choice of the command argument, when the tool has two (mcp-server-commands run_process:
   * `command_line` in shell mode, `argv` in executable mode). When present it supersedes `command`.
   */
  selectCommand?: (args: Record<string, unknown>) => { arg: string; mode: 'shell' | 'argv' } | null;
  /**
   * Per call: the command line the server runs, as words (mcp-server-git's `git_diff_unstaged` runs
   * `git diff`), in the `cwd` argument's directory. The shell model reads what it touches; null: not
   * describable, and the call asks.
   */
  runs?: (args: Record<string, unknown>) => string[] | null;
  /**
   * How a relative path argument is resolved. With type 'arg' the named argument is itself resolved
   * against `fallback`. Roots `[]` means the server takes its roots from the client's MCP roots.
   */
  base: { type: 'roots'; roots: string[] } | { type: 'dir'; dir: string | null } | { type: 'arg'; arg: string; fallback: string | null };
  /**
   * The server has no URI handling: a `file:` string is a plain path to it (server-filesystem and
   * Desktop Commander, whose profiles' base is 'roots' or 'server-cwd'). Otherwise a `file:` string
   * is decided as a URI and as a path (docs/design.md "Paths, step by step", step 2).
   */
  plainFileStrings?: true;
  /**
   * Per call: the shell the command runs in (subjects/desktop-commander.ts): the dialect it is read
   * as (a bash's text as bash), or why it is a shell mcp-latch does not read (Desktop Commander's
   * defaultShell is zsh). The call is then kind `all` and its command, read for deny rules, is never
   * allowed. Absent: a `shell` command is read as a sh that may be dash.
   */
  shell?: (args: Record<string, unknown>) => ShellReading;
  /** Per call: why the call asks in every mode, before rules and grants (Desktop Commander's set_config_value of defaultShell); null when it need not. */
  asks?: (args: Record<string, unknown>) => string | null;
  /** What the call does with one of the server's processes (gateway/processes.ts). */
  process?: ProcessUse;
  /**
   * The home directory the server expands `~` to (its own `HOME`, server-identity.ts serverHome),
   * when its environment sets one; null when its environment is not known. Absent: the gateway's,
   * which it inherits (docs/threat-model.md "A path the server reads otherwise").
   */
  home?: string | null;
  /** The server's environment may set git settings (server-identity.ts serverSetsGitConfig); absent: it sets none. */
  gitConfigByEnvironment?: true;
}

/** A `tools` entry of the config (docs/config.md). */
export interface ToolOverride {
  kind: Kind;
  paths?: Array<string | { arg: string; access: Access }>;
  command?: string;
  cwd?: string;
  /** The argument fed to the command's stdin (inherited from the profile when not given). */
  stdin?: string;
}

/** Tool annotations as the server declared them; untrusted (docs/design.md). */
interface Annotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

/**
 * Classifies one tool of a server (docs/design.md). Pure: same input, same answer, so it runs once per
 * tools/list. The caller applies `refine`/`selectCommand` per call and extracts the arguments.
 */
export function classifyTool(input: {
  identity: ServerIdentity;
  tool: { name: string; inputSchema?: unknown; annotations?: Annotations };
  override?: ToolOverride;
}): ToolClass {
  const { identity, tool, override } = input;
  const profile = identity.profile === null ? undefined : profileByName(identity.profile);
  const entry = profile?.tools[tool.name];
  const underlying = entry && profile ? fromProfile(profile, entry, identity) : classifyUnknown(tool, identity, profile);
  return withHome(override ? applyOverride(override, underlying, identity) : underlying, identity);
}

/** The class with the server's own home (ToolClass.home), where its environment sets or hides one. */
function withHome(cls: ToolClass, identity: ServerIdentity): ToolClass {
  const home = serverHome(identity);
  if (home !== undefined) cls.home = home;
  if (serverSetsGitConfig(identity)) cls.gitConfigByEnvironment = true;
  return cls;
}

/**
 * Whether classifyTool (without an override) could give `tool` a class that takes commands: false
 * only when none can, so that a server's readiness classifies just the tools that may
 * (gateway/core.ts, newListsTakeShellCommands; docs/performance.md, "Round 19: start"). A profile's
 * own entry is classified. Otherwise a command, a stdin or a command chosen per call comes only
 * from a top-level argument named as a command, an interpreter or an argument list
 * (classifyUnknown), and every argument's name is a key of some `properties` object in the schema:
 * a schema with none of those names anywhere cannot take commands.
 */
export function mayTakeCommands(identity: ServerIdentity, tool: { name: string; inputSchema?: unknown }): boolean {
  const profile = identity.profile === null ? undefined : profileByName(identity.profile);
  if (profile?.tools[tool.name]) return true;
  let visits = 0;
  const named = (node: unknown, depth: number): boolean => {
    if (depth > 12 || ++visits > MAX_SCHEMA_VISITS) return true;
    if (Array.isArray(node)) return node.some((item) => named(item, depth + 1));
    if (!isPlainObject(node)) return false;
    const props = node['properties'];
    if (isPlainObject(props) && Object.keys(props).some((name) => COMMAND_ARGUMENT_KEYS.has(name.toLowerCase().replace(/[_-]/g, '')))) return true;
    return Object.values(node).some((value) => typeof value === 'object' && value !== null && named(value, depth + 1));
  };
  return named(tool.inputSchema, 0);
}

/** Profiles whose server resolves paths itself with no URI handling. */
function takesPlainPaths(b: ProfileBase): boolean {
  return b === 'roots' || b === 'server-cwd';
}

function baseFor(b: ProfileBase, identity: ServerIdentity): ToolClass['base'] {
  if (b === 'roots') return { type: 'roots', roots: identity.roots };
  if (b === 'server-cwd') return { type: 'dir', dir: identity.cwd };
  return { type: 'arg', arg: b.arg, fallback: identity.cwd };
}

/**
 * How a server's prompt is decided (docs/rules.md "Prompts"): as its profile says (a prompt that
 * runs a command is a command); any other prompt given arguments, of a server with a tool that
 * runs commands, as a tool nothing describes (kind `all`: the mode decides, as for a tool);
 * null for the rest, whose arguments are candidates for the deny and ask rules only.
 */
export function classifyPrompt(identity: ServerIdentity, name: string, args: Record<string, unknown>, serverRunsCommands: boolean): ToolClass | null {
  const profile = identity.profile === null ? undefined : profileByName(identity.profile);
  const entry = profile?.prompts?.[name];
  if (entry && profile) return withHome(fromProfile(profile, entry, identity), identity);
  if (!serverRunsCommands || Object.values(args).every((value) => value === undefined || value === '')) return null;
  return withHome({ kind: 'all', source: 'prompt of a server that runs commands', paths: [], command: null, cwd: null, base: baseFor(profile?.base ?? 'server-cwd', identity) }, identity);
}

function fromProfile(profile: Profile, t: ProfileTool, identity: ServerIdentity): ToolClass {
  const cls: ToolClass = {
    kind: t.kind,
    source: `profile:${profile.name}`,
    paths: t.paths ? t.paths.map((p) => ({ ...p })) : [],
    command: t.command ? { ...t.command } : null,
    cwd: t.cwd ?? null,
    stdin: t.stdin ?? null,
    base: baseFor(t.base ?? profile.base, identity),
  };
  if (t.refine) cls.refine = t.refine;
  if (t.selectCommand) cls.selectCommand = t.selectCommand;
  if (t.runs) cls.runs = t.runs;
  if (takesPlainPaths(t.base ?? profile.base)) cls.plainFileStrings = true;
  const { shell } = t;
  if (shell) cls.shell = (args) => shell(args, identity);
  if (t.asks) cls.asks = t.asks;
  if (t.process) cls.process = t.process;
  return cls;
}

/**
 * A bare string path gets `write` access for a write override and `read` otherwise; paths the
 * override leaves out are inherited (so deny rules keep seeing them; `paths: []` drops them).
 * The user's kind is final: no `refine`. Command, cwd and stdin are inherited only for a command override.
 */
function applyOverride(o: ToolOverride, underlying: ToolClass, identity: ServerIdentity): ToolClass {
  const defaultAccess: Access = o.kind === 'write' ? 'write' : 'read';
  const paths: PathArg[] = o.paths
    ? o.paths.map((p) => (typeof p === 'string' ? { arg: p, access: defaultAccess } : { arg: p.arg, access: p.access }))
    : underlying.paths.map((p) => ({ arg: p.arg, access: o.kind === 'read' || o.kind === 'write' ? o.kind : p.access }));
  const isCommand = o.kind === 'command';
  const inheritCommand = isCommand && o.command === undefined;
  const cls: ToolClass = {
    kind: o.kind,
    source: 'override',
    paths,
    command: o.command !== undefined ? { arg: o.command, mode: 'shell' } : inheritCommand ? underlying.command : null,
    cwd: o.cwd ?? (isCommand ? underlying.cwd : null),
    // Security: text on stdin is code for `bash`; an override naming only the command keeps it.
    stdin: isCommand ? (o.stdin ?? underlying.stdin ?? null) : null,
    base: o.cwd !== undefined ? { type: 'arg', arg: o.cwd, fallback: identity.cwd } : underlying.base,
  };
  if (inheritCommand && underlying.selectCommand) cls.selectCommand = underlying.selectCommand;
  // Security: what the server runs for the call stays in view of deny rules, as the inherited paths do.
  if (underlying.runs) {
    cls.runs = underlying.runs;
    cls.cwd ??= underlying.cwd;
  }
  if (underlying.plainFileStrings) cls.plainFileStrings = true;
  // Security: the shell that runs the command, the server's files written and the process used stay as the server has them.
  if (inheritCommand && underlying.shell) cls.shell = underlying.shell;
  if (underlying.asks) cls.asks = underlying.asks;
  if (underlying.process) cls.process = underlying.process;
  return cls;
}

// ---------------------------------------------------------------------------------------------
// Heuristics (docs/design.md#classifying-an-unknown-tool-in-order)
// ---------------------------------------------------------------------------------------------

/** Tool-name words, by the kind they suggest. Matched as whole words of the name (snake, kebab, camel). */
const COMMAND_VERBS = new Set([
  'exec', 'execute', 'run', 'shell', 'bash', 'sh', 'terminal', 'process', 'spawn', 'eval', 'script', 'interact', 'command', 'cmd',
]);
const WRITE_VERBS = new Set([
  'write', 'create', 'edit', 'update', 'delete', 'remove', 'rm', 'move', 'mv', 'rename', 'copy', 'cp', 'mkdir', 'append',
  'patch', 'replace', 'set', 'put', 'post', 'commit', 'push', 'reset', 'checkout', 'kill', 'terminate', 'install', 'clone',
  'add', 'insert', 'save', 'upload', 'toggle', 'enable', 'disable', 'clear', 'drop', 'truncate', 'modify', 'apply', 'merge',
  'rebase', 'restore', 'send', 'stop', 'cancel', 'unlink', 'chmod', 'chown', 'touch',
]);
const READ_VERBS = new Set([
  'read', 'get', 'list', 'search', 'find', 'show', 'view', 'stat', 'describe', 'query', 'diff', 'log', 'status', 'tree', 'info',
  'open', 'cat', 'ls', 'grep', 'lookup', 'inspect', 'count', 'check', 'head', 'tail', 'preview', 'explain',
]);

/** Argument names (lower-case, `_`/`-` removed) that hold paths (step 3 of docs/design.md#classifying-an-unknown-tool-in-order). */
const PATH_NAMES = new Set([
  'path', 'paths', 'file', 'files', 'filepath', 'filepaths', 'filename', 'filenames', 'dir', 'dirs', 'directory',
  'directories', 'folder', 'folders', 'cwd', 'workdir', 'workingdirectory', 'workingdir', 'root', 'repopath', 'source',
  'sources', 'destination', 'src', 'dest', 'targetpath', 'outputpath', 'inputpath', 'localpath', 'notebookpath', 'oldpath',
  'newpath', 'sourcepdfpath', 'sourcepath', 'destpath', 'destinationpath', 'outputfile', 'inputfile', 'outputdir',
]);
/** Last words of an argument name that make it a path (`configPath`, `log_file`, `outDir`). */
const PATH_LAST_WORDS = new Set(['path', 'paths', 'file', 'files', 'filename', 'dir', 'directory', 'folder']);
/** Words that make an argument a glob, regex or text even when its description mentions files. */
const NOT_PATH_WORDS = new Set(['pattern', 'patterns', 'glob', 'globs', 'regex', 'content', 'contents', 'text', 'query', 'message', 'exclude']);
/** The working directory of a command, or the base of relative paths. */
const CWD_NAMES = new Set(['cwd', 'workdir', 'workingdirectory', 'workingdir']);
/** A shell command string. */
const COMMAND_NAMES = ['command', 'cmd', 'commandline', 'cmdline', 'shellcommand'];
/** Text for a command's stdin (code when the command is an interpreter); meaningful only next to a command. */
const STDIN_NAMES = ['stdin', 'stdintext', 'input', 'script', 'code'];
/** An array of words run without a shell. */
const ARGV_NAMES = ['argv', 'args', 'arguments'];
/** The names (as `Leaf.key`) of the arguments a command can come from: mayTakeCommands looks for them. */
const COMMAND_ARGUMENT_KEYS = new Set([...COMMAND_NAMES, 'interpreter', ...ARGV_NAMES]);
/** Arguments that change what any command does (interpreter choice, environment): we cannot analyse those. */
const COMMAND_CHANGERS = new Set(['env', 'environment', 'envvars', 'shell', 'executable']);
const URL_NAMES = new Set(['url', 'urls', 'uri', 'uris', 'href', 'endpoint', 'link']);
const URL_FORMATS = new Set(['uri', 'uri-reference', 'iri', 'iri-reference', 'url']);
/** Descriptions that say "this is a path" (step 4 of docs/design.md#classifying-an-unknown-tool-in-order); `file` alone is too loose ("file content"). */
const PATH_DESCRIPTION = /\b(paths?|director(y|ies)|folders?|file ?(names?|paths?))\b/i;

interface Leaf {
  /** Dotted pointer, `[]` for array items. */
  pointer: string;
  /** The property name as written. */
  name: string;
  /** Lower-case, `_` and `-` removed. */
  key: string;
  isArray: boolean;
  isString: boolean;
  description: string;
  format: string;
  /** True for a property of the top-level arguments object. */
  topLevel: boolean;
}


function typesOf(schema: Record<string, unknown>): string[] {
  const t = schema['type'];
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return [];
}

/** Schema nodes one tool's walk visits at most: a `$ref` cycle with several branches (`left`, `right`) doubles them at each level. */
const MAX_SCHEMA_VISITS = 2_000;

/**
 * Every property at any depth (objects, arrays, anyOf/oneOf/allOf branches, local `$ref`s into
 * `$defs`/`definitions`, as FastMCP writes every model argument), as leaves with pointers. Depth
 * and a visit count bound the walk (a `$ref` may point back up); an argument it does not reach is
 * still looked at for paths by the call's deny-only candidates (subjects/inspect.ts).
 */
function collectLeaves(schema: unknown): Leaf[] {
  const out = new Map<string, Leaf>();
  let visits = 0;
  /** The schema a local `$ref` (`#/$defs/Name`, JSON pointer) names, or null. */
  const target = (s: Record<string, unknown>): Record<string, unknown> | null => {
    const ref = s['$ref'];
    if (typeof ref !== 'string' || !ref.startsWith('#')) return null;
    let node: unknown = schema;
    for (const part of ref.slice(1).split('/').filter((p) => p !== '')) {
      node = isPlainObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    return isPlainObject(node) ? node : null;
  };
  const visitObject = (s: Record<string, unknown>, prefix: string, depth: number): void => {
    if (depth > 10 || ++visits > MAX_SCHEMA_VISITS) return;
    const referenced = target(s);
    if (referenced) visitObject(referenced, prefix, depth + 1);
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const branches = s[key];
      if (Array.isArray(branches)) for (const b of branches) if (isPlainObject(b)) visitObject(b, prefix, depth + 1);
    }
    const props = s['properties'];
    if (!isPlainObject(props)) return;
    for (const [name, sub] of Object.entries(props)) {
      if (!isPlainObject(sub)) continue;
      visitValue(sub, prefix === '' ? name : `${prefix}.${name}`, name, prefix === '', false, depth + 1);
    }
  };
  const visitValue = (s: Record<string, unknown>, pointer: string, name: string, topLevel: boolean, inArray: boolean, depth: number): void => {
    if (depth > 10 || ++visits > MAX_SCHEMA_VISITS) return;
    const referenced = target(s);
    if (referenced) visitValue({ ...referenced, ...(typeof s['description'] === 'string' ? { description: s['description'] } : {}) }, pointer, name, topLevel, inArray, depth + 1);
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const branches = s[key];
      if (Array.isArray(branches)) for (const b of branches) if (isPlainObject(b)) visitValue(b, pointer, name, topLevel, inArray, depth + 1);
    }
    const types = typesOf(s);
    const items = s['items'];
    if (types.includes('array') || isPlainObject(items)) {
      if (isPlainObject(items)) visitValue(items, `${pointer}[]`, name, topLevel, true, depth + 1);
      // The array itself is a leaf too, so `args: string[]` can be recognised as argv.
      addLeaf(s, pointer, name, topLevel, true, false);
    }
    if (types.includes('object') || isPlainObject(s['properties'])) visitObject(s, pointer, depth + 1);
    // No type at all: could be a string; assume the worst.
    const untyped = types.length === 0 && !isPlainObject(items) && !isPlainObject(s['properties']) && !Array.isArray(s['anyOf']) && !Array.isArray(s['oneOf']) && referenced === null;
    if (types.includes('string') || untyped) addLeaf(s, pointer, name, topLevel, inArray, true);
  };
  const addLeaf = (s: Record<string, unknown>, pointer: string, name: string, topLevel: boolean, isArray: boolean, isString: boolean): void => {
    const id = `${pointer}|${isArray ? 'a' : 's'}`;
    if (out.has(id)) return;
    out.set(id, {
      pointer,
      name,
      key: name.toLowerCase().replace(/[_-]/g, ''),
      isArray,
      isString,
      description: typeof s['description'] === 'string' ? s['description'] : '',
      format: typeof s['format'] === 'string' ? s['format'].toLowerCase() : '',
      topLevel,
    });
  };
  if (isPlainObject(schema)) visitObject(schema, '', 0);
  return [...out.values()];
}

/** Normalised names of the top-level arguments, whatever their type (an `env` object has no leaf). */
function topLevelKeys(schema: unknown): string[] {
  if (!isPlainObject(schema) || !isPlainObject(schema['properties'])) return [];
  return Object.keys(schema['properties']).map((name) => name.toLowerCase().replace(/[_-]/g, ''));
}

/** `read_text_file` / `get-env` / `listDirectoryWithSizes` → lower-case words. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

function isPathLeaf(leaf: Leaf): boolean {
  if (!leaf.isString) return false;
  if (URL_NAMES.has(leaf.key) || URL_FORMATS.has(leaf.format)) return false;
  const words = wordsOf(leaf.name);
  if (words.some((w) => NOT_PATH_WORDS.has(w))) return false;
  if (PATH_NAMES.has(leaf.key)) return true;
  const last = words[words.length - 1];
  if (last !== undefined && PATH_LAST_WORDS.has(last)) return true;
  return PATH_DESCRIPTION.test(leaf.description);
}

function maxKind(a: Kind, b: Kind): Kind {
  return KIND_RANK[b] > KIND_RANK[a] ? b : a;
}

/** Heuristics, then annotations (steps 2–7 of docs/design.md#classifying-an-unknown-tool-in-order). */
function classifyUnknown(
  tool: { name: string; inputSchema?: unknown; annotations?: Annotations },
  identity: ServerIdentity,
  profile: Profile | undefined,
): ToolClass {
  const leaves = collectLeaves(tool.inputSchema);
  const top = (keys: string[], want: 'string' | 'array'): Leaf | undefined =>
    keys
      .map((k) => leaves.find((l) => l.topLevel && l.key === k && (want === 'array' ? l.isArray && !l.pointer.endsWith('[]') : l.isString && !l.isArray)))
      .find((l) => l !== undefined);

  // Signal 1: verbs in the tool name.
  let kind: Kind | null = null;
  for (const word of wordsOf(tool.name)) {
    const k: Kind | null = COMMAND_VERBS.has(word) ? 'command' : WRITE_VERBS.has(word) ? 'write' : READ_VERBS.has(word) ? 'read' : null;
    if (k) kind = kind === null ? k : maxKind(kind, k);
  }

  // Signal 2: argument names.
  const commandLeaf = top(COMMAND_NAMES, 'string');
  const interpreterLeaf = top(['interpreter'], 'string');
  const argvLeaf = top(ARGV_NAMES, 'array');
  const stdinLeaf = top(STDIN_NAMES, 'string');
  const cwdLeaf = top([...CWD_NAMES], 'string');
  const hasUrl = leaves.some((l) => l.isString && (URL_NAMES.has(l.key) || URL_FORMATS.has(l.format)));
  if (commandLeaf || interpreterLeaf) kind = kind === null ? 'command' : maxKind(kind, 'command');
  // Security: a URL argument means network access or a resource we cannot canonicalise.
  if (hasUrl) kind = 'all';

  let command: ToolClass['command'] = null;
  let stdin: string | null = null;
  if (kind === 'command') {
    if (commandLeaf) command = { arg: commandLeaf.pointer, mode: 'shell' };
    else if (interpreterLeaf) command = { arg: interpreterLeaf.pointer, mode: 'shell' };
    else if (argvLeaf) command = { arg: argvLeaf.pointer, mode: 'argv' };
    if (command && command.mode === 'shell' && stdinLeaf) stdin = stdinLeaf.pointer;
    const changers = topLevelKeys(tool.inputSchema).some((key) => COMMAND_CHANGERS.has(key));
    // Security: `{command: 'find', args: ['-delete']}` analysed as `find` alone would pass the safe
    // list; a command we cannot see (no argument found), a program plus a separate argument list,
    // or an environment / shell choice cannot be described by one command string: ask.
    if (command === null || (commandLeaf && argvLeaf) || changers) {
      kind = 'all';
      command = null;
      stdin = null;
    }
  }

  const cwd = kind === 'command' && cwdLeaf ? cwdLeaf.pointer : null;
  const pathLeaves = leaves.filter(
    (l) => isPathLeaf(l) && l.pointer !== command?.arg && l.pointer !== stdin && !(l.isArray && !l.pointer.endsWith('[]')),
  );
  // A path of a read tool is read; anything else could write it, so assume write, except the
  // command's working directory, which the command runs in rather than changes.
  const paths: PathArg[] = pathLeaves.map((l) => ({
    arg: l.pointer,
    access: kind === 'read' || l.pointer === cwd ? 'read' : 'write',
  }));

  let source = kind === null ? 'unknown' : 'heuristic';
  const ann = tool.annotations ?? {};
  if (kind === null) {
    // Annotations are untrusted (docs/design.md), so readOnlyHint may only settle a tool nothing else
    // describes, with no path or command arguments a lie could hide behind, and no hint saying
    // otherwise. Spec defaults (destructive, open-world) apply only when a hint is explicitly set.
    if (ann.readOnlyHint === true && ann.destructiveHint !== true && ann.openWorldHint !== true && paths.length === 0) {
      kind = 'read';
      source = 'annotations';
    } else {
      kind = 'all';
    }
  }
  // Annotations may only raise: explicit readOnlyHint:false or destructiveHint:true ⇒ at least
  // write; openWorldHint:true ⇒ all (network has no narrower kind), except for a command, which
  // can reach the network anyway and whose command string is analysed as it stands.
  let raised: Kind = kind;
  if (ann.readOnlyHint === false || ann.destructiveHint === true) raised = maxKind(raised, 'write');
  if (ann.openWorldHint === true && kind !== 'command') raised = maxKind(raised, 'all');
  if (raised !== kind) {
    kind = raised;
    source = 'annotations';
    for (const p of paths) if (p.arg !== cwd) p.access = 'write';
  }

  const cls: ToolClass = {
    kind,
    source,
    paths,
    command: kind === 'command' ? command : null,
    cwd: kind === 'command' ? cwd : null,
    stdin: kind === 'command' ? stdin : null,
    base: heuristicBase(profile, identity, cwdLeaf ?? top(['repopath'], 'string')),
  };
  if (profile && takesPlainPaths(profile.base)) cls.plainFileStrings = true;
  return cls;
}

/** The server's own base if it is a known profile; else a cwd-like argument; else the server's cwd. */
function heuristicBase(profile: Profile | undefined, identity: ServerIdentity, cwdLeaf: Leaf | undefined): ToolClass['base'] {
  if (profile) return baseFor(profile.base, identity);
  if (cwdLeaf) return { type: 'arg', arg: cwdLeaf.pointer, fallback: identity.cwd };
  return { type: 'dir', dir: identity.cwd };
}
