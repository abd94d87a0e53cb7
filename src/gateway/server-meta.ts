/**
 * A server's `_meta` without the gateway's own keys: `mcp-latch/request` is the gateway's prompt
 * payload (docs/approval.md), and a server's copy would show its question as the gateway's to a
 * client that renders or answers from it (round 12 review, F6).
 */
export function withoutGatewayKeys(meta: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith(GATEWAY_META_PREFIX)));
}

const GATEWAY_META_PREFIX = 'mcp-latch/';
