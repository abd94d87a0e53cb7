import type { CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../values.js';
import { withoutGatewayKeys } from './server-meta.js';

/**
 * A server's `sampling/createMessage` as the client is sent it (docs/threat-model.md, "What a server
 * sends through the protocol"; round 17 review of hostile servers, 4):
 *
 * - `includeContext` is sent as "none": the client sees the gateway as one server, so "thisServer"
 *   and "allServers" both asked it to add what every server's calls put in the conversation, and
 *   one server would read the others' results. MCP lets clients ignore the field; the gateway does
 *   not declare `sampling.context` to servers either (core.ts mirrorCapabilities).
 * - `systemPrompt` begins with which server asks, so the client's sampling approval and the model
 *   see the request as that server's, not the gateway's or the person's.
 * - the server's `mcp-latch/…` `_meta` keys are dropped, as from its questions.
 *
 * The messages themselves are the server's prompt and are sent as they are.
 */
export function markedSampling(server: string, params: CreateMessageRequest['params']): CreateMessageRequest['params'] {
  const note = `[This sampling request comes from the MCP server "${server}" through mcp-latch; it is not the person's or mcp-latch's.]`;
  const marked: CreateMessageRequest['params'] = { ...params, systemPrompt: params.systemPrompt ? `${note}\n\n${params.systemPrompt}` : note };
  if (params.includeContext !== undefined && params.includeContext !== 'none') marked.includeContext = 'none';
  if (isPlainObject(params._meta)) marked._meta = withoutGatewayKeys(params._meta);
  return marked;
}
