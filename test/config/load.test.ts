import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { configCandidates, expandServerEnv, parseConfigText, serversToRun, workspaceRoots } from '../../src/config/load.js';
import type { LatchError } from '../../src/errors.js';
import { ruleIssues } from '../../src/policy/policy.js';
import { tempDir } from '../helpers/gateway.js';

describe('config lookup order (docs/config.md)', () => {
  test('--config, then $MCP_LATCH_CONFIG, then ./mcp-latch.json, then the per-user file', () => {
    expect(configCandidates('x.json', { MCP_LATCH_CONFIG: '/e.json' }, '/work')).toEqual(['/work/x.json']);
    expect(configCandidates(undefined, { MCP_LATCH_CONFIG: '/e.json' }, '/work')).toEqual(['/e.json']);
    const fallback = configCandidates(undefined, { XDG_CONFIG_HOME: '/home/u/.config' }, '/work');
    expect(fallback[0]).toBe('/work/mcp-latch.json');
    if (process.platform !== 'win32') expect(fallback[1]).toBe('/home/u/.config/mcp-latch/mcp-latch.json');
  });
});

describe('config text', () => {
  test('takes a pasted Claude Desktop / Cursor / Claude Code block as it is', () => {
    const text = JSON.stringify({
      mcpServers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/x'], env: { A: '1' } },
        cc: { type: 'stdio', command: 'node', args: ['s.js'], timeout: 30000 },
        docs: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${env:DOCS_TOKEN}' } },
        cursor: { url: 'https://example.com/sse', type: 'sse' },
        off: { command: 'x', disabled: true },
      },
    });
    const loaded = parseConfigText(text, '/cfg/mcp-latch.json', ruleIssues);
    expect(Object.keys(serversToRun(loaded))).toEqual(['fs', 'cc', 'docs', 'cursor']);
  });

  test('every problem is named by its key path, on its own line', () => {
    const text = JSON.stringify({ mcpServers: { a: { url: 'ftp://x' }, b: {}, c: { command: 'x', url: 'http://y' } }, permissions: { allow: ['Bash(a * b)'] }, approval: { timeoutSeconds: -1 }, extra: 1 });
    try {
      parseConfigText(text, '/cfg/mcp-latch.json', ruleIssues);
      expect.unreachable();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('mcpServers.a.url: url must be an http:// or https:// URL');
      expect(message).toContain('mcpServers.b: a server needs either "command" (stdio) or "url" (remote)');
      expect(message).toContain('mcpServers.c: a server has either "command" (stdio) or "url" (remote), not both');
      expect(message).toContain('approval.timeoutSeconds');
      expect(message).toContain('extra: unknown key');
    }
  });

  test('approval.localUrlNetworks: each ADDRESS/LENGTH, else named with an example (round 22)', () => {
    const ok = parseConfigText(JSON.stringify({ approval: { localUrlNetworks: ['10.20.0.0/16', 'fd12:3456::/48'] } }), '/cfg/mcp-latch.json', ruleIssues);
    expect(ok.file.approval.localUrlNetworks).toEqual(['10.20.0.0/16', 'fd12:3456::/48']);
    for (const bad of ['10.20.0.0', '10.20.0.0/33', 'intranet.example/16', '10.0.0.0/8/8']) {
      expect(() => parseConfigText(JSON.stringify({ approval: { localUrlNetworks: [bad] } }), '/cfg/mcp-latch.json', ruleIssues)).toThrow('approval.localUrlNetworks[0]: a network is written ADDRESS/LENGTH');
    }
  });

  test('unknown keys and values get the closest known one; workspace errors speak of paths', () => {
    const text = JSON.stringify({ permisions: {}, policy: { toolDescription: 'warn' }, mcpServers: { a: { command: 'x', arg: [] } }, tools: { a__t: { kind: 'writ' } }, workspace: 5, zzz: 1 });
    const issues = (() => {
      try {
        parseConfigText(text, '/cfg/mcp-latch.json', ruleIssues);
      } catch (error) {
        return (error as LatchError).issues;
      }
      return expect.unreachable();
    })();
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'permisions', message: 'unknown key (did you mean "permissions"?)' },
        { path: 'policy.toolDescription', message: 'unknown key (did you mean "toolDescriptions"?)' },
        { path: 'mcpServers.a.arg', message: 'unknown key (did you mean "args"?)' },
        { path: 'tools.a__t.kind', message: 'Invalid option: expected one of "read"|"write"|"command"|"all" (did you mean "write"?)' },
        { path: 'workspace', message: 'expected a path or a list of paths' },
        { path: 'zzz', message: 'unknown key' },
      ]),
    );
  });

  test("a server entry's key of the other shape says so; a remote server's protocolVersion names the limit (round 32 review P32-3)", () => {
    const issuesOf = (config: unknown) => {
      try {
        parseConfigText(JSON.stringify(config), '/cfg/mcp-latch.json', ruleIssues);
      } catch (error) {
        return (error as LatchError).issues;
      }
      return expect.unreachable();
    };
    // Before: 'unknown key (did you mean "protocolVersion"?)', the key itself offered.
    expect(issuesOf({ mcpServers: { r: { url: 'https://example.com/mcp', protocolVersion: '2026-07-28' } } })).toEqual([
      {
        path: 'mcpServers.r.protocolVersion',
        message: '"protocolVersion" is a key of a stdio server (one with "command"), not of a remote server (one with "url"): mcp-latch speaks MCP 2026-07-28 to stdio servers only, and a remote server in the 2025 era (remote 2026-07-28 servers are not supported yet; docs/approval.md). Remove the key',
      },
    ]);
    expect(issuesOf({ mcpServers: { r: { url: 'https://example.com/mcp', env: {} }, s: { command: 'x', headers: {} } } })).toEqual(
      expect.arrayContaining([
        { path: 'mcpServers.r.env', message: '"env" is a key of a stdio server (one with "command"), not of a remote server (one with "url")' },
        { path: 'mcpServers.s.headers', message: '"headers" is a key of a remote server (one with "url"), not of a stdio server (one with "command")' },
      ]),
    );
  });

  test('rule problems are reported once the shape is right', () => {
    expect(() => parseConfigText(JSON.stringify({ permissions: { allow: ['Bash(a * b)'] } }), '/c.json', ruleIssues)).toThrow(/permissions\.allow\[0\]: invalid rule "Bash\(a \* b\)"/);
  });

  test('syntax errors give the line and column; comments are called out', () => {
    expect(() => parseConfigText('{\n  "mcpServers": {},\n  // a comment\n}', '/c.json', ruleIssues)).toThrow(/line 3, column 3.*comments are not allowed/);
  });

  test('a relative server cwd is relative to the config file; ~ is the home directory', () => {
    const loaded = parseConfigText(JSON.stringify({ mcpServers: { a: { command: 'x', cwd: 'proj' }, b: { command: 'x', cwd: '~/code' } } }), '/cfg/mcp-latch.json', ruleIssues);
    const servers = serversToRun(loaded, '/home/u');
    expect(servers.a).toMatchObject({ cwd: join('/cfg', 'proj') });
    expect(servers.b).toMatchObject({ cwd: join('/home/u', 'code') });
  });
});

