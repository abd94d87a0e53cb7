import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION, type ClientCapabilities, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import { CAPABILITIES_KEY, CLIENT_INFO_KEY, MODERN_VERSION, SERVER_INFO_KEY, VERSION_KEY } from '../mcp-2026.js';
import { isPlainObject } from '../values.js';

/**
 * MCP 2026-07-28 to a server (`protocolVersion: "2026-07-28"` in its config entry), under the SDK
 * Client that owns the connection. Over stdio the opening message pins the connection's era, so:
 *
 *   start          the transport starts, then `server/discover` with the envelope opens the
 *                  connection in the modern era (a server that refuses it is spoken to as before)
 *   initialize     answered here from what discover said; `notifications/initialized` is dropped
 *   every request  carries the envelope in `_meta` (a request without it would pin the 2025 era);
 *                  a request that already has one (a tools/call naming its own client
 *                  capabilities, gateway/call.ts) keeps it
 *
 * A modern server sends no requests of its own: it answers a tools/call `input_required`, which
 * the call pipeline relays to a 2026-07-28 client or answers for a handshake-era one.
 */
/** An id the SDK Client (numbers from 0) and direct calls (numbers from 1e9) never use. */
const DISCOVER_ID = 'mcp-latch/discover';
/** The id of the gateway's `subscriptions/listen` to a modern server: open for the connection's life. */
const LISTEN_ID = 'mcp-latch/listen';
/** The changes a modern server tells only on a subscription: without one, a tool it changed was seen at its next start (round 19). */
const LISTENED = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };

/** The request envelope of 2026-07-28: who asks, on which revision, and what it can answer. */
export function envelopeMeta(version: string, capabilities: ClientCapabilities): Record<string, unknown> {
  return { [VERSION_KEY]: MODERN_VERSION, [CLIENT_INFO_KEY]: { name: 'mcp-latch', version }, [CAPABILITIES_KEY]: capabilities };
}

/**
 * Makes `transport` speak 2026-07-28 to its server, before `client.connect(transport)`. `modern()`
 * tells, once connected, whether the server took it.
 */
export function speakModern(transport: Transport, version: string, timeoutMs: number, logger: Logger): { modern(): boolean } {
  let discovered: Record<string, unknown> | null = null;
  const start = transport.start.bind(transport);
  const send = transport.send.bind(transport);

  transport.start = async () => {
    await start();
    // The Client has set onmessage and onclose before it starts the transport: the discover answer is taken here.
    const toClient = transport.onmessage;
    const closed = transport.onclose;
    try {
      discovered = await new Promise<Record<string, unknown> | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), timeoutMs);
        // A server that stops on the request (a 2025-era one may) fails its start now, not at the timeout.
        transport.onclose = () => {
          clearTimeout(timer);
          resolve(null);
          closed?.();
        };
        transport.onmessage = (message, extra) => {
          const record = message as Record<string, unknown>;
          if (record.id !== DISCOVER_ID) return toClient?.(message, extra);
          clearTimeout(timer);
          const result = record.result;
          resolve(isPlainObject(result) && Array.isArray(result.supportedVersions) && result.supportedVersions.includes(MODERN_VERSION) ? result : null);
        };
        send({ jsonrpc: '2.0', id: DISCOVER_ID, method: 'server/discover', params: { _meta: envelopeMeta(version, {}) } }).catch(() => resolve(null));
      });
    } finally {
      transport.onmessage = toClient;
      transport.onclose = closed;
    }
    if (!discovered) {
      logger.warn({ protocolVersion: MODERN_VERSION }, 'the server did not take MCP 2026-07-28 (server/discover); speaking the 2025 era to it');
      return;
    }
    listen(transport, send, version, logger);
  };

  transport.send = async (message, options) => {
    const record = message as Record<string, unknown>;
    if (!discovered || typeof record.method !== 'string') return send(message, options);
    if (record.method === 'notifications/initialized') return;
    if (record.method === 'initialize' && record.id !== undefined) {
      const result = { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: discovered.capabilities ?? {}, serverInfo: serverInfoOf(discovered), ...(typeof discovered.instructions === 'string' ? { instructions: discovered.instructions } : {}) };
      const answer = { jsonrpc: '2.0', id: record.id, result } as unknown as JSONRPCMessage;
      queueMicrotask(() => transport.onmessage?.(answer));
      return;
    }
    if (record.id === undefined) return send(message, options);
    const params = isPlainObject(record.params) ? record.params : {};
    const meta = isPlainObject(params._meta) ? params._meta : {};
    if (meta[VERSION_KEY] !== undefined) return send(message, options);
    return send({ ...record, params: { ...params, _meta: { ...meta, ...envelopeMeta(version, {}) } } } as JSONRPCMessage, options);
  };

  return { modern: () => discovered !== null };
}

/**
 * Opens the connection's `subscriptions/listen` for list changes: in 2026-07-28 a server sends
 * `list_changed` notifications only on such a subscription, and the SDK's server drops them
 * otherwise, so a modern server that changed or added a tool (a rug pull) was not re-read until it
 * restarted (docs/threat-model.md, "Round 19"). The notifications go on to the SDK Client as a 2025
 * server's do (connect.ts); the subscription's own answer and acknowledgement are taken here. A
 * refused subscription is logged: the server's changes are then seen at its restart.
 */
function listen(transport: Transport, send: Transport['send'], version: string, logger: Logger): void {
  const toClient = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const record = message as Record<string, unknown>;
    if (record.id === LISTEN_ID) {
      if (record.error !== undefined) logger.warn({ error: record.error }, 'the server refused subscriptions/listen: a change of its lists is seen when it starts again');
      return;
    }
    if (record.method === 'notifications/subscriptions/acknowledged') return;
    toClient?.(message, extra);
  };
  const request = { jsonrpc: '2.0', id: LISTEN_ID, method: 'subscriptions/listen', params: { notifications: LISTENED, _meta: envelopeMeta(version, {}) } } as unknown as JSONRPCMessage;
  send(request).catch((error: unknown) => logger.warn({ err: String(error) }, 'could not open subscriptions/listen: a change of the server\'s lists is seen when it starts again'));
}

function serverInfoOf(discovered: Record<string, unknown>): { name: string; version: string } {
  const meta = isPlainObject(discovered._meta) ? discovered._meta : {};
  const info = meta[SERVER_INFO_KEY];
  return isPlainObject(info) && typeof info.name === 'string' && typeof info.version === 'string' ? { name: info.name, version: info.version } : { name: 'unknown', version: '0' };
}
