import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { clientBlock, type ClientFamily, type ClientFile, type ClientFormat, type ClientId, type ClientLocation } from './client-file.js';
import { mcpServersFormat } from './mcp-servers.js';
import { vscodeFormat } from './vscode.js';
import { baseDirectory } from '../config/locate.js';
import { isPlainObject } from '../values.js';
import { windsurfFormat } from './windsurf.js';

/**
 * Where each client keeps its MCP config, per platform. Everything is computed from the injected
 * context, never from the process, so tests can lay out a Windows or macOS home in a temp dir:
 *
 *   Claude Desktop   macOS ~/Library/Application Support/Claude/claude_desktop_config.json
 *                    Windows %APPDATA%\Claude\…   Linux $XDG_CONFIG_HOME/Claude/… (~/.config)
 *   Claude Code      ~/.claude.json: user scope (top-level mcpServers) and local scope
 *                    (projects[dir].mcpServers, where `claude mcp add` writes by default);
 *                    project scope <dir>/.mcp.json, for <cwd> and every project ~/.claude.json knows
 *   Cursor           ~/.cursor/mcp.json, <cwd>/.cursor/mcp.json
 *   VS Code          <user config>/Code/User/mcp.json, <cwd>/.vscode/mcp.json
 *   Windsurf         ~/.codeium/windsurf/mcp_config.json
 */
export interface DiscoveryContext {
  home: string;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The names `--client` accepts: an id picks one file, a family every file of that client. */
export const CLIENT_NAMES: readonly string[] = [
  'claude-desktop',
  'claude-code',
  'claude-code-user',
  'claude-code-local',
  'cursor',
  'cursor-project',
  'vscode',
  'vscode-user',
  'windsurf',
];

const LABELS: Record<ClientId, string> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code-user': 'Claude Code (user)',
  'claude-code': 'Claude Code (project)',
  'claude-code-local': 'Claude Code (local)',
  cursor: 'Cursor',
  'cursor-project': 'Cursor (project)',
  'vscode-user': 'VS Code (user)',
  vscode: 'VS Code (workspace)',
  windsurf: 'Windsurf',
  cline: 'Cline',
  file: 'file',
};

/** The per-user application data folder: `~/Library/Application Support`, `%APPDATA%`, `$XDG_CONFIG_HOME`. */
function appDataDir(context: DiscoveryContext): string {
  if (context.platform === 'darwin') return join(context.home, 'Library', 'Application Support');
  if (context.platform === 'win32') return baseDirectory(context.env.APPDATA, join(context.home, 'AppData', 'Roaming'), 'win32');
  return baseDirectory(context.env.XDG_CONFIG_HOME, join(context.home, '.config'), context.platform);
}

function location(id: ClientId, family: ClientFamily, path: string, format: ClientFormat, projectDir?: string): ClientLocation {
  return { id, family, label: LABELS[id], path, scope: projectDir === undefined ? 'user' : 'project', format, blockPath: [format.serversKey], ...(projectDir === undefined ? {} : { projectDir }) };
}

/** The name of the `scopes` entry a block's servers go to: the client id, plus the project folder. */
export function scopeName(location: ClientLocation): string {
  return location.projectDir === undefined ? location.id : `${location.id}:${location.projectDir}`;
}

/**
 * The name of the gateway entry wrapped into a block. Short, because clients prefix tool names
 * (`mcp__latch__fs__read_file`) and some cap them at 64 characters; distinct per scope, because
 * Claude Code and Cursor merge their scopes by name and the nearer one would hide the others.
 */
export function gatewayEntryName(location: ClientLocation): string {
  if (location.scope === 'local') return 'latch-local';
  return location.scope === 'project' ? 'latch-project' : 'latch';
}

/**
 * Claude Code's local scope: each `projects[dir].mcpServers` of `~/.claude.json` that has servers,
 * as a block of its own whose servers run in `dir`.
 */
export function claudeCodeLocalBlocks(file: ClientFile): ClientFile[] {
  const projects = file.data.projects;
  if (file.location.id !== 'claude-code-user' || !isPlainObject(projects)) return [];
  return Object.entries(projects)
    .filter(([, project]) => isPlainObject(project) && isPlainObject(project.mcpServers) && Object.keys(project.mcpServers).length > 0)
    .map(([dir]) =>
      clientBlock(
        { id: 'claude-code-local', family: 'claude-code', label: `${LABELS['claude-code-local']} ${dir}`, path: file.location.path, scope: 'local', format: mcpServersFormat, blockPath: ['projects', dir, 'mcpServers'], projectDir: dir },
        file.bytes,
        file.data,
      ),
    );
}

