/**
 * Built-in tool profiles for well-known MCP servers (docs/design.md#classifying-an-unknown-tool-in-order). A profile is the
 * exact kind and argument layout of each tool, checked against the servers' published schemas
 * (test/fixtures/tool-lists/*.json for the ones installed here). A profile wins over heuristics
 * and annotations; a tool the profile does not list falls through to heuristics.
 *
 * Example: `@modelcontextprotocol/server-filesystem` `move_file {source, destination}` is
 *   { kind: 'write', paths: [source: write, destination: write], base: 'roots' }
 * (the source is written too: moving deletes it), and `edit_file` with `dryRun: true` is a read.
 */
import type { Kind, TreeRead } from '../policy/types.js';
import { isPlainObject } from '../values.js';
import { commandShell, DC_INERT_KEYS, type ShellReading } from './desktop-commander.js';
import type { PathArg } from './kind.js';
import type { ServerIdentity } from './server-identity.js';
import { head } from '../code-points.js';

/** The profiles mcp-latch knows, by the name `mcp-latch tools` shows (`profile:<name>`). */
export type ProfileName = 'filesystem' | 'desktop-commander' | 'commands' | 'git' | 'memory';

/**
 * How a profile's server resolves a relative path: against its allowed roots (server-filesystem),
 * its own process cwd, or another argument (falling back to the server's cwd).
 */
export type ProfileBase = 'roots' | 'server-cwd' | { arg: string };

/** A command argument and how it runs: `shell` = one string given to `/bin/sh -c`, `argv` = words without a shell. */
export interface CommandArg {
  arg: string;
  mode: 'shell' | 'argv';
}

/** One tool of a profile. Absent fields mean "none". */
export interface ProfileTool {
  kind: Kind;
  paths?: PathArg[];
  command?: CommandArg;
  cwd?: string;
  stdin?: string;
  refine?: (args: Record<string, unknown>) => Kind;
  selectCommand?: (args: Record<string, unknown>) => CommandArg | null;
  /** The command line the server runs for the call (kind.ts ToolClass.runs), in the `cwd` argument's directory. */
  runs?: (args: Record<string, unknown>) => string[] | null;
  /** Overrides the profile's base for this tool. */
  base?: ProfileBase;
  /** Per call: the shell the command runs in (kind.ts ToolClass.shell). */
  shell?: (args: Record<string, unknown>, server: ServerIdentity) => ShellReading;
  /** Per call: why the call asks in every mode, whatever the rules (kind.ts ToolClass.asks); null when it need not. */
  asks?: (args: Record<string, unknown>) => string | null;
  /** The process the call starts, types into, reads or ends, by the pid its answer or `pid` argument names (kind.ts ToolClass.process). */
  process?: ProcessUse;
}

/** What a tool does with one of the server's processes (gateway/processes.ts). */
export type ProcessUse = 'starts' | 'input' | 'reads' | 'ends';

/** A server profile: how to recognise the server from its command line, and its tools. */
export interface Profile {
  name: ProfileName;
  /**
   * npm package names, bin names and Python module names. A command-line word matches when it is
   * one of these (version suffix removed), ends in `/<name>` (a bin path), or contains
   * `/<name>/` (a file inside the installed package).
   */
  packages: string[];
  base: ProfileBase;
  tools: Record<string, ProfileTool>;
  /**
   * Prompts whose `prompts/get` does what a tool does (mcp-server-commands' `run_command` prompt runs
   * its `command`): decided as that tool is (gateway/request-arguments.ts, docs/rules.md "Prompts").
   */
  prompts?: Record<string, ProfileTool>;
}

const read = (arg: string): PathArg => ({ arg, access: 'read' });
const write = (arg: string): PathArg => ({ arg, access: 'write' });
/** A rename (fs.rename): both ends are written, and what is below the source moves with it (kind.ts PathArg.moves). */
/** A listing of every name below `path` (kind.ts PathArg.names). */
const NAMES: PathArg = { arg: 'path', access: 'read', names: true };
const MOVE: PathArg[] = [
  { arg: 'source', access: 'write', moves: 'source' },
  { arg: 'destination', access: 'write', moves: 'destination' },
];

