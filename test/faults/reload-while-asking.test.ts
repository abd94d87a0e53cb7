import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { faultServer, starts } from '../helpers/faults.js';
import { eventually, startGateway, tempDir, textOf, writeConfig } from '../helpers/gateway.js';
import { readFileSync, existsSync } from 'node:fs';

/**
 * A call approved while a config reload restarted its server (round 13 review R10): the call held
 * the replaced, stopped server and failed "server "f" is stopped" while the new one ran. It goes to
 * the server now configured under that name, decided again against the new config.
 */
describe('a reload restarts the server of a call waiting for its prompt', () => {
  test('the approved call runs on the new server', async () => {
    const dir = tempDir();
    const calls = join(dir, 'calls');
    let answer: (result: ElicitResult) => void = () => undefined;
    const config = (generation: string) => ({ mcpServers: { f: faultServer('works', join(dir, 'starts'), { FAULT_CALLS: calls, GENERATION: generation }) }, approval: { fallback: 'deny' as const, timeoutSeconds: 120 } });
    const harness = await startGateway(config('1'), { dir, onElicit: () => new Promise<ElicitResult>((resolve) => (answer = resolve)) });
    try {
      const result = harness.client.callTool({ name: 'f__echo', arguments: { text: 'approved' } }, undefined, { timeout: 120_000 });
      result.catch(() => undefined);
      await eventually(() => expect(harness.elicitations).toHaveLength(1));
      const first = starts(join(dir, 'starts'));
      writeConfig(dir, config('2'));
      await eventually(() => expect(harness.stderr()).toMatch(/"restarted":\["f"\],"msg":"config reloaded/));
      // The new server is up and lists its tools.
      await eventually(async () => {
        expect(starts(join(dir, 'starts'))).toHaveLength(first.length + 1);
        expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('f__echo');
      }, 20_000);
      answer({ action: 'accept', content: { decision: 'Allow once' } });
      expect(textOf(await result)).toContain('approved');
      expect(existsSync(calls) ? readFileSync(calls, 'utf8') : '').toBe('echo\n');
    } finally {
      await harness.close();
    }
  }, 60_000);
});

/**
 * What a reload tells the calls of a server it stops (round 31 review, P31-3): until round 31 a call
 * running on it was told only "stopped while the call was running", as a crash is, and a call
 * approved after the reload removed its server "is stopped", neither naming the reload.
 */
describe('a reload stops the server of a call', () => {
  const config = (dir: string, generation: string, servers = true) => ({
    mcpServers: (servers ? { f: faultServer('progress-flood', join(dir, 'starts'), { GENERATION: generation, FAULT_CALLS: join(dir, 'calls') }) } : {}) as Record<string, ReturnType<typeof faultServer>>,
    permissions: { allow: ['mcp__f__flood'], ask: ['mcp__f__echo'] },
    approval: { fallback: 'deny' as const, timeoutSeconds: 120 },
  });

  test('a call running on it is told the reload changed its entry, and that it may have had effects', async () => {
    const dir = tempDir();
    const harness = await startGateway(config(dir, '1'), { dir });
    try {
      const result = harness.client.callTool({ name: 'f__flood', arguments: { count: 0, waitMs: 30_000 } }, undefined, { timeout: 120_000 });
      await eventually(() => expect(existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8') : '').toBe('flood\n'));
      writeConfig(dir, config(dir, '2'));
      expect(textOf(await result)).toBe('mcp-latch: server "f" was stopped while the call was running (a config reload changed its entry in mcpServers, and the new one is started): it may have had effects.');
    } finally {
      await harness.close();
    }
  }, 60_000);

  test('a call approved after the reload removed it is told so, and that it was not run', async () => {
    const dir = tempDir();
    let answer: (result: ElicitResult) => void = () => undefined;
    const harness = await startGateway(config(dir, '1'), { dir, onElicit: () => new Promise<ElicitResult>((resolve) => (answer = resolve)) });
    try {
      const result = harness.client.callTool({ name: 'f__echo', arguments: { text: 'removed' } }, undefined, { timeout: 120_000 });
      await eventually(() => expect(harness.elicitations).toHaveLength(1));
      writeConfig(dir, config(dir, '1', false));
      await eventually(() => expect(harness.stderr()).toMatch(/"removed":\["f"\],"restarted":\[\],"msg":"config reloaded/));
      answer({ action: 'accept', content: { decision: 'Allow once' } });
      expect(textOf(await result)).toContain('not run because server "f" is stopped: a config reload removed it from mcpServers');
    } finally {
      await harness.close();
    }
  }, 60_000);
});
