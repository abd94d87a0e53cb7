import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FS_SERVER, fixtureCalls, fixtureServer, rawGateway, tempDir, writeConfig } from '../helpers/gateway.js';

/**
 * The calls of one read from the client are one batch (docs/approval.md#the-latch), whatever their order: an allowed
 * call written in the same read as a call that needs a person must not run before that person has
 * answered. Raw bytes on stdin, so both calls are certainly in one write (and so in one read).
 */
/** A fixture server `fix`, and `slow`, the same fixture up about two seconds after everything else. */
function fixAndSlow(log: string) {
  const slow = fixtureServer('slow', log);
  return {
    fix: fixtureServer('fix', log),
    slow: { command: '/bin/sh', args: ['-c', `sleep 2; exec "${slow.command}" "${slow.args[0]}"`], env: slow.env },
  };
}

describe('calls of one read', () => {
  test('an allowed call before an ask in the same read waits for the answer, then runs', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    const config = writeConfig(dir, {
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] }, fix: fixtureServer('fix', log) },
      workspace: [dir],
      permissions: { allow: ['mcp__fix__echo'] },
    });
    const gateway = rawGateway(config);
    const { send, find, messages } = gateway;
    try {
      await gateway.initialize({ elicitation: { form: {} } });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      await find((message) => message.id === 2);

      // One write: the allowed echo first, then a write that needs a person.
      const target = join(dir, 'asked.txt');
      send(
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: 'first in the read' } } },
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'fs__write_file', arguments: { path: target, content: 'x' } } },
      );
      const prompt = await find((message) => message.method === 'elicitation/create');
      // The prompt is up: the allowed call of the same read has not reached its server.
      await new Promise((done) => setTimeout(done, 200));
      expect(fixtureCalls(log)).toEqual([]);
      expect(messages.some((message) => message.id === 3)).toBe(false);

      send({ jsonrpc: '2.0', id: prompt.id, result: { action: 'decline' } });
      const echo = await find((message) => message.id === 3);
      const write = await find((message) => message.id === 4);
      expect(JSON.stringify(echo.result)).toContain('first in the read');
      expect(JSON.stringify(write.result)).toContain('Denied by mcp-latch');
      expect(existsSync(target)).toBe(false);
      expect(fixtureCalls(log).map((entry) => entry.args)).toEqual([{ text: 'first in the read' }]);
    } finally {
      await gateway.close();
    }
  });

  test('an allowed call does not run before a call of the same read whose server is still starting, and needs a person', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    const config = writeConfig(dir, {
      mcpServers: fixAndSlow(log),
      workspace: [dir],
      permissions: { allow: ['mcp__fix__echo'] },
    });
    const gateway = rawGateway(config);
    const { send, find, messages } = gateway;
    try {
      await gateway.initialize({ elicitation: { form: {} } });
      // No tools/list first: it would wait for the slow server. fix is up well before slow.
      await new Promise((done) => setTimeout(done, 600));
      send(
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: 'allowed' } } },
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'slow__whoami', arguments: {} } },
      );
      const prompt = await find((message) => message.method === 'elicitation/create');
      expect(JSON.stringify(prompt.params)).toContain('whoami');
      expect(fixtureCalls(log)).toEqual([]);
      expect(messages.some((message) => message.id === 3)).toBe(false);
      send({ jsonrpc: '2.0', id: prompt.id, result: { action: 'decline' } });
      expect(JSON.stringify((await find((message) => message.id === 3)).result)).toContain('allowed');
      expect(JSON.stringify((await find((message) => message.id === 4)).result)).toContain('Denied by mcp-latch');
      expect(fixtureCalls(log).map((entry) => entry.tool)).toEqual(['echo']);
    } finally {
      await gateway.close();
    }
  });

  test('a call decided before such a wait is decided again after it: a rule added meanwhile applies', async () => {
    const dir = tempDir();
    const log = join(dir, 'fixture.log');
    const servers = fixAndSlow(log);
    const config = writeConfig(dir, { mcpServers: servers, workspace: [dir], permissions: { allow: ['mcp__fix__echo', 'mcp__slow__whoami'] } });
    const gateway = rawGateway(config);
    try {
      await gateway.initialize();
      await new Promise((done) => setTimeout(done, 600));
      gateway.send(
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fix__echo', arguments: { text: 'allowed when it came' } } },
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'slow__whoami', arguments: {} } },
      );
      // While slow starts, the user denies the echo (the same servers, so none restarts).
      writeConfig(dir, { mcpServers: servers, workspace: [dir], permissions: { allow: ['mcp__slow__whoami'], deny: ['mcp__fix__echo'] } });
      expect(JSON.stringify((await gateway.response(3)).result)).toContain('Denied by mcp-latch');
      await gateway.response(4);
      expect(fixtureCalls(log).map((entry) => entry.tool)).toEqual(['whoami']);
    } finally {
      await gateway.close();
    }
  });
});
