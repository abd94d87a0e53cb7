import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { eventually, fixtureCalls, fixtureServer, startGateway, tempDir, textOf } from '../helpers/gateway.js';

/**
 * The first shell warm-up runs with V8's feedback vectors and baseline code made after about one
 * run of a function (core.ts, warmDecision and WARM_UP_TIERS; docs/performance.md, "Round 20: first
 * shell command"), and only it: the flags are set back before the first list is written, so the code
 * caches (made after the list and after the first call, and taken by V8 only under the flags they
 * were made with) never see them.
 *
 * V8 11.3 (Node 20) only: V8 12.4 and 13.6 (Node 22 and 24) decide feedback vectors by invocation
 * counts and have no `--interrupt-budget-*-for-feedback-allocation` flags, so there the warm-up sets
 * none (core.ts WARM_UP_TIERS) and the test checks that, and that the caches are still taken.
 */
const TIERED = process.versions.v8.startsWith('11.3.');
const WARMING = 'flags --interrupt-budget-factor-for-feedback-allocation=1 --interrupt-budget-for-feedback-allocation=64 --no-baseline-batch-compilation';
const AFTER = 'flags --interrupt-budget-factor-for-feedback-allocation=8 --interrupt-budget-for-feedback-allocation=940 --baseline-batch-compilation';

describe("the first warm-up's V8 tiers", () => {
  // The probe notes each setFlagsFromString, and the first list and the first answer as they are written.
  function probeFile(dir: string): string {
    const probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      `const fs = require('node:fs'); const net = require('node:net'); const v8 = require('node:v8');
      const note = (line) => fs.appendFileSync(process.env.PROBE_OUT, line + '\\n');
      const set = v8.setFlagsFromString; v8.setFlagsFromString = function (flags) { note('flags ' + flags); return set.call(this, flags); };
      function seen(data) { const text = String(data); if (text.includes('"tools":[')) note('listed'); else if (text.includes('"result":{"content"')) note('answered'); }
      const write = net.Socket.prototype.write; net.Socket.prototype.write = function (data, ...rest) { seen(data); return write.call(this, data, ...rest); };
      const writeSync = fs.writeSync; fs.writeSync = function (fd, data, ...rest) { seen(data); return writeSync.call(this, fd, data, ...rest); };
      let streamWrap = process.binding('pipe_wrap').Pipe.prototype; while (!Object.prototype.hasOwnProperty.call(streamWrap, 'writeUtf8String')) streamWrap = Object.getPrototypeOf(streamWrap); const writeUtf8 = streamWrap.writeUtf8String; streamWrap.writeUtf8String = function (request, data) { seen(data); return writeUtf8.call(this, request, data); };`,
    );
    return probe;
  }

  async function start(dir: string, config: Record<string, unknown>, n: number, tool: string, args: Record<string, unknown>): Promise<{ lines: string[]; stderr: string }> {
    const out = join(dir, `flags-${n}`);
    const gateway = await startGateway(config, { dir, nodeArgs: ['--require', probeFile(dir)], env: { XDG_CACHE_HOME: join(dir, 'cache'), PROBE_OUT: out } });
    try {
      await gateway.client.listTools();
      expect(textOf(await gateway.client.callTool({ name: tool, arguments: args }))).toContain('warm');
      await eventually(() => expect(gateway.stderr()).toContain('"msg":"serving flags set"'), 30_000);
      return { lines: readFileSync(out, 'utf8').split('\n').filter(Boolean), stderr: gateway.stderr() };
    } finally {
      await gateway.close();
    }
  }

  test(`with a shell tool: ${TIERED ? 'set for the first warm-up, set back before the first list' : 'none set (V8 12 and 13)'}; the caches made after it are taken by the next start`, async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const config = { mcpServers: { fix: fixtureServer('fix', log) }, tools: { fix__echo: { kind: 'command' as const, command: 'text' } }, workspace: [dir], permissions: { allow: ['Bash(echo *)'] } };
    for (const n of [1, 2]) {
      const { lines, stderr } = await start(dir, config, n, 'fix__echo', { text: 'echo warm' });
      if (TIERED) {
        const warming = lines.indexOf(WARMING);
        const after = lines.indexOf(AFTER);
        expect(warming).toBeGreaterThanOrEqual(0);
        expect(after).toBeGreaterThan(warming);
        expect(after).toBeLessThan(lines.indexOf('listed'));
      }
      // Once: the warm-up run again after an idle collection (warmAgain) does not set them.
      expect(lines.filter((line) => line.includes('feedback-allocation'))).toEqual(TIERED ? [WARMING, AFTER] : []);
      // The second start took the caches the first made (after its list and its first call).
      if (n === 2) expect(stderr).toContain('"codeCache":"accepted"');
    }
    // The warm-up reached no server: the fixture got the two real calls only.
    expect(fixtureCalls(log)).toHaveLength(2);
  }, 120_000);

  test('without a shell tool: never set', async () => {
    const dir = tempDir();
    const config = { mcpServers: { fix: fixtureServer('fix', join(dir, 'log')) }, permissions: { allow: ['mcp__fix__echo'] } };
    const { lines } = await start(dir, config, 1, 'fix__echo', { text: 'warm' });
    expect(lines.filter((line) => line.includes('feedback-allocation'))).toEqual([]);
  }, 120_000);
});
