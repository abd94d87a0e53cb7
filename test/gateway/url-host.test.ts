import { lookup } from 'node:dns/promises';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { MAX_URL_LOOKUP_MS, MAX_URL_LOOKUP_WAITING, MAX_URL_LOOKUPS, MAX_URL_LOOKUPS_PER_SERVER, resolvedHostProblem, type HostLookup } from '../../src/gateway/url-host.js';
import { MAX_SERVER_QUESTIONS } from '../../src/config/limits.js';
import { round, startModernClient, type Modern } from '../helpers/modern-client.js';
import { eventually, fixtureCalls, fixtureServer, ROOT, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * A server's URL-mode question leads to another machine only if its host resolves to one (round 21;
 * round 20 checked the host as written, so a name whose DNS answer is 127.0.0.1 passed, shown with
 * that name): docs/threat-model.md, "The 2026-07-28 path". In process with a resolver given to the
 * check, and through the built gateway with the system's resolver and this machine's own name (which
 * resolves to one of its addresses, or not at all: refused either way).
 */
const answering = (addresses: string[]): HostLookup => async () => addresses.map((address) => ({ address }));

/** `v4` written into the IPv6 prefix `prefix` (its bytes) of `length` bits as RFC 6052 section 2.2 has a translator write it. */
function embedded(prefix: number[], length: 32 | 40 | 48 | 56 | 64 | 96, v4: string): string {
  const offsets = { 32: [4, 5, 6, 7], 40: [5, 6, 7, 9], 48: [6, 7, 9, 10], 56: [7, 9, 10, 11], 64: [9, 10, 11, 12], 96: [12, 13, 14, 15] }[length];
  const bytes = [...prefix, ...Array<number>(16).fill(0)].slice(0, 16);
  v4.split('.').forEach((octet, index) => (bytes[offsets[index]!] = Number(octet)));
  return Array.from({ length: 8 }, (_, index) => ((bytes[2 * index]! << 8) | bytes[2 * index + 1]!).toString(16)).join(':');
}
const LOCAL_USE = [0, 0x64, 0xff, 0x9b, 0, 1];
const NETWORK_SPECIFIC = [0x20, 0x01, 0x0d, 0xb8, 0x01, 0x22, 0x03, 0x44];