// ---------------------------------------------------------------------------------------------
// @modelcontextprotocol/server-filesystem (2026.8.31, verified by tools/list)
// ---------------------------------------------------------------------------------------------

const FILESYSTEM: Profile = {
  name: 'filesystem',
  packages: ['@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem'],
  base: 'roots',
  tools: {
    read_file: { kind: 'read', paths: [read('path')] }, // deprecated alias of read_text_file, still listed
    read_text_file: { kind: 'read', paths: [read('path')] },
    read_media_file: { kind: 'read', paths: [read('path')] },
    read_multiple_files: { kind: 'read', paths: [read('paths[]')] },
    write_file: { kind: 'write', paths: [write('path')] },
    edit_file: {
      kind: 'write',
      paths: [write('path')],
      // dryRun returns the diff without writing; only a real boolean counts, "true" the string writes.
      refine: (args) => (args['dryRun'] === true ? 'read' : 'write'),
    },
    create_directory: { kind: 'write', paths: [write('path')] },
    list_directory: { kind: 'read', paths: [read('path')] },
    list_directory_with_sizes: { kind: 'read', paths: [read('path')] },
    directory_tree: { kind: 'read', paths: [NAMES] }, // excludePatterns are globs, not paths
    // Security: the source is removed by a move, so both ends are writes; a directory takes what is below it along.
    move_file: { kind: 'write', paths: MOVE },
    search_files: { kind: 'read', paths: [NAMES] }, // pattern / excludePatterns are globs
    get_file_info: { kind: 'read', paths: [read('path')] },
    list_allowed_directories: { kind: 'read' },
  },
};

// ---------------------------------------------------------------------------------------------
// @wonderwhy-er/desktop-commander (0.2.x server.ts + tools/schemas.ts; legacy ≤0.1.x names kept)
// ---------------------------------------------------------------------------------------------

/**
 * set_config_value rewrites the server's config (config.json): defaultShell is the shell every
 * start_process runs in, allowedDirectories and blockedCommands its own sandbox. Any key but those
 * that change nothing a command meets asks in every mode (a direct write of the file meets the
 * built-in rule of policy.ts DESKTOP_COMMANDER_CONFIG).
 */
function configAsks(args: Record<string, unknown>): string | null {
  const key = args['key'];
  if (typeof key === 'string' && DC_INERT_KEYS.has(key)) return null;
  const what = key === 'defaultShell' ? 'the shell every later start_process runs in' : key === 'allowedDirectories' || key === 'blockedCommands' ? "the server's own limits on paths and commands" : 'a setting mcp-latch does not know to be harmless';
  return `it sets Desktop Commander's ${typeof key === 'string' ? head(key, 60) : head(JSON.stringify(key) ?? 'undefined', 60)}, ${what}`;
}

/**
 * md-to-pdf options that only shape the page (Puppeteer's PDFOptions): `pdf_options` with these
 * keys. Any other option is given to md-to-pdf (DC 0.2.52 tools/pdf/markdown.js), which launches
 * Chromium with `launch_options` (`--renderer-cmd-prefix=CMD` ran `id`; round 14 review T0), writes
 * `dest`/`pdf_options.path` and reads `basedir`, `stylesheet`, `script`: files and programs no
 * argument names, so the call is decided as kind `all` (docs/threat-model.md#desktop-commanders-write_pdf).
 */
const PDF_PAGE_OPTIONS: Record<string, (value: unknown) => boolean> = {
  format: (value) => typeof value === 'string',
  landscape: (value) => typeof value === 'boolean',
  printBackground: (value) => typeof value === 'boolean',
  scale: (value) => typeof value === 'number',
  margin: (value) => isPlainObject(value) && Object.entries(value).every(([side, size]) => ['top', 'right', 'bottom', 'left'].includes(side) && (typeof size === 'string' || typeof size === 'number')),
};

