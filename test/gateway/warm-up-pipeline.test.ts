import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { warmUpCallPipeline, type WarmUpPipeline } from '../../src/gateway/warm-up.js';
import { eventually, fixtureCalls, fixtureServer, tempDir, textOf } from '../helpers/gateway.js';
import { inProcessGateway, type InProcessHarness } from '../helpers/in-process.js';

/**
 * The warm-up's call through the whole pipeline (warm-up.ts, warmUpCallPipeline; docs/performance.md,
 * "Round 15: the first shell command") runs on objects of its own: it reaches no server, no client,
 * no audit, no pin and no person, whatever the call it is given.
 */
describe('the warm-up call pipeline', () => {
  /** The warm-up's input for the gateway's shell tool, as core.ts gives it. */
  function target(harness: InProcessHarness, args: Record<string, unknown>): WarmUpPipeline {
    const core = harness.gateway.core;
    const route = core.registry.toolRoutesList().find((candidate) => candidate.exposed === 'fix__echo')!;
    return {
      server: route.supervisor.name,
      tool: route.tool.name,
      toolClass: core.toolClass(route),
      inspect: core.inspectContext(),
      policy: core.policy(),
      definition: () => core.definitionReport(route),
      toolDescriptions: core.config().policy.toolDescriptions,
      route,
      args,
      config: () => core.config(),
      matchEnv: core.matchEnvNow(),
      configPath: core.configPath,
      maxMessageBytes: 4 * 1024 * 1024,
    };
  }

  test('an allowed call is answered by its own server; one the rules would ask about is denied there, asking nobody; neither reaches the gateway', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const scratch = tempDir();
    const tmp = process.env.TMPDIR;
    const elicited: unknown[] = [];
    const harness = await inProcessGateway(
      { mcpServers: { fix: fixtureServer('fix', log) }, tools: { fix__echo: { kind: 'command' as const, command: 'text' } }, workspace: [dir], audit: { enabled: true }, permissions: { allow: ['Bash(echo *)'] } },
      { dir, onElicit: (params) => (elicited.push(params), { action: 'accept', content: { decision: 'allow' } }) },
    );
    try {
      expect((await harness.client.listTools()).tools.map((tool) => tool.name)).toContain('fix__echo');
      await harness.gateway.core.warmedUp();
      const pins = join(dir, 'mcp-latch.lock.json');
      // What the server listed is recorded at its first listing (round 20): written before the warm-up is compared.
      await eventually(() => expect(existsSync(pins) ? readFileSync(pins, 'utf8') : '').toContain('listedDigests'));
      const pinned = existsSync(pins) ? readFileSync(pins, 'utf8') : null;
      process.env.TMPDIR = scratch;
      expect(await warmUpCallPipeline(target(harness, { text: 'echo warm' }))).toBe(true);
      // `rm` has no rule: the real session would ask its client (which declares forms here); the warm-up's asks nobody.
      expect(await warmUpCallPipeline(target(harness, { text: 'rm -rf build' }))).toBe(false);
      expect(elicited).toEqual([]);
      expect(fixtureCalls(log)).toEqual([]);
      const audit = join(dir, 'mcp-latch-audit.jsonl');
      expect(existsSync(audit) ? readFileSync(audit, 'utf8') : '').toBe('');
      expect(existsSync(pins) ? readFileSync(pins, 'utf8') : null).toBe(pinned);
      expect(readdirSync(dir).filter((name) => name.includes('pages'))).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(readdirSync(scratch)).toEqual([]);
      expect(harness.stderr()).not.toContain('rm -rf');

      // The client's own call with the warm-up's request id goes to the real server, and only it is audited.
      const result = await harness.client.callTool({ name: 'fix__echo', arguments: { text: 'echo real' } });
      expect(textOf(result)).toContain('echo real');
      expect(textOf(result)).not.toContain('warm-up answer');
      expect(fixtureCalls(log)).toHaveLength(1);
      expect(readFileSync(audit, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { command: string }).command)).toEqual(['echo real']);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
      await harness.close();
    }
  });
  test('the warm-up again after an idle collection (core.ts, warmAgain) reaches nothing either, and never runs before the first', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const plainDir = tempDir();
    const scratch = tempDir();
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    const warmed = (harness: InProcessHarness) => harness.stderr().split('\n').filter((line) => line.includes('warmed the call pipeline'));
    const plain = await inProcessGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'plain-log')) }, workspace: [dir], permissions: { allow: ['mcp__fix__echo'] } }, { dir: plainDir });
    const harness = await inProcessGateway(
      { mcpServers: { fix: fixtureServer('fix', log) }, tools: { fix__echo: { kind: 'command' as const, command: 'text' } }, workspace: [dir], audit: { enabled: true }, permissions: { allow: ['Bash(echo *)'] } },
      { dir },
    );
    try {
      // No shell tool: no first warm-up, so none again.
      await plain.client.listTools();
      plain.gateway.core.warmAgain();
      await plain.gateway.core.warmedUp();
      expect(warmed(plain)).toEqual([]);

      await harness.client.listTools();
      await harness.gateway.core.warmedUp();
      expect(warmed(harness)).toHaveLength(1);
      const pins = join(dir, 'mcp-latch.lock.json');
      const pinned = existsSync(pins) ? readFileSync(pins, 'utf8') : null;
      harness.gateway.core.warmAgain();
      // One at a time: asked again while it runs, nothing more starts.
      harness.gateway.core.warmAgain();
      await harness.gateway.core.warmedUp();
      expect(warmed(harness)).toHaveLength(2);
      expect(warmed(harness).map((line) => (JSON.parse(line) as { answered: boolean }).answered)).toEqual([true, true]);
      expect(fixtureCalls(log)).toEqual([]);
      const audit = join(dir, 'mcp-latch-audit.jsonl');
      expect(existsSync(audit) ? readFileSync(audit, 'utf8') : '').toBe('');
      expect(existsSync(pins) ? readFileSync(pins, 'utf8') : null).toBe(pinned);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(readdirSync(scratch)).toEqual([]);

      const result = await harness.client.callTool({ name: 'fix__echo', arguments: { text: 'echo real' } });
      expect(textOf(result)).toContain('echo real');
      expect(fixtureCalls(log)).toHaveLength(1);
      expect(readFileSync(audit, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { command: string }).command)).toEqual(['echo real']);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
      await harness.close();
      await plain.close();
    }
  });
});
