import type { CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../values.js';
import { linksShown, shownItem } from './listed-text.js';
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
 * - icons are kept as a listing's are (listed-text.ts shownIcon: `data:` images only): a message's
 *   resource_link, one inside a `tool_result`'s content, and the `tools` offered (round 25 review R2:
 *   `http://127.0.0.1:9222/json` icons reached the client's sampling approval, which shows them);
 *   their texts escaped as a listing's (a tool's title, description, schema texts; a link's title,
 *   name, description, mimeType: round 26 review P4), a tool's name and a link's uri as sent.
 *
 * The messages' text is the server's prompt and is sent as it is: not cut to a height as a question
 * is (server-input.ts shownQuestion), since it is the model's input; the mark above is what says
 * whose it is (round 33 review P33-5, docs/threat-model.md).
 */
export function markedSampling(server: string, params: CreateMessageRequest['params']): CreateMessageRequest['params'] {
  const note = `[This sampling request comes from the MCP server "${server}" through mcp-latch; it is not the person's or mcp-latch's.]`;
  const marked: CreateMessageRequest['params'] = { ...params, systemPrompt: params.systemPrompt ? `${note}\n\n${params.systemPrompt}` : note };
  if (params.includeContext !== undefined && params.includeContext !== 'none') marked.includeContext = 'none';
  if (isPlainObject(params._meta)) marked._meta = withoutGatewayKeys(params._meta);
  if (Array.isArray(params.messages)) marked.messages = params.messages.map(messageShown);
  if (Array.isArray(params.tools)) marked.tools = params.tools.map((tool) => (isPlainObject(tool) ? shownItem(tool) : tool));
  return marked;
}

type Message = CreateMessageRequest['params']['messages'][number];

function messageShown(message: Message): Message {
  if (!isPlainObject(message)) return message;
  const blocks: unknown[] = Array.isArray(message.content) ? message.content : [message.content];
  const shown = linksShown(blocks.map((block) => (isPlainObject(block) && block.type === 'tool_result' && Array.isArray(block.content) ? { ...block, content: linksShown(block.content) } : block)));
  return { ...message, content: Array.isArray(message.content) ? shown : shown[0] } as Message;
}