describe('resolvedHostProblem', () => {
  const own = Object.values(networkInterfaces()).flatMap((list) => list ?? []).find((entry) => !entry.internal && entry.family === 'IPv4')?.address ?? '127.0.0.1';

  test.each([
    ['127.0.0.1', ['127.0.0.1']],
    ['127.5.6.7', ['127.5.6.7']],
    ['::1', ['::1']],
    ['an IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['0.0.0.0', ['0.0.0.0']],
    ["this machine's own interface address", [own]],
    // The forms that carry it in their last 32 bits (round 21 review, review-proto21 P3): a NAT64 translates 64:ff9b::<it> back to it.
    ["this machine's own interface address behind the NAT64 prefix", [`64:ff9b::${own}`]],
    ["this machine's own interface address, IPv4-compatible", [`::${own}`]],
    ["this machine's own interface address, SIIT", [`::ffff:0:${own}`]],
    // A local-use NAT64 prefix (RFC 8215: 64:ff9b:1::/48, cut by the operator to /48, /56, /64 or /96) and a
    // network-specific one of any RFC 6052 length, the IPv4 address where RFC 6052 puts it (round 22).
    ["this machine's own interface address behind the local-use NAT64 prefix as a /96", [embedded(LOCAL_USE, 96, own)]],
    ["this machine's own interface address behind the local-use NAT64 prefix as a /48", [embedded(LOCAL_USE, 48, own)]],
    ["this machine's own interface address behind the local-use NAT64 prefix as a /56", [embedded(LOCAL_USE, 56, own)]],
    ["this machine's own interface address behind the local-use NAT64 prefix as a /64", [embedded(LOCAL_USE, 64, own)]],
    ['a loopback address behind the local-use NAT64 prefix as a /96', [embedded(LOCAL_USE, 96, '127.0.0.1')]],
    ["this machine's own interface address behind a network-specific /96", [embedded(NETWORK_SPECIFIC, 96, own)]],
    ["this machine's own interface address behind a network-specific /64", [embedded(NETWORK_SPECIFIC, 64, own)]],
    ["this machine's own interface address behind a network-specific /56", [embedded(NETWORK_SPECIFIC, 56, own)]],
    ["this machine's own interface address behind a network-specific /48", [embedded(NETWORK_SPECIFIC, 48, own)]],
    ["this machine's own interface address behind a network-specific /40", [embedded(NETWORK_SPECIFIC, 40, own)]],
    ["this machine's own interface address behind a network-specific /32", [embedded(NETWORK_SPECIFIC, 32, own)]],
    ['another address and a loopback one (every address counts)', ['192.0.2.10', '127.0.0.1']],
  ])('a name resolving to %s is refused, showing the name and the address', async (_, addresses) => {
    const problem = await resolvedHostProblem('https://evil.example/login', answering(addresses));
    expect(problem).toMatch(/^its URL-mode question's url "https:\/\/evil\.example\/login" leads to this machine: evil\.example resolves to /);
    expect(problem).toContain(addresses.find((address) => address !== '192.0.2.10'));
  });

  test('a name resolving only to other machines is passed on', async () => {
    expect(await resolvedHostProblem('https://accounts.example.com/connect', answering(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '64:ff9b::5db8:d70e', embedded(LOCAL_USE, 96, '93.184.215.14'), embedded(LOCAL_USE, 64, '93.184.215.14')]))).toBeNull();
  });

  // Any IPv6 address may be under a network-specific prefix (RFC 6052): one carrying this machine's
  // address where RFC 6052 puts it is refused, saying so; the chance that another machine's does is 2^-32 a place.
  test("an IPv6 address carrying this machine's IPv4 address where a network-specific NAT64 prefix would is refused, naming RFC 6052", async () => {
    const address = embedded(NETWORK_SPECIFIC, 96, own);
    expect(await resolvedHostProblem('https://evil.example/', answering([address]))).toBe(
      `its URL-mode question's url "https://evil.example/" leads to this machine: evil.example resolves to ${address}, which carries ${own} as a NAT64 network-specific prefix would (RFC 6052) (mcp-latch passes on only https URLs of other hosts)`,
    );
  });

  // Other machines of a local network (round 22): the person's browser reaches them from inside it,
  // where the server cannot; refused, naming the registry's entry, unless approval.localUrlNetworks lists them.
  test.each([
    ['10.1.2.3', 'private-use, RFC 1918'],
    ['172.16.5.4', 'private-use, RFC 1918'],
    ['192.168.1.1', 'private-use, RFC 1918'],
    ['100.64.0.1', 'shared address space (carrier-grade NAT), RFC 6598'],
    ['169.254.169.254', 'link-local, RFC 3927'],
    ['198.18.0.1', 'benchmarking, RFC 2544'],
    ['224.0.0.251', 'multicast, RFC 5771'],
    ['fd12:3456::1', 'unique local, RFC 4193'],
    ['fe80::1', 'link-local, RFC 4291'],
    ['fec0::1', 'site-local, RFC 3879'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'IETF protocol assignments (Teredo among them), RFC 2928'],
    ['2002:a01:203::1', '6to4, RFC 3056'],
    ['::ffff:10.1.2.3', 'private-use, RFC 1918', '10.1.2.3'],
    ['64:ff9b::a01:203', 'private-use, RFC 1918', '10.1.2.3'],
    [embedded(LOCAL_USE, 64, '192.168.1.1'), 'private-use, RFC 1918', '192.168.1.1'],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-use IPv4/IPv6 translation, RFC 8215'],
  ])('a name resolving to %s (%s) is refused as a local network, naming the rule', async (address, rule, carried?: string) => {
    const problem = await resolvedHostProblem('https://intranet.example/reset', answering(['93.184.215.14', address]));
    expect(problem).toBe(
      `its URL-mode question's url "https://intranet.example/reset" leads to a local network: intranet.example resolves to ${address}${carried ? `, which carries ${carried}` : ''} (${rule}), not an address on the internet (mcp-latch passes on such URLs only to networks listed in approval.localUrlNetworks)`,
    );
  });

  test('approval.localUrlNetworks lets a local network through, this machine never', async () => {
    const networks = ['10.0.0.0/8', 'fd12:3456::/32', `${own}/32`];
    expect(await resolvedHostProblem('https://intranet.example/', answering(['10.1.2.3', '::ffff:10.9.9.9', 'fd12:3456::1']), networks)).toBeNull();
    expect(await resolvedHostProblem('https://intranet.example/', answering(['10.1.2.3', '192.168.1.1']), networks)).toContain('resolves to 192.168.1.1 (private-use, RFC 1918)');
    expect(await resolvedHostProblem('https://intranet.example/', answering([own]), networks)).toContain('leads to this machine');
  });

  test('a name that does not resolve, or resolves to nothing, is refused: where it leads is not known (fail closed)', async () => {
    const missing: HostLookup = () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND evil.example'), { code: 'ENOTFOUND' }));
    expect(await resolvedHostProblem('https://evil.example/', missing)).toBe('its URL-mode question\'s url "https://evil.example/" names a host that could not be resolved (ENOTFOUND), so where it leads is not known (mcp-latch passes on only https URLs of other hosts)');
    expect(await resolvedHostProblem('https://evil.example/', answering([]))).toContain('resolves to no address');
  });

  test(`a lookup with no answer within MAX_URL_LOOKUP_MS (${MAX_URL_LOOKUP_MS} ms) is refused naming the limit`, async () => {
    vi.useFakeTimers();
    let finish: (addresses: Array<{ address: string }>) => void = () => undefined;
    try {
      const problem = resolvedHostProblem('https://slow.example/', () => new Promise((resolve) => (finish = resolve)));
      await vi.advanceTimersByTimeAsync(MAX_URL_LOOKUP_MS);
      expect(await problem).toContain(`could not be resolved (no answer within ${MAX_URL_LOOKUP_MS} ms (MAX_URL_LOOKUP_MS))`);
    } finally {
      // The lookup ends (as the system resolver's does, later): the next test's lookups are not counted behind it.
      finish([]);
      await vi.advanceTimersByTimeAsync(0);
      vi.useRealTimers();
    }
  });

  // A system lookup goes on after the question gave up on it, in libuv's thread pool (two at once),
  // with every other lookup of the process queued behind it: one server's questions to names whose DNS
  // never answers refused other servers' URL questions for ~100 s (round 21 review, review-proto21 P1).
  // Round 22 review (R22-2): a question meeting a lookup in flight was refused at once, however soon
  // the place came free; now it waits for it in turn within its own MAX_URL_LOOKUP_MS.
  test(`at most MAX_URL_LOOKUPS_PER_SERVER (${MAX_URL_LOOKUPS_PER_SERVER}) of one server's at once, counted until the lookup itself ends: another host waits for the place within MAX_URL_LOOKUP_MS and is refused naming the limit when none comes; an address as written needs none`, async () => {
    vi.useFakeTimers();
    let finish: (addresses: Array<{ address: string }>) => void = () => undefined;
    const asked: string[] = [];
    const other: HostLookup = async (host) => {
      asked.push(host);
      return [{ address: '93.184.215.14' }];
    };
    try {
      const stalled = resolvedHostProblem('https://stall.attacker.example/', () => new Promise((resolve) => (finish = resolve)));
      await vi.advanceTimersByTimeAsync(MAX_URL_LOOKUP_MS);
      expect(await stalled).toContain('no answer within');
      // The stalled lookup goes on: the next host waits for its place, and none comes within the limit.
      const waited = resolvedHostProblem('https://accounts.example.com/connect', other);
      expect(await resolvedHostProblem('https://93.184.215.14/connect', other)).toBeNull();
      await vi.advanceTimersByTimeAsync(MAX_URL_LOOKUP_MS);
      expect(await waited).toBe(
        `its URL-mode question's url "https://accounts.example.com/connect" names a host that could not be resolved now: no host lookup place came free within ${MAX_URL_LOOKUP_MS} ms (at most ${MAX_URL_LOOKUPS_PER_SERVER} of a server's at once, MAX_URL_LOOKUPS_PER_SERVER, and ${MAX_URL_LOOKUPS} of all servers', MAX_URL_LOOKUPS; MAX_URL_LOOKUP_MS), so where it leads is not known (mcp-latch passes on only https URLs of other hosts)`,
      );
      expect(asked).toEqual(['93.184.215.14']);
      // One waiting when the stalled lookup ends is handed its place, and resolved.
      const handed = resolvedHostProblem('https://accounts.example.com/connect', other);
      await vi.advanceTimersByTimeAsync(MAX_URL_LOOKUP_MS / 2);
      finish([]);
      expect(await handed).toBeNull();
      expect(asked).toEqual(['93.184.215.14', 'accounts.example.com']);
      // The place is free again.
      expect(await resolvedHostProblem('https://login.example.org/connect', other)).toBeNull();
    } finally {
      finish([]);
      await vi.advanceTimersByTimeAsync(0);
      vi.useRealTimers();
    }
  });

  test(`at most MAX_URL_LOOKUP_WAITING (${MAX_URL_LOOKUP_WAITING}) of one server's wait for a place; more are refused at once naming the limit`, async () => {
    vi.useFakeTimers();
    let finish: (addresses: Array<{ address: string }>) => void = () => undefined;
    try {
      const stalled = resolvedHostProblem('https://stall.attacker.example/', () => new Promise((resolve) => (finish = resolve)));
      const waiting = Array.from({ length: MAX_URL_LOOKUP_WAITING }, (_, index) => resolvedHostProblem(`https://w${index}.example.com/`, answering(['93.184.215.14'])));
      expect(await resolvedHostProblem('https://one-more.example.com/', answering(['93.184.215.14']))).toContain(`${MAX_URL_LOOKUP_WAITING} host lookups of this server wait for a place already (the limit, MAX_URL_LOOKUP_WAITING)`);
      finish([{ address: '93.184.215.14' }]);
      expect(await stalled).toBeNull();
      // Each handed the place in turn as the one before it settles.
      expect(await Promise.all(waiting)).toEqual(Array(MAX_URL_LOOKUP_WAITING).fill(null));
    } finally {
      finish([]);
      await vi.advanceTimersByTimeAsync(0);
      vi.useRealTimers();
    }
  });

  // Round 24 (N1): each server its own share; one server's lookups that hang, or its waiters, hold
  // at most its own place and its own MAX_URL_LOOKUP_WAITING, never another server's.
  test(`another server's lookup is not held behind one that hangs, nor refused when that server has MAX_URL_LOOKUP_WAITING (${MAX_URL_LOOKUP_WAITING}) waiting; at most MAX_URL_LOOKUPS (${MAX_URL_LOOKUPS}) of all servers' at once`, async () => {
    vi.useFakeTimers();
    const finishing: Array<(addresses: Array<{ address: string }>) => void> = [];
    const hangs: HostLookup = () => new Promise((resolve) => finishing.push(resolve));
    try {
      const stalled = resolvedHostProblem('https://stall.attacker.example/', hangs, [], 'a');
      const waiting = Array.from({ length: MAX_URL_LOOKUP_WAITING }, (_, index) => resolvedHostProblem(`https://w${index}.attacker.example/`, answering(['93.184.215.14']), [], 'a'));
      expect(await resolvedHostProblem('https://one-more.attacker.example/', answering(['93.184.215.14']), [], 'a')).toContain(`${MAX_URL_LOOKUP_WAITING} host lookups of this server wait for a place already (the limit, MAX_URL_LOOKUP_WAITING)`);
      expect(await resolvedHostProblem('https://accounts.example.com/connect', answering(['93.184.215.14']), [], 'b')).toBeNull();
      // Server b's own lookup hangs too: both places are taken, and a third server waits for one.
      const stalledB = resolvedHostProblem('https://stall.b.example/', hangs, [], 'b');
      const third = resolvedHostProblem('https://login.example.org/', answering(['93.184.215.14']), [], 'c');
      await vi.advanceTimersByTimeAsync(MAX_URL_LOOKUP_MS);
      expect(await third).toContain(`no host lookup place came free within ${MAX_URL_LOOKUP_MS} ms (at most ${MAX_URL_LOOKUPS_PER_SERVER} of a server's at once, MAX_URL_LOOKUPS_PER_SERVER, and ${MAX_URL_LOOKUPS} of all servers', MAX_URL_LOOKUPS`);
      expect(await stalled).toContain('no answer within');
      expect(await stalledB).toContain('no answer within');
      expect((await Promise.all(waiting)).every((problem) => problem?.includes('no host lookup place came free'))).toBe(true);
    } finally {
      for (const finish of finishing) finish([]);
      await vi.advanceTimersByTimeAsync(0);
      vi.useRealTimers();
    }
  });

  test("the system's resolver: this machine's own name is refused", async () => {
    expect(await resolvedHostProblem(`https://${hostname()}/connect`)).not.toBeNull();
  });
});

describe("a URL-mode question to a name of this machine, through the built gateway", () => {
  const name = hostname();
  const url = `https://${name}/connect`;
  /** What the refusal says: the system's resolver, read here as the gateway reads it. */
  let why: string;
  beforeAll(async () => {
    const addresses = await lookup(name, { all: true }).catch(() => null);
    why = addresses ? `leads to this machine: ${name} resolves to ` : 'names a host that could not be resolved';
  });
  let h: Harness | undefined;
  let modern: Modern | undefined;
  afterEach(async () => {
    await h?.close();
    await modern?.close();
    h = undefined;
    modern = undefined;
  });

  test("a 2025 server's, to a handshake-era client (SDK 1.x) declaring URL mode: refused to the server, the person not asked", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    h = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] } }, { dir, capabilities: { elicitation: { form: {}, url: {} } }, onElicit: () => ({ action: 'accept' }) });
    const result = await h.client.callTool({ name: 'fix__ask_user', arguments: { url } });
    expect(textOf(result)).toContain(`error: MCP error -32600: mcp-latch cannot relay this request of fix: its URL-mode question's url "${url}" ${why}`);
    expect(h.elicitations).toEqual([]);
  });

  test("a 2025 server's, to a 2026-07-28 client (v2 Client) declaring URL mode: not held for the client", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    modern = await startModernClient(dir, { mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] } }, { capabilities: { elicitation: { form: {}, url: {} } } });
    const result = await round(modern.client, { name: 'fix__ask_user', arguments: { url } });
    expect(result.resultType ?? 'complete').toBe('complete');
    expect(textOf(result as never)).toContain(why);
  });

  const RAW = join(ROOT, 'test/fixtures/raw-modern-server.mjs');
  const asking = (dir: string) => ({ raw: { command: process.execPath, args: [RAW], env: { INPUT_REQUESTS: JSON.stringify({ u: { method: 'elicitation/create', params: { mode: 'url', elicitationId: 'e1', message: 'Connect', url } } }), FIXTURE_LOG: join(dir, 'raw.log') }, protocolVersion: '2026-07-28' as const } });

  test("a 2026-07-28 server's, relayed to a 2026-07-28 client (v2 Client) declaring URL mode: the call ends naming why", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    modern = await startModernClient(dir, { mcpServers: asking(dir), permissions: { allow: ['mcp__raw'] } }, { capabilities: { elicitation: { form: {}, url: {} } } });
    const result = await round(modern.client, { name: 'raw__go', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result as never)).toContain(`mcp-latch: raw asked for input the gateway could not pass on: its URL-mode question's url "${url}" ${why}`);
    expect(fixtureCalls(join(dir, 'raw.log'))).toEqual([{ tool: 'go', answers: null }]);
  });

  test("a 2026-07-28 server's, asked of a handshake-era client (SDK 1.x) declaring URL mode: the call ends naming why, nothing asked", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    h = await startGateway({ mcpServers: asking(dir), permissions: { allow: ['mcp__raw'] } }, { dir, capabilities: { elicitation: { form: {}, url: {} } }, onElicit: () => ({ action: 'accept' }) });
    const result = await h.client.callTool({ name: 'raw__go', arguments: {} });
    expect(textOf(result)).toContain(`its URL-mode question's url "${url}" ${why}`);
    expect(h.elicitations).toEqual([]);
    expect(fixtureCalls(join(dir, 'raw.log'))).toEqual([{ tool: 'go', answers: null }]);
  });
});

