import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseJsonc } from '../../src/clients/client-file.js';
import { BIN, COMMANDS_SERVER, EVERYTHING_SERVER, FIXTURE_SERVER, FS_SERVER, tempDir } from '../helpers/gateway.js';
import { treeDigest } from '../helpers/tree-digest.js';

/**
 * A realistic home with all five clients, each file written the way that client writes it, the
 * BUILT `mcp-latch init --wrap` run on it as a person would, and then every wrapped entry started
 * exactly as its client starts it (its command and args, in the project folder for project
 * servers), listing tools: each client gets exactly the servers its own file had.
 */
const NODE = process.execPath;

interface Home {
  root: string;
  home: string;
  project: string;
  other: string;
  env: NodeJS.ProcessEnv;
  files: Record<string, string>;
}

function fixture(name: string, extra: Record<string, unknown> = {}) {
  return { command: NODE, args: [FIXTURE_SERVER], env: { FIXTURE_NAME: name }, ...extra };
}

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function buildHome(): Home {
  const root = tempDir('mcp-latch-home-');
  const home = join(root, 'home');
  const project = join(home, 'code', 'app');
  const other = join(home, 'code', 'other');
  mkdirSync(project, { recursive: true });
  mkdirSync(other, { recursive: true });
  const docs = join(home, 'docs');
  mkdirSync(docs);
  const env = { PATH: process.env.PATH, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: join(home, '.config'), APPDATA: join(home, 'AppData', 'Roaming') };
  const filesystem = { command: NODE, args: [FS_SERVER, docs] };

  const files: Record<string, string> = {
    // Claude Desktop: plain JSON, two spaces, other settings, no final newline.
    'claude-desktop': write(
      join(home, '.config', 'Claude', 'claude_desktop_config.json'),
      JSON.stringify({ globalShortcut: 'Ctrl+Space', mcpServers: { filesystem, everything: { command: NODE, args: [EVERYTHING_SERVER] } } }, null, 2),
    ),
    // Cursor, user file: JSONC with comments and trailing commas; the same filesystem server.
    cursor: write(
      join(home, '.cursor', 'mcp.json'),
      `// Cursor global servers\n{\n  "mcpServers": {\n    /* same as Claude Desktop */\n    "filesystem": ${JSON.stringify(filesystem)},\n  },\n}\n`,
    ),
    // Cursor, project file: ${workspaceFolder}.
    'cursor-project': write(
      join(project, '.cursor', 'mcp.json'),
      `{\n  "mcpServers": {\n    "project-fs": { "command": ${JSON.stringify(NODE)}, "args": [${JSON.stringify(FS_SERVER)}, "\${workspaceFolder}"] }\n  }\n}\n`,
    ),
    // VS Code, user mcp.json: inputs, a server with a prompted key (cannot be imported), envFile.
    'vscode-user': write(
      join(home, '.config', 'Code', 'User', 'mcp.json'),
      `{\n\t"inputs": [{ "type": "promptString", "id": "token", "description": "API token", "password": true }],\n\t"servers": {\n\t\t"prompted": { "type": "http", "url": "https://api.example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },\n\t\t"user-fixture": ${JSON.stringify({ type: 'stdio', ...fixture('user-fixture') })}\n\t}\n}\n`,
    ),
    // VS Code, workspace file: JSONC, CRLF, an envFile relative to the workspace.
    vscode: write(
      join(project, '.vscode', 'mcp.json'),
      `{\r\n\t// this workspace's servers\r\n\t"servers": {\r\n\t\t"workspace-fixture": { "type": "stdio", "command": ${JSON.stringify(NODE)}, "args": [${JSON.stringify(FIXTURE_SERVER)}], "envFile": "\${workspaceFolder}/.env" },\r\n\t},\r\n}\r\n`,
    ),
    // Claude Code: user scope, local scope of two projects (one empty), its usual state keys.
    'claude-code-user': write(
      join(home, '.claude.json'),
      JSON.stringify(
        {
          numStartups: 12,
          installMethod: 'global',
          autoUpdates: true,
          userID: 'c0ffee',
          mcpServers: { commands: { type: 'stdio', command: NODE, args: [COMMANDS_SERVER], env: {} } },
          projects: {
            // The person approved the project servers (Claude Code starts only those: claude-approval.ts).
            [project]: { allowedTools: [], mcpServers: { 'local-fs': { type: 'stdio', command: NODE, args: [FS_SERVER, '.'], env: {} } }, hasTrustDialogAccepted: true, enabledMcpjsonServers: ['echo'] },
            [other]: { allowedTools: [], mcpServers: {}, hasTrustDialogAccepted: false, enabledMcpjsonServers: ['other-fixture'] },
          },
        },
        null,
        2,
      ),
    ),
    // Claude Code, project scope: ${VAR:-default}; and the .mcp.json of another project it knows.
    'claude-code': write(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { echo: { command: NODE, args: [FIXTURE_SERVER], env: { FIXTURE_NAME: '${ECHO_NAME:-project-echo}' } } } }, null, 2)),
    'claude-code-other': write(join(other, '.mcp.json'), JSON.stringify({ mcpServers: { 'other-fixture': fixture('other') } }, null, 2)),
    // Windsurf: serverUrl style file with disabledTools.
    windsurf: write(join(home, '.codeium', 'windsurf', 'mcp_config.json'), JSON.stringify({ mcpServers: { 'ws-fixture': { ...fixture('windsurf'), disabledTools: ['crash'] } } }, null, 2)),
  };
  write(join(project, '.env'), '# started by VS Code with this env file\nFIXTURE_START_FILE=started-by-envfile.pid\n');
  return { root, home, project, other, env, files };
}

