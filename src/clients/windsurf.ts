import type { ClientFormat } from './client-file.js';
import { convertEntry } from './server-entry.js';

/**
 * Windsurf's `~/.codeium/windsurf/mcp_config.json`: the `mcpServers` shape, but a remote server's
 * address is `serverUrl` (newer versions also read `url`), and `disabledTools` hides tools:
 *
 *   { "mcpServers": { "docs": { "serverUrl": "https://…/mcp", "headers": {…} },
 *                     "git": { "command": "uvx", "args": ["mcp-server-git"], "disabledTools": ["git_push"] } } }
 *
 * `serverUrl` becomes `url`; `disabledTools` become `mcp__server__tool` deny rules.
 */
export const windsurfFormat: ClientFormat = {
  name: 'windsurf',
  serversKey: 'mcpServers',
  toServer: (name, raw, context) => convertEntry(name, raw, { urlKeys: ['serverUrl', 'url'], typeKeys: ['type'], timeoutUnit: 'ms' }, context),
  gatewayEntry: (launch) => ({ command: launch.command, args: launch.args }),
};