describe('two URL-mode questions at once, through the built gateway', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Round 22 review (R22-2): the second met the first's lookup in flight and was refused at once
  // ("1 URL-mode host lookup is in flight already"), the lookup taking milliseconds. Now it waits its
  // turn: each is looked up (names under .invalid resolve nowhere, so each is refused for that).
  test('the second waits for the first lookup to end and is looked up itself', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    h = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] } }, { dir, capabilities: { elicitation: { form: {}, url: {} } } });
    const result = await h.client.callTool({ name: 'fix__ask_user', arguments: { urls: ['https://first.invalid/connect', 'https://second.invalid/connect'] } });
    const answers = JSON.parse(textOf(result)) as string[];
    expect(answers).toHaveLength(2);
    for (const [index, answer] of answers.entries()) {
      expect(answer).toContain(`${['first', 'second'][index]}.invalid/connect" names a host that could not be resolved (`);
      expect(answer).not.toContain('in flight');
    }
    expect(h.elicitations).toEqual([]);
  });
});

describe('a URL-mode question past the waiting limit, through the built gateway', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Counted before its host is looked up (round 22): it was counted only after, so a server with
  // MAX_SERVER_QUESTIONS questions waiting still started a lookup with each further URL question
  // (taking the gateway's MAX_URL_LOOKUPS place from every other server) before it was refused.
  test(`is refused at MAX_SERVER_QUESTIONS (${MAX_SERVER_QUESTIONS}) without its host being looked up`, { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const refused = () => h?.stderr().includes('refused a question of a server') || h?.stderr().includes('refused the elicitation request of a server');
    h = await startGateway(
      { mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] } },
      // Nothing is answered before the URL question is refused: all 32 are waiting when it comes.
      { dir, capabilities: { elicitation: { form: {}, url: {} } }, onElicit: async () => (await eventually(() => expect(refused()).toBe(true), 30_000), { action: 'cancel' }) },
    );
    const result = await h.client.callTool({ name: 'fix__ask_user', arguments: { count: MAX_SERVER_QUESTIONS, url: 'https://nowhere.invalid/connect' } });
    const answers = JSON.parse(textOf(result)) as string[];
    expect(answers.slice(0, MAX_SERVER_QUESTIONS)).toEqual(Array(MAX_SERVER_QUESTIONS).fill('cancel'));
    expect(answers[MAX_SERVER_QUESTIONS]).toBe(`error: MCP error -32600: mcp-latch cannot relay this request: ${MAX_SERVER_QUESTIONS} of its questions are waiting for the person already (the limit)`);
    expect(h.stderr()).not.toContain('nowhere.invalid');
    expect(h.elicitations.every((question) => question.mode !== 'url')).toBe(true);
  });
});

