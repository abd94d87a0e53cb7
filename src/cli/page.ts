import { findConfig } from '../config/load.js';
import { readPages } from '../approval-page/state-file.js';
import { pageStateFile } from '../config/locate.js';
import { openInBrowser } from '../gateway/announce.js';
import type { Output } from './output.js';

/**
 * `mcp-latch page`: the approval page of every gateway running with this config, from the state
 * file next to it; `--open` opens each in the browser. A gateway starts its page on the first call
 * that waits for the person, so none may be listed before that.
 */
export function page(options: { config?: string | undefined; open?: boolean | undefined }, out: Output): number {
  const configPath = findConfig(options.config);
  const pages = readPages(pageStateFile(configPath));
  if (pages.length === 0) {
    out.error(`mcp-latch: no running gateway with ${configPath} has an approval page yet (it starts on the first call that waits for you, when the client cannot show prompts)`);
    return 1;
  }
  for (const entry of pages) {
    out.line(`${entry.url}  (${entry.client}, gateway pid ${entry.pid}, since ${entry.started})`);
    if (options.open) openInBrowser(entry.url);
  }
  return 0;
}
