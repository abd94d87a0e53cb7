import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, test, vi } from 'vitest';
import { check } from '../src/cli/check.js';
import { memoryOutput } from '../src/cli/output.js';
import { validate } from '../src/cli/validate.js';
import { readManifest } from '../src/clients/manifest.js';
import { loadConfig, parseConfigText } from '../src/config/load.js';
import { ChildTransport } from '../src/downstream/child-transport.js';
import { connectServer } from '../src/downstream/connect.js';
import { parseMessage } from '../src/downstream/lines.js';
import { StdioUpstream } from '../src/gateway/stdio-upstream.js';
import { PermitBook } from '../src/downstream/permit.js';
import { LatchError, type LatchErrorCode } from '../src/errors.js';
import { silentLogger } from '../src/log.js';
import { policyFor, ruleIssues } from '../src/policy/policy.js';
import { parseRule } from '../src/policy/rule.js';
import { RulesFile } from '../src/store/rules-file.js';
import { RedisTeamStore } from '../src/team/redis-store.js';
import { configIssues } from '../src/policy/policy.js';
import { tempDir } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';

/** Every documented LatchError code, thrown by the code that owns it and asserted by code. */
async function thrown(fn: () => unknown): Promise<LatchError> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LatchError);
    return error as LatchError;
  }
  throw new Error('expected a LatchError, nothing was thrown');
}

const env = { home: '/home/u', roots: [], platform: 'linux' as const };

