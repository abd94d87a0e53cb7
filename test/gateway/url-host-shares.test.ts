import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { MAX_ICON_HOSTS } from '../../src/downstream/icon-hosts.js';
import { MAX_URL_LOOKUP_MS, MAX_URL_LOOKUPS, MAX_URL_LOOKUPS_PER_SERVER } from '../../src/gateway/url-host.js';
import { eventually, fixtureServer, ROOT, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 24 (docs/threat-model.md, "Round 24: URL and icon hosts"), through the built gateway with
 * the SDK Client: each server has its own share of the host lookups (N1: one server whose names
 * never resolve held the one place, and every other server's URL-mode question waited behind it and
 * was refused), and listed icons' hosts are resolved with the URL-mode rule (a name resolving to a
 * local network or this machine reached the client, whose fetch went there). The gateway's resolver
 * is test/fixtures/fake-dns.mjs, preloaded: named hosts answer as the test says, or never.
 */
const FAKE_DNS = join(ROOT, 'test/fixtures/fake-dns.mjs');
const PUBLIC = '93.184.215.14';

function resolving(dir: string, table: Record<string, string[] | 'stall'>) {
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

describe("listed icons' hosts, resolved", () => {
  const definitionFile = (dir: string, icons: Array<{ src: string }>) => {
    const file = join(dir, 'definition.json');
    writeFileSync(file, JSON.stringify({ icons, $prompt: { icons }, $template: { icons } }));
    return file;
  };

  test("an icon whose name resolves to this machine, a local network or cloud metadata, or does not resolve, is not listed; one of a name on the internet is, with data: icons; the same for prompts and templates", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const dns = resolving(dir, {
      'cdn.example.test': [PUBLIC, '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
      'printer.attacker.test': [PUBLIC, '192.168.1.1'],
      'metadata.attacker.test': ['169.254.169.254'],
      'me.attacker.test': ['127.0.0.1'],
      'ula.attacker.test': ['fd00::1'],
      'hangs.attacker.test': 'stall',
    });
    const kept = [{ src: 'https://cdn.example.test/icon.png' }, { src: 'data:image/png;base64,iVBORw0KGgo=' }, { src: 'https://cdn.example.test/other.png', sizes: ['48x48'] }];
    const dropped = ['https://printer.attacker.test/a.png', 'https://metadata.attacker.test/latest/meta-data/', 'https://me.attacker.test/a.png', 'https://ula.attacker.test/a.png', 'https://hangs.attacker.test/a.png', 'https://nowhere.invalid/a.png'].map((src) => ({ src }));
    const file = definitionFile(dir, [kept[0]!, ...dropped, kept[1]!, kept[2]!]);
    h = await startGateway(
      // approval.localUrlNetworks lets URL-mode questions lead there, never an icon: the client fetches it unasked.
      { mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log'), [], { FIXTURE_DEFINITION_FILE: file }) }, approval: { localUrlNetworks: ['192.168.0.0/16'] } },
      { dir, nodeArgs: dns.nodeArgs, env: dns.env },
    );
    const echo = (await h.client.listTools()).tools.find((tool) => tool.name === 'fix__echo');
    expect(echo?.icons).toEqual(kept);
    const [prompt] = (await h.client.listPrompts()).prompts;
    expect(prompt?.icons).toEqual(kept);
    const [template] = (await h.client.listResourceTemplates()).resourceTemplates;
    expect(template?.icons).toEqual(kept);
    // Each host looked up once for the whole listing.
    expect(dns.asked().filter((host) => host === 'cdn.example.test')).toHaveLength(1);
    await eventually(() => expect(h!.stderr()).toContain("icons of the server's listing are not listed: 6 of its icon hosts did not pass"));
  });

  test(`at most MAX_ICON_HOSTS (${MAX_ICON_HOSTS}) distinct icon hosts of a listing are looked up; icons of more are not listed, logged naming the limit`, { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const hosts = Array.from({ length: MAX_ICON_HOSTS + 2 }, (_, index) => `cdn${index}.example.test`);
    const dns = resolving(dir, Object.fromEntries(hosts.map((host) => [host, [PUBLIC]])));
    const icons = hosts.map((host) => ({ src: `https://${host}/icon.png` }));
    h = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log'), [], { FIXTURE_DEFINITION_FILE: definitionFile(dir, icons) }) } }, { dir, nodeArgs: dns.nodeArgs, env: dns.env });
    const echo = (await h.client.listTools()).tools.find((tool) => tool.name === 'fix__echo');
    expect(echo?.icons).toEqual(icons.slice(0, MAX_ICON_HOSTS));
    expect(new Set(dns.asked())).toEqual(new Set(hosts.slice(0, MAX_ICON_HOSTS)));
    await eventually(() => expect(h!.stderr()).toContain(`it names ${MAX_ICON_HOSTS + 2} icon hosts, more than the ${MAX_ICON_HOSTS} looked up (MAX_ICON_HOSTS): the icons of 2 (first: ${hosts[MAX_ICON_HOSTS]}) are not listed`));
  });
});