function pdfRefine(args: Record<string, unknown>): Kind {
  // The server parses a string starting with `[` as its operations, whose sourcePdfPath no pointer reaches.
  if (typeof args['content'] === 'string' && args['content'].trim().startsWith('[')) return 'all';
  const options = args['options'];
  if (options === undefined || options === null) return 'write';
  if (!isPlainObject(options)) return 'all';
  for (const [key, value] of Object.entries(options)) {
    if (key !== 'pdf_options' || !isPlainObject(value)) return 'all';
    for (const [name, setting] of Object.entries(value)) if (!PDF_PAGE_OPTIONS[name]?.(setting)) return 'all';
  }
  return 'write';
}

/** ripgrep over a tree: contents, links not followed (filePattern may only narrow it, as rg -g: not modelled). */
const CONTENT_SEARCH: TreeRead = { content: true, follows: false };

/** A search of file names (`files`, the default searchType): every name below; a content search is CONTENT_SEARCH's. */
const filesSearch = (args: Record<string, unknown>): boolean => args['searchType'] === 'files' || args['searchType'] === undefined;

/**
 * list_directory reads the directories fewer than `depth` levels below its path (filesystem.js
 * listDirectory: recurse while currentDepth > 1; default 2); a depth not a number is refused by
 * the server, read here as every level.
 */
function listingDepth(args: Record<string, unknown>): number {
  const depth = args['depth'];
  if (depth === undefined) return 2;
  return typeof depth === 'number' ? depth : Infinity;
}

const DESKTOP_COMMANDER: Profile = {
  name: 'desktop-commander',
  packages: ['@wonderwhy-er/desktop-commander', 'desktop-commander'],
  // It resolves relative paths against its own process.cwd() (as server-filesystem does).
  base: 'server-cwd',
  tools: {
    // Security: the command runs in the `shell` argument or the server's defaultShell, which may not be
    // bash (zsh on macOS, PowerShell on Windows; round 14 review T6): desktop-commander.ts.
    start_process: { kind: 'command', command: { arg: 'command', mode: 'shell' }, shell: commandShell, process: 'starts' },
    // Text typed into a running process: read as a command only when the process is a bash or sh this
    // session started; anything else (a REPL, xargs, ssh) or a pid it did not start asks (round 14 review T7).
    interact_with_process: { kind: 'command', command: { arg: 'input', mode: 'shell' }, process: 'input' },
    // Another team member's process is not this member's to read, type into or end (round 14 review T12).
    read_process_output: { kind: 'read', process: 'reads' },
    force_terminate: { kind: 'write', process: 'ends' },
    kill_process: { kind: 'write' },
    list_sessions: { kind: 'read' },
    list_processes: { kind: 'read' },
    read_file: {
      kind: 'read',
      paths: [read('path')],
      // Security: with isUrl the server fetches `path` over the network: not a file read at all.
      refine: (args) => (args['isUrl'] === false || args['isUrl'] === undefined ? 'read' : 'all'),
    },
    read_multiple_files: { kind: 'read', paths: [read('paths[]')] },
    write_file: { kind: 'write', paths: [write('path')] },
    write_pdf: { kind: 'write', paths: [write('path'), write('outputPath'), read('content[].sourcePdfPath')], refine: pdfRefine },
    create_directory: { kind: 'write', paths: [write('path')] },
    // Security: the names below its path, to `depth` levels, as directory_tree's (round 14 review T11).
    list_directory: { kind: 'read', paths: [{ arg: 'path', access: 'read', names: listingDepth }] },
    move_file: { kind: 'write', paths: MOVE },
    // Security: a content search prints lines of every file below `path` (ripgrep, search-manager.js),
    // as the shell's `grep -r` does (round 14 review T5); `files` (the default) lists the names of
    // every file below, as search_files does (T11). pattern / filePattern are regexes and globs.
    start_search: { kind: 'read', paths: [{ arg: 'path', access: 'read', tree: (args) => (filesSearch(args) ? null : CONTENT_SEARCH), names: (args) => (filesSearch(args) ? Infinity : 0) }] },
    get_more_search_results: { kind: 'read' },
    // Only ends the server's own background search; nothing on disk changes.
    stop_search: { kind: 'read' },
    list_searches: { kind: 'read' },
    get_file_info: { kind: 'read', paths: [read('path')] },
    edit_block: {
      kind: 'write',
      paths: [write('file_path')],
      // Legacy edit_block took `blockContent` with the file path inside it; without file_path we cannot see the target.
      refine: (args) => (typeof args['file_path'] === 'string' ? 'write' : 'all'),
    },
    get_config: { kind: 'read' },
    // Security: rewrites the server's own sandbox (allowedDirectories, blockedCommands) and the shell
    // start_process runs in (defaultShell: round 14 review T6), through its config file.
    set_config_value: { kind: 'all', asks: configAsks },
    // Security: the server's history of every call it ran, arguments and output, kept on disk across
    // sessions and shared by a team gateway's members: content no path rule describes (round 14 review T12).
    get_usage_stats: { kind: 'all' },
    get_recent_tool_calls: { kind: 'all' },
    get_prompts: { kind: 'read' },
    give_feedback_to_desktop_commander: { kind: 'read' },
    // Legacy (≤0.1.x) names.
    execute_command: { kind: 'command', command: { arg: 'command', mode: 'shell' }, shell: commandShell, process: 'starts' },
    read_output: { kind: 'read', process: 'reads' },
    list_allowed_directories: { kind: 'read' },
    search_files: { kind: 'read', paths: [NAMES] },
    search_code: { kind: 'read', paths: [{ arg: 'path', access: 'read', tree: () => CONTENT_SEARCH }] },
    block_command: { kind: 'all' },
    unblock_command: { kind: 'all' },
  },
};

