import { expect, test, vi } from 'vitest';

/**
 * The networks this machine is on are local whatever their addresses (round 23 review, F4;
 * docs/threat-model.md, "Round 23"): an IPv6 home or office network numbers its router, printers
 * and NAS with global addresses in this machine's /64, reachable from the person's browser and
 * firewalled from the internet; a campus may do the same with public IPv4. Until round 23 only the
 * registries' blocks (RFC 1918, fc00::/7, ...) were local, and a name resolving to such a neighbour
 * passed. In process, with this machine's interfaces as such a host has them (node:os mocked).
 */
vi.mock('node:os', async (original) => ({
  ...(await original<typeof import('node:os')>()),
  networkInterfaces: () => ({
    lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
    eth0: [
      { address: '2a02:1210:5c00:1200:1c2e:9aff:fe11:2233', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '02:00:00:00:00:01', internal: false, cidr: '2a02:1210:5c00:1200:1c2e:9aff:fe11:2233/64', scopeid: 0 },
      { address: '130.59.10.20', netmask: '255.255.255.0', family: 'IPv4', mac: '02:00:00:00:00:01', internal: false, cidr: '130.59.10.20/24' },
    ],
    // Configured far too wide: taken as its /16 (WIDEST_OWN_NETWORK), not as a quarter of the internet.
    wide0: [{ address: '44.12.7.9', netmask: '192.0.0.0', family: 'IPv4', mac: '02:00:00:00:00:02', internal: false, cidr: '44.12.7.9/2' }],
  }),
}));

const at = (address: string) => async () => [{ address }];

test.each([
  ['the router of its own IPv6 /64', '2a02:1210:5c00:1200::1', '2a02:1210:5c00:1200:1c2e:9aff:fe11:2233/64'],
  ['a neighbour on its own public IPv4 /24', '130.59.10.1', '130.59.10.20/24'],
  ['a neighbour within the /16 of an interface configured wider', '44.12.200.1', '44.12.7.9/16'],
])('a name resolving to %s is refused as a local network, naming it', async (_, address, network) => {
  const { resolvedHostProblem } = await import('../../src/gateway/url-host.js');
  const problem = await resolvedHostProblem('https://router.evil.example/cgi-bin/reset', at(address));
  expect(problem).toContain('leads to a local network');
  expect(problem).toContain(`on this machine's own network ${network}`);
});

test.each([
  ['the next /64 of the same provider', '2a02:1210:5c00:1201::1'],
  ['the next /24', '130.59.11.1'],
  ['outside the /16 a wide interface is taken as', '44.13.0.1'],
])('%s is another network: passed', async (_, address) => {
  const { resolvedHostProblem } = await import('../../src/gateway/url-host.js');
  expect(await resolvedHostProblem('https://elsewhere.example/', at(address))).toBeNull();
});

test('approval.localUrlNetworks lets one of its own networks through, as it does a private one', async () => {
  const { resolvedHostProblem } = await import('../../src/gateway/url-host.js');
  expect(await resolvedHostProblem('https://nas.example/', at('2a02:1210:5c00:1200::9'), ['2a02:1210:5c00:1200::/64'])).toBeNull();
  expect(await resolvedHostProblem('https://nas.example/', at('130.59.10.9'), ['130.59.10.0/24'])).toBeNull();
});

test('(premise) the mocked interfaces are the ones the check reads: their own address is this machine', async () => {
  const { resolvedHostProblem } = await import('../../src/gateway/url-host.js');
  expect(await resolvedHostProblem('https://me.evil.example/', at('2a02:1210:5c00:1200:1c2e:9aff:fe11:2233'))).toContain('leads to this machine');
});

test('a local-use NAT64 address is judged by each of its readings whatever its suffix holds (round 23 review, F6)', async () => {
  const { resolvedHostProblem } = await import('../../src/gateway/url-host.js');
  // 64:ff9b:1::/48: bytes 6, 7, 9, 10 are the /48 reading (10.5.6.7; 127.5.6.7), the /56, /64 and /96
  // ones public (5.6.7.8, 6.7.8.9, 9.10.11.12); the suffix not zero, so until round 23 only the /96 one was read.
  expect(await resolvedHostProblem('https://nat.evil.example/', at('64:ff9b:1:a05:6:708:90a:b0c'))).toContain('carries 10.5.6.7');
  expect(await resolvedHostProblem('https://nat.evil.example/', at('64:ff9b:1:7f05:6:708:90a:b0c'))).toContain('leads to this machine');
  // Every reading public: passed, as a translation to the internet is.
  expect(await resolvedHostProblem('https://nat.example/', at('64:ff9b:1:5db8:d7:e00:5db8:d70e'))).toBeNull();
});

test.each(['::ffff:130.59.10.1', '64:ff9b::130.59.10.1', '64:ff9b:1::130.59.10.1', '::ffff:44.12.200.1'])('an IPv6 form carrying a neighbour on one of its own IPv4 networks (%s) is refused as the IPv4 form is (round 24 review, F4)', async (address) => {
  const { resolvedHostProblem } = await import('../../src/gateway/url-host.js');
  const inner = address.replace(/^.*:/, '');
  expect(await resolvedHostProblem('https://router.evil.example/', at(inner))).toContain("this machine's own network");
  expect(await resolvedHostProblem('https://router.evil.example/', at(address))).toContain(`carries ${inner} (on this machine's own network`);
  // approval.localUrlNetworks naming the IPv4 network lets the carried form through too.
  expect(await resolvedHostProblem('https://router.example/', at(address), [inner.startsWith('44.') ? '44.12.0.0/16' : '130.59.10.0/24'])).toBeNull();
});
