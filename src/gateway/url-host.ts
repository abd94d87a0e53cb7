import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { escapeText } from '../latch/escape.js';

/**
 * Where a server's URL-mode question leads (docs/threat-model.md, "The 2026-07-28 path"): the client
 * shows its URL as mcp-latch's and offers to open it, so it must lead to another machine than this
 * one, where mcp-latch's own approval page and the person's local services listen. The host is read
 * as written (isThisMachine: names and address forms of this machine) and, since round 21, resolved:
 * a name whose addresses include one of this machine's (`127.0.0.1.nip.io`, a name in /etc/hosts,
 * the machine's own LAN address) is refused too, showing the address. A name that does not resolve
 * within MAX_URL_LOOKUP_MS, or at all, is refused: the gateway cannot say where it leads (fail closed).
 *
 * An IPv6 address is checked too as each IPv4 address a NAT64 may translate it to (RFC 6052, RFC
 * 8215; carriedIPv4, anyCarriedIPv4; docs/threat-model.md, "The 2026-07-28 path").
 *
 * Not covered, by its nature: a name whose answer changes between this lookup and the browser's (DNS
 * rebinding), or that the person's browser resolves with another resolver (split DNS). The https the
 * check requires means a page reached that way must still hold a certificate for that name; why no
 * TTL floor or other mitigation is built: docs/threat-model.md, "What the host check promises".
 */

/** How long a URL-mode question's host may take to resolve before the question is refused. */
export const MAX_URL_LOOKUP_MS = 3000;

/**
 * How many host lookups (URL-mode questions'; listed icons' until round 25) run at once, gateway-wide, and of
 * one server's at once (MAX_URL_LOOKUPS_PER_SERVER); a host that needs resolving while its server's
 * or the gateway's places are taken waits for a place, in turn, within its MAX_URL_LOOKUP_MS (the
 * lookup's own time included), and is refused naming the limit when none comes. A system lookup
 * (getaddrinfo) runs in libuv's thread pool, at most half its threads at once there (its "slow I/O"
 * share: 4 of the 8 bin/mcp-latch.js starts it with since round 25, 2 of Node's default 4), and goes
 * on after MAX_URL_LOOKUP_MS until the system resolver gives up (10 s with glibc's defaults); it
 * cannot be withdrawn, and the rest queue behind it: the servers' MAX_URL_LOOKUPS leave the other 2
 * to the rest of the process (docs/threat-model.md, "Round 25: the lookups' threads"). Uncounted, one server's
 * questions to names whose DNS never answers queued every lookup of the process for as long as it
 * liked (round 21 review, review-proto21 P1). Counted until the lookup itself settles, not until
 * the question gives up on it. Until round 24 the servers had one place between them: one server
 * whose lookups hung held it, and every other server's URL-mode questions waited behind it and were
 * refused (round 23's leftover N1). Now a server holds at most one of the two, so another server's
 * lookups go on in the other while one hangs (docs/threat-model.md, "Round 24: URL and icon hosts").
 */
export const MAX_URL_LOOKUPS = 2;
export const MAX_URL_LOOKUPS_PER_SERVER = 1;
let lookupsInFlight = 0;
/** Each server's lookups in flight (only servers with one). */
const lookupsOf = new Map<string, number>();

/**
 * How many host lookups of one server may wait for a place at once; more are refused at once,
 * naming the limit. Until round 22 none waited: a question whose host needed a lookup while
 * another's ran, however briefly, was refused at once, though the place was free a few milliseconds
 * later (round 22 review, R22-2). Per server since round 24: one server's waiting lookups filled
 * the gateway's 32 and refused every other server's at once.
 */
export const MAX_URL_LOOKUP_WAITING = 32;
/** The lookups waiting for a place, in turn, each with its server: handed the place of a lookup that settles. */
const waitingForLookup: Array<{ server: string; handed: () => void }> = [];
/** Each server's lookups waiting (only servers with one). */
const waitingOf = new Map<string, number>();

function count(counts: Map<string, number>, server: string, by: number): void {
  const next = (counts.get(server) ?? 0) + by;
  if (next > 0) counts.set(server, next);
  else counts.delete(server);
}