// ---------------------------------------------------------------------------------------------
// mcp-server-commands (npm 0.5.0 run_command verified by tools/list; run_script older, run_process newer)
// ---------------------------------------------------------------------------------------------

const COMMANDS: Profile = {
  name: 'commands',
  packages: ['mcp-server-commands'],
  base: { arg: 'workdir' },
  tools: {
    // `command` goes to child_process.exec (`/bin/sh -c`); `stdin` is code when the command is an interpreter.
    run_command: {
      kind: 'command',
      command: { arg: 'command', mode: 'shell' },
      cwd: 'workdir',
      stdin: 'stdin',
      paths: [read('workdir')],
    },
    // `interpreter` is exec'ed through the shell too, with the script on stdin.
    run_script: {
      kind: 'command',
      command: { arg: 'interpreter', mode: 'shell' },
      cwd: 'workdir',
      stdin: 'stdinText',
      paths: [read('workdir')],
    },
    run_process: {
      kind: 'command',
      command: { arg: 'command_line', mode: 'shell' },
      selectCommand: (args) =>
        args['mode'] === 'executable' ? { arg: 'argv', mode: 'argv' } : { arg: 'command_line', mode: 'shell' },
      // The server refuses other modes; anything else is not something we can describe.
      refine: (args) => (args['mode'] === 'shell' || args['mode'] === 'executable' ? 'command' : 'all'),
      cwd: 'cwd',
      stdin: 'input',
      paths: [read('cwd')],
      base: { arg: 'cwd' },
    },
  },
  prompts: {
    // prompts/get runs `command` with child_process.exec in the server's own directory and returns its output (0.5.0 build/index.js).
    run_command: { kind: 'command', command: { arg: 'command', mode: 'shell' } },
  },
};

// ---------------------------------------------------------------------------------------------
// mcp-server-git (modelcontextprotocol/servers src/git/src/mcp_server_git/server.py)
// ---------------------------------------------------------------------------------------------

/** Arguments the server passes to git as refs; a leading `-` turns them into options (`--output=…`). */
const GIT_REF_ARGS = ['target', 'revision', 'branch_name', 'base_branch', 'contains', 'not_contains'];