function cli(h: Home, args: string[]) {
  return spawnSync(NODE, [BIN, ...args], { cwd: h.project, env: h.env, encoding: 'utf8', timeout: 60_000 });
}

/** The servers block at `path` of a client file. */
function block(file: string, path: string[]): Record<string, any> {
  let value = parseJsonc(readFileSync(file, 'utf8'), file) as any;
  for (const key of path) value = value[key];
  return value as Record<string, any>;
}

/** Starts one client entry as the client would and lists its tools; returns the server prefixes. */
async function serversOf(entry: { command: string; args: string[] }, cwd: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const client = new Client({ name: 'client-under-test', version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, cwd, env: env as Record<string, string>, stderr: 'ignore' });
  let changed: () => void = () => undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  // A server that fails instead is reported with a log message.
  client.setNotificationHandler(LoggingMessageNotificationSchema, () => changed());
  await client.connect(transport, { timeout: 30_000 });
  try {
    // The first list may come before a server is ready (it is then reported as starting, and
    // announced with list_changed when it is, or a log message when it failed): list again until none is starting.
    for (;;) {
      const announced = new Promise<void>((resolve) => (changed = resolve));
      const { tools, _meta } = await client.listTools(undefined, { timeout: 60_000 });
      const starting = ((_meta?.['mcp-latch/unavailable'] ?? []) as Array<{ state: string }>).some((entry) => entry.state === 'starting');
      if (!starting) return [...new Set(tools.map((tool) => tool.name.split('__')[0]!))].sort();
      await announced;
    }
  } finally {
    await client.close();
  }
}