/** Whether `server` may start a lookup now (a place of its own and one of the gateway's free). */
function placeFree(server: string): boolean {
  return lookupsInFlight < MAX_URL_LOOKUPS && (lookupsOf.get(server) ?? 0) < MAX_URL_LOOKUPS_PER_SERVER;
}

function takePlace(server: string): void {
  lookupsInFlight += 1;
  count(lookupsOf, server, 1);
}

/** A lookup of `server` settled: its place goes to the first lookup waiting that may take one (its server's share free). */
function lookupSettled(server: string): void {
  lookupsInFlight -= 1;
  count(lookupsOf, server, -1);
  for (let index = 0; index < waitingForLookup.length && lookupsInFlight < MAX_URL_LOOKUPS; ) {
    const next = waitingForLookup[index]!;
    if (!placeFree(next.server)) {
      index += 1;
      continue;
    }
    waitingForLookup.splice(index, 1);
    count(waitingOf, next.server, -1);
    takePlace(next.server);
    next.handed();
  }
}

/** A place for a lookup of `server` within `ms` (true), or none came (false); taken (counted) when true. */
function lookupPlace(server: string, ms: number): Promise<boolean> | boolean {
  if (placeFree(server)) {
    takePlace(server);
    return true;
  }
  if ((waitingOf.get(server) ?? 0) >= MAX_URL_LOOKUP_WAITING) return false;
  return new Promise((resolve) => {
    const waiter = {
      server,
      handed: () => {
        clearTimeout(timer);
        resolve(true);
      },
    };
    const timer = setTimeout(() => {
      const index = waitingForLookup.indexOf(waiter);
      if (index >= 0) {
        waitingForLookup.splice(index, 1);
        count(waitingOf, server, -1);
      }
      resolve(false);
    }, ms);
    waitingForLookup.push(waiter);
    count(waitingOf, server, 1);
  });
}

/** Resolves a host name to all its addresses (node:dns lookup, as a browser's getaddrinfo would). */
export type HostLookup = (hostname: string) => Promise<Array<{ address: string }>>;

// node:dns is loaded at the first URL-mode question, not at the gateway's start (docs/performance.md, the start's modules).
const systemLookup: HostLookup = async (hostname) => (await import('node:dns/promises')).lookup(hostname, { all: true, verbatim: true });

/** A host name that is this machine as written: localhost, a loopback or unspecified address. */
export function isThisMachine(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(host) || host === '0.0.0.0') return true;
  // IPv6 in brackets: ::1, ::, and IPv4-mapped loopback (the URL parser writes them in hex).
  // And the forms that carry 127/8 in their last 32 bits: IPv4-compatible, SIIT and NAT64 (round 20 review, D1).
  return host === '[::1]' || host === '[::]' || /^\[(::ffff:|::|::ffff:0:|64:ff9b::)7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host) || host === '[::ffff:0:0]';
}

/**
 * The widest own network taken as a neighbourhood: an interface configured wider (a /8 of public
 * addresses, a /32 of IPv6) counts as this much around its address, so a misconfigured one does not
 * make most of the internet "this machine's network".
 */
const WIDEST_OWN_NETWORK = { ipv4: 16, ipv6: 48 } as const;

/**
 * This machine's addresses: `list`, loopback, unspecified, and each address of its interfaces now;
 * `own`, the interface addresses alone; `networks`, the networks its interfaces are on (each one's
 * address and prefix, `cidr`, at most WIDEST_OWN_NETWORK wide), with where each came from. The IPv6
 * forms that carry an IPv4 address are checked as that address (carriedIPv4 against `list`,
 * anyCarriedIPv4 against `own`).
 */