/** The `.mcp.json` files of the projects `~/.claude.json` knows (Claude Code's project scope outside the working directory). */
export function claudeCodeProjectFiles(file: ClientFile): ClientLocation[] {
  const projects = file.data.projects;
  if (file.location.id !== 'claude-code-user' || !isPlainObject(projects)) return [];
  return Object.keys(projects)
    .map((dir) => location('claude-code', 'claude-code', join(dir, '.mcp.json'), mcpServersFormat, dir))
    .filter((candidate) => isFile(candidate.path));
}

/** Every place a client config may be, in a fixed order (the order name clashes are settled in). */
export function clientLocations(context: DiscoveryContext): ClientLocation[] {
  const { home, cwd } = context;
  const data = appDataDir(context);
  const all = [
    location('claude-desktop', 'claude-desktop', join(data, 'Claude', 'claude_desktop_config.json'), mcpServersFormat),
    location('claude-code-user', 'claude-code', join(home, '.claude.json'), mcpServersFormat),
    location('claude-code', 'claude-code', join(cwd, '.mcp.json'), mcpServersFormat, cwd),
    location('cursor', 'cursor', join(home, '.cursor', 'mcp.json'), mcpServersFormat),
    location('cursor-project', 'cursor', join(cwd, '.cursor', 'mcp.json'), mcpServersFormat, cwd),
    location('vscode-user', 'vscode', join(data, 'Code', 'User', 'mcp.json'), vscodeFormat),
    location('vscode', 'vscode', join(cwd, '.vscode', 'mcp.json'), vscodeFormat, cwd),
    location('windsurf', 'windsurf', join(home, '.codeium', 'windsurf', 'mcp_config.json'), windsurfFormat),
  ];
  // Run from the home directory, the project files are the user ones: keep the first.
  const seen = new Set<string>();
  return all.filter((candidate) => !seen.has(candidate.path) && seen.add(candidate.path));
}

/** The locations whose file exists. */
export function discoverClients(context: DiscoveryContext): ClientLocation[] {
  return clientLocations(context).filter((candidate) => isFile(candidate.path));
}

/** Does `--client NAME` select this location? An id picks that file, a family (`cursor`) all of its files. */
export function matchesClient(candidate: ClientLocation, name: string): boolean {
  return candidate.id === name || candidate.family === name;
}

/**
 * The client and format of an explicit `--from` file: by its name and folder first
 * (`claude_desktop_config.json`, `.vscode/mcp.json`, …), else by its content (a `servers` block
 * means VS Code; `serverUrl` entries mean Windsurf; otherwise the `mcpServers` format).
 */
export function locationForFile(path: string, data: Record<string, unknown>, context: DiscoveryContext): ClientLocation {
  const file = resolve(context.cwd, path);
  const name = basename(file).toLowerCase();
  const parent = basename(dirname(file)).toLowerCase();
  const project = dirname(dirname(file));
  const known = clientLocations(context).find((candidate) => candidate.path === file);
  if (known) return known;
  if (name === 'claude_desktop_config.json') return location('claude-desktop', 'claude-desktop', file, mcpServersFormat);
  if (name === '.claude.json') return location('claude-code-user', 'claude-code', file, mcpServersFormat);
  if (name === '.mcp.json') return location('claude-code', 'claude-code', file, mcpServersFormat, dirname(file));
  if (name === 'cline_mcp_settings.json') return location('cline', 'cline', file, mcpServersFormat);
  if (name === 'mcp_config.json' && parent === 'windsurf') return location('windsurf', 'windsurf', file, windsurfFormat);
  if (name === 'mcp.json' && parent === '.cursor') {
    return file === join(context.home, '.cursor', 'mcp.json') ? location('cursor', 'cursor', file, mcpServersFormat) : location('cursor-project', 'cursor', file, mcpServersFormat, project);
  }
  if (name === 'mcp.json' && parent === '.vscode') return location('vscode', 'vscode', file, vscodeFormat, project);
  if (name === 'mcp.json' && parent === 'user' && basename(project).toLowerCase().startsWith('code')) return location('vscode-user', 'vscode', file, vscodeFormat);
  if (isPlainObject(data.servers) && !isPlainObject(data.mcpServers)) return { ...location('file', 'vscode', file, vscodeFormat), label: `${file} (VS Code format)` };
  const entries = isPlainObject(data.mcpServers) ? Object.values(data.mcpServers) : [];
  if (entries.some((entry) => isPlainObject(entry) && 'serverUrl' in entry)) return { ...location('file', 'windsurf', file, windsurfFormat), label: `${file} (Windsurf format)` };
  return { ...location('file', 'other', file, mcpServersFormat), label: file };
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}
