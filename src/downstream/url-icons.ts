import type { Logger } from '../log.js';
import { escapeText } from '../latch/escape.js';
import type { ServerListing } from './listing.js';
import { head } from '../code-points.js';

/**
 * A server's listed icons given by URL are not listed to the client (gateway/listed-text.ts
 * shownIcon; docs/threat-model.md, "Round 25: icons"): a client fetches an icon unasked and resolves
 * its host itself, after anything the gateway checks, so a name that answered the gateway with a
 * public address could answer the client with 127.0.0.1 (DNS rebinding). Round 24 resolved each
 * host when the listing was read (up to 3 s of the listing's wait, a place of the server's host
 * lookups); now nothing is looked up, and this says once per change which server's icons went, so
 * its author can list them as `data:` images.
 */

/** What was last logged of each server's URL icons, so a listing read again with the same icons logs nothing. */
const lastLogged = new Map<string, string>();

export function noteUrlIcons(listing: ServerListing, server: string, logger: Logger): void {
  let count = 0;
  let first: string | undefined;
  for (const entry of [...listing.tools, ...listing.resources, ...listing.templates, ...listing.prompts] as object[]) {
    const icons = (entry as { icons?: unknown }).icons;
    if (!Array.isArray(icons)) continue;
    for (const icon of icons) {
      const src = (icon as { src?: unknown } | null)?.src;
      if (typeof src !== 'string' || src.startsWith('data:')) continue;
      count += 1;
      first ??= head(src, 200);
    }
  }
  if (first === undefined) {
    lastLogged.delete(server);
    return;
  }
  const said = `${count} (first: "${escapeText(first)}")`;
  if (lastLogged.get(server) === said) return;
  lastLogged.set(server, said);
  logger.warn({ icons: count }, `icons of the server's listing given by URL are not listed: ${said}; a client fetches an icon unasked and resolves its host itself, so mcp-latch lists icons only as data: images (docs/threat-model.md, "Round 25: icons")`);
}
