import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Kind } from '../../src/policy/types.js';
import { classifyPrompt, classifyTool, mayTakeCommands, type ToolClass } from '../../src/subjects/kind.js';
import { identifyServer, type ServerIdentity } from '../../src/subjects/server-identity.js';
import { PROFILES } from '../../src/subjects/profiles.js';

interface FixtureTool {
  name: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
}

const here = path.dirname(fileURLToPath(import.meta.url));
function toolList(name: string): FixtureTool[] {
  const file = path.join(here, '..', 'fixtures', 'tool-lists', `${name}.json`);
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { tools: FixtureTool[] }).tools;
}

const GW = '/gw';
const FS_ID: ServerIdentity = { profile: 'filesystem', roots: ['/home/me/code'], cwd: GW };
const NO_PROFILE: ServerIdentity = { profile: null, roots: [], cwd: GW };

function classify(identity: ServerIdentity, tool: FixtureTool, override?: Parameters<typeof classifyTool>[0]['override']): ToolClass {
  return classifyTool(override ? { identity, tool, override } : { identity, tool });
}

function schema(properties: Record<string, unknown>): unknown {
  return { type: 'object', properties };
}
const str = (description?: string): Record<string, unknown> => (description ? { type: 'string', description } : { type: 'string' });

// ---------------------------------------------------------------------------------------------
// Real tool lists (test/fixtures/tool-lists/*.json, captured from the installed servers)
// ---------------------------------------------------------------------------------------------

