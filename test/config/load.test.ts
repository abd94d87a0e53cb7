import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { configCandidates, expandServerEnv, parseConfigText, serversToRun } from '../../src/config/load.js';
import { ruleIssues } from '../../src/policy/policy.js';

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
