import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { MAX_URL_LOOKUP_MS, MAX_URL_LOOKUPS, MAX_URL_LOOKUPS_PER_SERVER } from '../../src/gateway/url-host.js';
import { eventually, fixtureServer, ROOT, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 24 (docs/threat-model.md, "Round 24: URL and icon hosts"), through the built gateway with
 * the SDK Client: each server has its own share of the host lookups (N1: one server whose names
 * never resolve held the one place, and every other server's URL-mode question waited behind it and
 * was refused); and, since round 25, listed icons given by URL are not listed at all. The gateway's resolver
 * is test/fixtures/fake-dns.mjs, preloaded: named hosts answer as the test says, or never.
 */
const FAKE_DNS = join(ROOT, 'test/fixtures/fake-dns.mjs');
const PUBLIC = '93.184.215.14';

function resolving(dir: string, table: Record<string, string[] | string[][] | 'stall'>) {
  const log = join(dir, 'dns.log');
  writeFileSync(log, '');
  return { nodeArgs: ['--import', FAKE_DNS], env: { FAKE_DNS: JSON.stringify(table), FAKE_DNS_LOG: log }, asked: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('host lookups: each server its own share (N1)', () => {
  test(`a second server's URL-mode question is looked up and put to the person while the first server's lookup hangs; the first's next waits for its own place (MAX_URL_LOOKUPS_PER_SERVER ${MAX_URL_LOOKUPS_PER_SERVER}, MAX_URL_LOOKUPS ${MAX_URL_LOOKUPS})`, { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const dns = resolving(dir, { 'stall.attacker.test': 'stall', 'accounts.example.test': [PUBLIC], 'login.example.test': [PUBLIC] });
    h = await startGateway(
      { mcpServers: { slow: fixtureServer('slow', join(dir, 'slow.log')), quick: fixtureServer('quick', join(dir, 'quick.log')) }, permissions: { allow: ['mcp__slow', 'mcp__quick'] } },
      { dir, nodeArgs: dns.nodeArgs, env: dns.env, capabilities: { elicitation: { form: {}, url: {} } }, onElicit: () => ({ action: 'accept' }) },
    );
    const stalled = h.client.callTool({ name: 'slow__ask_user', arguments: { url: 'https://stall.attacker.test/connect' } });
    await eventually(() => expect(dns.asked()).toContain('stall.attacker.test'), 30_000);
    // The slow server's own second question waits for its one place, held by the lookup that hangs.
    const second = h.client.callTool({ name: 'slow__ask_user', arguments: { url: 'https://login.example.test/connect' } });
    const quick = await h.client.callTool({ name: 'quick__ask_user', arguments: { url: 'https://accounts.example.test/connect' } });
    expect(textOf(quick)).toBe('accept');
    expect(h.elicitations).toEqual([{ mode: 'url', elicitationId: 'e1', message: '[quick] Connect your account', url: 'https://accounts.example.test/connect' }]);
    expect(textOf(await stalled)).toBe(
      `error: MCP error -32600: mcp-latch cannot relay this request of slow: its URL-mode question's url "https://stall.attacker.test/connect" names a host that could not be resolved (no answer within ${MAX_URL_LOOKUP_MS} ms (MAX_URL_LOOKUP_MS)), so where it leads is not known (mcp-latch passes on only https URLs of other hosts)`,
    );
    expect(textOf(await second)).toContain(`"https://login.example.test/connect" names a host that could not be resolved now: no host lookup place came free within ${MAX_URL_LOOKUP_MS} ms (at most ${MAX_URL_LOOKUPS_PER_SERVER} of a server's at once, MAX_URL_LOOKUPS_PER_SERVER`);
    // Its host was never looked up: the place never came.
    expect(dns.asked()).not.toContain('login.example.test');
    expect(h.elicitations).toHaveLength(1);
  });
});

describe('listed icons given by URL (round 25)', () => {
  const definitionFile = (dir: string, icons: Array<{ src: string }>) => {
    const file = join(dir, 'definition.json');
    writeFileSync(file, JSON.stringify({ icons, $prompt: { icons }, $template: { icons } }));
    return file;
  };

  // Round 24 resolved each icon host when the listing was read and listed those on the internet;
  // the client resolves the name again when it fetches, and a DNS that answers the gateway with a
  // public address and the client with 127.0.0.1 (here: the fixture's list of answers, counted
  // across processes) sent the client's unasked fetch to this machine (DNS rebinding).
  test("an icon given by URL is not listed, whatever its name answers, and its host is not looked up; data: icons are; the same for prompts and templates; logged once", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const dns = resolving(dir, { 'cdn.rebind.test': [[PUBLIC], ['127.0.0.1']], 'cdn.example.test': [PUBLIC] });
    const data = [{ src: 'data:image/png;base64,iVBORw0KGgo=' }, { src: 'data:image/webp;base64,UklGRg==', sizes: ['48x48'] }];
    const file = definitionFile(dir, [{ src: 'https://cdn.rebind.test/a.png' }, data[0]!, { src: 'https://cdn.example.test/icon.png' }, data[1]!]);
    h = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log'), [], { FIXTURE_DEFINITION_FILE: file }) } }, { dir, nodeArgs: dns.nodeArgs, env: dns.env });
    const echo = (await h.client.listTools()).tools.find((tool) => tool.name === 'fix__echo');
    expect(echo?.icons).toEqual(data);
    const [prompt] = (await h.client.listPrompts()).prompts;
    expect(prompt?.icons).toEqual(data);
    const [template] = (await h.client.listResourceTemplates()).resourceTemplates;
    expect(template?.icons).toEqual(data);
    expect(dns.asked()).toEqual([]);
    await eventually(() => expect(h!.stderr()).toContain(`icons of the server's listing given by URL are not listed: 6 (first: \\"https://cdn.rebind.test/a.png\\")`));
    expect(h.stderr().match(/given by URL are not listed/g)).toHaveLength(1);
  });
});
