import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { serverStartFiles } from '../../src/config/servers.js';
import { decide } from '../../src/policy/decide.js';
import { policyFor, ruleIssues } from '../../src/policy/policy.js';
import { inspectCall } from '../../src/subjects/inspect.js';
import { classifyTool } from '../../src/subjects/kind.js';
import { identifyServer } from '../../src/subjects/server-identity.js';
import { tempDir } from '../helpers/gateway.js';

/**
 * What the gateway and the MCP clients start servers from (docs/threat-model.md, "What starts a
 * server"). The round 11 review wrote a project server's envFile with `NODE_OPTIONS=--require
 * pwn.cjs` through server-filesystem in acceptEdits: it ran at the server's next start, outside
 * every rule. The config below is that project's.
 */
let dir = '';
const home = '/nonexistent-home';

function write(path: string) {
  return call('write_file', { path, content: 'x' }, 'acceptEdits');
}

function call(tool: string, args: Record<string, unknown>, mode: string) {
  const config = {
    permissions: { defaultMode: mode, allow: [`Edit(${dir}/**)`] },
    mcpServers: {
      fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', dir] },
      mine: { command: 'node', args: ['tools/server.mjs', '--port', '3'], envFile: 'tools/server.env', cwd: '.' },
      script: { command: './run.sh', cwd: 'bin' },
      git: { command: 'uvx', args: ['mcp-server-git', '--repository', dir] },
    },
  };
  const loaded = parseConfigText(JSON.stringify(config), join(dir, 'mcp-latch.json'), ruleIssues);
  const env = { home, roots: [dir], platform: process.platform };
  const policy = policyFor(loaded.file.permissions, loaded.path, null, env, serverStartFiles(loaded, '/elsewhere', home));
  const identity = identifyServer(config.mcpServers.fs, '/');
  const facts = inspectCall('fs', tool, args, classifyTool({ identity, tool: { name: tool } }), { workspace: [dir], clientRoots: [], pathEnv: { home, platform: process.platform } });
  return decide(facts, policy);
}

beforeAll(() => {
  dir = realpathSync(tempDir('start-files-'));
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'server.env'), 'A=1\n');
});

describe('what starts a server is not changed by a tool call', () => {
  test("a server's envFile is denied", () => {
    expect(write(join(dir, 'tools/server.env'))).toMatchObject({ verdict: 'deny', rule: `built-in protection of ${dir}/tools/server.env (a server's envFile)` });
  });
  // Round 16 review T3: it holds the secrets the config's `env` would (a team's servers'
  // credentials); it was only write-protected and a member's model read it in default mode.
  test.each([['default'], ['bypassPermissions']])("a server's envFile is not read (%s)", (mode) => {
    expect(call('read_text_file', { path: join(dir, 'tools/server.env') }, mode)).toMatchObject({ verdict: 'deny', rule: `built-in protection of ${dir}/tools/server.env (a server's envFile)` });
  });
  test.each([['tools/server.mjs'], ['bin/run.sh']])('the script %s a server runs asks, under an Edit allow rule', (file) => {
    expect(write(join(dir, file))).toMatchObject({ verdict: 'ask', rule: `built-in: the gateway starts a server from ${dir}/${file}` });
  });
  test.each([['.mcp.json'], ['.cursor/mcp.json'], ['.vscode/mcp.json'], ['.claude/settings.local.json']])("a client's %s asks", (file) => {
    expect(write(join(dir, file)).verdict).toBe('ask');
  });
  // Round 14 review T4: the repository named on mcp-server-git's command line made every git_add ask.
  test('a directory a server is started with is not a file it starts from', () => {
    expect(write(dir).verdict).toBe('allow');
  });
  test('other files are written as the rules say', () => {
    expect(write(join(dir, 'tools/notes.md')).verdict).toBe('allow');
  });
});
