import type { ClientFormat } from './client-file.js';
import { convertEntry } from './server-entry.js';

/**
 * VS Code's `mcp.json` (`.vscode/mcp.json` in a workspace, `Code/User/mcp.json` for the user):
 *
 *   { "inputs": [{ "type": "promptString", "id": "token", "password": true }],
 *     "servers": { "fs": { "type": "stdio", "command": "npx", "args": ["…", "${workspaceFolder}"] },
 *                  "docs": { "type": "http", "url": "https://…", "headers": { "Authorization": "Bearer ${input:token}" } } } }
 *
 * The servers live under `servers`; `inputs` stays in the file untouched. `${input:…}` cannot be
 * asked for by mcp-latch, so it is kept and reported; `${workspaceFolder}` and `${userHome}` are resolved.
 */
export const vscodeFormat: ClientFormat = {
  name: 'vscode',
  serversKey: 'servers',
  toServer: (name, raw, context) => convertEntry(name, raw, { urlKeys: ['url'], typeKeys: ['type'], timeoutUnit: 'ms' }, context),
  gatewayEntry: (launch) => ({ type: 'stdio', command: launch.command, args: launch.args }),
};