function thisMachine(): { list: BlockList; own: BlockList; networks: Array<{ cidr: string; block: BlockList; family: 'ipv4' | 'ipv6' }> } {
  const list = new BlockList();
  const own = new BlockList();
  const networks: Array<{ cidr: string; block: BlockList; family: 'ipv4' | 'ipv6' }> = [];
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addSubnet('0.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  list.addAddress('::', 'ipv6');
  for (const addresses of Object.values(networkInterfaces())) {
    for (const { address, family, cidr, internal } of addresses ?? []) {
      // A link-local IPv6 address names its interface after '%' (fe80::1%eth0): the address alone is compared.
      const plain = address.split('%')[0]!;
      if (!isIP(plain)) continue;
      const kind = family === 'IPv6' ? 'ipv6' : 'ipv4';
      list.addAddress(plain, kind);
      own.addAddress(plain, kind);
      const length = Number(cidr?.split('/')[1]);
      if (internal || !Number.isInteger(length)) continue;
      const prefix = Math.max(length, WIDEST_OWN_NETWORK[kind]);
      const block = new BlockList();
      try {
        block.addSubnet(plain, prefix, kind);
      } catch {
        continue;
      }
      networks.push({ cidr: `${plain}/${prefix}`, block, family: kind });
    }
  }
  return { list, own, networks };
}

/**
 * The address blocks the IANA IPv4 and IPv6 Special-Purpose Address Registries mark "Globally
 * Reachable: False" (6to4 there is "N/A"), with multicast: a local network's, or none at all, never
 * a page on the internet. A few single addresses inside 192.0.0.0/24 and 2001::/23 the registries
 * mark reachable (anycast services such as PCP and TURN, none a web page) are refused with their
 * blocks. 127/8, 0/8, ::1 and :: are this machine (thisMachine); the forms that carry an IPv4
 * address (mapped, NAT64, ...) are judged by that address (carriedIPv4).
 */
const LOCAL_BLOCKS: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6', string]> = [
  ['10.0.0.0', 8, 'ipv4', 'private-use, RFC 1918'],
  ['100.64.0.0', 10, 'ipv4', 'shared address space (carrier-grade NAT), RFC 6598'],
  ['169.254.0.0', 16, 'ipv4', 'link-local, RFC 3927'],
  ['172.16.0.0', 12, 'ipv4', 'private-use, RFC 1918'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments, RFC 6890'],
  ['192.0.2.0', 24, 'ipv4', 'documentation, RFC 5737'],
  ['192.168.0.0', 16, 'ipv4', 'private-use, RFC 1918'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking, RFC 2544'],
  ['198.51.100.0', 24, 'ipv4', 'documentation, RFC 5737'],
  ['203.0.113.0', 24, 'ipv4', 'documentation, RFC 5737'],
  ['224.0.0.0', 4, 'ipv4', 'multicast, RFC 5771'],
  ['240.0.0.0', 4, 'ipv4', 'reserved and limited broadcast, RFC 1112 and RFC 919'],
  ['64:ff9b:1::', 48, 'ipv6', 'local-use IPv4/IPv6 translation, RFC 8215'],
  ['100::', 64, 'ipv6', 'discard-only, RFC 6666'],
  ['2001::', 23, 'ipv6', 'IETF protocol assignments (Teredo among them), RFC 2928'],
  ['2001:db8::', 32, 'ipv6', 'documentation, RFC 3849'],
  ['2002::', 16, 'ipv6', '6to4, RFC 3056'],
  ['3fff::', 20, 'ipv6', 'documentation, RFC 9637'],
  ['5f00::', 16, 'ipv6', 'segment routing SIDs, RFC 9602'],
  ['fc00::', 7, 'ipv6', 'unique local, RFC 4193'],
  ['fe80::', 10, 'ipv6', 'link-local, RFC 4291'],
  ['fec0::', 10, 'ipv6', 'site-local, RFC 3879'],
  ['ff00::', 8, 'ipv6', 'multicast, RFC 4291'],
];
/**
 * LOCAL_BLOCKS as lists, made at the first check, not when the module is evaluated: this module is in
 * the gateway's bundle, evaluated at every start beside the booting servers, and the 23 lists (node's
 * BlockList, loaded then) cost ~0.7 ms of CPU there that only a URL-mode question needs
 * (docs/performance.md, "Round 23: start").
 */
let localBlocks: ReadonlyArray<{ list: BlockList; family: 'ipv4' | 'ipv6'; rule: string }> | undefined;

/** The registry entry (LOCAL_BLOCKS) `address` is in, with the block, or null when it is globally reachable. */
function localRule(address: string, family: 'ipv4' | 'ipv6'): string | null {
  localBlocks ??= LOCAL_BLOCKS.map(([network, prefix, family, rule]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, family, rule };
  });
  return localBlocks.find((block) => block.family === family && block.list.check(address, family))?.rule ?? null;
}

/**
 * The networks of `approval.localUrlNetworks` ("ADDRESS/LENGTH" each, checked when the config is
 * read: schema.ts) as a list; an entry that cannot be read adds nothing (fail closed).
 */
function allowedNetworks(networks: readonly string[]): BlockList {
  const list = new BlockList();
  for (const network of networks) {
    const [address = '', length = ''] = network.split('/');
    const family = isIP(address);
    if (family === 0 || !/^\d{1,3}$/.test(length)) continue;
    try {
      list.addSubnet(address, Number(length), family === 6 ? 'ipv6' : 'ipv4');
    } catch {
      // Not a network: nothing allowed by it.
    }
  }
  return list;
}

/**
 * Why the host of `url` (already checked as written: urlQuestionProblem) leads to this machine or to
 * a local network, or cannot be told, or null when every address it resolves to is another
 * machine's on the internet. `localNetworks`: approval.localUrlNetworks, the local networks the
 * person lets servers' questions lead to (docs/config.md); this machine is never let through.
 * `server`: whose question it is, for its share of the lookups (MAX_URL_LOOKUPS_PER_SERVER).
 */
export function resolvedHostProblem(url: string, lookup: HostLookup = systemLookup, localNetworks: readonly string[] = [], server = ''): Promise<string | null> {
  return hostProblem(url, "its URL-mode question's url", lookup, localNetworks, server);
}

async function hostProblem(url: string, subject: string, lookup: HostLookup, localNetworks: readonly string[], server: string): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let timer: NodeJS.Timeout | undefined;
  let addresses: Array<{ address: string }>;
  // An address as written needs no lookup (node:dns answers it without the thread pool).
  const literal = isIP(host) !== 0;
  const started = performance.now();
  const what = `${subject} "${escapeText(url)}"`;
  if (!literal) {
    const full = (waitingOf.get(server) ?? 0) >= MAX_URL_LOOKUP_WAITING;
    if (!(await lookupPlace(server, MAX_URL_LOOKUP_MS))) {
      const why = full
        ? `${MAX_URL_LOOKUP_WAITING} host lookups of this server wait for a place already (the limit, MAX_URL_LOOKUP_WAITING)`
        : `no host lookup place came free within ${MAX_URL_LOOKUP_MS} ms (at most ${MAX_URL_LOOKUPS_PER_SERVER} of a server's at once, MAX_URL_LOOKUPS_PER_SERVER, and ${MAX_URL_LOOKUPS} of all servers', MAX_URL_LOOKUPS; MAX_URL_LOOKUP_MS)`;
      return `${what} names a host that could not be resolved now: ${why}, so where it leads is not known (mcp-latch passes on only https URLs of other hosts)`;
    }
  }
  try {
    // The wait for a place counts toward MAX_URL_LOOKUP_MS: the question's whole wait stays within it.
    const left = Math.max(0, MAX_URL_LOOKUP_MS - (performance.now() - started));
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${MAX_URL_LOOKUP_MS} ms (MAX_URL_LOOKUP_MS)`)), left);
    });
    // Counted until the lookup itself settles (a throw from it too), then its place is handed on.
    const looked = new Promise<Array<{ address: string }>>((resolve) => resolve(lookup(host)));
    if (!literal) {
      const settled = () => lookupSettled(server);
      looked.then(settled, settled);
    }
    addresses = await Promise.race([looked, timeout]);
  } catch (error) {
    const why = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
    return `${what} names a host that could not be resolved (${escapeText(why)}), so where it leads is not known (mcp-latch passes on only https URLs of other hosts)`;
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0) return `${what} names a host that resolves to no address (mcp-latch passes on only https URLs of other hosts)`;
  const { list, own, networks } = thisMachine();
  const tail = ' (mcp-latch passes on only https URLs of other hosts)';
  // This machine first, whatever else the name resolves to: it is never let through.
  for (const { address } of addresses) {
    const family = isIP(address);
    if (family === 0) return `${what} names a host that resolves to "${escapeText(address)}", which is not an address${tail}`;
    const leads = `${what} leads to this machine: ${escapeText(host)} resolves to ${escapeText(address)}`;
    if (list.check(address, family === 6 ? 'ipv6' : 'ipv4')) return leads + tail;
    if (family === 4) continue;
    const bytes = ipv6Bytes(address);
    // An address that cannot be read fails closed (node:dns gives only addresses it read itself).
    if (!bytes) return leads + tail;
    const carried = carriedIPv4(bytes).find((inner) => list.check(inner, 'ipv4'));
    if (carried) return `${leads}, which carries ${carried} (RFC 6052)${tail}`;
    const translated = anyCarriedIPv4(bytes).find((inner) => own.check(inner, 'ipv4'));
    if (translated) return `${leads}, which carries ${translated} as a NAT64 network-specific prefix would (RFC 6052)${tail}`;
  }
  // Then a local network's addresses (round 22): the person's browser reaches them from inside it,
  // where the server cannot; only those of approval.localUrlNetworks pass. The networks this machine
  // is on count as local whatever their addresses (round 23 review, F4): an IPv6 home network's
  // router and printers have global addresses, firewalled from the internet, in this machine's /64.
  const allowed = allowedNetworks(localNetworks);
  for (const { address } of addresses) {
    const local = localProblem(address, allowed) ?? ownNetworkProblem(address, networks, allowed);
    if (local) {
      return `${what} leads to a local network: ${escapeText(host)} resolves to ${escapeText(address)}${local}, not an address on the internet (mcp-latch passes on such URLs only to networks listed in approval.localUrlNetworks)`;
    }
  }
  return null;
}

/** Said after the address when it is on one of this machine's own networks not in `allowed` (" (on this machine's own network 2a02:…/64)"), or null. */
function ownNetworkProblem(address: string, networks: ReadonlyArray<{ cidr: string; block: BlockList; family: 'ipv4' | 'ipv6' }>, allowed: BlockList): string | null {
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  if (allowed.check(address, family)) return null;
  const network = networks.find((each) => each.family === family && each.block.check(address, family));
  if (network) return ` (on this machine's own network ${network.cidr})`;
  // An IPv6 form that carries an IPv4 address (`::ffff:130.59.10.1`, NAT64) leads to that address,
  // as localProblem reads it (round 24 review F4).
  if (family === 'ipv4') return null;
  for (const inner of carriedIPv4(ipv6Bytes(address) ?? [])) {
    const carrier = allowed.check(inner, 'ipv4') ? undefined : networks.find((each) => each.family === 'ipv4' && each.block.check(inner, 'ipv4'));
    if (carrier) return `, which carries ${inner} (on this machine's own network ${carrier.cidr})`;
  }
  return null;
}

/**
 * Where `address` (not this machine's: checked before) leads when that is a local network not in
 * `allowed`, said after the address (", which carries 10.0.0.1 (private-use, RFC 1918)"), or null.
 * An IPv6 form that carries an IPv4 address is judged by that address (each reading of it).
 */
function localProblem(address: string, allowed: BlockList): string | null {
  if (isIP(address) === 4) {
    const rule = localRule(address, 'ipv4');
    return rule && !allowed.check(address, 'ipv4') ? ` (${rule})` : null;
  }
  if (allowed.check(address, 'ipv6')) return null;
  const carried = carriedIPv4(ipv6Bytes(address) ?? []);
  for (const inner of carried) {
    const rule = localRule(inner, 'ipv4');
    if (rule && !allowed.check(inner, 'ipv4')) return `, which carries ${inner} (${rule})`;
  }
  // Under a prefix that carries an IPv4 address, that address is where it leads; a local-use
  // translation address with no reading RFC 6052 allows is judged by its block below.
  if (carried.length > 0) return null;
  const rule = localRule(address, 'ipv6');
  return rule ? ` (${rule})` : null;
}

/**
 * Where RFC 6052 (section 2.2) puts an IPv4 address in an IPv6 one under a translation prefix of
 * each length it allows: the offsets of its four bytes (byte 8, bits 64-71, is never used).
 */
const EMBEDDINGS: ReadonlyArray<readonly [number, readonly number[]]> = [
  [32, [4, 5, 6, 7]],
  [40, [5, 6, 7, 9]],
  [48, [6, 7, 9, 10]],
  [56, [7, 9, 10, 11]],
  [64, [9, 10, 11, 12]],
  [96, [12, 13, 14, 15]],
];

/** The IPv4 address at `offsets` of an IPv6 address's bytes, dotted. */
function ipv4At(bytes: readonly number[], offsets: readonly number[]): string {
  return offsets.map((offset) => bytes[offset]).join('.');
}

/**
 * The IPv4 addresses an IPv6 address leads to in the forms whose prefix is known: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96), SIIT (::ffff:0:0:0/96), the well-known NAT64 prefix
 * (64:ff9b::/96, which the network's NAT64 translates: 64:ff9b::<this machine's LAN address> reaches
 * this machine; round 21 review, review-proto21 P3), and the local-use prefix 64:ff9b:1::/48 (RFC
 * 8215), which an operator may use as it is or cut to a /56, /64 or /96 (RFC 6052's lengths within
 * it): each of those readings whose byte 8 is zero, whatever the suffix holds (RFC 6052 has a
 * translator write it zero, but one reading a /48 takes bits 48-87 and does not look at the rest:
 * round 23 review, F6; until then a reading was taken only with its suffix zero). Byte 8 not zero:
 * none, and the address is judged by its block (local). Checked as those IPv4 addresses, against
 * every list.
 */
function carriedIPv4(bytes: readonly number[]): string[] {
  const zero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const known = zero(0, 10) && ((bytes[10] === 0xff && bytes[11] === 0xff) || (bytes[10] === 0 && bytes[11] === 0));
  const siit = zero(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0;
  const wellKnown = bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12);
  if (known || siit || wellKnown) return [ipv4At(bytes, [12, 13, 14, 15])];
  const localUse = bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && bytes[4] === 0 && bytes[5] === 1;
  if (!localUse || bytes[8] !== 0) return [];
  // A reading in 0.0.0.0/8 ("this network", never translated to) is the zeros before a shorter
  // prefix's address, not an address: kept only where its suffix is zero, as before.
  return EMBEDDINGS.filter(([length, offsets]) => length >= 48 && (zero(offsets[3]! + 1, 16) || bytes[offsets[0]!] !== 0)).map(([, offsets]) => ipv4At(bytes, offsets));
}

/**
 * Every IPv4 address an IPv6 address could carry under some translation prefix of RFC 6052's
 * lengths (32, 40, 48, 56, 64, 96): a network-specific prefix is the operator's own, not known here,
 * and any IPv6 address may be under one (round 22). Checked only against this machine's interface
 * addresses: a few exact addresses, so another machine's address matches one by chance only rarely,
 * where 127/8 and 0/8 would match many.
 */
function anyCarriedIPv4(bytes: readonly number[]): string[] {
  return EMBEDDINGS.map(([, offsets]) => ipv4At(bytes, offsets));
}

/** An IPv6 address's sixteen bytes, or null. */
function ipv6Bytes(address: string): number[] | null {
  const groups = ipv6Groups(address.split('%')[0]!);
  return groups ? groups.flatMap((group) => [group >> 8, group & 0xff]) : null;
}

/** An IPv6 address's eight 16-bit groups (`::` expanded, a dotted last part read as two), or null. */
function ipv6Groups(address: string): number[] | null {
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const read = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const group of part.split(':')) {
      if (group.includes('.')) {
        const octets = group.split('.').map(Number);
        if (octets.length !== 4 || octets.some((octet) => !Number.isInteger(octet) || octet < 0 || octet > 255)) return null;
        out.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
        out.push(parseInt(group, 16));
      }
    }
    return out;
  };
  const head = read(halves[0]!);
  const tail = halves.length === 2 ? read(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
}
