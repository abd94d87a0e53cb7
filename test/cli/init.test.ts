import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { init, type InitContext, type InitOptions } from '../../src/cli/init.js';
import { memoryOutput } from '../../src/cli/output.js';
import { addRule } from '../../src/cli/rules.js';
import { parseJsonc, type ClientId } from '../../src/clients/client-file.js';
import { unifiedDiff } from '../../src/clients/diff.js';
import { clientLocations, discoverClients } from '../../src/clients/discover.js';
import { gatewayLaunch } from '../../src/clients/launch.js';
import { parseConfigText } from '../../src/config/load.js';
import { ruleIssues } from '../../src/policy/policy.js';
import { BIN, ROOT, tempDir } from '../helpers/gateway.js';
import { treeDigest } from '../helpers/tree-digest.js';

/**
 * `mcp-latch init` against sample client configs (test/fixtures/client-configs, written as each
 * client writes them) copied into temp homes laid out for Linux, macOS and Windows.
 */
const FIXTURES = join(ROOT, 'test/fixtures/client-configs');
const NOW = new Date('2026-03-14T09:30:05.123Z');
const STAMP = '20260314T093005Z';

interface Layout {
  root: string;
  home: string;
  project: string;
  config: string;
  context: InitContext;
}

function layout(platform: NodeJS.Platform = 'linux'): Layout {
  const root = tempDir('mcp-latch-init-');
  const home = join(root, 'home');
  const project = join(home, 'code', 'app');
  mkdirSync(project, { recursive: true });
  // Both set, whatever the layout: userConfigPath() reads them for the real platform of the test run.
  const env = { XDG_CONFIG_HOME: join(home, '.config'), APPDATA: join(home, 'AppData', 'Roaming') };
  const context: InitContext = { home, platform, env, cwd: project, now: () => NOW, execPath: process.execPath, packageRoot: ROOT };
  return { root, home, project, config: join(home, 'latch', 'mcp-latch.json'), context };
}

/** Copies a sample to where the client of `id` keeps it; returns that path. */
function place(l: Layout, id: ClientId, fixture: string): string {
  const location = clientLocations(l.context).find((candidate) => candidate.id === id)!;
  mkdirSync(dirname(location.path), { recursive: true });
  copyFileSync(join(FIXTURES, fixture), location.path);
  return location.path;
}

const ALL: Array<[ClientId, string]> = [
  ['claude-desktop', 'claude_desktop_config.json'],
  ['claude-code-user', 'claude-code-user.claude.json'],
  ['claude-code', 'claude-code-project.mcp.json'],
  ['cursor', 'cursor-mcp.json'],
  ['cursor-project', 'cursor-project-mcp.json'],
  ['vscode', 'vscode-mcp.json'],
  ['windsurf', 'windsurf-mcp_config.json'],
];

function placeAll(l: Layout): Map<ClientId, string> {
  // The person lets Claude Code start every project server (claude-approval.ts); init imports them.
  mkdirSync(join(l.home, '.claude'), { recursive: true });
  writeFileSync(join(l.home, '.claude', 'settings.json'), '{ "enableAllProjectMcpServers": true }\n');
  return new Map(ALL.map(([id, fixture]) => [id, place(l, id, fixture)]));
}

function run(l: Layout, options: InitOptions) {
  const out = memoryOutput();
  const code = init({ config: l.config, ...options }, out, l.context);
  return { code, out, stdout: out.stdout.join('\n'), stderr: out.stderr.join('\n') };
}

function runJson(l: Layout, options: InitOptions) {
  const result = run(l, { ...options, json: true });
  return { ...result, summary: JSON.parse(result.stdout) as Record<string, any> };
}

function writtenConfig(l: Layout): Record<string, any> {
  return JSON.parse(readFileSync(l.config, 'utf8')) as Record<string, any>;
}