describe('real tool list: @modelcontextprotocol/server-filesystem 2026.8.31', () => {
  const tools = toolList('filesystem');
  const expected: Record<string, { kind: Kind; paths: ToolClass['paths'] }> = {
    read_file: { kind: 'read', paths: [{ arg: 'path', access: 'read' }] },
    read_text_file: { kind: 'read', paths: [{ arg: 'path', access: 'read' }] },
    read_media_file: { kind: 'read', paths: [{ arg: 'path', access: 'read' }] },
    read_multiple_files: { kind: 'read', paths: [{ arg: 'paths[]', access: 'read' }] },
    write_file: { kind: 'write', paths: [{ arg: 'path', access: 'write' }] },
    edit_file: { kind: 'write', paths: [{ arg: 'path', access: 'write' }] },
    create_directory: { kind: 'write', paths: [{ arg: 'path', access: 'write' }] },
    list_directory: { kind: 'read', paths: [{ arg: 'path', access: 'read' }] },
    list_directory_with_sizes: { kind: 'read', paths: [{ arg: 'path', access: 'read' }] },
    directory_tree: { kind: 'read', paths: [{ arg: 'path', access: 'read' }] },
    move_file: { kind: 'write', paths: [{ arg: 'source', access: 'write' }, { arg: 'destination', access: 'write' }] },
    search_files: { kind: 'read', paths: [{ arg: 'path', access: 'read' }] },
    get_file_info: { kind: 'read', paths: [{ arg: 'path', access: 'read' }] },
    list_allowed_directories: { kind: 'read', paths: [] },
  };

  it('lists exactly the tools the profile describes', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(tools.map((t) => [t.name, t] as const))('classifies %s by the filesystem profile', (name, tool) => {
    const c = classify(FS_ID, tool);
    expect(c).toMatchObject({ kind: expected[name]?.kind, source: 'profile:filesystem', paths: expected[name]?.paths, command: null, cwd: null });
    expect(c.base).toEqual({ type: 'roots', roots: ['/home/me/code'] });
  });

  it.each(tools.map((t) => [t.name, t] as const))('classifies %s the same by heuristics alone (unknown server)', (name, tool) => {
    const c = classify(NO_PROFILE, tool);
    expect(c).toMatchObject({ kind: expected[name]?.kind, source: 'heuristic', paths: expected[name]?.paths, command: null });
    expect(c.base).toEqual({ type: 'dir', dir: GW });
  });

  it('treats edit_file with dryRun: true as a read, and anything else as a write', () => {
    const edit = tools.find((t) => t.name === 'edit_file') as FixtureTool;
    const refine = classify(FS_ID, edit).refine;
    expect(refine?.({ path: 'a', edits: [], dryRun: true })).toBe('read');
    expect(refine?.({ path: 'a', edits: [], dryRun: false })).toBe('write');
    expect(refine?.({ path: 'a', edits: [] })).toBe('write');
    // Only a real boolean counts: the server's zod schema would refuse the string anyway.
    expect(refine?.({ path: 'a', edits: [], dryRun: 'true' })).toBe('write');
  });

  it('trusts the profile over annotations that claim otherwise', () => {
    const c = classify(FS_ID, { name: 'write_file', annotations: { readOnlyHint: true, destructiveHint: false } });
    expect(c).toMatchObject({ kind: 'write', source: 'profile:filesystem' });
  });
});

describe('real tool list: mcp-server-commands 0.5.0', () => {
  const tools = toolList('commands');
  const id: ServerIdentity = { profile: 'commands', roots: [], cwd: '/srv' };

  it('lists only run_command', () => {
    expect(tools.map((t) => t.name)).toEqual(['run_command']);
  });

  it('classifies run_command as a shell command with workdir and stdin', () => {
    expect(classify(id, tools[0] as FixtureTool)).toEqual({
      kind: 'command',
      source: 'profile:commands',
      paths: [{ arg: 'workdir', access: 'read' }],
      command: { arg: 'command', mode: 'shell' },
      cwd: 'workdir',
      stdin: 'stdin',
      base: { type: 'arg', arg: 'workdir', fallback: '/srv' },
    });
  });

  it('finds the same command, cwd and stdin by heuristics alone', () => {
    expect(classify(NO_PROFILE, tools[0] as FixtureTool)).toMatchObject({
      kind: 'command',
      source: 'heuristic',
      paths: [{ arg: 'workdir', access: 'read' }],
      command: { arg: 'command', mode: 'shell' },
      cwd: 'workdir',
      stdin: 'stdin',
      base: { type: 'arg', arg: 'workdir', fallback: GW },
    });
  });
});

describe('real tool list: @modelcontextprotocol/server-everything 2026.8.31 (no profile)', () => {
  const tools = toolList('everything');
  // Each row: kind, source, and why. The server annotates every tool, so this list exercises the
  // annotation tie-break on real data.
  const expected: Record<string, [Kind, string]> = {
    echo: ['read', 'annotations'], // no verb, no path or command args, readOnlyHint: true
    'get-annotated-message': ['read', 'heuristic'],
    'get-env': ['read', 'heuristic'],
    'get-resource-links': ['read', 'heuristic'],
    'get-resource-reference': ['read', 'heuristic'],
    'get-structured-content': ['read', 'heuristic'],
    'get-sum': ['read', 'heuristic'],
    'get-tiny-image': ['read', 'heuristic'],
    'gzip-file-as-resource': ['all', 'heuristic'], // `data` has format: uri (fetches a URL)
    'toggle-simulated-logging': ['write', 'heuristic'],
    'toggle-subscriber-updates': ['write', 'heuristic'],
    'trigger-long-running-operation': ['read', 'annotations'], // no verb, readOnlyHint: true
    'get-roots-list': ['read', 'heuristic'],
    'trigger-elicitation-request': ['all', 'unknown'], // no verb, readOnlyHint: false
    'trigger-url-elicitation': ['all', 'heuristic'], // `url` argument
    'trigger-sampling-request': ['all', 'unknown'],
    'simulate-research-query': ['write', 'annotations'], // "query" says read; readOnlyHint: false raises it
  };

  it('lists exactly the tools this table covers', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(tools.map((t) => [t.name, t] as const))('classifies %s', (name, tool) => {
    const [kind, source] = expected[name] as [Kind, string];
    const c = classify(NO_PROFILE, tool);
    expect({ kind: c.kind, source: c.source }).toEqual({ kind, source });
    expect(c.paths).toEqual([]);
    expect(c.command).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// Profiles without an installed server (tool names and schemas from their sources)
// ---------------------------------------------------------------------------------------------

describe('desktop-commander profile', () => {
  const id: ServerIdentity = { profile: 'desktop-commander', roots: [], cwd: '/home/me' };
  const kinds: Record<string, Kind> = {
    start_process: 'command',
    interact_with_process: 'command',
    read_process_output: 'read',
    force_terminate: 'write',
    kill_process: 'write',
    list_sessions: 'read',
    list_processes: 'read',
    read_file: 'read',
    read_multiple_files: 'read',
    write_file: 'write',
    write_pdf: 'write',
    create_directory: 'write',
    list_directory: 'read',
    move_file: 'write',
    start_search: 'read',
    get_more_search_results: 'read',
    stop_search: 'read',
    list_searches: 'read',
    get_file_info: 'read',
    edit_block: 'write',
    get_config: 'read',
    set_config_value: 'all',
    get_usage_stats: 'all', // other calls' outputs (round 14 T12)
    get_recent_tool_calls: 'all',
    get_prompts: 'read',
    give_feedback_to_desktop_commander: 'read',
    execute_command: 'command',
    read_output: 'read',
    list_allowed_directories: 'read',
    search_files: 'read',
    search_code: 'read',
    block_command: 'all',
    unblock_command: 'all',
  };

  it.each(Object.entries(kinds))('classifies %s as %s', (name, kind) => {
    const c = classify(id, { name });
    expect(c).toMatchObject({ kind, source: 'profile:desktop-commander' });
    expect(c.base).toEqual({ type: 'dir', dir: '/home/me' });
  });

  it('runs start_process command through the shell', () => {
    expect(classify(id, { name: 'start_process' }).command).toEqual({ arg: 'command', mode: 'shell' });
  });

  it("reads start_process as bash only in a bash or sh: its `shell` argument, else the config's defaultShell, else $SHELL (round 14 review T6)", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-home-'));
    const shellOf = (env: ServerIdentity['env'], args: Record<string, unknown> = { command: 'ls' }) => classify({ ...id, env }, { name: 'start_process' }).shell?.(args);
    const bash = { HOME: home, SHELL: '/bin/bash' };
    // A bash runs the text as `bash -c`: read as bash; sh and dash as a sh that may be dash.
    expect(shellOf(bash)).toEqual({ dialect: 'bash' });
    expect(shellOf(bash, { command: 'ls', shell: '/bin/sh' })).toEqual({ dialect: 'sh' });
    expect(shellOf(bash, { command: 'ls', shell: 'dash' })).toEqual({ dialect: 'sh' });
    expect(shellOf(bash, { command: 'ls', shell: '/usr/bin/rbash' })).toEqual({ dialect: 'bash' });
    // zsh and ksh add their own ways to run code (docs/threat-model.md#where-bash-evaluates-text).
    for (const shell of ['zsh', '/bin/ksh', 'python3', 'powershell.exe', '/tmp/evil/bash', './bash', 7]) expect(shellOf(bash, { command: 'ls', shell })?.problem, String(shell)).toMatch(/^Desktop Commander runs it in/);
    // No config file yet: the one it makes at its first start takes $SHELL.
    expect(shellOf({ HOME: home, SHELL: '/usr/bin/zsh' })?.problem).toContain('/usr/bin/zsh (its defaultShell, from $SHELL)');
    fs.mkdirSync(path.join(home, '.claude-server-commander'));
    const file = path.join(home, '.claude-server-commander', 'config.json');
    fs.writeFileSync(file, JSON.stringify({ defaultShell: '/bin/zsh' }));
    expect(shellOf(bash)?.problem).toContain(`/bin/zsh (its defaultShell in ${file})`);
    fs.writeFileSync(file, JSON.stringify({ defaultShell: '/usr/bin/bash' }));
    expect(shellOf({ HOME: home, SHELL: '/usr/bin/zsh' })).toEqual({ dialect: 'bash' });
    fs.writeFileSync(file, '{ not json');
    expect(shellOf(bash)?.problem).toContain('is not JSON');
    // An envFile or a `${env:…}` left unread: its HOME and SHELL are not known.
    expect(shellOf(null)?.problem).toContain('environment is not known');
    expect(identifyServer({ command: 'npx', args: ['@wonderwhy-er/desktop-commander'], envFile: '/x/.env' }, '/').env).toBeNull();
  });

  it("asks in every mode for set_config_value of a key that changes what runs (defaultShell, allowedDirectories, …), not for a line limit", () => {
    const asks = classify(id, { name: 'set_config_value' }).asks!;
    expect(asks({ key: 'defaultShell', value: '/bin/zsh' })).toContain('the shell every later start_process runs in');
    expect(asks({ key: 'allowedDirectories', value: [] })).toContain("the server's own limits");
    expect(asks({ key: 'somethingNew', value: 1 })).toContain('does not know to be harmless');
    expect(asks({ key: 'fileReadLineLimit', value: 5 })).toBeNull();
  });

  it('analyses interact_with_process input as a command', () => {
    expect(classify(id, { name: 'interact_with_process' }).command).toEqual({ arg: 'input', mode: 'shell' });
  });

  it('treats read_file with isUrl: true as all (network)', () => {
    const c = classify(id, { name: 'read_file', annotations: { readOnlyHint: true, openWorldHint: true } });
    expect(c.kind).toBe('read');
    expect(c.paths).toEqual([{ arg: 'path', access: 'read' }]);
    expect(c.refine?.({ path: 'https://x', isUrl: true })).toBe('all');
    expect(c.refine?.({ path: '/a', isUrl: false })).toBe('read');
    expect(c.refine?.({ path: '/a' })).toBe('read');
  });

  it('extracts write_pdf input and output paths, including nested sourcePdfPath', () => {
    expect(classify(id, { name: 'write_pdf' }).paths).toEqual([
      { arg: 'path', access: 'write' },
      { arg: 'outputPath', access: 'write' },
      { arg: 'content[].sourcePdfPath', access: 'read' },
    ]);
  });

  // Round 14 review T0: options.launch_options.args `--renderer-cmd-prefix=…` ran `id` as a "write inside the workspace".
  it('write_pdf: options beyond the page settings, or operations given as a JSON string, make it all', () => {
    const refine = classify(id, { name: 'write_pdf' }).refine!;
    const call = (extra: Record<string, unknown>) => refine({ path: '/w/out.pdf', content: '# hi', ...extra });
    expect(call({})).toBe('write');
    expect(call({ options: {} })).toBe('write');
    expect(call({ options: { pdf_options: { format: 'A4', landscape: true, printBackground: false, scale: 0.9, margin: { top: '1cm', left: 10 } } } })).toBe('write');
    for (const options of [
      { launch_options: { args: ['--no-sandbox', '--renderer-cmd-prefix=/usr/bin/python3 -cexec("import\\x20os")'] } },
      { pdf_options: { path: '/w/.bashrc' } },
      { pdf_options: { format: 'A4', headerTemplate: '<img src="file:///etc/passwd">' } },
      { pdf_options: { margin: { top: '1cm', extra: 'x' } } },
      { pdf_options: { format: 1 } },
      { dest: '/w/.bashrc' },
      { basedir: '/' },
      { stylesheet: ['/home/u/.ssh/id_rsa'] },
      { script: [{ path: '/tmp/x.js' }] },
      'launch',
    ]) {
      expect(call({ options }), JSON.stringify(options)).toBe('all');
    }
    expect(refine({ path: '/w/out.pdf', content: ' [{"type":"insert","sourcePdfPath":"/secret.pdf"}]' })).toBe('all');
    expect(refine({ path: '/w/out.pdf', content: [{ type: 'insert', sourcePdfPath: '/w/a.pdf' }] })).toBe('write');
  });

  it('treats legacy edit_block without file_path (path inside blockContent) as all', () => {
    const c = classify(id, { name: 'edit_block' });
    expect(c.paths).toEqual([{ arg: 'file_path', access: 'write' }]);
    expect(c.refine?.({ file_path: '/a', old_string: 'x', new_string: 'y' })).toBe('write');
    expect(c.refine?.({ blockContent: '/etc/passwd\n<<<<<<< SEARCH' })).toBe('all');
  });
});

describe('mcp-server-commands profile: older and newer tools', () => {
  const id: ServerIdentity = { profile: 'commands', roots: [], cwd: '/srv' };

  it('treats run_script as the interpreter command with the script on stdin', () => {
    expect(classify(id, { name: 'run_script' })).toMatchObject({
      kind: 'command',
      command: { arg: 'interpreter', mode: 'shell' },
      cwd: 'workdir',
      stdin: 'stdinText',
    });
  });

  it('picks command_line in shell mode and argv in executable mode for run_process', () => {
    const c = classify(id, { name: 'run_process' });
    expect(c).toMatchObject({ kind: 'command', cwd: 'cwd', stdin: 'input', base: { type: 'arg', arg: 'cwd', fallback: '/srv' } });
    expect(c.selectCommand?.({ mode: 'shell', command_line: 'ls' })).toEqual({ arg: 'command_line', mode: 'shell' });
    expect(c.selectCommand?.({ mode: 'executable', argv: ['ls'] })).toEqual({ arg: 'argv', mode: 'argv' });
    expect(c.refine?.({ mode: 'shell' })).toBe('command');
    expect(c.refine?.({ mode: 'executable' })).toBe('command');
    expect(c.refine?.({ mode: 'other' })).toBe('all');
  });
});

describe('git profile', () => {
  const id: ServerIdentity = { profile: 'git', roots: ['/repo'], cwd: '/srv' };
  const kinds: Record<string, Kind> = {
    git_status: 'read',
    git_diff_unstaged: 'read',
    git_diff_staged: 'read',
    git_diff: 'read',
    git_log: 'read',
    git_show: 'read',
    git_branch: 'read',
    git_commit: 'write',
    git_commit_signed: 'write',
    git_add: 'write',
    git_reset: 'write',
    git_create_branch: 'write',
    git_checkout: 'all', // rewrites the working tree and runs a hook: a rule of its own (round 14 T9)
    git_init: 'write',
  };

  it.each(Object.entries(kinds))('classifies %s as %s with repo_path as path and base', (name, kind) => {
    const c = classify(id, { name });
    expect(c).toMatchObject({ kind, source: 'profile:git', cwd: 'repo_path', command: null });
    expect(c.paths[0]).toEqual({ arg: 'repo_path', access: kind === 'read' ? 'read' : 'write' });
    expect(c.base).toEqual({ type: 'arg', arg: 'repo_path', fallback: '/srv' });
  });

  it('reads git_add files as `git add -- FILE…` in repo_path (round 14 T4: a directory is walked)', () => {
    const c = classify(id, { name: 'git_add' });
    expect(c.paths).toEqual([{ arg: 'repo_path', access: 'write' }]);
    expect(c.runs?.({ repo_path: '/repo', files: ['.', '-x'] })).toEqual(['git', 'add', '--', '.', '-x']);
  });

  it('treats a ref starting with - as all (option injection: target="--output=/tmp/x")', () => {
    const c = classify(id, { name: 'git_diff' });
    expect(c.refine?.({ repo_path: '/repo', target: 'main' })).toBe('read');
    expect(c.refine?.({ repo_path: '/repo', target: '--output=/tmp/x' })).toBe('all');
    expect(classify(id, { name: 'git_checkout' }).refine?.({ repo_path: '/r', branch_name: '-f' })).toBe('all');
  });
});

describe('memory profile', () => {
  const id: ServerIdentity = { profile: 'memory', roots: [], cwd: '/srv' };
  it.each([
    ['create_entities', 'write'],
    ['create_relations', 'write'],
    ['add_observations', 'write'],
    ['delete_entities', 'write'],
    ['delete_observations', 'write'],
    ['delete_relations', 'write'],
    ['read_graph', 'read'],
    ['search_nodes', 'read'],
    ['open_nodes', 'read'],
  ] as const)('classifies %s as %s with no paths', (name, kind) => {
    expect(classify(id, { name })).toMatchObject({ kind, source: 'profile:memory', paths: [], command: null });
  });
});

describe('profiles', () => {
  it('sends a tool the profile does not list to heuristics, keeping the server base', () => {
    const c = classify(FS_ID, { name: 'delete_file', inputSchema: schema({ path: str() }) });
    expect(c).toMatchObject({ kind: 'write', source: 'heuristic', paths: [{ arg: 'path', access: 'write' }] });
    expect(c.base).toEqual({ type: 'roots', roots: ['/home/me/code'] });
  });

  it('has unique names and at least one package per profile', () => {
    expect(new Set(PROFILES.map((p) => p.name)).size).toBe(PROFILES.length);
    for (const p of PROFILES) expect(p.packages.length).toBeGreaterThan(0);
  });

  it('ignores a profile name nobody knows', () => {
    expect(classify({ profile: 'nope', roots: [], cwd: GW }, { name: 'read_thing' })).toMatchObject({ kind: 'read', source: 'heuristic' });
  });
});

// ---------------------------------------------------------------------------------------------
// Overrides (config `tools`)
// ---------------------------------------------------------------------------------------------

describe('overrides', () => {
  it('beats the profile', () => {
    const c = classify(FS_ID, { name: 'write_file' }, { kind: 'read' });
    expect(c).toMatchObject({ kind: 'read', source: 'override', paths: [{ arg: 'path', access: 'read' }] });
    expect(c.refine).toBeUndefined();
  });

  it('gives a bare path write access for a write tool and read access otherwise', () => {
    expect(classify(NO_PROFILE, { name: 'frob' }, { kind: 'write', paths: ['target'] }).paths).toEqual([{ arg: 'target', access: 'write' }]);
    expect(classify(NO_PROFILE, { name: 'frob' }, { kind: 'read', paths: ['target'] }).paths).toEqual([{ arg: 'target', access: 'read' }]);
    expect(classify(NO_PROFILE, { name: 'frob' }, { kind: 'command', paths: ['target'] }).paths).toEqual([{ arg: 'target', access: 'read' }]);
  });

  it('keeps an explicit access', () => {
    const c = classify(NO_PROFILE, { name: 'frob' }, { kind: 'write', paths: [{ arg: 'from', access: 'read' }, 'to'] });
    expect(c.paths).toEqual([
      { arg: 'from', access: 'read' },
      { arg: 'to', access: 'write' },
    ]);
  });

  it('sets the command and cwd arguments, and makes cwd the base', () => {
    const c = classify(NO_PROFILE, { name: 'frob' }, { kind: 'command', command: 'line', cwd: 'dir' });
    expect(c).toMatchObject({ kind: 'command', source: 'override', command: { arg: 'line', mode: 'shell' }, cwd: 'dir', paths: [] });
    expect(c.base).toEqual({ type: 'arg', arg: 'dir', fallback: GW });
  });

  it('inherits path arguments when it names none, so deny rules still see them', () => {
    const tool = { name: 'frobnicate', inputSchema: schema({ path: str() }) };
    expect(classify(NO_PROFILE, tool, { kind: 'write' }).paths).toEqual([{ arg: 'path', access: 'write' }]);
  });

  it('drops every path with paths: []', () => {
    const tool = { name: 'convert', inputSchema: schema({ source: str(), destination: str() }) };
    expect(classify(NO_PROFILE, tool, { kind: 'read', paths: [] }).paths).toEqual([]);
  });

  it('inherits command, stdin and selectCommand for a command override that names no command', () => {
    const c = classify({ profile: 'commands', roots: [], cwd: '/srv' }, { name: 'run_process' }, { kind: 'command' });
    expect(c).toMatchObject({ source: 'override', command: { arg: 'command_line', mode: 'shell' }, stdin: 'input', cwd: 'cwd' });
    expect(c.selectCommand?.({ mode: 'executable' })).toEqual({ arg: 'argv', mode: 'argv' });
  });

  it('drops the command when the override says the tool is not a command', () => {
    const c = classify({ profile: 'commands', roots: [], cwd: '/srv' }, { name: 'run_command' }, { kind: 'all' });
    expect(c).toMatchObject({ kind: 'all', command: null, cwd: null, stdin: null });
    expect(c.selectCommand).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Heuristics on unknown tools (docs/design.md#classifying-an-unknown-tool-in-order)
// ---------------------------------------------------------------------------------------------

describe('heuristics: tool-name verbs', () => {
  it.each([
    ['execute_query', 'command'],
    ['runTests', 'command'],
    ['spawn-worker', 'command'],
    ['create_issue', 'write'],
    ['deleteBranch', 'write'],
    ['git-push', 'write'],
    ['install_package', 'write'],
    ['read_notes', 'read'],
    ['listDirectoryWithSizes', 'read'],
    ['search-docs', 'read'],
    ['describe_table', 'read'],
    ['get_and_delete_item', 'write'], // most dangerous word wins
    ['list_then_exec', 'command'],
    ['frobnicate', 'all'],
    ['checkoutput', 'all'], // whole words only: "checkoutput" is neither check nor output
  ] as const)('classifies %s as %s', (name, kind) => {
    // An argv array is a command only for a tool whose name says it runs something.
    const inputSchema = schema({ argv: { type: 'array', items: str() } });
    expect(classify(NO_PROFILE, { name, inputSchema }).kind).toBe(kind);
  });

  it('calls a tool named like a command but with no command argument all (it runs something we cannot see)', () => {
    expect(classify(NO_PROFILE, { name: 'execute_query' })).toMatchObject({ kind: 'all', source: 'heuristic', command: null });
  });

  it('calls a tool with no signal at all unknown', () => {
    expect(classify(NO_PROFILE, { name: 'frobnicate' })).toMatchObject({ kind: 'all', source: 'unknown', paths: [], command: null });
  });
});

describe('heuristics: arguments', () => {
  it('raises a read-named tool with a command argument to command', () => {
    const c = classify(NO_PROFILE, { name: 'get_output', inputSchema: schema({ command: str() }) });
    expect(c).toMatchObject({ kind: 'command', command: { arg: 'command', mode: 'shell' } });
  });

  it('finds cmd, workdir and stdin of an unknown command tool', () => {
    const c = classify(NO_PROFILE, { name: 'run_in_container', inputSchema: schema({ cmd: str(), workdir: str(), stdin: str() }) });
    expect(c).toEqual({
      kind: 'command',
      source: 'heuristic',
      paths: [{ arg: 'workdir', access: 'read' }],
      command: { arg: 'cmd', mode: 'shell' },
      cwd: 'workdir',
      stdin: 'stdin',
      base: { type: 'arg', arg: 'workdir', fallback: GW },
    });
  });

  it('takes an argv array as words run without a shell', () => {
    const c = classify(NO_PROFILE, { name: 'exec', inputSchema: schema({ argv: { type: 'array', items: { type: 'string' } } }) });
    expect(c).toMatchObject({ kind: 'command', command: { arg: 'argv', mode: 'argv' }, paths: [] });
  });

  it('treats an interpreter with a script as a command with the script on stdin', () => {
    const c = classify(NO_PROFILE, { name: 'run_code', inputSchema: schema({ interpreter: str(), code: str() }) });
    expect(c).toMatchObject({ kind: 'command', command: { arg: 'interpreter', mode: 'shell' }, stdin: 'code' });
  });

  it('calls a command tool whose command it cannot find all', () => {
    expect(classify(NO_PROFILE, { name: 'run_python', inputSchema: schema({ source_code: str() }) })).toMatchObject({ kind: 'all', command: null });
    expect(classify(NO_PROFILE, { name: 'kill_process', inputSchema: schema({ pid: { type: 'number' } }) }).kind).toBe('all');
  });

  it('calls a program plus a separate argument list all (analysing the program alone would miss find -delete)', () => {
    const c = classify(NO_PROFILE, { name: 'run', inputSchema: schema({ command: str(), args: { type: 'array', items: { type: 'string' } } }) });
    expect(c).toMatchObject({ kind: 'all', command: null });
  });

  it('calls a command tool that also takes an environment or a shell choice all', () => {
    expect(classify(NO_PROFILE, { name: 'run', inputSchema: schema({ command: str(), env: { type: 'object' } }) }).kind).toBe('all');
    expect(classify(NO_PROFILE, { name: 'run', inputSchema: schema({ command: str(), shell: str() }) }).kind).toBe('all');
  });

  it('calls a tool with a URL argument all, by name or by format', () => {
    expect(classify(NO_PROFILE, { name: 'read_page', inputSchema: schema({ url: str() }) })).toMatchObject({ kind: 'all', source: 'heuristic', paths: [] });
    expect(classify(NO_PROFILE, { name: 'get_doc', inputSchema: schema({ location: { type: 'string', format: 'uri' } }) }).kind).toBe('all');
  });

  it('finds path arguments by name, last word and description', () => {
    const c = classify(NO_PROFILE, {
      name: 'read_config',
      inputSchema: schema({
        configPath: str(),
        log_file: str(),
        outDir: str(),
        notebook: str('Absolute path to the notebook'),
        folder: str(),
        profile: str(), // ends in "file" but is one word
        name: str('Name of the output file'), // "file" alone is too loose
        count: { type: 'number', description: 'number of files' },
      }),
    });
    expect(c.paths.map((p) => p.arg)).toEqual(['configPath', 'log_file', 'outDir', 'notebook', 'folder']);
    expect(c.paths.every((p) => p.access === 'read')).toBe(true);
  });

  it('does not take globs, regexes or contents for paths', () => {
    const c = classify(NO_PROFILE, {
      name: 'search_files',
      inputSchema: schema({
        path: str(),
        filePattern: str('Glob of file names'),
        excludePatterns: { type: 'array', items: str('path glob') },
        content: str('File content to find'),
      }),
    });
    expect(c.paths).toEqual([{ arg: 'path', access: 'read' }]);
  });

  it('walks arrays, nested objects and anyOf branches', () => {
    const c = classify(NO_PROFILE, {
      name: 'apply_edits',
      inputSchema: schema({
        files: { type: 'array', items: { type: 'string' } },
        edits: { type: 'array', items: { type: 'object', properties: { file: str(), newText: str() } } },
        options: { type: 'object', properties: { output_path: str(), verbose: { type: 'boolean' } } },
        target: { anyOf: [{ type: 'string', description: 'a file path' }, { type: 'null' }] },
        untyped_path: {},
      }),
    });
    expect(c.kind).toBe('write');
    expect(c.paths).toEqual([
      { arg: 'files[]', access: 'write' },
      { arg: 'edits[].file', access: 'write' },
      { arg: 'options.output_path', access: 'write' },
      { arg: 'target', access: 'write' },
      { arg: 'untyped_path', access: 'write' },
    ]);
  });

  it('gives paths of an unknown-kind tool write access (assume the worst)', () => {
    const c = classify(NO_PROFILE, { name: 'frobnicate', inputSchema: schema({ path: str() }) });
    expect(c).toMatchObject({ kind: 'all', source: 'unknown', paths: [{ arg: 'path', access: 'write' }] });
  });

  it('uses a cwd-like argument or repo_path as the base of an unknown tool', () => {
    const c = classify(NO_PROFILE, { name: 'git_stage', inputSchema: schema({ repo_path: str(), files: { type: 'array', items: str() } }) });
    expect(c.base).toEqual({ type: 'arg', arg: 'repo_path', fallback: GW });
  });

  it('survives schemas that are not objects', () => {
    for (const inputSchema of [undefined, null, 'x', 42, [], { properties: 'nope' }, { properties: { a: null } }]) {
      expect(classify(NO_PROFILE, { name: 'read_x', inputSchema }).kind).toBe('read');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Annotations: a tie-breaker only (docs/design.md)
// ---------------------------------------------------------------------------------------------

describe('annotations', () => {
  it('never lower a write tool: write_thing with readOnlyHint stays write', () => {
    expect(classify(NO_PROFILE, { name: 'write_thing', annotations: { readOnlyHint: true } })).toMatchObject({ kind: 'write', source: 'heuristic' });
  });

  it('never lower a command tool', () => {
    const tool = { name: 'frob', inputSchema: schema({ command: str() }), annotations: { readOnlyHint: true } };
    expect(classify(NO_PROFILE, tool).kind).toBe('command');
  });

  // Decision: readOnlyHint may settle an unknown-by-name tool as read only when nothing else
  // describes it — no path, command or URL argument a lying server could hide a write behind,
  // and no destructive or open-world hint (docs/design.md#classifying-an-unknown-tool-in-order,
  // step 6). Annotations are untrusted, so this could wait for the user to opt in; it does not,
  // because such a tool can touch nothing the rules could name, and `all` would make every harmless
  // helper (echo, get-sum) ask forever.
  it('lets readOnlyHint settle an unknown tool with no path or command arguments as read', () => {
    const tool = { name: 'frobnicate', inputSchema: schema({ level: { type: 'number' } }), annotations: { readOnlyHint: true } };
    expect(classify(NO_PROFILE, tool)).toMatchObject({ kind: 'read', source: 'annotations' });
  });

  it('does not let readOnlyHint settle an unknown tool that takes a path', () => {
    const tool = { name: 'frobnicate', inputSchema: schema({ path: str() }), annotations: { readOnlyHint: true } };
    expect(classify(NO_PROFILE, tool)).toMatchObject({ kind: 'all', source: 'unknown' });
  });

  it('does not let readOnlyHint settle an unknown tool that is also open-world or destructive', () => {
    expect(classify(NO_PROFILE, { name: 'frobnicate', annotations: { readOnlyHint: true, openWorldHint: true } }).kind).toBe('all');
    expect(classify(NO_PROFILE, { name: 'frobnicate', annotations: { readOnlyHint: true, destructiveHint: true } }).kind).toBe('all');
  });

  it('raises a read tool to write on destructiveHint, and its paths to write access', () => {
    const tool = { name: 'get_thing', inputSchema: schema({ path: str() }), annotations: { destructiveHint: true } };
    expect(classify(NO_PROFILE, tool)).toMatchObject({ kind: 'write', source: 'annotations', paths: [{ arg: 'path', access: 'write' }] });
  });

  it('raises a read tool to write on an explicit readOnlyHint: false', () => {
    expect(classify(NO_PROFILE, { name: 'get_thing', annotations: { readOnlyHint: false } })).toMatchObject({ kind: 'write', source: 'annotations' });
  });

  it('raises a read tool to all on openWorldHint: true', () => {
    expect(classify(NO_PROFILE, { name: 'get_weather', annotations: { openWorldHint: true } })).toMatchObject({ kind: 'all', source: 'annotations' });
  });

  it('keeps an open-world command tool a command (its command string is still analysed)', () => {
    const tool = { name: 'run_remote', inputSchema: schema({ command: str() }), annotations: { openWorldHint: true, destructiveHint: true } };
    expect(classify(NO_PROFILE, tool)).toMatchObject({ kind: 'command', source: 'heuristic', command: { arg: 'command', mode: 'shell' } });
  });

  it('reads nothing into absent hints (the spec defaults would make every tool all)', () => {
    expect(classify(NO_PROFILE, { name: 'get_weather', annotations: {} })).toMatchObject({ kind: 'read', source: 'heuristic' });
  });
});

// ---------------------------------------------------------------------------------------------
// identifyServer
// ---------------------------------------------------------------------------------------------

describe('identifyServer', () => {
  it.each<[string, { command: string; args?: string[] }, string | null]>([
    ['npx -y @modelcontextprotocol/server-filesystem', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '~/code', '/tmp'] }, 'filesystem'],
    ['a pinned version', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '/x'] }, 'filesystem'],
    ['node with the installed dist/index.js', { command: 'node', args: ['/opt/app/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', '/x'] }, 'filesystem'],
    ['the bin name', { command: 'mcp-server-filesystem', args: ['/x'] }, 'filesystem'],
    ['the bin by path', { command: '/usr/local/bin/mcp-server-filesystem', args: ['/x'] }, 'filesystem'],
    ['cmd /c npx on Windows', { command: 'cmd', args: ['/c', 'npx', '-y', '@modelcontextprotocol/server-filesystem', 'C:\\code'] }, 'filesystem'],
    ['pnpm dlx', { command: 'pnpm', args: ['dlx', '@modelcontextprotocol/server-filesystem', '/x'] }, 'filesystem'],
    ['desktop-commander', { command: 'npx', args: ['-y', '@wonderwhy-er/desktop-commander@latest'] }, 'desktop-commander'],
    [
      'desktop-commander installed on Windows',
      { command: 'node', args: ['C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\@wonderwhy-er\\desktop-commander\\dist\\index.js'] },
      'desktop-commander',
    ],
    ['mcp-server-commands', { command: 'npx', args: ['mcp-server-commands'] }, 'commands'],
    ['mcp-server-commands build', { command: 'node', args: ['node_modules/mcp-server-commands/build/index.js'] }, 'commands'],
    ['mcp-server-commands checkout as command', { command: '/src/mcp-server-commands/build/index.js' }, 'commands'],
    ['uvx mcp-server-git', { command: 'uvx', args: ['mcp-server-git', '--repository', '~/repo'] }, 'git'],
    ['python -m mcp_server_git', { command: 'python', args: ['-m', 'mcp_server_git', '-r', 'repo'] }, 'git'],
    ['pip pin ==', { command: 'uvx', args: ['mcp-server-git==2025.1.14'] }, 'git'],
    ['uv run --directory', { command: 'uv', args: ['run', '--directory', '/src/git', 'mcp-server-git'] }, 'git'],
    ['server-memory', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, 'memory'],
    ['mcp-server-memory bin', { command: 'mcp-server-memory' }, 'memory'],
    ['server-everything (no profile)', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] }, null],
    ['docker image (paths live in the container)', { command: 'docker', args: ['run', '-i', '--rm', 'mcp/filesystem', '/projects'] }, null],
    ['a root that happens to be named like a package', { command: 'npx', args: ['-y', 'some-server', '/home/me/desktop-commander'] }, null],
  ])('recognises %s', (_label, server, profile) => {
    expect(identifyServer(server, GW).profile).toBe(profile);
  });

  it('keeps filesystem roots as written and resolves relative ones against the gateway cwd', () => {
    expect(identifyServer({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '~/code', '/tmp', 'rel'] }, GW)).toEqual({
      profile: 'filesystem',
      roots: ['~/code', '/tmp', path.resolve(GW, 'rel')],
      cwd: GW,
    });
  });

  it("resolves relative roots against the server's own cwd, keeping a ~ cwd as written", () => {
    expect(identifyServer({ command: 'npx', args: ['@modelcontextprotocol/server-filesystem', 'proj'], cwd: '~/code' }, GW)).toEqual({
      profile: 'filesystem',
      roots: [path.join('~/code', 'proj')],
      cwd: '~/code',
    });
    expect(identifyServer({ command: 'npx', args: ['@modelcontextprotocol/server-filesystem', 'proj'], cwd: 'sub' }, GW)).toEqual({
      profile: 'filesystem',
      roots: [path.resolve(GW, 'sub', 'proj')],
      cwd: path.resolve(GW, 'sub'),
    });
  });

  it('takes a filesystem server with no arguments as one that uses the client roots', () => {
    expect(identifyServer({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] }, GW).roots).toEqual([]);
  });

  it('takes the git --repository in every spelling as the root', () => {
    expect(identifyServer({ command: 'uvx', args: ['mcp-server-git', '--repository', '~/repo'] }, GW).roots).toEqual(['~/repo']);
    expect(identifyServer({ command: 'python', args: ['-m', 'mcp_server_git', '-r', 'repo'] }, GW).roots).toEqual([path.resolve(GW, 'repo')]);
    expect(identifyServer({ command: 'uvx', args: ['mcp-server-git', '--repository=/r'] }, GW).roots).toEqual(['/r']);
    expect(identifyServer({ command: 'uvx', args: ['mcp-server-git'] }, GW).roots).toEqual([]);
  });

  it('gives other profiles no roots and the server cwd', () => {
    expect(identifyServer({ command: 'npx', args: ['-y', '@wonderwhy-er/desktop-commander'], cwd: '/work' }, GW)).toEqual({
      profile: 'desktop-commander',
      roots: [],
      cwd: '/work',
    });
  });

  it('gives a remote server no profile and no cwd (its relative paths mean nothing here)', () => {
    expect(identifyServer({ url: 'https://example.com/mcp' }, GW)).toEqual({ profile: null, roots: [], cwd: null });
  });

  it('gives an unknown stdio server the gateway cwd', () => {
    expect(identifyServer({ command: 'my-server' }, GW)).toEqual({ profile: null, roots: [], cwd: GW });
  });
});

describe('prompts (docs/rules.md "Prompts"; round 14 review T3)', () => {
  const commands = identifyServer({ command: 'npx', args: ['-y', 'mcp-server-commands'] }, GW);
  const unknown = identifyServer({ command: 'node', args: ['my-shell-server.js'] }, GW);

  it("mcp-server-commands' run_command prompt is its command, from the profile", () => {
    expect(classifyPrompt(commands, 'run_command', { command: 'ls' }, true)).toMatchObject({ kind: 'command', command: { arg: 'command', mode: 'shell' }, source: 'profile:commands' });
  });

  it('any other prompt given arguments, of a server with a tool that runs commands, is a tool nothing describes (kind all)', () => {
    expect(classifyPrompt(unknown, 'deploy', { target: 'prod' }, true)).toMatchObject({ kind: 'all', command: null });
    expect(classifyPrompt(commands, 'other', { x: 'y' }, true)).toMatchObject({ kind: 'all' });
  });

  it('no arguments, or a server without command tools: candidates only (null)', () => {
    expect(classifyPrompt(unknown, 'deploy', {}, true)).toBeNull();
    expect(classifyPrompt(unknown, 'deploy', { target: '' }, true)).toBeNull();
    expect(classifyPrompt(unknown, 'review_file', { path: 'a.ts' }, false)).toBeNull();
  });
});

describe('mayTakeCommands: which tools a server\'s readiness classifies for the shell grammar', () => {
  const takesCommands = (cls: ToolClass) => cls.kind === 'command' || cls.command !== null || cls.selectCommand !== undefined || Boolean(cls.stdin);
  const shapes: FixtureTool[] = [
    { name: 'run', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } },
    { name: 'exec', inputSchema: { type: 'object', properties: { Shell_Command: { type: 'string' }, cwd: { type: 'string' } } } },
    { name: 'run_script', inputSchema: { type: 'object', properties: { interpreter: { type: 'string' }, code: { type: 'string' } } } },
    { name: 'execute', inputSchema: { type: 'object', properties: { argv: { type: 'array', items: { type: 'string' } } } } },
    { name: 'spawn', inputSchema: { anyOf: [{ type: 'object', properties: { cmd: { type: 'string' } } }] } },
    { name: 'launch', inputSchema: { $ref: '#/$defs/Input', $defs: { Input: { type: 'object', properties: { 'command-line': { type: 'string' } } } } } },
    { name: 'run', inputSchema: { type: 'object', properties: { args: { type: 'array', items: { type: 'string' } } } } },
    { name: 'run', inputSchema: { type: 'object', properties: { request: { type: 'object', properties: { command: { type: 'string' } } } } } },
    { name: 'run_command', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    { name: 'write_file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } } },
  ];
  const lists = ['commands', 'everything', 'filesystem', 'git', 'memory'].map(toolList);
  const identities: ServerIdentity[] = [NO_PROFILE, ...PROFILES.map((profile) => ({ profile: profile.name, roots: ['/home/me/code'], cwd: GW }))];

  it('is true for every tool classifyTool gives a class that takes commands, whatever the server', () => {
    let taking = 0;
    for (const identity of identities) {
      for (const tool of [...shapes, ...lists.flat()]) {
        if (!takesCommands(classify(identity, tool))) continue;
        taking += 1;
        expect(mayTakeCommands(identity, tool), `${identity.profile ?? 'no profile'}: ${tool.name} ${JSON.stringify(tool.inputSchema)}`).toBe(true);
      }
    }
    expect(taking).toBeGreaterThan(12);
  });

  it('is false for a tool no argument of which is named as a command, so it is not classified', () => {
    expect(toolList('everything').filter((tool) => mayTakeCommands(NO_PROFILE, tool))).toEqual([]);
    expect(mayTakeCommands(NO_PROFILE, shapes[9]!)).toBe(false);
    expect(mayTakeCommands(NO_PROFILE, { name: 'run_command' })).toBe(false);
  });
});