describe('${env:NAME}', () => {
  test('expands from the environment; a missing variable fails only that server, naming the key', () => {
    const ok = expandServerEnv('docs', { url: 'https://x', headers: { Authorization: 'Bearer ${env:TOKEN}' } }, { TOKEN: 's3' });
    expect(ok).toEqual({ ok: true, server: { url: 'https://x', headers: { Authorization: 'Bearer s3' } } });
    const missing = expandServerEnv('docs', { url: 'https://x', headers: { Authorization: 'Bearer ${env:NOPE}' } }, {});
    expect(missing).toEqual({ ok: false, issue: { path: 'mcpServers.docs.headers.Authorization', message: 'environment variable NOPE is not set' } });
  });
});

describe('${env:NAME:-default} and envFile', () => {
  test('a default is used when the variable is unset or empty', () => {
    const server = { command: 'x', args: ['${env:REGION:-eu-west-1}', '${env:SET:-no}'] };
    expect(expandServerEnv('s', server, { SET: 'yes' })).toEqual({ ok: true, server: { command: 'x', args: ['eu-west-1', 'yes'] } });
    expect(expandServerEnv('s', server, { REGION: '', SET: 'yes' })).toEqual({ ok: true, server: { command: 'x', args: ['eu-west-1', 'yes'] } });
  });

  test('envFile is read under the entry\'s own env; an unreadable one fails that server, naming it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.env'), '# comment\nexport TOKEN="a b"\nREGION=eu # note\nKEEP=file\n');
    const text = JSON.stringify({ mcpServers: { s: { command: 'x', envFile: '.env', env: { KEEP: 'entry' } }, t: { command: 'y', envFile: 'missing.env' } } });
    const loaded = parseConfigText(text, join(dir, 'mcp-latch.json'), ruleIssues);
    const servers = serversToRun(loaded);
    expect(expandServerEnv('s', servers.s!, {})).toEqual({ ok: true, server: { command: 'x', env: { TOKEN: 'a b', REGION: 'eu', KEEP: 'entry' } } });
    const failed = expandServerEnv('t', servers.t!, {});
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.issue).toMatchObject({ path: 'mcpServers.t.envFile', message: expect.stringMatching(/cannot read .*missing\.env/) });
  });
});

