import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { fixtureCalls, fixtureServer, tempDir, textOf } from '../helpers/gateway.js';
import { inProcessGateway } from '../helpers/in-process.js';
import { ChildTransport } from '../../src/downstream/child-transport.js';

/** Every line the two scanners were given, with whether they took it (in the order given). */
const seen = vi.hoisted(() => ({ calls: [] as Array<{ line: string; taken: boolean }>, answers: [] as Array<{ line: string; taken: boolean }> }));

vi.mock('../../src/gateway/call-scan.js', async (original) => {
  const real = await original<typeof import('../../src/gateway/call-scan.js')>();
  return {
    ...real,
    scanCall: (line: string) => {
      const message = real.scanCall(line);
      seen.calls.push({ line, taken: message !== null });
      return message;
    },
  };
});
vi.mock('../../src/downstream/answer-scan.js', async (original) => {
  const real = await original<typeof import('../../src/downstream/answer-scan.js')>();
  return {
    ...real,
    scanAnswer: (line: string) => {
      const taken = real.scanAnswer(line);
      seen.answers.push({ line, taken });
      return taken;
    },
  };
});

/**
 * The shell warm-up (warm-up.ts) reads a call and a server's answer in the orders real clients and
 * servers write them: the scanners read the TypeScript SDK's order (`{"method":…,"jsonrpc","id"}`,
 * `{"result":…,"jsonrpc","id"}`) and the Python SDK's (`{"jsonrpc","id",…}`) by expressions of their
 * own, and the ones a TypeScript client's first call and its server's answer take ran first in that
 * call (docs/performance.md, "Round 23: first shell command").
 */
describe('the shell warm-up reads the SDKs\' orders', () => {
  test('before the first list, each scanner takes a line in each SDK order; the real call is read as before and the warm-up leaves the call scanner nothing', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const harness = await inProcessGateway(
      { mcpServers: { fix: fixtureServer('fix', log) }, tools: { fix__echo: { kind: 'command' as const, command: 'text' } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } },
      { dir },
    );
    try {
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      await harness.gateway.core.warmedUp();
      const warmCalls = seen.calls.filter((entry) => entry.line.includes('"method":"tools/call"'));
      expect(warmCalls.some((entry) => entry.taken && entry.line.startsWith('{"method":"tools/call","params":'))).toBe(true);
      expect(warmCalls.some((entry) => entry.taken && entry.line.startsWith('{"jsonrpc":"2.0","id":'))).toBe(true);
      expect(seen.answers.some((entry) => entry.taken && entry.line.startsWith('{"result":{"content":'))).toBe(true);
      expect(seen.answers.some((entry) => entry.taken && entry.line.startsWith('{"jsonrpc":"2.0","id":'))).toBe(true);
      // The mcp-server-commands shape (a block with a name) is refused in the SDK's order too: the full path runs.
      expect(seen.answers.some((entry) => !entry.taken && entry.line.startsWith('{"result":{"content":') && entry.line.includes('"name":"STDOUT"'))).toBe(true);
      // Nothing reached the server, and the scanner's note of the warm-up's call was dropped.
      expect(fixtureCalls(log)).toEqual([]);
      const { scannedCall } = await import('../../src/gateway/call-scan.js');
      expect(scannedCall.params).toBe(null);

      const result = await harness.client.callTool({ name: 'fix__echo', arguments: { text: 'echo real' } });
      expect(textOf(result)).toContain('echo real');
      expect(textOf(result)).not.toContain('warm-up answer');
      expect(fixtureCalls(log)).toHaveLength(1);
    } finally {
      await harness.close();
    }
  });

  test('before the first list, the warm-up reads the real server\'s unread input as a call does first, and sends it nothing', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const unread = vi.spyOn(ChildTransport.prototype, 'unread');
    const harness = await inProcessGateway(
      { mcpServers: { fix: fixtureServer('fix', log) }, tools: { fix__echo: { kind: 'command' as const, command: 'text' } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } },
      { dir },
    );
    try {
      unread.mockClear();
      await harness.client.listTools();
      await harness.gateway.core.warmedUp();
      // A stdio server's transport is in boot.cjs, which has no code cache: this was compiled in the first call.
      expect(unread).toHaveBeenCalled();
      expect(fixtureCalls(log)).toEqual([]);
      const result = await harness.client.callTool({ name: 'fix__echo', arguments: { text: 'echo real' } });
      expect(textOf(result)).toContain('echo real');
      expect(fixtureCalls(log)).toHaveLength(1);
    } finally {
      unread.mockRestore();
      await harness.close();
    }
  });
});