describe('init --wrap on a realistic home with all five clients', () => {
  let h: Home;
  let original: Record<string, Buffer>;
  let wrap: ReturnType<typeof cli>;

  beforeAll(() => {
    h = buildHome();
    original = Object.fromEntries(Object.entries(h.files).map(([id, path]) => [id, readFileSync(path)]));
    wrap = cli(h, ['init', '--wrap']);
  });

  afterAll(() => undefined);

  test('wraps every client file and says loudly what still bypasses mcp-latch', () => {
    expect(wrap.status, wrap.stderr).toBe(0);
    expect(wrap.stdout).toMatch(/Still bypasses mcp-latch[^\n]*\n {2}VS Code \(user\) "prompted": "prompted" headers\.Authorization uses \$\{input:token\}, a VS Code input prompt mcp-latch cannot show/);
    // The unimportable server is still in its client file, untouched; the others are behind "latch".
    const vscodeUser = block(h.files['vscode-user']!, ['servers']);
    expect(Object.keys(vscodeUser)).toEqual(['latch', 'prompted']);
    expect(vscodeUser.prompted.headers.Authorization).toBe('Bearer ${input:token}');
    // Backups are in the config's private folder, none in the projects.
    expect(readdirSync(h.project).sort()).toEqual(['.cursor', '.env', '.mcp.json', '.vscode']);
    expect(readdirSync(join(h.home, '.config', 'mcp-latch', 'mcp-latch-backups'))).toHaveLength(9);
  });

  test('a second init --wrap writes nothing', () => {
    const before = treeDigest(h.root);
    const again = cli(h, ['init', '--wrap']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('Nothing to change');
    expect(treeDigest(h.root)).toBe(before);
  });

  test('each wrapped entry, started as its client starts it, lists exactly the servers that client file had', { timeout: 300_000 }, async () => {
    const cases: Array<{ file: string; path: string[]; entry: string; cwd: string; servers: string[] }> = [
      { file: h.files['claude-desktop']!, path: ['mcpServers'], entry: 'latch', cwd: h.home, servers: ['everything', 'filesystem'] },
      { file: h.files.cursor!, path: ['mcpServers'], entry: 'latch', cwd: h.home, servers: ['filesystem'] },
      { file: h.files['cursor-project']!, path: ['mcpServers'], entry: 'latch-project', cwd: h.project, servers: ['project-fs'] },
      { file: h.files['vscode-user']!, path: ['servers'], entry: 'latch', cwd: h.home, servers: ['user-fixture'] },
      { file: h.files.vscode!, path: ['servers'], entry: 'latch-project', cwd: h.project, servers: ['workspace-fixture'] },
      { file: h.files['claude-code-user']!, path: ['mcpServers'], entry: 'latch', cwd: h.project, servers: ['commands'] },
      { file: h.files['claude-code-user']!, path: ['projects', h.project, 'mcpServers'], entry: 'latch-local', cwd: h.project, servers: ['local-fs'] },
      { file: h.files['claude-code']!, path: ['mcpServers'], entry: 'latch-project', cwd: h.project, servers: ['echo'] },
      { file: h.files['claude-code-other']!, path: ['mcpServers'], entry: 'latch-project', cwd: h.other, servers: ['other-fixture'] },
      { file: h.files.windsurf!, path: ['mcpServers'], entry: 'latch', cwd: h.home, servers: ['ws-fixture'] },
    ];
    for (const one of cases) {
      const entries = block(one.file, one.path);
      expect(Object.keys(entries), one.file).toContain(one.entry);
      const entry = entries[one.entry] as { command: string; args: string[] };
      expect(entry.command).toBe(NODE);
      expect(await serversOf(entry, one.cwd, h.env), `${one.file} ${one.entry}`).toEqual(one.servers);
    }
    // The VS Code workspace server read its envFile and ran in the project folder.
    expect(existsSync(join(h.project, 'started-by-envfile.pid'))).toBe(true);
    // The Claude Code empty local scope got no entry.
    expect(block(h.files['claude-code-user']!, ['projects', h.other, 'mcpServers'])).toEqual({});
  });

  test('undo puts every client file back byte for byte', () => {
    const undo = cli(h, ['init', '--undo']);
    expect(undo.status, undo.stderr).toBe(0);
    for (const [id, path] of Object.entries(h.files)) expect(readFileSync(path).equals(original[id]!), id).toBe(true);
  });
});

// Round 16 review H1: an exported but empty XDG_CONFIG_HOME (`??` kept "") wrote the config and the
// backups of ~/.claude.json into the project and a relative `--config` into every client, whose
// gateway then found no config from the client's own folder; Claude Desktop's file was not found.
describe.each([[''], ['relative/config']])('init --wrap with XDG_CONFIG_HOME=%j', (xdg) => {
  test('takes ~/.config as the spec says, writes absolute --config paths and nothing into the project', () => {
    const h = buildHome();
    const wrap = spawnSync(NODE, [BIN, 'init', '--wrap'], { cwd: h.project, env: { ...h.env, XDG_CONFIG_HOME: xdg }, encoding: 'utf8', timeout: 60_000 });
    expect(wrap.status, wrap.stderr).toBe(0);
    expect(existsSync(join(h.home, '.config', 'mcp-latch', 'mcp-latch.json'))).toBe(true);
    expect(readdirSync(h.project).sort()).toEqual(['.cursor', '.env', '.mcp.json', '.vscode']);
    const desktop = block(h.files['claude-desktop']!, ['mcpServers']);
    expect(Object.keys(desktop)).toEqual(['latch']);
    const args = desktop.latch.args as string[];
    expect(args[args.indexOf('--config') + 1]).toBe(join(h.home, '.config', 'mcp-latch', 'mcp-latch.json'));
  });
});