describe('discovery of client configs', () => {
  const expected: Record<string, Record<string, string>> = {
    linux: {
      'claude-desktop': '.config/Claude/claude_desktop_config.json',
      'vscode-user': '.config/Code/User/mcp.json',
    },
    darwin: {
      'claude-desktop': 'Library/Application Support/Claude/claude_desktop_config.json',
      'vscode-user': 'Library/Application Support/Code/User/mcp.json',
    },
    win32: {
      'claude-desktop': 'AppData/Roaming/Claude/claude_desktop_config.json',
      'vscode-user': 'AppData/Roaming/Code/User/mcp.json',
    },
  };

  test.each(['linux', 'darwin', 'win32'] as const)('finds every client where it keeps its config on %s', (platform) => {
    const l = layout(platform);
    const paths = placeAll(l);
    place(l, 'vscode-user', 'vscode-mcp.json');
    const found = discoverClients(l.context);
    expect(found.map((location) => location.id)).toEqual(['claude-desktop', 'claude-code-user', 'claude-code', 'cursor', 'cursor-project', 'vscode-user', 'vscode', 'windsurf']);
    const at = (id: string) => relative(l.home, found.find((location) => location.id === id)!.path).replace(/\\/g, '/');
    expect(at('claude-desktop')).toBe(expected[platform]!['claude-desktop']);
    expect(at('vscode-user')).toBe(expected[platform]!['vscode-user']);
    expect(at('cursor')).toBe('.cursor/mcp.json');
    expect(at('cursor-project')).toBe('code/app/.cursor/mcp.json');
    expect(at('vscode')).toBe('code/app/.vscode/mcp.json');
    expect(at('claude-code')).toBe('code/app/.mcp.json');
    expect(at('claude-code-user')).toBe('.claude.json');
    expect(at('windsurf')).toBe('.codeium/windsurf/mcp_config.json');
    expect(paths.size).toBe(7);
  });

  test('lists nothing when no client config exists, and init says where it looked', () => {
    const l = layout();
    expect(discoverClients(l.context)).toEqual([]);
    expect(() => run(l, {})).toThrow(/no MCP client config found \(looked at .*claude_desktop_config\.json.*\); pass --from FILE/);
  });

  // Round 16 review H6: found but unreadable files were reported as none found.
  test('names each file it found but could not read when none could be read', () => {
    const l = layout();
    const cursor = place(l, 'cursor', 'cursor-mcp.json');
    writeFileSync(cursor, '{ "mcpServers": { "a": { "command": "x" ');
    expect(() => run(l, {})).toThrow(new RegExp(`no client config could be read: Cursor[^:]* ${cursor.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
  });
});

describe('importing servers', () => {
  test('keeps command, args, env, cwd, remote url, type and headers of every client format', () => {
    const l = layout();
    placeAll(l);
    const { code, summary } = runJson(l, {});
    expect(code).toBe(0);
    const servers = writtenConfig(l).mcpServers as Record<string, any>;

    // Claude Desktop
    expect(servers.github).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_example' } });
    expect(servers.shell).toEqual({ command: 'npx', args: ['-y', 'mcp-server-commands'], cwd: '/Users/me/code' });
    // Cursor: remote with headers, ${userHome} resolved, the name with a dot sanitised
    expect(servers.docs).toEqual({ url: 'https://docs.example.com/mcp', headers: { Authorization: 'Bearer ${env:DOCS_TOKEN}' } });
    expect(servers['notes-app']).toEqual({ command: 'node', args: ['/Users/me/tools/notes/server.js'], env: { NOTES_DIR: `${l.home}/notes` }, envFile: '/Users/me/tools/notes/.env' });
    // Cursor (project): ${workspaceFolder} is the project; project servers run in the project
    expect(servers['filesystem-cursor-project']).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', l.project], cwd: l.project });
    expect(servers.local).toEqual({ command: 'node', args: ['./tools/mcp-server.js'], cwd: l.project });
    // VS Code
    expect(servers.memory).toEqual({ type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: `${l.project}/.memory.json` }, cwd: l.project });
    // ${input:…} cannot be asked for by mcp-latch: not imported, listed as still bypassing
    expect(servers.search).toBeUndefined();
    expect(servers['legacy-sse']).toEqual({ type: 'sse', url: 'https://sse.example.com/sse' });
    // Windsurf
    expect(servers.context7).toEqual({ url: 'https://mcp.context7.com/mcp', headers: { CONTEXT7_API_KEY: 'ctx7-example' } });
    expect(servers.old).toEqual({ command: 'npx', args: ['-y', 'some-old-server'], disabled: true });
    // Claude Code: ${VAR} becomes ${env:VAR}; a relative cwd is anchored at the project
    expect(servers['desktop-commander'].env).toEqual({ API_KEY: '${env:API_KEY}', REGION: '${env:REGION:-eu-west-1}' });
    expect(servers['desktop-commander'].type).toBe('stdio');
    expect(servers.sentry).toEqual({ type: 'http', url: 'https://mcp.sentry.dev/mcp', headers: { Authorization: 'Bearer ${env:SENTRY_TOKEN}' } });
    expect(servers.scripts).toEqual({ command: 'node', args: ['server.js'], cwd: join(l.project, 'mcp') });
    // Claude Code user file: the user scope, and the local scope of each project, run in that project
    expect(servers.fetch).toEqual({ type: 'stdio', command: 'uvx', args: ['mcp-server-fetch'], env: {} });
    expect(servers['per-project']).toEqual({ type: 'stdio', command: 'node', args: ['/home/me/code/app/mcp.js'], env: {}, cwd: '/home/me/code/app' });
    expect(summary.scopes['claude-code-local:/home/me/code/app']).toEqual({ servers: ['per-project'], workspace: ['/home/me/code/app'] });

    expect(summary.bypass).toEqual([expect.objectContaining({ client: 'vscode', name: 'search', reason: expect.stringMatching(/\$\{input:api-key\}, a VS Code input prompt mcp-latch cannot show/) })]);
    expect(summary.notes.join('\n')).toMatch(/\$\{REGION:-eu-west-1\} written as \$\{env:REGION:-eu-west-1\}/);
    expect(summary.notes.join('\n')).toMatch(/"notes\.app" renamed notes-app/);
    expect(summary.notes.join('\n')).toMatch(/serverUrl written as url/);
  });

  test('imports the same server found in two clients once, and suffixes a different one deterministically', () => {
    const l = layout();
    placeAll(l);
    const first = runJson(l, {}).summary;
    const servers = writtenConfig(l).mcpServers as Record<string, any>;
    // Claude Desktop and Cursor both have this exact filesystem server.
    expect(servers.filesystem.args).toEqual(['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop', '/Users/me/code']);
    expect(first.added.filesystem).toEqual({ client: 'claude-desktop', originalName: 'filesystem' });
    expect(first.added['filesystem-cursor-project']).toEqual({ client: 'cursor-project', originalName: 'filesystem' });
    // Each client file's servers are its scope; the shared server is listed in both.
    expect(first.scopes['claude-desktop'].servers).toEqual(['filesystem', 'github', 'shell']);
    expect(first.scopes.cursor.servers).toEqual(['filesystem', 'docs', 'notes-app']);
    expect(first.sources.find((source: any) => source.client === 'cursor').servers).toEqual(['filesystem', 'docs', 'notes-app']);
    expect(first.notes.join('\n')).toMatch(/"filesystem" is the same server as filesystem, imported once/);

    const again = layout();
    placeAll(again);
    runJson(again, {});
    expect(Object.keys(writtenConfig(again).mcpServers)).toEqual(Object.keys(servers));
  });

  test('writes a config that passes the schema and the rule checks, with $schema pointing at the shipped schema', () => {
    const l = layout();
    placeAll(l);
    run(l, {});
    const text = readFileSync(l.config, 'utf8');
    expect(() => parseConfigText(text, l.config, ruleIssues)).not.toThrow();
    const config = JSON.parse(text) as Record<string, any>;
    expect(config.$schema).toBe(pathToFileURL(join(ROOT, 'schema', 'mcp-latch.schema.json')).href);
    expect(existsSync(new URL(config.$schema as string))).toBe(true);
    expect(Object.keys(config)).toEqual(['$schema', 'mcpServers', 'workspace', 'scopes', 'permissions']);
  });

  test('writes starter rules suited to what was found', () => {
    const l = layout();
    placeAll(l);
    const { stdout } = run(l, {});
    const config = writtenConfig(l);
    expect(config.workspace).toEqual([l.project]);
    expect(config.permissions.defaultMode).toBe('default');
    expect(config.permissions.deny).toEqual(
      expect.arrayContaining(['Read(**/.env)', 'Read(**/.env.*)', 'Read(~/.ssh/**)', 'Read(~/.aws/**)', 'Read(~/.gnupg/**)', 'Read(~/.config/gcloud/**)', 'Read(~/Library/Keychains/**)', 'Bash(rm -rf *)']),
    );
    expect(config.permissions.ask).toEqual(['Bash(git push *)']);
    // mcp-server-commands (Claude Desktop) and desktop-commander (Claude Code) run shell commands.
    expect(config.permissions.allow).toEqual(['Bash(npm run test *)', 'Bash(npm test *)']);
    // Windsurf's disabledTools become deny rules.
    expect(config.permissions.deny).toEqual(expect.arrayContaining(['mcp__git__git_commit', 'mcp__git__git_reset']));
    // The reasoning is in the summary, since JSON has no comments.
    expect(stdout).toMatch(/Starter rules/);
    expect(stdout).toMatch(/shell, desktop-commander run shell commands/);
    expect(stdout).toMatch(/filesystem can reach \/Users\/me\/Desktop, \/Users\/me\/code/);
  });

  test('keeps the allow list empty when no shell server is found, and takes --workspace', () => {
    const l = layout();
    place(l, 'windsurf', 'windsurf-mcp_config.json');
    const workspace = join(l.home, 'other');
    mkdirSync(workspace);
    run(l, { workspace: '../../other' });
    const config = writtenConfig(l);
    expect(config.permissions.allow).toEqual([]);
    expect(config.workspace).toEqual([workspace]);
    expect(() => run(layout(), { workspace: '/nonexistent/dir' })).toThrow(/is not a directory/);
  });

  test('drops Cline keys mcp-latch does not use, with a note, from a --from file', () => {
    const l = layout();
    const { summary } = runJson(l, { from: join(FIXTURES, 'cline_mcp_settings.json') });
    expect(summary.sources[0].client).toBe('cline');
    expect(writtenConfig(l).mcpServers.weather).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['/home/me/Documents/Cline/MCP/weather-server/build/index.js'],
      env: { OPENWEATHER_API_KEY: 'example' },
      disabled: false,
      timeout: 60_000,
    });
    const notes = summary.notes.join('\n');
    expect(notes).toMatch(/autoApprove dropped \(mcp-latch decides approvals with its rules/);
    expect(notes).toMatch(/alwaysAllow dropped/);
    expect(notes).toMatch(/timeout 60 s written as 60000 ms/);
  });

  test('detects the format of a --from file by its content', () => {
    const l = layout();
    const file = join(l.root, 'exported.json');
    writeFileSync(file, '{ "servers": { "a": { "type": "stdio", "command": "x" } } }');
    expect(runJson(l, { from: file }).summary.sources[0].label).toMatch(/VS Code format/);
    expect(writtenConfig(l).mcpServers).toEqual({ a: { type: 'stdio', command: 'x' } });

    const windsurf = layout();
    const other = join(windsurf.root, 'w.json');
    writeFileSync(other, '{ "mcpServers": { "r": { "serverUrl": "https://r.example/mcp" } } }');
    runJson(windsurf, { from: other });
    expect(writtenConfig(windsurf).mcpServers).toEqual({ r: { url: 'https://r.example/mcp' } });

    expect(() => run(layout(), { from: '/nonexistent.json' })).toThrow(/--from .*nonexistent\.json does not exist/);
    const empty = join(l.root, 'empty.json');
    writeFileSync(empty, '{ "theme": "dark" }');
    expect(() => run(layout(), { from: empty })).toThrow(/has no servers/);
    const broken = join(l.root, 'broken.json');
    writeFileSync(broken, '{\n  "mcpServers": {\n    "a": { "command": "x" \n}');
    expect(() => run(layout(), { from: broken })).toThrow(/cannot parse .*broken\.json: .* at line \d+, column \d+/);
  });

  test('sanitises names mcp-latch cannot use and reports each one', () => {
    const l = layout();
    const file = join(l.root, 'names.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { 'a__b': { command: 'a' }, 'my.server': { command: 'b' }, '@scope/x': { command: 'c' }, 'my-server': { command: 'd' } } }));
    const { summary } = runJson(l, { from: file });
    expect(Object.keys(writtenConfig(l).mcpServers)).toEqual(['a_b', 'my-server', 'scope-x', 'my-server-file']);
    const notes = summary.notes.join('\n');
    expect(notes).toMatch(/"a__b" renamed a_b/);
    expect(notes).toMatch(/"@scope\/x" renamed scope-x/);
    expect(summary.warnings.join('\n')).toMatch(/"my-server" imported as my-server-file/);
  });

  test('skips and reports entries that cannot load', () => {
    const l = layout();
    const file = join(l.root, 'bad.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { ok: { command: 'x' }, both: { command: 'x', url: 'https://x' }, none: { args: [] }, ws: { url: 'ws://x' } } }));
    const { summary } = runJson(l, { from: file });
    expect(Object.keys(writtenConfig(l).mcpServers)).toEqual(['ok']);
    expect(summary.sources[0].skipped.map((skip: any) => skip.name)).toEqual(['both', 'none', 'ws']);
    expect(summary.sources[0].skipped[2].reason).toMatch(/http/);
  });

  test('--client picks the clients to import from; unknown or missing clients are one clear error', () => {
    const l = layout();
    placeAll(l);
    const { summary } = runJson(l, { client: 'cursor' });
    expect(summary.sources.map((source: any) => source.client)).toEqual(['cursor', 'cursor-project']);
    const one = layout();
    placeAll(one);
    expect(runJson(one, { client: 'vscode' }).summary.sources.map((source: any) => source.client)).toEqual(['vscode']);
    expect(() => run(layout(), { client: 'emacs' })).toThrow(/unknown client "emacs" \(known: claude-desktop,/);
    const none = layout();
    place(none, 'cursor', 'cursor-mcp.json');
    expect(() => run(none, { client: 'windsurf' })).toThrow(/no windsurf config found \(looked at .*mcp_config\.json\)/);
    expect(() => run(none, { client: 'cursor', from: 'x.json' })).toThrow(/either --from FILE or --client NAME/);
  });

  test('writes to the per-user config path by default', () => {
    const l = layout();
    place(l, 'windsurf', 'windsurf-mcp_config.json');
    const out = memoryOutput();
    expect(init({}, out, l.context)).toBe(0);
    const expected = process.platform === 'win32' ? join(l.home, 'AppData', 'Roaming', 'mcp-latch', 'mcp-latch.json') : join(l.home, '.config', 'mcp-latch', 'mcp-latch.json');
    expect(existsSync(expected)).toBe(true);
    expect(out.stdout.join('\n')).toContain(`Wrote ${expected}`);
    if (process.platform !== 'win32') expect(statSync(expected).mode & 0o777).toBe(0o600);
  });
});

describe('an existing mcp-latch config', () => {
  test('is added to, never replaced: the rules and edits the person made stay byte for byte', () => {
    const l = layout();
    place(l, 'claude-desktop', 'claude_desktop_config.json');
    run(l, {});
    const edited = readFileSync(l.config, 'utf8').replace('"allow": [', '"allow": [\n      "Bash(make *)",');
    writeFileSync(l.config, edited);
    place(l, 'windsurf', 'windsurf-mcp_config.json');
    const { code, summary } = runJson(l, {});
    expect(code).toBe(0);
    const text = readFileSync(l.config, 'utf8');
    expect(text.startsWith(edited.slice(0, edited.indexOf('"mcpServers"')))).toBe(true);
    const config = JSON.parse(text) as Record<string, any>;
    expect(config.permissions.allow).toContain('Bash(make *)');
    expect(Object.keys(summary.added)).toEqual(['context7', 'git', 'old']);
    expect(Object.keys(config.scopes)).toEqual(['claude-desktop', 'windsurf']);
    // Windsurf's hidden tools become deny rules of the new server.
    expect(config.permissions.deny).toEqual(expect.arrayContaining(['mcp__git__git_commit']));
  });

  // Round 12 review, F4: the servers' env tokens moved from a 0600 client file into a 0644 config.
  test('made by hand readable by others, becomes readable by its owner only when init writes servers into it', () => {
    if (process.platform === 'win32') return;
    const l = layout();
    mkdirSync(dirname(l.config), { recursive: true });
    writeFileSync(l.config, JSON.stringify({ mcpServers: {} }), { mode: 0o644 });
    chmodSync(l.config, 0o644);
    place(l, 'claude-desktop', 'claude_desktop_config.json');
    const out = memoryOutput();
    expect(init({ config: l.config }, out, l.context)).toBe(0);
    expect(statSync(l.config).mode & 0o777).toBe(0o600);
    expect(out.stdout.join('\n')).toContain('readable by you only (it was 0644)');
  });

  test('that is invalid is left alone, with the way out; --force replaces it after a private backup', () => {
    const l = layout();
    placeAll(l);
    mkdirSync(dirname(l.config), { recursive: true });
    writeFileSync(l.config, '{ "mine": true }\n');
    expect(() => run(l, {})).toThrow(/is not a valid config, so init cannot add to it \(.*mine: unknown key\); fix it .* or pass --force to replace it/);
    expect(readFileSync(l.config, 'utf8')).toBe('{ "mine": true }\n');

    const { summary } = runJson(l, { force: true });
    const backup = join(dirname(l.config), 'mcp-latch-backups', `${STAMP}${l.config.replace(/[\\/:]+/g, '_')}`);
    expect(summary.configBackup).toBe(backup);
    expect(readFileSync(backup, 'utf8')).toBe('{ "mine": true }\n');
    if (process.platform !== 'win32') expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(writtenConfig(l).mcpServers.github).toBeDefined();
  });
});

describe('init --wrap and --undo', () => {
  test.each(['linux', 'darwin', 'win32'] as const)('round-trips every client file to the byte on %s', (platform) => {
    const l = layout(platform);
    const paths = placeAll(l);
    const before = new Map([...paths].map(([id, path]) => [id, readFileSync(path)]));

    const { code, summary } = runJson(l, { wrap: true });
    expect(code).toBe(0);
    expect(summary.wrapped.map((record: any) => record.client)).toEqual(['claude-desktop', 'claude-code-user', 'claude-code-local', 'claude-code', 'cursor', 'cursor-project', 'vscode', 'windsurf']);
    for (const [id, path] of paths) {
      expect(readFileSync(path).equals(before.get(id)!), id).toBe(false);
      // The copies are in the config's private folder, never next to a project file.
      expect(existsSync(join(dirname(path), `${path.split(/[\\/]/).pop()}.mcp-latch-backup-${STAMP}`))).toBe(false);
    }
    expect(readdirSync(join(dirname(l.config), 'mcp-latch-backups'))).toHaveLength(7);

    const undone = run(l, { undo: true });
    expect(undone.code).toBe(0);
    for (const [id, path] of paths) expect(readFileSync(path).equals(before.get(id)!), id).toBe(true);
    expect(undone.stdout).toMatch(/Restored 3 servers \(filesystem, github, shell\) in .*claude_desktop_config\.json/);
    // Nothing left to undo.
    expect(existsSync(join(dirname(l.config), 'mcp-latch-init.json'))).toBe(false);
    expect(() => run(l, { undo: true })).toThrow(/nothing to undo/);
  });

  // Round 19 review F-backups: init kept its copies in `backups/` beside the config and the whole
  // folder was denied to every tool, so a project config at the repo root took the project's own
  // `backups/` away. The copies now go to `mcp-latch-backups/` (all of it denied); of `backups/` only
  // the copies an earlier init left there are, where its manifest names them, and --undo still works.
  test("a project config: copies in mcp-latch-backups/; in backups/ only an earlier init's copies are denied, and --undo restores", () => {
    const base = layout();
    const l = { ...base, config: join(base.project, 'mcp-latch.json') };
    const paths = placeAll(l);
    const before = new Map([...paths].map(([id, path]) => [id, readFileSync(path)]));
    expect(run(l, { wrap: true }).code).toBe(0);
    const folder = join(l.project, 'mcp-latch-backups');
    const copies = readdirSync(folder);
    expect(copies).toHaveLength(7);
    expect(existsSync(join(l.project, 'backups'))).toBe(false);
    const decided = (tool: string, args: Record<string, unknown>) => {
      const result = spawnSync(process.execPath, [BIN, 'check', '--config', l.config, '--tool', tool, '--args', JSON.stringify(args), '--json'], { encoding: 'utf8', timeout: 20_000 });
      const json = JSON.parse(result.stdout) as { decision: string; rule: string | null };
      return [json.decision, json.rule];
    };
    const read = (path: string) => decided('filesystem__read_text_file', { path });
    const copy = join(folder, copies.find((name) => name.endsWith('claude_desktop_config.json'))!);
    expect(read(copy)).toEqual(['deny', `built-in protection of ${folder} (init's copies of client files, tokens included)`]);

    // An install from before round 20: the copies in backups/, where the manifest names them.
    const legacy = join(l.project, 'backups');
    mkdirSync(legacy);
    for (const name of copies) renameSync(join(folder, name), join(legacy, name));
    rmdirSync(folder);
    const manifest = join(l.project, 'mcp-latch-init.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replaceAll(`${folder}/`, `${legacy}/`));
    writeFileSync(join(legacy, 'notes.txt'), 'the project\'s own\n');
    const old = join(legacy, copies.find((name) => name.endsWith('claude_desktop_config.json'))!);
    expect(readFileSync(manifest, 'utf8')).toContain(old);
    expect(read(old)).toEqual(['deny', `built-in protection of ${old} (init's copy of a client file, tokens included)`]);
    expect(decided('shell__run_command', { command: `grep ghp_ ${old}` })).toEqual(['deny', `built-in protection of ${old} (init's copy of a client file, tokens included)`]);
    expect(read(join(legacy, 'notes.txt'))[0]).not.toBe('deny');
    expect(decided('filesystem__write_file', { path: join(legacy, 'notes.txt'), content: 'x' })[0]).not.toBe('deny');

    const undone = run(l, { undo: true });
    expect(undone.code).toBe(0);
    for (const [id, path] of paths) expect(readFileSync(path).equals(before.get(id)!), id).toBe(true);
  }, 120_000); // five starts of the built CLI

  test('changes only the servers block: other settings, comments, indentation, line ends and unimportable servers stay', () => {
    const l = layout();
    const paths = placeAll(l);
    run(l, { wrap: true });
    const entry = (scope: string) => ({ command: process.execPath, args: [join(ROOT, 'bin', 'mcp-latch.js'), 'serve', '--config', l.config, '--scope', scope] });

    const desktop = readFileSync(paths.get('claude-desktop')!, 'utf8');
    expect(JSON.parse(desktop)).toEqual({ globalShortcut: 'Ctrl+Space', mcpServers: { latch: entry('claude-desktop') }, preferences: { quickEntryShortcut: 'off' } });
    expect(desktop.endsWith('}')).toBe(true); // the client wrote no final newline

    const cursor = readFileSync(paths.get('cursor')!, 'utf8');
    expect(cursor.startsWith('// Cursor: global MCP servers (~/.cursor/mcp.json)\n{\n  "mcpServers": {\n    "latch": {\n')).toBe(true);
    expect(parseJsonc(cursor, 'cursor')).toEqual({ mcpServers: { latch: entry('cursor') } });
    expect((parseJsonc(readFileSync(paths.get('cursor-project')!, 'utf8'), 'p') as any).mcpServers).toEqual({ 'latch-project': entry(`cursor-project:${l.project}`) });

    const vscode = readFileSync(paths.get('vscode')!, 'utf8');
    expect(vscode).toContain('\t// VS Code workspace MCP servers\r\n\t"inputs": [\r\n');
    expect(vscode).toContain('\t"servers": {\r\n\t\t"latch-project": {\r\n\t\t\t"type": "stdio",\r\n');
    expect(vscode.replace(/\r\n/g, '')).not.toContain('\n');
    // The server with a prompted key stays in VS Code's file, untouched, comment included.
    expect(vscode).toContain('\t\t/* remote search with a prompted key */\r\n\t\t"search": {\r\n');
    expect(Object.keys((parseJsonc(vscode, 'vscode') as Record<string, any>).servers)).toEqual(['latch-project', 'search']);

    const claudeUser = JSON.parse(readFileSync(paths.get('claude-code-user')!, 'utf8')) as Record<string, any>;
    expect(claudeUser.mcpServers).toEqual({ latch: entry('claude-code-user') });
    expect(claudeUser.projects['/home/me/code/app'].mcpServers).toEqual({ 'latch-local': entry('claude-code-local:/home/me/code/app') });
    expect(claudeUser.projects['/home/me/code/app'].hasTrustDialogAccepted).toBe(true);
    expect(claudeUser.userID).toBe('0123456789abcdef');
  });

  test('keeps a one-line file on one line and a byte order mark in place', () => {
    const l = layout('win32');
    const path = clientLocations(l.context).find((location) => location.id === 'claude-desktop')!.path;
    mkdirSync(dirname(path), { recursive: true });
    const original = Buffer.from('\uFEFF{"globalShortcut":"","mcpServers":{"a":{"command":"x"}},"isUsingBuiltInNodeForMcp":true}', 'utf8');
    writeFileSync(path, original);
    run(l, { wrap: true });
    const wrapped = readFileSync(path, 'utf8');
    expect(wrapped.startsWith('\uFEFF{"globalShortcut":"","mcpServers":{"latch": {"command":')).toBe(true);
    expect(wrapped).not.toContain('\n');
    expect(wrapped.endsWith('},"isUsingBuiltInNodeForMcp":true}')).toBe(true);
    run(l, { undo: true });
    expect(readFileSync(path).equals(original)).toBe(true);
  });

  test('records each block it changed in mcp-latch-init.json, readable by its owner only', () => {
    const l = layout();
    const path = place(l, 'cursor', 'cursor-mcp.json');
    run(l, { wrap: true });
    const file = join(dirname(l.config), 'mcp-latch-init.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
    expect(manifest).toMatchObject({ version: 2, config: l.config });
    expect(manifest.wrapped).toHaveLength(1);
    expect(manifest.wrapped[0]).toMatchObject({ client: 'cursor', file: path, blockPath: ['mcpServers'], scope: 'cursor', entry: 'latch', wrappedAt: NOW.toISOString() });
    expect(manifest.wrapped[0].removed.map(([name]: [string]) => name)).toEqual(['filesystem', 'docs', 'notes.app']);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test('a second init --wrap writes nothing', () => {
    const l = layout();
    placeAll(l);
    run(l, { wrap: true });
    const snapshot = treeDigest(l.root);
    const again = run(l, { wrap: true });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Nothing to change: .* Nothing was written\./);
    // What still bypasses is said again, every time.
    expect(again.stdout).toMatch(/Still bypasses mcp-latch[^\n]*\n {2}VS Code \(workspace\) "search": /);
    expect(treeDigest(l.root)).toBe(snapshot);
  });

  test('a server added to a wrapped client file is added on the next run; a rule added with mcp-latch allow stays; undo restores both', async () => {
    const l = layout();
    const cursor = place(l, 'cursor', 'cursor-mcp.json');
    const original = readFileSync(cursor, 'utf8');
    run(l, { wrap: true });
    expect(await addRule('allow', 'Bash(make test)', { config: l.config }, memoryOutput())).toBe(0);
    const wrapped = readFileSync(cursor, 'utf8');
    writeFileSync(cursor, wrapped.replace('"mcpServers": {', '"mcpServers": {\n    "extra": { "command": "extra-server" },'));
    l.context.now = () => new Date(NOW.getTime() + 1000);

    const { summary } = runJson(l, { wrap: true });
    expect(Object.keys(summary.added)).toEqual(['extra']);
    const config = writtenConfig(l);
    expect(config.permissions.allow).toContain('Bash(make test)');
    expect(config.scopes.cursor.servers).toEqual(['filesystem', 'docs', 'notes-app', 'extra']);
    expect(readFileSync(cursor, 'utf8')).toBe(wrapped);

    expect(run(l, { undo: true }).code).toBe(0);
    const restored = parseJsonc(readFileSync(cursor, 'utf8'), cursor) as Record<string, any>;
    expect(restored).toEqual({ mcpServers: { ...(parseJsonc(original, cursor) as any).mcpServers, extra: { command: 'extra-server' } } });
  });

  test('undo after Claude Code rewrote ~/.claude.json keeps the rewrite and a server added since, and restores the servers', () => {
    const l = layout();
    const path = place(l, 'claude-code-user', 'claude-code-user.claude.json');
    const original = JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
    run(l, { wrap: true });
    // Claude Code rewrites the whole file on every start: new state keys, its own key order.
    const state = JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
    state.numStartups = 43;
    state.tipsHistory = { 'mcp-latch': 1 };
    state.mcpServers.added = { type: 'stdio', command: 'added-later', args: [], env: {} };
    writeFileSync(path, JSON.stringify(state, null, 2));

    const undone = run(l, { undo: true });
    expect(undone.code).toBe(0);
    const after = JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
    expect(after.numStartups).toBe(43);
    expect(after.tipsHistory).toEqual({ 'mcp-latch': 1 });
    expect(after.mcpServers).toEqual({ added: state.mcpServers.added, fetch: original.mcpServers.fetch });
    expect(after.projects['/home/me/code/app'].mcpServers).toEqual(original.projects['/home/me/code/app'].mcpServers);
    expect(undone.stdout).toMatch(/its content before this was saved to .*backups/);
  });

  test('writes through a symlinked client file and keeps the link', () => {
    if (process.platform === 'win32') return;
    const l = layout();
    const dotfiles = join(l.root, 'dotfiles');
    mkdirSync(dotfiles);
    copyFileSync(join(FIXTURES, 'cursor-mcp.json'), join(dotfiles, 'mcp.json'));
    const link = clientLocations(l.context).find((location) => location.id === 'cursor')!.path;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(dotfiles, 'mcp.json'), link);
    run(l, { wrap: true });
    expect(readFileSync(join(dotfiles, 'mcp.json'), 'utf8')).toContain('"latch"');
    run(l, { undo: true });
    expect(readFileSync(join(dotfiles, 'mcp.json')).equals(readFileSync(join(FIXTURES, 'cursor-mcp.json')))).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  // Round 16 review H2: the first file that could not be written ended init with a bare error naming
  // a temporary file, after earlier files had been rewritten; none of them was reported.
  test('a file it cannot write, or one edited while it ran, is left as it was and named; the others are wrapped and reported', () => {
    const l = layout();
    const paths = placeAll(l);
    const cursor = paths.get('cursor')!;
    const vscode = paths.get('vscode')!;
    const edited = `${readFileSync(vscode, 'utf8')}\n`;
    // The file's temporary twin is already there: the write fails (EEXIST), as a read-only folder does.
    writeFileSync(`${cursor}.mcp-latch-tmp-${process.pid}`, '');
    l.context.now = () => {
      writeFileSync(vscode, edited); // the person saves it between init's plan and its writes
      return NOW;
    };
    const { code, stdout, stderr } = run(l, { wrap: true });
    expect(code).toBe(1);
    expect(stderr).toContain(`  Cursor  ${cursor}: it could not be written (EEXIST)`);
    expect(stderr).toMatch(new RegExp(`VS Code[^\n]*${vscode.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it changed while init was running`));
    expect(readFileSync(cursor).equals(readFileSync(join(FIXTURES, 'cursor-mcp.json')))).toBe(true);
    expect(readFileSync(vscode, 'utf8')).toBe(edited);
    expect(readFileSync(paths.get('claude-desktop')!, 'utf8')).toContain('"latch"');
    expect(stdout).toMatch(/Wrapped[^\n]*\n(.*\n)*.*claude_desktop_config\.json/);
    expect(stdout).toContain('Undo with: mcp-latch init --undo');
  });

  // Round 20 review of faults, F8: the manifest that lets --undo restore a wrapped file could not be
  // written (a full disk beside the config) after the file was rewritten: init ended with a bare
  // "ENOSPC", the change unrecorded (--undo knew nothing of it) and unnamed, the other files untried.
  test('a change whose record cannot be written is put back and named; the others are wrapped, recorded, and undone by --undo', () => {
    const l = layout();
    const paths = placeAll(l);
    const manifest = join(dirname(l.config), 'mcp-latch-init.json');
    mkdirSync(dirname(l.config), { recursive: true });
    // The manifest's temporary twin is already there: its first write fails (EEXIST), as a full disk does.
    writeFileSync(`${manifest}.mcp-latch-tmp-${process.pid}`, '');
    const before = new Map([...paths].map(([id, path]) => [id, readFileSync(path)]));
    const { code, stdout, stderr } = run(l, { wrap: true });
    expect(code).toBe(1);
    const putBack = [...paths].filter(([id, path]) => readFileSync(path).equals(before.get(id)!));
    expect(putBack).toHaveLength(1);
    const [, first] = putBack[0]!;
    expect(stderr).toContain(`${first}: its change could not be recorded in ${manifest} (EEXIST), so it was put back as it was`);
    const recorded = (JSON.parse(readFileSync(manifest, 'utf8')) as { wrapped: Array<{ file: string }> }).wrapped.map((record) => record.file);
    for (const [, path] of paths) expect(recorded.includes(path)).toBe(path !== first);
    expect(stdout).toContain('Undo with: mcp-latch init --undo');
    run(l, { undo: true });
    for (const [id, path] of paths) expect(readFileSync(path).equals(before.get(id)!)).toBe(true);
  });

  // The same review: --undo on a full disk ended with a bare error at the first file it could not
  // write, after earlier ones were restored, naming none of them.
  test('--undo: a file it cannot write is named and left as it was; the others are restored and reported', () => {
    const l = layout();
    const paths = placeAll(l);
    const before = new Map([...paths].map(([id, path]) => [id, readFileSync(path)]));
    expect(run(l, { wrap: true }).code).toBe(0);
    const cursor = paths.get('cursor')!;
    const wrapped = readFileSync(cursor);
    // The file's temporary twin is already there: its write fails (EEXIST), as a full disk does.
    writeFileSync(`${cursor}.mcp-latch-tmp-${process.pid}`, '');
    const { code, stdout, stderr } = run(l, { undo: true });
    expect(code).toBe(1);
    expect(stderr).toContain(`mcp-latch: could not restore ${cursor}: it could not be written (EEXIST); it is as it was`);
    expect(readFileSync(cursor).equals(wrapped)).toBe(true);
    for (const [id, path] of paths) if (path !== cursor) expect(readFileSync(path).equals(before.get(id)!)).toBe(true);
    expect(stdout).toMatch(/Restored \d+ servers? .* in .*claude_desktop_config\.json/);
    // Once it can be written, --undo restores it too.
    expect(run(l, { undo: true }).code).toBe(0);
    expect(readFileSync(cursor).equals(before.get('cursor')!)).toBe(true);
  });

  test('never imports mcp-latch itself', () => {
    const other = layout();
    const file = join(other.root, 'mixed.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          latch: { command: 'npx', args: ['-y', 'mcp-latch@0.1.0', 'serve'] },
          'latch-win': { command: 'cmd', args: ['/c', 'npx', '-y', 'mcp-latch', 'serve'] },
          'latch-checkout': { command: process.execPath, args: [join(ROOT, 'bin', 'mcp-latch.js'), 'serve', '--config', other.config] },
          // A folder that happens to be called mcp-latch is not the gateway.
          repo: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/code/mcp-latch'] },
        },
      }),
    );
    const { summary } = runJson(other, { from: file });
    expect(Object.keys(writtenConfig(other).mcpServers)).toEqual(['repo']);
    expect(summary.sources[0].skipped).toEqual([
      { name: 'latch', reason: 'it starts mcp-latch itself', self: true },
      { name: 'latch-win', reason: 'it starts mcp-latch itself', self: true },
      { name: 'latch-checkout', reason: 'it starts mcp-latch itself', self: true },
    ]);
  });
});

describe('init --dry-run', () => {
  test('prints the config and a diff of each client file, and writes nothing', () => {
    const l = layout();
    placeAll(l);
    const before = treeDigest(l.root);
    const { code, stdout } = run(l, { wrap: true, dryRun: true });
    expect(code).toBe(0);
    expect(treeDigest(l.root)).toBe(before);
    expect(existsSync(l.config)).toBe(false);
    expect(stdout).toContain(`Would write ${l.config}:`);
    expect(stdout).toContain('"mcpServers": {');
    expect(stdout).toMatch(/Would back up and change Claude Desktop:\n--- .*claude_desktop_config\.json\n\+\+\+ .*claude_desktop_config\.json \(wrapped\)\n@@ -1,/);
    expect(stdout).toContain('-    "filesystem": {');
    expect(stdout).toContain('+    "latch": {');
    expect(stdout).toContain(' "globalShortcut": "Ctrl+Space",');
    expect(stdout.trimEnd().endsWith('Dry run: nothing was written.')).toBe(true);
  });

  test('--json carries the config text and the diffs; --undo --dry-run writes nothing either', () => {
    const l = layout();
    placeAll(l);
    const before = treeDigest(l.root);
    const { summary } = runJson(l, { wrap: true, dryRun: true });
    expect(treeDigest(l.root)).toBe(before);
    expect(summary.dryRun).toBe(true);
    expect(() => parseConfigText(summary.configText, l.config, ruleIssues)).not.toThrow();
    expect(summary.wrap).toHaveLength(7);
    expect(summary.wrap[0].diff).toMatch(/^--- /);

    run(l, { wrap: true });
    const wrapped = treeDigest(l.root);
    const undo = runJson(l, { undo: true, dryRun: true }).summary;
    expect(undo.restored).toHaveLength(7);
    expect(treeDigest(l.root)).toBe(wrapped);
  });
});

describe('the wrapped entry', () => {
  test('runs this copy by absolute path with this Node, for one scope; never npx', () => {
    expect(gatewayLaunch('/c/m.json', 'cursor', { execPath: '/usr/bin/node', packageRoot: '/opt/mcp-latch' })).toEqual({
      command: '/usr/bin/node',
      args: [join('/opt/mcp-latch', 'bin', 'mcp-latch.js'), 'serve', '--config', '/c/m.json', '--scope', 'cursor'],
    });
  });
});

describe('unifiedDiff', () => {
  test('shows only the changed lines with context, and marks a missing final newline', () => {
    const old = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n') + '\n';
    const next = ['a', 'b', 'c', 'D', 'e', 'f', 'g', 'h'].join('\n') + '\n';
    expect(unifiedDiff(old, next, 'x', 'y')).toBe(['--- x', '+++ y', '@@ -1,7 +1,7 @@', ' a', ' b', ' c', '-d', '+D', ' e', ' f', ' g'].join('\n'));
    expect(unifiedDiff('a\nb', 'a\nc', 'x', 'y')).toBe(['--- x', '+++ y', '@@ -1,2 +1,2 @@', ' a', '-b\n\\ No newline at end of file', '+c\n\\ No newline at end of file'].join('\n'));
    expect(unifiedDiff('same', 'same', 'x', 'y')).toBe('');
  });
});

describe('mcp-latch init (spawned)', () => {
  test('--help lists the options with examples', () => {
    const result = spawnSync(process.execPath, [BIN, 'init', '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    for (const option of ['--wrap', '--undo', '--dry-run', '--from', '--client', '--force', '--json', '--workspace']) expect(result.stdout).toContain(option);
    expect(result.stdout).toContain('Examples:');
  });

  test('an error is one line and exit 1', () => {
    const l = layout();
    const result = spawnSync(process.execPath, [BIN, 'init', '--from', join(l.root, 'missing.json'), '--config', l.config], {
      encoding: 'utf8',
      env: { ...process.env, HOME: l.home, USERPROFILE: l.home, XDG_CONFIG_HOME: join(l.home, '.config'), APPDATA: join(l.home, 'AppData', 'Roaming') },
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mcp-latch: --from .*missing\.json does not exist$/)]);
  });
});
