import type { Logger } from '../log.js';
import { escapeText } from '../latch/escape.js';
import { namedIconHost, setIconHosts } from '../gateway/listed-text.js';
import { iconHostProblem, MAX_URL_LOOKUP_MS } from '../gateway/url-host.js';
import type { ServerListing } from './listing.js';

/**
 * The hosts of a server's listed icons, resolved when its listing is read (round 24;
 * docs/threat-model.md, "Round 24: URL and icon hosts"). A client fetches an icon as soon as it shows
 * the entry, no person asked: a name resolving to this machine, a local network or cloud metadata
 * (`https://printer.evil.example/…` → 192.168.1.1) sent that fetch there. Each distinct host is
 * checked with the rule of a URL-mode question's (url-host.ts iconHostProblem, no local network let
 * through), in the server's share of the lookups; an icon whose host does not pass, or could not be
 * resolved, is not listed (fail closed). The listing waits for it: at most MAX_URL_LOOKUP_MS (3 s)
 * once per listing read, and only a listing with such icons (most have none: no lookup, no wait).
 */

/** The most distinct icon hosts of one listing that are looked up; icons of further hosts are not listed, logged naming the limit. */
export const MAX_ICON_HOSTS = 8;

/** What was last logged of each server's icons, so a listing read again with the same problem logs nothing. */
const lastLogged = new Map<string, string>();

export async function checkIconHosts(listing: ServerListing, server: string, logger: Logger): Promise<void> {
  const entries: object[] = [...listing.tools, ...listing.resources, ...listing.templates, ...listing.prompts];
  /** Each entry with named icons, and their hosts; each host with the first src naming it. */
  const named: Array<[object, string[]]> = [];
  const hosts = new Map<string, string>();
  for (const entry of entries) {
    const icons = (entry as { icons?: unknown }).icons;
    if (!Array.isArray(icons)) continue;
    const own: string[] = [];
    for (const icon of icons) {
      const src = (icon as { src?: unknown } | null)?.src;
      const host = typeof src === 'string' ? namedIconHost(src) : null;
      if (host === null) continue;
      own.push(host);
      if (!hosts.has(host)) hosts.set(host, src as string);
    }
    if (own.length > 0) named.push([entry, own]);
  }
  if (hosts.size === 0) {
    lastLogged.delete(server);
    return;
  }
  const looked = [...hosts].slice(0, MAX_ICON_HOSTS);
  const problems = await Promise.all(looked.map(([, src]) => iconHostProblem(src, server)));
  const passed = new Set(looked.filter((_, index) => problems[index] === null).map(([host]) => host));
  for (const [entry, own] of named) setIconHosts(entry, new Set(own.filter((host) => passed.has(host))));
  const refused = problems.filter((problem): problem is string => problem !== null);
  const over = hosts.size - looked.length;
  const said = [
    ...(refused.length > 0 ? [`${refused.length} of its icon hosts did not pass (first: ${refused[0]})`] : []),
    ...(over > 0 ? [`it names ${hosts.size} icon hosts, more than the ${MAX_ICON_HOSTS} looked up (MAX_ICON_HOSTS): the icons of ${over} (first: ${escapeText([...hosts.keys()][MAX_ICON_HOSTS]!)}) are not listed`] : []),
  ].join('; ');
  if (said === '') lastLogged.delete(server);
  else if (lastLogged.get(server) !== said) {
    lastLogged.set(server, said);
    logger.warn({ refused: refused.length, notLookedUp: over }, `icons of the server's listing are not listed: ${said} (each host is resolved within ${MAX_URL_LOOKUP_MS} ms, MAX_URL_LOOKUP_MS; docs/threat-model.md, "Round 24: URL and icon hosts")`);
  }
}
