import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { eventually, fixtureCalls, fixtureServer, startGateway, tempDir, textOf } from '../helpers/gateway.js';

/**
 * A listed entry's icons are in its pin since round 24 (docs/pins.md, "Icons"): the client shows
 * them to the person beside the name, so a server that changed them after the person accepted the
 * tool did so unnoticed. Through the built gateway with the SDK Client: the fixture server's `echo`
 * (and its prompt and template) carry the icons of $FIXTURE_DEFINITION_FILE: `data:` images, the
 * only icons listed since round 25 (test/gateway/url-host-shares.test.ts).
 */
const ICON_A = [{ src: 'data:image/png;base64,QUFB' }];
const ICON_B = [{ src: 'data:image/png;base64,QkJC' }];

interface LockFile {
  servers: { fix: { tool: { echo: { digest: string; definition: Record<string, unknown>; withIcons?: true } }; listedDigests: { prompt: Record<string, string>; icons?: true } } };
}

function setup() {
  const dir = tempDir();
  const log = join(dir, 'calls.log');
  const definitionFile = join(dir, 'echo-definition.json');
  const config: ConfigInput = { mcpServers: { fix: fixtureServer('fix', log, [], { FIXTURE_DEFINITION_FILE: definitionFile }) }, permissions: { allow: ['mcp__fix'] } };
  const lockFile = join(dir, 'mcp-latch.lock.json');
  const iconsAre = (icons: Array<{ src: string }> | undefined) => writeFileSync(definitionFile, JSON.stringify(icons ? { icons, $prompt: { icons } } : {}));
  const lock = () => JSON.parse(readFileSync(lockFile, 'utf8')) as LockFile;
  const echoed = () => fixtureCalls(log).filter((entry) => entry.tool === 'echo').length;
  const start = () => startGateway(config, { dir });
  return { dir, lockFile, iconsAre, lock, echoed, start };
}

describe("a tool's icons are pinned", () => {
  test('icons changed after the tool was pinned: its next call asks (here denied by approval.fallback), naming icons; clients are listed the pinned definition', { timeout: 90_000 }, async () => {
    const { iconsAre, lock, echoed, start } = setup();
    iconsAre(ICON_A);
    const first = await start();
    try {
      expect(textOf(await first.client.callTool({ name: 'fix__echo', arguments: { text: 'one' } }))).toBe('{"text":"one"}');
    } finally {
      await first.close();
    }
    expect(lock().servers.fix.tool.echo.definition.icons).toEqual(ICON_A);
    expect(lock().servers.fix.tool.echo.withIcons).toBe(true);

    iconsAre(ICON_B);
    const second = await start();
    try {
      const result = await second.client.callTool({ name: 'fix__echo', arguments: { text: 'two' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('the definition of the tool fix__echo changed since the user approved it (icons)');
      expect(echoed()).toBe(1);
      // Listed as pinned: the pinned icons, not the changed ones.
      const echo = (await second.client.listTools()).tools.find((tool) => tool.name === 'fix__echo');
      expect(echo?.icons).toEqual(ICON_A);
    } finally {
      await second.close();
    }
  });

  test('a lock file of before round 24 (pins and recorded digests without icons): at the first start its pinned tool runs and unpinned entries are listed, their icons as listed then taken into the file; a later change of them asks', { timeout: 120_000 }, async () => {
    const { lockFile, iconsAre, lock, echoed, start } = setup();
    // Pin echo as a gateway would, its definition without icons, then take the file back to round 23's shape (no markers).
    iconsAre(undefined);
    const first = await start();
    try {
      expect(textOf(await first.client.callTool({ name: 'fix__echo', arguments: { text: 'one' } }))).toBe('{"text":"one"}');
      await eventually(() => expect(readFileSync(lockFile, 'utf8')).toContain('listedDigests'));
    } finally {
      await first.close();
    }
    const old = lock();
    const legacyDigest = old.servers.fix.tool.echo.digest;
    delete old.servers.fix.tool.echo.withIcons;
    delete old.servers.fix.listedDigests.icons;
    expect(Object.keys(old.servers.fix.listedDigests.prompt)).toEqual(['greet']);
    writeFileSync(lockFile, JSON.stringify(old));

    // Upgraded, the server lists icons it listed already then (not known to round 23's file).
    iconsAre(ICON_A);
    const second = await start();
    try {
      expect(textOf(await second.client.callTool({ name: 'fix__echo', arguments: { text: 'two' } }))).toBe('{"text":"two"}');
      expect((await second.client.listTools()).tools.find((tool) => tool.name === 'fix__echo')?.icons).toEqual(ICON_A);
      // The never-called prompt is listed, not held as changed since its record.
      expect((await second.client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('fix__greet');
      await eventually(() => expect(lock().servers.fix.tool.echo.withIcons).toBe(true));
    } finally {
      await second.close();
    }
    const upgraded = lock();
    expect(upgraded.servers.fix.tool.echo.definition.icons).toEqual(ICON_A);
    expect(upgraded.servers.fix.tool.echo.digest).not.toBe(legacyDigest);
    expect(upgraded.servers.fix.listedDigests.icons).toBe(true);
    expect(echoed()).toBe(2);

    iconsAre(ICON_B);
    const third = await start();
    try {
      const result = await third.client.callTool({ name: 'fix__echo', arguments: { text: 'three' } });
      expect(textOf(result)).toContain('the definition of the tool fix__echo changed since the user approved it (icons)');
      // The prompt, never called, changed its icons since its record: held as one changed.
      expect((await third.client.listPrompts()).prompts.map((prompt) => prompt.name)).not.toContain('fix__greet');
      expect(echoed()).toBe(2);
    } finally {
      await third.close();
    }
  });
});
