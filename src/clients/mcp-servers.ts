import type { ClientFormat } from './client-file.js';
import { convertEntry } from './server-entry.js';

/**
 * The `mcpServers` format of Claude Desktop (`claude_desktop_config.json`), Cursor (`mcp.json`),
 * Claude Code (`.mcp.json`, `~/.claude.json`) and Cline (`cline_mcp_settings.json`):
 *
 *   { "mcpServers": { "fs": { "command": "npx", "args": ["-y", "…"], "env": {…} },
 *                     "docs": { "type": "http", "url": "https://…", "headers": {…} } } }
 *
 * mcp-latch's own `mcpServers` takes the same shape. Cline writes `timeout` in seconds and its older
 * `transportType` for `type`; Claude Code writes `"type": "stdio"` on local servers.
 */
export const mcpServersFormat: ClientFormat = {
  name: 'mcpServers',
  serversKey: 'mcpServers',
  toServer: (name, raw, context) =>
    convertEntry(
      name,
      raw,
      context.family === 'cline'
        ? { urlKeys: ['url'], typeKeys: ['type', 'transportType'], timeoutUnit: 's' }
        : { urlKeys: ['url'], typeKeys: ['type'], timeoutUnit: 'ms' },
      context,
    ),
  gatewayEntry: (launch) => ({ command: launch.command, args: launch.args }),
};