function gitRefine(kind: Kind): (args: Record<string, unknown>) => Kind {
  // Security: option injection through a ref (CVE-2026-27735 class) can write files from a read tool.
  return (args) => (GIT_REF_ARGS.some((name) => typeof args[name] === 'string' && (args[name] as string).startsWith('-')) ? 'all' : kind);
}

function gitTool(kind: Kind, runs?: (args: Record<string, unknown>) => string[] | null): ProfileTool {
  // repo_path is the repository the tool acts on; itself relative to the server's cwd.
  return { kind, paths: [{ arg: 'repo_path', access: kind === 'read' ? 'read' : 'write' }], cwd: 'repo_path', refine: gitRefine(kind), ...(runs ? { runs } : {}) };
}

/** `git WORDS…`, with the named string arguments after them; null when one is not a string. */
function git(words: string[], ...args: string[]): (args: Record<string, unknown>) => string[] | null {
  return (given) => {
    const values = args.map((name) => given[name]);
    return values.every((value): value is string => typeof value === 'string') ? ['git', ...words, ...values] : null;
  };
}

/** git_add: `git add -- FILE…` (server.py runs `git add .` for `["."]`, the same). */
function gitAdd(args: Record<string, unknown>): string[] | null {
  const files = args['files'];
  return Array.isArray(files) && files.every((file) => typeof file === 'string') ? ['git', 'add', '--', ...files] : null;
}

const GIT: Profile = {
  name: 'git',
  packages: ['mcp-server-git', 'mcp_server_git'],
  base: { arg: 'repo_path' },
  tools: {
    git_status: gitTool('read'),
    // Security: what these print is what the shell's `git diff`/`git show` print (round 14 review T4,
    // docs/threat-model.md "What git prints"): server.py runs exactly these (git_show: the commit's patch).
    git_diff_unstaged: gitTool('read', git(['diff'])),
    git_diff_staged: gitTool('read', git(['diff', '--cached'])),
    git_diff: gitTool('read', git(['diff'], 'target')),
    git_log: gitTool('read'),
    git_show: gitTool('read', git(['show'], 'revision')),
    git_branch: gitTool('read'),
    git_commit: gitTool('write'),
    git_commit_signed: gitTool('write'),
    // The files are read into the index, a directory's unignored files among them (`git add .`);
    // what changes is the repository (repo_path, write).
    git_add: gitTool('write', gitAdd),
    // index.reset(): the index only, the working tree stays.
    git_reset: gitTool('write'),
    git_create_branch: gitTool('write'),
    // Security: a branch switch rewrites the working tree, client settings and code files among it,
    // and runs the post-checkout hook: as the shell's `git checkout`, it needs a rule of its own
    // (mcp__git__git_checkout) outside bypassPermissions, and deny and ask rules that could match
    // below the tree ask in every mode (round 14 review T9, docs/threat-model.md#git-rewrites-tracked-files).
    git_checkout: gitTool('all', git(['checkout'], 'branch_name')),
    git_init: gitTool('write'),
  },
};

// ---------------------------------------------------------------------------------------------
// @modelcontextprotocol/server-memory (2026.8.31): a knowledge graph in one file named by env, no path args
// ---------------------------------------------------------------------------------------------

const MEMORY: Profile = {
  name: 'memory',
  packages: ['@modelcontextprotocol/server-memory', 'mcp-server-memory'],
  base: 'server-cwd',
  tools: {
    create_entities: { kind: 'write' },
    create_relations: { kind: 'write' },
    add_observations: { kind: 'write' },
    delete_entities: { kind: 'write' },
    delete_observations: { kind: 'write' },
    delete_relations: { kind: 'write' },
    read_graph: { kind: 'read' },
    search_nodes: { kind: 'read' },
    open_nodes: { kind: 'read' },
  },
};

/** Every built-in profile, in the order command lines are matched against them. */
export const PROFILES: readonly Profile[] = [FILESYSTEM, DESKTOP_COMMANDER, COMMANDS, GIT, MEMORY];

/** The profile with this name, or undefined. */
export function profileByName(name: string): Profile | undefined {
  return PROFILES.find((p) => p.name === name);
}