describe('a URL-mode question to a local network, through the built gateway (round 22)', () => {
  const url = 'https://10.1.2.3/reset';
  const refusal = `its URL-mode question's url "${url}" leads to a local network: 10.1.2.3 resolves to 10.1.2.3 (private-use, RFC 1918), not an address on the internet (mcp-latch passes on such URLs only to networks listed in approval.localUrlNetworks)`;
  const RAW = join(ROOT, 'test/fixtures/raw-modern-server.mjs');
  const raw = (dir: string) => ({ raw: { command: process.execPath, args: [RAW], env: { INPUT_REQUESTS: JSON.stringify({ u: { method: 'elicitation/create', params: { mode: 'url', elicitationId: 'e1', message: 'Reset', url } } }), FIXTURE_LOG: join(dir, 'raw.log') }, protocolVersion: '2026-07-28' as const } });
  const allowing = (networks: string[]) => ({ approval: { localUrlNetworks: networks } });
  let h: Harness | undefined;
  let modern: Modern | undefined;
  afterEach(async () => {
    await h?.close();
    await modern?.close();
    h = undefined;
    modern = undefined;
  });

  test.each([[[] as string[]], [['10.0.0.0/8']]])("a 2025 server's, to a handshake-era client (SDK 1.x); approval.localUrlNetworks %j", { timeout: 60_000 }, async (networks) => {
    const dir = tempDir();
    h = await startGateway({ mcpServers: { fix: fixtureServer('fix', join(dir, 'fixture.log')) }, permissions: { allow: ['mcp__fix'] }, ...allowing(networks) }, { dir, capabilities: { elicitation: { form: {}, url: {} } }, onElicit: () => ({ action: 'accept' }) });
    const result = await h.client.callTool({ name: 'fix__ask_user', arguments: { url } });
    if (networks.length === 0) {
      expect(textOf(result)).toBe(`error: MCP error -32600: mcp-latch cannot relay this request of fix: ${refusal}`);
      expect(h.elicitations).toEqual([]);
    } else {
      expect(textOf(result)).toBe('accept');
      expect(h.elicitations).toEqual([{ mode: 'url', elicitationId: 'e1', message: '[fix] Connect your account', url }]);
    }
  });

  test.each([[[] as string[]], [['10.0.0.0/8']]])("a 2026-07-28 server's, relayed to a 2026-07-28 client (v2 Client); approval.localUrlNetworks %j", { timeout: 60_000 }, async (networks) => {
    const dir = tempDir();
    modern = await startModernClient(dir, { mcpServers: raw(dir), permissions: { allow: ['mcp__raw'] }, ...allowing(networks) }, { capabilities: { elicitation: { form: {}, url: {} } } });
    const result = await round(modern.client, { name: 'raw__go', arguments: {} });
    if (networks.length === 0) {
      expect(textOf(result as never)).toContain(`mcp-latch: raw asked for input the gateway could not pass on: ${refusal}`);
    } else {
      expect(result.resultType).toBe('input_required');
      expect(JSON.stringify(result.inputRequests)).toContain(url);
    }
  });

  test.each([[[] as string[]], [['10.0.0.0/8']]])("a 2026-07-28 server's, asked of a handshake-era client (SDK 1.x); approval.localUrlNetworks %j", { timeout: 60_000 }, async (networks) => {
    const dir = tempDir();
    h = await startGateway({ mcpServers: raw(dir), permissions: { allow: ['mcp__raw'] }, ...allowing(networks) }, { dir, capabilities: { elicitation: { form: {}, url: {} } }, onElicit: () => ({ action: 'accept' }) });
    const result = await h.client.callTool({ name: 'raw__go', arguments: {} });
    if (networks.length === 0) expect(textOf(result)).toContain(refusal);
    expect(h.elicitations.map((question) => (question as { url?: string }).url)).toEqual(networks.length === 0 ? [] : [url]);
  });
});
