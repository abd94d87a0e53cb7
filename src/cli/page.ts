import { findConfig } from '../config/load.js';
import { LINK_TTL_MS, pageLink } from '../approval-page/link.js';
import { readPages } from '../approval-page/state-file.js';
import { pageOpenerDir, pageStateFile } from '../config/locate.js';
import { openLinkInBrowser } from '../gateway/announce.js';
import type { Output } from './output.js';

/**
 * `mcp-latch page`: a one-time link (approval-page/link.ts) to the approval page of every gateway
 * running with this config, made with the page's secret from the state file next to it; `--open`
 * opens each page in the browser with a link of its own, given through a file of the person's
 * (never on the opener's command line: approval-page/opener.ts), and prints only the address. A gateway
 * starts its page on the first call that waits for the person, so none may be listed before that.
 */
export function page(options: { config?: string | undefined; open?: boolean | undefined }, out: Output): number {
  const configPath = findConfig(options.config);
  const pages = readPages(pageStateFile(configPath));
  if (pages.length === 0) {
    out.error(`mcp-latch: no running gateway with ${configPath} has an approval page yet (it starts on the first call that waits for you, when the client cannot show prompts)`);
    return 1;
  }
  let status = 0;
  for (const entry of pages) {
    const about = `${entry.client}, gateway pid ${entry.pid}, since ${entry.started}`;
    if (options.open) {
      const failed = openLinkInBrowser(pageLink(entry.url, entry.secret), pageOpenerDir(configPath));
      if (failed) {
        out.error(`mcp-latch: the browser was not opened for ${entry.url}: ${failed}. Run \`mcp-latch page\` without --open and paste its link into your browser`);
        status = 1;
        continue;
      }
      out.line(`${entry.url}  (${about}; opened in the browser)`);
    } else {
      out.line(`${pageLink(entry.url, entry.secret)}  (${about}; the link works once, within ${LINK_TTL_MS / 1000} s)`);
    }
  }
  return status;
}