describe('scopes', () => {
  const text = JSON.stringify({
    mcpServers: { a: { command: 'a' }, b: { command: 'b' }, c: { command: 'c' } },
    workspace: '/work',
    scopes: { cursor: { servers: ['a', 'b'] }, 'vscode:/p': { servers: ['c'], workspace: ['/p'] } },
  });

  test('a scope serves only its servers, with its own workspace when it has one', () => {
    const cursor = parseConfigText(text, '/cfg/mcp-latch.json', ruleIssues, 'cursor');
    expect(Object.keys(serversToRun(cursor))).toEqual(['a', 'b']);
    expect(workspaceRoots(cursor)).toEqual(['/work']);
    const project = parseConfigText(text, '/cfg/mcp-latch.json', ruleIssues, 'vscode:/p');
    expect(Object.keys(serversToRun(project))).toEqual(['c']);
    expect(workspaceRoots(project)).toEqual(['/p']);
    expect(Object.keys(serversToRun(parseConfigText(text, '/cfg/mcp-latch.json', ruleIssues)))).toEqual(['a', 'b', 'c']);
  });

  test('an unknown scope or a scope naming a missing server is an error naming it', () => {
    expect(() => parseConfigText(text, '/cfg/mcp-latch.json', ruleIssues, 'windsurf')).toThrow(/scopes: no scope "windsurf" \(--scope\); the scopes are "cursor", "vscode:\/p"/);
    const bad = JSON.stringify({ mcpServers: { a: { command: 'a' } }, scopes: { cursor: { servers: ['a', 'gone'] } } });
    expect(() => parseConfigText(bad, '/cfg/mcp-latch.json', ruleIssues)).toThrow(/scopes\.cursor\.servers\[1\]: no server "gone" in mcpServers/);
  });
});

describe('a read of the config', () => {
  test('compiles no code: its schemas are new and parsed once, without zod\'s compiled fast path (docs/performance.md, "Round 12: the first list")', () => {
    const text = JSON.stringify({ mcpServers: { a: { command: 'node', args: ['a.js'], env: { K: 'v' } }, b: { url: 'https://example.com/mcp' } }, permissions: { allow: ['Read(./**)'], deny: ['Bash(rm *)'] }, tools: { 'a__run': { kind: 'command', command: 'cmd' } } });
    // zod's probe of whether it may compile runs once per process: let it run before counting.
    parseConfigText(text, '/cfg/mcp-latch.json', ruleIssues);
    const original = globalThis.Function;
    let compiled = 0;
    globalThis.Function = new Proxy(original, {
      construct(target, args) {
        compiled += 1;
        return Reflect.construct(target, args) as object;
      },
    });
    try {
      const loaded = parseConfigText(text, '/cfg/mcp-latch.json', ruleIssues);
      expect(Object.keys(loaded.file.mcpServers)).toEqual(['a', 'b']);
      expect(() => parseConfigText(JSON.stringify({ mcpServers: { a: { command: 'x', typo: 1 } } }), '/cfg/mcp-latch.json', ruleIssues)).toThrow(/typo/);
    } finally {
      globalThis.Function = original;
    }
    expect(compiled).toBe(0);
  });
});