describe('LatchError codes', () => {
  test('CONFIG_INVALID: a bad file lists every issue with its key path', async () => {
    const error = await thrown(() => parseConfigText(JSON.stringify({ permissions: { deny: ['Bash(a * b)'] }, nope: 1 }), '/c/mcp-latch.json', ruleIssues));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((issue) => issue.path)).toContain('nope');
  });

  test('CONFIG_INVALID: a bad rule is an issue of the file, not dropped', async () => {
    const error = await thrown(() => parseConfigText(JSON.stringify({ permissions: { deny: ['Bash(a * b)'] } }), '/c/mcp-latch.json', ruleIssues));
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', issues: [{ path: 'permissions.deny[0]' }] });
  });

  test('CONFIG_NOT_FOUND: the named file does not exist', async () => {
    const error = await thrown(() => loadConfig(join(tempDir(), 'missing.json'), ruleIssues));
    expect(error.code).toBe('CONFIG_NOT_FOUND');
    expect(error.message).toContain('mcp-latch init');
  });

  test('RULE_INVALID: a rule string that cannot be parsed', async () => {
    expect((await thrown(() => parseRule('Bash(a * b)', 'deny'))).code).toBe('RULE_INVALID');
  });

  test('RULE_INVALID: a policy is never built with a bad rule left out', async () => {
    const error = await thrown(() => policyFor({ defaultMode: 'default', allow: [], ask: [], deny: ['Read(!x)'] }, '/c/mcp-latch.json', null, env));
    expect(error.code).toBe('RULE_INVALID');
    expect(error.message).toContain('permissions.deny[0]');
  });

  test('SERVER_START_FAILED: a server that exits before its handshake', async () => {
    const capabilities = {};
    const hooks = { elicit: async () => ({ action: 'decline' as const }), sample: async () => ({}) as never, listRoots: async () => ({ roots: [] }), onLog: () => undefined, onResourceUpdated: () => undefined, onListChanged: () => undefined };
    const error = await thrown(() =>
      connectServer({ name: 'gone', config: { command: process.execPath, args: ['-e', 'process.exit(3)'] }, capabilities, hooks, logger: silentLogger(), timeoutMs: 20_000, version: '0', maxMessageBytes: 1 << 20 }),
    );
    expect(error.code).toBe('SERVER_START_FAILED');
  });

  test('SERVER_UNAVAILABLE: sending to a server process that is not running', async () => {
    const transport = new ChildTransport({ command: 'never-started', args: [], env: {}, maxMessageBytes: 1 << 20 });
    const error = await thrown(() => transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(error.code).toBe('SERVER_UNAVAILABLE');
    expect(error.message).toContain('never-started');
  });

  test('STORE_WRITE_FAILED: remembering a rule in a file that is not valid JSON right now', async () => {
    const path = join(tempDir(), 'mcp-latch.json');
    writeFileSync(path, '{ "permissions": ');
    const error = await thrown(() => new RulesFile(path, configIssues).add('allow', ['Bash(ls)']));
    expect(error.code).toBe('STORE_WRITE_FAILED');
    expect(error.message).toContain('fix the file and try again');
  });

  test('STORE_UNAVAILABLE: a team store URL where no Redis server answers', async () => {
    const port = await freePort();
    const error = await thrown(() => RedisTeamStore.connect({ url: `redis://:secret@127.0.0.1:${port}`, logger: silentLogger() }));
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.message).toContain('check store.url');
    expect(error.message).not.toContain('secret');
  });

  test('MESSAGE_INVALID: a line that is not JSON-RPC, with the JSON-RPC code of its answer', async () => {
    const error = await thrown(() => parseMessage('not json'));
    expect(error).toMatchObject({ code: 'MESSAGE_INVALID', rpcCode: -32700 });
  });

  test('MESSAGE_TOO_LARGE: a request over limits.messageMB is reported, dropped, and answered with an error', async () => {
    const input = new PassThrough();
    const written: string[] = [];
    const output = new Writable({ write: (chunk: Buffer, _encoding, done) => (written.push(chunk.toString()), done()) });
    const upstream = new StdioUpstream(64, input, output);
    const errors: Error[] = [];
    upstream.onerror = (error) => errors.push(error);
    await upstream.start();
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x', arguments: { text: 'y'.repeat(200) } } })}\n`);
    await vi.waitFor(() => expect(written.join('')).toContain('"id":7'));
    expect(errors[0]).toBeInstanceOf(LatchError);
    expect((errors[0] as LatchError).code).toBe('MESSAGE_TOO_LARGE');
    await upstream.close();
  });

  test('CONNECTION_CLOSED: sending to a client whose connection closed', async () => {
    const upstream = new StdioUpstream(1 << 20, new PassThrough(), new PassThrough());
    await upstream.start();
    await upstream.close();
    expect((await thrown(() => upstream.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }))).code).toBe('CONNECTION_CLOSED');
  });

  test('CLIENT_FILE_INVALID: an init manifest that is not one', async () => {
    const path = join(tempDir(), 'mcp-latch-init.json');
    writeFileSync(path, JSON.stringify({ version: 9 }));
    expect((await thrown(() => readManifest(path))).code).toBe('CLIENT_FILE_INVALID');
  });

  test('USAGE: check with a tool name that is not SERVER__TOOL', async () => {
    const dir = tempDir();
    const config = join(dir, 'mcp-latch.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    const error = await thrown(() => check({ config, tool: 'nounderscores' }, memoryOutput()));
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain('--tool must be SERVER__TOOL');
  });

  test('INTERNAL: a forward with a permit that was never issued', async () => {
    const permit = Object.freeze({ server: 's', target: 't', args: {} });
    const error = await thrown(() => new PermitBook().spend(permit, 's', 't', permit.args));
    expect(error.code).toBe('INTERNAL');
  });

  test('every documented code is covered above', () => {
    const covered: LatchErrorCode[] = ['CONFIG_INVALID', 'CONFIG_NOT_FOUND', 'RULE_INVALID', 'SERVER_START_FAILED', 'SERVER_UNAVAILABLE', 'STORE_WRITE_FAILED', 'STORE_UNAVAILABLE', 'MESSAGE_INVALID', 'MESSAGE_TOO_LARGE', 'CONNECTION_CLOSED', 'CLIENT_FILE_INVALID', 'USAGE', 'INTERNAL'];
    // A code added to LatchErrorCode but not to this list fails to compile here.
    const all: Record<LatchErrorCode, true> = Object.fromEntries(covered.map((code) => [code, true])) as Record<LatchErrorCode, true>;
    expect(Object.keys(all)).toHaveLength(13);
  });
});

describe('validate --json', () => {
  test('prints every issue of an invalid file as data and exits 1', () => {
    const dir = tempDir();
    const config = join(dir, 'mcp-latch.json');
    writeFileSync(config, JSON.stringify({ permissions: { deny: ['Bash(a * b)'], allow: ['Read(!x)'] } }));
    const out = memoryOutput();
    expect(validate({ config, json: true }, out)).toBe(1);
    const printed = JSON.parse(out.stdout.join("\n")) as { ok: boolean; issues: Array<{ path: string }> };
    expect(printed.ok).toBe(false);
    expect(printed.issues.map((issue) => issue.path).sort()).toEqual(['permissions.allow[0]', 'permissions.deny[0]']);
  });
});
