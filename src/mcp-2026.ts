/**
 * The wire names of MCP 2026-07-28, for both sides of the gateway: its clients (gateway/era-2026.ts)
 * and its servers (downstream/era-2026.ts). A request carries its revision, its client and that
 * client's capabilities in `_meta` (the envelope); a result carries the server's info there.
 */
export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];
export const MODERN_VERSION = '2026-07-28';
export const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
